#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and runs one of them.
#
#   Tools/Fuzz/run.sh [FuzzZipReader|FuzzEntryName|FuzzInflate|FuzzDeflate] [SECONDS]      (defaults: FuzzZipReader 600)
#
# Corpus: corpus/zip, corpus/name, corpus/deflate or corpus/plain (made by make-seeds.sh when empty; the fuzzer adds what it finds).
# Crashes, hangs (-timeout=10) and out-of-memory inputs go to findings/, the log to findings/TARGET-*.log.
# After a finding the run starts again (up to MAX_RESTARTS times) until SECONDS are used up.
# Environment: ASAN=1 adds AddressSanitizer (unsafe-pointer bugs; about 10x slower, own build folder),
# MAX_LEN (default 32768 for zips, 4096 for names), MAX_RESTARTS (default 5), and FUZZ_FLAGS for more
# libFuzzer flags. Run it under `nice -n 19` to keep the machine usable.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:-FuzzZipReader}"
seconds="${2:-600}"
scratch="$here/../../.build-fuzz"
sanitizers=fuzzer
if [ "${ASAN:-0}" = 1 ]; then scratch="$here/../../.build-fuzz-asan"; sanitizers=fuzzer,address; fi
case "$target" in
  FuzzZipReader) corpus="$here/corpus/zip"; dict=(-dict="$here/zip.dict"); max_len="${MAX_LEN:-32768}" ;;
  FuzzEntryName) corpus="$here/corpus/name"; dict=(); max_len="${MAX_LEN:-4096}" ;;
  FuzzInflate) corpus="$here/corpus/deflate"; dict=(); max_len="${MAX_LEN:-65536}" ;;
  FuzzDeflate) corpus="$here/corpus/plain"; dict=(); max_len="${MAX_LEN:-262144}" ;;
  *) echo "usage: $0 [FuzzZipReader|FuzzEntryName|FuzzInflate|FuzzDeflate] [seconds]" >&2; exit 2 ;;
esac

# -sanitize=fuzzer on every module: coverage for the libraries under test, libFuzzer linked in. Each
# target's main.swift calls LLVMFuzzerRunDriver, because SwiftPM links main.swift's code as `main`.
# Sanitizers go in one comma-separated flag: a second -sanitize= flag replaces the first.
# -enable-testing: FuzzInflate and FuzzDeflate reach the zip layer's package-level Inflater and BlockDeflater through `@testable import`.
(cd "$here" && swift build -c release -Xswiftc -sanitize="$sanitizers" -Xswiftc -enable-testing --scratch-path "$scratch" --product "$target")
# Run a copy, so a rebuild while this runs neither fails nor changes the running fuzzer.
built="$(cd "$here" && swift build -c release -Xswiftc -enable-testing --scratch-path "$scratch" --show-bin-path)/$target"
mkdir -p "$scratch/fuzz-run"
binary="$scratch/fuzz-run/$target-$$"
cp "$built" "$binary"
trap 'rm -f "$binary"' EXIT

[ -n "$(ls -A "$corpus" 2>/dev/null)" ] || "$here/make-seeds.sh"
mkdir -p "$here/findings"
log="$here/findings/$target$([ "${ASAN:-0}" = 1 ] && echo -asan)-$(date -u +%Y%m%dT%H%M%SZ).log"
echo "run.sh: $target for $seconds s, log $log"

# Let libFuzzer, not Swift's backtracer, handle a trap: it writes the input and a short trace.
export SWIFT_BACKTRACE=enable=no
deadline=$(( $(date +%s) + seconds ))
restarts=0
while :; do
  left=$(( deadline - $(date +%s) ))
  [ "$left" -gt 0 ] || break
  status=0
  echo "run.sh: start $(date -u +%FT%TZ)" >> "$log"
  started=$(date +%s)
  "$binary" "$corpus" "${dict[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -max_total_time="$left" -print_final_stats=1 -artifact_prefix="$here/findings/$target-" \
    ${FUZZ_FLAGS:-} >> "$log" 2>&1 || status=$?
  echo "run.sh: stop $(date -u +%FT%TZ) after $(( $(date +%s) - started )) s, exit $status" >> "$log"
  [ "$status" -ne 0 ] || break
  restarts=$(( restarts + 1 ))
  echo "run.sh: finding (exit $status), see $log" | tee -a "$log"
  [ "$restarts" -le "${MAX_RESTARTS:-5}" ] || break
done
grep -E '^(stat::number_of_executed_units|run.sh: stop)' "$log" || true
