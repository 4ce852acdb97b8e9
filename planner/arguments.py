"""The arguments every planning call shares, checked at the boundary: each error names the argument, its value and
what is accepted (:mod:`planner.api`, :mod:`planner.scene_planner` and :mod:`planner.planning` call these first).

Numbers are checked here too, wherever they enter (command-line flags, API arguments, ``--option KEY=VALUE``,
manifests): a :class:`Range` says what is accepted (finite, an integer or not, the bounds) and names it in the
error, so NaN, infinities and out-of-range values are refused before any work starts.

The module is light (the knowledge base and pipelines are imported where they are used), so the command line
can build its flag types from it.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ConfigError
from .schemas import TaskSpec

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .knowledge import KnowledgeBase
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


@dataclass(frozen=True)
class Range:
    """The numbers an argument accepts: always finite; an integer when ``integer``; at least ``low`` and at most
    ``high`` (either bound excluded when ``low_open`` / ``high_open``; None: no bound).

    Example:
        >>> Range(0, 1, high_open=True).check("dropout", 0.5)
        0.5
        >>> Range(0, integer=True).describe()
        'an integer >= 0'
    """

    low: float | None = None
    high: float | None = None
    integer: bool = False
    low_open: bool = False
    high_open: bool = False

    def describe(self) -> str:
        """What is accepted, in words: ``an integer >= 1``, ``a finite number > 0 and <= 600``."""
        what = "an integer" if self.integer else "a finite number"
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>' if self.low_open else '>='} {_bound(self.low)}")
        if self.high is not None:
            bounds.append(f"{'<' if self.high_open else '<='} {_bound(self.high)}")
        return " ".join([what, " and ".join(bounds)]).strip()

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not accepted (``must be ..., got ...``), or None when it is."""
        ok_type = isinstance(value, numbers.Integral if self.integer else numbers.Real) and not isinstance(value, bool)
        if ok_type and self._inside(value):
            return None
        return f"must be {self.describe()}, got {shown(value)}"

    def _inside(self, value: Any) -> bool:
        v = float(value) if not isinstance(value, numbers.Integral) else value
        if isinstance(v, float) and not math.isfinite(v):
            return False
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            return False
        return self.high is None or (v < self.high if self.high_open else v <= self.high)

    def check(self, name: str, value: Any) -> Any:
        """``value`` when accepted.

        Raises:
            TypeError: ``value`` is not a number (a bool is not one), or not an integer where one is due.
            ConfigError: NaN, an infinity or a number out of range; the message names ``name``, the value and the
                accepted range.
        """
        problem = self.problem(value)
        if problem is None:
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or (
                self.integer and not isinstance(value, numbers.Integral)):
            raise TypeError(f"{name} {problem}")
        raise ConfigError(f"{name} {problem}")

    def parse(self, text: str) -> int | float:
        """``text`` (a command-line value) as a number in range.

        Raises:
            ValueError: not a number, or not accepted; the message says what is.
        """
        try:
            value: int | float = int(text) if self.integer else float(text)
        except ValueError:
            raise ValueError(f"must be {self.describe()}, got {shown(text)}") from None
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(f"must be {self.describe()}, got {shown(text)}")
        return value


PLOT_SUFFIXES = (".png", ".pdf", ".svg")
"""Picture files a plot is written as (matplotlib takes the format from the suffix, and adds ``.png`` to a path
without one)."""
def _bound(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


SEED = Range(0, 2**32 - 1, integer=True)
"""A random seed (numpy and torch take any of these)."""
COUNT = Range(0, integer=True)
"""A count that may be zero (re-plans, retries, perturbations)."""
POSITIVE_COUNT = Range(1, integer=True)
"""A count of at least one (episodes, seeds, repeats, a limit)."""


def check_number(name: str, value: Any, accepted: Range) -> Any:
    """``accepted.check(name, value)``: the value when accepted, else a TypeError / ConfigError naming ``name``,
    the value and the accepted range."""
    return accepted.check(name, value)


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
    """``llm`` is None, a model spec string, a langchain chat model (``BaseChatModel``) or an object with the
    LLMBackend members; else TypeError naming what is accepted."""
    if llm is None or isinstance(llm, str) or is_chat_model(llm):
        return
    accepted = ("llm must be None (knowledge only), a model spec string ('local', 'fake', 'openai:<model>', ...), a "
                "langchain chat model (any langchain_core BaseChatModel) or a backend with structured(), score() and "
                "supports_scoring (planner.llm.base.LLMBackend)")
    base = _langchain_class("language_models.base", "BaseLanguageModel")
    if base is not None and isinstance(llm, base):  # a completion model: the stages speak in chat messages
        raise TypeError(f"{accepted}, got the langchain completion model {type(llm).__name__} (not a chat model): "
                        "use its chat counterpart (e.g. ChatOpenAI, ChatOllama)")
    missing = [m for m in _LLM_MEMBERS if not hasattr(type(llm), m) and not hasattr(llm, m)]
    if missing:
        raise TypeError(f"{accepted}, got {type(llm).__name__} {shown(llm)} (no {', '.join(missing)})")


def _langchain_class(module: str, name: str) -> type | None:
    """A langchain_core class, when langchain_core is imported (an instance of it cannot exist otherwise)."""
    import sys

    mod = sys.modules.get(f"langchain_core.{module}")
    cls = getattr(mod, name, None)
    return cls if isinstance(cls, type) else None


def is_chat_model(llm: Any) -> bool:
    """True for a langchain chat model (an instance of ``langchain_core``'s ``BaseChatModel``)."""
    cls = _langchain_class("language_models.chat_models", "BaseChatModel")
    return cls is not None and isinstance(llm, cls)


def check_data_args(kb: Any, data_dir: Any) -> None:
    """``kb`` is a KnowledgeBase or None and ``data_dir`` a path or None; else TypeError."""
    if kb is not None:
        from .knowledge import KnowledgeBase

        check_type("kb", kb, KnowledgeBase, "a planner.knowledge.KnowledgeBase (load_knowledge()) or None")
    if data_dir is not None:
        check_type("data_dir", data_dir, (str, os.PathLike), "a directory path (str or os.PathLike) or None")
        path = os.fspath(data_dir)
        if (b"\x00" if isinstance(path, bytes) else "\x00") in path:
            raise ConfigError(f"data_dir {shown(data_dir)} contains a NUL character; no path can")


def check_decision_args(*, llm: Any, planner: Any, strategy: Any, kb: Any, data_dir: Any) -> None:
    """The arguments every planning call shares: the model, pipeline, strategy and knowledge."""
    from .pipeline import PIPELINES

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


def data_dir_of(kb: KnowledgeBase | None, data_dir: Any) -> Any:
    """The one data directory of a call: ``data_dir``, else the directory ``kb`` was loaded from, else None (the
    running command's, else ``$COAT_DATA_DIR`` or the user cache: :func:`planner.paths.resolve_data_dir`).

    Raises:
        ConfigError: ``kb`` was loaded from another directory than ``data_dir`` (a call reads one data directory).
    """
    if kb is None:
        return data_dir
    if data_dir is not None:
        from .paths import same_dir

        if not same_dir(kb.root, data_dir):
            raise ConfigError(f"kb was loaded from {kb.root}, but data_dir is {shown(data_dir)}: a call reads one data "
                              "directory; pass kb= or data_dir= alone, or both of the same directory")
    return kb.root


def load_kb(kb: KnowledgeBase | None, data_dir: Any) -> KnowledgeBase:
    """``kb`` itself, or COAT's knowledge base from ``data_dir``.

    Raises:
        ConfigError: both are given and ``kb`` was loaded from another directory (see :func:`data_dir_of`).
    """
    if kb is not None:
        data_dir_of(kb, data_dir)
        return kb
    from .knowledge import load_knowledge

    return load_knowledge(data_dir)


def make_backend(llm: LLMBackend | BaseChatModel | str | None) -> LLMBackend | None:
    """A model backend from what ``llm=`` accepts: a spec string is built with :func:`planner.llm.make_llm`, a
    langchain chat model is wrapped in :class:`planner.llm.LangChainBackend` (no on-disk cache: wrap it yourself with
    ``cache=LLMCache()`` for one); a backend or None passes through."""
    if is_chat_model(llm):
        from .llm import LangChainBackend

        return LangChainBackend(llm)  # type: ignore[arg-type]
    if llm is None or not isinstance(llm, str):
        return llm  # type: ignore[return-value]
    from .llm import make_llm

    return make_llm(llm)


__all__ = [
    "COUNT", "INTERPRETS", "MAX_TASK_CHARS", "PLOT_SUFFIXES", "POSITIVE_COUNT", "SEED", "STRATEGIES", "Range",
    "check_choice", "check_data_args", "check_decision_args", "check_llm", "check_number", "check_plan_args",
    "check_task", "check_type", "data_dir_of", "is_chat_model", "load_kb", "make_backend", "shown",
]
