#!/usr/bin/env bash
# The browser playground: `build` compiles the wasm module and puts the static page in
# target/playground/; `serve` serves that directory on http://127.0.0.1:8000 (any static
# host works: the page fetches the module's bytes itself, whatever MIME type the host sends).
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/playground

case "${1:-}" in
build)
    rustup target list --installed | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
    cargo build -p capsim-playground --locked --target wasm32-unknown-unknown --profile wasm
    rm -rf "$out"
    mkdir -p "$out"
    cp playground/web/index.html playground/web/style.css playground/web/app.js \
        playground/web/worker.js playground/web/capsim.js "$out/"
    cp target/wasm32-unknown-unknown/wasm/capsim_playground.wasm "$out/capsim.wasm"
    # The formula editor's examples: examples/formulas/*.formula and their names.
    mkdir -p "$out/formulas"
    cp examples/formulas/*.formula "$out/formulas/"
    (cd examples/formulas && ls -1 -- *.formula) >"$out/formulas/index.txt"
    printf 'built %s (capsim.wasm: %s bytes, %s gzipped)\n' "$out" \
        "$(wc -c <"$out/capsim.wasm")" "$(gzip -9c "$out/capsim.wasm" | wc -c)"
    ;;
serve)
    [ -f "$out/index.html" ] || { echo "run 'bash scripts/playground.sh build' first" >&2; exit 1; }
    echo "serving $out on http://127.0.0.1:${PORT:-8000}/ (Ctrl-C stops)"
    exec python3 -m http.server "${PORT:-8000}" --bind 127.0.0.1 --directory "$out"
    ;;
*)
    echo "usage: bash scripts/playground.sh build|serve" >&2
    exit 2
    ;;
esac
