#!/usr/bin/env bash
# Runs the capsim firmware on four QEMU boards and checks it against the host CLI.
#
#   scripts/firmware-test.sh [--update]
#
# 1. installs what is missing: the rust targets, llvm-tools, QEMU (Debian bookworm-backports),
#    defmt-print;
# 2. builds the firmware (release) for each target, and lints it (fmt, clippy -D warnings);
# 3. runs each build under QEMU, twice at once, with a timeout;
# 4. compares its stdout byte for byte with `capsim lesson all` on the host (every board runs
#    the whole suite);
# 5. checks that it exited with status 0 and that both runs noted the same work figures;
# 6. prints the budgets (every board: static RAM + peak stack <= 16 KiB, the micro:bit's RAM;
#    flash <= 90 % of 128 KiB; no reference engine linked into the lesson image) and the
#    instructions per lesson;
# 7. builds and runs the defmt build for each board and compares the decoded report lines;
# 8. compares firmware/README.md's measured blocks (sizes, peak stacks, instructions per
#    lesson, the suite's time at the real boards' clocks, one run's notes) with what this run
#    measured (scripts/firmware_tables.py); --update rewrites them instead;
# and builds the `trace` feature for lm3s6965evb, whose stdout must be `capsim trace autoscale
# --format csv` byte for byte; `trace,step-mode` for the micro:bit (2 ms a round), which must
# end with the same bytes; the `english` feature, whose stdout must be `capsim lesson all
# --lang en` byte for byte; and the `paths` feature for each board, whose stdout must be the
# host's for its lifecycle runs and (where a formula program fits) its formula evaluation.
#
# Exits non-zero on any difference, timeout, failing exit status or budget overrun.
# Environment: CAPSIM_HOST (a built host `capsim` to use instead of `cargo run -p capsim`),
# RUN_TIMEOUT (seconds per QEMU run, default 300). Under CI=true nothing is skipped: a tool
# that cannot be installed fails the run.
set -euo pipefail

update=()
case "${1:-}" in
'') ;;
--update) update=(--update) ;;
*) echo "usage: scripts/firmware-test.sh [--update]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/path-remap.sh
. "$root/scripts/path-remap.sh"
fw="$root/firmware"
work="$fw/target/firmware-test"
run_timeout=${RUN_TIMEOUT:-300}

# target, board: each runs the whole suite. The consumers lesson runs with the small-memory
# engine (core's consumers::windowed, its workspace on that lesson's stack), so even the
# micro:bit's 16 KiB of RAM holds it.
boards=(
  "thumbv7m-none-eabi lm3s6965evb"
  "thumbv7em-none-eabihf mps2-an386"
  "thumbv6m-none-eabi microbit"
  "riscv32imac-unknown-none-elf riscv-virt"
)
FLASH_BUDGET=$((128 * 1024))
# Every board's lesson image leaves a tenth of its flash free: what no board runs stays off
# (firmware/README.md, "Budgets"; CONTRIBUTING.md, "Boards carry what they run").
FLASH_ROOM=$((FLASH_BUDGET * 9 / 10))
# Static RAM + peak stack, on every board: the micro:bit's RAM.
RAM_BUDGET=$((16 * 1024))

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }
section() { echo; echo "== $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# compare_with_host ACTUAL WHAT UNIT WC_FLAG: byte-compares ACTUAL with the host's
# `capsim lesson all` and reports the result.
compare_with_host() {
  local expected="$work/host-all.out"
  if cmp -s "$expected" "$1"; then
    pass "$2 equal the host's ($(wc "$4" <"$expected") $3)"
  else
    fail "$2 differ from the host's:"
    diff "$expected" "$1" | head -n 20 | sed 's/^/        /'
  fi
}

# ---------------------------------------------------------------- 1. tools
section "tools"
start=$SECONDS
installed_targets=$(rustup target list --installed)
for spec in "${boards[@]}"; do
  target=${spec%% *}
  grep -qx "$target" <<<"$installed_targets" || rustup target add "$target"
done
rustup component list --installed | grep '^llvm-tools' >/dev/null || rustup component add llvm-tools
sysroot=$(rustc --print sysroot)
host_triple=$(rustc -vV | sed -n 's/^host: //p')
llvm_size="$sysroot/lib/rustlib/$host_triple/bin/llvm-size"
llvm_nm="$sysroot/lib/rustlib/$host_triple/bin/llvm-nm"

if ! command -v qemu-system-arm >/dev/null || ! command -v qemu-system-riscv32 >/dev/null; then
  # Debian bookworm's own QEMU (7.2) conflicts with the newer qemu-utils some images carry;
  # bookworm-backports has QEMU 10, where qemu-system-riscv32 is in package qemu-system-riscv.
  suite=()
  if grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
    if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo 'deb http://deb.debian.org/debian bookworm-backports main' |
        as_root tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
    fi
    suite=(-t bookworm-backports)
  fi
  as_root apt-get update -qq
  riscv_pkg=qemu-system-misc
  if apt-cache show qemu-system-riscv >/dev/null 2>&1; then riscv_pkg=qemu-system-riscv; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${suite[@]}" qemu-system-arm "$riscv_pkg" >/dev/null
fi
command -v defmt-print >/dev/null || cargo install -q --locked --debug defmt-print
for tool in qemu-system-arm qemu-system-riscv32 defmt-print "$llvm_size" "$llvm_nm"; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool"; exit 1; }
done
echo "  $(qemu-system-arm --version | head -n 1)"
echo "  $(defmt-print --version)"
echo "  tools ready in $((SECONDS - start)) s"

# ---------------------------------------------------------------- host output
section "host output"
start=$SECONDS
mkdir -p "$work"
# What the run measures, for firmware/README.md's blocks (scripts/firmware_tables.py).
: >"$work/measured.tsv"
host() {
  if [ -n "${CAPSIM_HOST:-}" ]; then
    "$CAPSIM_HOST" "$@"
  else
    (cd "$root" && cargo run -q --release -p capsim -- "$@")
  fi
}
host lesson all >"$work/host-all.out"
echo "  $(wc -l <"$work/host-all.out") lines of \`capsim lesson all\` in $((SECONDS - start)) s"
# Report lines never start with '#': that prefix marks the firmware's notes under defmt.
if grep -q '^#' "$work/host-all.out"; then
  echo "host report has lines starting with '#': the defmt check cannot tell them from notes"
  exit 1
fi

# ---------------------------------------------------------------- 2. build and lint
section "build (release) and lint"
start=$SECONDS
cd "$fw"
# One target per cargo call: a multi-target build would unify the targets' features of
# critical-section (Cortex-M and RISC-V each set their own restore state).
for spec in "${boards[@]}"; do
  read -r target board <<<"$spec"
  cargo build "${path_remap[@]}" -q --release --target "$target"
  cp "target/$target/release/capsim-firmware" "$work/$board.elf"
done
echo "  built in $((SECONDS - start)) s"
if cargo fmt --check >/dev/null; then pass "cargo fmt --check"; else fail "cargo fmt --check"; fi
for spec in "${boards[@]}"; do
  target=${spec%% *}
  if cargo clippy -q --release --target "$target" -- -D warnings; then
    pass "clippy $target"
  else
    fail "clippy $target"
  fi
done
# The features that no QEMU run exercises: rtt (a real board, e.g. micro:bit) and step-mode.
for build in "thumbv7m-none-eabi rtt" "thumbv6m-none-eabi rtt" "thumbv7m-none-eabi step-mode" \
  "thumbv7m-none-eabi trace" "thumbv7m-none-eabi trace,step-mode" "thumbv7m-none-eabi english" \
  "thumbv7m-none-eabi paths" "thumbv6m-none-eabi paths" "riscv32imac-unknown-none-elf paths"; do
  read -r target features <<<"$build"
  if cargo clippy -q --release --target "$target" --features "$features" -- -D warnings; then
    pass "clippy $target --features $features"
  else
    fail "clippy $target --features $features"
  fi
done
echo "  linted in $((SECONDS - start)) s"

# ---------------------------------------------------------------- 3.-5. run and compare
# Runs ELF $2 with target $1's cargo runner (QEMU, from firmware/.cargo/config.toml, the one
# place that names the QEMU options) into $3.out, $3.err and $3.status.
run() {
  local target=$1 elf=$2 out=$3 runner status=0
  runner=$(sed -n "/^\[target\.$target\]/,/^\[/ s/^runner = \"\(.*\)\"$/\1/p" .cargo/config.toml)
  [ -n "$runner" ] || { echo "no runner for $target in .cargo/config.toml"; exit 1; }
  # shellcheck disable=SC2086 # the runner is a command line
  timeout --kill-after=10 "$run_timeout" $runner "$elf" >"$out.out" 2>"$out.err" || status=$?
  echo "$status" >"$out.status"
}

for spec in "${boards[@]}"; do
  read -r target board <<<"$spec"
  section "$board ($target)"
  start=$SECONDS
  run "$target" "$work/$board.elf" "$work/$board.1" &
  run "$target" "$work/$board.elf" "$work/$board.2" &
  wait
  echo "  two runs in $((SECONDS - start)) s"
  status=$(cat "$work/$board.1.status")
  case $status in
    0) pass "exit status 0" ;;
    124 | 137) fail "timed out after $run_timeout s" ;;
    *) fail "exit status $status"; sed 's/^/        /' "$work/$board.1.err" ;;
  esac
  compare_with_host "$work/$board.1.out" "stdout" bytes -c
  if cmp -s "$work/$board.1.err" "$work/$board.2.err" && cmp -s "$work/$board.1.out" "$work/$board.2.out"; then
    pass "second run identical (work figures reproducible)"
  else
    fail "second run differs:"
    diff "$work/$board.1.err" "$work/$board.2.err" | head -n 10 | sed 's/^/        /'
  fi
  sed -n 's/^# /  /p' "$work/$board.1.err"
done

# ---------------------------------------------------------------- 5b. trace
# The `trace` feature prints the group lesson's per-round trace instead of the suite: the
# same bytes as the host's `capsim trace autoscale --format csv` (one core CSV writer).
section "lm3s6965evb: the trace feature against \`capsim trace autoscale --format csv\`"
start=$SECONDS
host trace autoscale --format csv >"$work/host-trace.csv"
cargo build "${path_remap[@]}" -q --release --target thumbv7m-none-eabi --features trace
cp target/thumbv7m-none-eabi/release/capsim-firmware "$work/lm3s6965evb-trace.elf"
run thumbv7m-none-eabi "$work/lm3s6965evb-trace.elf" "$work/lm3s6965evb-trace"
status=$(cat "$work/lm3s6965evb-trace.status")
if [ "$status" = 0 ]; then pass "exit status 0"; else fail "exit status $status"; fi
if cmp -s "$work/host-trace.csv" "$work/lm3s6965evb-trace.out"; then
  pass "trace equals the host's ($(wc -l <"$work/host-trace.csv") lines, $(wc -c <"$work/host-trace.csv") bytes)"
else
  fail "trace differs from the host's:"
  diff "$work/host-trace.csv" "$work/lm3s6965evb-trace.out" | head -n 20 | sed 's/^/        /'
fi
sed -n 's/^# /  /p' "$work/lm3s6965evb-trace.err"
echo "  built and run in $((SECONDS - start)) s"

# ---------------------------------------------------------------- 5c. English
# The `english` feature prints the suite in English: `capsim lesson all --lang en` byte for byte.
section "lm3s6965evb: the english feature against \`capsim lesson all --lang en\`"
start=$SECONDS
host lesson all --lang en >"$work/host-all-en.out"
cargo build "${path_remap[@]}" -q --release --target thumbv7m-none-eabi --features english
cp target/thumbv7m-none-eabi/release/capsim-firmware "$work/lm3s6965evb-english.elf"
run thumbv7m-none-eabi "$work/lm3s6965evb-english.elf" "$work/lm3s6965evb-english"
status=$(cat "$work/lm3s6965evb-english.status")
if [ "$status" = 0 ]; then pass "exit status 0"; else fail "exit status $status"; fi
if cmp -s "$work/host-all-en.out" "$work/lm3s6965evb-english.out"; then
  pass "English suite equals the host's ($(wc -c <"$work/host-all-en.out") bytes)"
else
  fail "English suite differs from the host's:"
  diff "$work/host-all-en.out" "$work/lm3s6965evb-english.out" | head -n 20 | sed 's/^/        /'
fi
echo "  built and run in $((SECONDS - start)) s"
# ---------------------------------------------------------------- 5d. paths
# The `paths` feature (src/paths.rs) runs model paths the lessons never take: its lifecycle
# runs, then, on boards with the RAM for a 512-node formula program and its workspace
# (their static RAM: firmware/README.md, the paths builds' table), Microsoft's example 1
# evaluated. Its stdout must be the host's stdout for these command lines, in this order (a
# new path adds a line here and a run there). Its RAM (static + peak stack) must fit the
# board's own (memory/<board>.x).
paths_lifecycle=(
  "trace autoscale --launch-hook 3:abandon --terminate-hook 2 --reclaim stop --stockout-rounds 100..120 --check-latency 2 --apply-delay 3 --protected 4 --events 10:protect:2+60:standby:1 --format csv"
  "trace autoscale --launch-hook 5 --reclaim stop --restart-rounds 3 --removal-policy newest --count-pending yes --seed 7 --format csv"
)
paths_formula=("formula eval $root/examples/formulas/working-hours-evaluated.formula --at 2016-10-13T19:18:47.805Z")
# Boards too small for a formula Program (16 KiB of RAM): the lifecycle runs only.
paths_no_formula=(microbit)
: >"$work/host-paths-lifecycle.out"
for line in "${paths_lifecycle[@]}"; do
  read -ra args <<<"$line"
  host "${args[@]}" >>"$work/host-paths-lifecycle.out"
done
cp "$work/host-paths-lifecycle.out" "$work/host-paths-formula.out"
for line in "${paths_formula[@]}"; do
  read -ra args <<<"$line"
  host "${args[@]}" >>"$work/host-paths-formula.out"
done
for spec in "${boards[@]}"; do
  read -r target board <<<"$spec"
  section "$board: the paths feature (lifecycle runs, formula evaluation) against the host"
  start=$SECONDS
  expected="$work/host-paths-formula.out"
  what="${#paths_lifecycle[@]} lifecycle traces and the formula's results"
  if [[ " ${paths_no_formula[*]} " == *" $board "* ]]; then
    expected="$work/host-paths-lifecycle.out"
    what="${#paths_lifecycle[@]} lifecycle traces (no formula: a Program does not fit)"
  fi
  cargo build "${path_remap[@]}" -q --release --target "$target" --features paths
  elf="$work/$board-paths.elf"
  cp "target/$target/release/capsim-firmware" "$elf"
  run "$target" "$elf" "$work/$board-paths"
  status=$(cat "$work/$board-paths.status")
  if [ "$status" = 0 ]; then pass "exit status 0"; else fail "exit status $status"; sed 's/^/        /' "$work/$board-paths.err"; fi
  if cmp -s "$expected" "$work/$board-paths.out"; then
    pass "$what equal the host's ($(wc -l <"$expected") lines, $(wc -c <"$expected") bytes)"
  else
    fail "$what differ from the host's:"
    diff "$expected" "$work/$board-paths.out" | head -n 20 | sed 's/^/        /'
  fi
  read -r data bss flash < <("$llvm_size" -A "$elf" | awk '
    $1 == ".data" {d = $2} $1 == ".bss" || $1 == ".uninit" {b += $2}
    $1 == ".vector_table" || $1 == ".text" || $1 == ".rodata" {f += $2}
    END {print d + 0, b + 0, f + d}')
  peak=$(sed -n 's/^# stack [^:]*: peak \([0-9]*\) bytes.*/\1/p' "$work/$board-paths.err")
  peak=${peak:-0}
  echo "paths $board $flash $((data + bss)) $peak" >>"$work/measured.tsv"
  read -r size unit < <(sed -n 's/^ *RAM *: *ORIGIN.*LENGTH *= *\([0-9]*\) *\([KM]\).*/\1 \2/p' "memory/$board.x")
  board_ram=$((size * 1024))
  if [ "$unit" = M ]; then board_ram=$((size * 1024 * 1024)); fi
  ram=$((data + bss + peak))
  if [ "$peak" -gt 0 ] && [ "$ram" -le "$board_ram" ]; then
    pass "static RAM + peak stack $ram <= $board_ram bytes (the board's RAM)"
  else
    fail "static RAM + peak stack $ram > $board_ram bytes (or no peak stack noted)"
  fi
  sed -n 's/^# /  /p' "$work/$board-paths.err"
  echo "  built and run in $((SECONDS - start)) s"
done
# Step mode on the micro:bit (paused 2 ms a round, CAPSIM_STEP_PAUSE_MS): it ends, with the
# same trace. Its delay falls back to counting cycles where the tick counter stands still.
section "microbit: trace in step mode (2 ms a round) against the host's"
start=$SECONDS
CAPSIM_STEP_PAUSE_MS=2 cargo build "${path_remap[@]}" -q --release --target thumbv6m-none-eabi --features trace,step-mode
cp target/thumbv6m-none-eabi/release/capsim-firmware "$work/microbit-step.elf"
cargo build "${path_remap[@]}" -q --release --target thumbv6m-none-eabi # the plain build again, for later steps
run thumbv6m-none-eabi "$work/microbit-step.elf" "$work/microbit-step"
status=$(cat "$work/microbit-step.status")
if [ "$status" = 0 ]; then pass "exit status 0"; else fail "exit status $status"; fi
if cmp -s "$work/host-trace.csv" "$work/microbit-step.out"; then
  pass "step-mode trace equals the host's"
else
  fail "step-mode trace differs from the host's:"
  diff "$work/host-trace.csv" "$work/microbit-step.out" | head -n 20 | sed 's/^/        /'
fi
echo "  built and run in $((SECONDS - start)) s"

# ---------------------------------------------------------------- 6. budgets
section "budgets (llvm-size; peak stack painted and measured on the board)"
allocators=()
referenced=()
rams=()
flashes=()
printf '  %-12s %8s %8s %8s %8s %8s %10s %12s\n' board .text .rodata .data .bss flash static+pk "peak stack"
for spec in "${boards[@]}"; do
  read -r _ board <<<"$spec"
  read -r text rodata data bss vectors < <("$llvm_size" -A "$work/$board.elf" | awk '
    $1 == ".text" {t = $2} $1 == ".rodata" {r = $2} $1 == ".data" {d = $2}
    $1 == ".bss" || $1 == ".uninit" {b += $2} $1 == ".vector_table" {v = $2}
    END {print t + 0, r + 0, d + 0, b + 0, v + 0}')
  flash=$((vectors + text + rodata + data))
  peak=$(sed -n 's/^# stack [^:]*: peak \([0-9]*\) bytes.*/\1/p' "$work/$board.1.err")
  peak=${peak:-0}
  ram=$((data + bss + peak))
  printf '  %-12s %8d %8d %8d %8d %8d %8d %10d\n' "$board" "$text" "$rodata" "$data" "$bss" "$flash" "$ram" "$peak"
  echo "size $board $text $rodata $data $bss $flash $peak" >>"$work/measured.tsv"
  # A global allocator would define these (the firmware has none and no `alloc`).
  if "$llvm_nm" "$work/$board.elf" | grep -E '__rust_alloc|__rg_alloc|__rdl_alloc' >/dev/null; then
    allocators+=("$board")
  fi
  # The lesson suite runs unobserved on the fast engines: no model's reference engine (nor an
  # option or a policy only it runs) may be linked into the image.
  if "$llvm_nm" --demangle "$work/$board.elf" |
    grep -E 'capsim_core::(autoscale|consumers|bulkhead)::reference' >/dev/null; then
    referenced+=("$board")
  fi
  flashes+=("$board $flash")
  rams+=("$board $ram $peak")
done
if [ "${#allocators[@]}" = 0 ]; then
  pass "no allocator linked (llvm-nm finds no __rust_alloc, __rg_alloc, __rdl_alloc)"
else
  fail "an allocator is linked in: ${allocators[*]}"
fi
if [ "${#referenced[@]}" = 0 ]; then
  pass "no reference engine linked into the lesson images (llvm-nm finds no capsim_core::*::reference)"
else
  fail "a reference engine is linked into the lesson image of: ${referenced[*]}"
fi
for entry in "${rams[@]}"; do
  read -r board ram peak <<<"$entry"
  if [ "$peak" -gt 0 ] && [ "$ram" -le "$RAM_BUDGET" ]; then
    pass "$board static RAM + peak stack $ram <= $RAM_BUDGET bytes"
  else
    fail "$board static RAM + peak stack $ram > $RAM_BUDGET bytes (or no peak stack noted)"
  fi
done
for entry in "${flashes[@]}"; do
  read -r board flash <<<"$entry"
  if [ "$flash" -gt 0 ] && [ "$flash" -le "$FLASH_ROOM" ]; then
    pass "$board flash $flash <= $FLASH_ROOM bytes (90 % of $FLASH_BUDGET)"
  else
    fail "$board flash $flash > $FLASH_ROOM bytes (90 % of $FLASH_BUDGET)"
  fi
done

# ---------------------------------------------------------------- 7. defmt
# Report lines go out as defmt::println!, notes as defmt::info! starting with "# ".
for spec in "${boards[@]}"; do
  read -r target board <<<"$spec"
  section "$board: defmt over semihosting, decoded by defmt-print"
  start=$SECONDS
  cargo build "${path_remap[@]}" -q --release --target "$target" --features defmt
  elf="$work/$board-defmt.elf"
  cp "target/$target/release/capsim-firmware" "$elf"
  run "$target" "$elf" "$work/$board-defmt"
  status=$(cat "$work/$board-defmt.status")
  if [ "$status" = 0 ]; then pass "exit status 0"; else fail "exit status $status"; fi
  defmt-print -e "$elf" --log-format '{s}' <"$work/$board-defmt.out" >"$work/$board-defmt.log"
  grep -v '^# ' "$work/$board-defmt.log" >"$work/$board-defmt-report.out" || true
  compare_with_host "$work/$board-defmt-report.out" "decoded report lines" lines -l
  if grep -q '^# stack ' "$work/$board-defmt.log"; then
    pass "notes decoded: $(grep '^# stack ' "$work/$board-defmt.log" | cut -c3-)"
  else
    fail "no notes decoded"
  fi
  echo "  built and run in $((SECONDS - start)) s"
done

# ---------------------------------------------------------------- 8. the README's figures
section "firmware/README.md's measured figures against this run's"
if python3 "$root/scripts/firmware_tables.py" qemu "$work" "${update[@]}"; then
  pass "firmware/README.md's sizes, stacks, instructions, suite times and notes are this run's${update[*]:+ (rewritten)}"
else
  fail "firmware/README.md's measured figures differ from this run's (above; --update rewrites them)"
fi

echo
echo "firmware: $passed passed, $failed failed"
[ "$failed" = 0 ]
