"""Evaluation: the knowledge strategy's correctness check, sampling, rows, resume, summary and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner import cli
from planner.bench.evaluate import (
    format_summary,
    question_set_fingerprint,
    read_rows,
    run_eval,
    sample_questions,
    summarize,
)
from planner.errors import ConfigError
from planner.llm import FakeLLM, make_llm
from planner.pipeline import make_pipeline
from planner.schemas import QUESTION_SETS, Option, PhysicalState, Question


@pytest.fixture(scope="module")
def kb(data_dir: Any) -> Any:
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def small_sets(kb: Any) -> dict[str, dict[int, list[Question]]]:
    from planner.bench.datasets import build_sets

    out: dict[str, dict[int, list[Question]]] = {}
    sizes = {"task_u": 12, "task0": 60, "task1": 60, "task2": 60, "full_ideal": 60, "full_moderate": 60}
    for (s, v), qs in build_sets(kb, 0, QUESTION_SETS, progress=False, sizes=sizes).items():
        out.setdefault(s, {})[v] = qs
    return out


@pytest.mark.parametrize("set_name", QUESTION_SETS)
@pytest.mark.parametrize("pipeline", ["two-stage", "single"])
def test_knowledge_strategy_is_exact_on_annotated_combinations(
    kb: Any, small_sets: dict[str, dict[int, list[Question]]], set_name: str, pipeline: str
) -> None:
    # A correctness check of the pipelines and the cost model, not a result: every variation is covered.
    qs = sample_questions(small_sets[set_name], 400, seed=1)
    assert len({q.variation for q in qs}) == len(small_sets[set_name])
    pipe = make_pipeline(pipeline, "knowledge", None, kb)
    wrong = []
    for q in qs:
        d = pipe.decide(q)
        if d.chosen != q.answer:
            wrong.append((q.id, d.chosen, q.answer, d.reason))
    assert not wrong, f"{len(wrong)}/{len(qs)} wrong, e.g. {wrong[:3]}"


def _q(i: int, v: int) -> Question:
    s = PhysicalState(mass="light", material="Metal", temperature="RoomTemp", already_in_use="free", condition="clean")
    return Question(
        id=f"q{v}-{i}", set="task2", variation=v, utility="cutting", task="serving cake", text="?", answer="A",
        options=(Option(letter="A", object="Knife", state=s, pool="moderate"),
                 Option(letter="B", object="Fork", state=s, pool="bad")),
    )


def test_sample_is_stratified_deterministic_and_interleaved() -> None:
    groups = {1: [_q(i, 1) for i in range(50)], 2: [_q(i, 2) for i in range(3)], 3: [_q(i, 3) for i in range(50)]}
    a = sample_questions(groups, 20, seed=0)
    assert a == sample_questions(groups, 20, seed=0) and a != sample_questions(groups, 20, seed=1)
    counts = {v: sum(q.variation == v for q in a) for v in groups}
    assert counts == {1: 9, 2: 3, 3: 8}  # variation 2 is short: its unused share goes to the others
    assert [q.variation for q in a[:3]] == [1, 2, 3]  # round-robin: a stopped run is still stratified
    assert len(sample_questions(groups, 0, seed=0)) == 103 and len(sample_questions(groups, 500, seed=0)) == 103
    with pytest.raises(ConfigError):
        sample_questions(groups, -1)


RUN = {"set": "task2", "pipeline": "single", "strategy": "llm", "llm": "fake", "seed": 0}


def test_rows_resume_and_refuse_other_runs(tmp_path: Path) -> None:
    llm = make_llm("fake")
    pipe = make_pipeline("single", "llm", llm)
    qs = [_q(i, 1) for i in range(6)]
    out = tmp_path / "r.jsonl"
    whole = question_set_fingerprint(qs)  # the set the samples are drawn from: a larger sample resumes a smaller one
    rows = run_eval(qs[:4], pipe, run=RUN, out=out, progress=False, question_set=whole)
    assert len(read_rows(out)) == 4 and llm.stats.calls == 4
    r = rows[0]
    for key in ("question_id", "set", "variation", "n_options", "chosen", "correct", "bad", "unparsed", "model_id",
                "prompt_hash", "seed", "calls", "prompt_tokens", "completion_tokens", "latency"):
        assert key in r, key
    assert r["model_id"] == "fake:deterministic" and r["calls"] == 1 and r["seed"] == 0
    # a torn last line (killed while writing) is redone, the rest is reused
    out.write_text(out.read_text()[:-20])
    rows = run_eval(qs, pipe, run=RUN, out=out, progress=False, question_set=whole)
    assert len(rows) == 6 and llm.stats.calls == 4 + 3 and len(read_rows(out)) == 6
    with pytest.raises(ConfigError, match='another run.*pipeline "single" there, "two-stage" here'):
        run_eval(qs, pipe, run={**RUN, "pipeline": "two-stage"}, out=out, progress=False, question_set=whole)
    # rows of another stage-1 rule are not mixed in either (the rows record it)
    assert read_rows(out)[0]["stage1"] is None
    with pytest.raises(ConfigError, match='stage1 null there, "ensemble'):
        run_eval(qs, pipe, run={**RUN, "stage1": "ensemble utility+embedding reference-scaled margin 2"}, out=out,
                 progress=False, question_set=whole)
    # nor rows of another question set (a set rebuilt with another seed reuses the ids)
    rebuilt = [q.model_copy(update={"answer": "B"}) for q in qs]
    with pytest.raises(ConfigError, match="another question set"):
        run_eval(rebuilt, pipe, run=RUN, out=out, progress=False, question_set=question_set_fingerprint(rebuilt))


def test_unparsed_answers_are_counted_not_guessed() -> None:
    qs = [_q(i, 1) for i in range(3)]
    pipe = make_pipeline("single", "llm", FakeLLM(["no idea"] * 9))
    rows = run_eval(qs, pipe, run=RUN, progress=False)
    assert all(r["unparsed"] and r["chosen"] is None and not r["correct"] and not r["bad"] for r in rows)
    o = summarize(rows)["overall"]
    assert o["unparsed_rate"] == 100.0 and o["accuracy"] == 0.0 and o["chance"] == 50.0 and o["bad_chance"] == 50.0


def test_summary_has_chance_per_variation_and_option_count() -> None:
    rows = [
        {"variation": 1, "n_options": 2, "correct": True, "bad": False, "unparsed": False, "n_bad_options": 1,
         "calls": 1, "latency": 0.2, "prompt_tokens": 10, "completion_tokens": 0},
        {"variation": 2, "n_options": 4, "correct": False, "bad": True, "unparsed": False, "n_bad_options": 2,
         "calls": 1, "latency": 0.4, "prompt_tokens": 10, "completion_tokens": 0},
    ]
    s = summarize(rows)
    assert s["overall"]["accuracy"] == 50.0 and s["overall"]["chance"] == 37.5
    assert s["by_variation"][2]["bad_rate"] == 100.0 and s["by_variation"][2]["bad_chance"] == 50.0
    assert s["by_options"][4]["chance"] == 25.0
    assert s["overall"]["latency_p50"] == pytest.approx(0.3)
    text = format_summary(s, {1: "2 opts", 2: "4 opts"})
    assert "chance %" in text and "1 (2 opts)" in text


@pytest.fixture(scope="module")
def questions_dir(kb: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from planner.bench.datasets import write_sets

    out = tmp_path_factory.mktemp("qs")
    write_sets(kb, out, 0, sets=["task_u", "task2"], progress=False, sizes={"task_u": 6, "task2": 20})
    return out


def test_eval_cli_end_to_end_with_fake_model(questions_dir: Path, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "eval.jsonl"
    argv = ["eval", "--set", "task2", "--pipeline", "two-stage", "--strategy", "llm", "--llm", "fake", "--limit", "7",
            "--seed", "0", "--questions", str(questions_dir), "--out", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "acc %" in text and "chance %" in text and "p95 s" in text and "variation" in text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 7 and len({r["variation"] for r in rows}) == 7
    assert all(r["pipeline"] == "two-stage" and r["model_id"] == "fake:deterministic" for r in rows)
    assert cli.main(argv) == 0  # resumes: nothing new to answer
    assert len(out.read_text().splitlines()) == 7
    # knowledge strategy needs no model
    assert cli.main(["eval", "--set", "task_u", "--pipeline", "single", "--strategy", "knowledge", "--limit", "8",
                     "--questions", str(questions_dir), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "| all | 8 | 100.0 |" in text and "PaLM" in text


@pytest.mark.slow  # runs an ablation (two pipelines, report and figure) with MiniLM
def test_ablate_cli_writes_report_and_plots(questions_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ablate"
    assert cli.main(["ablate", "--llm", "fake", "--limit", "6", "--sets", "task_u", "task2", "--out", str(out),
                     "--questions", str(questions_dir), "--no-progress"]) == 0
    report = (out / "report.md").read_text()
    assert "| task2 | single |" in report and "| task2 | two-stage |" in report and "chance %" in report
    for f in ("task_u-single.jsonl", "task_u-two-stage.jsonl", "task2-single.jsonl", "task2-two-stage.jsonl"):
        assert len((out / f).read_text().splitlines()) == 6
    pytest.importorskip("matplotlib")
    assert (out / "comparison.png").stat().st_size > 1000 and "comparison.png" in report
    # --object-prior adds a third pipeline (the fake model scores deterministically); eval refuses it for two-stage
    assert cli.main(["ablate", "--llm", "fake", "--limit", "6", "--sets", "task2", "--out", str(tmp_path / "p"),
                     "--questions", str(questions_dir), "--no-progress", "--object-prior", "1"]) == 0
    report = (tmp_path / "p" / "report.md").read_text()
    assert "| task2 | single+prior |" in report and "--object-prior 1" in report
    rows = read_rows(tmp_path / "p" / "task2-single+prior.jsonl")
    assert len(rows) == 6 and rows[0]["pipeline"] == "single+prior" and rows[0]["stage1"].startswith("prior ensemble")
    assert cli.main(["eval", "--set", "task2", "--pipeline", "two-stage", "--llm", "fake", "--limit", "6",
                     "--questions", str(questions_dir), "--no-progress", "--object-prior", "1"]) == 1
