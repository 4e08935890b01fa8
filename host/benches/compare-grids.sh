#!/usr/bin/env bash
# compare-grids.sh — the CLI's grids as a user runs them, against node doing the same runs.
#
# Times, side by side on one core, three `capsim` grid commands (the whole process, its rows
# written to /dev/null, `--threads 1`) and the reference programs under node computing the
# same runs in one process, and prints node ms, capsim ms and the ratio for each grid:
#
#   autoscale  capsim autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=200   1,800 runs
#   consumers  capsim consumers --consumers 1,2,3,4,6,8 --slots 2,4 --seed 1..=5      60 runs
#   bulkhead   capsim bulkhead --split shared,28,24,20,16 --mode healthy,slowdown \
#                      --seed 1..=100                                               1,000 runs
#
# Goals (issue 11, median ratio): autoscale >= 12x, consumers >= 15x, bulkhead >= 60x.
#
# Run from the repository root:
#
#     bash host/benches/compare-grids.sh [--reference DIR] [--rounds N] [--reps N]
#                                        [--only GRID[,GRID...]] [--capsim PATH]
#
#   --reference DIR  the reference programs (default ../shared/reference, relative to the
#                    repository root): olcum-agi/grup.mjs, rakip/tuketici.mjs, bolme/kosum.mjs
#   --rounds N       node/capsim pairs per grid (default 3); the table shows the medians
#   --reps N         capsim processes per round (default 5), the round's median taken
#   --only LIST      the grids to time (default autoscale,consumers,bulkhead)
#   --capsim PATH    time this capsim binary (another build, another branch's) instead of
#                    building target/release/capsim
#
# Needs node (fails if it is missing) and cargo; uses `taskset -c 0` when available so both
# sides run on the same single core. capsim runs with `--threads 1`: one worker thread, the
# same single core node's JavaScript runs on.
#
# The same work. Node calls the reference model functions in one process, for every run of
# the grid, in the CLI's order (first flag outermost, seed innermost):
#   autoscale  grup.mjs `kosum({esik, soguma, tohum})` per run;
#   consumers  tuketici.mjs `isYuku()` once per seed, then `kosum(olaylar, N, S)` per
#              configuration of that seed (the copy's `isYuku` takes the seed, which the
#              program fixes to 20260731);
#   bulkhead   bolme/kosum.mjs `kosum({bolme, kip})` per run (the copy's `kosum` takes the
#              seed, which the program fixes to 20260801; `shared` is `bolme: null`).
# Before timing, the script checks that node computes exactly the runs capsim prints: every
# metric of every run of capsim's CSV output equals node's (as text, node's String(x)).
#
# Process start, and what is timed. A user runs capsim as a process, so capsim's side is the
# wall time of the whole process (start, parsing, the runs, formatting every row, writing them
# to /dev/null). Node's process start (about 40 ms, loading V8 and the modules) would swamp
# the smaller grids, so both process starts are excluded: node times the grid in-process
# (process.hrtime.bigint(), after loading the modules), and capsim's column is its process
# wall time minus the wall time of the same capsim binary making a one-round run
# (`capsim bulkhead --horizon 1 --seed 1 --threads 1`: start, clap, the thread pool, one row),
# measured next to it. The `capsim whole` column keeps capsim's start in (a ratio that counts
# capsim's start but not node's favours node).
#
# Warm: node first runs the grid's runs, in order, untimed for at least 0.5 s (or the whole
# grid, if that is sooner), then times one whole pass of the grid. capsim's processes are cold
# (as a user runs them) but their binary is in the page cache (an untimed run first). Node and
# capsim alternate, grid by grid and round by round, so each ratio compares runs made moments
# apart; capsim's time in a round is the median of --reps processes, each next to a start run.
#
# The JavaScript is never part of this repository: the script copies the reference programs
# into a temporary directory, strips the printing from the two that have no exports (and
# exports their model functions), lets the copies take a seed, times them there, and removes
# the directory on exit.
set -euo pipefail

cd "$(dirname "$0")/../.."
BENCH=compare-grids
# shellcheck source=host/benches/lib.sh
. host/benches/lib.sh
REPS=5
ONLY=autoscale,consumers,bulkhead
CAPSIM=

while [ $# -gt 0 ]; do
    if bench_option "$@"; then shift "$SHIFT"; continue; fi
    case "$1" in
        --reps) [ $# -ge 2 ] || die "--reps needs a number"; REPS=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || die "--only needs a list"; ONLY=$2; shift 2 ;;
        --capsim) [ $# -ge 2 ] || die "--capsim needs a path"; CAPSIM=$2; shift 2 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
bench_require
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
IFS=, read -r -a GRIDS <<<"$ONLY"
for g in "${GRIDS[@]}"; do
    case "$g" in autoscale|consumers|bulkhead) ;; *) die "unknown grid in --only: $g" ;; esac
done

[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

if [ -z "$CAPSIM" ]; then
    echo "building capsim (release)..." >&2
    cargo build --release --quiet -p capsim --bin capsim
    CAPSIM="${CARGO_TARGET_DIR:-target}/release/capsim"
fi
[ -x "$CAPSIM" ] || die "capsim not found at $CAPSIM"

# Copy the reference programs out of the repository (cut off where the printing starts), and
# let the two that fix their seed take one (each edit must match exactly one line).
bench_copy_references capsim-grids
edit_once() { # <file> <line regex> <sed substitution>
    [ "$(grep -c "$2" "$1")" = 1 ] || die "$1: expected exactly one line matching /$2/"
    sed -i "$3" "$1"
}
# isYuku(tohum): the parameter shadows the program's TOHUM inside the function only.
edit_once "$TMP/rakip/tuketici.mjs" '^function isYuku() {' \
    's/^function isYuku() {/function isYuku(TOHUM) {/'
edit_once "$TMP/bolme/kosum.mjs" '^function kosum({ bolme, kip }) {' \
    's/^function kosum({ bolme, kip }) {/function kosum({ bolme, kip, tohum }) {/'
edit_once "$TMP/bolme/kosum.mjs" '^  let s = 20260801 % 2147483647;' \
    's/^  let s = 20260801 % 2147483647;/  let s = tohum % 2147483647;/'

# `node harness.mjs GRID CHECK_FILE` prints `GRID <ms per pass> <runs>` and writes every run's
# metrics, in grid order, one CSV line each, to CHECK_FILE.
cat >"$TMP/harness.mjs" <<'EOF'
import { writeFileSync } from "node:fs";
import { kosum as grup } from "./olcum-agi/grup.mjs";
import { isYuku, kosum as tuketici } from "./rakip/tuketici.mjs";
import { kosum as bolme } from "./bolme/kosum.mjs";

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
// A metrics line: the values of `keys` in `m`, as node's String(x), joined by commas.
const line = (m, keys) => keys.map((k) => String(m[k])).join(",");
// Each grid: its runs' count, and `pass(from, to, out)` computing runs [from, to) in grid
// order (first flag outermost, seed innermost) into out[i] (a metrics line).
// A grid of the lists A × B × seeds, each run computed alone by run(a, b, seed).
const eachRun = (A, B, seeds, run) => ({
  n: A.length * B.length * seeds.length,
  pass(from, to, out) {
    for (let i = from; i < to; i++) {
      const a = A[Math.floor(i / (seeds.length * B.length))];
      out[i] = run(a, B[Math.floor(i / seeds.length) % B.length], seeds[i % seeds.length]);
    }
  },
});
const grids = {
  autoscale: eachRun([2, 3, 5], [0, 3, 8], range(1, 200), (esik, soguma, tohum) =>
    line(grup({ esik, soguma, tohum }), ["min", "max", "esZamanli", "oran", "alti", "baslatilan",
      "yanlis", "bozukTur", "olcekleme", "degistirme"])),
  consumers: (() => {
    const N = [1, 2, 3, 4, 6, 8], S = [2, 4], seeds = range(1, 5);
    const n = N.length * S.length * seeds.length;
    return { n, pass(from, to, out) {
      // isYuku once per seed, then every configuration of that seed.
      for (let k = 0; k < seeds.length; k++) {
        let olaylar = null;
        for (let a = 0; a < N.length; a++)
          for (let b = 0; b < S.length; b++) {
            const i = (a * S.length + b) * seeds.length + k;
            if (i < from || i >= to) continue;
            olaylar ??= isYuku(seeds[k]);
            const m = tuketici(olaylar, N[a], S[b]);
            out[i] = [m.tur, m.bozulan, m.yanlisSon, m.verim].map(String).join(",");
          }
      }
    } };
  })(),
  bulkhead: eachRun([null, 28, 24, 20, 16], ["saglikli", "yavaslama"], range(1, 100),
    (b, kip, tohum) => line(bolme({ bolme: b, kip, tohum }), ["takipYanit", "takipDusen",
      "olayYanit", "olayDusen", "atil", "doluTur"])),
};

const [name, checkFile] = process.argv.slice(2);
const grid = grids[name];
if (!grid) throw new Error(`unknown grid ${name}`);
const out = new Array(grid.n);
// Warm-up: the grid's runs in order, untimed, for 0.5 s or the whole grid.
const warmStart = process.hrtime.bigint();
for (let i = 0; i < grid.n && process.hrtime.bigint() - warmStart < 500_000_000n; i++)
  grid.pass(i, i + 1, out);
out.fill(undefined);
const start = process.hrtime.bigint();
grid.pass(0, grid.n, out);
const ms = Number(process.hrtime.bigint() - start) / 1e6;
writeFileSync(checkFile, out.join("\n") + "\n");
console.log(`${name} ${ms.toFixed(3)} ${grid.n}`);
EOF

declare -A ARGS=(
    [autoscale]="autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=200"
    [consumers]="consumers --consumers 1,2,3,4,6,8 --slots 2,4 --seed 1..=5"
    [bulkhead]="bulkhead --split shared,28,24,20,16 --mode healthy,slowdown --seed 1..=100"
)
declare -A METRICS=(
    [autoscale]="min_size,max_size,max_launching,max_launching_ratio,under_capacity_rounds,launched,false_replacements,broken_rounds,scaling_actions,replacements"
    [consumers]="rounds,reordered_shipments,wrong_final_state,throughput"
    [bulkhead]="tracking_served,tracking_dropped,event_served,event_dropped,idle_slots,busy_slot_rounds"
)
declare -A GOAL=([autoscale]=12 [consumers]=15 [bulkhead]=60)
START_ARGS=(bulkhead --horizon 1 --seed 1 --threads 1)

# capsim's CSV rows, metric columns only, in the node check's form.
capsim_metrics() { # <grid>
    # shellcheck disable=SC2086
    "$CAPSIM" ${ARGS[$1]} --threads 1 --format csv | awk -F, -v want="${METRICS[$1]}" '
        NR == 1 { n = split(want, w, ","); for (i = 1; i <= NF; i++) col[$i] = i
                  for (j = 1; j <= n; j++) if (!(w[j] in col)) { print "missing " w[j]; exit 1 }
                  next }
        { line = $(col[w[1]]); for (j = 2; j <= n; j++) line = line "," $(col[w[j]]); print line }'
}

# Wall time of one process, in microseconds (bash's clock, fork and exec included).
micros() { # <command...>
    local t0 t1
    t0=$EPOCHREALTIME
    "$@" >/dev/null
    t1=$EPOCHREALTIME
    echo $(( ${t1/[.,]/} - ${t0/[.,]/} ))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

"$CAPSIM" "${START_ARGS[@]}" >/dev/null || die "capsim failed on its start run"
for round in $(seq 1 "$ROUNDS"); do
    for grid in "${GRIDS[@]}"; do
        echo "round $round/$ROUNDS: $grid (node, then capsim x $REPS)..." >&2
        line=$(bench_node "$grid" "$TMP/node-$grid.csv") || exit 1
        read -r _ node_ms runs <<<"$line"
        if [ "$round" = 1 ]; then
            capsim_metrics "$grid" >"$TMP/capsim-$grid.csv" || die "capsim failed on $grid"
            cmp -s "$TMP/node-$grid.csv" "$TMP/capsim-$grid.csv" ||
                die "$grid: node's runs differ from capsim's (first difference: $(
                    diff "$TMP/node-$grid.csv" "$TMP/capsim-$grid.csv" | head -3 | tr '\n' ' '))"
            echo "  $grid: node and capsim agree on all $runs runs ($(wc -l <"$TMP/capsim-$grid.csv") rows, e.g. run 1: $(head -1 "$TMP/capsim-$grid.csv"))" >&2
        fi
        whole=() start=()
        for _ in $(seq 1 "$REPS"); do
            # shellcheck disable=SC2086
            whole+=("$(micros "${PIN[@]}" "$CAPSIM" ${ARGS[$grid]} --threads 1)")
            start+=("$(micros "${PIN[@]}" "$CAPSIM" "${START_ARGS[@]}")")
        done
        whole_us=$(printf '%s\n' "${whole[@]}" | median)
        start_us=$(printf '%s\n' "${start[@]}" | median)
        echo "$grid $round $node_ms $whole_us $start_us $runs" >>"$RESULTS"
    done
done

bench_machine
echo "pinned: ${PIN[*]:-no (taskset unavailable)}; capsim --threads 1; $ROUNDS round(s), $REPS capsim processes a round, medians shown"
echo "node: warm, in-process, one pass; capsim: whole process minus its start (a one-round run)"
echo
awk -v grids="${GRIDS[*]}" -v goals="autoscale=${GOAL[autoscale]} consumers=${GOAL[consumers]} bulkhead=${GOAL[bulkhead]}" "$AWK_MEDIAN"'
    BEGIN { n = split(goals, g, " "); for (i = 1; i <= n; i++) { split(g[i], kv, "="); goal[kv[1]] = kv[2] } }
    {
        net = ($4 - $5) / 1000
        node[$1] = node[$1] " " $3; whole[$1] = whole[$1] " " $4 / 1000; start[$1] = start[$1] " " $5 / 1000
        cap[$1] = cap[$1] " " net; runs[$1] = $6
        ratios[$1] = ratios[$1] sprintf(" %.1f", $3 / net)
    }
    END {
        printf "%-10s | %5s | %10s | %12s | %12s | %9s | %13s | %14s | %s\n", "grid", "runs", "node ms", "capsim whole", "capsim start", "capsim ms", "node / capsim", "node / (whole)", "per-round ratios"
        printf "%-10s-+-%5s-+-%10s-+-%12s-+-%12s-+-%9s-+-%13s-+-%14s-+-%s\n", "----------", "-----", "----------", "------------", "------------", "---------", "-------------", "--------------", "----------------"
        n = split(grids, s, " ")
        for (i = 1; i <= n; i++) {
            k = s[i]; nm = median(node[k]); wm = median(whole[k]); sm = median(start[k]); cm = median(cap[k])
            printf "%-10s | %5d | %10.1f | %12.2f | %12.2f | %9.2f | %12.1fx | %13.1fx | %s\n", k, runs[k], nm, wm, sm, cm, nm / cm, nm / wm, substr(ratios[k], 2)
            verdict = verdict sprintf("%s %s %.1fx (goal %dx); ", k, nm / cm >= goal[k] ? "met" : "NOT met", nm / cm, goal[k])
        }
        print ""
        print "goals (median node / capsim ms): " substr(verdict, 1, length(verdict) - 2)
    }' "$RESULTS"
