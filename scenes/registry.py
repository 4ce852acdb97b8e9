"""A Gymnasium-like registry of scene environments with string entry points.

Registering never imports a simulator: an :class:`EnvSpec` holds ``"module:Class"`` and the module is imported
by :func:`make` only. ``make`` also checks the spec's optional extra first (so a missing ``ai2thor`` gives the
``pip install`` line, not an ImportError from deep inside), then wraps the env in
:class:`~scenes.wrappers.OrderEnforcing` and, when a step limit is set, :class:`~scenes.wrappers.TimeLimit`.

Example:
    >>> import scenes
    >>> "embedded/kitchen-v0" in scenes.registry_ids()
    True
    >>> env = scenes.make("embedded/kitchen-v0", max_steps=50)      # doctest: +SKIP
"""

from __future__ import annotations

import difflib
import importlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planner._optional import install_hint, is_available
from planner.errors import DependencyNotInstalled, RegistrationError, UnknownIdError

from .base import SceneEnv

log = logging.getLogger(__name__)

_ID_RE = re.compile(r"^[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+-v\d+$")

EXTRA_MODULES: dict[str, str] = {"thor": "ai2thor", "sciworld": "scienceworld", "vision": "cv2"}
"""The module whose presence means an extra is installed (checked without importing it)."""


@dataclass(frozen=True)
class EnvSpec:
    """How to build one registered environment.

    Attributes:
        id: ``family/Name-vN``, e.g. ``embedded/kitchen-v0``.
        entry_point: ``"module:Class"`` (or ``"module:function"``) returning a :class:`~scenes.base.SceneEnv`.
        kwargs: Keyword arguments passed to the entry point (``make`` kwargs override them).
        extra: The coat-planner extra the backend needs (``"thor"``, ``"sciworld"``), or None.
        max_steps: Default step limit (TimeLimit), or None for no limit.
    """

    id: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    extra: str | None = None
    max_steps: int | None = None

    @property
    def family(self) -> str:
        """The part before the slash (``embedded``, ``thor``, ``sciworld``)."""
        return self.id.split("/", 1)[0]


_REGISTRY: dict[str, EnvSpec] = {}


def register(
    id: str,  # noqa: A002  (Gymnasium's name)
    entry_point: str,
    kwargs: dict[str, Any] | None = None,
    extra: str | None = None,
    max_steps: int | None = None,
) -> EnvSpec:
    """Register an environment id. Nothing is imported.

    Registering the same id again with an identical spec is a no-op (so a module may be imported twice);
    a different spec under an existing id is an error.

    Args:
        id: ``family/Name-vN``.
        entry_point: ``"package.module:Attribute"``.
        kwargs: Default keyword arguments for the entry point.
        extra: Optional extra the backend needs (checked by :func:`make`).
        max_steps: Default step limit, or None.

    Returns:
        The registered spec.

    Raises:
        RegistrationError: when the id or entry point is malformed, or the id is taken by another spec.
    """
    if not isinstance(id, str) or not _ID_RE.match(id):
        raise RegistrationError(f"bad env id {id!r}: use 'family/Name-vN', e.g. 'embedded/kitchen-v0'")
    mod, sep, attr = entry_point.partition(":")
    if not sep or not mod or not attr:
        raise RegistrationError(f"bad entry point {entry_point!r} for {id!r}: use 'package.module:Attribute'")
    if max_steps is not None and (not isinstance(max_steps, int) or max_steps <= 0):
        raise RegistrationError(f"max_steps for {id!r} must be a positive int or None, got {max_steps!r}")
    spec_ = EnvSpec(id=id, entry_point=entry_point, kwargs=dict(kwargs or {}), extra=extra, max_steps=max_steps)
    old = _REGISTRY.get(id)
    if old is not None and old != spec_:
        raise RegistrationError(f"env id {id!r} is already registered with {old.entry_point!r} {old.kwargs!r}")
    _REGISTRY[id] = spec_
    return spec_


def registry_ids(family: str | None = None) -> list[str]:
    """Return the registered ids (sorted naturally), optionally only one family (``"embedded"``)."""
    ids = [i for i in _REGISTRY if family is None or i.split("/", 1)[0] == family]
    return sorted(ids, key=_natural_key)


def spec(id: str) -> EnvSpec:  # noqa: A002
    """Return the spec of ``id``.

    Raises:
        UnknownIdError: listing the available ids, closest matches first.
    """
    try:
        return _REGISTRY[id]
    except (KeyError, TypeError):
        raise UnknownIdError(unknown_id_message(id, list(_REGISTRY))) from None


def make(id: str, max_steps: int | None = None, **kwargs: Any) -> SceneEnv[Any, Any]:  # noqa: A002
    """Build a registered environment.

    Args:
        id: A registered id, e.g. ``"embedded/kitchen-v0"`` or ``"thor/FloorPlan1-v0"``.
        max_steps: Step limit (overrides the spec's); ``step`` then returns ``truncated=True`` at the limit.
        **kwargs: Override the spec's keyword arguments for the entry point.

    Returns:
        The environment wrapped in OrderEnforcing (and TimeLimit when a limit applies).

    Raises:
        UnknownIdError: unknown id (the message lists the available ones, closest first).
        DependencyNotInstalled: the spec's extra is missing (the message has the pip line).
        RegistrationError: the entry point cannot be imported or does not build a SceneEnv.
    """
    from .wrappers import OrderEnforcing, TimeLimit

    s = spec(id)
    _check_extra(s)
    factory = _load(s)
    env = factory(**{**s.kwargs, **kwargs})
    if not isinstance(env, SceneEnv):
        raise RegistrationError(
            f"entry point {s.entry_point!r} of {id!r} returned {type(env).__name__}, not a SceneEnv"
        )
    env.spec_id = s.id
    wrapped: SceneEnv[Any, Any] = OrderEnforcing(env)
    limit = max_steps if max_steps is not None else s.max_steps
    if limit is not None:
        wrapped = TimeLimit(wrapped, limit)
    return wrapped


def extra_available(s: EnvSpec) -> bool:
    """Return True when the spec needs no extra or its extra's module is installed (nothing is imported)."""
    return s.extra is None or is_available(EXTRA_MODULES.get(s.extra, s.extra))


def _check_extra(s: EnvSpec) -> None:
    if not extra_available(s):
        module = EXTRA_MODULES.get(s.extra or "", s.extra)
        raise DependencyNotInstalled(
            f"scene {s.id!r} needs {module!r}, which is not installed. Install it with: {install_hint(s.extra or '')}"
        )


def _load(s: EnvSpec) -> Any:
    mod_name, _, attr = s.entry_point.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name and (mod_name == e.name or mod_name.startswith(e.name + ".")):
            raise RegistrationError(f"entry point {s.entry_point!r} of {s.id!r}: module {mod_name!r} not found") from e
        raise
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise RegistrationError(f"entry point {s.entry_point!r} of {s.id!r}: {mod_name} has no {attr!r}") from None


def _natural_key(s: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def compact_ids(ids: Iterable[str]) -> list[str]:
    """Summarise ids that differ only by one number: ``thor/FloorPlan{1-30,201-230}-v0``."""
    groups: dict[tuple[str, str], list[int]] = {}
    singles: list[str] = []
    for i in ids:
        m = re.match(r"^(.*?[A-Za-z_/])(\d+)(-v\d+)$", i)
        if m:
            groups.setdefault((m.group(1), m.group(3)), []).append(int(m.group(2)))
        else:
            singles.append(i)
    out = list(singles)
    for (pre, post), nums in groups.items():
        if len(nums) == 1:
            out.append(f"{pre}{nums[0]}{post}")
            continue
        nums.sort()
        ranges: list[str] = []
        start = prev = nums[0]
        for n in nums[1:] + [None]:  # type: ignore[list-item]
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(f"{start}-{prev}" if prev != start else str(start))
            if n is not None:
                start = prev = n
        out.append(f"{pre}{{{','.join(ranges)}}}{post}")
    return sorted(out, key=_natural_key)


def unknown_id_message(id: object, known: list[str]) -> str:  # noqa: A002
    """The UnknownIdError text: close matches first, then every id (number ranges compacted)."""
    close = difflib.get_close_matches(str(id), known, n=5, cutoff=0.6)
    msg = f"unknown scene id {id!r}."
    if close:
        msg += " Did you mean: " + ", ".join(close) + "?"
    msg += " Available ids: " + ", ".join(compact_ids(known))
    return msg


__all__ = [
    "EXTRA_MODULES",
    "EnvSpec",
    "compact_ids",
    "extra_available",
    "make",
    "register",
    "registry_ids",
    "spec",
    "unknown_id_message",
]
