#!/usr/bin/env bash
# The browser playground's tests: builds the page (scripts/playground.sh build) and the CLI,
# then runs playground/tests with node's test runner — the wasm32 determinism checks under node
# and the browser tests, playwright-core (from npm, `npm ci`) driving Debian's chromium (no
# browser download). Installs chromium with apt when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
bash scripts/playground.sh build
cargo build --release -p capsim --locked
(cd playground/tests && npm ci --no-audit --no-fund && node --test)
