"""Task skills a goal-driven planner strings together: slice, set_down, place, fill, bring, hold_near_light.

Each takes one :class:`~planner.schemas.SkillCall` and checks its own postconditions on the observation it
leaves, so a closed-loop executor can run one call at a time and see at once which object let it down
(``SkillResult.fault`` / ``blame``). Heating and cooling are in :mod:`skills.thermal`.

Sliced objects: AI2-THOR replaces ``Apple|...`` by its pieces ``Apple|...|AppleSliced_0`` ... (an egg by
``Egg|...|EggCracked_0``). Skills take the original id; ``place`` and ``bring`` carry the first piece.
"""

from __future__ import annotations

import math
from typing import Any

from planner.goals import GoalCondition, check, members
from planner.schemas import SkillCall
from planner.schemas.thor_rules import held_liquid
from scenes.base import Action, RawObject

from .base import Outcome, Skill, SkillContext, Unmet, failed
from .navigation import go
from .primitives import CUTTING_TOOLS, WORK_SURFACES, closed_container, hand_free, in_use_unmet, relay, send
from .registry import register_skill

LIQUIDS = ("water", "coffee", "wine")
"""AI2-THOR's ``fillLiquid`` values."""
LAMPS = ("DeskLamp", "FloorLamp")
"""Light sources ``hold_near_light`` holds an object close to (ALFRED's look-at-object-in-light)."""
NEAR_LIGHT_METRES = 1.0
"""``hold_near_light``: largest distance between the held object's centre and the lamp's."""
BRING_METRES = 1.5
"""``bring``: an object this close to the robot (AI2-THOR's per-object ``distance``) counts as brought."""
SET_DOWN_TRIES = 3
"""Work surfaces ``set_down`` tries, nearest first, before it reports ``blocked``."""


def pieces(ctx: SkillContext, object_id: str) -> list[RawObject]:
    """The pieces an object was sliced or cracked into (``<id>|<Type>Sliced_i``), first piece first."""
    found = [o for o in members(object_id, ctx.objects()) if o.get("objectId") != object_id]

    def order(o: RawObject) -> tuple[int, str]:
        tail = str(o["objectId"]).rsplit("_", 1)[-1]
        return (int(tail) if tail.isdigit() else 1 << 30, str(o["objectId"]))

    return sorted(found, key=order)


def is_sliced(ctx: SkillContext, object_id: str) -> bool:
    """True when the object was sliced (its pieces exist) or cracked (an egg)."""
    return check(GoalCondition(item="x", prop="isSliced", value=True), ctx.objects(), {"x": object_id}).met


def carried(ctx: SkillContext, object_id: str) -> str | None:
    """The first piece of a sliced object (AI2-THOR keeps the sliced whole, out of sight), else the object itself,
    else None (missing)."""
    rest = pieces(ctx, object_id)
    if rest:
        return rest[0]["objectId"]
    return object_id if ctx.find(object_id) is not None else None


def missing(object_id: str, what: str = "object") -> Unmet:
    """The Unmet of an object that is not in the scene."""
    return Unmet(f"{what} {object_id!r} is not in the scene", "missing", object_id)


def fetch(ctx: SkillContext, object_id: str) -> Outcome | None:
    """Hold ``object_id`` (setting anything else down first); None when it is held."""
    if (ctx.find(object_id) or {}).get("isPickedUp"):
        return None
    freed = hand_free(ctx, keep=object_id)
    if freed is not None:
        return freed
    res = ctx.sub("pickup", object_id)
    return None if res.ok else relay(res, f"fetching {object_id}")


def inside(ctx: SkillContext, object_id: str, receptacle: str) -> bool:
    """The object (or one of its pieces) lies in the receptacle."""
    return check(GoalCondition(item="x", relation="contained_in", other="r"), ctx.objects(),
                 {"x": object_id, "r": receptacle}).met


# ------------------------------------------------------------------ slice


def _tool_unmet(ctx: SkillContext, tool: Any) -> list[str]:
    if tool is None:
        held = ctx.held()
        if held is None or held.get("objectType") not in CUTTING_TOOLS:
            return ["the agent must hold a Knife or ButterKnife to slice (or name one in args['tool'])"]
        tool = held["objectId"]
    t = ctx.find(str(tool))
    if t is None:
        return [missing(str(tool), "tool")]
    if t.get("objectType") not in CUTTING_TOOLS:
        return [f"{tool} is not a Knife or ButterKnife"]
    u = ctx.fault_of(str(tool))
    return [u] if u is not None else []


@register_skill
class Slice(Skill):
    """Slice ``target`` with ``args["tool"]`` (a knife id; default: the knife in hand).

    The tool is picked up unless held (a tool found broken then is ``broken`` and blamed; it is set down
    again); a target in a closed container (an egg in the fridge) has it opened first, and left open
    (``SkillResult.opened``). The knife stays in hand after slicing. Postcondition: the target is sliced
    (its pieces exist; an egg is cracked).
    """

    name = "slice"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        target = call.target
        if target is None:
            return ["skill 'slice' needs a target"]
        o = ctx.find(target)
        if o is None:
            return [] if pieces(ctx, target) else [missing(target)]
        unmet: list[str] = [] if o.get("sliceable") else [f"{target} is not sliceable"]
        return unmet + _tool_unmet(ctx, call.args.get("tool")) + in_use_unmet(ctx, target)

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return [] if is_sliced(ctx, call.target or "") else [f"{call.target} is not sliced"]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        if ctx.find(target) is None or is_sliced(ctx, target):
            return Outcome(True, "already sliced")
        held = ctx.held()
        tool = str(call.args.get("tool") or (held or {}).get("objectId", ""))
        if not (ctx.find(tool) or {}).get("isPickedUp"):
            fetched = fetch(ctx, tool)
            if fetched is not None:
                return fetched
            if (ctx.find(tool) or {}).get("isBroken"):
                dropped = ctx.sub("set_down")
                note = "set it down again" if dropped.ok else f"could not set it down: {dropped.reason}"
                return failed(f"{tool} turned out to be broken when picked up ({note})", "broken", tool)
        inside = enclosure_of(ctx, ctx.find(target) or {})
        if inside is not None:  # an egg in the fridge: out onto a work surface, the fridge shut, then cut
            moved = _take_out_to_cut(ctx, target, inside, tool)
            if moved is not None:
                return moved
        return go(ctx, target) or send(ctx, Action(name="SliceObject", object_id=target), f"slicing {target}")


ENCLOSURES = ("Fridge", "Cabinet", "Drawer", "Microwave", "Safe", "Box")
"""Receptacles with a door or lid: nothing is cut inside one (it is taken out to a work surface first)."""


def enclosure_of(ctx: SkillContext, o: RawObject) -> RawObject | None:
    """The fridge, cabinet, drawer ... that holds ``o`` (a movable object), if any."""
    if not (o.get("pickupable") or o.get("moveable")):
        return None
    for pid in o.get("parentReceptacles") or []:
        parent = ctx.find(pid)
        if parent and parent.get("objectType") in ENCLOSURES:
            return parent
    return None


def take_out(ctx: SkillContext, oid: str, container: RawObject, why: str) -> Outcome | None:
    """Set down what is held, take ``oid`` out of ``container`` onto a work surface and shut the container again if
    it was shut (nothing is cut in a fridge, nothing served in a cabinet); None when done, else the failure."""
    cid = container["objectId"]
    was_open = bool(container.get("isOpen"))
    for skill, obj in (("set_down", None), ("pickup", oid)):
        if skill == "set_down" and ctx.held() is None:
            continue
        res = ctx.sub(skill, obj)
        if not res.ok:
            return relay(res, f"taking {oid} out of {cid} {why}")
    if not was_open and (ctx.find(cid) or {}).get("isOpen"):
        ctx.sub("close", cid)
    res = ctx.sub("set_down")
    return None if res.ok else relay(res, f"setting {oid} down {why}")


def _take_out_to_cut(ctx: SkillContext, target: str, container: RawObject, tool: str) -> Outcome | None:
    """:func:`take_out` the target to cut it, then take the knife back."""
    moved = take_out(ctx, target, container, "to cut it")
    if moved is not None:
        return moved
    res = ctx.sub("pickup", tool)
    return None if res.ok else relay(res, f"taking {tool} back")


# ------------------------------------------------------------------ set_down, place


@register_skill
class SetDown(Skill):
    """Put the held object down on ``receptacle`` or, without one, on the nearest free work surface.

    Work surfaces: CounterTop, DiningTable, SideTable, Desk, CoffeeTable, Shelf, Dresser (nearest first,
    skipping broken ones and ones in use); when none takes it, it is dropped where the robot stands
    (``DropHandObject``). Postcondition: the object is no longer held and lies on a receptacle (the named one,
    when given). Nothing works: ``blocked``.
    """

    name = "set_down"
    needs_target = False

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        held = ctx.held()
        if held is None:
            return unmet + ["nothing is held"]
        if call.target is not None and call.target != held["objectId"]:
            unmet.append(f"{call.target} is not held (holding {held['objectId']})")
        if not unmet and call.receptacle is not None:
            u = ctx.fault_of(call.receptacle)
            unmet += [u] if u is not None else []
        return unmet

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        o = ctx.find(ctx.held_at_start or "") or {}
        if o.get("isPickedUp") or not o.get("parentReceptacles"):
            return [f"{ctx.held_at_start} was not set down"]
        if call.receptacle is not None and call.receptacle not in o["parentReceptacles"]:
            return [Unmet(f"{ctx.held_at_start} is not on {call.receptacle}", "blocked", call.receptacle)]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        held = (ctx.held() or {}).get("objectId", "")
        if call.receptacle is not None:
            res = ctx.sub("put", call.receptacle)
            return Outcome(True) if res.ok else relay(res, f"setting {held} down")
        surfaces = sorted((o for t in WORK_SURFACES for o in ctx.of_type(t)
                           if ctx.fault_of(o["objectId"]) is None and o.get("receptacle", True)),
                          key=lambda o: (float(o.get("distance") or 0.0), o["objectId"]))
        for surface in surfaces[:SET_DOWN_TRIES]:
            if ctx.sub("put", surface["objectId"]).ok:
                return Outcome(True, f"on {surface['objectId']}")
        # no surface within reach takes it: let it go where the robot stands, as AI2-THOR's DropHandObject does
        if send(ctx, Action(name="DropHandObject"), f"dropping {held}") is None:
            return Outcome(True, f"{held} dropped where the robot stands (no work surface took it)")
        return failed(f"could not set {held} down on any work surface", "blocked")


@register_skill
class Place(Skill):
    """Put ``target`` into / onto ``receptacle``: pick it up unless held, open the receptacle if closed, put.

    A sliced target is carried as its first piece (``<id>|<Type>Sliced_0``). The receptacle is left open:
    ``SkillResult.opened`` lists it, and the planner adds a ``close`` step when the task wants it closed.
    Postcondition: the target (or a piece of it) lies in the receptacle.
    """

    name = "place"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if call.target is None or call.receptacle is None:
            return ["skill 'place' needs a target and a receptacle"]
        obj = carried(ctx, call.target)
        if obj is None:
            return [missing(call.target)]
        rec = ctx.find(call.receptacle)
        if rec is None:
            return [missing(call.receptacle)]
        unmet: list[str] = [] if rec.get("receptacle") else [f"{call.receptacle} is not a receptacle"]
        if not (ctx.find(obj) or {}).get("pickupable"):
            unmet.append(f"{obj} cannot be picked up")
        u = ctx.fault_of(call.receptacle)
        return unmet + ([u] if u is not None else []) + in_use_unmet(ctx, obj)

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        broken = [o for o in members(call.target or "", ctx.objects()) if o.get("isBroken")]
        if broken:  # it broke when picked up: what it was to hold is spilled, what it was for is lost
            return [Unmet(f"{broken[0]['objectId']} turned out to be broken when picked up", "broken", call.target)]
        if inside(ctx, carried(ctx, call.target or "") or call.target or "", call.receptacle or ""):
            return []
        return [Unmet(f"{call.target} is not in {call.receptacle}", "blocked", call.receptacle)]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target, rec = call.target or "", call.receptacle or ""
        obj = carried(ctx, target) or target  # a sliced target: the piece the skills carry, not any of its pieces
        if inside(ctx, obj, rec):
            return Outcome(True, f"already in {rec}")
        box = enclosure_of(ctx, ctx.find(rec) or {}) if (ctx.find(rec) or {}).get("pickupable") else None
        if box is not None:  # the plate in the cabinet, the pan in a drawer: out onto a work surface first
            moved = take_out(ctx, rec, box, f"to put {obj} in it")
            if moved is not None:
                return moved
        dest = ctx.find(rec) or {}
        if dest.get("openable") and dest.get("isOpen") and closed_container(ctx, ctx.find(obj) or {}) is not None:
            # one enclosure open at a time: the fridge is shut while the bowl is fetched from the cabinet (put
            # opens it again)
            ctx.sub("close", rec)
        fetched = fetch(ctx, obj)
        if fetched is not None:
            return fetched
        res = ctx.sub("put", rec)
        return Outcome(True, f"{obj} in {rec}") if res.ok else relay(res, f"placing {obj}")


# ------------------------------------------------------------------ fill, bring, hold_near_light


FAUCET_METRES = 2.0
"""A faucet (shower head) runs into the basin nearest to it, when that basin's centre is this close in the floor
plane (in the 120 iTHOR scenes every basin has one; a bathtub's shower head is up to 1.6 m away)."""
BASINS = ("SinkBasin", "BathtubBasin")
TAPS = ("Faucet", "ShowerHead")


def _centre_xz(o: RawObject) -> tuple[float, float]:
    box = o.get("axisAlignedBoundingBox") or {}
    c = box.get("center") or o.get("position") or {}
    return float(c.get("x", 0.0)), float(c.get("z", 0.0))


def water_sources(ctx: SkillContext) -> list[tuple[RawObject, RawObject]]:
    """(basin, tap) pairs of the scene: each faucet or shower head with the basin it runs into (the nearest one; a
    shower head's is a bathtub basin), nearest basin to the robot first, broken ones left out.

    AI2-THOR fills and cleans what lies in the basin under the running stream.
    """
    basins = [b for b in ctx.objects() if b.get("objectType") in BASINS and not b.get("isBroken")]
    out: list[tuple[float, str, RawObject, RawObject]] = []
    for tap in ctx.objects():
        if tap.get("objectType") not in TAPS or tap.get("isBroken"):
            continue
        tx, tz = (float((tap.get("position") or {}).get(k, 0.0)) for k in ("x", "z"))
        want = [b for b in basins if tap["objectType"] != "ShowerHead" or b["objectType"] == "BathtubBasin"] or basins
        if not want:
            continue
        basin = min(want, key=lambda b: (math.dist(_centre_xz(b), (tx, tz)), b["objectId"]))
        if math.dist(_centre_xz(basin), (tx, tz)) < FAUCET_METRES:
            out.append((float(basin.get("distance") or 0.0), basin["objectId"] + tap["objectId"], basin, tap))
    return [(b, t) for _, _, b, t in sorted(out, key=lambda x: (x[0], x[1]))]


BREWS_INTO = ("Mug",)
"""What a coffee machine takes and fills (AI2-THOR's object-specific receptacle: a Mug)."""


def liquid_sources(ctx: SkillContext, liquid: str, vessel: str) -> list[tuple[str, RawObject, RawObject | None]]:
    """Where ``liquid`` can come from, best first: ``("tap", basin, faucet)`` for water, ``("brew", coffee machine,
    None)`` for coffee into a mug, ``("brew-pour", coffee machine, mug)`` for coffee into anything else (brewed into
    the mug, then poured), ``("pour", vessel holding it, None)`` for any liquid some other vessel holds (a filled
    wine bottle). Nothing is conjured: a scene without one of them has no source."""
    out: list[tuple[str, RawObject, RawObject | None]] = []
    movable = bool((ctx.find(vessel) or {}).get("pickupable"))  # a house plant stays put: only a pour reaches it
    if movable and liquid == "water":
        out += [("tap", b, f) for b, f in water_sources(ctx)]
    elif movable and liquid == "coffee":
        machines = [m for m in ctx.of_type("CoffeeMachine") if not m.get("isBroken")]
        if (ctx.find(vessel) or {}).get("objectType") in BREWS_INTO:
            out += [("brew", m, None) for m in machines]
        else:  # a coffee machine takes only a mug: brew into one, then pour (the mug already in it first)
            mugs = sorted((o for t in BREWS_INTO for o in ctx.of_type(t) if o["objectId"] != vessel
                           and not o.get("isBroken") and o.get("pickupable")),
                          key=lambda o: (not any(m["objectId"] in (o.get("parentReceptacles") or []) for m in machines),
                                         float(o.get("distance") or 0.0), o["objectId"]))
            out += [("brew-pour", m, mug) for m in machines for mug in mugs[:2]]
    for o in ctx.objects():
        if (o.get("objectId") != vessel and held_liquid(o) == liquid and o.get("pickupable")
                and not o.get("isBroken")):
            out.append(("pour", o, None))
    return out


@register_skill
class Fill(Skill):
    """Fill the vessel ``target`` with ``args["liquid"]`` (water, coffee or wine; default water) from a source.

    Water: the vessel into a sink basin under its faucet, the faucet on and off again (AI2-THOR fills what the
    stream reaches). Coffee: the mug into a coffee machine, switched on and off. Any liquid another vessel holds
    (wine in a wine bottle): poured, that vessel emptied into this one. Each source is tried in turn (a faucet
    that runs no water, a machine that brews nothing); a vessel holding another liquid is emptied first.
    ``FillObjectWithLiquid`` is sent only as the second half of a pour. A broken vessel is ``broken``; no source
    at all fails with no fault (the task cannot be done here). Postcondition: ``fillLiquid`` is the liquid.
    """

    name = "fill"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        liquid = call.args.get("liquid", "water")
        if liquid not in LIQUIDS:
            unmet.append(f"liquid must be one of {', '.join(LIQUIDS)}, got {liquid!r}")
        if not (ctx.find(call.target or "") or {}).get("canFillWithLiquid"):
            unmet.append(f"{call.target} cannot hold a liquid")
        u = ctx.fault_of(call.target or "")
        return unmet + ([u] if u is not None else [])

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        o = ctx.find(call.target or "") or {}
        if o.get("isBroken"):
            return [Unmet(f"{call.target} turned out to be broken", "broken", call.target)]
        liquid = call.args.get("liquid", "water")
        if o.get("isFilledWithLiquid") and str(o.get("fillLiquid") or "").lower() == liquid:
            return []
        return [f"{call.target} is not filled with {liquid} (fillLiquid={o.get('fillLiquid')!r})"]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        liquid = call.args.get("liquid", "water")
        o = ctx.find(target) or {}
        if o.get("isFilledWithLiquid") and str(o.get("fillLiquid") or "").lower() == liquid:
            return Outcome(True, f"already filled with {liquid}")
        sources = liquid_sources(ctx, liquid, target)
        if not sources:
            return failed(f"no source of {liquid} in this scene for {target} (water runs from a faucet over a basin, "
                          "coffee from a coffee machine, or is poured from a vessel that holds it): infeasible")
        if o.get("isFilledWithLiquid"):
            emptied = _empty(ctx, target)
            if not emptied.ok:
                return emptied
        tried: list[str] = []
        for how, source, tap in sources:
            out = _fill_from(ctx, target, liquid, how, source, tap)
            if out.ok:
                return out
            if out.fault is not None and out.blame == target:
                return out  # the vessel itself let it down
            tried.append(f"{source['objectId']}: {out.reason}")
        return failed(f"no source filled {target} with {liquid}: " + "; ".join(tried))


def _empty(ctx: SkillContext, vessel: str, near: str | None = None) -> Outcome:
    """Go to ``near`` (default the vessel) and empty ``vessel`` (the first half of a pour, or making room)."""
    return go(ctx, near or vessel) or send(ctx, Action(name="EmptyLiquidFromObject", object_id=vessel),
                                          f"emptying {vessel}")


def _filled(ctx: SkillContext, target: str, liquid: str) -> bool:
    o = ctx.find(target) or {}
    return bool(o.get("isFilledWithLiquid")) and str(o.get("fillLiquid") or "").lower() == liquid


def _fill_from(ctx: SkillContext, target: str, liquid: str, how: str, source: RawObject,
               tap: RawObject | None) -> Outcome:
    """One attempt at filling ``target`` from one source (see :class:`Fill`)."""
    sid = source["objectId"]
    if how == "brew-pour" and tap is not None:
        mug = tap["objectId"]
        if not _filled(ctx, mug, liquid):
            if (ctx.find(mug) or {}).get("isFilledWithLiquid"):
                emptied = _empty(ctx, mug)
                if not emptied.ok:
                    return emptied
            brewed = _fill_from(ctx, mug, liquid, "brew", source, None)
            if not brewed.ok:
                return brewed
        return _fill_from(ctx, target, liquid, "pour", ctx.find(mug) or tap, None)
    if how == "pour":
        box = enclosure_of(ctx, ctx.find(target) or {})
        if box is not None:  # the cup in a cabinet: out onto a work surface, where it can be poured into
            moved = take_out(ctx, target, box, "to pour into it")
            if moved is not None:
                return moved
        fetched = fetch(ctx, sid)
        if fetched is not None:
            return fetched
        emptied = _empty(ctx, sid, near=target)
        if not emptied.ok:
            return emptied
        return send(ctx, Action(name="FillObjectWithLiquid", object_id=target, args={"fillLiquid": liquid}),
                    f"pouring {liquid} from {sid} into {target}")
    device = tap["objectId"] if tap is not None else sid
    freed = hand_free(ctx, keep=target)
    if freed is not None:
        return freed
    for skill, obj in (("pickup", target), ("put", sid)):
        if skill == "pickup" and (ctx.find(target) or {}).get("isPickedUp"):
            continue
        res = ctx.sub(skill, obj)
        if not res.ok:
            return relay(res, f"filling {target} from {sid}")
    res = ctx.sub("toggle_on", device)
    if not res.ok:
        return relay(res, f"filling {target} from {sid}")
    ok = _filled(ctx, target, liquid)
    ctx.sub("toggle_off", device)
    if ok:
        return Outcome(True, f"{target} filled with {liquid} from {device}")
    # the source ran and gave nothing: take the vessel back for the next source
    ctx.sub("pickup", target)
    return failed(f"{device} was on and {target} did not fill with {liquid}", "faulty", device)


@register_skill
class Bring(Skill):
    """Go to ``target`` and pick it up when it is pickupable (a sliced target: its first piece).

    Postcondition: it is held, within ``args["within"]`` metres (default 1.5) of the robot, or interactable from
    where the robot stands (a bathtub's centre can be farther away than its rim).
    """

    name = "bring"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if call.target is None:
            return ["skill 'bring' needs a target"]
        obj = carried(ctx, call.target)
        return [missing(call.target)] if obj is None else in_use_unmet(ctx, obj)

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        within = float(call.args.get("within", BRING_METRES))
        for o in members(call.target or "", ctx.objects()):
            near = o.get("distance") is not None and float(o["distance"]) <= within
            if o.get("isPickedUp") or near or o.get("isInteractable"):
                return []
        return [f"{call.target} is neither held nor within {within:g} m of the robot"]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        obj = carried(ctx, call.target or "") or ""
        if (ctx.find(obj) or {}).get("pickupable"):
            return fetch(ctx, obj) or Outcome(True, f"holding {obj}")
        return go(ctx, obj) or Outcome(True, f"next to {obj}")


def _near(ctx: SkillContext, object_id: str, lamp: str) -> bool:
    cond = GoalCondition(item="x", relation="close_to", other="lamp", distance=NEAR_LIGHT_METRES)
    return check(cond, ctx.objects(), {"x": object_id, "lamp": lamp}).met


def lamp_for(ctx: SkillContext, call: SkillCall) -> str | None:
    """The call's lamp (``receptacle``), else the nearest DeskLamp / FloorLamp that is not broken."""
    if call.receptacle is not None:
        return call.receptacle
    lamps = sorted((o for t in LAMPS for o in ctx.of_type(t) if not o.get("isBroken")),
                   key=lambda o: (float(o.get("distance") or 0.0), o["objectId"]))
    return lamps[0]["objectId"] if lamps else None


@register_skill
class HoldNearLight(Skill):
    """Switch the lamp (``receptacle``; default the nearest) on, pick ``target`` up, stand close to the lamp.

    A lamp that does not light is ``faulty``; a broken one ``broken``. Postcondition: the target is held,
    the lamp is on, and their centres are within 1.0 m (ALFRED's look-at-object-in-light).
    """

    name = "hold_near_light"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        if not (ctx.find(call.target or "") or {}).get("pickupable"):
            unmet.append(f"{call.target} cannot be picked up")
        lamp = lamp_for(ctx, call)
        if lamp is None:
            return unmet + ["no DeskLamp or FloorLamp in this scene"]
        if (ctx.find(lamp) or {}).get("objectType") not in LAMPS:
            unmet.append(f"{lamp} is not a DeskLamp or FloorLamp")
        u = ctx.fault_of(lamp)
        return unmet + ([u] if u is not None else []) + in_use_unmet(ctx, call.target or "")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        target, lamp = call.target or "", lamp_for(ctx, call) or ""
        unmet: list[str] = [] if (ctx.find(target) or {}).get("isPickedUp") else [f"{target} is not held"]
        if not (ctx.find(lamp) or {}).get("isToggled"):
            unmet.append(Unmet(f"{lamp} is not on", "faulty", lamp))
        if not _near(ctx, target, lamp):
            unmet.append(f"{target} is farther than {NEAR_LIGHT_METRES:g} m from {lamp}")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target, lamp = call.target or "", lamp_for(ctx, call) or ""
        res = ctx.sub("toggle_on", lamp)
        if not res.ok:
            return relay(res, f"switching {lamp} on")
        fetched = fetch(ctx, target)
        if fetched is not None:
            return fetched
        went = go(ctx, lamp, until=lambda: _near(ctx, target, lamp))
        return went or Outcome(True, f"{target} held near {lamp}")


__all__ = ["BRING_METRES", "LAMPS", "LIQUIDS", "NEAR_LIGHT_METRES", "carried", "is_sliced", "liquid_sources",
           "pieces", "water_sources"]
