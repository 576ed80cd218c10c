#!/usr/bin/env bash
# Builds the DocC documentation of every library product (AssetPackZip, AssetPack, AssetPackPacker,
# AssetPackRemote, AssetPackAndroid) with swiftlang/swift-docc-plugin, and fails on any warning: an unresolved
# link, a link to a symbol that is not public, a malformed article. A step of .ci/run.
#   bash Tools/generate-docs.sh            # archives in .build/plugins/Swift-DocC/outputs/<Target>.doccarchive
#   bash Tools/generate-docs.sh --static   # for static hosting, in .build/docs/<Target>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
# Package.swift adds the docc plugin only then (it costs every clean build otherwise).
export ASSETPACK_DOCC=1

targets=(AssetPackZip AssetPack AssetPackPacker AssetPackRemote AssetPackAndroid)
arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done
if [ "${1:-}" = "--static" ]; then
    arguments+=(--transform-for-static-hosting --output-path .build/docs)
fi

started=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift package --allow-writing-to-directory .build/docs generate-documentation "${arguments[@]}" 2>&1 | tee "$log"
# docc prints each problem as "warning: …" (or "error: …") with the file and line.
problems=$(grep -cE "(^|: )(warning|error): " "$log" || true)
echo "documentation: ${#targets[@]} targets in $((SECONDS - started)) s, $problems warnings"
[ "$problems" -eq 0 ] || { echo "documentation: FAILED: fix the warnings above" >&2; exit 1; }
