#!/usr/bin/env bash
# The one command of the assetpack benchmark: see Tools/Benchmarks/README.md.
# Usage: Tools/Benchmarks/run.sh [--quick] [--runs N] [--only expand-app,...] [--work DIR] [--assetpack BIN]
set -euo pipefail
exec python3 "$(dirname "$0")/run.py" "$@"
