"""The results writer (planner/results.py), and every command that writes results going through it.

The writer's properties are drawn: random rows written, the file cut at a random byte (a run killed while writing),
resumed and completed: a complete last row is kept (its line break added), a torn one dropped, no row lost or
written twice. Then, per command (coat eval, ablate, bench tasks / understanding / directives, sciworld, train,
datasets build): a second run on a locked output is refused at once, and a run of another identity is refused,
naming both, with the earlier results left as they were.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from planner.cli import main
from planner.errors import ConfigError, DataError
from planner.results import (
    DIR_RECORD,
    RECORD_SUFFIX,
    ResultsDir,
    ResultsFile,
    RunIdentity,
    data_fingerprint,
    locked_dir,
    read_results,
)

REPO = Path(__file__).resolve().parents[2]
IDENT = RunIdentity({"results": "test rows", "seed": 0}, "f" * 16, of="question set")


class Row(BaseModel):
    """A row written as pydantic writes it: UTF-8 as is, so a cut can fall inside a character."""

    i: int
    text: str


def _rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("coat:")]
    assert len(lines) == 1, err
    return lines[0]


# ---------------------------------------------------------------- the writer's properties


@settings(max_examples=120)
@given(texts=st.lists(st.text(max_size=12), min_size=1, max_size=6), data=st.data())
def test_a_run_cut_anywhere_resumes_to_every_row_once(tmp_path_factory, texts: list[str], data: Any) -> None:
    f = tmp_path_factory.mktemp("cut") / "rows.jsonl"
    rows = [Row(i=i, text=t) for i, t in enumerate(texts)]
    with ResultsFile(f, IDENT) as out:
        for r in rows:
            out.append(r)
    full = f.read_bytes()
    lines = full.split(b"\n")[:-1]
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    ends = [s + len(x) for s, x in zip(starts, lines, strict=True)]  # where each row's text ends (its break is here)
    cut = data.draw(st.integers(0, len(full)), label="cut")
    f.write_bytes(full[:cut])  # killed here

    with ResultsFile(f, IDENT) as out:
        kept = [r["i"] for r in out.rows]
        torn = [i for i, (s, e) in enumerate(zip(starts, ends, strict=True)) if s < cut < e]
        assert kept == [i for i, e in enumerate(ends) if e <= cut]  # a row complete without its line break is kept
        assert (out.dropped is not None) == bool(torn)
        after = f.read_bytes()
        if torn:  # the torn row is dropped, nothing before it touched
            assert after == full[: starts[torn[0]]]
        elif cut in ends:  # complete without its break: the break is added, nothing else changed
            assert after == full[:cut] + b"\n"
        else:
            assert after == full[:cut]
        for r in rows[len(kept):]:
            out.append(r)
    assert [r["i"] for r in _rows_of(f)] == list(range(len(rows)))  # every row once, in order
    assert [Row(**r) for r in read_results(f)] == rows


_NOT_A_ROW = [b"[]", b"null", b"3", b'"row"', b"true", b"\xff\xfe{}", b'{"a": "\xe9"}', b"garbage"]


@settings(max_examples=80)
@given(bad=st.sampled_from(_NOT_A_ROW), before=st.integers(0, 3), after=st.integers(0, 2), ended=st.booleans())
@example(bad=b"[]", before=2, after=0, ended=False)  # a last line that is no row is no torn row either
@example(bad=b"\xff\xfe{}", before=1, after=0, ended=False)
def test_a_line_that_is_no_row_is_refused_with_file_and_line(tmp_path_factory, bad: bytes, before: int, after: int,
                                                             ended: bool) -> None:
    f = tmp_path_factory.mktemp("bad") / "rows.jsonl"
    good = b'{"i": 0}'
    body = b"\n".join([good] * before + [bad] + [good] * after)
    f.write_bytes(body + (b"\n" if ended else b""))
    Path(f"{f}{RECORD_SUFFIX}").write_text(json.dumps(IDENT.record()))
    with pytest.raises(DataError) as info:
        ResultsFile(f, IDENT).open()
    assert str(f) in str(info.value) and f"line {before + 1}:" in str(info.value)
    assert f.read_bytes() == body + (b"\n" if ended else b"")  # nothing repaired, nothing written


def test_a_row_cut_inside_a_character_is_torn_and_redone(tmp_path: Path, caplog: Any) -> None:
    f = tmp_path / "rows.jsonl"
    with ResultsFile(f, IDENT) as out:
        out.append(Row(i=0, text="café"))
        out.append(Row(i=1, text="déjà"))
    data = f.read_bytes()
    f.write_bytes(data[: data.index("déjà".encode()) + 2])  # between the two bytes of the e-acute
    with ResultsFile(f, IDENT) as out:
        assert [r["i"] for r in out.rows] == [0] and out.dropped == 2
        out.append(Row(i=1, text="déjà"))
    assert "line 2 is a row cut short" in caplog.text
    assert f.read_bytes() == data


# ---------------------------------------------------------------- locks and identities


def test_a_second_writer_is_refused_at_once_and_the_lock_is_released(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    with ResultsFile(f, IDENT) as first:
        first.append({"i": 0})
        with pytest.raises(ConfigError, match="another run holds it") as info:
            ResultsFile(f, IDENT).open()
        assert str(f) in str(info.value)
        first.append({"i": 1})
    with ResultsFile(f, IDENT) as again:
        assert [r["i"] for r in again.rows] == [0, 1]


def test_the_lock_holds_against_another_process(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    code = ("import sys\nfrom planner.results import ResultsFile\n"
            "try:\n    ResultsFile(sys.argv[1]).lock()\nexcept Exception as e:\n    print(e)\n")
    with ResultsFile(f, IDENT):
        out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, cwd=REPO,
                             env={"PYTHONPATH": str(REPO)}, check=True, timeout=60)
    assert "another run holds it" in out.stdout and str(f) in out.stdout


def test_another_identity_is_refused_naming_both_and_nothing_changes(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    with ResultsFile(f, IDENT) as out:
        out.append({"i": 0})
    before = (f.read_bytes(), Path(f"{f}{RECORD_SUFFIX}").read_bytes())
    for other, needle in ((RunIdentity({"results": "test rows", "seed": 1}, "f" * 16, of="question set"),
                           "seed 0 there, 1 here"),
                          (RunIdentity({"results": "test rows", "seed": 0}, "e" * 16, of="question set"),
                           "another question set")):
        with pytest.raises(ConfigError) as info:
            ResultsFile(f, other).open()
        msg = str(info.value)
        assert IDENT.config_hash in msg and other.config_hash in msg and needle in msg
        assert (f.read_bytes(), Path(f"{f}{RECORD_SUFFIX}").read_bytes()) == before


def test_rows_without_a_record_or_a_resume_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    f.write_text('{"i": 0}\n')
    with pytest.raises(ConfigError, match="no record of the run that wrote them"):
        ResultsFile(f, IDENT).open()
    Path(f"{f}{RECORD_SUFFIX}").write_text(json.dumps(IDENT.record()))
    with pytest.raises(ConfigError, match="already holds 1 rows of this run; refusing to overwrite them"):
        ResultsFile(f, IDENT, resume=False).open()
    assert f.read_text() == '{"i": 0}\n'
    f.write_text("")  # no rows: nothing to mix, the record is this run's
    other = RunIdentity({"results": "other"})
    with ResultsFile(f, other, resume=False):
        pass
    assert json.loads(Path(f"{f}{RECORD_SUFFIX}").read_text())["config_hash"] == other.config_hash


def test_a_results_dir_is_locked_and_refuses_another_identity(tmp_path: Path) -> None:
    d = tmp_path / "d"

    def survey(p: Path) -> tuple[bool, RunIdentity | None]:
        return (p / "out.bin").exists(), None

    with ResultsDir(d, IDENT, survey=survey) as first:
        assert not first.resumed
        (d / "out.bin").write_bytes(b"x")
        with pytest.raises(ConfigError, match="another run holds it"):
            ResultsDir(d, IDENT, survey=survey).__enter__()
    with ResultsDir(d, IDENT, survey=survey) as again:
        assert again.resumed
    with pytest.raises(ConfigError, match="holds the results of another run"):
        ResultsDir(d, RunIdentity({"results": "other"}), survey=survey).__enter__()
    (d / DIR_RECORD).unlink()
    with pytest.raises(ConfigError, match="no record of the run"):
        ResultsDir(d, IDENT, survey=survey).__enter__()
    assert (d / "out.bin").read_bytes() == b"x"


# ---------------------------------------------------------------- every command goes through the writer


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> Any:
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def question_dirs(kb: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two small builds of task_u: seed 0, and the same rebuilt with seed 1 (the same question ids)."""
    from planner.bench.datasets import write_sets

    dirs = []
    for seed in (0, 1):
        out = tmp_path_factory.mktemp(f"qs{seed}")
        write_sets(kb, out, seed, sets=["task_u"], progress=False, sizes={"task_u": 3})
        dirs.append(out)
    return dirs[0], dirs[1]


def _refused_as_locked(capsys: Any, argv: list[str], path: Path) -> None:
    assert main(argv) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert str(path) in line and "another run holds it" in line, line


def test_coat_eval_locks_its_out_and_refuses_a_rebuilt_question_set(question_dirs, tmp_path: Path, capsys) -> None:
    out = tmp_path / "eval.jsonl"
    argv = ["eval", "--set", "task_u", "--pipeline", "single", "--strategy", "knowledge", "--limit", "4",
            "--no-progress", "--out", str(out)]
    with ResultsFile(out).lock():
        _refused_as_locked(capsys, [*argv, "--questions", str(question_dirs[0])], out)
    assert main([*argv, "--questions", str(question_dirs[0])]) == 0
    before = out.read_bytes()
    assert len(_rows_of(out)) == 4
    capsys.readouterr()
    assert main([*argv, "--questions", str(question_dirs[1])]) == 1  # the set rebuilt with another seed
    line = _one_error_line(capsys.readouterr().err)
    assert "holds the results of another run" in line and "another question set" in line, line
    assert out.read_bytes() == before
    out.write_bytes(before.rstrip(b"\n"))  # the last row complete, its line break lost: kept, not done again
    assert main([*argv, "--questions", str(question_dirs[0]), "--limit", "6"]) == 0
    assert len(_rows_of(out)) == 6 and out.read_bytes().startswith(before)


def test_coat_ablate_locks_its_out_and_refuses_another_seed(question_dirs, tmp_path: Path, capsys, monkeypatch) -> None:
    from planner.bench import ablation

    monkeypatch.setattr(ablation, "plot_comparison", lambda *a, **k: False)  # no matplotlib: keep it fast
    out = tmp_path / "ablate"
    argv = ["ablate", "--strategy", "knowledge", "--limit", "2", "--sets", "task_u", "--questions",
            str(question_dirs[0]), "--no-progress", "--out", str(out)]
    with locked_dir(out):
        _refused_as_locked(capsys, argv, out)
    assert main(argv) == 0
    rows = out / "task_u-single.jsonl"
    before = rows.read_bytes()
    capsys.readouterr()
    assert main([*argv, "--seed", "1"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert str(rows) in line and "seed 0 there, 1 here" in line, line
    assert rows.read_bytes() == before


BENCH_TASKS = ["bench", "tasks", "--scenes", "embedded/kitchen-v0", "--no-progress"]


def test_coat_bench_tasks_locks_resumes_a_cut_run_and_refuses_another_config(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    rows = out / "episodes.jsonl"
    with ResultsFile(rows).lock():
        _refused_as_locked(capsys, [*BENCH_TASKS, "--episodes", "2", "--out", str(out)], rows)
    assert main([*BENCH_TASKS, "--episodes", "2", "--out", str(out)]) == 0
    full = rows.read_bytes()
    first, second = full.split(b"\n")[:2]
    rows.write_bytes(first)  # complete, without its line break: kept (it used to be glued to the next row)
    assert main([*BENCH_TASKS, "--episodes", "2", "--out", str(out), "--resume"]) == 0
    assert [r["key"] for r in _rows_of(rows)] == ["0:0", "0:1"] and rows.read_bytes().startswith(first + b"\n")
    rows.write_bytes(first + b"\n" + second[: len(second) // 2])  # torn: dropped and done again, no hand edit
    assert main([*BENCH_TASKS, "--episodes", "3", "--out", str(out), "--resume"]) == 0
    assert [r["key"] for r in _rows_of(rows)] == ["0:0", "0:1", "0:2"]
    before = rows.read_bytes()
    capsys.readouterr()
    assert main([*BENCH_TASKS, "--episodes", "3", "--out", str(out), "--resume", "--max-replans", "1"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert "holds the results of another run" in line and "max_replans 3 there, 1 here" in line, line
    assert rows.read_bytes() == before


def _requests(path: Path, n: int) -> Path:
    reqs = [{"id": "a", "request": "slice the apple", "scene": "embedded/kitchen-v0", "kind": "task",
             "roles": ["cutting"], "targets": ["Apple"], "acceptable": {"cutting": ["Knife", "ButterKnife"]}},
            {"id": "b", "request": "couper le gâteau", "scene": "embedded/kitchen-v0", "kind": "nonsense"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in reqs[:n]))
    return path


def _directives(path: Path, n: int) -> Path:
    ds = [{"id": "a1", "request": "Place a heated mug on the counter.", "scene": "embedded/FloorPlan1-v0",
           "style": "goal", "alfred": {"type": "pick_heat_then_place_in_recep", "object": "Mug",
                                       "receptacle": "CounterTop"}},
          {"id": "a2", "request": "Put a clean apple in the fridge.", "scene": "embedded/FloorPlan1-v0",
           "style": "goal", "alfred": {"type": "pick_clean_then_place_in_recep", "object": "Apple",
                                       "receptacle": "Fridge"}}]
    path.write_text("".join(json.dumps(d) + "\n" for d in ds[:n]), encoding="utf-8")
    return path


@pytest.mark.parametrize(("bench", "rows_name", "make"), [("understanding", "requests.jsonl", _requests),
                                                          ("directives", "directives.jsonl", _directives)])
def test_coat_bench_over_requests_locks_resumes_and_never_truncates(bench: str, rows_name: str, make: Any,
                                                                     tmp_path: Path, data_dir: Path, capsys) -> None:
    out = tmp_path / "run"
    rows = out / rows_name

    def argv(n: int, *more: str) -> list[str]:
        return ["bench", bench, "--requests", str(make(tmp_path / f"r{n}.jsonl", n)), "--out", str(out), "--json",
                "--no-progress", "--data-dir", str(data_dir), *more]

    with ResultsFile(rows).lock():
        _refused_as_locked(capsys, argv(1), rows)
    assert main(argv(1)) == 0
    (out / "summary.json").unlink()  # a run stopped before its summary: its rows are still there
    before = rows.read_bytes()
    capsys.readouterr()
    assert main(argv(1)) == 1  # not overwritten (it used to be truncated and written again)
    assert "pass --resume" in _one_error_line(capsys.readouterr().err) and rows.read_bytes() == before
    assert main(argv(1, "--resume")) == 0  # resumed: nothing left to do
    assert json.loads(capsys.readouterr().out)
    assert rows.read_bytes() == before and (out / "summary.json").exists()
    assert main(argv(2, "--resume")) == 1  # another request set is another run
    line = _one_error_line(capsys.readouterr().err)
    assert "holds the results of another run" in line and "another requests and data" in line, line
    assert rows.read_bytes() == before


def test_coat_sciworld_locks_its_out_and_refuses_rows_of_other_data(tmp_path: Path, data_dir: Path, capsys) -> None:
    from planner.agents.sciworld.bench import run_identity

    out = tmp_path / "sw"
    rows = out / "episodes.jsonl"
    argv = ["sciworld", "--tasks", "boil", "--variations", "0", "--policies", "default", "--no-progress",
            "--out", str(out), "--data-dir", str(data_dir)]
    with ResultsFile(rows).lock():  # refused before any JVM starts
        _refused_as_locked(capsys, argv, rows)
    ours = run_identity(data_dir)
    other = RunIdentity(ours.config, "0" * 16, of="data")
    assert ours.fingerprint == data_fingerprint(data_dir) != other.fingerprint
    with ResultsFile(rows, other) as f:
        f.append({"task": "boil", "variation": 0})
    before = rows.read_bytes()
    assert main(argv) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert other.describe() in line and ours.describe() in line and "another data" in line, line
    assert rows.read_bytes() == before


def test_an_object_that_is_no_row_of_the_command_names_its_line(tmp_path: Path, data_dir: Path, capsys) -> None:
    from planner.agents.sciworld import read_episodes

    f = tmp_path / "episodes.jsonl"
    f.write_text('\n{"task": "boil"}\n')
    with pytest.raises(DataError, match=r"episodes\.jsonl: at line 2: not an episode row"):
        read_episodes(f)
    out = tmp_path / "run"
    argv = ["bench", "directives", "--requests", str(_directives(tmp_path / "d.jsonl", 1)), "--out", str(out),
            "--no-progress", "--data-dir", str(data_dir), "--resume"]
    assert main(argv) == 0
    rows = out / "directives.jsonl"
    rows.write_text('{"id": "a1"}\n')  # beside the run's record, an object that is not one of its rows
    capsys.readouterr()
    assert main(argv) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert "directives.jsonl: at line 1: not a directive row" in line, line
    assert rows.read_text() == '{"id": "a1"}\n'


class _HashEncoder:
    model_id = "fake-hash-8"

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) for t in texts]
        return (np.stack(rows).astype(np.float32) / 255.0) - 0.5


TINY = ["--option", "hidden=8", "--option", "epochs1=2", "--option", "epochs2=2"]


def test_coat_train_locks_its_out_resumes_and_refuses_another_identity(tmp_path: Path, data_dir: Path, capsys,
                                                                       monkeypatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr("planner.learned.train.MiniLMVectors", _HashEncoder)
    out = tmp_path / "model"
    argv = ["train", "--out", str(out), "--no-progress", "--data-dir", str(data_dir), *TINY]
    with locked_dir(out):
        _refused_as_locked(capsys, argv, out)
    assert main(argv) == 0
    first = (out / "model.pt").read_bytes()
    assert main([*argv, "--folds", "2"]) == 0  # the same training, with folds added: the full model is kept
    assert (out / "model.pt").read_bytes() == first and (out / "fold-1.pt").exists()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert main([*argv, "--seed", "1"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert "holds the results of another run" in line and "seed 0 there, 1 here" in line, line
    assert main([*argv, "--folds", "3"]) == 1  # fold models of another count are not overwritten either
    assert "holds 2 fold models by combinations; this run makes 3" in _one_error_line(capsys.readouterr().err)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_coat_datasets_build_locks_its_out_and_refuses_another_seed(tmp_path: Path, data_dir: Path, capsys) -> None:
    out = tmp_path / "qs"
    argv = ["datasets", "build", "--out", str(out), "--set", "task_u", "--no-progress", "--data-dir", str(data_dir)]
    with locked_dir(out):
        _refused_as_locked(capsys, argv, out)
    assert main(argv) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(argv) == 0  # the same build again: every file kept as it is
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    capsys.readouterr()
    assert main([*argv, "--seed", "1"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert "holds the results of another run" in line and "seed 0 there, 1 here" in line, line
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_no_module_but_the_writer_appends_or_locks_results() -> None:
    # a second writer would bring back what the writer closes: an append without the lock, the identity, the repair
    import re

    pattern = re.compile(r"""\bopen\([^)\n]*["'][ar]?\+?a[b+]*["']|fcntl\.flock|O_APPEND""")
    found = [str(p.relative_to(REPO)) for pkg in ("planner", "perception", "skills", "scenes", "checker")
             for p in sorted((REPO / pkg).rglob("*.py")) if pattern.search(p.read_text(encoding="utf-8"))]
    assert found == ["planner/results.py"], found


def test_coat_sciworld_appends_one_line_per_invocation(tmp_path: Path, data_dir: Path) -> None:
    """The run's options and time go to ``runs.jsonl``, appended: a rerun (here: resuming, nothing left to play)
    adds its line and keeps the first run's."""
    pytest.importorskip("scienceworld")
    out = tmp_path / "sw"
    argv = ["sciworld", "--tasks", "boil", "--variations", "0", "--policies", "coat", "--no-progress",
            "--step-limit", "60", "--out", str(out), "--data-dir", str(data_dir)]
    assert main(argv) == 0
    assert main(argv + ["--limit", "1"]) == 0
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [r["limit"] for r in runs] == [None, 1] and all(r["ended"] for r in runs)
    assert not (out / "run.json").exists()


@pytest.mark.parametrize("argv", [["train", "--folds", "1"], ["datasets", "build", "--set", "task_u"]])
def test_train_and_datasets_are_refused_before_the_knowledge_base_loads(argv: list[str], tmp_path: Path,
                                                                        monkeypatch: Any, capsys: Any) -> None:
    import planner.knowledge

    def never(*_a: Any, **_k: Any) -> None:
        raise AssertionError("the knowledge base was loaded while another run held the output")

    monkeypatch.setattr(planner.knowledge, "load_knowledge", never)
    out = tmp_path / "out"
    with locked_dir(out):
        _refused_as_locked(capsys, [*argv, "--out", str(out), "--no-progress"], out)
