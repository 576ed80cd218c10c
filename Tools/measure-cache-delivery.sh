#!/usr/bin/env bash
# Same-run time and bytes of a bundle's install and 1%-changed upgrade through each caching proxy (nginx slice
# cache, Varnish, Squid) and from SeaweedFS's S3 gateway, against plain nginx: runs CacheAndStoreDeliveryTests
# ROUNDS times (default 3), each route beside a plain nginx run in the same test, and prints the median seconds
# and the bytes the client received against those its dry run planned (the tests' debug build: compare the routes,
# not the absolute times). Also
# the CLI killed after 6 MiB and run again (RemoteInstallFaultTests), with a 12 MiB file more in the tree.
# Usage: Tools/measure-cache-delivery.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/sbin:/sbin"
rounds=${1:-3}
report=$(mktemp)
swift build --build-tests >/dev/null
for _ in $(seq "$rounds"); do
  # One route at a time, so that the servers of one route do not slow another's.
  ASSETPACK_DELIVERY_REPORT=$report swift test --skip-build --no-parallel \
    --filter 'CacheAndStoreDeliveryTests|aRunKilledMidDownloadResumes' >/dev/null
done
python3 - "$report" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    route, step, seconds, moved, *planned = line.rstrip("\n").split("\t")
    rows[(route, step)].append((float(seconds.split()[0]), int(moved), planned[0] if planned else "-"))
print(f"{'route':<30}{'step':<17}{'median s':>9}{'bytes':>24}{'planned':>24}  runs")
for (route, step), values in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    seconds = statistics.median(v[0] for v in values)
    moved, planned = sorted({v[1] for v in values}), sorted({v[2] for v in values})
    print(f"{route:<30}{step:<17}{seconds:>9.3f}{'/'.join(map(str, moved)):>24}{'/'.join(planned):>24}  {len(values)}")
PY
rm -f "$report"
