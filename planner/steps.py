"""From a TaskSpec and the objects bound to its roles and targets, the ordered skill calls that reach the goal.

Pure: it reads the spec, the bindings (binding name -> object id), what each bound object affords (from the
observation: ``pickupable``, ``openable``, ``toggleable``, ``receptacle``) and the goal conditions already
met, and writes :class:`~planner.schemas.SkillCall` steps. The order is the order of the dependencies:

1. ``prepare`` every role object (wash it, wait for it, bring it to temperature);
2. liquids: ``fill`` the vessel (water, coffee, wine);
3. ``wash`` a target that must end clean (before slicing it: the pieces are what is served);
4. ``slice`` the target with the cutting tool (or crack the egg with the breaking one), then ``set_down``;
5. heating: the target into the vessel, the vessel (or the target) into / onto the source, ``heat`` until hot
   (the skill switches the source on and off again); taken out again when something else must hold it, and out
   of an appliance (a microwave, a toaster, a coffee machine; not a burner) onto a work surface otherwise;
6. the target into / onto the carrier, the storage, the bin, the surface (``place``), closing what was opened;
7. devices switched on (lights, screens), ``hold_near_light`` for ALFRED's look-in-light, ``bring`` the rest;
8. tidy: close every openable receptacle a ``place`` opened (the ``heat`` skill switches off what it switched on).

Steps whose goal condition is already met are left out, so re-planning from the current state continues
where the last plan stopped.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .multiples import copies_of
from .schemas import GoalCondition, SkillCall, TaskSpec
from .schemas.thor_rules import held_liquid

Affordances = Mapping[str, Collection[str]]
"""Object id -> what it affords (AI2-THOR capability flags that are true: ``openable``, ``pickupable`` ...)."""

HOLDERS = ("heating(vessel)", "carrying")
"""Roles that can hold a liquid target, in the order the steps prefer them."""
FINAL_CONTAINERS = ("carrying", "storage", "disposing", "surface_support", "cooling", "washing")
"""Roles a target ends in, by the goal ``target contained_in <role>``."""


class _Steps:
    """The step list being written, with what it opened (to close again)."""

    def __init__(self, bindings: Mapping[str, str], affordances: Affordances) -> None:
        self.bindings = bindings
        self.aff = affordances
        self.out: list[SkillCall] = []
        self.opened: list[str] = []

    def add(self, skill: str, target: str | None, receptacle: str | None = None, **args: Any) -> None:
        self.out.append(SkillCall(skill=skill, target=target, receptacle=receptacle, args=args))

    def can(self, oid: str | None, flag: str) -> bool:
        return oid is not None and flag in self.aff.get(oid, ())

    def place(self, what: str, where: str) -> None:
        self.add("place", what, where)
        if self.can(where, "openable") and where not in self.opened:
            self.opened.append(where)

    def close_opened(self, keep: Collection[str] = ()) -> None:
        for oid in self.opened:
            if oid not in keep:
                self.add("close", oid)
        self.opened = [o for o in self.opened if o in keep]


def _met(met: Collection[GoalCondition], item: str, prop: str | None = None, relation: str | None = None) -> bool:
    return any(g.item == item and (prop is None or g.prop == prop) and (relation is None or g.relation == relation)
               for g in met)


def _goal(spec: TaskSpec, item: str, prop: str | None = None, relation: str | None = None) -> GoalCondition | None:
    return next((g for g in spec.goals if g.item == item and (prop is None or g.prop == prop)
                 and (relation is None or g.relation == relation)), None)


def plan_steps(
    spec: TaskSpec,
    bindings: Mapping[str, str],
    affordances: Affordances,
    *,
    met: Collection[GoalCondition] = (),
    prepare_args: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[SkillCall]:
    """The skill calls that reach ``spec``'s goals with these objects (see the module docstring).

    Args:
        spec: The task.
        bindings: Role and target names -> object ids (a liquid target needs no binding: its vessel holds it).
        affordances: What each bound object affords.
        met: Goal conditions that already hold (their steps are left out).
        prepare_args: Per role name, the ``prepare`` skill's arguments (e.g. ``{"temperature": "Cold"}``).
    """
    s = _Steps(bindings, affordances)
    roles = {r.name: bindings[r.name] for r in spec.roles if r.name in bindings}
    for name, oid in roles.items():
        s.add("prepare", oid, **dict((prepare_args or {}).get(name, {})))
    target = bindings.get("target")
    acted = [(n, bindings[n]) for n in copies_of(spec, "target") if n in bindings]  # "two eggs": each of them
    _liquids(spec, s, roles, met)
    for name, oid in acted:
        if _goal(spec, name, "isDirty") and not _met(met, name, "isDirty"):
            helper = roles.get("washing") or roles.get("cleaning")  # the basin first, or the cloth for a mirror
            s.add("wash", oid, **({"using": helper} if helper else {}))  # before slicing: the pieces are served
    _cut(spec, s, roles, acted, met)
    _heat(spec, s, roles, acted, met)
    _contain(spec, s, roles, bindings, met)
    _devices(spec, s, roles, target, met)
    s.close_opened()
    return s.out


def _liquids(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], met: Collection[GoalCondition]) -> None:
    for t in spec.targets:
        if not t.liquid:
            continue
        holder = next((roles[h] for h in HOLDERS if h in roles), None)
        if holder is None:
            continue
        name = next(h for h in HOLDERS if h in roles)
        if not _met(met, name, "fillLiquid"):
            s.add("fill", holder, liquid=t.types[0])
        plant = s.bindings.get("plant")
        if plant and not _met(met, "plant", "isFilledWithLiquid"):
            s.add("fill", plant, liquid=t.types[0])  # pour the carrier's water on the plant


def _cut(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], acted: list[tuple[str, str]],
         met: Collection[GoalCondition]) -> None:
    tool = roles.get("cutting") or roles.get("breaking")
    sliced = {t.name for t in spec.targets if t.sliced}
    cut: list[str] = []
    for name, oid in acted:  # each egg cracked; one loaf sliced once for "two slices"
        if _met(met, name, "isSliced") or oid in cut or not tool:
            continue
        if _goal(spec, name, "isSliced") is not None or name in sliced:
            s.add("slice", oid, tool=tool)
            cut.append(oid)
    if cut:
        s.add("set_down", tool)


def _heat(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], acted: list[tuple[str, str]],
          met: Collection[GoalCondition]) -> None:
    source = roles.get("heating(source)")
    if source is None:
        return
    liquid = any(t.liquid for t in spec.targets)
    vessel = roles.get("heating(vessel)") or (roles.get("carrying") if liquid else None)
    hot_role = heated_role(spec)  # the food chosen for "something hot to eat", heated itself
    if hot_role is not None and not liquid and hot_role in roles:
        acted = [(hot_role, roles[hot_role])]
    if liquid:
        if vessel is not None:
            _heat_one(spec, s, roles, source, vessel, [("", vessel)], met, liquid=True)
        return
    todo = [(n, oid) for n, oid in acted if not (_met(met, n, "temperature") or _met(met, n, "isCooked"))]
    if vessel is not None and todo:  # the eggs into the pan, the pan onto the burner, once
        _heat_one(spec, s, roles, source, vessel, todo, met, liquid=False)
    else:
        for k, one in enumerate(todo):  # a slice at a time into the toaster, each out again before the next
            _heat_one(spec, s, roles, source, None, [one], met, liquid=False, more=k < len(todo) - 1)


def _heat_one(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], source: str, vessel: str | None,
              items: list[tuple[str, str]], met: Collection[GoalCondition], *, liquid: bool,
              more: bool = False) -> None:
    """Heat ``items`` (name, object) on ``source``: in ``vessel`` when there is one (a liquid: the vessel itself),
    then out of an appliance again when something else must hold them, or (``more``) another is heated next."""
    if liquid:
        assert vessel is not None
        hot_item = next((h for h in HOLDERS if roles.get(h) == vessel), "target")
        if _met(met, hot_item, "temperature") or _met(met, "target", "isCooked"):
            return
        s.place(vessel, source)       # the mug into the microwave
    elif vessel is not None:
        for _, oid in items:
            s.place(oid, vessel)      # the egg into the pan
        s.place(vessel, source)       # the pan onto the burner
    else:
        s.place(items[0][1], source)  # the bread slice into the toaster
    for name, oid in items:
        until = "cooked" if not liquid and _goal(spec, name, "isCooked") else "Hot"
        s.add("heat", source, object=vessel if liquid else oid, until=until, max_seconds=600)
    heated = vessel if liquid else items[0][1]
    names = {n for n, _ in items} | {"target"}
    takes_out = not liquid and (any(r in roles for r in ("carrying", "storage", "disposing", "surface_support"))
                                or any(g.relation == "contained_in" and g.item in names for g in spec.goals))
    appliance = s.can(source, "openable") or s.can(source, "toggleable")
    if s.can(source, "openable") and takes_out and not more:
        s.add("open", source)         # to take the result out again
        if not liquid and vessel is not None:  # the bowl with the tomato comes out of the microwave too
            s.add("pickup", vessel)
            s.add("set_down", vessel)
    elif (not takes_out or more) and appliance:  # a toaster holds one slice: out before the next goes in
        # an appliance (microwave, toaster, coffee machine) is no place to leave what it heated: out onto a surface
        inside = vessel if not liquid and vessel is not None else heated
        if s.can(source, "openable"):
            s.add("open", source)
            if source not in s.opened:
                s.opened.append(source)
        s.add("pickup", inside)
        s.add("set_down", inside)


def heated_role(spec: TaskSpec) -> str | None:
    """A role whose own object the goal wants heated (``temperature`` Hot on a role that holds no liquid), or None."""
    names = {r.name for r in spec.roles} - set(HOLDERS) - {"heating(source)"}
    return next((g.item for g in spec.goals if g.prop == "temperature" and g.value == "Hot" and g.item in names),
                None)


def _contain(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], bindings: Mapping[str, str],
             met: Collection[GoalCondition]) -> None:
    # cooling first (the apple into the fridge, cold), then where things must end (the apple onto the counter)
    cooled = copies_of(spec, "target")
    for g in spec.goals:
        if g.prop == "temperature" and g.value == "Cold" and g.item in cooled and g not in met:
            fridge = roles.get("cooling")
            target = bindings.get(g.item)
            if fridge and target:
                if s.can(fridge, "openable"):
                    s.add("open", fridge)  # cooled is being shut in by the run (ALFRED), even if it lies there
                s.place(target, fridge)
                s.add("close", fridge)
                s.opened = [o for o in s.opened if o != fridge]
                s.add("cool", fridge, object=target, max_seconds=600)
                if any(x.relation == "contained_in" and x.item == g.item for x in spec.goals):
                    s.add("open", fridge)  # to take it out again
                    s.opened.append(fridge)
    for g in spec.goals:
        if g.relation != "contained_in" or g in met:
            continue
        what = bindings.get(g.item)
        where = bindings.get(g.other or "")
        if what is None or where is None:
            continue
        s.place(what, where)


def _devices(spec: TaskSpec, s: _Steps, roles: Mapping[str, str], target: str | None,
             met: Collection[GoalCondition]) -> None:
    # go to what cannot be carried first, so what is carried (the towel) is still in hand at the end
    goals = sorted(spec.goals, key=lambda g: g.other == "agent" and s.can(roles.get(g.item), "pickupable"))
    for g in goals:
        if g in met:
            continue
        oid = roles.get(g.item) if g.item in roles else s.bindings.get(g.item)
        if g.prop == "isToggled" and g.value is True and oid:
            s.add("toggle_on", oid)
        elif g.prop == "isOpen" and g.value is True and oid:
            s.add("open", oid)
            s.opened = [o for o in s.opened if o != oid]  # "open the fridge and put the apple in": it stays open
        elif g.prop == "isToggled" and g.value is False and oid:  # "turn off the lamp"
            s.add("toggle_off", oid)
        elif g.prop == "isOpen" and g.value is False and oid and oid not in s.opened:  # "shut the laptop" (what
            s.add("close", oid)                                           # the plan opened is closed at the end)
        elif g.relation == "close_to" and g.other == "light" and target:
            lamp = roles.get("light_source")
            if lamp:
                s.add("hold_near_light", target, lamp)
        elif g.relation == "close_to" and g.other == "agent" and oid:
            s.add("bring", oid)
    liquid = [t for t in spec.targets if t.liquid]
    carrier = roles.get("carrying")
    put = any(g.relation == "contained_in" and g.item == "carrying" for g in spec.goals)  # it stays where it is put
    if liquid and carrier and "heating(source)" not in roles and not s.bindings.get("plant") and not put:
        s.add("bring", carrier)       # drinking water, wine: the filled glass is handed over


def affordances_of(objects: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """What each object of an AI2-THOR observation affords: its capability flags that are true, plus ``switchable``,
    for a vessel filled with a liquid ``holds:<liquid>``, and ``is:<flag>`` for each of :data:`STATE_FLAGS` that is
    true (a lamp that is on: ``is:isToggled``)."""
    flags = ("pickupable", "openable", "toggleable", "receptacle", "sliceable", "canFillWithLiquid", "dirtyable",
             "moveable", "isHeatSource", "isColdSource")
    out = {}
    for o in objects:
        if "objectId" in o:
            have = {f for f in flags if o.get(f)}
            if have & {"toggleable", "openable"} or o.get("objectType") == "StoveBurner":
                have.add(SWITCHABLE)  # it can be switched on (a burner through its knob) or opened (blinds)
            liquid = held_liquid(o)
            if liquid:
                have.add(f"holds:{liquid}")  # it can be poured from (a filled wine bottle)
            have |= {f"is:{f}" for f in STATE_FLAGS if o.get(f)}
            out[str(o["objectId"])] = frozenset(have)
    return out


STATE_FLAGS = ("isToggled", "isOpen")
"""The switch and open states of AI2-THOR's objects, which a state goal sets: binding prefers an object whose state
the goal changes (:func:`planner.binding.bind_targets`)."""
SWITCHABLE = "switchable"
"""A derived capability: toggleable or openable (blinds let the light in). A role whose goal switches its object
on needs it (:func:`planner.knowledge.task_specs.physical_roles`): a window, which AI2-THOR can neither switch nor
open, cannot make a room brighter."""


__all__ = ["FINAL_CONTAINERS", "HOLDERS", "STATE_FLAGS", "SWITCHABLE", "Affordances", "affordances_of", "plan_steps"]
