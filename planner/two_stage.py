"""COAT's two-stage decision: stage 1 keeps the suitable objects, stage 2 picks the best physical state.

:class:`TwoStagePipeline` runs :class:`~planner.object_selector.ObjectSelector` on the distinct object
names of the options, then :class:`~planner.state_selector.StateSelector` on the options whose object
survived. When stage 1 keeps nothing (or its answer is unparsed) stage 2 sees every option and the
decision records ``fallback=True``. :class:`~planner.baseline.SinglePromptBaseline` makes one decision over
all options; both return the same :class:`~planner.schemas.Decision`, so ablations are like for like.

Both expose:

* ``decide(question) -> Decision`` for a COAT :class:`~planner.schemas.Question` (labels = option letters);
* ``select(task, utility, candidates) -> Decision`` for a planner (candidates = ObjectConfig, ObjectRecord
  or object names; labels ``A, B, ...`` in candidate order; ``decision.chosen_index`` is the pick).

Example:
    >>> from planner.knowledge import load_knowledge                     # doctest: +SKIP
    >>> pipe = TwoStagePipeline("knowledge", kb=load_knowledge())        # doctest: +SKIP
    >>> pipe.decide(question).chosen                                     # doctest: +SKIP
    'C'
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from . import prompting
from .errors import ConfigError
from .object_selector import DEFAULT_SIGNALS, DEFAULT_THRESHOLD, KeepRule, ObjectSelector, Scale, Strategy, Trace
from .schemas import Decision, ObjectSelection, PhysicalState, Question, StateRanking
from .state_selector import Candidate, StateSelector, as_pair, check_candidates, labels_for

if TYPE_CHECKING:
    from .llm import LLMBackend

PipelineName = Literal["two-stage", "single"]
PIPELINES: tuple[str, ...] = ("two-stage", "single")
_STAT_FIELDS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "seconds")


def _stats(llm: Any) -> dict[str, float]:
    if llm is None:
        return dict.fromkeys(_STAT_FIELDS, 0.0)
    st = getattr(llm, "stats", None)
    return {f: float(getattr(st, f, 0) or 0) for f in _STAT_FIELDS}


class DecisionPipeline:
    """Shared machinery of both pipelines: candidate checks, timing, model-usage accounting."""

    pipeline: ClassVar[str] = ""

    def __init__(self, strategy: Strategy, llm: LLMBackend | None) -> None:
        self.strategy = strategy
        self.llm = llm

    def decide(self, question: Question) -> Decision:
        """Answer a COAT question; ``Decision.chosen`` is an option letter or None (unparsed).

        Raises:
            ConfigError: duplicate options, or the knowledge strategy cannot decide without a model.
        """
        labels = [o.letter for o in question.options]
        pairs = [(o.object, o.state) for o in question.options]
        return self._run(question.task, question.utility, pairs, labels, question.id)

    def select(self, task: str | None, utility: str, candidates: Sequence[Candidate]) -> Decision:
        """Choose among arbitrary candidates (a planner's scene objects); labels are ``A, B, ...``.

        Raises:
            ConfigError: no candidates, duplicates, or the knowledge strategy cannot decide without a model.
        """
        pairs = [as_pair(c) for c in candidates]
        return self._run(task, utility, pairs, labels_for(len(pairs)), None)

    def _run(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        question_id: str | None,
    ) -> Decision:
        check_candidates(pairs)
        before = _stats(self.llm)
        t0 = time.perf_counter()
        trace = Trace()
        fields = self._decide(task, utility, pairs, labels, trace)
        seconds = time.perf_counter() - t0
        after = _stats(self.llm)
        used = {f: after[f] - before[f] for f in _STAT_FIELDS}
        return Decision(
            question_id=question_id,
            pipeline=self.pipeline,  # type: ignore[arg-type]
            strategy=self.strategy,
            labels=tuple(labels),
            # the model's id whenever it decides (llm strategy) or was consulted (knowledge fell back to it)
            model_id=getattr(self.llm, "model_id", None)
            if (trace.prompts or "llm" in self.strategy.split("+"))
            else None,
            prompt_hash=prompting.prompt_hash(*trace.prompts) if trace.prompts else "",
            calls=int(used["calls"]),
            cache_hits=int(used["cache_hits"]),
            prompt_tokens=int(used["prompt_tokens"]),
            completion_tokens=int(used["completion_tokens"]),
            seconds=seconds,
            **fields,
        )

    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: Trace,
    ) -> dict[str, Any]:
        raise NotImplementedError


class TwoStagePipeline(DecisionPipeline):
    """Stage 1 (object kinds) then stage 2 (physical states) on the survivors.

    Args:
        strategy: ``"llm"``, ``"knowledge"`` or ``"hybrid"``, used by both stages unless ``objects`` /
            ``states`` are given.
        llm: Language model backend (see the strategies).
        kb: COAT knowledge base.
        cost: Cost model (built from ``kb`` when omitted).
        objects: A ready stage-1 selector (overrides strategy/keep_rule/margin for stage 1).
        states: A ready stage-2 selector.
        keep_rule: Stage 1 keep rule for scoring models (``"ensemble"``, ``"margin"`` or ``"yesno"``).
        margin: Stage 1 margin (None: the keep rule's default; see :class:`ObjectSelector`).
        threshold: Stage 1 threshold for ``keep_rule="yesno"``.
        signals: Stage 1 signals for ``keep_rule="ensemble"``.
        scale: How ``keep_rule="ensemble"`` scales its signals (``"reference"`` or ``"question"``).
        encoder: Sentence encoder for the ``embedding`` signal (default: the embedded MiniLM).
        stage1_strategy: A different strategy for stage 1 only (e.g. ``"knowledge"`` with an ``"llm"``
            stage 2, to measure stage 2 behind a perfect stage 1); the decision's strategy then reads
            ``"<stage1>+<stage2>"``.
    """

    pipeline: ClassVar[str] = "two-stage"

    def __init__(
        self,
        strategy: Strategy = "llm",
        llm: LLMBackend | None = None,
        kb: Any = None,
        *,
        cost: Any = None,
        objects: ObjectSelector | None = None,
        states: StateSelector | None = None,
        keep_rule: KeepRule = "ensemble",
        margin: float | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        signals: Sequence[str] = DEFAULT_SIGNALS,
        scale: Scale = "reference",
        encoder: Any = None,
        stage1_strategy: Strategy | None = None,
    ) -> None:
        s1 = stage1_strategy or strategy
        super().__init__(strategy if s1 == strategy else f"{s1}+{strategy}", llm)  # type: ignore[arg-type]
        self.objects = objects or ObjectSelector(
            s1, llm, kb, cost=cost, keep_rule=keep_rule, margin=margin, threshold=threshold, signals=signals,
            scale=scale, encoder=encoder,
        )
        self.states = states or StateSelector(strategy, llm, kb, cost=cost, template="state_stage")

    def __repr__(self) -> str:
        return f"TwoStagePipeline({self.objects!r}, {self.states!r})"

    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: Trace,
    ) -> dict[str, Any]:
        names = list(dict.fromkeys(o for o, _ in pairs))
        sel: ObjectSelection = self.objects(task, utility, names, trace=trace)
        kept = set(sel.kept)
        idx = [i for i, (o, _) in enumerate(pairs) if o in kept]
        fallback = not idx
        if fallback:
            idx = list(range(len(pairs)))
        st: StateRanking = self.states(task, utility, [pairs[i] for i in idx], trace=trace)
        obj_rank = {o: r for r, o in enumerate(sel.ranking)}
        survivors = set(idx)
        dropped = sorted(
            (i for i in range(len(pairs)) if i not in survivors), key=lambda i: (obj_rank.get(pairs[i][0], 0), i)
        )
        ranking = [labels[idx[j]] for j in st.ranking] + [labels[i] for i in dropped]
        if st.chosen is None:
            reason = f"stage 2 unparsed: {st.reason}"
        else:
            why = "stage 1 kept no object, so every option was ranked" if fallback else f"kept {list(sel.kept)}"
            reason = f"stage 1: {why}; stage 2: {st.reason}"
        return {
            "chosen": None if st.chosen is None else labels[idx[st.chosen]],
            "ranking": tuple(ranking),
            "reason": reason,
            "stage1": sel,
            "stage2": st,
            "fallback": fallback,
        }


def make_pipeline(
    pipeline: PipelineName | str,
    strategy: Strategy | str = "llm",
    llm: LLMBackend | None = None,
    kb: Any = None,
    **kwargs: Any,
) -> DecisionPipeline:
    """Build ``"two-stage"`` (:class:`TwoStagePipeline`) or ``"single"`` (:class:`SinglePromptBaseline`).

    ``object_prior=W`` (single only) adds W x stage 1's ensemble score of each option's object to the
    single prompt's scores; the other stage-1 keyword arguments configure that prior.

    Raises:
        ConfigError: unknown pipeline or strategy, or a missing dependency.
    """
    if pipeline == "two-stage":
        if kwargs.pop("object_prior", None) is not None:
            raise ConfigError("object_prior applies to the single pipeline only")
        return TwoStagePipeline(strategy, llm, kb, **kwargs)  # type: ignore[arg-type]
    if pipeline == "single":
        from .baseline import SinglePromptBaseline

        weight = kwargs.pop("object_prior", None)
        prior = None
        if weight is not None:
            # The prior is the model's stage-1 signals (strategy "llm" whatever the baseline's strategy: a
            # knowledge or mixed selection has no score for every object), with stage 1's settings.
            s1 = {k: kwargs[k] for k in ("signals", "scale", "encoder", "cost") if k in kwargs}
            prior = ObjectSelector("llm", llm, kb, keep_rule="ensemble", **s1)
        kw = {k: v for k, v in kwargs.items() if k == "cost"}
        return SinglePromptBaseline(strategy, llm, kb, prior=prior, prior_weight=weight or 0.0,  # type: ignore[arg-type]
                                    **kw)
    raise ConfigError(f"unknown pipeline {pipeline!r}; valid: {', '.join(PIPELINES)}")


__all__ = ["PIPELINES", "DecisionPipeline", "PipelineName", "TwoStagePipeline", "make_pipeline"]
