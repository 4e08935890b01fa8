#!/usr/bin/env bash
# Builds into target/dist/ what a teacher or a student downloads, and checks each file:
#
#   capsim-x86_64-linux    the command line, static (musl): runs on any x86_64 Linux
#   capsim-aarch64-linux   the same for 64-bit Arm Linux (a Raspberry Pi 4 or 5, Arm laptops)
#   playground/            the browser playground: one folder any static web host serves
#   capsim-playground.zip  the same folder, zipped, for a course site's upload form
#   microbit-v2.hex        BBC micro:bit v2 (Turkish; hold button A at reset for English)
#   pico.uf2, pico-en.uf2  Raspberry Pi Pico, Turkish and English first (a key switches)
#   SHA256SUMS             the sums of every file above (the playground's files one by one)
#
# The checks: each binary is static (no interpreter, no shared library: readelf) and its
# `lesson all` is byte for byte the normal build's (the aarch64 one under qemu-aarch64); the
# playground folder refers to its files by relative URLs only, every file it names is there, and
# served by `python3 -m http.server` under a sub-path it shows the lesson suite in chromium with
# every request inside that path (when chromium and playwright-core are at hand: scripts/test.sh
# runs this after the playground's tests, which install both); the board images are the ones
# scripts/boards.sh built and checked; the sums verify.
#
# It reuses what the test command has built: the normal release build, the playground
# (scripts/playground.sh build) and the board images (scripts/boards.sh build) are rebuilt only
# if their sources changed. New here: the two musl builds. Installs when missing: the rust
# targets x86_64- and aarch64-unknown-linux-musl, Debian's gcc-aarch64-linux-gnu (the aarch64
# linker) and qemu-user. Ends with `dist: N passed, M failed`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=target/dist
start=$SECONDS

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }

echo "== tools"
installed=$(rustup target list --installed)
for target in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
    grep -qx "$target" <<<"$installed" || rustup target add "$target"
done
missing=()
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools
llvm_bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"

echo "== build"
# The binaries and board images hold no path of this checkout or of cargo's home (path-remap.sh):
# the same commit gives the same bytes wherever it is built.
# shellcheck source=scripts/path-remap.sh
. scripts/path-remap.sh
rm -rf "$out"
mkdir -p "$out"
cargo build -q --release --locked -p capsim
cargo build "${path_remap[@]}" -q --release --locked -p capsim --target x86_64-unknown-linux-musl
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc \
    cargo build "${path_remap[@]}" -q --release --locked -p capsim --target aarch64-unknown-linux-musl
"$llvm_bin/llvm-strip" -o "$out/capsim-x86_64-linux" target/x86_64-unknown-linux-musl/release/capsim
"$llvm_bin/llvm-strip" -o "$out/capsim-aarch64-linux" target/aarch64-unknown-linux-musl/release/capsim
bash scripts/playground.sh build >/dev/null
cp -r target/playground "$out/playground"
bash scripts/boards.sh build >"$out/boards.log" 2>&1 || { cat "$out/boards.log"; exit 1; }
rm "$out/boards.log"
cp target/boards/microbit-v2.hex target/boards/pico.uf2 target/boards/pico-en.uf2 "$out/"
echo "  built in $((SECONDS - start)) s"

echo "== the command line, static"
target/release/capsim lesson all >"$out/.lesson-all"
for arch in x86_64 aarch64; do
    bin="$out/capsim-$arch-linux"
    headers=$(readelf -lW "$bin")
    dynamic=$(readelf -dW "$bin")
    if grep -q INTERP <<<"$headers" || grep -q NEEDED <<<"$dynamic"; then
        fail "capsim-$arch-linux needs a loader or a shared library: $(grep -E 'INTERP|NEEDED' <<<"$headers$dynamic" | head -3)"
    else
        pass "capsim-$arch-linux: static (no program interpreter, no NEEDED library), $(wc -c <"$bin") bytes"
    fi
    case $arch in
    x86_64) run=("$bin") ;;
    aarch64) run=(qemu-aarch64 "$bin") ;;
    esac
    if "${run[@]}" lesson all | cmp -s - "$out/.lesson-all"; then
        pass "capsim-$arch-linux lesson all${run[1]:+ (under qemu-aarch64)}: byte for byte the normal build's"
    else
        fail "capsim-$arch-linux lesson all differs from the normal build's"
    fi
done
if ldd "$out/capsim-x86_64-linux" 2>&1 | grep -Eq 'not a dynamic executable|statically linked'; then
    pass "ldd: capsim-x86_64-linux is not a dynamic executable"
else
    fail "ldd lists libraries for capsim-x86_64-linux: $(ldd "$out/capsim-x86_64-linux" 2>&1 | head -2)"
fi
rm "$out/.lesson-all"

echo "== the playground, one folder"
# Every URL the page's files name: src= and href= attributes, fetch(…), new Worker(…), url(…).
if python3 - "$out/playground" <<'EOF'; then
import os, re, sys
site = sys.argv[1]
bad = 0
pattern = re.compile(r"""(?:src|href)\s*=\s*["']([^"'#?]+)|(?:fetch|Worker|url)\(\s*["']([^"'#?]+)""")
for name in sorted(os.listdir(site)):
    if not name.endswith((".html", ".js", ".css")):
        continue
    for n, line in enumerate(open(os.path.join(site, name), encoding="utf-8"), 1):
        for m in pattern.finditer(line):
            url = m.group(1) or m.group(2)
            if re.match(r"^([a-z]+:|/)", url):
                print(f"  {name}:{n}: not a relative URL: {url}")
                bad += 1
            elif url.endswith("/") or url.endswith('" + name'):
                continue
            elif not os.path.isfile(os.path.join(site, url)):
                print(f"  {name}:{n}: names a file the folder lacks: {url}")
                bad += 1
index = os.path.join(site, "formulas", "index.txt")
for name in open(index).read().split():
    if not os.path.isfile(os.path.join(site, "formulas", name)):
        print(f"  formulas/index.txt names a missing file: {name}")
        bad += 1
sys.exit(1 if bad else 0)
EOF
    pass "playground/: relative URLs only, every file they name is in the folder"
else
    fail "playground/ refers to something outside itself"
fi
files=$(find "$out/playground" -type f | wc -l)
bytes=$(du -sb "$out/playground" | cut -f1)
gz=$(find "$out/playground" -type f -exec gzip -9c {} \; | wc -c)
pass "playground/: $files files, $bytes bytes ($gz gzipped, as a host that compresses sends it)"
# The zip, with fixed dates so that the same folder gives the same bytes.
python3 - "$out/playground" "$out/capsim-playground.zip" <<'EOF'
import os, sys, zipfile
site, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for folder, dirs, files in os.walk(site):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            info = zipfile.ZipInfo("capsim-playground/" + os.path.relpath(path, site), (2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, open(path, "rb").read(), compresslevel=9)
EOF
if python3 -c 'import sys, zipfile; sys.exit(zipfile.ZipFile(sys.argv[1]).testzip() is not None)' "$out/capsim-playground.zip"; then
    pass "capsim-playground.zip: $(wc -c <"$out/capsim-playground.zip") bytes, its CRCs hold"
else
    fail "capsim-playground.zip is corrupt"
fi
# Served from a parent folder, the page at /courses/capacity/capsim/index.html.
if command -v chromium >/dev/null && [ -d playground/tests/node_modules/playwright-core ]; then
    served=$(mktemp -d)
    mkdir -p "$served/courses/capacity"
    cp -r "$out/playground" "$served/courses/capacity/capsim"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$served" >/dev/null 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null; rm -rf "$served"' EXIT
    for _ in $(seq 50); do
        python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
        sleep 0.1
    done
    if DIST_URL="http://127.0.0.1:$port/courses/capacity/capsim/" node playground/tests/dist-subpath.js; then
        pass "playground/ under a sub-path (python3 -m http.server): the lesson suite and the formula editor in chromium, every request inside the path and answered"
    else
        fail "playground/ does not work under a sub-path"
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$served"
    trap - EXIT
else
    fail "chromium or playwright-core missing (bash scripts/playground-test.sh installs both): the sub-path test did not run"
fi

echo "== the boards"
for image in microbit-v2.hex pico.uf2 pico-en.uf2; do
    if cmp -s "$out/$image" "target/boards/$image"; then
        pass "$image: $(wc -c <"$out/$image") bytes, as scripts/boards.sh built and checked it"
    else
        fail "$image differs from scripts/boards.sh's"
    fi
done

echo "== SHA-256"
(cd "$out" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
if (cd "$out" && sha256sum --quiet -c SHA256SUMS); then
    pass "SHA256SUMS: $(wc -l <"$out/SHA256SUMS") files, verified"
else
    fail "SHA256SUMS does not verify"
fi
grep -v '^[0-9a-f]*  playground/' "$out/SHA256SUMS" | sed 's/^/  /'

echo
echo "  in $((SECONDS - start)) s"
echo "dist: $passed passed, $failed failed"
[ "$failed" = 0 ]
