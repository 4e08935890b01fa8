#!/usr/bin/env bash
# Draws the README's three pictures with `capsim plot` into DIR (default docs/plots).
# scripts/test.sh draws them again into a temporary directory and compares the bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-docs/plots}"
mkdir -p "$dir"
cargo build -q -p capsim --locked
capsim=target/debug/capsim
"$capsim" plot autoscale --threshold 2,5 -o "$dir/autoscale.svg"
"$capsim" plot consumers --consumers 1,2,4 -o "$dir/consumers.svg"
"$capsim" plot bulkhead --split shared,24 --mode slowdown -o "$dir/bulkhead.svg"
