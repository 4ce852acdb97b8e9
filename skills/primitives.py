"""Action primitives built from AI2-THOR actions: goto, open, close, pickup, put, toggle_on/off, wait.

Each primitive states its preconditions and postconditions, and on failure says which object was at fault
when the metadata shows it (gone, ``isBroken``, someone else using it per ``obs.extra["in_use"]``). The task
skills (:mod:`skills.tasks`, :mod:`skills.thermal`) and the composite ones (:mod:`skills.composite`) are
built from these.
"""

from __future__ import annotations

from planner.schemas import SkillCall
from scenes.base import Action, RawObject

from .base import Fault, Outcome, Skill, SkillContext, SkillResult, Unmet, failed
from .navigation import go
from .registry import register_skill

HEAT_SOURCES = ("Microwave", "StoveBurner", "Toaster", "CoffeeMachine")
WORK_SURFACES = ("CounterTop", "DiningTable", "SideTable", "Desk", "CoffeeTable", "Shelf", "Dresser")
"""Receptacles a held object is set down on when no receptacle is named (nearest first)."""
CUTTING_TOOLS = ("Knife", "ButterKnife")
WAIT_STEP_SECONDS = 30.0
"""One wait, in simulated seconds, before the robot looks again whether an object is free."""
MAX_WAIT_SECONDS = 120.0
"""How long ``wait`` waits for an object in use before it gives up (the loop then decides the role again)."""


# ------------------------------------------------------------------ helpers shared by the skill modules


def knob_for(ctx: SkillContext, burner_id: str) -> RawObject | None:
    """The StoveKnob that switches this burner (AI2-THOR's ``controlledObjects``), if any."""
    for o in ctx.objects():
        if o.get("objectType") == "StoveKnob" and burner_id in (o.get("controlledObjects") or []):
            return o
    return None


def closed_container(ctx: SkillContext, o: RawObject) -> RawObject | None:
    """The closed openable receptacle that holds ``o``, if any (it must be opened first). A fixed object (not
    pickupable, not moveable) is in none: a recording lists FloorPlan19's fridge among its cabinets' contents only
    because their boxes overlap."""
    if not (o.get("pickupable") or o.get("moveable")):
        return None
    for pid in o.get("parentReceptacles") or []:
        parent = ctx.find(pid)
        if parent and parent.get("openable") and not parent.get("isOpen"):
            return parent
    return None


def action_failed(ctx: SkillContext, what: str, *suspects: str, fault_if_none: Fault | None = None) -> Outcome:
    """The last action failed: its error, blaming the first suspect whose state shows why.

    ``fault_if_none`` (with the first suspect as blame) applies when no suspect's state explains it, e.g.
    ``blocked`` for a receptacle that refused the object.
    """
    err = ctx.last_error
    reason = f"{what} failed" + (f": {err}" if err else "")
    if "budget" in err:
        return failed(reason)
    for oid in suspects:
        u = ctx.fault_of(oid)
        if u is not None:
            return failed(f"{reason} ({u})", u.fault, u.blame)
    if fault_if_none is not None and suspects:
        return failed(reason, fault_if_none, suspects[0])
    return failed(reason)


def send(ctx: SkillContext, action: Action, what: str, *suspects: str,
         fault_if_none: Fault | None = None) -> Outcome:
    """Send one action; its failure as :func:`action_failed` (the action's object is the first suspect)."""
    if ctx.act(action):
        return Outcome(True)
    blame = tuple(dict.fromkeys(s for s in (action.object_id, *suspects) if s))
    return action_failed(ctx, what, *blame, fault_if_none=fault_if_none)


def relay(res: SkillResult, what: str = "") -> Outcome:
    """A sub-skill's failed result as this skill's outcome (keeping its fault and blame)."""
    return failed(f"{what}: {res.reason}" if what else res.reason, res.fault, res.blame)


def in_use_unmet(ctx: SkillContext, *object_ids: str) -> list[str]:
    """An ``in-use`` Unmet for the first of these objects someone else is using (else nothing)."""
    for oid in object_ids:
        u = ctx.fault_of(oid)
        if u is not None and u.fault == "in-use":
            return [u]
    return []


def hand_free(ctx: SkillContext, keep: str | None = None) -> Outcome | None:
    """Set the held object down (unless it is ``keep``) so the hand is free; None when it is."""
    held = ctx.held()
    if held is None or held["objectId"] == keep:
        return None
    res = ctx.sub("set_down")
    return None if res.ok else relay(res, f"freeing the hand of {held['objectId']}")


# ------------------------------------------------------------------ skills


@register_skill
class GoTo(Skill):
    """Walk to an object. Postcondition: the object is interactable from where the robot stands."""

    name = "goto"

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        return go(ctx, call.target or "") or Outcome(True)


@register_skill
class Open(Skill):
    """Open an openable object (fridge, cabinet, microwave). Postcondition: ``isOpen``."""

    name = "open"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        if not (ctx.find(call.target or "") or {}).get("openable"):
            return [f"{call.target} is not openable"]
        return in_use_unmet(ctx, call.target or "")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if not (ctx.find(call.target or "") or {}).get("isOpen"):
            return [Unmet(f"{call.target} is not open", "blocked", call.target)]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        if (ctx.find(target) or {}).get("isOpen"):
            return Outcome(True, "already open")
        return go(ctx, target) or send(ctx, Action(name="OpenObject", object_id=target), f"opening {target}",
                                       fault_if_none="blocked")


@register_skill
class Close(Skill):
    """Close an openable object. Postcondition: not ``isOpen``."""

    name = "close"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return super().unmet_preconditions(call, ctx) or in_use_unmet(ctx, call.target or "")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if (ctx.find(call.target or "") or {}).get("isOpen"):
            return [Unmet(f"{call.target} is still open", "blocked", call.target)]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        if not (ctx.find(target) or {}).get("isOpen"):
            return Outcome(True, "already closed")
        if ctx.act(Action(name="CloseObject", object_id=target)):
            return Outcome(True)
        if "budget" in ctx.last_error:
            return action_failed(ctx, f"closing {target}")
        # out of reach from here: walk there and try once more
        return go(ctx, target) or send(ctx, Action(name="CloseObject", object_id=target), f"closing {target}",
                                       fault_if_none="blocked")


@register_skill
class PickUp(Skill):
    """Pick an object up (opening its closed container first, and shutting it again once the object is out: a
    drawer or a fridge does not stand open while the robot works elsewhere). Postcondition: the object is held."""

    name = "pickup"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        o = ctx.find(call.target or "") or {}
        if not o.get("pickupable"):
            unmet.append(f"{call.target} cannot be picked up")
        unmet += in_use_unmet(ctx, call.target or "")
        held = ctx.held()
        if held is not None and held["objectId"] != call.target:
            unmet.append(f"the hand is full (holding {held['objectId']})")
        return unmet

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return [] if (ctx.find(call.target or "") or {}).get("isPickedUp") else [f"{call.target} is not held"]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("isPickedUp"):
            return Outcome(True, "already held")
        container = closed_container(ctx, o)
        if container is not None:
            res = ctx.sub("open", container["objectId"])
            if not res.ok:
                return relay(res, f"opening {container['objectId']}")
        failed_ = go(ctx, target) or send(ctx, Action(name="PickupObject", object_id=target), f"picking up {target}")
        if container is not None and (failed_ is None or failed_.ok) and (ctx.find(container["objectId"]) or {}).get(
                "isOpen"):
            ctx.sub("close", container["objectId"])
        if (failed_ is None or failed_.ok) and (ctx.find(target) or {}).get("isBroken"):
            # it looked fine until it was in the hand: put it down again and say what it is
            ctx.sub("set_down")
            return failed(f"{target} turned out to be broken when picked up (set it down again)", "broken", target)
        return failed_


@register_skill
class Put(Skill):
    """Put the held object into / onto a receptacle (``target`` is the receptacle), opening it if closed.

    Postcondition: the object held at the start lies in the receptacle. A receptacle that refuses the
    object (full, wrong type for it) is ``blocked`` and blamed.
    """

    name = "put"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if ctx.held() is None:
            unmet.append("nothing is held")
        if not unmet:
            u = ctx.fault_of(call.target or "")
            if u is not None:
                unmet.append(u)
        return unmet

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        held = ctx.held_at_start or ""
        if call.target not in ((ctx.find(held) or {}).get("parentReceptacles") or []):
            return [Unmet(f"{held} is not in {call.target}", "blocked", call.target)]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        rec = ctx.find(target) or {}
        holder = closed_container(ctx, rec)
        if holder is not None:  # a bowl inside a closed cabinet: open the cabinet first
            res = ctx.sub("open", holder["objectId"])
            if not res.ok:
                return relay(res, f"opening {holder['objectId']}")
        if rec.get("openable") and not rec.get("isOpen"):
            res = ctx.sub("open", target)
            if not res.ok:
                return relay(res, f"opening {target}")
        else:
            went = go(ctx, target)
            if went is not None:
                return went
        return send(ctx, Action(name="PutObject", object_id=target), f"putting into {target}", fault_if_none="blocked")


def switch_of(ctx: SkillContext, target: str) -> str | None:
    """The object to toggle for ``target``: itself, or a burner's StoveKnob (None: a burner without one)."""
    o = ctx.find(target) or {}
    if o.get("objectType") != "StoveBurner":
        return target
    knob = knob_for(ctx, target)
    return knob["objectId"] if knob is not None else None


def toggle(ctx: SkillContext, target: str, on: bool) -> Outcome:
    """Switch ``target`` on or off (a burner through its knob, a microwave closed first)."""
    o = ctx.find(target) or {}
    switch = switch_of(ctx, target)
    if switch is None:  # a burner nothing switches on cannot heat: its role is decided again (the microwave)
        return failed(f"no StoveKnob controls {target}: it cannot be switched on", "faulty", target)
    if bool(o.get("isToggled")) == on:
        return Outcome(True, f"already {'on' if on else 'off'}")
    if o.get("objectType") == "Microwave" and on and o.get("isOpen"):
        ctx.act(Action(name="CloseObject", object_id=target))  # AI2-THOR: a microwave cannot run while open
    went = go(ctx, switch)
    if went is not None:
        return went
    name = "ToggleObjectOn" if on else "ToggleObjectOff"
    return send(ctx, Action(name=name, object_id=switch), f"{name} {switch}", target)


class _Toggle(Skill):
    on: bool = True

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        switch = switch_of(ctx, call.target or "") or ""
        unmet += in_use_unmet(ctx, call.target or "", switch)
        if self.on and not unmet and (ctx.find(call.target or "") or {}).get("isBroken"):
            unmet.append(Unmet(f"{call.target} is broken and cannot be switched on", "broken", call.target))
        return unmet

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if bool((ctx.find(call.target or "") or {}).get("isToggled")) != self.on:
            state = "on" if self.on else "off"
            return [Unmet(f"{call.target} did not switch {state}", "faulty", call.target)]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        return toggle(ctx, call.target or "", self.on)


@register_skill
class ToggleOn(_Toggle):
    """Switch an appliance on (a stove burner through its knob). Postcondition: ``isToggled``."""

    name = "toggle_on"
    on = True


@register_skill
class ToggleOff(_Toggle):
    """Switch an appliance off. Postcondition: not ``isToggled``."""

    name = "toggle_off"
    on = False


@register_skill
class Wait(Skill):
    """Wait until someone else is done with the object, looking again every ``args["seconds"]`` (30 s), at most
    ``args["max_seconds"]`` (120 s): the robot cannot know how long the other user needs it. Fails at once for
    irreversible use.

    Postcondition: nobody else uses the object. Irreversible use, or use that outlasts the bound, is ``in-use``,
    blamed on the object.
    """

    name = "wait"

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return in_use_unmet(ctx, call.target or "")

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        step = float(call.args.get("seconds", WAIT_STEP_SECONDS))
        bound = float(call.args.get("max_seconds", MAX_WAIT_SECONDS))
        waited = 0.0
        while True:
            use = ctx.in_use(target)
            if use is None:
                return Outcome(True, f"free after {waited:g} s")
            if use == "irreversible-using":
                return failed(f"{target} is in use for good (irreversible-using); waiting will not help",
                              "in-use", target)
            if waited >= bound:
                return failed(f"{target} is still in use after {waited:g} s of waiting (reversible-using, for how "
                              "long is unknown)", "in-use", target)
            if not ctx.wait(min(step, bound - waited)):
                return action_failed(ctx, f"waiting for {target}")
            waited += min(step, bound - waited)


__all__ = ["CUTTING_TOOLS", "HEAT_SOURCES", "WAIT_STEP_SECONDS", "WORK_SURFACES"]
