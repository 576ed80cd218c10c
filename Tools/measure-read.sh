#!/usr/bin/env bash
# Read throughput of one large deflated entry: `assetpack verify` (inflate + CRC-32 check) against
# `unzip -p ARCHIVE > /dev/null` and `unzip -t` on the same file, alternating, 5 runs each; medians,
# min-max, peak memory. Usage: Tools/measure-read.sh [SIZE_MIB] (default 1024).
set -euo pipefail
size_mib=${1:-1024}
work=${WORK:-/tmp/assetpack-read-bench}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
swift build -c release --product assetpack --package-path "$root" --scratch-path "$work/.build-release" >/dev/null
tool="$work/.build-release/release/assetpack"
if [ ! -f "$work/big-$size_mib.zip" ]; then
  python3 - "$work/big.bin" "$size_mib" <<'PY'
import random, sys
path, mib = sys.argv[1], int(sys.argv[2])
rng = random.Random(42)
words = [("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10)))).encode() for _ in range(5000)]
block = b" ".join(rng.choice(words) for _ in range(200_000))  # ~1.2 MB of word-like text, ~3:1
with open(path, "wb") as out:
    left = mib << 20
    while left > 0:
        chunk = bytes(block[rng.randrange(len(block) // 2):])[: min(left, 1 << 20)]
        out.write(chunk); left -= len(chunk)
PY
  (cd "$work" && rm -f "big-$size_mib.zip" && zip -q -6 "big-$size_mib.zip" big.bin && rm big.bin)
fi
archive="$work/big-$size_mib.zip"
declare -A times mem
commands=("assetpack verify" "unzip -p" "unzip -t")
for run in 1 2 3 4 5; do
  cat "$archive" > /dev/null
  for name in "${commands[@]}"; do
    case $name in
      "assetpack verify") cmd=("$tool" verify -q "$archive") ;;
      "unzip -p") cmd=(unzip -p "$archive") ;;
      "unzip -t") cmd=(unzip -qq -t "$archive") ;;
    esac
    out=$( { /usr/bin/time -f "%e %M" "${cmd[@]}" > /dev/null; } 2>&1 | tail -1)
    times[$name]+="${out% *} "
    mem[$name]="${out#* }"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " (" a[1] "-" a[NR] ")"}'; }
echo "one deflated entry of $size_mib MiB ($(stat -c %s "$archive") bytes compressed), 5 runs each"
base=$(echo "${times["unzip -p"]}" | median | cut -d' ' -f1)
for name in "${commands[@]}"; do
  m=$(echo "${times[$name]}" | median)
  ratio=$(awk -v a="${m%% *}" -v b="$base" 'BEGIN {printf "%.2f", a / b}')
  echo "$name: median ${m} s, ${ratio}x unzip -p, peak RSS $((${mem[$name]} / 1024)) MiB"
done
