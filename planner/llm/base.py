"""The protocol every model backend implements, and its counters.

Stages only ever call :meth:`LLMBackend.structured` (answer parsed into a pydantic model, re-asked with
the validation error, then :class:`~planner.errors.SelectionError`) and, when
:attr:`LLMBackend.supports_scoring` is true, :meth:`LLMBackend.score` (calibrated log-likelihood of each
option). Models this small pick answer letters at chance but rank options well by likelihood, so the
stages prefer scoring when it is available.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from ..errors import ConfigError

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


__all__ = ["LLMBackend", "LLMStats", "check_options"]
