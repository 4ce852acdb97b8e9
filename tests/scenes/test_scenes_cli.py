"""``coat scenes list|fidelity|bench``."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenes", "list", "--family", "embedded"]) == 0
    out = capsys.readouterr().out
    assert "coat/kitchen-v0" in out and "coat/FloorPlan{1-30,201-230,301-330,401-430}-v0" in out
    assert main(["scenes", "list", "--family", "thor"]) == 0
    assert "coat/thor-FloorPlan{1-30,201-230,301-330,401-430}-v0" in capsys.readouterr().out
    assert main(["scenes", "list", "--family", "nope"]) == 1


def test_fidelity_updates_only_its_section(tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "scenes.md"
    report.write_text("# Scenes\n\nhand-written notes\n")
    assert main(["scenes", "fidelity", "--data-dir", str(data_dir), "--out", str(report)]) == 0
    text = report.read_text()
    assert "hand-written notes" in text and "<!-- scenes:fidelity -->" in text and "| **all** |" in text
    assert main(["scenes", "fidelity", "--data-dir", str(data_dir), "--out", str(report)]) == 0
    assert report.read_text().count("<!-- scenes:fidelity -->") == 1
    assert "pickup_mug" in capsys.readouterr().out


def test_bench_small(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.md"
    assert main(["scenes", "bench", "--scene", "kitchen", "--actions", "200", "--repeats", "1", "--out", str(out)]) == 0
    assert "actions/s" in capsys.readouterr().out and "<!-- scenes:bench -->" in out.read_text()
