# lib.sh — what compare-grids.sh and compare-reference.sh share. Sourced (not run) by both,
# from the repository root, after the script has set BENCH (its name, for its error lines).
#
# The options both take (`bench_option`), the checks before anything runs (`bench_require`),
# the temporary directory holding the copied reference programs (`bench_copy_references`),
# the single core both sides run on (`PIN`), the machine line and awk's median.

REFERENCE=../shared/reference
ROUNDS=3

die() { echo "$BENCH: $*" >&2; exit 1; }

# bench_option ARG... — takes the option at the front of the arguments if it is one both
# scripts know (--reference DIR, --rounds N, -h/--help), setting SHIFT to the words it used;
# returns 1 for any other argument.
bench_option() {
    case "$1" in
        --reference) [ $# -ge 2 ] || die "--reference needs a directory"; REFERENCE=$2; SHIFT=2 ;;
        --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; ROUNDS=$2; SHIFT=2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) return 1 ;;
    esac
}

# bench_require — the checks both make before anything runs: a positive --rounds, node and
# cargo on PATH, the three reference programs under $REFERENCE.
bench_require() {
    [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer"
    command -v node >/dev/null 2>&1 || die "node not found on PATH; the reference side needs Node.js"
    command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH"
    local f
    for f in olcum-agi/grup.mjs rakip/tuketici.mjs bolme/kosum.mjs; do
        [ -f "$REFERENCE/$f" ] || die "missing $REFERENCE/$f (pass --reference DIR)"
    done
}

# strip_from <marker line regex> <source> <destination> <export line> — copies <source> up
# to the line where its printing starts, then the export line.
strip_from() {
    grep -q "$1" "$2" || die "$2: cannot find where the printing starts (/$1/)"
    sed "/$1/,\$d" "$2" >"$3"
    echo "$4" >>"$3"
}

# bench_copy_references NAME — makes TMP (a fresh directory, removed on exit) with an empty
# RESULTS file in it, and copies the reference programs into it: olcum-agi whole, and the
# two that have no exports cut off where the printing starts, their model functions exported.
bench_copy_references() {
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    RESULTS="$TMP/results"
    : >"$RESULTS"
    cp -r "$REFERENCE/olcum-agi" "$TMP/olcum-agi"
    mkdir "$TMP/rakip" "$TMP/bolme"
    strip_from '^const olaylar = isYuku();' "$REFERENCE/rakip/tuketici.mjs" \
        "$TMP/rakip/tuketici.mjs" 'export { isYuku, kosum };'
    strip_from '^const b = (x, n = 2) =>' "$REFERENCE/bolme/kosum.mjs" \
        "$TMP/bolme/kosum.mjs" 'export { kosum };'
}

# Both sides on the same single core, when taskset can pin them.
PIN=()
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
    PIN=(taskset -c 0)
fi

# bench_node NAME ARG... — runs `node $TMP/harness.mjs NAME ARG...` on the pinned core and
# prints its line, `NAME <ms> …`, once <ms> is checked to be a number.
bench_node() {
    local line ms
    line=$("${PIN[@]}" node "$TMP/harness.mjs" "$@") || die "node failed on $1"
    read -r _ ms _ <<<"$line"
    [[ ${ms:-} =~ ^[0-9.]+$ ]] || die "node printed no timing for $1"
    echo "$line"
}

# bench_machine — the table's first line: the machine, node and rustc.
bench_machine() {
    local cpu
    cpu=$(grep -m1 -E '^(model name|Hardware|Processor)[[:space:]]*:' /proc/cpuinfo 2>/dev/null |
        sed 's/^[^:]*:[[:space:]]*//' || true)
    echo "machine: nproc $(nproc), CPU ${cpu:-unknown}, node $(node --version), $(rustc --version)"
}

# awk's median of a list of numbers separated by spaces, for the scripts' result tables.
# shellcheck disable=SC2034 # used by the scripts that source this file
AWK_MEDIAN='
    function median(list,   a, n, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }'
