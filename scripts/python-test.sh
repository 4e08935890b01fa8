#!/usr/bin/env bash
# The Python package (python/): builds it into a virtual environment, then runs its tests
# (pytest: the rows, traces, charts, lessons, errors and Parquet files against the command
# line's) and the lessons notebook (docs/notebooks/lessons.ipynb, executed by nbclient).
#
# 1. A virtual environment in target/python-venv, made once, holding
#    python/requirements-test.txt (from PyPI; reinstalled when that file changes).
# 2. `cargo fmt --check` of python/ (its own Cargo workspace, excluded from the main one:
#    pyo3 needs a Python to build), the command line the tests compare with (`capsim`, with the parquet feature)
#    and the extension module (`maturin develop --release`, linted by clippy as it is
#    built, warnings are errors), all with python/Cargo.lock and
#    CARGO_TARGET_DIR=target: the crates the workspace's release build compiled are reused.
# 3. pytest python/tests.
#
# `bash scripts/python-test.sh lock` rewrites python/Cargo.lock from the workspace's
# Cargo.lock (after a dependency of host/ or core/ changed): the versions the two share stay
# the same, pyo3's are added.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="$root/target"

if [ "${1:-}" = lock ]; then
    cp Cargo.lock python/Cargo.lock
    cargo metadata --manifest-path python/Cargo.toml --format-version 1 >/dev/null
    echo "python/Cargo.lock: the workspace's versions, and pyo3's"
    exit 0
fi

if ! cargo metadata --manifest-path python/Cargo.toml --locked --format-version 1 >/dev/null 2>&1; then
    echo "python/Cargo.lock is out of date (a dependency of host/ or core/ changed): bash scripts/python-test.sh lock"
    exit 1
fi
# The two lock files agree on every crate they share, or the wheel's build compiles its own
# versions (and python/Cargo.lock is stale: run `bash scripts/python-test.sh lock`).
python3 - <<'PY'
import sys, tomllib
def versions(path):
    out = {}
    for p in tomllib.load(open(path, "rb"))["package"]:
        out.setdefault(p["name"], set()).add(p["version"])
    return out
root, py = versions("Cargo.lock"), versions("python/Cargo.lock")
stale = [f"{n} {sorted(py[n])} (Cargo.lock: {sorted(root[n])})" for n in py if n in root and not py[n] <= root[n]]
if stale:
    sys.exit("python/Cargo.lock has other versions than Cargo.lock: " + "; ".join(stale)
             + " (bash scripts/python-test.sh lock)")
PY

venv=target/python-venv
stamp=$venv/requirements-test.txt
if ! cmp -s python/requirements-test.txt "$stamp" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-test.txt
    cp python/requirements-test.txt "$stamp"
fi
# shellcheck disable=SC1091
source "$venv/bin/activate"

cargo fmt --manifest-path python/Cargo.toml --check

# The command line, from the same workspace as the module (one compile of the capsim library
# serves both); it lands on target/release/capsim, the workspace's own release binary, which
# it is with the parquet feature added (the workspace's next release build puts its own back).
cli=$(cargo build --manifest-path python/Cargo.toml --release --locked -p capsim --bin capsim \
    --message-format json-render-diagnostics |
    python3 -c 'import json, sys
for line in sys.stdin:
    j = json.loads(line)
    if j.get("reason") == "compiler-artifact" and j["target"]["kind"] == ["bin"]:
        print(j["executable"])')
mkdir -p target/python
cp "$cli" target/python/capsim
export CAPSIM_CLI=$root/target/python/capsim

# The module's crate is linted as it is built (clippy as its compiler, warnings are errors:
# what `cargo clippy` does, without a second pass over the crates it depends on).
rustup component add clippy >/dev/null 2>&1 || true
(cd python &&
    RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
    maturin develop --release --locked --quiet)
python -m pytest -q python/tests
