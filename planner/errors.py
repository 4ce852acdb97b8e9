"""One flat error hierarchy for coat-planner. Every message says how to fix the problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class PlannerError(Exception):
    """Base class of every error coat-planner raises on purpose."""


class ConfigError(PlannerError, ValueError):
    """Raised when an option, spec string or argument has a value that is not allowed."""


class DependencyNotInstalled(PlannerError, ImportError):
    """Raised when an optional extra is needed but not installed; the message has the pip line."""


class UnknownIdError(PlannerError, KeyError):
    """Raised when a registry id (scene, skill, model, set) is unknown; the message lists valid ids."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class RegistrationError(PlannerError):
    """Raised when a plug-in (skill, env, estimator) is registered twice or is not the right type."""


class ResetNeeded(PlannerError, RuntimeError):
    """Raised when an environment is stepped before reset(); call reset() first."""


class DataNotFoundError(PlannerError, FileNotFoundError):
    """Raised when the COAT / AI2-THOR data directory is missing or incomplete."""


class DataError(PlannerError, ValueError):
    """Raised when a data file is corrupt or does not match its schema; names the file and the key path."""

    def __init__(self, path: Any, key: str, problem: str) -> None:
        self.path = str(path)
        self.key = key
        self.problem = problem
        super().__init__(f"{self.path}: at {key or '<root>'}: {problem}")

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole: a Ray worker's error reaches the driver as itself
        return (type(self), (self.path, self.key, self.problem))


class SimulatorError(PlannerError, RuntimeError):
    """Raised when a simulator process cannot start or died; it has been closed."""


class ModelUnavailableError(PlannerError, ConnectionError):
    """Raised when a model server cannot be reached (or timed out); the message names the URL."""


class FetchError(PlannerError):
    """Raised when one URL cannot be fetched (after retries, for transient failures)."""


class DownloadError(PlannerError):
    """Raised when some files could not be fetched or failed their checksum; lists every failure."""

    def __init__(self, message: str, failures: Sequence[tuple[str, str]]) -> None:
        self.failures = list(failures)
        self.message = message
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.failures))


class SelectionError(PlannerError):
    """Raised when a model's answers stayed invalid after every retry; keeps the last raw reply."""

    def __init__(self, message: str, *, attempts: int, last_raw: str, errors: Sequence[str] = ()) -> None:
        self.attempts = attempts
        self.last_raw = last_raw
        self.errors = list(errors)
        self.message = message
        super().__init__(f"{message} (after {attempts} attempts; last reply: {last_raw[:200]!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_selection_error, (type(self), self.message, self.attempts, self.last_raw, self.errors))


def _selection_error(cls: type[SelectionError], message: str, attempts: int, last_raw: str,
                     errors: Sequence[str]) -> SelectionError:
    return cls(message, attempts=attempts, last_raw=last_raw, errors=errors)


class WorkerLostError(PlannerError):
    """Raised when Ray actors died on work items (each tried twice); the other rows are written, a rerun adds these."""


__all__ = [
    "ConfigError",
    "DataError",
    "DataNotFoundError",
    "DependencyNotInstalled",
    "DownloadError",
    "FetchError",
    "ModelUnavailableError",
    "PlannerError",
    "RegistrationError",
    "ResetNeeded",
    "SelectionError",
    "SimulatorError",
    "UnknownIdError",
    "WorkerLostError",
]
