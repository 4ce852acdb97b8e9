"""Stage 2 of COAT's two-stage decision: the best candidate given the five physical-state variables.

``StateSelector(strategy, llm=..., kb=...)(task, utility, candidates) -> StateRanking`` picks one of the
candidate configurations (object + mass, material, temperature, already_in_use, condition) with a short
reason and a full ranking. The single-prompt baseline is the same selector with the ``single`` template
run over every option (objects that do not suit the task included).

Strategies (as for :mod:`planner.object_selector`):

* ``"knowledge"``: COAT's annotations and cost model: suitable objects first; among them ideal, then
  moderate, then bad configurations, each by time + material penalty. Exact where the combination is
  annotated; otherwise falls back to the model when one is given, else raises ConfigError.
* ``"llm"``: with a scoring backend, a cloze: the task, then ``The best object for it is a``; every
  option's natural-language description (:func:`planner.prompting.describe_state`) is scored as the
  answer, calibrated by the same cloze without the task, and the highest wins (options are not listed in
  the prompt: listing them took the embedded model to chance). Otherwise the
  model answers ``{"letter": ..., "reason": ...}``; an answer still invalid after the retries gives
  ``chosen=None`` (unparsed), never a random guess.
* ``"hybrid"``: knowledge when it can rank every candidate, the model otherwise.
* ``"learned"``: a trained :class:`~planner.selection.LearnedScorer` (``learned=``): options without a state
  by its stage-1 logit, configurations by its stage-2 score (plus the stage-1 logit with the ``single``
  template, where options may not suit the task).

Options without a physical state (Task-u, Task-0) are rendered as object names with the
``object_choice`` template.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationInfo, field_validator

from . import prompting
from .errors import ConfigError, SelectionError
from .schemas import PhysicalState, StateRanking
from .selection import (
    Candidate,
    Knowledge,
    LearnedScorer,
    PromptLog,
    Strategy,
    as_pair,
    ask_structured,
    check_candidates,
    check_strategy,
    labels_for,
    unknown_error,
)

if TYPE_CHECKING:
    from .knowledge import CostModel, KnowledgeBase
    from .llm import LLMBackend

log = logging.getLogger(__name__)

Template = Literal["state_stage", "single"]


class LetterAnswer(BaseModel):
    """What a generating model answers in stage 2: one option letter (and a short reason).

    Validated with ``context={"candidate_ids": [letters]}``; ``"b"``, ``"(B)"``, ``"Option B"`` are
    accepted as ``"B"``.
    """

    letter: str
    reason: str = ""

    @field_validator("letter", mode="before")
    @classmethod
    def _one_of_letters(cls, v: Any, info: ValidationInfo) -> str:
        letters = [str(x) for x in (info.context or {}).get("candidate_ids") or []]
        text = str(v).strip()
        m = re.fullmatch(r"(?:option\s*)?[\(\[]?\s*([A-Za-z]{1,2})\s*[\)\].:]?", text, flags=re.IGNORECASE)
        letter = m.group(1).upper() if m else text
        if letters and letter not in letters:
            raise ValueError(f"{text!r} is not one of the option letters {letters}")
        return letter


def _flat(key: tuple[float, ...]) -> float:
    # (unsuitable, label rank, total penalty) -> one number; totals stay far below 1e4
    return key[0] * 1e6 + key[1] * 1e4 + key[2]


class StateSelector:
    """Stage 2 (and the single-prompt decision): the best candidate, a reason, and a full ranking.

    Args:
        strategy: ``"llm"``, ``"knowledge"`` or ``"hybrid"``.
        llm: A :class:`planner.llm.LLMBackend` (required for ``llm``/``hybrid``; fallback for ``knowledge``).
        kb: A :class:`planner.knowledge.KnowledgeBase` (required for ``knowledge``/``hybrid``; supplies
            COAT's utility phrases to prompts otherwise).
        cost: A :class:`planner.knowledge.cost.CostModel` (built from ``kb`` when omitted).
        template: ``"state_stage"`` (candidates all suit the task) or ``"single"`` (the baseline's prompt,
            where some options may not suit the task at all).
        learned: A trained scorer, required for the ``learned`` strategy.
    """

    def __init__(
        self,
        strategy: Strategy = "llm",
        llm: LLMBackend | None = None,
        kb: KnowledgeBase | None = None,
        *,
        cost: CostModel | None = None,
        template: Template = "state_stage",
        learned: LearnedScorer | None = None,
    ) -> None:
        check_strategy(strategy, llm, kb, learned)
        self.learned = learned
        if template not in ("state_stage", "single"):
            raise ConfigError(f"unknown template {template!r}; valid: state_stage, single")
        self.strategy = strategy
        self.llm = llm
        self.know = Knowledge(kb, cost) if kb is not None else None
        self.template = template

    def __repr__(self) -> str:
        return f"StateSelector({self.strategy!r}, template={self.template!r})"

    def __call__(
        self,
        task: str | None,
        utility: str,
        candidates: Sequence[Candidate],
        *,
        trace: PromptLog | None = None,
    ) -> StateRanking:
        """Rank the candidates and choose the best.

        Args:
            task: The household task, or None for a utility-only question.
            utility: The COAT utility.
            candidates: Configurations, options, scene records or object names.
            trace: Collects the prompts sent.

        Returns:
            A StateRanking whose indices refer to ``candidates``; ``chosen`` is None when unparsed.

        Raises:
            ConfigError: no candidates, duplicates, or knowledge cannot decide without a model.
        """
        pairs = [as_pair(c) for c in candidates]
        check_candidates(pairs)
        trace = trace if trace is not None else PromptLog()
        if self.strategy == "learned":
            return self._learned(task, utility, pairs)
        if self.strategy != "llm":
            assert self.know is not None
            ranked = self._knowledge(task, utility, pairs)
            if ranked is not None:
                return ranked
            if self.llm is None:
                raise unknown_error("stage 2", task, utility, [p[0] for p in pairs], self.know)
            log.debug("stage 2: knowledge cannot rank every candidate for (%s, %s); using the model", utility, task)
        return self._llm(task, utility, pairs, trace)

    # -- knowledge

    def _knowledge(
        self, task: str | None, utility: str, pairs: list[tuple[str, PhysicalState | None]]
    ) -> StateRanking | None:
        assert self.know is not None
        keyed = []
        for obj, state in pairs:
            k = self.know.config_key(task, utility, obj, state)
            if k is None:
                return None
            keyed.append(k)
        order = sorted(range(len(pairs)), key=lambda i: (keyed[i][0], i))
        best = order[0]
        return StateRanking(
            n_candidates=len(pairs),
            chosen=best,
            ranking=tuple(order),
            # a score where higher is better, so scores read the same way for every method
            scores=tuple(-_flat(keyed[i][0]) for i in range(len(pairs))),
            method="knowledge",
            reason=keyed[best][1],
        )

    # -- learned

    def _learned(
        self, task: str | None, utility: str, pairs: list[tuple[str, PhysicalState | None]]
    ) -> StateRanking:
        assert self.learned is not None
        names = list(dict.fromkeys(o for o, _ in pairs))
        stateless = all(s is None for _, s in pairs)
        suit = dict(zip(names, self.learned.suits(task, utility, names), strict=True)) if (
            stateless or self.template == "single") else {}
        if stateless:
            scores = [suit[o] for o, _ in pairs]
            what = "stage-1 logit"
        else:
            scores = self.learned.rank(task, utility, pairs)
            what = "stage-2 score"
            if self.template == "single":
                scores = [s + suit[o] for s, (o, _) in zip(scores, pairs, strict=True)]
                what = "stage-1 logit + stage-2 score"
        order = sorted(range(len(pairs)), key=lambda i: (-scores[i], i))
        return StateRanking(n_candidates=len(pairs), chosen=order[0], ranking=tuple(order),
                            scores=tuple(float(s) for s in scores), method="learned",
                            reason=f"highest learned {what} ({scores[order[0]]:.2f})")

    # -- model

    def _template_for(self, pairs: list[tuple[str, PhysicalState | None]]) -> str:
        return self.template if any(s is not None for _, s in pairs) else "object_choice"

    def _llm(
        self, task: str | None, utility: str, pairs: list[tuple[str, PhysicalState | None]], trace: PromptLog
    ) -> StateRanking:
        assert self.llm is not None
        n = len(pairs)
        if n == 1:
            return StateRanking(n_candidates=1, chosen=0, ranking=(0,), method="llm-scored", reason="only candidate")
        labels = labels_for(n)
        texts = [prompting.option_text(o, s) for o, s in pairs]
        phrase = self.know.phrase(utility) if self.know is not None else None
        template = self._template_for(pairs)
        if self.llm.supports_scoring:
            prompt = prompting.decision_prompt(template, task, utility, labels, texts, phrase=phrase, mode="scored")
            trace.prompts.append(prompt)
            answers = [prompting.describe_state(o, s) for o, s in pairs]
            kind = "object" if template == "object_choice" else "option"
            try:
                scores = self.llm.score(prompt, answers, neutral_prompt=prompting.neutral_prompt(kind))
            except SelectionError as e:  # the backend refused the model's scores (NaN, wrong count...)
                log.info("stage 2 scores unusable for (%s, %s): %s", utility, task, e)
                return StateRanking(n_candidates=n, chosen=None, method="llm-scored", reason=f"unparsed: {e}")
            order = sorted(range(n), key=lambda i: (-scores[i], i))
            runner_up = f" vs {scores[order[1]]:.2f}" if n > 1 else ""
            return StateRanking(
                n_candidates=n,
                chosen=order[0],
                ranking=tuple(order),
                scores=tuple(float(s) for s in scores),
                method="llm-scored",
                reason=f"highest calibrated log-likelihood ({scores[order[0]]:.2f}{runner_up})",
            )
        prompt = prompting.decision_prompt(template, task, utility, labels, texts, phrase=phrase, mode="generated")
        ans = ask_structured(self.llm, prompt, LetterAnswer, labels, trace)
        if isinstance(ans, SelectionError):
            log.info("stage 2 answer unparsed for (%s, %s)", utility, task)
            return StateRanking(n_candidates=n, chosen=None, method="llm-generated", reason=f"unparsed: {ans}")
        i = labels.index(ans.letter)
        return StateRanking(
            n_candidates=n,
            chosen=i,
            ranking=(i, *(j for j in range(n) if j != i)),
            method="llm-generated",
            reason=ans.reason,
        )


__all__ = ["LetterAnswer", "StateSelector", "Template"]
