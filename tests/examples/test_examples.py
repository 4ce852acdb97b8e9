"""The core-only examples run end to end (no model runtime: --llm fake / none)."""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("script", "argv"),
    [
        ("01_plan_cut_cake.py", ["--llm", "fake"]),
        ("01_plan_cut_cake.py", ["--task", "serving cake", "--llm", "none"]),
        ("02_execute_embedded.py", ["--task", "boil water", "--scenario", "stove-in-use"]),
        ("02_execute_embedded.py", ["--task", "cut apple", "--scenario", "knife-dirty"]),
        ("03_thor_demo.py", ["--trace", "pickup_mug", "--task", "reheating coffee in a microwave"]),
        ("05_custom_skill.py", []),
        pytest.param("04_sciworld_demo.py", [], marks=[pytest.mark.sciworld_live, pytest.mark.skipif(
            shutil.which("java") is None, reason="ScienceWorld needs Java on PATH")]),
    ],
)
def test_example_runs(script: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    if script.startswith("04_"):
        pytest.importorskip("scienceworld")
    monkeypatch.setattr(sys, "argv", [script, *argv])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    assert out.strip()
