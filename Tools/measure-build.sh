#!/usr/bin/env bash
# Measures `assetpack build` on a deterministic ~300 MB tree against `zip -r -6` on the same tree, in one run:
# wall time, CPU time (user + system) and output size of a clean build, an incremental rebuild (nothing
# changed), the one-zip form, and Info-ZIP. Wall time on a slow disk is dominated by write-back; CPU time
# compares the work done.
#
# Usage: Tools/measure-build.sh [WORKDIR]        (default: /tmp/assetpack-measure; needs ~1 GB free)
# Set ASSETPACK=/path/to/assetpack to skip building a release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-/tmp/assetpack-measure}"
if [ -z "${ASSETPACK:-}" ]; then
  swift build -c release --scratch-path .build-measure --product assetpack >/dev/null
  ASSETPACK="$PWD/.build-measure/release/assetpack"
fi
mkdir -p "$work"
tree="$work/tree"
if [ ! -d "$tree" ]; then
  echo "generating $tree ..."
  python3 Tools/make-measure-tree.py "$tree"
fi
rm -rf "$work/out.bundle" "$work/out.zip" "$work/zip-6.zip"

# Prints "WALL CPU" in seconds for a command.
timed() { /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1, $2 + $3 }'; }
size_of() { if [ -d "$1" ]; then find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }'; else stat -c %s "$1"; fi; }

input=$(size_of "$tree")
sync
read -r w_build c_build < <(timed "$ASSETPACK" build "$tree" -o "$work/out.bundle" -q)
s_build=$(size_of "$work/out.bundle")
read -r w_again c_again < <(timed "$ASSETPACK" build "$tree" -o "$work/out.bundle" -q)
read -r w_archive c_archive < <(timed "$ASSETPACK" build "$tree" --archive "$work/out.zip" -q)
s_archive=$(size_of "$work/out.zip")
read -r w_zip c_zip < <(timed sh -c "cd '$tree' && zip -r -6 -q '$work/zip-6.zip' .")
s_zip=$(size_of "$work/zip-6.zip")

echo "input: $input bytes in $(find "$tree" -type f | wc -l) files; $(nproc) cores"
printf '%-36s %9s %9s %12s %9s %9s %9s\n' "" "wall s" "cpu s" "bytes" "% input" "cpu/zip" "size/zip"
row() {
  printf '%-36s %9.2f %9.2f %12s %8.1f%% %9.2f %9.3f\n' "$1" "$2" "$3" "$4" \
    "$(awk "BEGIN { print 100 * $4 / $input }")" "$(awk "BEGIN { print $3 / $c_zip }")" "$(awk "BEGIN { print $4 / $s_zip }")"
}
row "assetpack build (clean)" "$w_build" "$c_build" "$s_build"
row "assetpack build (again, all reused)" "$w_again" "$c_again" "$s_build"
row "assetpack build --archive" "$w_archive" "$c_archive" "$s_archive"
row "zip -r -6" "$w_zip" "$c_zip" "$s_zip"
