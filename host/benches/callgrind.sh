#!/usr/bin/env bash
# callgrind.sh — instruction counts of the CLI's grids and the lesson sweeps, for one build or
# several side by side (deterministic: comparable on a loaded machine, unlike wall time).
#
# Run from the repository root:
#
#     bash host/benches/callgrind.sh DIR [DIR...]
#
# Each DIR holds a release `capsim` and `sweep_timing` (copy them out of target/release after
# `cargo build --release -p capsim --bin capsim --example sweep_timing --locked`, once per
# revision). Prints one row per run: valgrind's "Collected" instructions for each DIR and, with
# more than one, each one's change against the first. The runs:
#
#   autoscale_grid     capsim autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=20
#   consumers_grid     capsim consumers --consumers 1,2,3,4,6,8 --slots 2,4 --seed 1..=5
#   bulkhead_grid      capsim bulkhead --split shared,28,24,20,16 --mode healthy,slowdown \
#                          --seed 1..=100
#                      (the grids with --threads 1 --format csv, rows to /dev/null)
#   lesson_all         capsim lesson all
#   sweep_NAME         sweep_timing --min-secs 0 NAME, for group_sweep, consumers, bulkhead
#                      (one render each after the first, with its timing code: a few hundred
#                      instructions of noise)
#   rows_json          capsim autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=200
#                      --threads 1 --format json (1,800 rows of every key: the rows' cost)
#   general_OPTION     180 runs, --threads 1 --format json, with one option that takes the
#                      general engine: lesson (none: the lesson path; --threshold 2,3,5
#                      --cooldown 0,3,8 --seed 1..=20), hook (--launch-hook 3) and warm
#                      (--warm-pool 6) on that grid; lesson60 (--threshold 2,3,5 --seed
#                      1..=60: the lesson path), tracking (--policy target-tracking) and formula
#                      (--formula examples/formulas/demand.formula) on that one (neither takes
#                      a cooldown)
#
# Then, per DIR, each option's instructions over the lesson path's on its grid (whole
# processes), and a formula evaluation's instructions: the inclusive count of
# capsim_core::formula::eval::evaluate in general_formula over the evaluations its rows
# count.
#
# Needs valgrind.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: bash host/benches/callgrind.sh DIR [DIR...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing" >&2; exit 1; }
for dir in "$@"; do
    for bin in capsim sweep_timing; do
        [ -x "$dir/$bin" ] || { echo "callgrind.sh: no $dir/$bin" >&2; exit 1; }
    done
done

# Prints the instructions valgrind counts for the command "$@" (its output discarded).
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

runs=(
    "autoscale_grid|capsim autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=20 --threads 1 --format csv"
    "consumers_grid|capsim consumers --consumers 1,2,3,4,6,8 --slots 2,4 --seed 1..=5 --threads 1 --format csv"
    "bulkhead_grid|capsim bulkhead --split shared,28,24,20,16 --mode healthy,slowdown --seed 1..=100 --threads 1 --format csv"
    "lesson_all|capsim lesson all"
    "sweep_group_sweep|sweep_timing --min-secs 0 group_sweep"
    "sweep_consumers|sweep_timing --min-secs 0 consumers"
    "sweep_bulkhead|sweep_timing --min-secs 0 bulkhead"
    "rows_json|capsim autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=200 --threads 1 --format json"
)
# The general runs: 180 runs each. Target tracking and a formula take no cooldown (the flag
# would be ignored: refused), so theirs is the lesson's threshold list over 60 seeds, against
# the lesson path on that grid.
general="capsim autoscale --threads 1 --format json --threshold 2,3,5"
nine="--cooldown 0,3,8 --seed 1..=20"
three="--seed 1..=60"
options=(
    "lesson|$nine|"
    "hook|$nine|--launch-hook 3"
    "warm|$nine|--warm-pool 6"
    "lesson60|$three|"
    "tracking|$three|--policy target-tracking"
    "formula|$three|--formula examples/formulas/demand.formula"
)
for option in "${options[@]}"; do
    IFS='|' read -r name grid flags <<<"$option"
    runs+=("general_$name|$general $grid $flags")
done

declare -A counted
printf '%-18s' run
for dir in "$@"; do printf ' %22s' "$(basename "$dir")"; done
printf '\n'
for run in "${runs[@]}"; do
    name=${run%%|*}
    read -r -a argv <<<"${run#*|}"
    printf '%-18s' "$name"
    first=
    for dir in "$@"; do
        n=$(count "$dir/${argv[0]}" "${argv[@]:1}") ||
            { echo "callgrind.sh: $dir: '${argv[*]}' failed" >&2; exit 1; }
        counted[$dir,$name]=$n
        if [ -z "$first" ]; then
            first=$n
            printf ' %22s' "$n"
        else
            printf ' %22s' "$n ($(awk -v a="$first" -v b="$n" 'BEGIN { printf "%+.2f%%", (b - a) * 100 / a }'))"
        fi
    done
    printf '\n'
done

# The general runs' ratios to the lesson path, and the formula's evaluations.
printf '\n%-18s' "ratio to lesson"
for dir in "$@"; do printf ' %22s' "$(basename "$dir")"; done
printf '\n'
for option in "${options[@]}"; do
    IFS='|' read -r name grid _ <<<"$option"
    case $name in lesson*) continue ;; esac
    base=general_lesson
    [ "$grid" = "$three" ] && base=general_lesson60
    printf '%-18s' "general_$name"
    for dir in "$@"; do
        printf ' %22s' "$(awk -v a="${counted[$dir,$base]}" -v b="${counted[$dir,general_$name]}" 'BEGIN { printf "%.2fx", b / a }')"
    done
    printf '\n'
done
printf '%-18s' "formula_eval"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
IFS='|' read -r _ grid flags <<<"${options[5]}"
read -r -a argv <<<"$general $grid $flags"
for dir in "$@"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$dir/capsim" "${argv[@]:1}" \
        2>/dev/null >"$tmp/rows"
    ir=$(callgrind_annotate --inclusive=yes "$tmp/out" 2>/dev/null |
        awk '/capsim_core::formula::eval::evaluate( |$|\[)/ { gsub(",", "", $1); print $1; exit }')
    evaluations=$(grep -o '"evaluations":[0-9]*' "$tmp/rows" | awk -F: '{ n += $2 } END { print n }')
    printf ' %22s' "$(awk -v i="$ir" -v e="$evaluations" 'BEGIN { printf "%.0f", i / e }')"
done
printf '\n'
