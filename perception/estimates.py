"""The per-variable estimate every perception module exchanges: a value (or unknown), a confidence, a source.

This is a leaf of the package (it imports only planner's contract leaves), so the estimators
(:mod:`perception.base` and the modules built on it) and the type priors (:mod:`perception.priors`) can
all use it without importing each other.

Example:
    >>> VariableEstimate.of("mass", "light", 0.9, "metadata", "mass=0.2 kg").value.value
    'light'
    >>> VariableEstimate.unknown("vision").known
    False
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from planner.errors import ConfigError
from planner.schemas import VARIABLE_ENUMS, VARIABLES

Source = Literal["metadata", "vision", "text", "prior"]
SOURCES: tuple[str, ...] = ("metadata", "vision", "text", "prior")


def check_variable(variable: str) -> str:
    """Return ``variable`` if it is one of the five variables, else raise ConfigError listing them."""
    if variable not in VARIABLE_ENUMS:
        raise ConfigError(f"unknown variable {variable!r}; valid variables are {list(VARIABLES)}")
    return variable


@dataclass(frozen=True)
class VariableEstimate:
    """One variable of one object: a value (or None = unknown), a confidence in [0, 1] and a source.

    Attributes:
        value: The COAT enum member (``Mass.LIGHT``...), or None when the source could not tell.
        confidence: How much to trust ``value``; 0 for unknown.
        source: ``"metadata"``, ``"vision"``, ``"text"`` or ``"prior"``.
        note: Short evidence string for logs (``"mass=0.2 kg"``).
    """

    value: Enum | None
    confidence: float = 0.0
    source: str = "prior"
    note: str = ""

    @classmethod
    def of(cls, variable: str, value: Any, confidence: float, source: str, note: str = "") -> VariableEstimate:
        """Build an estimate, validating ``value`` against the variable's enum.

        Raises:
            ConfigError: for an unknown variable, value or source (programmer errors).
        """
        enum = VARIABLE_ENUMS[check_variable(variable)]
        if source not in SOURCES:
            raise ConfigError(f"unknown source {source!r}; valid sources are {list(SOURCES)}")
        if value is None:
            return cls(None, 0.0, source, note)
        try:
            member = value if isinstance(value, enum) else enum(value)
        except ValueError:
            raise ConfigError(
                f"{value!r} is not a valid {variable}; valid values are {enum.values()}"  # type: ignore[attr-defined]
            ) from None
        return cls(member, min(1.0, max(0.0, float(confidence))), source, note)

    @classmethod
    def unknown(cls, source: str, note: str = "") -> VariableEstimate:
        """An estimate that says "this source cannot tell" (value None, confidence 0)."""
        return cls(None, 0.0, source, note)

    @property
    def known(self) -> bool:
        """True when the source produced a value."""
        return self.value is not None


__all__ = ["SOURCES", "Source", "VariableEstimate", "check_variable"]
