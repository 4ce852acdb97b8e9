#!/usr/bin/env bash
# The test command: offline, CPU-only. Extra pytest arguments are passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
export COAT_DATA_DIR="${COAT_DATA_DIR:-$(cd .. && pwd)/shared}"
exec python -m pytest -q "$@"
