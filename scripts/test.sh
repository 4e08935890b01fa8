#!/usr/bin/env bash
# Runs every test and check capsim has, installing what it needs first.
# This is the README's test command and what CI runs (.ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "toolchain: rustfmt, clippy and the no_std targets"
rustup component add rustfmt clippy >/dev/null
rustup target add thumbv7em-none-eabihf thumbv6m-none-eabi >/dev/null

step "format"
cargo fmt --all --check

step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p capsim-core --all-features --locked -- -D warnings

step "tests (golden lesson outputs, differential vectors, properties, CLI)"
cargo test --workspace --locked

step "differential vectors marked heavy (10^7 rounds and the like), optimized"
cargo test --release -p capsim-tests --test differential --locked

step "capsim-core builds without std or alloc for Cortex-M4F and Cortex-M0"
for target in thumbv7em-none-eabihf thumbv6m-none-eabi; do
    cargo build -p capsim-core --locked --target "$target"
    cargo build -p capsim-core --locked --target "$target" --features defmt,serde
done

step "docs, private items included (warnings are errors: broken links fail)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --locked

# No step below is skipped: a missing bench or script fails the run (set -e).
step "benchmarks compile (run them by hand: cargo bench -p capsim)"
cargo bench -p capsim --no-run --locked

step "firmware on every QEMU board, byte-identical to the host"
bash scripts/firmware-test.sh

step "all tests and checks passed"
