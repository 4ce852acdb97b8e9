"""Changing an object's temperature with a device: ``heat`` (Microwave, StoveBurner, Toaster, CoffeeMachine)
and ``cool`` (Fridge).

Both wait in steps (``ctx.wait``: the embedded simulator's ``Wait``, AI2-THOR's ``Pass``) until the object, one
of its pieces, or the vessel holding a liquid shows the wanted state, up to ``args["max_seconds"]``. A device
that was on (or closed) the whole time without the object changing is ``faulty`` and blamed. ``heat`` always
switches the source off again, on failure too. AI2-THOR's rule to keep in mind: an object that left its
heat or cold source returns to RoomTemp after about 10 s.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.goals import members
from planner.schemas import SkillCall
from planner.schemas.thor_rules import FILLS_ONLY_EMPTY
from scenes.base import Action

from .base import Outcome, Skill, SkillContext, Unmet, failed
from .navigation import go
from .primitives import HEAT_SOURCES, WAIT_STEP_SECONDS, action_failed, relay, send, switch_of, toggle
from .registry import register_skill

MAX_SECONDS = 600.0
"""Default longest wait of ``heat`` / ``cool`` (simulated seconds)."""
UNTIL = ("Hot", "cooked")
"""What ``heat`` waits for: ``temperature == "Hot"``, or ``isCooked``."""


def contents(ctx: SkillContext, receptacle: str) -> set[str]:
    """Everything in or on the receptacle, nested (the water's pot on the burner, the egg in the pot)."""
    out: set[str] = set()
    todo = [receptacle]
    while todo:
        for c in (ctx.find(todo.pop()) or {}).get("receptacleObjectIds") or []:
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def reached(ctx: SkillContext, object_id: str, until: str) -> bool:
    """The object or one of its pieces is Hot / Cold (``until``) or cooked (``"cooked"``)."""
    objs = members(object_id, ctx.objects())
    if until == "cooked":
        return any(o.get("isCooked") for o in objs)
    return any(o.get("temperature") == until for o in objs)


def _device_unmet(ctx: SkillContext, call: SkillCall, kind: str) -> list[str]:
    """The object named in ``args["object"]`` exists and sits in / on the device; the device is usable."""
    device = call.target or ""
    obj = call.args.get("object")
    if not obj:
        return [f"skill {kind!r} needs args['object']: the id of the object to {kind}"]
    if not members(str(obj), ctx.objects()):
        return [Unmet(f"object {obj!r} is not in the scene", "missing", str(obj))]
    unmet: list[str] = []
    for oid in dict.fromkeys((device, switch_of(ctx, device) or device)):
        u = ctx.fault_of(oid)
        if u is not None:  # the burner's knob in use or broken: the burner is what the planner chose
            unmet.append(Unmet(str(u), u.fault, device))
            break
    inside = contents(ctx, device)
    if not any(o["objectId"] in inside for o in members(str(obj), ctx.objects())):
        unmet.append(f"{obj} is not in / on {device}: place it there first")
    return unmet


def wait_until(ctx: SkillContext, done: Callable[[], bool], device: str, what: str, call: SkillCall,
               need_on: bool) -> Outcome:
    """Wait in steps until ``done()``; a device that stays on (or closed) without effect is ``faulty``."""
    max_seconds = float(call.args.get("max_seconds", MAX_SECONDS))
    step = float(call.args.get("step_seconds", WAIT_STEP_SECONDS))
    waited = 0.0
    while not done():
        if need_on and not (ctx.find(device) or {}).get("isToggled"):
            u = ctx.fault_of(device)
            if u is not None:
                return failed(f"{device} went off while waiting ({u})", u.fault, device)
            return failed(f"{device} went off by itself while waiting", "faulty", device)
        if waited >= max_seconds:
            state = "on" if need_on else "closed"
            return failed(f"{what} not reached after {waited:g} s although {device} was {state}", "faulty", device)
        dt = min(step, max_seconds - waited)
        if not ctx.wait(dt):
            return action_failed(ctx, f"waiting for {what}")
        waited += dt
    return Outcome(True, f"{what} after {waited:g} s")


@register_skill
class Heat(Skill):
    """Heat ``args["object"]`` with the heat source ``target`` until it is Hot (or cooked), then switch off.

    Args (in ``call.args``): ``object`` (required: the id being heated; the vessel for a liquid),
    ``until`` (``"Hot"`` or ``"cooked"``), ``max_seconds`` (600), ``step_seconds`` (30).
    Safety precondition: the object is in / on the source (so never an empty Microwave, nor a burner with
    no vessel on it). A microwave that is open is closed first; a burner is switched by its StoveKnob.
    Faults: ``in-use`` (the source or its knob used by someone else), ``broken``, ``faulty`` (the source
    was on for ``max_seconds`` and the object did not heat). The source is switched off in every case.
    """

    name = "heat"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        o = ctx.find(call.target or "") or {}
        kind = o.get("objectType")
        if kind not in HEAT_SOURCES and not o.get("isHeatSource"):
            return [f"{call.target} is not a heat source ({', '.join(HEAT_SOURCES)})"]
        until = call.args.get("until", "Hot")
        if until not in UNTIL:
            unmet.append(f"until must be one of {', '.join(UNTIL)}, got {until!r}")
        if not contents(ctx, call.target or ""):
            what = "a burner with no vessel on it" if kind == "StoveBurner" else f"an empty {kind}"
            return unmet + [f"refusing to switch on {what} ({call.target})"]
        return unmet + _device_unmet(ctx, call, "heat")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet: list[str] = []
        until = call.args.get("until", "Hot")
        if not reached(ctx, str(call.args.get("object")), until):
            unmet.append(f"{call.args.get('object')} is not {until}")
        if (ctx.find(call.target or "") or {}).get("isToggled"):
            unmet.append(Unmet(f"{call.target} is still on", "faulty", call.target))
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        source, obj = call.target or "", str(call.args["object"])
        until = call.args.get("until", "Hot")
        # switched on even when the object is hot already (coffee brewed hot, reheated in the microwave the task
        # names): being heated is the device running with it inside, as ALFRED books it
        o = ctx.find(source) or {}
        if o.get("objectType") in FILLS_ONLY_EMPTY and until == "Hot" and not reached(ctx, obj, "Hot"):
            # a coffee machine brews only into an empty mug and heats nothing: cold coffee in the mug is poured
            # out, so the mug is filled hot (it cannot be reheated there); any other liquid stays, and stays cold
            held = ctx.find(obj) or {}
            if held.get("isFilledWithLiquid") and str(held.get("fillLiquid") or "").lower() == "coffee":
                emptied = go(ctx, obj) or send(ctx, Action(name="EmptyLiquidFromObject", object_id=obj),
                                               f"pouring the cold coffee out of {obj}")
                if not emptied.ok:
                    return emptied
        if o.get("objectType") == "Microwave" and o.get("isOpen"):
            res = ctx.sub("close", source)
            if not res.ok:
                return relay(res, f"closing {source}")
        on = toggle(ctx, source, True)
        if not on.ok:
            return on
        try:
            out = wait_until(ctx, lambda: reached(ctx, obj, until), source, f"{obj} {until}", call, need_on=True)
        finally:
            off = toggle(ctx, source, False)  # a source left on is a hazard, whatever happened
        if not off.ok:
            why = f"{out.reason}; switching {source} off failed: {off.reason}"
            return failed(why, out.fault if not out.ok else off.fault or "faulty", source)
        return out


@register_skill
class Cool(Skill):
    """Cool ``args["object"]`` in the Fridge ``target``: close the door, wait until the object is Cold.

    Args: ``object`` (required, already in the fridge), ``max_seconds`` (600), ``step_seconds`` (30).
    Faults: ``faulty`` (the fridge was closed for ``max_seconds`` and the object is not Cold), ``broken``,
    ``in-use``. Postcondition: the object (or a piece of it) is Cold.
    """

    name = "cool"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        o = ctx.find(call.target or "") or {}
        if not o.get("isColdSource") and o.get("objectType") != "Fridge":
            return [f"{call.target} is not a cold source (a Fridge)"]
        return _device_unmet(ctx, call, "cool")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        obj = str(call.args.get("object"))
        return [] if reached(ctx, obj, "Cold") else [f"{obj} is not Cold"]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        fridge, obj = call.target or "", str(call.args["object"])
        if (ctx.find(fridge) or {}).get("isOpen"):
            res = ctx.sub("close", fridge)
            if not res.ok:
                return relay(res, f"closing {fridge}")
        return wait_until(ctx, lambda: reached(ctx, obj, "Cold"), fridge, f"{obj} Cold", call, need_on=False)


__all__ = ["MAX_SECONDS", "UNTIL", "contents", "reached"]
