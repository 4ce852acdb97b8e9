"""The decision pipelines' common base and ``make_pipeline``.

A pipeline turns a question (or a planner's candidates) into one :class:`~planner.schemas.Decision`:
:class:`~planner.two_stage.TwoStagePipeline` (stage 1 then stage 2) and
:class:`~planner.baseline.SinglePromptBaseline` (one decision over every option) share the candidate
checks, timing and model-usage accounting here, and both return the same Decision, so ablations are
like for like. ``make_pipeline`` imports the named pipeline from :data:`PIPELINES`, so this module never
imports the pipelines themselves.
"""

from __future__ import annotations

import importlib
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from . import prompting
from .errors import ConfigError
from .schemas import Decision, PhysicalState, Question
from .selection import Candidate, PromptLog, Strategy, as_pair, check_candidates, labels_for

if TYPE_CHECKING:
    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

PipelineName = Literal["two-stage", "single"]
PIPELINES: dict[str, str] = {
    "two-stage": "planner.two_stage:TwoStagePipeline",
    "single": "planner.baseline:SinglePromptBaseline",
}
"""Pipeline name -> entry point (``module:Class``), imported when the pipeline is made."""
_STAT_FIELDS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "seconds")


def _stats(llm: Any) -> dict[str, float]:
    if llm is None:
        return dict.fromkeys(_STAT_FIELDS, 0.0)
    st = getattr(llm, "stats", None)
    return {f: float(getattr(st, f, 0) or 0) for f in _STAT_FIELDS}


class DecisionPipeline(ABC):
    """Shared machinery of both pipelines: candidate checks, timing, model-usage accounting."""

    pipeline: ClassVar[str] = ""

    def __init__(self, strategy: Strategy, llm: LLMBackend | None) -> None:
        self.strategy = strategy
        self.llm = llm
        self.learned: Any = None

    def decide(self, question: Question) -> Decision:
        """Answer a COAT question; ``Decision.chosen`` is an option letter or None (unparsed).

        Raises:
            ConfigError: duplicate options, or the knowledge strategy cannot decide without a model.
        """
        labels = [o.letter for o in question.options]
        pairs = [(o.object, o.state) for o in question.options]
        routing = getattr(self.learned, "routing", None)  # held-out fold models pick their fold by the question
        if routing is None:
            return self._run(question.task, question.utility, pairs, labels, question.id)
        with routing(question):
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
        trace = PromptLog()
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
            else getattr(self.learned, "model_id", None),
            prompt_hash=prompting.prompt_hash(*trace.prompts) if trace.prompts else "",
            calls=int(used["calls"]),
            cache_hits=int(used["cache_hits"]),
            prompt_tokens=int(used["prompt_tokens"]),
            completion_tokens=int(used["completion_tokens"]),
            seconds=seconds,
            **fields,
        )

    @classmethod
    def from_options(
        cls, strategy: Strategy, llm: LLMBackend | None, kb: KnowledgeBase | None, **kwargs: Any
    ) -> DecisionPipeline:
        """Build from :func:`make_pipeline`'s keyword arguments (each pipeline takes its own)."""
        raise NotImplementedError

    @abstractmethod
    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: PromptLog,
    ) -> dict[str, Any]:
        """The decision's fields (chosen, ranking, reason, stage1 / stage2, fallback) for these options."""


def make_pipeline(
    pipeline: PipelineName | str,
    strategy: Strategy | str = "llm",
    llm: LLMBackend | None = None,
    kb: KnowledgeBase | None = None,
    **kwargs: Any,
) -> DecisionPipeline:
    """Build ``"two-stage"`` (:class:`~planner.two_stage.TwoStagePipeline`) or ``"single"``
    (:class:`~planner.baseline.SinglePromptBaseline`).

    ``object_prior=W`` (single only) adds W x stage 1's ensemble score of each option's object to the
    single prompt's scores; the other stage-1 keyword arguments configure that prior.

    Strategy ``"learned"`` uses ``learned=`` (a :class:`planner.learned.LearnedModel`) or, without it, the
    model ``coat train`` wrote to its default directory, trained there first when there is none
    (:func:`planner.learned.first_use.ensure_learned`).

    Raises:
        ConfigError: unknown pipeline or strategy, or a missing dependency.
    """
    entry = PIPELINES.get(pipeline)
    if entry is None:
        raise ConfigError(f"unknown pipeline {pipeline!r}; valid: {', '.join(PIPELINES)}")
    if "learned" in (strategy, kwargs.get("stage1_strategy")) and kwargs.get("learned") is None:
        if kb is None:
            raise ConfigError("strategy 'learned' needs kb= (planner.knowledge.load_knowledge()) to load its model")
        from .learned.first_use import ensure_learned

        kwargs["learned"] = ensure_learned(kb)
    module, _, name = entry.partition(":")
    cls: type[DecisionPipeline] = getattr(importlib.import_module(module), name)
    return cls.from_options(strategy, llm, kb, **kwargs)  # type: ignore[arg-type]


__all__ = ["PIPELINES", "DecisionPipeline", "PipelineName", "make_pipeline"]
