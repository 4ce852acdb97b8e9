#!/usr/bin/env bash
# The test command: lint, then the offline, CPU-only test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export COAT_DATA_DIR="${COAT_DATA_DIR:-$(cd .. && pwd)/shared}"
python -m ruff check .
exec python -m pytest -q "$@"
