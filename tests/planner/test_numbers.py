"""Numbers are checked where they enter: finite, in range, the error naming the value and the accepted range, before
any work starts. Every numeric flag of every ``coat`` command is found by walking the parser, so a flag added
later without a range fails here; the API, ``--option KEY=VALUE``, manifests and data files are checked the same
way.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.arguments import Range, shown
from planner.cli import build_parser, main
from planner.errors import ConfigError, DataError


def _actions(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, action) for every option of every (sub)command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, (*path, name))
        elif action.option_strings:
            yield path, action


FLAGS = list(_actions(build_parser()))
NUMERIC = [(path, a) for path, a in FLAGS if hasattr(a.type, "accepted")]


def test_every_numeric_flag_has_a_range() -> None:
    raw = [f"coat {' '.join(path)} {a.option_strings[-1]}" for path, a in FLAGS if a.type in (int, float)]
    assert raw == [], "a numeric flag without a range (use planner.cli.number(Range(...)))"
    assert len(NUMERIC) >= 30  # eval, ablate, train, sciworld, bench, perception, scenes, plan, datasets, data


def _bad_values(accepted: Range) -> st.SearchStrategy[str]:
    """Texts a flag with range ``accepted`` must refuse."""
    bad = ["nan", "inf", "-inf", "NaN", "1e400", "", "x", "1,5"]
    if accepted.integer:
        bad += ["1.5", "2e3", "0x10"]
    outside: list[st.SearchStrategy[float]] = []
    if accepted.low is not None:
        below = accepted.low if accepted.low_open else accepted.low - (1 if accepted.integer else 1e-6)
        outside.append(st.floats(max_value=below, allow_nan=False, allow_infinity=False, min_value=-1e12))
    if accepted.high is not None:
        above = accepted.high if accepted.high_open else accepted.high + (1 if accepted.integer else 1e-6)
        outside.append(st.floats(min_value=above, allow_nan=False, allow_infinity=False, max_value=1e12))
    texts = [st.sampled_from(bad)]
    for s in outside:
        texts.append(s.map(lambda v: str(math.floor(v) if v < 0 else math.ceil(v)) if accepted.integer else repr(v)))
    return st.one_of(texts)


CAPSYS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
"""capsys is read (and so emptied) after every example."""


@CAPSYS
@given(data=st.data())
def test_a_bad_number_on_any_flag_is_refused_naming_flag_value_and_range(capsys, data) -> None:
    path, action = data.draw(st.sampled_from(NUMERIC), label="flag")
    flag, accepted = action.option_strings[-1], action.type.accepted
    text = data.draw(_bad_values(accepted), label="value")
    with pytest.raises(SystemExit) as info:  # while the arguments are read: no handler runs
        main([*path, f"{flag}={text}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err and f"must be {accepted.describe()}" in err and repr(text) in err, err


@given(data=st.data())
def test_a_number_in_range_is_read_as_given(data) -> None:
    _path, action = data.draw(st.sampled_from(NUMERIC), label="flag")
    r: Range = action.type.accepted
    low = r.low if r.low is not None else -1e6
    high = r.high if r.high is not None else 1e6
    if r.integer:
        value: float = data.draw(st.integers(math.ceil(low) + r.low_open, math.floor(high) - r.high_open))
    else:
        value = data.draw(st.floats(low, high, exclude_min=r.low_open, exclude_max=r.high_open))
    assert action.type(repr(value)) == value


numbers_any = st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True),
                        st.booleans(), st.none(), st.text(max_size=3), st.just(2**64))
ranges = st.builds(Range, st.one_of(st.none(), st.integers(-5, 5)), st.one_of(st.none(), st.integers(6, 20)),
                   st.booleans(), st.booleans(), st.booleans())


@given(value=numbers_any, accepted=ranges)
def test_check_accepts_exactly_finite_numbers_in_range_and_names_what_it_refuses(value: Any, accepted: Range) -> None:
    try:
        got = accepted.check("weight", value)
    except (ConfigError, TypeError) as e:
        assert str(e) == f"weight must be {accepted.describe()}, got {shown(value)}"
        return
    assert got is value and not isinstance(value, bool)
    assert math.isfinite(value) and (not accepted.integer or isinstance(value, int))
    if accepted.low is not None:
        assert value > accepted.low if accepted.low_open else value >= accepted.low
    if accepted.high is not None:
        assert value < accepted.high if accepted.high_open else value <= accepted.high


# --- coat train --option KEY=VALUE, and training options through the API


@given(data=st.data())
def test_every_training_option_refuses_what_its_range_refuses(data) -> None:
    from planner.cli.train import parse_options
    from planner.learned.train import OPTION_RANGES, resolve_options

    key = data.draw(st.sampled_from(sorted(OPTION_RANGES)))
    text = data.draw(_bad_values(OPTION_RANGES[key]))
    with pytest.raises(ConfigError) as info:
        parse_options([f"{key}={text}"])
    assert str(info.value).startswith(f"--option {key}={text}: must be {OPTION_RANGES[key].describe()}, got ")
    try:
        value: Any = float(text)
    except ValueError:
        return
    r = OPTION_RANGES[key]
    if math.isfinite(value) and r.problem(int(value) if r.integer and value.is_integer() else value) is None:
        return  # '2e3' is no integer on the command line, but 2000.0 is one through the API
    with pytest.raises(ConfigError, match=f"option {key} must be "):
        resolve_options({key: value})


@pytest.mark.parametrize(("option", "needle"), [
    ("lr=inf", "--option lr=inf: must be a finite number > 0 and <= 1, got 'inf'"),
    ("keep_logit=nan", "--option keep_logit=nan: must be a finite number, got 'nan'"),
    ("hidden=1e9", "--option hidden=1e9: must be an integer >= 2 and <= 4096"),
])
def test_the_issue_s_training_options_stop_before_any_data_is_read(capsys, tmp_path: Path, option: str,
                                                                  needle: str) -> None:
    assert main(["train", "--option", option, "--out", str(tmp_path / "m"), "--data-dir", "/nonexistent"]) == 1
    assert needle in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_a_diverged_training_saves_nothing() -> None:
    torch = pytest.importorskip("torch")
    from planner.learned.train import DEFAULTS, _check_trained

    heads = torch.nn.ModuleDict({"suits": torch.nn.Linear(2, 1)})
    _check_trained(heads, DEFAULTS)
    with torch.no_grad():
        heads["suits"].weight[0, 0] = float("nan")
    with pytest.raises(ConfigError, match=r"training diverged: non-finite weights in suits\.weight .*lr=0\.003"):
        _check_trained(heads, DEFAULTS)


# --- the API


def test_the_api_refuses_the_issue_s_numbers(kb) -> None:
    from planner.agents.sciworld.bench import select_variations
    from planner.baseline import SinglePromptBaseline
    from planner.bench.task_report import plot_bars
    from planner.download import download
    from planner.object_selector import ObjectSelector

    with pytest.raises(ConfigError, match="margin must be a finite number >= 0, got nan"):
        ObjectSelector("knowledge", None, kb, margin=float("nan"))
    with pytest.raises(ConfigError, match="object_prior must be a finite number >= 0, got nan"):
        SinglePromptBaseline.from_options("llm", None, kb, object_prior=float("nan"))
    with pytest.raises(ConfigError, match="limit must be an integer >= 1, got -1"):
        select_variations("boil", "test", limit=-1)
    assert select_variations("boil", "test", limit=2) == [21, 22]
    with pytest.raises(ConfigError, match=r"timeout must be a finite number > 0 and <= 3600, got nan"):
        download(timeout=float("nan"))
    with pytest.raises(ConfigError, match=r"plot '/tmp': give a picture file ending in \.png"):
        plot_bars("/tmp", ["a"], [("s", [1.0])], ylabel="%", line=None, title="t")


def test_execute_plan_and_plan_refuse_negative_counts_and_seeds(kb) -> None:
    from planner.api import execute_plan, plan

    p = plan("cut apple", "embedded/kitchen-v0", llm=None, kb=kb)
    with pytest.raises(ConfigError, match="max_replans must be an integer >= 0, got -1"):
        execute_plan(p, max_replans=-1, kb=kb)
    with pytest.raises(ConfigError, match="seed must be an integer >= 0"):
        plan("cut apple", "embedded/kitchen-v0", llm=None, kb=kb, seed=-3)


@pytest.fixture(scope="module")
def kb(data_dir):
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


# --- output paths and plot suffixes, before the run


@pytest.mark.parametrize("argv", [
    ["bench", "tasks", "--episodes", "1"], ["bench", "understanding"], ["bench", "directives"],
])
@pytest.mark.parametrize(("plot", "needle"), [
    ("{tmp}", "is a directory"), ("{tmp}/p.txt", "give a picture file ending in .png, .pdf, .svg"),
    ("{tmp}/p", "give a picture file ending in"), ("/proc/none/p.png", "cannot be created"),
])
def test_plot_paths_are_checked_before_the_run(monkeypatch, capsys, tmp_path: Path, argv: list[str], plot: str,
                                               needle: str) -> None:
    import planner.knowledge

    def no_work(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the run started")

    monkeypatch.setattr(planner.knowledge, "load_knowledge", no_work)
    monkeypatch.setattr("planner.understanding.examples._load_rows", no_work)
    assert main([*argv, "--plot", plot.replace("{tmp}", str(tmp_path))]) == 1
    err = capsys.readouterr().err
    assert needle in err and "coat: error: --plot " in err
    assert not Path(str(tmp_path) + ".png").exists()


# --- manifests and data files


def test_a_learned_model_with_nan_weights_or_options_is_refused(tmp_path: Path) -> None:
    from planner.learned.model import check_recorded_options

    check_recorded_options(tmp_path / "m.json", {"keep_logit": -1.5, "lr": 0.003, "a_later_option": "x"})
    with pytest.raises(DataError, match=r"m\.json: at options/keep_logit: option keep_logit must be a finite"):
        check_recorded_options(tmp_path / "m.json", {"keep_logit": float("nan")})


def test_a_question_set_manifest_with_bad_numbers_is_refused(tmp_path: Path) -> None:
    from planner.bench.datasets import read_manifest

    for doc, where in (({"seed": -1}, "seed"), ({"counts": {"task2": {"0": 1.5}}}, "counts/task2/0"),
                       ({"counts": {"task2": {"x": 3}}}, "counts/task2/x"),
                       ({"totals": {"task2": -4}}, "totals/task2")):
        (tmp_path / "manifest.json").write_text(json.dumps(doc))
        with pytest.raises(DataError, match=f"at {where}: "):
            read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text('{"seed": NaN}')
    with pytest.raises(DataError, match="NaN is not a number a data file may hold"):
        read_manifest(tmp_path)


json_docs = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                         | st.text(max_size=5),
                         lambda kids: st.lists(kids, min_size=1, max_size=3)
                         | st.dictionaries(st.text("abc", min_size=1, max_size=3), kids, min_size=1, max_size=3),
                         max_leaves=12)


def _paths(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    kids = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    return [at] + [p for k, v in kids for p in _paths(v, (*at, k))]


@given(doc=json_docs, data=st.data(), bad=st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-2E+999"]))
def test_a_data_file_holding_a_non_finite_number_is_refused(tmp_path_factory, doc: Any, data, bad: str) -> None:
    from planner.paths import read_json

    where = data.draw(st.sampled_from(_paths(doc)))
    marker = "\u0000MARK\u0000"
    if where:
        parent = doc
        for k in where[:-1]:
            parent = parent[k]
        parent[where[-1]] = marker
    else:
        doc = marker
    f = tmp_path_factory.mktemp("nan") / "d.json"
    f.write_text(json.dumps(doc).replace(json.dumps(marker), bad))
    with pytest.raises(DataError) as info:
        read_json(f)
    msg = str(info.value)
    assert str(f) in msg
    if bad.lstrip("-")[0].isdigit():  # a huge number: named at its key path
        assert f"at {'/'.join(map(str, where)) or '<root>'}: a number too large" in msg
