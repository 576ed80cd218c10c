#!/usr/bin/env bash
# Runs the README's "Install the command" steps into a scratch prefix and checks the result: the static
# build links no library of the Swift toolchain, starts, and expands the sample tree byte for byte.
# Needs libcurl's development files on Linux (libcurl4-openssl-dev; .ci/run installs them).
# Usage: Tools/check-install.sh [SCRATCH]   (default: a new folder under /tmp, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-$(mktemp -d /tmp/assetpack-install.XXXXXX)}"
[ $# -ge 1 ] || trap 'rm -rf "$scratch"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

swift build -c release --product assetpack --static-swift-stdlib --scratch-path "$scratch/build" \
  || fail "swift build --static-swift-stdlib failed (on Linux it needs libcurl4-openssl-dev)"
mkdir -p "$scratch/bin"
install -s "$scratch/build/release/assetpack" "$scratch/bin/"
binary="$scratch/bin/assetpack"

if command -v ldd >/dev/null && ldd "$binary" | grep -q "libswiftCore"; then
  fail "$binary loads the Swift runtime from the toolchain: $(ldd "$binary" | grep libswiftCore)"
fi
# Without the toolchain's libraries on the search path it must still start and work.
env -u LD_LIBRARY_PATH "$binary" --version >/dev/null || fail "$binary does not start"
env -u LD_LIBRARY_PATH "$binary" build assets -o "$scratch/assets.bundle" -q || fail "build of assets/ failed"
env -u LD_LIBRARY_PATH "$binary" expand "$scratch/assets.bundle" --to "$scratch/expanded" -q || fail "expand failed"
diff -r --exclude=.assetpack assets "$scratch/expanded" >/dev/null || fail "the expanded tree differs from assets/"
echo "check-install: the static assetpack ($(du -h "$binary" | cut -f1)) builds, starts and expands assets/ exactly"
