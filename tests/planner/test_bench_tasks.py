"""The household task benchmark: sampling, rows, the JSON summary, no overwrite, argument errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.bench.tasks import CONDITIONS, Sampler, make_config, sample_episodes
from planner.cli import main

SCENES = ("embedded/kitchen-v0", "embedded/FloorPlan1-v0", "embedded/FloorPlan201-v0", "embedded/FloorPlan301-v0",
          "embedded/FloorPlan401-v0")
FEW = ["--scenes", *SCENES[:2], "--no-progress"]


@pytest.fixture(scope="module")
def kb(data_dir: Path):
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


def test_sampling_is_deterministic_and_covers_every_condition(kb) -> None:
    cfg = make_config(episodes=len(CONDITIONS), seed=3, scenes=SCENES)
    a = sample_episodes(cfg, kb)
    b = sample_episodes(cfg, kb, sampler=Sampler(cfg, kb))
    assert a == b
    assert [e.condition for e in a] == list(CONDITIONS)
    assert len({e.key for e in a}) == len(a)
    other = sample_episodes(make_config(episodes=len(CONDITIONS), seed=4, scenes=SCENES), kb)
    assert [(e.scene, e.task) for e in other] != [(e.scene, e.task) for e in a]
    for e in a:
        assert e.scene in SCENES and e.ideal and e.ideal_type
        if e.condition == "present":
            assert not [p for p in e.perturb if p["type"] == e.ideal_type]
        elif e.condition != "none-usable":
            assert any(p["type"] == e.ideal_type and p["which"] == "all" for p in e.perturb)
        else:
            assert {p["condition"] for p in e.perturb if p["type"] == e.ideal_type} <= {"broken", "missing"}


def test_config_hash_ignores_the_episode_count() -> None:
    a, b = make_config(episodes=5, scenes=SCENES), make_config(episodes=50, scenes=SCENES)
    assert a.hash() == b.hash()
    assert a.hash() != make_config(episodes=5, seed=1, scenes=SCENES).hash()


def test_json_summary_and_rows_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    out = tmp_path / "run"
    rc = main(["bench", "tasks", "--episodes", "3", "--seed", "1", "--json", "--out", str(out), *FEW])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)  # exactly one JSON object on stdout
    for key in ("episodes", "success_rate", "infeasible_reported_rate", "safety_violations", "baseline",
                "by_condition"):
        assert key in summary
    assert summary["episodes"] == 3
    assert set(summary["by_condition"]) == set(CONDITIONS)
    for c in CONDITIONS:
        assert {"episodes", "success_rate", "replans_per_episode"} <= set(summary["by_condition"][c])
    assert {"success_rate", "infeasible_reported_rate", "safety_violations"} <= set(summary["baseline"])
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [r["key"] for r in rows] == ["1:0", "1:1", "1:2"]
    for r in rows:
        assert {"config_hash", "seed", "scene", "task", "condition", "model", "success", "failure", "planner",
                "baseline"} <= set(r)
        assert r["model"] == "knowledge"
    assert json.loads((out / "summary.json").read_text())["config_hash"] == rows[0]["config_hash"]
    # the fields: parts apart, the independent checker's disagreements, safety by kind
    for part in ("native", "extension", "proxy"):
        assert {"success_rate", "checked_success_rate", "episodes", "by_condition"} <= set(summary[part])
    assert summary["native"]["episodes"] + summary["extension"]["episodes"] + summary["proxy"]["episodes"] == 3
    assert isinstance(summary["false_successes"], int) and "infeasible_reported_rate" in summary
    from planner.safety import KINDS

    assert set(summary["safety_events"]) >= set(KINDS)
    for r in rows:
        assert r["goal_kind"] in ("state-change", "placement", "proxy") and r["native"] == (not r["extensions"])
        if r["planner"]["plan_feasible"]:
            assert {"success", "category", "reasons", "problems"} <= set(r["planner"]["checker"])


def test_refuses_to_overwrite_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    out = tmp_path / "run"
    assert main(["bench", "tasks", "--episodes", "1", "--out", str(out), *FEW]) == 0
    before = (out / "episodes.jsonl").read_text()
    capsys.readouterr()
    assert main(["bench", "tasks", "--episodes", "1", "--out", str(out), *FEW]) == 1
    assert "coat: error:" in capsys.readouterr().err and (out / "episodes.jsonl").read_text() == before
    assert main(["bench", "tasks", "--episodes", "2", "--out", str(out), "--resume", *FEW]) == 0
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2 and lines[0] == before.strip()
    assert main(["bench", "tasks", "--episodes", "2", "--seed", "9", "--out", str(out), "--resume", *FEW]) == 1
    assert "config" in capsys.readouterr().err


def test_a_bad_number_is_a_usage_error_naming_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["bench", "tasks", "--episodes", "0"])
    assert info.value.code == 2
    assert "argument --episodes: must be an integer >= 1, got '0'" in capsys.readouterr().err


@pytest.mark.parametrize("args, word", [
    (["--conditions", "wet"], "--conditions"),
    (["--scenes", "thor/FloorPlan1-v0"], "--scenes"),
    (["--scenes", "embedded/nowhere-v0"], "unknown scene"),
    (["--resume"], "--resume"),
    (["--strategy", "llm"], "--llm"),
])
def test_bad_arguments_are_clear_errors(args: list[str], word: str, capsys: pytest.CaptureFixture[str],
                                        data_dir: Path) -> None:
    assert main(["bench", "tasks", *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("coat: error:") and word in err


def test_episodes_are_prepared_and_labelled(kb) -> None:
    """A clean goal's target is dirty at reset, a light goal's lamps off; what AI2-THOR cannot produce is named."""
    from planner.bench.tasks import TaskDef, extensions

    clean = TaskDef("alfred", "pick_clean_then_place_in_recep", "Mug", "CounterTop")
    assert clean.prepare(clean.spec(kb), {"Mug", "CounterTop"}) == [{"type": "Mug", "condition": "dirty",
                                                                     "which": "all"}]
    look = TaskDef("alfred", "look_at_obj_in_light", "Book")
    assert look.prepare(look.spec(kb), {"Book", "DeskLamp", "LightSwitch"}) == [
        {"type": "DeskLamp", "condition": "off", "which": "all"}]
    bright = TaskDef("coat", "increase brightness of room")
    assert {p["type"] for p in bright.prepare(bright.spec(kb), {"LightSwitch", "FloorLamp", "Sofa"})} == {
        "LightSwitch", "FloorLamp"}
    spec = clean.spec(kb)
    assert extensions([{"type": "Mug", "condition": "dirty"}, {"type": "Knife", "condition": "missing"}], spec) == ()
    assert extensions([{"type": "Fork", "condition": "dirty"}, {"type": "Knife", "condition": "broken"},
                       {"type": "Microwave", "condition": "faulty"}], spec) == (
        "dirty-not-dirtyable", "broken-not-breakable", "faulty")
    assert extensions([], TaskDef("coat", "serving cake").spec(kb)) == ("extension-type",)
