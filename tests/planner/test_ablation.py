"""``coat ablate``'s statistics and report: intervals, McNemar's exact test, the table, the JSON and the figure."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from planner import cli
from planner.bench import ablation
from planner.bench.stats import accuracy, bootstrap_mean, mcnemar_exact, paired
from planner.errors import ConfigError, DataError

pytest.importorskip("scipy")


def _hand_mcnemar(b: int, c: int) -> float:
    """Twice the smaller binomial tail at 1/2, at most 1: the exact test written out."""
    n, k = b + c, min(b, c)
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def test_mcnemar_exact_p_is_the_binomial_tail_computed_by_hand() -> None:
    assert mcnemar_exact(1, 6) == pytest.approx(16 / 128)  # 2 x (C(7,0) + C(7,1)) / 2^7
    assert mcnemar_exact(6, 1) == mcnemar_exact(1, 6)
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0  # no discordant pair: no evidence
    for b in range(12):
        for c in range(12):
            assert mcnemar_exact(b, c) == pytest.approx(_hand_mcnemar(b, c), rel=1e-9), (b, c)
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ConfigError, match="counts >= 0"):
            mcnemar_exact(bad, 2)  # type: ignore[arg-type]


def test_the_bootstrap_interval_holds_the_estimate_and_repeats_for_a_seed() -> None:
    xs = [1.0] * 12 + [0.0] * 8
    a = bootstrap_mean(xs, seed=0)
    assert a is not None and a.estimate == 60.0 and a.method == "BCa"
    assert a.low < a.estimate < a.high and 30 < a.low and a.high < 85
    assert bootstrap_mean(xs, seed=0) == a  # the same seed, the same interval to the last digit
    assert bootstrap_mean(list(reversed(xs)), seed=0) is not None
    wide, narrow = bootstrap_mean([1.0, 0.0] * 5, seed=0), bootstrap_mean(xs * 10, seed=0)
    assert wide is not None and narrow is not None and narrow.high - narrow.low < wide.high - wide.low
    # every value equal: the bootstrap distribution is one point, and so is the interval
    assert bootstrap_mean([1.0] * 7, seed=0).method == "point"  # type: ignore[union-attr]
    assert bootstrap_mean([], seed=0) is None
    with pytest.raises(ConfigError, match="finite"):
        bootstrap_mean([1.0, float("nan")], seed=0)
    with pytest.raises(ConfigError, match="confidence"):
        bootstrap_mean(xs, seed=0, confidence=95)


def test_accuracy_counts_and_interval() -> None:
    a = accuracy([True, True, False, True], seed=3)
    assert (a.n, a.correct) == (4, 3) and a.interval is not None and a.interval.estimate == 75.0
    assert accuracy([], seed=0).interval is None


def _rows(prefix: str, correct: list[bool]) -> list[dict[str, Any]]:
    return [{"question_id": f"{prefix}{i}", "correct": ok, "variation": 1, "n_options": 2, "bad": False,
             "unparsed": False, "latency": 0.0} for i, ok in enumerate(correct)]


def test_paired_counts_the_two_by_two_table_and_the_difference() -> None:
    single = _rows("q", [True, True, False, False, True, False, False, True])
    two = _rows("q", [True, False, True, True, True, True, False, True])
    p = paired(single, two, seed=0)
    assert (p.n, p.both_right, p.only_a, p.only_b, p.both_wrong) == (8, 3, 1, 3, 1)
    assert p.difference is not None and p.difference.estimate == pytest.approx(100 * (3 - 1) / 8)
    assert p.difference.low <= p.difference.estimate <= p.difference.high
    assert p.mcnemar_p == pytest.approx(_hand_mcnemar(3, 1)) and p.unpaired == 0
    assert (p.a.correct, p.b.correct) == (4, 6)
    # questions only one pipeline answered are left out and counted
    q = paired(single + _rows("x", [True]), two, seed=0)
    assert q.n == 8 and q.unpaired == 1 and q.difference == p.difference


def test_no_paired_question_is_an_empty_result_and_bad_rows_are_named() -> None:
    p = paired(_rows("a", [True, False]), _rows("b", [True]), seed=0)
    assert p.n == 0 and p.unpaired == 3 and p.difference is None and p.mcnemar_p is None
    assert p.a.interval is None and p.b.interval is None
    with pytest.raises(DataError, match="answered twice") as e:
        paired(_rows("q", [True]) * 2, _rows("q", [True]), seed=0, sources=("runs/x-single.jsonl", "y"))
    assert "runs/x-single.jsonl" in str(e.value)
    with pytest.raises(DataError, match="question_id"):
        paired([{"question_id": "q0", "correct": "yes"}], _rows("q", [True]), seed=0)


def test_a_set_without_pairs_shows_dashes_in_the_table() -> None:
    results = {"task2": {"single": _rows("a", [True, False]), "two-stage": _rows("b", [True, True])},
               "task1": {"single": _rows("c", [True, False, True]), "two-stage": _rows("c", [True, True, False])}}
    summary = ablation.compare(results, seed=0)
    assert summary["sets"]["task2"]["paired"]["n"] == 0
    assert summary["sets"]["task2"]["paired"]["difference"] is None
    assert summary["sets"]["task1"]["paired"]["n"] == 3 and summary["overall"]["paired"]["n"] == 3
    table = ablation.comparison_table(summary)
    assert "| task2 | 0 | 50.0 [" in table and "| - | - |" in table
    assert "4 questions answered by one pipeline only" in table


def test_coat_ablate_reports_intervals_the_paired_test_and_one_figure(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "ablate"
    argv = ["ablate", "--llm", "fake", "--signals", "utility", "--limit", "6", "--sets", "task2", "task_u",
            "--no-progress", "--out", str(out)]
    assert cli.main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)  # --json: one JSON object on stdout, the table on stderr
    assert "| overall | 12 |" in captured.err and "McNemar exact p" in captured.err
    assert summary == json.loads((out / "summary.json").read_text())
    assert set(summary["sets"]) == {"task2", "task_u"} and summary["bootstrap"]["seed"] == 0
    for entry in (*summary["sets"].values(), summary["overall"]):
        pr = entry["paired"]
        assert pr["both_right"] + pr["only_single"] + pr["only_two_stage"] + pr["both_wrong"] == pr["n"]
        assert pr["difference"]["low"] <= pr["difference"]["estimate"] <= pr["difference"]["high"]
        assert 0 <= pr["mcnemar_p"] <= 1
        for p in ("single", "two-stage"):
            acc = entry["pipelines"][p]["accuracy"]
            assert acc["low"] <= acc["estimate"] <= acc["high"]
    assert summary["overall"]["paired"]["n"] == 12
    report = (out / "report.md").read_text()
    assert "## Paired comparison" in report and "two-stage - single pp [95 % CI]" in report
    pytest.importorskip("matplotlib")
    assert (out / ablation.PLOT_FILE).stat().st_size > 1000 and ablation.PLOT_FILE in report
    assert not list(out.glob("task*.png"))  # one figure, not a bar per variation
    # a rerun resumes every row and gives the same numbers
    assert cli.main(argv) == 0
    assert json.loads((out / "summary.json").read_text()) == summary
    assert "| overall | 12 |" in capsys.readouterr().out


def test_coat_ablate_without_scipy_says_the_install_line_first(tmp_path: Path, capsys: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import planner._optional as optional

    real = optional.is_available
    monkeypatch.setattr(optional, "is_available", lambda m: m != "scipy" and real(m))
    out = tmp_path / "ablate"
    assert cli.main(["ablate", "--llm", "fake", "--limit", "2", "--sets", "task2", "--no-progress",
                     "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "'scipy' is required" in err and "pip install 'coat-planner[stats]'" in err and len(err.splitlines()) == 1
    assert not out.exists()  # said before anything was written or loaded
