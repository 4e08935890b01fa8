#!/usr/bin/env bash
# Runs every test and check capsim has, installing what it needs first.
# This is the README's test command and what CI runs (.ci/run calls it).
#
# `bash scripts/test.sh quick` is the contributor's loop (CONTRIBUTING.md), a few minutes:
# the format check, clippy, the golden lesson outputs, the command line's tests, the
# library's unit tests (the docs' tables among them) and the docs' examples
# (scripts/check_docs.py). It installs nothing but rustfmt and clippy. The full command stays
# the one CI runs.
#
# What it installs when missing, before the step that needs it:
# - rustup components and targets: rustfmt, clippy, llvm-tools; thumbv7em-none-eabihf,
#   thumbv6m-none-eabi, wasm32-unknown-unknown, wasm32-wasip1, s390x-unknown-linux-gnu and
#   the firmware's and real boards' targets (thumbv7m-none-eabi, riscv32imac-unknown-none-elf);
#   a nightly toolchain (minimal profile) for the fuzz targets.
# - cargo tools: defmt-print (scripts/firmware-test.sh), cargo-fuzz; built unoptimized
#   (`cargo install --debug`): they only drive the runs, and an optimized build takes minutes.
# - Debian packages, with apt-get (as root; some steps use sudo when not root):
#   librsvg2-bin (rsvg-convert: the README's pictures);
#   parallel, groff-base, zsh, fish (scripts/cli-test.sh: shards, man pages, completions);
#   qemu-system-arm and qemu-system-misc, or qemu-system-riscv where it exists
#   (scripts/firmware-test.sh; on Debian bookworm from bookworm-backports, whose apt source
#   it adds);
#   chromium (scripts/playground-test.sh; npm ci fetches playwright-core, no browser download);
#   gcc-s390x-linux-gnu, libc6-dev-s390x-cross, qemu-user (scripts/cross-test.sh);
#   jq (the docs' examples, scripts/check_docs.py);
#   gcc-aarch64-linux-gnu (the aarch64 static binary's linker) and the rust targets
#   x86_64- and aarch64-unknown-linux-musl (scripts/dist.sh).
# - PyPI packages, into a virtual environment under target/ (scripts/python-test.sh):
#   python/requirements-test.txt (maturin, pytest, pandas, pyarrow, polars, duckdb, nbclient…).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's header says how long the run has taken so far (bash's SECONDS), so a slow step
# shows in CI's log.
step() { printf '\n== %s  [%d:%02d in]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

case "${1:-}" in
'') ;;
quick)
    step "quick: format"
    rustup component add rustfmt clippy >/dev/null
    cargo fmt --all --check
    step "quick: clippy (warnings are errors)"
    cargo clippy --workspace --all-targets --locked -- -D warnings
    step "quick: golden lesson outputs, the command line, the library's unit tests"
    cargo test --locked -p capsim-tests --test golden
    cargo test --locked -p capsim --lib --test cli --test habits --test params
    step "quick: every \$ capsim example of the README and docs/ prints what it shows"
    cargo build --locked -p capsim
    python3 scripts/check_docs.py --capsim target/debug/capsim
    step "quick checks passed (the full run: bash scripts/test.sh)"
    exit 0
    ;;
*)
    echo "usage: bash scripts/test.sh [quick]" >&2
    exit 2
    ;;
esac

# The Debian packages the later steps use, in one apt-get run (each step also installs its own
# when run alone; the firmware's QEMU stays with scripts/firmware-test.sh, which picks the suite).
# A package is missing when the command it provides is not on PATH.
debian_missing=()
for pair in rsvg-convert:librsvg2-bin parallel:parallel groff:groff-base zsh:zsh fish:fish \
    chromium:chromium s390x-linux-gnu-gcc:gcc-s390x-linux-gnu s390x-linux-gnu-gcc:libc6-dev-s390x-cross \
    qemu-s390x:qemu-user jq:jq; do
    command -v "${pair%%:*}" >/dev/null || debian_missing+=("${pair#*:}")
done
if [ ${#debian_missing[@]} -gt 0 ]; then
    step "Debian packages: ${debian_missing[*]}"
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debian_missing[@]}" >/dev/null
fi

step "toolchain: rustfmt, clippy and the no_std targets"
rustup component add rustfmt clippy >/dev/null
rustup target add thumbv7em-none-eabihf thumbv6m-none-eabi wasm32-unknown-unknown >/dev/null

step "format"
cargo fmt --all --check

step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p capsim-core --all-features --locked -- -D warnings

step "tests (golden lesson outputs, differential vectors, properties, CLI)"
cargo test --workspace --locked

step "README pictures: up to date, valid XML, drawn (rsvg-convert renders them, not blank)"
if ! command -v rsvg-convert >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq && $sudo apt-get install -y librsvg2-bin >/dev/null
fi
plots_dir=$(mktemp -d)
bash scripts/plots.sh "$plots_dir"
for plot in autoscale consumers bulkhead; do
    cmp "$plots_dir/$plot.svg" "docs/plots/$plot.svg" ||
        { echo "docs/plots/$plot.svg is out of date: run bash scripts/plots.sh"; exit 1; }
done
rm -rf "$plots_dir"
python3 scripts/check_svg.py docs/plots/*.svg

step "command line: GNU parallel shards byte-identical to the whole grid, man pages render, zsh and fish completions parse (installs Debian's parallel, groff-base, zsh and fish if missing)"
if ! command -v parallel >/dev/null || ! command -v groff >/dev/null ||
    ! command -v zsh >/dev/null || ! command -v fish >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq && $sudo apt-get install -y parallel groff-base zsh fish >/dev/null
fi
bash scripts/cli-test.sh

step "docs: every \$ capsim example of the README and docs/ prints what it shows, every link resolves"
python3 scripts/check_docs.py --capsim target/debug/capsim

step "differential vectors marked heavy (10^7 rounds and the like), optimized, by both consumers engines"
cargo test --release -p capsim-tests --test differential --test windowed --locked

step "capsim-core builds without std or alloc for Cortex-M4F and Cortex-M0"
for target in thumbv7em-none-eabihf thumbv6m-none-eabi; do
    cargo build -p capsim-core --locked --target "$target"
    cargo build -p capsim-core --locked --target "$target" --features defmt,serde,hpa
done

step "the capsim library without its cli feature (std only), and the playground for wasm32"
cargo clippy -p capsim --no-default-features --locked -- -D warnings
cargo clippy -p capsim-playground --target wasm32-unknown-unknown --locked -- -D warnings

step "capsim plot -o FILE.png (the png feature, off by default: resvg and its crates)"
cargo clippy -p capsim --features png --all-targets --locked -- -D warnings
cargo test -p capsim --features png --locked --test plot

step "docs, private items included (warnings are errors: broken links fail)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --locked

# No step below is skipped: a missing bench or script fails the run (set -e).
step "benchmarks compile (run them by hand: cargo bench -p capsim)"
cargo bench -p capsim --no-run --locked

step "firmware on every QEMU board, byte-identical to the host"
bash scripts/firmware-test.sh

step "real-board images (micro:bit v2, Raspberry Pi Pico): build, lint, fit, no allocator, UF2"
bash scripts/boards.sh build

step "browser playground: wasm32 bytes under node, browser tests in Debian's chromium"
bash scripts/playground-test.sh

step "class artifacts (scripts/dist.sh): static capsim for x86_64 and aarch64 (musl), the playground as one folder under a sub-path, the board images, SHA-256 sums"
bash scripts/dist.sh

step "big-endian s390x under qemu-user, byte-identical to x86_64"
bash scripts/cross-test.sh

step "Python package: the wheel in a virtual environment, pytest against the command line, the lessons notebook (installs its PyPI packages itself)"
bash scripts/python-test.sh

step "fuzz targets, ${FUZZ_SECONDS:-10} s each from the committed seed corpus (longer runs: fuzz/README.md)"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
cargo +nightly fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked --debug
cargo fmt --manifest-path fuzz/Cargo.toml --check
# The targets' oracles, ports of the lesson programs, must compute every reference vector.
cargo +nightly run --manifest-path fuzz/Cargo.toml --locked --example ports
fuzz_targets=$(cargo +nightly fuzz list)
fuzz_dir=$(mktemp -d)
trap 'rm -rf "$fuzz_dir"' EXIT
for target in $fuzz_targets; do
    # A copy of the corpus: what the run adds stays out of the repository.
    cp -r "fuzz/corpus/$target" "$fuzz_dir/$target"
    if ! cargo +nightly fuzz run --sanitizer none "$target" "$fuzz_dir/$target" -- \
        -max_total_time="${FUZZ_SECONDS:-10}" -timeout=10 >"$fuzz_dir/$target.log" 2>&1; then
        grep -E -A4 'panicked at|ERROR: libFuzzer' "$fuzz_dir/$target.log" | head -n 30
        grep -E -A2 '^Reproduce with' "$fuzz_dir/$target.log" || tail -n 12 "$fuzz_dir/$target.log"
        echo "fuzz target $target failed (input saved under fuzz/artifacts/$target/)"
        exit 1
    fi
    printf '%-16s %s\n' "$target" "$(grep -E '^#[0-9]+[[:space:]]+DONE' "$fuzz_dir/$target.log")"
done

step "all tests and checks passed"
