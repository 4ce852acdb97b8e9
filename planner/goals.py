"""The task model: what a task needs (roles, targets) and when it is done (goal conditions), in AI2-THOR terms.

A :class:`TaskSpec` names the **roles** the task needs (COAT utilities: something to cut, a heat source),
the **targets** it acts on (the apple, the bread, water: AI2-THOR object types, present in the scene or not),
and **goal conditions**: predicates over scene state the way rl_ai2thor's graph tasks and ALFRED's task types
state them: a property of an item (``isSliced``, ``isCooked``, ``temperature``, ``isDirty``, ``isToggled``,
``isOpen``, ``isFilledWithLiquid``, ``fillLiquid``, ``isPickedUp``) or a relation between two items
(``contained_in`` a receptacle, ``close_to`` a light that is on).

Items are **binding names**: a role's name or a target's name. A plan binds each to a concrete object id; a
goal is checked on the objects of an observation (AI2-THOR metadata dicts), and an item bound to an object
that was sliced or cracked stands for its pieces too (AI2-THOR replaces ``Apple|...`` by
``Apple|...|AppleSliced_0`` ...). This module is a contract leaf: pydantic and the standard library only, so
scenes, perception and skills may use it.

Example:
    >>> spec = TaskSpec(task="cut apple", roles=(Role(name="cutting", utility="cutting"),),
    ...                 targets=(Target(name="target", types=("Apple",)),),
    ...                 goals=(GoalCondition(item="target", prop="isSliced", value=True),))
    >>> apple = {"objectId": "Apple|1", "objectType": "Apple", "isSliced": False}
    >>> slice_ = {"objectId": "Apple|1|AppleSliced_0", "objectType": "AppleSliced", "isSliced": False}
    >>> check(spec.goals[0], [slice_], {"target": "Apple|1"}).met
    True
    >>> check(spec.goals[0], [apple], {"target": "Apple|1"}).met
    False
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, model_validator

from .schemas import Contract

Property = Literal[
    "isSliced", "isCooked", "temperature", "isDirty", "isToggled", "isOpen", "isFilledWithLiquid", "fillLiquid",
    "isPickedUp", "isBroken",
]
PROPERTIES: tuple[str, ...] = Property.__args__  # type: ignore[attr-defined]
Relation = Literal["contained_in", "close_to"]
RELATIONS: tuple[str, ...] = Relation.__args__  # type: ignore[attr-defined]
ConditionKind = Literal["goal", "safety"]

LIGHT_TYPES: tuple[str, ...] = ("DeskLamp", "FloorLamp", "LightSwitch")
"""Light sources a ``close_to`` relation to a lit light accepts (ALFRED's look-at-object-in-light)."""


class Role(Contract):
    """One thing the task needs an object for: a COAT utility, decided by the planner's two stages."""

    name: str = Field(min_length=1)
    """Binding name, unique in the spec (usually the utility: ``cutting``, ``heating(vessel)``)."""
    utility: str = Field(min_length=1)
    task: str | None = None
    """The COAT task whose annotations decide this role (None: the utility alone)."""
    types: tuple[str, ...] = ()
    """When not empty, only these AI2-THOR types may fill the role (ALFRED names the receptacle type)."""


class Target(Contract):
    """What the task acts on: an object type (the apple), or a liquid held by a role's vessel (water)."""

    name: str = Field(min_length=1)
    types: tuple[str, ...] = Field(min_length=1)
    """AI2-THOR object types that count (``("Apple",)``; ``("Bread",)``); a liquid's own name (``("water",)``)."""
    liquid: bool = False
    """True for water, coffee, wine: not an object in AI2-THOR but a vessel's ``fillLiquid``."""
    sliced: bool = False
    """The task acts on a slice (ALFRED's sliced variants, serving sliced apple)."""


class GoalCondition(Contract):
    """One predicate over scene state: ``item.prop == value``, or ``item relation other``."""

    item: str = Field(min_length=1)
    prop: Property | None = None
    value: bool | str | None = None
    relation: Relation | None = None
    other: str | None = None
    """The related item's binding name; for ``close_to`` also ``"light"`` (any light that is on) or ``"agent"``
    (the robot: AI2-THOR's per-object ``distance``)."""
    distance: float = Field(default=1.0, gt=0)
    """``close_to``: the largest distance in metres between the two objects' centres."""
    kind: ConditionKind = "goal"
    description: str = ""

    @model_validator(mode="after")
    def _one_form(self) -> GoalCondition:
        if (self.prop is None) == (self.relation is None):
            raise ValueError("a goal condition is either a property (prop=, value=) or a relation (relation=, other=)")
        if self.relation is not None and not self.other:
            raise ValueError(f"relation {self.relation!r} needs other= (the related item)")
        return self

    def text(self) -> str:
        """A short human-readable form (``target.isSliced == True``, ``target contained_in carrying``)."""
        if self.description:
            return self.description
        if self.prop is not None:
            return f"{self.item}.{self.prop} == {self.value!r}"
        return f"{self.item} {self.relation} {self.other}"


class TaskSpec(Contract):
    """Roles, targets and goal conditions of one task (see the module docstring)."""

    task: str = Field(min_length=1)
    family: str = ""
    """The kind of task (``cut``, ``heat``, ``serve``, ``store``, ``clean``, ``light``, ``bring``, an ALFRED type)."""
    roles: tuple[Role, ...] = ()
    targets: tuple[Target, ...] = ()
    goals: tuple[GoalCondition, ...] = ()
    note: str = ""
    """What AI2-THOR cannot show of this task and what the goal checks instead (empty when nothing is missing)."""

    @model_validator(mode="after")
    def _names_resolve(self) -> TaskSpec:
        names = [r.name for r in self.roles] + [t.name for t in self.targets]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"binding names must be unique; {dupes} appear twice")
        known = set(names)
        for g in self.goals:
            for ref in (g.item, g.other):
                if ref is not None and ref not in ("light", "agent") and ref not in known:
                    raise ValueError(f"goal {g.text()!r} names {ref!r}, which is neither a role nor a target "
                                     f"(roles and targets: {sorted(known)})")
        return self

    def role(self, name: str) -> Role | None:
        """The role with this binding name, or None."""
        return next((r for r in self.roles if r.name == name), None)

    def target(self, name: str) -> Target | None:
        """The target with this binding name, or None."""
        return next((t for t in self.targets if t.name == name), None)


class GoalStatus(Contract):
    """One goal condition checked on one observation."""

    condition: GoalCondition
    met: bool
    detail: str = ""


Bindings = Mapping[str, str]
"""Binding name -> object id."""


def members(object_id: str, objects: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The object with this id and the pieces it was sliced or cracked into (``<id>|<Type>Sliced_i``)."""
    prefix = object_id + "|"
    return [o for o in objects if o.get("objectId") == object_id or str(o.get("objectId", "")).startswith(prefix)]


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


def _relation_met(
    cond: GoalCondition, objs: Sequence[Mapping[str, Any]], objects: Sequence[Mapping[str, Any]], bindings: Bindings
) -> tuple[bool, str]:
    if cond.relation == "contained_in":
        other_id = bindings.get(cond.other or "")
        if other_id is None:
            return False, f"{cond.other!r} is not bound to an object"
        inside = [o for o in objs if other_id in (o.get("parentReceptacles") or [])]
        return bool(inside), f"in {other_id}" if inside else f"not in {other_id}"
    # close_to: the robot (AI2-THOR reports each object's distance to the agent), a light that is on, or an item
    if cond.other == "agent":
        near = [o for o in objs if o.get("distance") is not None and float(o["distance"]) <= cond.distance]
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


def check(cond: GoalCondition, objects: Sequence[Mapping[str, Any]], bindings: Bindings) -> GoalStatus:
    """Check one condition on an observation's objects, with items bound to object ids."""
    oid = bindings.get(cond.item)
    if oid is None:
        return GoalStatus(condition=cond, met=False, detail=f"{cond.item!r} is not bound to an object")
    objs = members(oid, objects)
    if not objs:
        return GoalStatus(condition=cond, met=False, detail=f"{oid} is not in the scene")
    met, detail = _prop_met(cond, objs) if cond.prop is not None else _relation_met(cond, objs, objects, bindings)
    return GoalStatus(condition=cond, met=met, detail=detail)


def check_all(
    conditions: Iterable[GoalCondition], objects: Sequence[Mapping[str, Any]], bindings: Bindings
) -> tuple[GoalStatus, ...]:
    """:func:`check` for every condition, in order."""
    return tuple(check(c, objects, bindings) for c in conditions)


__all__ = [
    "LIGHT_TYPES",
    "PROPERTIES",
    "RELATIONS",
    "Bindings",
    "GoalCondition",
    "GoalStatus",
    "Property",
    "Relation",
    "Role",
    "Target",
    "TaskSpec",
    "check",
    "check_all",
    "members",
]
