"""The single-prompt baseline: one decision over every option (object kind and state together).

COAT compares its two-stage prompting against this: the model sees all options at once, including
objects that do not suit the task, and picks one. It returns the same
:class:`~planner.schemas.Decision` as :class:`~planner.two_stage.TwoStagePipeline` (``stage1`` is None),
with the same strategies, so ablations are like for like.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .object_selector import Strategy, Trace
from .schemas import PhysicalState
from .state_selector import StateSelector
from .two_stage import DecisionPipeline

if TYPE_CHECKING:
    from .llm import LLMBackend


class SinglePromptBaseline(DecisionPipeline):
    """One decision over all options with the ``single`` prompt template.

    Args:
        strategy: ``"llm"``, ``"knowledge"`` or ``"hybrid"``.
        llm: Language model backend.
        kb: COAT knowledge base.
        cost: Cost model (built from ``kb`` when omitted).
    """

    pipeline: ClassVar[str] = "single"

    def __init__(
        self, strategy: Strategy = "llm", llm: LLMBackend | None = None, kb: Any = None, *, cost: Any = None
    ) -> None:
        super().__init__(strategy, llm)
        self.selector = StateSelector(strategy, llm, kb, cost=cost, template="single")

    def __repr__(self) -> str:
        return f"SinglePromptBaseline({self.selector!r})"

    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: Trace,
    ) -> dict[str, Any]:
        st = self.selector(task, utility, pairs, trace=trace)
        return {
            "chosen": None if st.chosen is None else labels[st.chosen],
            "ranking": tuple(labels[i] for i in st.ranking),
            "reason": st.reason if st.chosen is not None else f"unparsed: {st.reason}",
            "stage2": st,
        }


__all__ = ["SinglePromptBaseline"]
