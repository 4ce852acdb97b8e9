"""Checking a task's goal conditions on an observation (AI2-THOR metadata dicts), with items bound to objects.

The contracts (:class:`~planner.schemas.TaskSpec`, :class:`~planner.schemas.GoalCondition`,
:class:`~planner.schemas.GoalStatus`) live in :mod:`planner.schemas`; this module is the one place that says
whether a condition holds. An item bound to an object that was sliced or cracked stands for its pieces too
(AI2-THOR replaces ``Apple|...`` by ``Apple|...|AppleSliced_0`` ...). A contract leaf: pydantic and the
standard library only, so scenes, perception and skills may use it.

Example:
    >>> from planner.schemas import GoalCondition
    >>> sliced = GoalCondition(item="target", prop="isSliced", value=True)
    >>> apple = {"objectId": "Apple|1", "objectType": "Apple", "isSliced": False}
    >>> piece = {"objectId": "Apple|1|AppleSliced_0", "objectType": "AppleSliced", "isSliced": False}
    >>> check(sliced, [piece], {"target": "Apple|1"}).met
    True
    >>> check(sliced, [apple], {"target": "Apple|1"}).met
    False
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .schemas import BOOKED_PROPS, GoalCondition, GoalStatus

LIGHT_TYPES: tuple[str, ...] = ("DeskLamp", "FloorLamp")
"""Light sources a ``close_to`` relation to a lit light accepts: ALFRED's look-at-object-in-light holds the object
by a DeskLamp or FloorLamp that is on (the room's light switch, on in every iTHOR scene, does not count)."""

Bindings = Mapping[str, str]
"""Binding name -> object id."""

Booked = Mapping[str, Mapping[str, Iterable[Any]]]
"""Object id -> property -> values it took during a run (:attr:`planner.schemas.ExecutionTrace.booked`)."""


def book(booked: dict[str, dict[str, tuple[Any, ...]]], objects: Iterable[Mapping[str, Any]],
         before: Iterable[Mapping[str, Any]], acted_on: Iterable[str] = ()) -> None:
    """Add to ``booked`` (in place) every value of :data:`~planner.schemas.BOOKED_PROPS` an object took between two
    observations (``before``, then ``objects``): what a step did, not what was so from the start (an apple that was
    in the fridge at reset was not cooled). A new piece (a slice) is compared with the whole object it was cut from
    (the slices of a cold apple were not cooled by being cut); a new object with no whole books its values; every
    object of ``acted_on`` books its values (what a heat or cool step treated: the apple cooled in the fridge
    although it was cold already)."""
    was = {str(o.get("objectId", "")): o for o in before}
    treated = set(acted_on)
    for o in objects:
        oid = str(o.get("objectId", ""))
        prev = None if oid in treated else was.get(oid) or was.get(whole_of(oid))
        for prop in BOOKED_PROPS:
            value = o.get(prop)
            if value is None or (prev is not None and prev.get(prop) == value):
                continue
            seen = booked.setdefault(oid, {}).setdefault(prop, ())
            if value not in seen:
                booked[oid][prop] = (*seen, value)


def whole_of(object_id: str) -> str:
    """The id of the object a piece was cut or cracked from (``Apple|1|AppleSliced_0`` -> ``Apple|1``); '' for an
    object that is no piece."""
    head, _, last = object_id.rpartition("|")
    return head if head and ("Sliced_" in last or "Cracked_" in last) else ""


def _was_booked(cond: GoalCondition, oid: str, booked: Booked | None) -> bool:
    """``cond`` (a property) held on some booked observation, for ``oid`` or one of its pieces."""
    if not booked or cond.prop is None:
        return False
    return any(cond.value in tuple(props.get(cond.prop, ())) for i, props in booked.items()
               if i == oid or i.startswith(oid + "|"))


def members(object_id: str, objects: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pieces an object was sliced or cracked into (``<id>|<Type>Sliced_i``) once it has some, else the object
    itself (and any part whose id extends its own). AI2-THOR keeps a sliced whole in the metadata, ``isSliced`` and
    never visible again: a sliced object is its pieces."""
    prefix = object_id + "|"
    out = [o for o in objects if o.get("objectId") == object_id or str(o.get("objectId", "")).startswith(prefix)]
    pieces = [o for o in out if whole_of(str(o.get("objectId", ""))) == object_id]
    return pieces or out


def _centre(o: Mapping[str, Any]) -> tuple[float, float, float] | None:
    box = o.get("axisAlignedBoundingBox") or {}
    c = box.get("center") if isinstance(box, Mapping) else None
    p = c if isinstance(c, Mapping) else o.get("position")
    if not isinstance(p, Mapping):
        return None
    try:
        return float(p["x"]), float(p["y"]), float(p["z"])
    except (KeyError, TypeError, ValueError):
        return None


def _prop_met(cond: GoalCondition, objs: Sequence[Mapping[str, Any]]) -> tuple[bool, str]:
    prop = cond.prop
    assert prop is not None
    if prop == "isSliced":
        # a sliced object is its pieces: any piece present, or the object itself flagged
        hit = any(o.get("isSliced") or str(o.get("objectType", "")).endswith(("Sliced", "Cracked")) for o in objs)
        return hit is bool(cond.value), "sliced" if hit else "not sliced"
    values = [o.get(prop) for o in objs]
    if prop == "fillLiquid":
        values = [str(v).lower() if v is not None else None for v in values]
        want = str(cond.value).lower()
    else:
        want = cond.value
    return any(v == want for v in values), f"{prop} = {values[0]!r}" if len(values) == 1 else f"{prop} in {values}"


def _rests_in(o: Mapping[str, Any], other_id: str, objects: Sequence[Mapping[str, Any]]) -> bool:
    """``o`` lies in ``other_id``: directly, or in a dish, pan or other open receptacle that lies there; not inside
    an appliance or an enclosure that stands there (a mug in the coffee machine on the dining table is in the
    machine, not put on the table). AI2-THOR's ``parentReceptacles`` lists every receptacle up the chain."""
    parents = list(o.get("parentReceptacles") or [])
    if other_id not in parents:
        return False
    by_id = {str(x.get("objectId")): x for x in objects}
    for pid in parents:
        p = by_id.get(pid)
        if pid == other_id or p is None or other_id not in (p.get("parentReceptacles") or []):
            continue
        if p.get("toggleable") or p.get("openable"):
            return False
    return True


def _relation_met(
    cond: GoalCondition, objs: Sequence[Mapping[str, Any]], objects: Sequence[Mapping[str, Any]], bindings: Bindings
) -> tuple[bool, str]:
    if cond.relation == "contained_in":
        other_id = bindings.get(cond.other or "")
        if other_id is None:
            return False, f"{cond.other!r} is not bound to an object"
        inside = [o for o in objs if _rests_in(o, other_id, objects)]
        return bool(inside), f"in {other_id}" if inside else f"not in {other_id}"
    # close_to: the robot (AI2-THOR reports each object's distance to the agent), a light that is on, or an item
    if cond.other == "agent":
        # held, near, or interactable from where the robot stands (a bathtub's centre is far from its rim)
        near = [o for o in objs if o.get("isPickedUp") or o.get("isInteractable")
                or o.get("distance") is not None and float(o["distance"]) <= cond.distance]
        return bool(near), f"within {cond.distance:g} m of the robot" if near else f"farther than {cond.distance:g} m"
    if cond.other == "light":
        others = [o for o in objects if o.get("objectType") in LIGHT_TYPES and o.get("isToggled")]
    else:
        other_id = bindings.get(cond.other or "")
        others = members(other_id, objects) if other_id else []
    for a in objs:
        ca = _centre(a)
        for b in others:
            cb = _centre(b)
            if ca is not None and cb is not None and math.dist(ca, cb) <= cond.distance:
                return True, f"within {cond.distance:g} m of {b.get('objectId')}"
    return False, f"nothing {'lit ' if cond.other == 'light' else ''}within {cond.distance:g} m"


def check(cond: GoalCondition, objects: Sequence[Mapping[str, Any]], bindings: Bindings,
          booked: Booked | None = None) -> GoalStatus:
    """Check one condition on an observation's objects, with items bound to object ids.

    A ``when="once"`` condition not met on ``objects`` is met when ``booked`` (what the run's steps changed) has
    it; an object no longer in the scene is not met, whatever was booked.
    """
    oid = bindings.get(cond.item)
    if oid is None:
        return GoalStatus(condition=cond, met=False, detail=f"{cond.item!r} is not bound to an object")
    objs = members(oid, objects)
    if not objs:
        return GoalStatus(condition=cond, met=False, detail=f"{oid} is not in the scene")
    met, detail = _prop_met(cond, objs) if cond.prop is not None else _relation_met(cond, objs, objects, bindings)
    if not met and cond.when == "once" and _was_booked(cond, oid, booked):
        met, detail = True, f"{cond.prop} was {cond.value!r} during the run ({detail} at the end)"
    return GoalStatus(condition=cond, met=met, detail=detail)


MAX_WITNESSES = 10_000
"""Bound on the combinations of pieces :func:`check_all` tries (a sliced object has up to ten pieces)."""


def check_all(
    conditions: Iterable[GoalCondition], objects: Sequence[Mapping[str, Any]], bindings: Bindings,
    booked: Booked | None = None,
) -> tuple[GoalStatus, ...]:
    """Every condition, in order, each item's conditions on **one** instance.

    An item bound to an object that was sliced stands for one of its pieces, the same piece for all of the item's
    conditions: the heated tomato slice must be the slice that is on the counter (ALFRED's sliced tasks), not
    one slice heated and another one placed. Two items are never the same piece ("two slices" are two). The
    pieces are chosen to meet the most conditions; an item whose object is whole is checked as :func:`check`
    does.
    """
    conditions = list(conditions)
    items = list(dict.fromkeys(c.item for c in conditions))
    pools: list[list[str]] = []
    for item in items:
        oid = bindings.get(item)
        ids = [str(o.get("objectId")) for o in members(oid, objects)] if oid else []
        pools.append([i for i in ids if oid and whole_of(i) == oid] or [oid or ""])  # pieces, else the object
    best: tuple[GoalStatus, ...] | None = None
    for n, combo in enumerate(itertools.product(*pools)):
        witness: dict[str, str | None] = {}
        for item, piece, pool in zip(items, combo, pools, strict=True):
            # a piece another item already stands for is no witness for this one ("two slices" are two)
            witness[item] = None if len(pool) > 1 and piece in witness.values() else piece
        statuses = tuple(_check_on(c, witness.get(c.item, ""), objects, bindings, booked) for c in conditions)
        if best is None or sum(g.met for g in statuses) > sum(g.met for g in best):
            best = statuses
            if all(g.met for g in best):
                break
        if n >= MAX_WITNESSES:
            break
    return best if best is not None else ()


def _check_on(cond: GoalCondition, witness: str | None, objects: Sequence[Mapping[str, Any]], bindings: Bindings,
              booked: Booked | None) -> GoalStatus:
    """:func:`check` with the item's object narrowed to ``witness`` (one of its pieces, or itself; None: the pieces
    left are all taken by other items)."""
    oid = bindings.get(cond.item)
    if witness is None:
        return GoalStatus(condition=cond, met=False, detail=f"no piece of {oid} left that another item does not use")
    if oid is None or witness in ("", oid):
        return check(cond, objects, bindings, booked)
    objs = [o for o in objects if o.get("objectId") == witness]
    if not objs:
        return GoalStatus(condition=cond, met=False, detail=f"{witness} is not in the scene")
    met, detail = _prop_met(cond, objs) if cond.prop is not None else _relation_met(cond, objs, objects, bindings)
    if not met and cond.when == "once" and cond.prop is not None and booked:
        # booked on this piece, or on the whole object before it was sliced (every piece was treated)
        if any(cond.value in tuple(props.get(cond.prop, ())) for i, props in booked.items() if i in (witness, oid)):
            met, detail = True, f"{cond.prop} was {cond.value!r} during the run ({detail} at the end)"
    return GoalStatus(condition=cond, met=met, detail=f"{witness}: {detail}")


MAX_ASSIGNMENTS = 100_000
"""Bound on the assignments :func:`check_any` tries (a scene has a handful of objects of each target's types)."""


def check_any(
    conditions: Iterable[GoalCondition], candidates: Mapping[str, Iterable[str]], objects: Sequence[Mapping[str, Any]],
    booked: Booked | None = None,
) -> tuple[GoalStatus, ...]:
    """The conditions checked under the assignment of objects to items that meets the most of them.

    rl_ai2thor's definition: a task holds when some assignment of scene objects to its items meets every
    condition; this is how a goal is checked without knowing which objects the planner used (an evaluation of a
    reading against the task the words state). Two items are never the same object; an item with no object left
    for it stays unbound (its conditions are not met).

    Args:
        conditions: The goal conditions.
        candidates: Item name -> object types that may fill it (``{"target": ["Apple"], "place": ["Fridge"]}``).
            An object sliced into pieces counts under its own id.
        objects: The observation's objects.
        booked: What the run observed, for ``when="once"`` conditions (:func:`check`).
    """
    conditions = list(conditions)
    names = list(dict.fromkeys(n for c in conditions for n in (c.item, c.other) if n in candidates))
    pools = [[*_ids_of(tuple(candidates[n]), objects), None] for n in names]  # None: the item left unbound
    best: tuple[GoalStatus, ...] | None = None
    tried = 0
    for combo in itertools.product(*pools):
        bound = [c for c in combo if c is not None]
        if len(set(bound)) < len(bound):
            continue
        statuses = check_all(conditions, objects, {n: c for n, c in zip(names, combo, strict=True) if c is not None},
                             booked)
        if best is None or sum(g.met for g in statuses) > sum(g.met for g in best):
            best = statuses
            if all(g.met for g in best):
                break
        tried += 1
        if tried >= MAX_ASSIGNMENTS:
            break
    return best if best is not None else check_all(conditions, objects, {}, booked)


def _ids_of(types: tuple[str, ...], objects: Sequence[Mapping[str, Any]]) -> list[str]:
    """Ids of the objects of these types, and of the objects of these types that were sliced or cracked."""
    out: dict[str, None] = {}
    for o in objects:
        t, oid = str(o.get("objectType", "")), str(o.get("objectId", ""))
        if t in types:
            out[oid] = None
        elif t.endswith(("Sliced", "Cracked")) and t.removesuffix("Sliced").removesuffix("Cracked") in types:
            out[oid.rsplit("|", 1)[0]] = None
    return list(out)


__all__ = [
    "LIGHT_TYPES", "MAX_ASSIGNMENTS", "MAX_WITNESSES", "Bindings", "Booked", "book", "check", "check_all", "check_any",
    "members", "whole_of",
]
