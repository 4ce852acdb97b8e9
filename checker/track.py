"""Facts read off a :class:`~checker.history.History`: lineage, containment, running water, rising edges.

Everything here is a pure function of the recorded frames. Conventions:

- **lineage**: a piece ``<whole id>|AppleSliced_3`` (or ``|EggCracked_0``) did not exist before its whole
  object was cut; before that, its state *is* the whole object's state (a slice inherits its history);
- **in**: an object lies in a receptacle when the receptacle is among its ``parentReceptacles`` or lists it in
  ``receptacleObjectIds``, directly or through receptacles that can be carried (a slice on a plate on the
  counter is on the counter; a slice in a microwave that stands on the counter is not);
- **during the run**: a condition happened during the run when it holds at some frame ``t >= 1`` and did not
  hold at ``t - 1`` (a rising edge); what only held at reset was not done by the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property, lru_cache

from .history import History, Obj

PIECE_SUFFIXES = ("Sliced", "Cracked")
"""Object types made by cutting or cracking end in these (``AppleSliced``, ``EggCracked``)."""
BASINS = frozenset({"SinkBasin", "BathtubBasin"})
WATER_SOURCES = frozenset({"Faucet", "ShowerHead"})
SOURCE_REACH = 2.0
"""A running water source feeds its nearest basin within this many metres (in the 120 iTHOR scenes every
basin has one; the farthest, a bathtub's shower head, is 1.6 m away)."""
DIRTYABLE = frozenset({"Bed", "Bowl", "Cloth", "Cup", "Mirror", "Mug", "Pan", "Plate", "Pot"})
"""AI2-THOR's dirtyable types (used when an object dict has no ``dirtyable`` key)."""
KNIVES = frozenset({"Knife", "ButterKnife"})
HEAT_DEVICES = frozenset({"Microwave", "StoveBurner", "Toaster", "CoffeeMachine"})
CARRIED_RECEPTACLES = frozenset({"Bowl", "Box", "Cup", "Kettle", "Mug", "Pan", "Plate", "Pot"})
"""Receptacles that can be carried, used when an object dict has no ``pickupable`` key."""

Pred = Callable[[int], bool]


def is_piece(object_id: str) -> bool:
    """True for a slice or cracked egg id (``...|AppleSliced_0``, ``...|EggCracked_0``)."""
    head, sep, tail = object_id.rpartition("|")
    kind = tail.rsplit("_", 1)[0]
    return bool(sep and head) and kind.endswith(PIECE_SUFFIXES) and tail.rsplit("_", 1)[-1].isdigit()


def whole_of(object_id: str) -> str | None:
    """The id of the whole object a piece was cut from (None for a whole object)."""
    return object_id.rpartition("|")[0] if is_piece(object_id) else None


def center(o: Obj) -> tuple[float, float, float] | None:
    """An object's centre: its axis-aligned box centre, else its position, else None."""
    box = o.get("axisAlignedBoundingBox") or {}
    p = box.get("center") or o.get("position")
    if not p:
        return None
    return float(p.get("x", 0.0)), float(p.get("y", 0.0)), float(p.get("z", 0.0))


def top(o: Obj) -> float | None:
    """The height of an object's top (box centre plus half its height), else its centre height."""
    box = o.get("axisAlignedBoundingBox") or {}
    c = center(o)
    if c is None:
        return None
    size = box.get("size") or {}
    return c[1] + float(size.get("y", 0.0)) / 2


def dist(a: Obj, b: Obj) -> float:
    """Distance between two objects' centres (inf when either has no position)."""
    ca, cb = center(a), center(b)
    return math.dist(ca, cb) if ca is not None and cb is not None else math.inf


def floor_dist(a: Obj, b: Obj) -> float:
    """Distance between two objects' centres in the floor plane (x, z): a tap above its basin is near it."""
    ca, cb = center(a), center(b)
    return math.dist(ca[::2], cb[::2]) if ca is not None and cb is not None else math.inf


class Track:
    """Indexes over one history (built once per :func:`~checker.judge`).

    Args:
        history: The recorded episode.
    """

    def __init__(self, history: History) -> None:
        self.history = history
        self.last = history.last
        self.by_id: list[dict[str, Obj]] = [{str(o["objectId"]): o for o in f} for f in history.frames]
        self._parents_cache: dict[int, dict[str, frozenset[str]]] = {}
        self._ancestors = lru_cache(maxsize=None)(self._ancestors_uncached)

    # ------------------------------------------------------------ identity and lineage

    @cached_property
    def ids(self) -> tuple[str, ...]:
        """Every object id seen at any frame, sorted (so a verdict never depends on object order)."""
        seen: set[str] = set()
        for f in self.by_id:
            seen.update(f)
        return tuple(sorted(seen))

    @cached_property
    def first_seen(self) -> dict[str, int]:
        """The first frame each id appears in."""
        out: dict[str, int] = {}
        for t, f in enumerate(self.by_id):
            for k in f:
                out.setdefault(k, t)
        return out

    def type_of(self, oid: str) -> str:
        """An id's objectType (from the first frame it appears in)."""
        t = self.first_seen.get(oid)
        return str(self.by_id[t][oid].get("objectType", "")) if t is not None else ""

    def of_types(self, types: frozenset[str] | tuple[str, ...]) -> tuple[str, ...]:
        """Ids of the given types, sorted."""
        return tuple(k for k in self.ids if self.type_of(k) in types)

    def body(self, oid: str, t: int) -> str | None:
        """The id that carries ``oid``'s state at frame ``t``: itself, or the whole object before it was cut."""
        if oid in self.by_id[t]:
            return oid
        w = whole_of(oid)
        if w is not None and self.first_seen.get(oid, self.last + 1) > t:
            return self.body(w, t)
        return None

    def state(self, oid: str, t: int) -> Obj | None:
        """``oid``'s metadata at frame ``t`` through its lineage (None when it is not in the world then)."""
        b = self.body(oid, t)
        return self.by_id[t][b] if b is not None else None

    def get(self, oid: str, t: int, key: str, default: object = None) -> object:
        """One field of ``oid``'s state at frame ``t`` (``default`` when absent)."""
        s = self.state(oid, t)
        return default if s is None else s.get(key, default)

    # ------------------------------------------------------------ containment

    def _parents(self, t: int) -> dict[str, frozenset[str]]:
        cached = self._parents_cache.get(t)
        if cached is not None:
            return cached
        out: dict[str, set[str]] = {k: set(o.get("parentReceptacles") or ()) for k, o in self.by_id[t].items()}
        for k, o in self.by_id[t].items():
            for c in o.get("receptacleObjectIds") or ():
                out.setdefault(str(c), set()).add(k)
        frozen = {k: frozenset(v) for k, v in out.items()}
        self._parents_cache[t] = frozen
        return frozen

    def carried(self, oid: str, t: int) -> bool:
        """True for an object that can be carried (pickupable; a ``moveable`` Microwave is only pushed)."""
        o = self.by_id[t].get(oid)
        if o is None:
            return False
        if "pickupable" in o:
            return bool(o["pickupable"])
        return str(o.get("objectType", "")) in CARRIED_RECEPTACLES

    def _ancestors_uncached(self, body: str, t: int) -> frozenset[str]:
        parents = self._parents(t)
        seen: set[str] = set()
        stack = list(parents.get(body, ()))
        while stack:
            p = stack.pop()
            if p in seen or p == body:
                continue
            seen.add(p)
            if self.carried(p, t):  # what holds a plate holds what lies on it; a microwave's counter does not
                stack.extend(parents.get(p, ()))
        return frozenset(seen)

    def containers(self, oid: str, t: int) -> frozenset[str]:
        """Every receptacle ``oid`` lies in at frame ``t``, directly or through carried receptacles (lineage
        applied)."""
        b = self.body(oid, t)
        return self._ancestors(b, t) if b is not None else frozenset()

    def container_of_types(self, oid: str, t: int, types: frozenset[str]) -> str | None:
        """The first (by id) receptacle of ``types`` that ``oid`` lies in at frame ``t``, or None."""
        found = sorted(c for c in self.containers(oid, t) if self.type_of(c) in types)
        return found[0] if found else None

    def held(self, oid: str, t: int) -> bool:
        """True when ``oid`` (through its lineage) is in the agent's hand at frame ``t``."""
        return bool(self.get(oid, t, "isPickedUp", False))

    def held_during_run(self, oid: str) -> int | None:
        """The first frame ``t >= 1`` at which ``oid`` (lineage) was held, or None."""
        return next((t for t in range(1, self.last + 1) if self.held(oid, t)), None)

    def held_ids(self, t: int) -> tuple[str, ...]:
        """Ids in the agent's hand at frame ``t``."""
        return tuple(sorted(k for k, o in self.by_id[t].items() if o.get("isPickedUp")))

    # ------------------------------------------------------------ devices and water

    def on(self, oid: str, t: int) -> bool:
        """True when a device is switched on (and not broken) at frame ``t``."""
        o = self.by_id[t].get(oid)
        return bool(o and o.get("isToggled") and not o.get("isBroken"))

    @cached_property
    def feeds(self) -> dict[str, tuple[str, ...]]:
        """Basin id -> the water sources that run into it (each source feeds its nearest basin within reach)."""
        where: dict[str, Obj] = {}
        for f in self.by_id:
            for k, o in f.items():
                if o.get("objectType") in BASINS | WATER_SOURCES:
                    where.setdefault(k, o)
        basins = sorted(k for k, o in where.items() if o.get("objectType") in BASINS)
        out: dict[str, list[str]] = {b: [] for b in basins}
        for s in sorted(k for k, o in where.items() if o.get("objectType") in WATER_SOURCES):
            # a shower head runs into a bathtub's basin; a faucet into the nearest basin, in the floor plane
            tubs = [b for b in basins if where[b].get("objectType") == "BathtubBasin"]
            cands = tubs if where[s].get("objectType") == "ShowerHead" and tubs else basins
            if not cands:
                break
            near = min(cands, key=lambda b: (floor_dist(where[b], where[s]), b))
            if floor_dist(where[near], where[s]) <= SOURCE_REACH:
                out[near].append(s)
        return {b: tuple(v) for b, v in out.items()}

    def running_basin(self, oid: str, t: int) -> str | None:
        """The basin ``oid`` lies in at frame ``t`` while a source feeding it runs, or None."""
        for c in sorted(self.containers(oid, t)):
            if any(self.on(s, t) for s in self.feeds.get(c, ())):
                return c
        return None

    def running_device(self, oid: str, t: int, types: frozenset[str]) -> str | None:
        """A switched-on device of ``types`` that ``oid`` lies in at frame ``t``, or None."""
        found = sorted(c for c in self.containers(oid, t) if self.type_of(c) in types and self.on(c, t))
        return found[0] if found else None

    # ------------------------------------------------------------ events

    def rise(self, pred: Pred) -> int | None:
        """The first frame ``t >= 1`` where ``pred`` holds and did not hold at ``t - 1`` (None: never)."""
        prev = pred(0)
        for t in range(1, self.last + 1):
            now = pred(t)
            if now and not prev:
                return t
            prev = now
        return None

    def rises(self, pred: Pred) -> tuple[int, ...]:
        """Every rising edge of ``pred`` during the run."""
        out: list[int] = []
        prev = pred(0)
        for t in range(1, self.last + 1):
            now = pred(t)
            if now and not prev:
                out.append(t)
            prev = now
        return tuple(out)

    def action_before(self, t: int) -> str:
        """``Name(objectId)`` of the action that produced frame ``t`` (``reset`` for frame 0)."""
        if t == 0:
            return "reset"
        s = self.history.steps[t - 1]
        return f"{s.action}({s.object_id})" if s.object_id else s.action


__all__ = ["BASINS", "CARRIED_RECEPTACLES", "DIRTYABLE", "HEAT_DEVICES", "KNIVES", "SOURCE_REACH", "Track",
           "WATER_SOURCES", "center", "dist", "is_piece", "top", "whole_of"]
