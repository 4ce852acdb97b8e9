"""Stage 1, stage 2, the two-stage pipeline and the single-prompt baseline, offline.

Model behaviour comes from scripted fakes (``planner.llm.FakeLLM`` for generated answers, a small scoring
fake below); the knowledge strategy uses the real COAT annotations.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from planner.baseline import SinglePromptBaseline
from planner.errors import ConfigError
from planner.llm import FakeLLM, LLMStats
from planner.object_selector import ObjectSelector, ObjectSubsetAnswer, zscores
from planner.pipeline import make_pipeline
from planner.schemas import Decision, ObjectConfig, Option, PhysicalState, Question
from planner.selection import PromptLog, labels_for
from planner.state_selector import LetterAnswer, StateSelector
from planner.two_stage import TwoStagePipeline


class ScoringFake:
    """A scoring backend whose calibrated score of an option is ``fn(prompt, option)``."""

    model_id = "fake:scoring"

    def __init__(self, fn: Callable[[str, str], float]) -> None:
        self.fn = fn
        self.stats = LLMStats()
        self.requests: list[tuple[str, list[str], str | None]] = []

    @property
    def supports_scoring(self) -> bool:
        return True

    def reset_stats(self) -> None:
        self.stats = LLMStats()

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        self.stats.calls += 1
        self.requests.append((prompt, list(options), neutral_prompt))
        return [self.fn(prompt, o) for o in options]

    def structured(self, messages: Any, schema: Any, *, context: Mapping[str, Any] | None = None) -> Any:
        raise AssertionError("a scoring backend must not be asked to generate")


class FakeEncoder:
    """A sentence encoder whose similarity of a text is looked up by the object words in it."""

    model_id = "fake:encoder"

    def __init__(self, table: Mapping[str, float]) -> None:
        self.table = table
        self.queries: list[tuple[str, list[str]]] = []

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        self.queries.append((query, list(texts)))
        return [by_words(self.table, 0.0)(query, t) for t in texts]


def by_words(table: Mapping[str, float], default: float = -5.0) -> Callable[[str, str], float]:
    """Score an option by the longest table key it contains (object names, or description fragments)."""

    def fn(prompt: str, option: str) -> float:
        for k in sorted(table, key=len, reverse=True):
            if k in option:
                return table[k]
        return default

    return fn


def st(**kw: str) -> PhysicalState:
    base = dict(mass="light", material="Metal", temperature="RoomTemp", already_in_use="free", condition="clean")
    base.update(kw)
    return PhysicalState(**base)


def question(options: list[tuple[str, PhysicalState | None, str]], answer: str, *, task: str | None = "cut cake",
             utility: str = "cutting", set_name: str = "full_moderate") -> Question:
    return Question(
        id="q", set=set_name, variation=1, utility=utility, task=task, text="which?", answer=answer,
        options=tuple(Option(letter="ABCDE"[i], object=o, state=s, pool=p) for i, (o, s, p) in enumerate(options)),
    )


Q = question(
    [
        ("Knife", st(already_in_use="reversible-using"), "moderate"),
        ("ButterKnife", st(condition="dirty"), "moderate"),
        ("Pillow", st(material="Fabric"), "random"),
        ("Knife", st(already_in_use="irreversible-using", condition="broken"), "bad"),
    ],
    answer="B",
)


@pytest.fixture(scope="module")
def kb(data_dir: Any) -> Any:
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


# ---------------------------------------------------------------- stage 1


def test_stage1_knowledge_keeps_every_context_object(kb: Any) -> None:
    ctx = kb.context_objects("cutting", "serving cake")
    assert len(ctx) == 3
    others = [o for o in kb.utility_objects("cutting") if o not in ctx][:2] + ["Laptop"]
    sel = ObjectSelector("knowledge", kb=kb)("serving cake", "cutting", [*others, *ctx])
    assert set(sel.kept) == set(ctx)
    assert sel.ranking[: len(ctx)] == sel.kept and set(sel.ranking) == set(others) | set(ctx)
    assert sel.method == "knowledge" and not sel.unparsed


def test_stage1_knowledge_without_task_uses_utility_objects(kb: Any) -> None:
    objs = list(kb.utility_objects("cutting"))
    sel = ObjectSelector("knowledge", kb=kb)(None, "cutting", [*objs, "Laptop"])
    assert set(sel.kept) == set(objs)


def test_stage1_margin_rule_keeps_all_close_objects() -> None:
    llm = ScoringFake(by_words({"knife": 2.0, "butter knife": 1.4, "pillow": -3.0}))
    sel = ObjectSelector("llm", llm, keep_rule="margin", margin=1.0)(
        "cut cake", "cutting", ["Pillow", "ButterKnife", "Knife"]
    )
    assert sel.kept == ("Knife", "ButterKnife")
    assert sel.ranking == ("Knife", "ButterKnife", "Pillow")
    assert sel.scores == {"Pillow": -3.0, "ButterKnife": 1.4, "Knife": 2.0}
    prompt, options, neutral = llm.requests[0]
    assert options == ["pillow", "butter knife", "knife"] and neutral == "Which object would you use?"
    assert "cut cake" in prompt and "pillow" not in prompt  # scored prompts never list the candidates
    # a zero margin keeps the best only
    zero = ObjectSelector("llm", llm, keep_rule="margin", margin=0.0)
    assert zero("cut cake", "cutting", ["Pillow", "Knife"]).kept == ("Knife",)


def test_stage1_ensemble_sums_zscored_signals(kb: Any) -> None:
    # utility signal: the model's log-likelihood of the need phrase after "A <object> is"
    def fn(prompt: str, option: str) -> float:
        assert option == "an object that can be used to cut something"
        return {"A pillow is": -9.0, "A butter knife is": -4.0, "A knife is": -3.0}[prompt]

    llm = ScoringFake(fn)
    enc = FakeEncoder({"knife": 0.6, "butter knife": 0.2, "pillow": 0.1})
    sel = ObjectSelector("llm", llm, kb, encoder=enc, margin=1.0, scale="question")(
        "cut cake", "cutting", ["Pillow", "ButterKnife", "Knife"], trace=(tr := PromptLog())
    )
    names = ["Pillow", "ButterKnife", "Knife"]
    want = [a + b for a, b in zip(zscores([-9.0, -4.0, -3.0]), zscores([0.1, 0.2, 0.6]), strict=True)]
    assert sel.scores == pytest.approx(dict(zip(names, want, strict=True)))
    assert sel.ranking == ("Knife", "ButterKnife", "Pillow") and sel.method == "llm-ensemble"
    # knife 2.35, butter knife 0.01, pillow -2.36: only the knife is within 1 of the best
    assert sel.kept == ("Knife",)
    assert [r[0] for r in llm.requests] == ["A pillow is", "A butter knife is", "A knife is"]
    assert {r[2] for r in llm.requests} == {"It is"}
    assert enc.queries == [("cut cake: an object that can be used to cut something",
                            ["a pillow", "a butter knife", "a knife"])]
    assert "fake:encoder" in tr.prompts[-1]  # the encoder is part of the decision's prompt hash
    # a margin of 2.5 also keeps the butter knife
    sel = ObjectSelector("llm", llm, kb, encoder=enc, margin=2.5, scale="question")("cut cake", "cutting", names)
    assert sel.kept == ("Knife", "ButterKnife")


UTILITY_LL = {"knife": -3.0, "butter knife": -3.2, "pillow": -9.0, "laptop": -7.0}


def test_stage1_ensemble_reference_scale() -> None:
    # each signal is divided by its SD over the reference objects (computed once per model and question)
    llm = ScoringFake(lambda prompt, option: by_words(UTILITY_LL)("", prompt))  # by the object in "A knife is"
    enc = FakeEncoder({"knife": 0.50, "butter knife": 0.45, "pillow": 0.10, "laptop": 0.15})
    ref = ["Knife", "ButterKnife", "Pillow", "Laptop"]
    sel = ObjectSelector("llm", llm, encoder=enc, reference_objects=ref)
    got = sel("cut cake", "cutting", ["Knife", "ButterKnife"])
    sd_u, sd_e = statistics.pstdev(UTILITY_LL.values()), statistics.pstdev([0.5, 0.45, 0.1, 0.15])
    assert got.scores == pytest.approx({"Knife": -3.0 / sd_u + 0.5 / sd_e, "ButterKnife": -3.2 / sd_u + 0.45 / sd_e})
    # two almost equally suitable objects stay together (z-scoring within the question would split them)
    assert set(got.kept) == {"Knife", "ButterKnife"} and got.method == "llm-ensemble"
    assert ObjectSelector("llm", llm, encoder=enc, scale="question", margin=2.0)(
        "cut cake", "cutting", ["Knife", "ButterKnife"]).kept == ("Knife",)
    # an unsuitable object is dropped; the spreads are not recomputed for the same question
    calls = llm.stats.calls
    assert sel.calibrate("cut cake", "cutting") == pytest.approx({"utility": sd_u, "embedding": sd_e})
    assert llm.stats.calls == calls
    assert ObjectSelector("llm", llm, keep_rule="margin").calibrate("cut cake", "cutting") == {}
    got = sel("cut cake", "cutting", ["Pillow", "Knife"])
    assert got.kept == ("Knife",) and llm.stats.calls == calls + 2
    # nor the utility signal's for another task of the same utility (it does not read the task)
    sel("serving cake", "cutting", ["Pillow", "Knife"])
    assert llm.stats.calls == calls + 4
    assert sel.rule == "ensemble utility+embedding reference-scaled margin 2"


def test_stage1_ensemble_reference_needs_a_population() -> None:
    with pytest.raises(ConfigError, match="needs a reference population"):
        ObjectSelector("llm", ScoringFake(lambda p, o: 0.0))
    assert ObjectSelector("llm", ScoringFake(lambda p, o: 0.0), scale="question").scale == "question"
    with pytest.raises(ConfigError, match="valid: reference, question"):
        ObjectSelector("llm", ScoringFake(lambda p, o: 0.0), scale="global")  # type: ignore[arg-type]


def test_stage1_ensemble_settings() -> None:
    llm = ScoringFake(lambda p, o: 0.0)
    enc = FakeEncoder({})
    sel = ObjectSelector("llm", llm, encoder=enc, scale="question")
    assert sel.rule == "ensemble utility+embedding question-scaled margin 2"
    assert ObjectSelector("llm", llm, keep_rule="margin").rule == "margin 2"
    assert ObjectSelector("llm", llm, signals=["cloze", "yesno"], margin=1, scale="question").rule == (
        "ensemble cloze+yesno question-scaled margin 1")
    # a single candidate needs no model call; all-equal signals keep everything
    assert sel("cut cake", "cutting", ["Knife"]).kept == ("Knife",) and llm.stats.calls == 0
    assert set(sel("cut cake", "cutting", ["Knife", "Pillow"]).kept) == {"Knife", "Pillow"}
    assert zscores([1.0, 1.0]) == [0.0, 0.0]
    for bad in (["smell"], [], ["utility", "utility"]):
        with pytest.raises(ConfigError, match="signals must be distinct names from utility, embedding, cloze, yesno"):
            ObjectSelector("llm", llm, signals=bad, scale="question")
    with pytest.raises(ConfigError, match="valid: ensemble, margin, yesno"):
        ObjectSelector("llm", llm, keep_rule="vote")  # type: ignore[arg-type]


def test_stage1_yesno_rule_judges_each_object() -> None:
    def fn(prompt: str, option: str) -> float:
        suitable = "knife" in prompt.split("Could ")[-1]
        return (1.0 if option == "Yes" else 0.0) if suitable else (0.0 if option == "Yes" else 1.0)

    llm = ScoringFake(fn)
    sel = ObjectSelector("llm", llm, keep_rule="yesno")("cut cake", "cutting", ["Pillow", "Knife", "ButterKnife"])
    assert set(sel.kept) == {"Knife", "ButterKnife"}
    assert llm.stats.calls == 3 and sel.method == "llm-yesno"


def test_stage1_generated_answer_parsed_and_unparsed() -> None:
    llm = FakeLLM(['{"objects": ["knife", "Butter Knife"], "reason": "both cut"}'])
    sel = ObjectSelector("llm", llm)("cut cake", "cutting", ["Pillow", "ButterKnife", "Knife"])
    assert sel.kept == ("Knife", "ButterKnife") and sel.reason == "both cut" and sel.method == "llm-generated"
    bad = FakeLLM(['{"objects": ["sword"]}'] * 3, max_retries=2)
    sel = ObjectSelector("llm", bad)("cut cake", "cutting", ["Pillow", "Knife"])
    assert sel.unparsed and sel.kept == ()
    assert len(bad.requests) == 3  # asked, then re-asked twice with the validation error


def test_stage1_rejects_empty_and_duplicate_candidates() -> None:
    sel = ObjectSelector("llm", ScoringFake(lambda p, o: 0.0), scale="question")
    with pytest.raises(ConfigError, match="at least one"):
        sel("cut cake", "cutting", [])
    with pytest.raises(ConfigError, match="duplicate"):
        sel("cut cake", "cutting", ["Knife", "Knife"])


def test_object_subset_answer_validates_against_candidates() -> None:
    ctx = {"candidate_ids": ["StoveBurner", "Microwave"]}
    assert ObjectSubsetAnswer.model_validate({"objects": ["stove burner"]}, context=ctx).objects == ["StoveBurner"]
    with pytest.raises(ValidationError, match="not candidates"):
        ObjectSubsetAnswer.model_validate({"objects": ["toaster"]}, context=ctx)


# ---------------------------------------------------------------- stage 2


def test_stage2_scored_picks_highest_and_ranks_all() -> None:
    llm = ScoringFake(by_words({"butter knife": 3.0, "knife that is in use by someone else": 1.0, "pillow": -1.0}))
    r = StateSelector("llm", llm)("cut cake", "cutting", Q.options)
    assert r.chosen == 1 and r.ranking[:3] == (1, 0, 2) and len(r.scores) == 4 and r.method == "llm-scored"
    _, answers, neutral = llm.requests[0]
    assert answers[1] == "dirty, room-temperature, light metal butter knife that is free to use now"
    assert neutral == "The best object for it is a"


def test_stage2_generated_letter_and_unparsed() -> None:
    r = StateSelector("llm", FakeLLM(['{"letter": "b", "reason": "clean it"}']))("cut cake", "cutting", Q.options)
    assert r.chosen == 1 and r.reason == "clean it"
    r = StateSelector("llm", FakeLLM(["no idea"] * 3))("cut cake", "cutting", Q.options)
    assert r.chosen is None and r.unparsed and r.ranking == ()


def test_letter_answer_forms() -> None:
    ctx = {"candidate_ids": ["A", "B", "C"]}
    for raw in ("B", "b", "(B)", "Option B", "B."):
        assert LetterAnswer.model_validate({"letter": raw}, context=ctx).letter == "B"
    with pytest.raises(ValidationError):
        LetterAnswer.model_validate({"letter": "F"}, context=ctx)


def test_stage2_rejects_empty_and_duplicate_options() -> None:
    sel = StateSelector("llm", ScoringFake(lambda p, o: 0.0))
    with pytest.raises(ConfigError, match="at least one"):
        sel("cut cake", "cutting", [])
    with pytest.raises(ConfigError, match="duplicate"):
        sel("cut cake", "cutting", [ObjectConfig(object="Knife", state=st()), ObjectConfig(object="Knife", state=st())])
    dup = Q.model_copy(update={"options": (Q.options[0], Q.options[0].model_copy(update={"letter": "B"}))})
    with pytest.raises(ConfigError, match="duplicate"):
        TwoStagePipeline("llm", ScoringFake(lambda p, o: 0.0), scale="question").decide(dup)
    with pytest.raises(ValidationError):
        Question(id="x", set="task2", variation=1, utility="cutting", task="cut cake", text="?", options=(), answer="A")


def test_stage2_knowledge_orders_by_cost(kb: Any) -> None:
    t = "serving cake"
    mod = sorted(kb.moderate("cutting", t), key=lambda e: (e.total, e.config.id))
    bad = kb.bad("cutting", t)[0]
    ideal = kb.ideal("cutting", t)[0]
    cands = [bad.config, mod[-1].config, mod[0].config]
    assert mod[0].total < mod[-1].total
    r = StateSelector("knowledge", kb=kb)(t, "cutting", cands)
    assert r.ranking[0] == 2 and r.ranking[-1] == 0 and "moderate" in r.reason
    r = StateSelector("knowledge", kb=kb)(t, "cutting", [*cands, ideal, ObjectConfig(object="Laptop", state=st())])
    assert r.chosen == 3 and r.ranking[-1] == 4  # ideal first, an unsuitable object last


# ---------------------------------------------------------------- pipelines


def test_two_stage_and_single_return_the_same_decision_type() -> None:
    llm = ScoringFake(by_words({"butter knife": 3.0, "knife": 2.5, "pillow": -1.0}))
    two = TwoStagePipeline("llm", llm, keep_rule="margin").decide(Q)
    one = SinglePromptBaseline("llm", llm).decide(Q)
    assert type(two) is type(one) is Decision
    assert two.pipeline == "two-stage" and one.pipeline == "single"
    assert two.chosen == one.chosen == "B"
    assert two.stage1 is not None and one.stage1 is None
    assert sorted(two.ranking) == sorted(one.ranking) == ["A", "B", "C", "D"]
    assert two.calls == 2 and one.calls == 1 and two.model_id == "fake:scoring" and len(two.prompt_hash) == 12


def test_two_stage_stage2_sees_only_survivors() -> None:
    llm = ScoringFake(by_words({"knife": 2.0, "butter knife": 1.9, "pillow": 9.0}))
    pipe = TwoStagePipeline("llm", llm, keep_rule="margin", margin=0.5)
    # stage 1 prefers knives over the pillow only when the pillow is scored low
    pipe.objects = ObjectSelector("llm", ScoringFake(by_words({"knife": 2.0, "butter knife": 1.9, "pillow": -4.0})),
                                  keep_rule="margin")
    d = pipe.decide(Q)
    assert d.stage1 is not None and set(d.stage1.kept) == {"Knife", "ButterKnife"}
    assert d.stage2 is not None and d.stage2.n_candidates == 3  # the pillow never reached stage 2
    assert d.chosen != "C" and d.ranking[-1] == "C" and not d.fallback


def test_two_stage_falls_back_to_all_options_when_stage1_keeps_none() -> None:
    def fn(prompt: str, option: str) -> float:
        return -1.0 if option == "Yes" else 1.0  # every object judged unsuitable

    pipe = TwoStagePipeline("llm", ScoringFake(fn), keep_rule="yesno")
    pipe.states = StateSelector("llm", ScoringFake(by_words({"butter knife": 1.0})))
    d = pipe.decide(Q)
    assert d.fallback and d.stage1 is not None and d.stage1.kept == ()
    assert d.stage2 is not None and d.stage2.n_candidates == 4 and d.chosen == "B"


def test_unparsed_is_recorded_never_guessed() -> None:
    llm = FakeLLM(["gibberish"] * 3)
    d = SinglePromptBaseline("llm", llm).decide(Q)
    assert d.chosen is None and d.unparsed and d.chosen_index is None and "unparsed" in d.reason
    # two-stage: stage 1 unparsed -> every option goes to stage 2 (recorded); stage 2 unparsed -> None
    llm = FakeLLM(["gibberish"] * 6)
    d = TwoStagePipeline("llm", llm).decide(Q)
    assert d.stage1 is not None and d.stage1.unparsed and d.fallback
    assert d.chosen is None and d.unparsed and d.calls == 6


def test_knowledge_unknown_task_or_object_uses_the_model(kb: Any) -> None:
    llm = ScoringFake(by_words({"scissors": 2.0, "knife": 1.0}))
    q = question([("Scissors", st(), "other"), ("Knife", st(condition="dirty"), "other")], "A", task="trim paper")
    d = TwoStagePipeline("knowledge", llm, kb, encoder=FakeEncoder({"scissors": 0.5})).decide(q)
    assert d.chosen == "A" and d.stage1 is not None and d.stage1.method == "llm-ensemble"
    # a known task but an object outside COAT's vocabulary: hybrid mixes, knowledge defers to the model
    q2 = question([("Scissors", st(), "other"), ("Knife", st(), "other"), ("Laptop", st(), "other")], "B",
                  task="serving cake")
    d = TwoStagePipeline("hybrid", llm, kb, encoder=FakeEncoder({})).decide(q2)
    assert d.stage1 is not None and d.stage1.method == "mixed" and "Knife" in d.stage1.kept
    assert "Laptop" not in d.stage1.kept
    # without a model: a clear error, never a KeyError
    for pipe in (TwoStagePipeline("knowledge", None, kb), SinglePromptBaseline("knowledge", None, kb)):
        with pytest.raises(ConfigError, match="not annotated|vocabulary") as e:
            pipe.decide(q)
        assert not isinstance(e.value, KeyError)


def test_select_on_configs_for_the_planner(kb: Any) -> None:
    cfgs = [ObjectConfig(object="Laptop", state=st(material="Plastic")), *kb.ideal("cutting", "serving cake")[:1]]
    d = make_pipeline("two-stage", "knowledge", None, kb).select("serving cake", "cutting", cfgs)
    assert d.labels == ("A", "B") and d.chosen_index == 1 and d.model_id is None and d.calls == 0
    assert labels_for(28)[-3:] == ["Z", "AA", "AB"]


def test_stage1_strategy_can_differ_from_stage2(kb: Any) -> None:
    llm = ScoringFake(by_words({"clean,": 1.0}))
    q = question([("Laptop", st(material="Plastic"), "random"), ("Knife", st(condition="dirty"), "moderate"),
                  ("Knife", st(), "moderate")], "C", task="serving cake")
    d = make_pipeline("two-stage", "llm", llm, kb, stage1_strategy="knowledge").decide(q)
    assert d.strategy == "knowledge+llm" and d.stage1 is not None and d.stage1.method == "knowledge"
    assert d.stage2 is not None and d.stage2.method == "llm-scored" and d.stage2.n_candidates == 2
    assert d.chosen == "C"


def test_bad_strategy_and_missing_dependencies() -> None:
    with pytest.raises(ConfigError, match="valid: llm, knowledge, hybrid"):
        TwoStagePipeline("magic")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="needs llm"):
        SinglePromptBaseline("llm")
    with pytest.raises(ConfigError, match="needs kb"):
        TwoStagePipeline("knowledge")
    with pytest.raises(ConfigError, match="valid: two-stage, single"):
        make_pipeline("three-stage", "llm", ScoringFake(lambda p, o: 0.0))


def test_single_with_object_prior_adds_stage1_scores() -> None:
    # stage 2 slightly prefers the pillow; the prior (utility + embedding, question-scaled) prefers knives
    def fn(prompt: str, option: str) -> float:
        if prompt.endswith(" is"):  # the utility signal: "A knife is" + the need phrase
            return by_words(UTILITY_LL)("", prompt)
        return by_words({"pillow": 1.2, "butter knife": 1.0, "knife": 0.5})(prompt, option)

    llm = ScoringFake(fn)
    enc = FakeEncoder({"knife": 0.5, "butter knife": 0.45, "pillow": 0.1})
    plain = SinglePromptBaseline("llm", llm).decide(Q)
    assert plain.chosen == "C"
    prior = ObjectSelector("llm", llm, encoder=enc, scale="question")
    pipe = SinglePromptBaseline("llm", llm, prior=prior, prior_weight=1.0)
    d = pipe.decide(Q)
    assert d.pipeline == "single" and d.stage1 is None and d.chosen == "B"  # butter knife: 1.0 + its prior
    sel = prior("cut cake", "cutting", ["Knife", "ButterKnife", "Pillow"])
    assert d.stage2 is not None and d.stage2.scores[2] == pytest.approx(1.2 + sel.scores["Pillow"])
    assert "object prior" in d.reason
    assert pipe.prior_rule == "prior ensemble utility+embedding question-scaled margin 2 weight 1"
    # weight 0 is the plain baseline
    assert SinglePromptBaseline("llm", llm, prior=prior, prior_weight=0.0).decide(Q).chosen == "C"
    with pytest.raises(ConfigError, match="keep_rule='ensemble'"):
        SinglePromptBaseline("llm", llm, prior=ObjectSelector("llm", llm, keep_rule="margin"))
    with pytest.raises(ConfigError, match="prior_weight must be a finite number >= 0, got -1"):
        SinglePromptBaseline("llm", llm, prior=prior, prior_weight=-1.0)
    with pytest.raises(ConfigError, match="single pipeline only"):
        make_pipeline("two-stage", "llm", llm, object_prior=1.0)
    built = make_pipeline("single", "llm", llm, object_prior=0.5, scale="question", encoder=enc)
    assert isinstance(built, SinglePromptBaseline) and built.prior is not None and built.prior_weight == 0.5


def test_object_prior_under_hybrid(kb: Any) -> None:
    llm = ScoringFake(lambda prompt, option: by_words(UTILITY_LL)("", prompt) if prompt.endswith(" is") else 0.0)
    pipe = make_pipeline("single", "hybrid", llm, kb, object_prior=1.0, encoder=FakeEncoder({"knife": 0.5}))
    # the prior is always the model's signals (a knowledge or mixed stage 1 scores only some objects)
    assert isinstance(pipe, SinglePromptBaseline) and pipe.prior is not None and pipe.prior.strategy == "llm"
    # a task COAT does not annotate: the model decides, and the prior moves it to the knife
    d = pipe.decide(question([("Pillow", st(), "other"), ("Knife", st(), "other")], "B", task="trim paper"))
    assert d.chosen == "B" and "object prior" in d.reason
    # an annotated task: the annotations decide and the prior does not touch them
    d = pipe.decide(question([("Knife", st(), "context"), ("Laptop", st(), "random")], "A", task="serving cake"))
    assert d.chosen == "A" and d.stage2 is not None and d.stage2.method == "knowledge"
    assert "object prior" not in d.reason
