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
)

printf '%-18s' run
for dir in "$@"; do printf ' %22s' "$(basename "$dir")"; done
printf '\n'
for run in "${runs[@]}"; do
    name=${run%%|*}
    read -r -a argv <<<"${run#*|}"
    printf '%-18s' "$name"
    first=
    for dir in "$@"; do
        n=$(count "$dir/${argv[0]}" "${argv[@]:1}")
        if [ -z "$first" ]; then
            first=$n
            printf ' %22s' "$n"
        else
            printf ' %22s' "$n ($(awk -v a="$first" -v b="$n" 'BEGIN { printf "%+.2f%%", (b - a) * 100 / a }'))"
        fi
    done
    printf '\n'
done
