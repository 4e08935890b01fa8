#!/usr/bin/env bash
# The command line's habits that need outside tools, none skipped (a missing tool fails the
# run; scripts/test.sh installs GNU parallel, groff, zsh and fish first):
# - the GNU parallel line of docs/command-line.md: shards 1..N of a grid, run by `parallel -k`, concatenated
#   are the whole grid's bytes, for one grid per model (autoscale, consumers, bulkhead), CSV
#   and JSON Lines;
# - `capsim summary` of those shards' JSON rows, written by `parallel` one file a shard, is the
#   whole grid's `--summary`, byte for byte, in every format, for one grid per model;
# - the man pages render with groff, without warnings;
# - the zsh and fish completion scripts parse (`zsh -n`, `fish -n`; bash's: host/tests/habits.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in parallel groff zsh fish; do
    command -v "$tool" >/dev/null || { echo "cli-test: $tool is missing (scripts/test.sh installs it)"; exit 1; }
done

cargo build -p capsim --locked --quiet
PATH="$PWD/target/debug:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The line of docs/command-line.md, verbatim: it must still be there.
readme_line='parallel -k capsim autoscale --threshold 1..=8 --cooldown 0..=4 --seed 1..=25 --format csv --threads 1 --shard {}/8 ::: $(seq 8) > grid.csv'
grep -qxF "$readme_line" "$OLDPWD/docs/command-line.md" ||
    { echo "cli-test: docs/command-line.md no longer has the line: $readme_line"; exit 1; }
eval "$readme_line"
capsim autoscale --threshold 1..=8 --cooldown 0..=4 --seed 1..=25 --format csv >whole.csv
cmp grid.csv whole.csv
[ "$(wc -l <whole.csv)" -eq 1001 ] || { echo "cli-test: expected 1000 rows and a header"; exit 1; }
echo "parallel: autoscale csv, 8 shards of 1000 runs: identical"

# The same line for the other models and JSON, with N cutting the models' batches of runs
# that share a workload, and N above the grid's size (empty shards).
check() {
    local n=$1 format=$2
    shift 2
    parallel -k capsim "$@" --format "$format" --threads 1 --shard {}/"$n" ::: $(seq "$n") >sharded
    capsim "$@" --format "$format" >whole
    cmp sharded whole
    echo "parallel: $1 $format, $n shards of $(wc -l <whole) lines: identical"
}
for format in csv json; do
    check 7 "$format" autoscale --threshold 1..=5 --cooldown 0..=3 --seed 1..=6 --rounds 300
    check 5 "$format" consumers --consumers 1,2,3,4,6,8 --slots 2,4 --shipments 500 --seed 1..=4
    check 9 "$format" bulkhead --split shared,28,24,20 --mode healthy,slowdown --seed 1..=5
    check 50 "$format" bulkhead --seed 1..=7
done

# capsim summary: the shards' JSON rows, one file a shard as a batch engine leaves them
# (zero-padded, so the shell's glob lists them in shard order), merged into the whole grid's
# --summary, in every format.
merged() {
    local n=$1
    shift
    rm -rf shards && mkdir shards
    parallel capsim "$@" --format json --threads 1 --shard {}/"$n" '>' shards/{}.json ::: $(seq -f %03g "$n")
    for format in table json csv; do
        capsim summary --format "$format" shards/*.json >merged
        capsim "$@" --summary --format "$format" >whole
        cmp merged whole
    done
    echo "parallel: capsim summary of $1's $n shards: the whole grid's --summary (table, json, csv)"
}
merged 7 autoscale --threshold 1..=5 --cooldown 0..=3 --seed 1..=6 --rounds 300
merged 5 consumers --consumers 1,2,3,4,6,8 --slots 2,4 --shipments 500 --seed 1..=4
merged 9 bulkhead --split shared,28,24,20 --mode healthy,slowdown --seed 1..=5

# Every man page renders, with groff's warnings turned on and made fatal.
pages=("" autoscale consumers bulkhead lesson "trace autoscale" "plot bulkhead" "formula check" completions man)
for page in "${pages[@]}"; do
    # shellcheck disable=SC2086
    capsim man $page >page.1
    groff -man -Tascii -ww -z page.1 2>warnings
    [ ! -s warnings ] || { echo "cli-test: capsim man $page: groff warns:"; cat warnings; exit 1; }
    groff -man -Tascii -P-cbou page.1 >page.txt
    grep -q SYNOPSIS page.txt || { echo "cli-test: capsim man $page has no SYNOPSIS"; exit 1; }
done
capsim man autoscale | groff -man -Tascii -P-cbou | grep -q -- '--threshold' ||
    { echo "cli-test: capsim man autoscale lacks --threshold"; exit 1; }
echo "man: ${#pages[@]} pages render without groff warnings"

capsim completions zsh >_capsim && zsh -n _capsim
capsim completions fish >capsim.fish && fish -n capsim.fish
echo "completions: zsh's and fish's parse"
