#!/usr/bin/env bash
# Builds and checks the images for the boards a class can buy (firmware/boards/):
#
#   scripts/boards.sh build [--update]
#
# 1. installs what is missing: the rust targets and llvm-tools;
# 2. builds (release, --locked) and lints (cargo fmt --check, clippy -D warnings) the
#    workspace firmware/boards, and writes
#      target/boards/microbit-v2.elf  BBC micro:bit v2 (nRF52833), for probe-rs
#      target/boards/pico.elf         Raspberry Pi Pico (RP2040), for probe-rs
#      target/boards/microbit-v2.hex  the same, for the micro:bit's MICROBIT drive (llvm-objcopy)
#      target/boards/pico.uf2         the same, for the Pico's drag-and-drop boot ROM
#      target/boards/pico-en.elf, .uf2 the Pico built with `english`: its first run in English
#    (the UF2s by scripts/uf2.py, checked against llvm-objcopy's flat image of the ELF);
# 3. checks that no allocator is linked and that each image fits its chip: flash
#    (.vector_table, .boot2, .text, .rodata, .data) within the chip's flash, and static RAM
#    (.data, .bss, .uninit) plus a 16 KiB stack (the QEMU boards' budget for the whole suite;
#    their measured peaks: firmware/README.md) within its RAM; and prints the sizes;
# 4. compares the sizes table of firmware/README.md with the sizes measured
#    (scripts/firmware_tables.py); --update rewrites it instead.
#
# No board is needed: nothing here runs the images. Exits non-zero on any failure.
set -euo pipefail

update=()
case "$*" in
build) ;;
"build --update") update=(--update) ;;
*) echo "error: usage: scripts/boards.sh build [--update]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/path-remap.sh
. "$root/scripts/path-remap.sh"
ws="$root/firmware/boards"
tdir=${CARGO_TARGET_DIR:-$ws/target}
out="$root/target/boards"
mkdir -p "$out"

# board, target, package, binary, flash bytes, RAM bytes, cargo features (- for none)
boards=(
  "microbit-v2 thumbv7em-none-eabihf capsim-microbit-v2 microbit-v2 $((512 * 1024)) $((128 * 1024)) -"
  "pico thumbv6m-none-eabi capsim-pico pico $((2048 * 1024)) $((256 * 1024)) -"
  "pico-en thumbv6m-none-eabi capsim-pico pico $((2048 * 1024)) $((256 * 1024)) english"
)
STACK=$((16 * 1024))

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }

echo "== tools"
installed=$(rustup target list --installed)
for target in thumbv7em-none-eabihf thumbv6m-none-eabi; do
  grep -qx "$target" <<<"$installed" || rustup target add "$target"
done
rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools
rustup component list --installed | grep -q '^clippy' || rustup component add clippy rustfmt
sysroot=$(rustc --print sysroot)
host_triple=$(rustc -vV | sed -n 's/^host: //p')
bin="$sysroot/lib/rustlib/$host_triple/bin"

echo "== build (release) and lint"
start=$SECONDS
cd "$ws"
# One target per cargo call (each board has its own critical-section implementation).
for spec in "${boards[@]}"; do
  read -r board target package binary _ _ features <<<"$spec"
  # The English Pico differs in its leaf crate only: the dependencies stay built.
  feature_args=()
  [ "$features" = - ] || feature_args=(--features "$features")
  cargo build "${path_remap[@]}" -q --release --locked --target "$target" -p "$package" "${feature_args[@]}"
  cp "$tdir/$target/release/$binary" "$out/$board.elf"
done
echo "  built in $((SECONDS - start)) s"
if cargo fmt --all --check >/dev/null; then pass "cargo fmt --check"; else fail "cargo fmt --check"; fi
for spec in "${boards[@]}"; do
  read -r board target package _ _ _ features <<<"$spec"
  [ "$features" = - ] || continue # the same code as its board's (cfg! picks a constant)
  if cargo clippy -q --release --locked --target "$target" -p "$package" -- -D warnings; then
    pass "clippy $package ($target)"
  else
    fail "clippy $package ($target)"
  fi
done
echo "  built and linted in $((SECONDS - start)) s"

echo "== the drag-and-drop files"
"$bin/llvm-objcopy" -O ihex "$out/microbit-v2.elf" "$out/microbit-v2.hex"
if [ "$(tail -n 1 "$out/microbit-v2.hex" | tr -d '\r')" = ":00000001FF" ] &&
  [ "$(head -c 1 "$out/microbit-v2.hex")" = ":" ]; then
  pass "microbit-v2.hex: $(wc -l <"$out/microbit-v2.hex") Intel HEX records, ending with the end-of-file record"
else
  fail "microbit-v2.hex is not an Intel HEX file"
fi
for pico in pico pico-en; do
  python3 "$root/scripts/uf2.py" "$out/$pico.elf" "$out/$pico.uf2"
  "$bin/llvm-objcopy" -O binary "$out/$pico.elf" "$out/$pico.bin"
  if python3 "$root/scripts/uf2.py" "$out/$pico.elf" "$out/$pico.uf2" --check "$out/$pico.bin" 0x10000000; then
    pass "$pico.uf2: $(($(wc -c <"$out/$pico.uf2") / 512)) blocks, the bytes of llvm-objcopy's image from 0x10000000"
  else
    fail "$pico.uf2 does not carry the ELF's image"
  fi
done
if cmp -s "$out/pico.bin" "$out/pico-en.bin"; then
  fail "pico-en.uf2 is the same image as pico.uf2 (the english feature changed nothing)"
else
  pass "pico-en differs from pico (its first run's language)"
fi
# The check itself must catch a changed byte (here the last payload byte of block 7).
cp "$out/pico.uf2" "$out/pico-changed.uf2"
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(7 * 512 + 32 + 255); b = f.read(1)[0]; f.seek(-1, 1); f.write(bytes([b ^ 0xFF]))' "$out/pico-changed.uf2"
if python3 "$root/scripts/uf2.py" "$out/pico.elf" "$out/pico-changed.uf2" --check "$out/pico.bin" 0x10000000 2>/dev/null; then
  fail "the UF2 check misses a changed payload byte"
else
  pass "the UF2 check catches a changed payload byte"
fi
rm -f "$out/pico-changed.uf2"
# The boot ROM runs the first 256 bytes only if their CRC-32 (stored in the last 4) is right;
# rp2040-boot2 ships them so: check it, and that the vector table follows at 0x10000100.
if python3 - "$out/pico.bin" <<'EOF'
import sys, zlib
image = open(sys.argv[1], "rb").read()
# The boot ROM's CRC-32: polynomial 0x04c11db7, not reflected, initial 0xffffffff, no final xor.
crc = 0xFFFFFFFF
for byte in image[:252]:
    crc ^= byte << 24
    for _ in range(8):
        crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
ok = int.from_bytes(image[252:256], "little") == crc
reset = int.from_bytes(image[260:264], "little")
sys.exit(0 if ok and 0x10000100 <= reset < 0x10200000 else 1)
EOF
then
  pass "pico: boot2's CRC-32 holds and the reset vector points into flash"
else
  fail "pico: boot2's CRC-32 or the reset vector is wrong"
fi

echo "== budgets (llvm-size -A)"
: >"$out/sizes.tsv"
printf '  %-12s %8s %8s %8s %8s %10s %10s %10s\n' board .text .rodata .data .bss flash "of flash" "static RAM"
for spec in "${boards[@]}"; do
  read -r board _ _ _ flash_max ram_max _ <<<"$spec"
  elf="$out/$board.elf"
  read -r text rodata data bss vectors boot2 < <("$bin/llvm-size" -A "$elf" | awk '
    $1 == ".text" {t = $2} $1 == ".rodata" {r = $2} $1 == ".data" {d = $2}
    $1 == ".bss" || $1 == ".uninit" {b += $2} $1 == ".vector_table" {v = $2} $1 == ".boot2" {s = $2}
    END {print t + 0, r + 0, d + 0, b + 0, v + 0, s + 0}')
  flash=$((boot2 + vectors + text + rodata + data))
  ram=$((data + bss))
  printf '  %-12s %8d %8d %8d %8d %10d %10d %10d\n' "$board" "$text" "$rodata" "$data" "$bss" "$flash" "$flash_max" "$ram"
  echo "$board $text $rodata $data $bss $flash $flash_max $ram $ram_max $STACK" >>"$out/sizes.tsv"
  if "$bin/llvm-nm" "$elf" | grep -E '__rust_alloc|__rg_alloc|__rdl_alloc' >/dev/null; then
    fail "$board: an allocator is linked in"
  else
    pass "$board: no allocator linked (llvm-nm finds no __rust_alloc, __rg_alloc, __rdl_alloc)"
  fi
  if [ "$text" -gt 0 ] && [ "$flash" -le "$flash_max" ]; then
    pass "$board: flash $flash <= $flash_max bytes"
  else
    fail "$board: flash $flash > $flash_max bytes"
  fi
  if [ $((ram + STACK)) -le "$ram_max" ]; then
    pass "$board: static RAM $ram + stack $STACK <= $ram_max bytes"
  else
    fail "$board: static RAM $ram + stack $STACK > $ram_max bytes"
  fi
done

echo "== firmware/README.md's sizes table against these"
if python3 "$root/scripts/firmware_tables.py" boards "$out/sizes.tsv" "${update[@]}"; then
  pass "firmware/README.md's board sizes are these${update[*]:+ (rewritten)}"
else
  fail "firmware/README.md's board sizes differ from these (above; --update rewrites them)"
fi

echo
echo "boards: $passed passed, $failed failed"
[ "$failed" = 0 ]
