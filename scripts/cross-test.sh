#!/usr/bin/env bash
# Big-endian determinism: the capsim CLI cross-built for s390x-unknown-linux-gnu and run under
# qemu-user prints the same bytes as the x86_64 build — the lesson suite, a grid of each model
# in each format, a seed summary, negative demand (NaN) and an error line with its status.
# Installs what it needs: the rust target, Debian's gcc-s390x-linux-gnu and qemu-user.
set -euo pipefail
cd "$(dirname "$0")/.."

target=s390x-unknown-linux-gnu
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
if ! command -v s390x-linux-gnu-gcc >/dev/null || ! command -v qemu-s390x >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user
fi
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
cargo build --release -p capsim --locked
cargo build --release -p capsim --locked --target "$target"

native=target/release/capsim
big=(qemu-s390x -L /usr/s390x-linux-gnu "target/$target/release/capsim")
# The build really is a big-endian (MSB) S/390 executable.
if command -v file >/dev/null; then
    file -b "target/$target/release/capsim" | grep -q 'MSB .*S/390' ||
        { echo "target/$target/release/capsim is not a big-endian S/390 executable"; exit 1; }
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
checks=0
compare() {
    local status_native=0 status_big=0
    "$native" "$@" >"$dir/native.out" 2>"$dir/native.err" || status_native=$?
    "${big[@]}" "$@" >"$dir/big.out" 2>"$dir/big.err" || status_big=$?
    if ! cmp -s "$dir/native.out" "$dir/big.out" || ! cmp -s "$dir/native.err" "$dir/big.err" ||
        [ "$status_native" != "$status_big" ]; then
        echo "s390x differs from x86_64: capsim $*"
        diff "$dir/native.out" "$dir/big.out" | head -n 10 || true
        diff "$dir/native.err" "$dir/big.err" | head -n 4 || true
        exit 1
    fi
    checks=$((checks + 1))
    printf '  same bytes (%7s bytes, status %s): capsim %s\n' "$(wc -c <"$dir/native.out")" "$status_native" "$*"
}

compare lesson all
for format in table json csv; do
    compare autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=20 --format "$format"
    compare consumers --consumers 1,2,4 --slots 2,4 --shipments 1000 --seed 1..=3 --format "$format"
    compare bulkhead --split shared,24 --mode healthy,slowdown --seed 1..=20 --format "$format"
done
compare bulkhead --split shared,24 --mode slowdown --seed 1..=50 --summary
compare autoscale --demand-base 100 --seed 1..=3 --format csv
compare autoscale --capacity 100,1 --seed 1..=3
echo "s390x (big-endian) under qemu-user: $checks commands byte-identical to x86_64"
