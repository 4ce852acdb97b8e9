"""Unusable model answers at the LLM boundary: huge or deeply nested replies, and option scores that are NaN,
infinite, of the wrong count or not numbers. Each is an unparsed answer, counted, never a guess."""

from __future__ import annotations

import time
from typing import Any

import pytest

from planner.errors import SelectionError
from planner.llm import FakeLLM, HumanMessage, parse_reply
from planner.llm.parsing import MAX_NESTING, MAX_REPLY_CHARS
from planner.object_selector import ObjectSelector
from planner.schemas import ObjectChoice, Option, PhysicalState, Question
from planner.state_selector import StateSelector

CTX = {"candidate_ids": ["knife_1", "pillow_2"]}
GOOD = '{"object_id": "knife_1", "rationale": "sharp"}'


@pytest.mark.parametrize(
    "reply",
    [
        "{" * 2_000_000,  # 2 MB of braces: hours with the old scan
        "[" * 100_000,  # past Python's recursion limit
        '{"object_id": ' * 5_000 + '"knife_1"' + "}" * 5_000,
        "x" * (MAX_REPLY_CHARS + 1),
        "[" * (MAX_NESTING + 1) + GOOD,
    ],
    ids=["2MB-braces", "deep-list", "deep-object", "too-long", "too-deep"],
)
def test_huge_or_deep_replies_are_reasked_then_unparsed_quickly(reply: str) -> None:
    llm = FakeLLM([reply, reply], max_retries=1)
    t0 = time.perf_counter()
    with pytest.raises(SelectionError) as ei:
        llm.structured([HumanMessage("pick")], ObjectChoice, context=CTX)
    assert time.perf_counter() - t0 < 2.0
    assert ei.value.attempts == 2 and llm.stats.retries == 1
    assert any("characters long" in e or "levels deep" in e or "JSON" in e for e in ei.value.errors)


def test_the_json_scan_is_linear_in_the_reply() -> None:
    # the old scan decoded the rest of the reply from every brace; now each balanced span is decoded once
    group = "{" * (MAX_NESTING - 1) + "}" * (MAX_NESTING - 1) + " "
    worst = group * (MAX_REPLY_CHARS // len(group))
    t0 = time.perf_counter()
    with pytest.raises(ValueError):
        parse_reply(worst, ObjectChoice, CTX)
    assert time.perf_counter() - t0 < 1.0
    # and a good answer after a lot of brace noise is still found
    noisy = "{x} {y: [z]} " * 3000 + GOOD
    assert parse_reply(noisy, ObjectChoice, CTX).object_id == "knife_1"


def test_prose_with_braces_and_quotes_still_finds_the_answer() -> None:
    assert parse_reply('Use {it} as "the one: ' + GOOD, ObjectChoice, CTX).object_id == "knife_1"
    assert parse_reply('{ outer, unclosed ' + GOOD, ObjectChoice, CTX).object_id == "knife_1"
    assert parse_reply('{"object_id": "knife_1", "rationale": "a \\"}\\" b"}', ObjectChoice, CTX).rationale == 'a "}" b'


# ---------------------------------------------------------------- scores


BAD_SCORES = [
    [float("nan"), 1.0],
    [float("inf"), 1.0],
    [1.0, float("-inf")],
    [1.0],
    [1.0, 2.0, 3.0],
    [],
    ["high", 1.0],
    [None, 1.0],
    [True, 1.0],
]


@pytest.mark.parametrize("scores", BAD_SCORES, ids=repr)
def test_unusable_scores_are_a_selection_error_at_the_backend(scores: list[Any]) -> None:
    llm = FakeLLM(scores=[scores])
    with pytest.raises(SelectionError, match="unusable scores"):
        llm.score("p", ["a", "b"])
    assert llm.stats.calls == 1


def test_numpy_and_int_scores_are_fine() -> None:
    import numpy as np

    assert FakeLLM(scores=[[np.float32(1.5), 2]]).score("p", ["a", "b"]) == [1.5, 2.0]


def _state() -> PhysicalState:
    return PhysicalState(mass="light", material="Metal", temperature="RoomTemp", already_in_use="free",
                         condition="clean")


@pytest.mark.parametrize("scores", BAD_SCORES, ids=repr)
def test_stage2_counts_unusable_scores_as_unparsed(scores: list[Any]) -> None:
    sel = StateSelector("llm", FakeLLM(scores=[scores]))
    r = sel("cut cake", "cutting", [("Knife", _state()), ("Fork", _state())])
    assert r.chosen is None and r.unparsed and "unusable scores" in r.reason


@pytest.mark.parametrize("bad", ["nan", "count", "string"])
@pytest.mark.parametrize("rule", ["margin", "yesno", "ensemble"])
def test_stage1_counts_unusable_scores_as_unparsed(rule: str, bad: str) -> None:
    n = 1 if rule == "ensemble" else 2  # the utility signal scores one phrase per object
    scores = {"nan": [float("nan")] * n, "count": [1.0] * (n + 1), "string": ["x"] * n}[bad]
    llm = FakeLLM(scores=[scores] * 10)
    kw: dict[str, Any] = {"signals": ("utility",), "scale": "question"} if rule == "ensemble" else {}
    sel = ObjectSelector("llm", llm, keep_rule=rule, **kw)("cut cake", "cutting", ["Knife", "Pillow"])  # type: ignore[arg-type]
    assert sel.unparsed and sel.kept == () and set(sel.ranking) == {"Knife", "Pillow"}


def test_a_two_stage_eval_counts_stage1_unparsed_in_the_summary() -> None:
    from planner.bench.evaluate import format_summary, run_eval, summarize
    from planner.pipeline import make_pipeline

    s = _state()
    qs = [Question(id=f"q{i}", set="task2", variation=1, utility="cutting", task="serving cake", text="?",
                   answer="A", options=(Option(letter="A", object="Knife", state=s, pool="moderate"),
                                        Option(letter="B", object="Fork", state=s, pool="bad")))
          for i in range(4)]
    # stage 1 never parses (generating model); stage 2 answers "A" every time
    replies = ["nonsense", "nonsense", "nonsense", '{"letter": "A"}'] * 4
    pipe = make_pipeline("two-stage", "llm", FakeLLM(replies))
    rows = run_eval(qs, pipe, run={"set": "task2"}, progress=False)
    assert all(r["stage1_unparsed"] and not r["unparsed"] for r in rows)
    o = summarize(rows)["overall"]
    assert o["stage1_unparsed_rate"] == 100.0 and o["unparsed_rate"] == 0.0
    assert "s1 unparsed %" in format_summary(summarize(rows))
