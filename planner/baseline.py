"""The single-prompt baseline: one decision over every option (object kind and state together).

COAT compares its two-stage prompting against this: the model sees all options at once, including
objects that do not suit the task, and picks one. It returns the same
:class:`~planner.schemas.Decision` as :class:`~planner.two_stage.TwoStagePipeline` (``stage1`` is None),
with the same strategies, so ablations are like for like.

``object_prior``: with a scoring model, the baseline can also add stage 1's per-object ensemble score (the
signals two-stage filters on, see :class:`~planner.object_selector.ObjectSelector`) times a weight to every
option's score, instead of filtering. This answers "is it the two-stage structure or the extra signal?" with
the same information on both sides (``benchmarks/decision.md`` section 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .arguments import Range, check_number
from .errors import ConfigError
from .object_selector import ObjectSelector
from .pipeline import DecisionPipeline
from .schemas import PhysicalState
from .selection import LearnedScorer, PromptLog, Strategy
from .state_selector import StateSelector

if TYPE_CHECKING:
    from .knowledge import CostModel, KnowledgeBase
    from .llm import LLMBackend


class SinglePromptBaseline(DecisionPipeline):
    """One decision over all options with the ``single`` prompt template.

    Args:
        strategy: ``"llm"``, ``"knowledge"``, ``"hybrid"`` or ``"learned"``.
        llm: Language model backend.
        kb: COAT knowledge base.
        cost: Cost model (built from ``kb`` when omitted).
        prior: An ``ObjectSelector`` with ``keep_rule="ensemble"`` whose per-object scores are added to the
            options' scores (scoring models only); None for the plain baseline.
        prior_weight: The weight of those scores (>= 0).
        learned: A trained scorer (:mod:`planner.learned`) for the ``learned`` strategy.
    """

    pipeline: ClassVar[str] = "single"

    def __init__(
        self,
        strategy: Strategy = "llm",
        llm: LLMBackend | None = None,
        kb: KnowledgeBase | None = None,
        *,
        cost: CostModel | None = None,
        prior: ObjectSelector | None = None,
        prior_weight: float = 1.0,
        learned: LearnedScorer | None = None,
    ) -> None:
        super().__init__(strategy, llm)
        self.selector = StateSelector(strategy, llm, kb, cost=cost, template="single", learned=learned)
        self.learned = learned
        if prior is not None:
            if prior.keep_rule != "ensemble" or prior.llm is None or not prior.llm.supports_scoring:
                raise ConfigError(
                    "an object prior needs an ObjectSelector with keep_rule='ensemble' over a scoring model "
                    f"(got {prior!r} with {getattr(prior.llm, 'model_id', None)!r})"
                )
            check_number("prior_weight", prior_weight, Range(0))  # NaN would make every option tie: always A
        self.prior = prior
        self.prior_weight = prior_weight

    @classmethod
    def from_options(
        cls, strategy: Strategy, llm: LLMBackend | None, kb: KnowledgeBase | None, **kwargs: Any
    ) -> SinglePromptBaseline:
        """Build from :func:`~planner.pipeline.make_pipeline`'s keyword arguments.

        ``object_prior=W`` builds the prior: the model's stage-1 signals (strategy ``llm`` whatever the
        baseline's strategy: a knowledge or mixed selection has no score for every object), with the
        stage-1 settings ``signals``, ``scale``, ``encoder`` among ``kwargs``.
        """
        weight = kwargs.pop("object_prior", None)
        prior = None
        if weight is not None:
            check_number("object_prior", weight, Range(0))
            s1 = {k: kwargs[k] for k in ("signals", "scale", "encoder", "cost") if k in kwargs}
            prior = ObjectSelector("llm", llm, kb, keep_rule="ensemble", **s1)
        return cls(strategy, llm, kb, cost=kwargs.get("cost"), prior=prior, prior_weight=weight or 0.0,
                   learned=kwargs.get("learned"))

    def __repr__(self) -> str:
        extra = f", prior={self.prior!r} x {self.prior_weight:g}" if self.prior is not None else ""
        return f"SinglePromptBaseline({self.selector!r}{extra})"

    @property
    def prior_rule(self) -> str | None:
        """The object prior's settings as one string (recorded in eval rows), None without a prior."""
        if self.prior is None:
            return None
        return f"prior {self.prior.rule} weight {self.prior_weight:g}"

    def _decide(
        self,
        task: str | None,
        utility: str,
        pairs: list[tuple[str, PhysicalState | None]],
        labels: list[str],
        trace: PromptLog,
    ) -> dict[str, Any]:
        st = self.selector(task, utility, pairs, trace=trace)
        # only a model's scores take the prior: annotations (knowledge, or hybrid where annotated) stay exact
        if self.prior is not None and st.scores and st.method.startswith("llm") and len(pairs) > 1:
            sel = self.prior(task, utility, list(dict.fromkeys(o for o, _ in pairs)), trace=trace)
            if sel.scores:  # empty when every option is the same object (nothing to compare)
                total = [s + self.prior_weight * sel.scores[o] for s, (o, _) in zip(st.scores, pairs, strict=True)]
                order = sorted(range(len(pairs)), key=lambda i: (-total[i], i))
                st = st.model_copy(update={
                    "chosen": order[0],
                    "ranking": tuple(order),
                    "scores": tuple(total),
                    "reason": f"{st.reason}; plus {self.prior_weight:g} x the object prior ({sel.reason})",
                })
        return {
            "chosen": None if st.chosen is None else labels[st.chosen],
            "ranking": tuple(labels[i] for i in st.ranking),
            "reason": st.reason if st.chosen is not None else f"unparsed: {st.reason}",
            "stage2": st,
        }


__all__ = ["SinglePromptBaseline"]
