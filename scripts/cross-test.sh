#!/usr/bin/env bash
# Big-endian determinism: the capsim CLI cross-built for s390x-unknown-linux-gnu and run under
# qemu-user prints the same bytes as the x86_64 build (stdout, stderr, exit status) for every
# command line of scripts/cross-commands.txt: the lesson suite, a grid of each model in each
# format, a seed summary, NaN, error lines, lifecycle grids, and every example formula driving
# the group and evaluated.
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
    file -b "target/$target/release/capsim" | grep 'MSB .*S/390' >/dev/null ||
        { echo "target/$target/release/capsim is not a big-endian S/390 executable"; exit 1; }
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
checks=0
compare() {
    local status_native=0 status_big=0
    "$native" "$@" </dev/null >"$dir/native.out" 2>"$dir/native.err" || status_native=$?
    "${big[@]}" "$@" </dev/null >"$dir/big.out" 2>"$dir/big.err" || status_big=$?
    if ! cmp -s "$dir/native.out" "$dir/big.out" || ! cmp -s "$dir/native.err" "$dir/big.err" ||
        [ "$status_native" != "$status_big" ]; then
        echo "s390x differs from x86_64: capsim $*"
        diff "$dir/native.out" "$dir/big.out" | head -n 10 || true
        diff "$dir/native.err" "$dir/big.err" | head -n 4 || true
        exit 1
    fi
    case $status_native in
        0 | 1 | 2) ;;
        *) echo "capsim $*: exit status $status_native (0, 1 or 2 expected)"; exit 1 ;;
    esac
    checks=$((checks + 1))
    printf '  same bytes (%7s bytes, status %s): capsim %s\n' "$(wc -c <"$dir/native.out")" "$status_native" "$*"
}

# The command lines, one a line (scripts/cross-commands.txt): a line with {formula} runs for
# each example formula.
while read -r line; do
    case $line in '' | '#'*) continue ;; esac
    if [[ $line == *'{formula}'* ]]; then
        for formula in examples/formulas/*.formula; do
            read -ra args <<<"${line//\{formula\}/$formula}"
            compare "${args[@]}"
        done
    else
        read -ra args <<<"$line"
        compare "${args[@]}"
    fi
done <scripts/cross-commands.txt
echo "s390x (big-endian) under qemu-user: $checks commands byte-identical to x86_64"
