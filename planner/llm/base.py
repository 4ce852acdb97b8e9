"""The protocol every model backend implements, and its counters.

Stages only ever call :meth:`LLMBackend.structured` (answer parsed into a pydantic model, re-asked with
the validation error, then :class:`~planner.errors.SelectionError`) and, when
:attr:`LLMBackend.supports_scoring` is true, :meth:`LLMBackend.score` (calibrated log-likelihood of each
option). Models this small pick answer letters at chance but rank options well by likelihood, so the
stages prefer scoring when it is available.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from ..errors import ConfigError, SelectionError

M = TypeVar("M", bound=BaseModel)


@dataclass
class LLMStats:
    """Mutable counters of one backend's work since the last :meth:`LLMBackend.reset_stats`."""

    calls: int = 0
    """Model invocations actually run (cache hits not included)."""
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    """Wall time spent inside the model (cache hits cost ~0)."""
    retries: int = 0
    """Re-asks after an invalid reply."""

    def as_dict(self) -> dict[str, Any]:
        """Return the counters as a plain dict (for JSONL logs)."""
        return asdict(self)


@runtime_checkable
class LLMBackend(Protocol):
    """What a planner stage needs from a language model."""

    model_id: str
    stats: LLMStats

    @property
    def supports_scoring(self) -> bool:
        """True when :meth:`score` works for this model."""
        ...

    def structured(
        self,
        messages: Sequence[BaseMessage],
        schema: type[M],
        *,
        context: Mapping[str, Any] | None = None,
    ) -> M:
        """Ask the model and return its answer validated into ``schema`` (with ``context``).

        Raises:
            SelectionError: when every attempt gave an invalid answer; keeps the last raw reply.
        """
        ...

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        """Return logL(option | prompt) - logL(option | neutral prompt) for each option.

        Raises:
            NotImplementedError: when the model cannot score (see :attr:`supports_scoring`).
            SelectionError: the model's scores are unusable (see :func:`check_scores`); the stages count
                the answer as unparsed.
        """
        ...

    def reset_stats(self) -> None:
        """Zero :attr:`stats`."""
        ...


def check_options(options: Sequence[str]) -> None:
    """Refuse an empty or duplicated option list before a score call (a programmer error)."""
    if not options:
        raise ConfigError("score() needs at least one option, got none")
    dupes = sorted({o for o in options if options.count(o) > 1})
    if dupes:
        raise ConfigError(f"score() got duplicate options {dupes}; options must be distinct")


def check_scores(scores: Any, options: Sequence[str], model_id: str) -> list[float]:
    """Validate a model's option scores: one finite number per option, else the answer is unusable.

    NaN would sort as if it were the best option and a wrong-length list would be read against the wrong
    options, so neither is ever used: the stages turn this error into an unparsed answer.

    Raises:
        SelectionError: not a list, a length other than ``len(options)``, a non-number or a non-finite
            number (``attempts=1``; ``last_raw`` is the scores' repr).
    """
    problem = ""
    out: list[float] = []
    if isinstance(scores, (str, bytes, Mapping)) or not isinstance(scores, Sequence):
        problem = f"scores must be a list of numbers, got {type(scores).__name__}"
    elif len(scores) != len(options):
        problem = f"{len(scores)} scores for {len(options)} options"
    else:
        for i, v in enumerate(scores):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                problem = f"score #{i} is {v!r}, not a number"
                break
            if not math.isfinite(float(v)):
                problem = f"score #{i} is {v!r}, not finite"
                break
            out.append(float(v))
    if problem:
        raise SelectionError(f"{model_id} gave unusable scores: {problem}", attempts=1, last_raw=repr(scores)[:500],
                             errors=[problem])
    return out


__all__ = ["LLMBackend", "LLMStats", "check_options", "check_scores"]
