#!/usr/bin/env bash
# Checks the >4 GiB Zip64 archives that ZipWriter makes with external readers. The unit test
# (Zip64Tests.entryOver4GiBRoundTrips) writes and reads them itself; `unzip -t` and Python's testzip need
# another ~30 s each per archive, too slow for every `swift test`, so they run here.
#
# Usage: Tools/check-zip64-interop.sh   (from anywhere; needs unzip and python3)
set -euo pipefail
cd "$(dirname "$0")/.."

keep=$(mktemp -d)
trap 'rm -rf "$keep"' EXIT

swift build --scratch-path .build-ziptests --build-tests
ASSETPACK_KEEP_ZIP64="$keep" swift test --scratch-path .build-ziptests --skip-build \
  --filter entryOver4GiBRoundTrips

status=0
for archive in "$keep"/*.zip; do
  echo "== $(basename "$archive") ($(stat -c %s "$archive") bytes)"
  if unzip -tq "$archive"; then echo "unzip -t: ok"; else echo "unzip -t: FAILED"; status=1; fi
  if python3 - "$archive" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    info = archive.getinfo('zeros.bin')
    assert info.file_size > 1 << 32, info.file_size
    assert archive.testzip() is None
print('python testzip: ok')
PY
  then :; else echo "python testzip: FAILED"; status=1; fi
done
ls "$keep"/*.zip > /dev/null  # fail when the test kept nothing
exit $status
