"""One data directory per run: ``--data-dir`` / ``data_dir=`` reaches every reader, and ``execute_plan`` refuses
what it cannot rebuild.

Every reader is watched at the system's door: an audit hook (:func:`sys.addaudithook`) records each file opened and
each directory listed while a command or call runs. The data directory given by option and the one
``COAT_DATA_DIR`` names are two symlink trees of the reference data, made fresh for each example (so no cache
keyed on a directory has seen either), and the run must read the first and never the second.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.api import execute_plan, observe, open_plan_scene, plan
from planner.cli import build_parser, main
from planner.errors import ConfigError
from planner.knowledge import load_knowledge
from planner.knowledge.alfred import alfred_spec
from planner.paths import cache_data_dir, resolve_data_dir, run_data_dir, use_data_dir
from planner.schemas import Plan

PROPERTY = settings(max_examples=12,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# ---------------------------------------------------------------- what a run reads

_SEEN: list[str] | None = None
_HOOKED = False
_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})


def _hook(event: str, args: tuple[Any, ...]) -> None:
    seen = _SEEN
    if seen is not None and event in _EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        seen.append(os.path.abspath(os.fsdecode(args[0])))


@contextlib.contextmanager
def reads() -> Iterator[list[str]]:
    """Every path opened or listed inside the block (absolute, symlinks left as they were named)."""
    global _SEEN, _HOOKED
    if not _HOOKED:  # an audit hook stays for the process: installed once, idle outside this block
        sys.addaudithook(_hook)
        _HOOKED = True
    _SEEN = seen = []
    try:
        yield seen
    finally:
        _SEEN = None


def _under(path: str, root: Path) -> bool:
    return path == str(root) or path.startswith(str(root) + os.sep)


def assert_reads_only(seen: list[str], root: Path, *others: Path) -> None:
    """``root`` was read, and no other data directory (the decoy, the reference data itself, the user cache)."""
    for other in others:
        wrong = sorted({p for p in seen if _under(p, other)})
        assert not wrong, f"read from {other} while the run's data directory is {root}: {wrong[:5]}"
    assert any(_under(p, root) for p in seen), f"nothing was read from the run's data directory {root}"


def _tree(parent: Path, name: str, shared: Path) -> Path:
    """A data directory whose ``coat/`` and ``ai2thor/`` are symlinks to the reference data."""
    root = parent / name
    root.mkdir()
    for sub in ("coat", "ai2thor"):
        (root / sub).symlink_to(shared / sub, target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def dirs(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``make()`` -> (option's directory, decoy for COAT_DATA_DIR, the paths no reader may touch), fresh each call."""
    base = tmp_path_factory.mktemp("data-dirs")
    shared = data_dir.resolve()

    def make() -> tuple[Path, Path, tuple[Path, ...]]:
        run = Path(tempfile.mkdtemp(dir=base))
        option, decoy = _tree(run, "option", shared), _tree(run, "decoy", shared)
        return option, decoy, (decoy, shared, cache_data_dir())

    return make


def _env(mp: pytest.MonkeyPatch, decoy: Path, how: str) -> None:
    if how == "decoy":
        mp.setenv("COAT_DATA_DIR", str(decoy))
    else:
        mp.delenv("COAT_DATA_DIR", raising=False)


# ---------------------------------------------------------------- the API


FLOORPLANS = ("FloorPlan1", "FloorPlan5", "FloorPlan201", "FloorPlan301", "FloorPlan401")
TASKS = ("cut apple", "slice the bread", "boil water", "heat apple")


@PROPERTY
@given(floorplan=st.sampled_from(FLOORPLANS), task=st.sampled_from(TASKS), spec=st.booleans(),
       how=st.sampled_from(("data_dir", "kb", "both", "scope")), env=st.sampled_from(("decoy", "unset")),
       form=st.sampled_from(("absolute", "relative", "trailing-slash", "symlink")), execute=st.booleans())
def test_the_api_reads_only_the_data_directory_it_is_given(dirs, floorplan, task, spec, how, env, form,
                                                           execute) -> None:
    option, decoy, others = dirs()
    scene = f"embedded/{floorplan}-v0"
    with pytest.MonkeyPatch.context() as mp:
        _env(mp, decoy, env)
        given_dir: str = str(option)
        if form == "relative":
            mp.chdir(option.parent)
            given_dir = option.name
        elif form == "trailing-slash":
            given_dir = f"{option}{os.sep}"
        elif form == "symlink":  # a link to the directory is the same directory
            link = option.parent / "link"
            link.symlink_to(option, target_is_directory=True)
            given_dir = str(link)
        what: Any = alfred_spec("pick_heat_then_place_in_recep", "Apple", "CounterTop") if spec else task
        with reads() as seen:
            kb = load_knowledge(given_dir) if how in ("kb", "both") else None
            kw: dict[str, Any] = {"kb": kb} if how == "kb" else {"kb": kb, "data_dir": given_dir} if how == "both" \
                else {"data_dir": given_dir} if how == "data_dir" else {}
            with use_data_dir(given_dir if how == "scope" else None):
                p = plan(what, scene, llm=None, strategy="knowledge", **kw)
                env_, _obs, _state = observe(scene, **kw)
                env_.close()
                if execute and p.feasible:
                    execute_plan(p, strategy="knowledge", **kw)
    read_root = option.parent / "link" if form == "symlink" else option
    assert_reads_only([p.replace(str(read_root), str(option)) for p in seen], option, *others)
    assert run_data_dir() is None  # nothing of the run is left behind


def test_a_knowledge_base_from_one_directory_and_data_dir_of_another_are_refused(dirs) -> None:
    option, decoy, _ = dirs()
    kb = load_knowledge(option)
    with pytest.raises(ConfigError, match="one data directory"):
        plan("cut apple", "embedded/FloorPlan1-v0", llm=None, kb=kb, data_dir=decoy)
    with pytest.raises(ConfigError, match="one data directory"), use_data_dir(decoy):
        plan("cut apple", "embedded/FloorPlan1-v0", llm=None, kb=kb)  # inside a run of another directory
    from planner.agents.sciworld.agent import SciWorldAgent
    from planner.bench.datasets import write_sets

    with pytest.raises(ConfigError, match="one data directory"):
        SciWorldAgent(kb=kb, data_dir=decoy)
    with pytest.raises(ConfigError, match="one data directory"):
        write_sets(kb, option.parent / "qs", sets=["task0"], progress=False, data_dir=decoy)
    assert SciWorldAgent(kb=kb)._data_dir == kb.root


def test_a_reader_asked_for_another_directory_inside_a_run_is_refused(dirs) -> None:
    option, decoy, _ = dirs()
    with use_data_dir(option):
        assert resolve_data_dir() == option
        assert resolve_data_dir(option) == option
        with pytest.raises(ConfigError, match=f"reads its data from {option}.*not {decoy}"):
            resolve_data_dir(decoy, need="ai2thor")
        with pytest.raises(ConfigError, match="one run reads one data directory"), use_data_dir(decoy):
            pass
    assert run_data_dir() is None


def test_an_incomplete_run_directory_does_not_fall_back_to_the_environment(dirs, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _, decoy, _ = dirs()
    monkeypatch.setenv("COAT_DATA_DIR", str(decoy))
    with use_data_dir(tmp_path), pytest.raises(Exception, match=str(tmp_path)) as e:
        resolve_data_dir(need="ai2thor")
    assert str(decoy) not in str(e.value)


# ---------------------------------------------------------------- every command that takes --data-dir


def _commands_with(flag: str, parser: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands_with(flag, sub, (*path, name))
        elif flag in action.option_strings:
            yield path


DATA_DIR_COMMANDS = sorted(set(_commands_with("--data-dir", build_parser())))


def _first_line(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.strip()) + "\n"


def _argv(path: tuple[str, ...], root: str, tmp: Path) -> list[str] | None:
    """A short run of ``path`` that reads data, with ``--data-dir root``; None for a command that cannot run here."""
    from planner.understanding.examples import directives_path, requests_path, safety_path

    (tmp / "one-request.jsonl").write_text(_first_line(requests_path("dev")), encoding="utf-8")
    (tmp / "one-directive.jsonl").write_text(_first_line(directives_path("dev")), encoding="utf-8")
    (tmp / "one-safety.jsonl").write_text(_first_line(safety_path("dev")), encoding="utf-8")
    runs: dict[tuple[str, ...], list[str]] = {
        ("ablate",): ["ablate", "--out", str(tmp / "ablate"), "--sets", "task2", "--limit", "2", "--llm", "fake"],
        ("bench", "directives"): ["bench", "directives", "--requests", str(tmp / "one-directive.jsonl"),
                                  "--no-progress"],
        ("bench", "tasks"): ["bench", "tasks", "--episodes", "2", "--scenes", "embedded/FloorPlan1-v0",
                             "--conditions", "present", "missing", "--no-progress"],
        ("bench", "understanding"): ["bench", "understanding", "--requests", str(tmp / "one-request.jsonl"),
                                     "--no-progress"],
        ("bench", "safety"): ["bench", "safety", "--requests", str(tmp / "one-safety.jsonl"), "--no-progress"],
        ("data", "verify"): ["data", "verify", "--only", "coat"],
        ("data", "where"): ["data", "where"],
        ("datasets", "build"): ["datasets", "build", "--out", str(tmp / "qs"), "--set", "task0", "--no-progress"],
        ("datasets", "stats"): ["datasets", "stats", "--set", "task0"],
        ("eval",): ["eval", "--set", "task2", "--strategy", "knowledge", "--limit", "2"],
        ("perception",): ["perception", "--data-dir", root, "estimate", "FloorPlan1"],
        ("plan",): ["plan", "cut apple", "--scene", "embedded/FloorPlan1-v0", "--execute"],
        ("scenes", "bench"): ["scenes", "bench", "--scene", "FloorPlan1", "--actions", "5", "--repeats", "1"],
        ("scenes", "fidelity"): ["scenes", "fidelity"],
        ("tasks",): ["tasks", "--utility", "cutting"],
        ("train",): ["train", "--out", str(tmp / "learned"), "--option", "hidden=8", "--option", "epochs1=1",
                     "--option", "epochs2=1", "--no-progress"],
    }
    if path == ("sciworld",):
        from planner._optional import is_available

        if not is_available("scienceworld"):
            return None
        return ["sciworld", "--tasks", "boil", "--limit", "1", "--policies", "coat", "--data-dir", root]
    argv = runs[path]
    return argv if path == ("perception",) else [*argv, "--data-dir", root]


class _HashEncoder:
    """Tiny deterministic vectors (no MiniLM) for ``coat train`` here."""

    model_id = "fake-hash-8"

    def encode(self, texts: Any) -> Any:
        import hashlib

        import numpy as np

        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) for t in texts]
        return (np.stack(rows).astype(np.float32) / 255.0) - 0.5


def test_every_command_with_a_data_dir_is_covered() -> None:
    assert len(DATA_DIR_COMMANDS) >= 16, DATA_DIR_COMMANDS


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", DATA_DIR_COMMANDS, ids=" ".join)
def test_every_command_reads_only_its_data_dir(dirs, capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               path: tuple[str, ...]) -> None:
    option, decoy, others = dirs()
    argv = _argv(path, str(option), tmp_path)
    if argv is None:
        pytest.skip("the command's extra is not installed here")
    monkeypatch.setenv("COAT_DATA_DIR", str(decoy))
    if path == ("train",):
        pytest.importorskip("torch")
        import planner.learned.train as train

        monkeypatch.setattr(train, "MiniLMVectors", _HashEncoder)
    with reads() as seen:
        code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 3, 4), (code, err[-2000:])
    assert "internal error" not in err
    assert_reads_only(seen, option, *others)
    if path == ("data", "where"):
        assert f"Using: {option}" in out


@PROPERTY
@given(floorplan=st.sampled_from(FLOORPLANS), episodes=st.integers(1, 3),
       conditions=st.lists(st.sampled_from(("present", "missing", "dirty", "broken")), min_size=1, max_size=2,
                           unique=True),
       env=st.sampled_from(("decoy", "unset")))
def test_bench_tasks_with_a_data_dir_reads_no_other(dirs, capsys, floorplan, episodes, conditions, env) -> None:
    option, decoy, others = dirs()
    with pytest.MonkeyPatch.context() as mp:
        _env(mp, decoy, env)
        with reads() as seen:
            code = main(["bench", "tasks", "--episodes", str(episodes), "--scenes", f"embedded/{floorplan}-v0",
                         "--conditions", *conditions, "--no-progress", "--json", "--data-dir", str(option)])
    out, err = capsys.readouterr()
    assert code == 0, err[-2000:]
    assert_reads_only(seen, option, *others)
    summary = json.loads(out)
    assert summary["episodes"] == episodes


def test_the_task_benchmark_s_library_reads_its_knowledge_base_s_directory(dirs, monkeypatch) -> None:
    from planner.bench.task_runs import run_tasks
    from planner.bench.tasks import make_config

    option, decoy, others = dirs()
    monkeypatch.setenv("COAT_DATA_DIR", str(decoy))
    cfg = make_config(episodes=2, seed=3, scenes=("embedded/FloorPlan2-v0",), conditions=("present", "broken"))
    with reads() as seen:
        rows = run_tasks(cfg, load_knowledge(option), progress=False)
    assert len(rows) == 2 and all(r["planner"]["checker"] is not None for r in rows if r["planner"]["plan_feasible"])
    assert_reads_only(seen, option, *others)


# ---------------------------------------------------------------- execute_plan refuses what it cannot rebuild


SCENES = ("embedded/kitchen-v0", "embedded/FloorPlan1-v0", "embedded/FloorPlan2-v0", "embedded/FloorPlan5-v0")
OPTIONS = (None, {"scenario": "knife-dirty"}, {"scenario": "random"},
           {"perturb": [{"type": "Knife", "condition": "broken", "which": "all"}]})


@PROPERTY
@given(scene=st.sampled_from(SCENES), seed=st.integers(0, 50), other=st.sampled_from(SCENES))
def test_a_plan_made_from_a_scene_state_is_run_only_where_its_objects_are(scene, seed, other) -> None:
    env, obs, state = observe(scene, seed=seed)
    env.close()
    p = plan("cut apple", state, llm=None, strategy="knowledge")
    assert p.env_id is None
    with pytest.raises(ConfigError, match=r"records no scene to rebuild.*SceneState.*Pass scene="):
        execute_plan(p, strategy="knowledge")
    with pytest.raises(ConfigError, match="records no scene to rebuild"):
        open_plan_scene(p)
    env, _ = open_plan_scene(p, scene, seed=seed)  # where its objects are: it runs
    env.close()
    with contextlib.ExitStack() as stack:
        try:
            env, obs2 = open_plan_scene(p, other, seed=seed)
            stack.callback(env.close)
        except ConfigError as e:  # refused: it names an object the plan bound that the scene lacks
            lost = [oid for oid in p.bindings.values() if oid in str(e)]
            assert lost and "has no" in str(e), str(e)
        else:  # run: every object the plan bound is there
            here = {o["objectId"] for o in obs2.objects}
            assert set(p.bindings.values()) <= here


@PROPERTY
@given(scene=st.sampled_from(SCENES), seed=st.integers(0, 50), made=st.sampled_from(OPTIONS),
       asked=st.sampled_from(OPTIONS))
def test_options_the_plan_did_not_record_are_refused(scene, seed, made, asked) -> None:
    p = plan("cut apple", scene, llm=None, strategy="knowledge", seed=seed, options=made)
    recorded = {k: v for k, v in p.options.items() if k != "scenario_drawn"}
    if asked is None or asked == recorded:
        env, _ = open_plan_scene(p, options=asked)  # its own options: rebuilt
        env.close()
        return
    with pytest.raises(ConfigError, match="this plan was made with (no reset options|reset options)"):
        open_plan_scene(p, options=asked)
    with pytest.raises(ConfigError, match="this plan was made with"):
        execute_plan(p, options=asked, strategy="knowledge")


def test_the_issue_s_cases_are_refused_with_the_fix() -> None:
    p = plan("cut apple", "embedded/kitchen-v0", llm=None, strategy="knowledge")
    assert p.options == {}
    with pytest.raises(ConfigError, match=r"made with no reset options, not \{'scenario': 'knife-dirty'\}.*"
                                          r"execute without options="):
        execute_plan(p, options={"scenario": "knife-dirty"})
    with pytest.raises(ConfigError, match="made with seed 0, not 3"):
        execute_plan(p, seed=3)
    assert execute_plan(p, options={}, seed=0, strategy="knowledge").achieved  # repeating the record is fine
    env, _obs, state = observe("embedded/FloorPlan1-v0")
    env.close()
    q = plan("cut apple", state, llm=None, strategy="knowledge")
    with pytest.raises(ConfigError, match="scene= .*'embedded/kitchen-v0'"):
        execute_plan(q)
    rebuilt = r"rebuilt for this plan \('embedded/kitchen-v0'\) has no .*Knife\|.*\(cutting\)"
    with pytest.raises(ConfigError, match=rebuilt):
        execute_plan(q, "embedded/kitchen-v0")
    assert execute_plan(q, "embedded/FloorPlan1-v0", strategy="knowledge").achieved


def test_a_plan_from_json_without_its_scene_record_is_refused() -> None:
    p = plan("cut apple", "embedded/kitchen-v0", llm=None, strategy="knowledge")
    old = Plan.model_validate({k: v for k, v in p.model_dump(mode="json").items() if k not in ("env_id", "seed")})
    with pytest.raises(ConfigError, match="records no scene to rebuild"):
        execute_plan(old)
