"""The scene ids, registered in Gymnasium's registry under the ``coat`` namespace, and what Gymnasium lacks.

``import scenes`` registers every id with :func:`gymnasium.register` (string entry points: nothing is imported
until an env is made), so ``gymnasium.make("coat/FloorPlan1-v0")`` works; a fresh interpreter that imported
only gymnasium names the module to import: ``gymnasium.make("scenes:coat/FloorPlan1-v0")`` (Gymnasium 1.x
reads no ``gymnasium.envs`` entry-point group, so a package entry point would register nothing).
:func:`make` is ``gymnasium.make`` plus what it lacks:

- an unknown id raises :class:`~planner.errors.UnknownIdError` with the closest ids first, then every id;
- the ids of earlier releases still work (``embedded/kitchen-v0`` is ``coat/kitchen-v0``,
  ``thor/FloorPlan1-v0`` is ``coat/thor-FloorPlan1-v0``, ``sciworld/boil-v0`` is ``coat/sciworld-boil-v0``);
- ``max_steps`` is Gymnasium's ``max_episode_steps`` (a :class:`gymnasium.wrappers.TimeLimit`).

A backend whose extra is missing says so when it starts (``pip install 'coat-planner[thor]'``), through
``gymnasium.make`` too.

Example:
    >>> import scenes
    >>> scenes.canonical_id("embedded/kitchen-v0"), scenes.spec("thor/FloorPlan7-v0").kwargs
    ('coat/kitchen-v0', {'scene': 'FloorPlan7'})
    >>> env = scenes.make("coat/kitchen-v0", max_steps=50)      # doctest: +SKIP
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any

import gymnasium
from gymnasium.envs.registration import EnvSpec

from planner._optional import is_available
from planner.errors import ConfigError, UnknownIdError

NAMESPACE = "coat"

BACKENDS: dict[str, tuple[str, str | None]] = {
    "embedded": ("scenes.embedded:EmbeddedEnv", None),
    "thor": ("scenes.thor:ThorEnv", "thor"),
    "sciworld": ("scenes.sciworld:ScienceWorldEnv", "sciworld"),
}
"""Backend family -> (entry point, the coat-planner extra it needs or None)."""

EXTRA_MODULES: dict[str, str] = {"thor": "ai2thor", "sciworld": "scienceworld", "vision": "cv2"}
"""The module whose presence means an extra is installed (checked without importing it)."""

_PREFIX = {"embedded": "", "thor": "thor-", "sciworld": "sciworld-"}
"""How a family's names start in the ``coat`` namespace (the embedded simulator is the default backend)."""


def register_family(family: str, names: Iterable[str], kwarg: str, *, nondeterministic: bool = False) -> None:
    """Register ``coat/<prefix><name>-v0`` for every name, building ``family``'s entry point with
    ``{kwarg: name}``."""
    entry_point, _extra = BACKENDS[family]
    for name in names:
        env_id = f"{NAMESPACE}/{_PREFIX[family]}{name}-v0"
        old = gymnasium.registry.get(env_id)
        if old is not None and (old.entry_point, old.kwargs) == (entry_point, {kwarg: name}):
            continue  # the module was imported again: the same spec (Gymnasium would warn about overriding it)
        gymnasium.register(id=env_id, entry_point=entry_point, kwargs={kwarg: name},
                           nondeterministic=nondeterministic)


def canonical_id(id: str) -> str:  # noqa: A002  (Gymnasium's name)
    """The ``coat/`` id of an id of an earlier release (``embedded/kitchen-v0`` -> ``coat/kitchen-v0``); other
    ids unchanged."""
    family, sep, rest = id.partition("/") if isinstance(id, str) else ("", "", "")
    if sep and family in _PREFIX:
        return f"{NAMESPACE}/{_PREFIX[family]}{rest}"
    return id


def same_scene(a: str, b: str) -> bool:
    """True when two ids name the same registered scene (``embedded/kitchen-v0`` and ``coat/kitchen-v0``)."""
    return canonical_id(a) == canonical_id(b)


def check_env_scene(env: Any, env_id: str | None, what: str = "this plan") -> None:
    """Refuse an env made for another scene than ``env_id`` (the scene a plan was made in).

    Nothing is checked when ``env_id`` is None or the env was not made from an id (a backend built directly).

    Raises:
        ConfigError: one line naming both scenes and the fix.
    """
    made = getattr(getattr(env, "unwrapped", env), "spec", None)
    if env_id is None or made is None or same_scene(env_id, made.id):
        return
    raise ConfigError(
        f"{what} was made in scene {env_id!r}, but the env is {made.id!r}: its objects are another scene's. Make "
        f"the env with scenes.make({canonical_id(env_id)!r}) (planner.api.execute_plan does), or plan again in "
        f"{made.id!r}"
    )


def registry_ids(family: str | None = None) -> list[str]:
    """The ``coat/`` ids (sorted naturally), optionally of one backend family (``"embedded"``)."""
    ids = [i for i, s in gymnasium.registry.items() if s.namespace == NAMESPACE
           and (family is None or family_of(s) == family)]
    return sorted(ids, key=_natural_key)


def spec(id: str) -> EnvSpec:  # noqa: A002
    """The Gymnasium spec of ``id`` (an id of an earlier release is accepted).

    Raises:
        UnknownIdError: listing the closest ids first, then every id.
    """
    s = gymnasium.registry.get(canonical_id(id)) if isinstance(id, str) else None
    if s is None:
        raise UnknownIdError(unknown_id_message(id, registry_ids()))
    return s


def make(id: str, max_steps: int | None = None, **kwargs: Any) -> gymnasium.Env[Any, Any]:  # noqa: A002
    """``gymnasium.make`` with close-id suggestions and the ids of earlier releases.

    Args:
        id: A registered id, e.g. ``"coat/kitchen-v0"``, ``"coat/thor-FloorPlan1-v0"`` (or ``"embedded/kitchen-v0"``).
        max_steps: Step limit (Gymnasium's ``max_episode_steps``); ``step`` then returns ``truncated=True`` at it.
        **kwargs: Keyword arguments of the backend (they override the registered ones), and ``render_mode``.

    Returns:
        The env as ``gymnasium.make`` wraps it (PassiveEnvChecker, OrderEnforcing, TimeLimit with a limit); the
        backend is ``env.unwrapped``.

    Raises:
        UnknownIdError: unknown id (closest ids first).
        DependencyNotInstalled: the backend's extra is missing (the message has the pip line).
    """
    return gymnasium.make(spec(id).id, max_episode_steps=max_steps, **kwargs)


def family_of(s: EnvSpec) -> str | None:
    """The backend family of a spec (``embedded``, ``thor``, ``sciworld``), or None for another entry point."""
    return next((f for f, (ep, _) in BACKENDS.items() if ep == s.entry_point), None)


def extra_of(s: EnvSpec) -> str | None:
    """The coat-planner extra a spec's backend needs, or None."""
    family = family_of(s)
    return BACKENDS[family][1] if family else None


def extra_available(s: EnvSpec) -> bool:
    """True when the spec needs no extra or its extra's module is installed (nothing is imported)."""
    extra = extra_of(s)
    return extra is None or is_available(EXTRA_MODULES.get(extra, extra))


def _legacy_id(id: str) -> str:  # noqa: A002
    """The id of an earlier release for a ``coat/`` id (``coat/thor-FloorPlan1-v0`` -> ``thor/FloorPlan1-v0``)."""
    name = id.partition("/")[2]
    family = next((f for f, pre in _PREFIX.items() if pre and name.startswith(pre)), "embedded")
    return f"{family}/{name.removeprefix(_PREFIX[family])}"


def _natural_key(s: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def compact_ids(ids: Iterable[str]) -> list[str]:
    """Summarise ids that differ only by one number: ``coat/thor-FloorPlan{1-30,201-230}-v0``."""
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
        nums.sort()
        ranges: list[str] = []
        start = prev = nums[0]
        for n in [*nums[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(f"{start}-{prev}" if prev != start else str(start))
            if n is not None:
                start = prev = n
        out.append(f"{pre}{ranges[0]}{post}" if len(nums) == 1 else f"{pre}{{{','.join(ranges)}}}{post}")
    return sorted(out, key=_natural_key)


def unknown_id_message(id: object, known: list[str]) -> str:  # noqa: A002
    """The UnknownIdError text: close matches first, then every id (number ranges compacted)."""
    wanted = canonical_id(id) if isinstance(id, str) else str(id)
    close = difflib.get_close_matches(wanted, known, n=5, cutoff=0.6)
    if wanted != id:  # an id in the style of an earlier release: suggest in that style
        close = [_legacy_id(c) for c in close]
    msg = f"unknown scene id {id!r}."
    if close:
        msg += " Did you mean: " + ", ".join(close) + "?"
    return msg + " Available ids: " + ", ".join(compact_ids(known))


__all__ = [
    "BACKENDS",
    "EXTRA_MODULES",
    "NAMESPACE",
    "canonical_id",
    "check_env_scene",
    "compact_ids",
    "extra_available",
    "extra_of",
    "family_of",
    "make",
    "register_family",
    "registry_ids",
    "same_scene",
    "spec",
    "unknown_id_message",
]
