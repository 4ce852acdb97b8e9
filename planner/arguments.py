"""The arguments every planning call shares, checked at the boundary: each error names the argument, its value and
what is accepted (:mod:`planner.api` and :mod:`planner.scene_planner` call these first)."""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from .errors import ConfigError
from .knowledge import KnowledgeBase
from .pipeline import PIPELINES
from .schemas import TaskSpec

if TYPE_CHECKING:
    from .llm import LLMBackend

MAX_TASK_CHARS = 2000
"""Longest task text accepted: a task is a sentence or two, not a document."""
STRATEGIES: tuple[str, ...] = ("hybrid", "llm", "knowledge", "learned")
INTERPRETS: tuple[str, ...] = ("exact", "nearest", "model")
_LLM_MEMBERS = ("structured", "score", "supports_scoring")


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, shortened to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def check_type(name: str, value: Any, types: type | tuple[type, ...], accepted: str) -> None:
    """Raise TypeError naming ``name``, its value and what is ``accepted`` unless ``value`` is one of ``types``."""
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise TypeError(f"{name} must be {accepted}, got {type(value).__name__} {shown(value)}")


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def check_choice(name: str, value: Any, allowed: Collection[str]) -> None:
    """Raise TypeError for a ``value`` that is not a str, ConfigError for one not in ``allowed``."""
    valid = ", ".join(repr(a) for a in allowed)
    check_type(name, value, str, f"one of {valid}")
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {valid}, got {shown(value)}")


def check_task(task: Any) -> None:
    """A task is a TaskSpec or a non-empty text of at most MAX_TASK_CHARS characters.

    Raises:
        TypeError: ``task`` is neither a str nor a TaskSpec.
        ConfigError: the text is empty, only whitespace, too long, or not valid Unicode.
    """
    if isinstance(task, TaskSpec):
        return
    check_type("task", task, str, "a task text (e.g. 'cut cake') or a planner.schemas.TaskSpec")
    if not task.strip():
        raise ConfigError(f"empty task {shown(task)}: not understood; describe what the robot should do, e.g. "
                          "'cut cake', 'boil water', 'put the apple in the fridge' (`coat tasks` lists COAT's tasks)")
    if len(task) > MAX_TASK_CHARS:
        raise ConfigError(f"task is {len(task):,} characters long ({shown(task)}); at most {MAX_TASK_CHARS:,} "
                          "are accepted: describe the task in a sentence, e.g. 'cut cake'")
    try:
        task.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ConfigError(f"task {shown(task)} is not valid Unicode (a lone surrogate at character {e.start}); "
                          "pass the text decoded from UTF-8") from None


def check_llm(llm: Any) -> None:
    """``llm`` is None, a model spec string or an object with the LLMBackend members; else TypeError."""
    if llm is None or isinstance(llm, str):
        return
    missing = [m for m in _LLM_MEMBERS if not hasattr(type(llm), m) and not hasattr(llm, m)]
    if missing:
        raise TypeError(
            "llm must be None (knowledge only), a model spec string ('local', 'fake', 'openai:<model>', ...) or "
            "a backend with structured(), score() and supports_scoring (planner.llm.base.LLMBackend), got "
            f"{type(llm).__name__} {shown(llm)} (no {', '.join(missing)})"
        )


def check_data_args(kb: Any, data_dir: Any) -> None:
    """``kb`` is a KnowledgeBase or None and ``data_dir`` a path or None; else TypeError."""
    if kb is not None:
        check_type("kb", kb, KnowledgeBase, "a planner.knowledge.KnowledgeBase (load_knowledge()) or None")
    if data_dir is not None:
        check_type("data_dir", data_dir, (str, os.PathLike), "a directory path (str or os.PathLike) or None")
        path = os.fspath(data_dir)
        if (b"\x00" if isinstance(path, bytes) else "\x00") in path:
            raise ConfigError(f"data_dir {shown(data_dir)} contains a NUL character; no path can")


def check_decision_args(*, llm: Any, planner: Any, strategy: Any, kb: Any, data_dir: Any) -> None:
    """The arguments every planning call shares: the model, pipeline, strategy and knowledge."""
    check_llm(llm)
    check_choice("planner", planner, tuple(PIPELINES))
    check_choice("strategy", strategy, STRATEGIES)
    check_data_args(kb, data_dir)


def check_plan_args(
    task: Any, *, llm: Any, planner: Any, strategy: Any, utility: Any, interpret: Any, kb: Any, data_dir: Any
) -> None:
    """Validate the arguments of :func:`plan_in_state` / :func:`planner.api.plan` before any work is done.

    Raises:
        TypeError: an argument of the wrong type (the message names it, its value and what is accepted).
        ConfigError: an argument of the right type with a value that is not allowed.
    """
    check_task(task)
    check_decision_args(llm=llm, planner=planner, strategy=strategy, kb=kb, data_dir=data_dir)
    if utility is not None:
        check_type("utility", utility, str, "one of COAT's utilities (e.g. 'cutting') or None")
    check_choice("interpret", interpret, INTERPRETS)


def load_kb(kb: KnowledgeBase | None, data_dir: Any) -> KnowledgeBase:
    """``kb`` itself, or COAT's knowledge base from ``data_dir``."""
    if kb is not None:
        return kb
    from .knowledge import load_knowledge

    return load_knowledge(data_dir)


def make_backend(llm: LLMBackend | str | None) -> LLMBackend | None:
    """A model backend from a spec string; a backend or None passes through."""
    if llm is None or not isinstance(llm, str):
        return llm
    from .llm import make_llm

    return make_llm(llm)


__all__ = [
    "INTERPRETS", "MAX_TASK_CHARS", "STRATEGIES", "check_choice", "check_data_args", "check_decision_args",
    "check_llm", "check_plan_args", "check_task", "check_type", "load_kb", "make_backend", "shown",
]
