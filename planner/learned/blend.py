"""Stage 1 of the learned selectors with a scoring language model's task-object affinity added.

The learned head reads frozen MiniLM vectors and learns from COAT's 96 annotated (utility, task) pairs; what it
learns poorly is which of a utility's objects suits a task it never saw (Task-0). A scoring model brings a
second, independent signal: how much likelier the model finds an object's name as the answer once the task is
named than without it (a pointwise mutual information between task and object). With the ``task`` template::

    affinity(o) = log P(o | "Which object would you use for this task: <task>?")
                - log P(o | "Which object would you use?")

(the ``utility`` template names the utility's phrase in both prompts). :class:`LLMBlend` adds
``weight * affinity / scale`` to the head's logit for tasks; a question with no task (Task-u) keeps the head's
logit. Stage 2 is the head's. The affinity costs one scored prompt per (task, utility) and candidate list, which
the model backend caches on disk.

Chosen per fold on inner folds (``benchmarks/probes/learned_llm_blend_inner.py``): Gemma 3 270M and the ``task``
template on every fold, weight 1 on four folds of five (0.5 on the fifth). On held-out combinations it lifts
Task-0 and lowers Full-moderate (``benchmarks/learned.md``), so it is an option (``coat eval --strategy learned
--llm local:gemma-270m --blend 1``), not a default.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .features import object_text

if TYPE_CHECKING:
    from ..llm.base import LLMBackend
    from ..schemas import PhysicalState, Question

#: Prompt templates: name -> (prompt with the task, the same prompt without it). ``{phrase}`` is the utility's
#: phrase from COAT's templates ("an object that can be used to cut something").
TEMPLATES: dict[str, tuple[str, str]] = {
    "utility": ("To {task}, I need {phrase}. Which object would you use?",
                "I need {phrase}. Which object would you use?"),
    "task": ("Which object would you use for this task: {task}?", "Which object would you use?"),
}


def check_template(template: str) -> str:
    """Return ``template`` if it is one of :data:`TEMPLATES`.

    Raises:
        ConfigError: another name (the message lists the valid ones).
    """
    if template not in TEMPLATES:
        raise ConfigError(f"unknown affinity template {template!r}; valid: {', '.join(TEMPLATES)}")
    return template


def object_name(obj: str) -> str:
    """The words the model scores for an object type (``ButterKnife`` -> ``butter knife``)."""
    return object_text(obj).removeprefix("a ")


def task_affinity(llm: LLMBackend, task: str, phrase: str, objects: Sequence[str],
                  template: str = "task") -> list[float]:
    """The model's affinity of each object for ``task`` given the utility's ``phrase`` (module docstring).

    Raises:
        ConfigError: an unknown template, or a model that cannot score (a generating model).
        SelectionError: the model's scores are unusable (:func:`planner.llm.base.check_scores`).
    """
    prompt, neutral = TEMPLATES[check_template(template)]
    if not llm.supports_scoring:
        raise ConfigError(f"{llm.model_id} cannot score options; the affinity needs a scoring model (local, "
                          "local:gemma-270m)")
    return llm.score(prompt.format(task=task, phrase=phrase), [object_name(o) for o in objects],
                     neutral_prompt=neutral.format(phrase=phrase))


class LLMBlend:
    """A learned scorer (:class:`~planner.learned.LearnedModel` or :class:`~planner.learned.FoldedModel`) whose
    stage-1 logit gains ``weight * affinity / scale`` for tasks (see the module docstring).

    Args:
        learned: The learned scorer; stage 2 and the keep threshold are its.
        llm: A scoring model backend.
        phrases: Utility -> phrase (``kb.templates.utility_phrases``).
        weight: Logits added per ``scale`` nats of affinity; 0 gives the head's logits.
        template: One of :data:`TEMPLATES`.
        scale: The affinity's spread (nats), so that ``weight`` means the same for every model.
        keep_logit: Stage 1's keep threshold for the blended logit (None: the head's).
    """

    def __init__(self, learned: Any, llm: LLMBackend, phrases: Mapping[str, str], *, weight: float,
                 template: str = "task", scale: float = 1.0, keep_logit: float | None = None) -> None:
        if not (math.isfinite(weight) and weight >= 0) or not (math.isfinite(scale) and scale > 0):
            raise ConfigError(f"LLMBlend needs a finite weight >= 0 and scale > 0, got weight={weight!r}, "
                              f"scale={scale!r}")
        if not llm.supports_scoring:
            raise ConfigError(f"{llm.model_id} cannot score options; the affinity needs a scoring model (local, "
                              "local:gemma-270m)")
        if keep_logit is not None and not math.isfinite(keep_logit):
            raise ConfigError(f"LLMBlend keep_logit must be a finite number, got {keep_logit!r}")
        self.learned, self.llm, self.phrases = learned, llm, dict(phrases)
        self.weight, self.template, self.scale = float(weight), check_template(template), float(scale)
        self._keep = keep_logit

    def __repr__(self) -> str:
        return f"LLMBlend({self.learned!r}, {self.llm.model_id}, weight={self.weight:g}, template={self.template})"

    @property
    def model_id(self) -> str:
        """The head's id, the model's and the blend's settings: what changes an answer."""
        keep = "" if self._keep is None else f"-k{self._keep:g}"
        return (f"{self.learned.model_id}+{self.llm.model_id}-{self.template}"
                f"-w{self.weight:g}-s{self.scale:g}{keep}")

    @property
    def keep_logit(self) -> float:
        """Stage 1's keep threshold: the one given, else the head's. The affinity is mostly positive (naming the
        task makes an object likelier), so the blend keeps more objects at the head's threshold."""
        if self._keep is not None:
            return self._keep
        return float(getattr(self.learned, "keep_logit", 0.0))

    def affinity(self, task: str, utility: str, objects: Sequence[str]) -> list[float]:
        """:func:`task_affinity` for ``utility``'s phrase.

        Raises:
            ConfigError: a utility with no phrase.
        """
        if utility not in self.phrases:
            raise ConfigError(f"no phrase for utility {utility!r}; known: {', '.join(sorted(self.phrases))}")
        return task_affinity(self.llm, task, self.phrases[utility], objects, self.template)

    def suits(self, task: str | None, utility: str, objects: Sequence[str]) -> list[float]:
        """The head's logits plus the weighted affinity (the head's alone for no task or weight 0)."""
        base = list(self.learned.suits(task, utility, objects))
        if task is None or self.weight == 0 or not objects:
            return base
        aff = self.affinity(task, utility, objects)
        return [b + self.weight * a / self.scale for b, a in zip(base, aff, strict=True)]

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> list[float]:
        """The head's stage-2 scores."""
        return list(self.learned.rank(task, utility, pairs))

    @contextmanager
    def routing(self, question: Question) -> Iterator[Any]:
        """The head's fold routing for ``question`` (held-out fold models), else nothing to route."""
        route = getattr(self.learned, "routing", None)
        with route(question) if route is not None else nullcontext() as m:
            yield m
