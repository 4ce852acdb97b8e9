"""The Gymnasium observation and action spaces the scene backends declare, and the views that fill them.

A :class:`~scenes.base.SceneObs` is the Gymnasium observation: as a dict it holds the keys of the env's
``observation_space`` (built here); its attributes keep the full AI2-THOR metadata the planner reads.

- AI2-THOR-like backends (embedded, THOR): ``{"objects": (ObjectState, ...), "held": str}`` plus ``"rgb"``
  (HxWx3 uint8) when frames are rendered and ``"depth"`` (HxW float32, metres) when depth is. One
  :class:`ObjectState` per object: id, type, parent receptacle, :data:`OBJECT_FLAGS` and the temperature
  (index into :data:`TEMPERATURES`). The action space is AI2-THOR's ``controller.step`` kwargs:
  ``{"action": "PickupObject", "objectId": "Mug|+00.12|..."}`` (``objectId`` "" for none; other keys, such as
  ``forceAction``, are passed on and lie outside the space).
- ScienceWorld: ``{"text": str, "inventory": str, "task_description": str}``; the action space is a text command.

Text outside :data:`TEXT_CHARS` (or longer than :data:`MAX_TEXT`) is replaced by ``?`` (or cut) in the Gymnasium
view only; ``SceneObs.text`` keeps the original.

Example:
    >>> from scenes.spaces import object_state, thor_observation_space
    >>> space = thor_observation_space()
    >>> s = object_state({"objectId": "Mug|1", "objectType": "Mug", "parentReceptacles": ["Table|2"],
    ...                   "temperature": "RoomTemp", "visible": True})
    >>> s.parent, s.flags[0], s in space["objects"].feature_space
    ('Table|2', True, True)
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

ID_CHARS = string.ascii_letters + string.digits + string.punctuation
"""Characters of AI2-THOR object ids, types and action names (``Mug|+00.12|-01.00|+00.90``, ``BreadSliced_0``)."""
TEXT_CHARS = string.printable
"""Characters of text observations and commands (printable ASCII and whitespace)."""
MAX_ID = 256
MAX_TEXT = 65_536
"""Longest text kept in the Gymnasium view (a ScienceWorld room description is a few thousand characters)."""

OBJECT_FLAGS: tuple[str, ...] = (
    "visible", "isInteractable", "isPickedUp", "isOpen", "isToggled", "isDirty", "isBroken", "isFilledWithLiquid",
    "isCooked", "isSliced", "isUsedUp",
)
"""The AI2-THOR metadata booleans in :attr:`ObjectState.flags`, in this order."""
TEMPERATURES: tuple[str, ...] = ("Cold", "RoomTemp", "Hot")
"""AI2-THOR's ``temperature`` values; :attr:`ObjectState.temperature` is the index."""
_TEMP_INDEX = {t: i for i, t in enumerate(TEMPERATURES)}


class ObjectState(NamedTuple):
    """One object in the Gymnasium view: immutable, so an unchanged object can be shared between steps."""

    objectId: str  # noqa: N815 (AI2-THOR's key)
    objectType: str  # noqa: N815
    parent: str
    """The first of ``parentReceptacles``, or "" when the object is in nothing."""
    flags: tuple[bool, ...]
    """:data:`OBJECT_FLAGS`, in order."""
    temperature: int
    """Index into :data:`TEMPERATURES` (RoomTemp when the metadata has none)."""


def _id_text(min_length: int = 1) -> spaces.Text:
    return spaces.Text(max_length=MAX_ID, min_length=min_length, charset=ID_CHARS)


def text_space() -> spaces.Text:
    """Free text (a ScienceWorld observation or command)."""
    return spaces.Text(max_length=MAX_TEXT, min_length=0, charset=TEXT_CHARS)


def object_space() -> spaces.Tuple:
    """The space of one :class:`ObjectState`."""
    return spaces.Tuple((_id_text(), _id_text(), _id_text(0), spaces.MultiBinary(len(OBJECT_FLAGS)),
                         spaces.Discrete(len(TEMPERATURES))))


def thor_observation_space(frame: tuple[int, int] | None = None, depth: bool = False) -> spaces.Dict:
    """The observation space of an AI2-THOR-like backend.

    Args:
        frame: ``(height, width)`` of the RGB frame, or None when the backend renders none.
        depth: Add the depth frame (metres; needs ``frame``).
    """
    parts: dict[str, spaces.Space[Any]] = {"objects": spaces.Sequence(object_space()), "held": _id_text(0)}
    if frame is not None:
        h, w = frame
        parts["rgb"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
        if depth:
            parts["depth"] = spaces.Box(0.0, float(np.finfo(np.float32).max), (h, w), np.float32)
    return spaces.Dict(parts)


def thor_action_space() -> spaces.Dict:
    """``controller.step`` kwargs: an action name and an objectId ("" for actions on no object)."""
    return spaces.Dict({"action": spaces.Text(max_length=64, charset=string.ascii_letters), "objectId": _id_text(0)})


def text_observation_space() -> spaces.Dict:
    """The observation space of a text backend (ScienceWorld)."""
    return spaces.Dict({"text": text_space(), "inventory": text_space(), "task_description": text_space()})


def object_state(o: Mapping[str, Any]) -> ObjectState:
    """The :class:`ObjectState` of one AI2-THOR metadata dict (missing keys read as False / "")."""
    try:
        flags = tuple(map(bool, _flags_of(o)))  # type: ignore[arg-type]
        parents, oid, otype = o["parentReceptacles"], o["objectId"], o["objectType"]
    except KeyError:  # a partial dict (hand-written in a test, or another simulator's)
        flags = tuple(bool(o.get(k)) for k in OBJECT_FLAGS)
        parents, oid, otype = o.get("parentReceptacles"), o.get("objectId"), o.get("objectType")
    return ObjectState(
        _id(oid), _id(otype), _id(parents[0]) if parents else "", flags, _TEMP_INDEX.get(o.get("temperature"), 1)
    )


_flags_of = itemgetter(*OBJECT_FLAGS)


@functools.lru_cache(maxsize=65_536)
def _id(s: object) -> str:
    """An id, type or name as :data:`ID_CHARS` text (ids repeat every step: cached)."""
    return _clean(str(s), ID_CHARS, MAX_ID) if s else "?"


class ObjectStates:
    """Builds the ``objects`` entry of each observation, reusing the state of every metadata dict seen at the
    previous step (the embedded simulator keeps the same dict for an object that did not change)."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[Mapping[str, Any], ObjectState]] = {}

    def __call__(self, objects: Iterable[Mapping[str, Any]]) -> tuple[ObjectState, ...]:
        last, now = self._last, {}
        out = []
        for o in objects:
            hit = last.get(id(o))
            st = hit[1] if hit is not None and hit[0] is o else object_state(o)
            now[id(o)] = (o, st)
            out.append(st)
        self._last = now
        return tuple(out)

    def clear(self) -> None:
        """Forget the previous step (at reset)."""
        self._last = {}


def clean_text(text: str | None) -> str:
    """``text`` as the Gymnasium view holds it: characters outside :data:`TEXT_CHARS` become ``?``, cut at
    :data:`MAX_TEXT`."""
    return _clean(text or "", TEXT_CHARS, MAX_TEXT)


_ALLOWED: dict[str, frozenset[str]] = {}


def _clean(s: str, charset: str, limit: int) -> str:
    allowed = _ALLOWED.get(charset)
    if allowed is None:
        allowed = _ALLOWED[charset] = frozenset(charset)
    if len(s) > limit:
        s = s[:limit]
    if s.isascii() and allowed.issuperset(s):
        return s
    return "".join(c if c in allowed else "?" for c in s)


__all__ = [
    "ID_CHARS",
    "MAX_TEXT",
    "OBJECT_FLAGS",
    "TEMPERATURES",
    "TEXT_CHARS",
    "ObjectState",
    "ObjectStates",
    "clean_text",
    "object_space",
    "object_state",
    "text_observation_space",
    "text_space",
    "thor_action_space",
    "thor_observation_space",
]
