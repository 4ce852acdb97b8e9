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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import ConfigError
from .object_selector import DEFAULT_THRESHOLD, KeepRule, ObjectSelector, Scale
from .pipeline import DecisionPipeline
from .schemas import ObjectSelection, PhysicalState, StateRanking
from .selection import LearnedScorer, PromptLog, Strategy
from .state_selector import StateSelector

if TYPE_CHECKING:
    from .knowledge import CostModel, KnowledgeBase
    from .llm import LLMBackend
    from .llm.embedding import SentenceEncoder

class TwoStagePipeline(DecisionPipeline):
    """Stage 1 (object kinds) then stage 2 (physical states) on the survivors.

    Args:
        strategy: ``"llm"``, ``"knowledge"``, ``"hybrid"`` or ``"learned"``, used by both stages unless ``objects`` /
            ``states`` are given.
        llm: Language model backend (see the strategies).
        kb: COAT knowledge base.
        cost: Cost model (built from ``kb`` when omitted).
        objects: A ready stage-1 selector (overrides strategy/keep_rule/margin for stage 1).
        states: A ready stage-2 selector.
        keep_rule: Stage 1 keep rule for scoring models (``"ensemble"``, ``"margin"`` or ``"yesno"``).
        margin: Stage 1 margin (None: the keep rule's default; see :class:`ObjectSelector`).
        threshold: Stage 1 threshold for ``keep_rule="yesno"``.
        signals: Stage 1 signals for ``keep_rule="ensemble"`` (None: the default for what is installed).
        scale: How ``keep_rule="ensemble"`` scales its signals (``"reference"`` or ``"question"``).
        encoder: Sentence encoder for the ``embedding`` signal (default: the embedded MiniLM).
        stage1_strategy: A different strategy for stage 1 only (e.g. ``"knowledge"`` with an ``"llm"``
            stage 2, to measure stage 2 behind a perfect stage 1); the decision's strategy then reads
            ``"<stage1>+<stage2>"``.
        learned: A trained scorer (:mod:`planner.learned`) for the ``learned`` strategy.
    """

    pipeline: ClassVar[str] = "two-stage"

    def __init__(
        self,
        strategy: Strategy = "llm",
        llm: LLMBackend | None = None,
        kb: KnowledgeBase | None = None,
        *,
        cost: CostModel | None = None,
        objects: ObjectSelector | None = None,
        states: StateSelector | None = None,
        keep_rule: KeepRule = "ensemble",
        margin: float | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        signals: Sequence[str] | None = None,
        scale: Scale = "reference",
        encoder: SentenceEncoder | None = None,
        stage1_strategy: Strategy | None = None,
        learned: LearnedScorer | None = None,
    ) -> None:
        s1 = stage1_strategy or strategy
        super().__init__(strategy if s1 == strategy else f"{s1}+{strategy}", llm)  # type: ignore[arg-type]
        self.objects = objects or ObjectSelector(
            s1, llm, kb, cost=cost, keep_rule=keep_rule, margin=margin, threshold=threshold, signals=signals,
            scale=scale, encoder=encoder, learned=learned,
        )
        self.states = states or StateSelector(strategy, llm, kb, cost=cost, template="state_stage", learned=learned)
        self.learned = learned

    @classmethod
    def from_options(
        cls, strategy: Strategy, llm: LLMBackend | None, kb: KnowledgeBase | None, **kwargs: Any
    ) -> TwoStagePipeline:
        """Build from :func:`~planner.pipeline.make_pipeline`'s keyword arguments."""
        if kwargs.pop("object_prior", None) is not None:
            raise ConfigError("object_prior applies to the single pipeline only")
        return cls(strategy, llm, kb, **kwargs)

    def __repr__(self) -> str:
        return f"TwoStagePipeline({self.objects!r}, {self.states!r})"

    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: PromptLog,
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


__all__ = ["TwoStagePipeline"]
