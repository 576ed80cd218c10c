#!/usr/bin/env bash
# Builds the host shim: the NDK asset API (<android/asset_manager.h>) on Debian's libandroidfw (Android 10),
# as a shared library that Sources/CAndroidAssets loads at run time (assetpack_host_load).
#
#   Tools/AndroidHostShim/build.sh OUTPUT.so
#
# Needs g++ and the Debian packages android-libandroidfw-dev (AssetManager, AssetManager2, ApkAssets),
# android-libziparchive-dev and android-platform-frameworks-native-headers (the NDK's own
# android/asset_manager.h). Exit status 3, with one line on stderr naming what is missing, when they are
# not installed; the tests skip (or, under ASSETPACK_REQUIRE_TOOLS=1, fail) on that.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
output="${1:?usage: build.sh OUTPUT.so}"

missing() { echo "android host libraries missing: $1 (Debian package $2)" >&2; exit 3; }
includes=/usr/include/android
[ -f "$includes/android/asset_manager.h" ] || missing "$includes/android/asset_manager.h" android-platform-frameworks-native-headers
[ -f "$includes/androidfw/AssetManager2.h" ] || missing "$includes/androidfw/AssetManager2.h" android-libandroidfw-dev
libdir=""
for candidate in /usr/lib/*/android /usr/lib/android; do
  if [ -e "$candidate/libandroidfw.so" ]; then libdir="$candidate"; break; fi
done
[ -n "$libdir" ] || missing "libandroidfw.so" android-libandroidfw-dev
[ -e "$libdir/libziparchive.so" ] || missing "libziparchive.so" android-libziparchive-dev
command -v g++ >/dev/null || missing "g++" g++

mkdir -p "$(dirname "$output")"
# Written beside the output and renamed into place: parallel builds of the same shim never see half a file.
partial="$output.$$.partial"
# -isystem: Android's headers are written for clang; their warnings are not ours.
g++ -std=c++17 -O1 -fPIC -shared -Wall -Werror -Wno-unused-parameter \
  -isystem "$includes" -I"$repo/Sources/CAndroidAssets/include" \
  "$here/ndk_host_shim.cpp" -o "$partial" \
  -L"$libdir" -Wl,-rpath,"$libdir" -landroidfw -lutils -llog -Wl,--no-undefined
mv -f "$partial" "$output"
