#!/usr/bin/env bash
# compare-reference.sh — capsim against the reference JavaScript programs, side by side.
#
# Measures, in one run on this machine, the wall time of each lesson sweep done by the
# reference programs under node (in-process, warm) and by capsim (its lesson renderers,
# warm), and prints node ms, capsim ms and the ratio node / capsim for each sweep. The goal
# (issue 11) is group_sweep >= 30x, consumers >= 12x and bulkhead >= 100x the reference doing
# the same work.
#
# Run from the repository root:
#
#     bash host/benches/compare-reference.sh [--reference DIR] [--rounds N] [--min-secs S]
#
#   --reference DIR  the reference programs (default ../shared/reference, relative to the
#                    repository root): olcum-agi/grup.mjs, rakip/tuketici.mjs, bolme/kosum.mjs
#   --rounds N       node/capsim pairs per sweep (default 3); the table shows the medians
#   --min-secs S     the shortest timed batch, in seconds (default 1)
#
# Needs node (fails if it is missing) and cargo; uses `taskset -c 0` when available so both
# sides run on the same single core.
#
# The same work:
#   group_sweep  grup.mjs `kosum({esik, soguma})` for esik 2,3,5 x soguma 0,3,8 (9 runs),
#                as olcum-agi/grup-taramasi.mjs does; capsim renders `lesson group-sweep`.
#   consumers    tuketici.mjs: `isYuku()` once, then for S in 2,4 the baseline `kosum(o,1,S)`
#                and `kosum(o,N,S)` for N in 1,2,3,4,6,8, then `kosum(o,1,2)`, `kosum(o,6,2)`
#                and `kosum(o,8,2)` (17 runs); capsim renders `lesson consumers`.
#   bulkhead     bolme/kosum.mjs `kosum({bolme, kip})`: the 4 layout rows, the 10 split-table
#                runs and the 27/5 run (15 runs); capsim renders `lesson bulkhead`.
# The node side only calls the models (its printing is stripped), while capsim also formats
# the lesson's text (into a writer that counts bytes), so the ratio slightly favours node.
#
# Warm: each process runs its sweep 5 times untimed, then grows the batch until one batch
# lasts at least --min-secs and reports that batch's ms per sweep (process.hrtime.bigint()
# in node, std::time::Instant in host/examples/sweep_timing.rs). Node runs the JavaScript
# on one thread; capsim's example is single-threaded. Node and capsim alternate, sweep by
# sweep and round by round, so each ratio compares runs made moments apart.
#
# The JavaScript is never part of this repository: the script copies the reference programs
# into a temporary directory, strips the printing from the two that have no exports (and
# exports their model functions), times them there, and removes the directory on exit.
set -euo pipefail

cd "$(dirname "$0")/../.."
BENCH=compare-reference
# shellcheck source=host/benches/lib.sh
. host/benches/lib.sh
MIN_SECS=1

while [ $# -gt 0 ]; do
    if bench_option "$@"; then shift "$SHIFT"; continue; fi
    case "$1" in
        --min-secs) [ $# -ge 2 ] || die "--min-secs needs a number"; MIN_SECS=$2; shift 2 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
bench_require
[[ $MIN_SECS =~ ^[0-9]*\.?[0-9]+$ ]] || die "--min-secs must be a number"

echo "building capsim's sweep_timing example (release)..." >&2
cargo build --release --quiet -p capsim --example sweep_timing
CAPSIM="${CARGO_TARGET_DIR:-target}/release/examples/sweep_timing"
[ -x "$CAPSIM" ] || die "built example not found at $CAPSIM"

# Copy the reference programs out of the repository; cut off where the printing starts.
bench_copy_references capsim-compare

# The node harness: `node harness.mjs SWEEP MIN_SECS` prints `SWEEP <ms per sweep> <check>`.
cat >"$TMP/harness.mjs" <<'EOF'
import { kosum as grup } from "./olcum-agi/grup.mjs";
import { isYuku, kosum as tuketici } from "./rakip/tuketici.mjs";
import { kosum as bolme } from "./bolme/kosum.mjs";

const sweeps = {
  group_sweep() {
    let c = 0;
    for (const esik of [2, 3, 5])
      for (const soguma of [0, 3, 8]) c += grup({ esik, soguma }).baslatilan;
    return c;
  },
  consumers() {
    const olaylar = isYuku();
    let c = 0;
    for (const S of [2, 4]) {
      c += tuketici(olaylar, 1, S).tur;
      for (const N of [1, 2, 3, 4, 6, 8]) c += tuketici(olaylar, N, S).tur;
    }
    c += tuketici(olaylar, 1, 2).verim;
    c += tuketici(olaylar, 6, 2).tur + tuketici(olaylar, 8, 2).tur;
    return c;
  },
  bulkhead() {
    let c = 0;
    for (const b of [null, 24])
      for (const kip of ["saglikli", "yavaslama"]) c += bolme({ bolme: b, kip }).takipDusen;
    for (const b of [null, 28, 24, 20, 16])
      c += bolme({ bolme: b, kip: "saglikli" }).takipDusen + bolme({ bolme: b, kip: "yavaslama" }).olayDusen;
    return c + bolme({ bolme: 27, kip: "saglikli" }).takipDusen;
  },
};

const [name, minArg] = process.argv.slice(2);
const sweep = sweeps[name];
if (!sweep) throw new Error(`unknown sweep ${name}`);
const minSecs = Number(minArg);
let check = 0;
const batch = (n) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) check += sweep();
  return Number(process.hrtime.bigint() - start) / 1e9;
};
batch(5);                                              // warm-up
for (let n = 1; ; ) {
  const secs = batch(n);
  if (secs >= minSecs) {
    console.log(`${name} ${((secs * 1e3) / n).toFixed(6)} ${check}`);
    break;
  }
  n = secs < 0.05 ? n * 2 : Math.max(n + 1, Math.floor((minSecs * 1.1 * n) / secs));
}
EOF

SWEEPS=(group_sweep consumers bulkhead)
declare -A EXPECTED=([group_sweep]=group-sweep.out [consumers]=consumers.out [bulkhead]=bulkhead.out)
for round in $(seq 1 "$ROUNDS"); do
    for sweep in "${SWEEPS[@]}"; do
        echo "round $round/$ROUNDS: $sweep (node, then capsim)..." >&2
        line=$(bench_node "$sweep" "$MIN_SECS") || exit 1
        read -r _ node_ms _ <<<"$line"
        line=$("${PIN[@]}" "$CAPSIM" --min-secs "$MIN_SECS" "$sweep") ||
            die "capsim's sweep_timing failed on $sweep"
        read -r _ capsim_ms bytes <<<"$line"
        [[ ${capsim_ms:-} =~ ^[0-9.]+$ ]] || die "capsim printed no timing for $sweep"
        expected="$REFERENCE/expected/${EXPECTED[$sweep]}"
        if [ -f "$expected" ] && [ "$bytes" != "$(wc -c <"$expected")" ]; then
            die "capsim rendered $bytes bytes for $sweep; $expected has $(wc -c <"$expected")"
        fi
        echo "$sweep $round $node_ms $capsim_ms" >>"$RESULTS"
    done
done

bench_machine
echo "pinned: ${PIN[*]:-no (taskset unavailable)}; $ROUNDS round(s), batches >= ${MIN_SECS} s, medians shown"
echo
awk -v sweeps="${SWEEPS[*]}" "$AWK_MEDIAN"'
    {
        node[$1] = node[$1] " " $3; capsim[$1] = capsim[$1] " " $4
        ratios[$1] = ratios[$1] sprintf(" %.1f", $3 / $4)
    }
    END {
        goal["group_sweep"] = 30; goal["consumers"] = 12; goal["bulkhead"] = 100
        printf "%-12s | %12s | %12s | %17s | %s\n", "sweep", "node ms", "capsim ms", "ratio node/capsim", "per-round ratios"
        printf "%-12s-+-%12s-+-%12s-+-%17s-+-%s\n", "------------", "------------", "------------", "-----------------", "----------------"
        n = split(sweeps, s, " ")
        for (i = 1; i <= n; i++) {
            k = s[i]; nm = median(node[k]); cm = median(capsim[k])
            printf "%-12s | %12.3f | %12.4f | %16.1fx | %s\n", k, nm, cm, nm / cm, substr(ratios[k], 2)
            if (nm / cm < goal[k]) miss = miss sprintf(" %s (%.1fx, goal %dx)", k, nm / cm, goal[k])
        }
        print ""
        print "goals, group_sweep >= 30x, consumers >= 12x, bulkhead >= 100x (median ratio): " \
            (miss == "" ? "met" : "NOT met for" miss)
    }' "$RESULTS"
