"""What both decision stages share: strategies, COAT's annotations as a never-raising view, candidates,
the prompt log, and asking a model for a structured answer.

Stage 1 (:mod:`planner.object_selector`) and stage 2 (:mod:`planner.state_selector`) import from here and
never from each other.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from pydantic import BaseModel

from . import prompting
from .errors import ConfigError, PlannerError, SelectionError
from .knowledge import CostModel, KnowledgeBase
from .knowledge.cost import shared_cost_model
from .schemas import ObjectConfig, ObjectRecord, Option, PhysicalState, canonical_object_name

if TYPE_CHECKING:
    from .llm import LLMBackend

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

Strategy = Literal["llm", "knowledge", "hybrid", "learned"]
STRATEGIES: tuple[str, ...] = ("llm", "knowledge", "hybrid", "learned")

Candidate = ObjectConfig | Option | ObjectRecord | str | tuple[str, PhysicalState | None]
"""What a stage accepts as a candidate: a configuration, a question option, a scene record, a bare
object name (no physical state), or an ``(object, state or None)`` pair."""


@dataclass
class PromptLog:
    """The prompts a stage sent while deciding (hashed into the decision's ``prompt_hash``)."""

    prompts: list[str] = field(default_factory=list)


class LearnedScorer(Protocol):
    """What the ``learned`` strategy needs (:class:`planner.learned.LearnedModel` or its fold router).

    A scorer may also have a float ``keep_logit`` (the stage-1 keep threshold it was tuned with); stage 1 uses
    it, else :data:`planner.object_selector.LEARNED_THRESHOLD`."""

    model_id: str

    def suits(self, task: str | None, utility: str, objects: Sequence[str]) -> list[float]:
        """Stage 1 logits, > 0 meaning the object suits (utility, task)."""
        ...

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> list[float]:
        """Stage 2 scores, higher is better."""
        ...


def check_strategy(
    strategy: str, llm: LLMBackend | None, kb: KnowledgeBase | None, learned: LearnedScorer | None = None
) -> None:
    """Validate a stage's strategy against the dependencies it was given.

    Raises:
        ConfigError: unknown strategy, or a dependency the strategy needs is missing.
    """
    if strategy not in STRATEGIES:
        raise ConfigError(f"unknown strategy {strategy!r}; valid: {', '.join(STRATEGIES)}")
    if strategy == "llm" and llm is None:
        raise ConfigError("strategy 'llm' needs llm= (an LLMBackend, e.g. planner.llm.make_llm('local'))")
    if strategy in ("knowledge", "hybrid") and kb is None:
        raise ConfigError(f"strategy {strategy!r} needs kb= (planner.knowledge.load_knowledge())")
    if strategy == "learned" and learned is None:
        raise ConfigError(
            "strategy 'learned' needs learned= (planner.learned.load_learned(kb, dir), after `coat train`)"
        )
    if strategy == "hybrid" and llm is None:
        raise ConfigError("strategy 'hybrid' needs llm= for what COAT does not annotate")


class Knowledge:
    """What COAT's annotations say about a (utility, task) and its objects; None means "not annotated".

    Wraps a :class:`planner.knowledge.KnowledgeBase` and a :class:`planner.knowledge.cost.CostModel` so the stages
    never see a KeyError: everything unknown comes back as None.
    """

    LABEL_RANK: Mapping[str, int] = {"ideal": 0, "moderate": 1, "bad": 2}

    def __init__(self, kb: KnowledgeBase, cost: CostModel | None = None) -> None:
        self.kb = kb
        self.cost = cost if cost is not None else shared_cost_model(kb)
        self._vocab: frozenset[str] | None = None

    def phrase(self, utility: str) -> str | None:
        """COAT's phrase for a utility (``an object that can be used to cut something``), if any."""
        return self.kb.templates.utility_phrases.get(utility)

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every object COAT annotates (the 100 utility objects)."""
        if self._vocab is None:
            names: set[str] = set()
            for u in self.kb.utilities:
                names.update(self.kb.utility_objects(u))
            self._vocab = frozenset(names)
        return self._vocab

    def known(self, obj: str) -> bool:
        """True when COAT annotates this object type."""
        return canonical_object_name(obj) in self.vocabulary

    def suitable(self, task: str | None, utility: str) -> frozenset[str] | None:
        """The objects suitable for (utility, task); None when COAT does not annotate it."""
        try:
            if task is None:
                return frozenset(self.kb.utility_objects(utility))
            if not self.kb.is_annotated(utility, task):
                return None
            return frozenset(self.kb.context_objects(utility, task))
        except (PlannerError, KeyError):
            return None

    def ordered_suitable(self, task: str | None, utility: str) -> list[str]:
        """The suitable objects in annotation order (best-known first); [] when not annotated."""
        try:
            if task is None:
                return list(self.kb.utility_objects(utility))
            return list(self.kb.context_objects(utility, task))
        except (PlannerError, KeyError):
            return []

    def config_key(
        self, task: str | None, utility: str, obj: str, state: PhysicalState | None
    ) -> tuple[tuple[float, ...], str] | None:
        """Sort key (lower is better) and a short reason for one candidate; None when not annotated.

        Order: suitable objects before unsuitable ones; among suitable configurations, ideal before
        moderate before bad, then by time + material penalty (COAT's ranking of sub-optimal options).
        """
        suitable = self.suitable(task, utility)
        if suitable is None or not self.known(obj):
            return None
        obj = canonical_object_name(obj)
        if obj not in suitable:
            what = "a context object" if task else f"a {utility!r} object"
            return (1.0, 0.0, 0.0), f"{obj} is not {what} in COAT"
        if state is None or task is None:
            return (0.0, 0.0, 0.0), f"{obj} suits {utility!r} in COAT"
        try:
            pen = self.cost.penalty(utility, task, ObjectConfig(object=obj, state=state))
        except (PlannerError, KeyError) as e:
            log.debug("no penalty for %s in (%s, %s): %s", obj, utility, task, e)
            return None
        rank = self.LABEL_RANK.get(pen.label, 3)
        reason = (
            f"{obj} is {pen.label} (time penalty {pen.time_penalty}, material penalty {pen.material_penalty})"
        )
        return (0.0, float(rank), float(pen.total)), reason


def unknown_error(stage: str, task: str | None, utility: str, objects: Sequence[str], know: Knowledge) -> ConfigError:
    """The error raised when the knowledge strategy cannot decide and no model was given."""
    if know.suitable(task, utility) is None:
        what = f"utility {utility!r}" + (f" with task {task!r}" if task else "")
        why = f"{what} is not annotated in COAT"
    else:
        unknown = [o for o in objects if not know.known(o)]
        why = f"objects {unknown} are not in COAT's vocabulary"
    return ConfigError(
        f"{stage}: the knowledge strategy cannot decide: {why}. Pass llm= (strategy 'knowledge' falls back "
        "to the model) or use strategy 'hybrid' or 'llm'."
    )


def as_pair(c: Candidate) -> tuple[str, PhysicalState | None]:
    """``(object name, state or None)`` of any candidate form."""
    if isinstance(c, str):
        return canonical_object_name(c), None
    if isinstance(c, tuple):
        return canonical_object_name(c[0]), c[1]
    if isinstance(c, ObjectRecord):
        return c.category, c.state
    return c.object, c.state


def check_candidates(pairs: Sequence[tuple[str, PhysicalState | None]]) -> None:
    """Reject an empty candidate list and duplicate candidates (same object in the same state).

    Raises:
        ConfigError: naming the duplicates.
    """
    if not pairs:
        raise ConfigError("a decision needs at least one candidate, got none")
    seen: dict[tuple[str, PhysicalState | None], int] = {}
    dupes: list[str] = []
    for i, p in enumerate(pairs):
        if p in seen:
            dupes.append(f"#{seen[p]} and #{i} ({prompting.option_text(*p)})")
        seen.setdefault(p, i)
    if dupes:
        raise ConfigError(f"duplicate candidates: {'; '.join(dupes)}; each option must differ")


def labels_for(n: int) -> list[str]:
    """Option labels ``A, B, ..., Z, AA, AB, ...`` for ``n`` candidates."""
    out = []
    for i in range(n):
        s, k = "", i
        while True:
            s = chr(ord("A") + k % 26) + s
            k = k // 26 - 1
            if k < 0:
                break
        out.append(s)
    return out


def ask_structured(
    llm: LLMBackend, prompt: str, schema: type[M], candidate_ids: Sequence[str], log_: PromptLog
) -> M | SelectionError:
    """Ask a generating model with the system prompt; the validated answer, or the error once retries ran out.

    The caller turns a :class:`~planner.errors.SelectionError` into its own "unparsed" result (never a guess).
    """
    from langchain_core.messages import HumanMessage, SystemMessage

    log_.prompts.append(prompt)
    try:
        return llm.structured(
            [SystemMessage(prompting.system_prompt()), HumanMessage(prompt)],
            schema,
            context={"candidate_ids": list(candidate_ids)},
        )
    except SelectionError as e:
        log.info("answer unparsed: %s", e)
        return e


__all__ = [
    "STRATEGIES",
    "Candidate",
    "Knowledge",
    "LearnedScorer",
    "PromptLog",
    "Strategy",
    "as_pair",
    "ask_structured",
    "check_candidates",
    "check_strategy",
    "labels_for",
    "unknown_error",
]
