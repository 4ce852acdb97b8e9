"""Action primitives built from AI2-THOR actions.

Navigation is at the level of reachable positions (``GetReachablePositions`` then ``Teleport`` to the one
nearest the target, facing it), as the embedded simulator and AI2-THOR both support. The composite skills
(``wash``, ``wait``, ``prepare``) are what turns a *moderate* substitute into a usable one: wash the dirty
mug, wait for the busy stove, let the hot pan cool.
"""

from __future__ import annotations

import math
from typing import Any

from planner.schemas import SkillCall
from scenes.base import Action, RawObject

from .base import Skill, SkillContext
from .registry import register_skill

HEAT_SOURCES = ("Microwave", "StoveBurner", "Toaster", "CoffeeMachine")
WORK_SURFACES = ("CounterTop", "DiningTable", "SideTable", "Desk", "CoffeeTable", "Shelf", "Dresser")
"""Receptacles ``use`` sets a held object down on before it takes the next one (nearest first)."""
CUTTING_TOOLS = ("Knife", "ButterKnife")
WAIT_STEP_SECONDS = 30.0
"""Longest single wait, in simulated seconds, when the backend does not say how long the use lasts."""


def _pos(o: RawObject) -> tuple[float, float]:
    p = o.get("position") or {}
    return float(p.get("x", 0.0)), float(p.get("z", 0.0))


def _action_return(ctx: SkillContext) -> Any:
    if ctx.obs.event is not None:
        return ctx.obs.event.metadata.get("actionReturn")
    return ctx.obs.extra.get("actionReturn")


def _knob_for(ctx: SkillContext, burner_id: str) -> RawObject | None:
    for o in ctx.objects():
        if o.get("objectType") == "StoveKnob" and burner_id in (o.get("controlledObjects") or []):
            return o
    return None


def _container_closed(ctx: SkillContext, o: RawObject) -> RawObject | None:
    """The closed openable receptacle that holds ``o``, if any (it must be opened first)."""
    for pid in o.get("parentReceptacles") or []:
        parent = ctx.find(pid)
        if parent and parent.get("openable") and not parent.get("isOpen"):
            return parent
    return None


GOTO_POSITIONS = 4
"""Reachable positions (nearest the target first) ``goto`` tries before it gives up."""
GOTO_HORIZONS = (30.0, 0.0, 60.0)
"""Camera pitches ``goto`` tries at each position (positive looks down), as a robot would look around."""


def _interactable(o: RawObject | None) -> bool:
    if o is None:
        return False
    if "isInteractable" in o:
        return bool(o["isInteractable"])
    return bool(o.get("visible", True))


def goto(ctx: SkillContext, object_id: str) -> bool:
    """Go where the object can be interacted with: the nearest reachable positions, facing it, looking
    down, ahead or further down until AI2-THOR's ``isInteractable`` holds (knobs and low drawers need it)."""
    target = ctx.find(object_id)
    if target is None:
        return False
    if target.get("isPickedUp") or _interactable(target) and float(target.get("distance") or 9.0) <= 1.0:
        return True
    if not ctx.act(Action(name="GetReachablePositions")):
        return False
    positions = _action_return(ctx) or []
    if not positions:
        return False
    tx, tz = _pos(target)
    ranked = sorted(positions, key=lambda p: ((p["x"] - tx) ** 2 + (p["z"] - tz) ** 2, p["x"], p["z"]))
    for best in ranked[:GOTO_POSITIONS]:
        yaw = math.degrees(math.atan2(tx - best["x"], tz - best["z"])) % 360.0
        rotation = {"x": 0.0, "y": yaw, "z": 0.0}
        for horizon in GOTO_HORIZONS:
            args = {"position": dict(best), "rotation": rotation, "horizon": horizon}
            if ctx.act(Action(name="Teleport", args=args)) and _interactable(ctx.find(object_id)):
                return True
    return False


def _fail(ctx: SkillContext, what: str) -> tuple[bool, str]:
    err = ctx.last_error
    return False, f"{what} failed" + (f": {err}" if err else "")


def _do(ctx: SkillContext, action: Action, what: str) -> tuple[bool, str]:
    """Send one action and turn its outcome into a skill's (ok, reason)."""
    return (True, "") if ctx.act(action) else _fail(ctx, what)


@register_skill
class GoTo(Skill):
    """Walk to an object."""

    name = "goto"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        return (True, "") if goto(ctx, target) else _fail(ctx, f"going to {target}")


@register_skill
class Open(Skill):
    """Open an openable object (fridge, cabinet, microwave)."""

    name = "open"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        o = ctx.find(call.target or "")
        if not unmet and o is not None and not o.get("openable"):
            unmet.append(f"{call.target} is not openable")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        if (ctx.find(target) or {}).get("isOpen"):
            return True, "already open"
        if not goto(ctx, target):
            return _fail(ctx, f"going to {target}")
        return _do(ctx, Action(name="OpenObject", object_id=target), f"opening {target}")


@register_skill
class Close(Skill):
    """Close an openable object."""

    name = "close"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        if not (ctx.find(target) or {}).get("isOpen"):
            return True, "already closed"
        return _do(ctx, Action(name="CloseObject", object_id=target), f"closing {target}")


@register_skill
class PickUp(Skill):
    """Pick an object up (opening its closed container first)."""

    name = "pickup"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if unmet:
            return unmet
        o = ctx.find(call.target or "") or {}
        if not o.get("pickupable"):
            unmet.append(f"{call.target} cannot be picked up")
        use = ctx.in_use(call.target or "")
        if use:
            unmet.append(f"{call.target} is being used by someone else ({use})")
        held = ctx.held()
        if held is not None and held["objectId"] != call.target:
            unmet.append(f"the hand is full (holding {held['objectId']})")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("isPickedUp"):
            return True, "already held"
        container = _container_closed(ctx, o)
        if container is not None:
            if not get_open()(SkillCall(skill="open", target=container["objectId"]), ctx).ok:
                return _fail(ctx, f"opening {container['objectId']}")
        if not goto(ctx, target):
            return _fail(ctx, f"going to {target}")
        return _do(ctx, Action(name="PickupObject", object_id=target), f"picking up {target}")


def get_open() -> Skill:
    """The registered ``open`` skill (looked up late so users can replace it)."""
    from .registry import get_skill

    return get_skill("open")


@register_skill
class Put(Skill):
    """Put the held object into / onto a receptacle (``target`` is the receptacle)."""

    name = "put"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if ctx.held() is None:
            unmet.append("nothing is held")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        rec = ctx.find(target) or {}
        if rec.get("openable") and not rec.get("isOpen"):
            if not get_open()(SkillCall(skill="open", target=target), ctx).ok:
                return _fail(ctx, f"opening {target}")
        elif not goto(ctx, target):
            return _fail(ctx, f"going to {target}")
        return _do(ctx, Action(name="PutObject", object_id=target), f"putting into {target}")


def _toggle(ctx: SkillContext, target: str, on: bool) -> tuple[bool, str]:
    o = ctx.find(target) or {}
    switch = target
    if o.get("objectType") == "StoveBurner":  # burners are switched through their knob, as in AI2-THOR
        knob = _knob_for(ctx, target)
        if knob is None:
            return False, f"no StoveKnob controls {target}"
        switch = knob["objectId"]
    if bool(o.get("isToggled")) == on:
        return True, f"already {'on' if on else 'off'}"
    if o.get("objectType") == "Microwave" and on and o.get("isOpen"):
        ctx.act(Action(name="CloseObject", object_id=target))
    if not goto(ctx, switch):
        return _fail(ctx, f"going to {switch}")
    name = "ToggleObjectOn" if on else "ToggleObjectOff"
    return _do(ctx, Action(name=name, object_id=switch), f"{name} {switch}")


@register_skill
class ToggleOn(Skill):
    """Switch an appliance on (a stove burner through its knob)."""

    name = "toggle_on"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        return _toggle(ctx, call.target or "", True)


@register_skill
class ToggleOff(Skill):
    """Switch an appliance off."""

    name = "toggle_off"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        return _toggle(ctx, call.target or "", False)


@register_skill
class Wait(Skill):
    """Wait (``Pass``) until someone else is done with the object; fails at once for irreversible use."""

    name = "wait"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        max_step = float(call.args.get("seconds", WAIT_STEP_SECONDS))
        while True:
            use = ctx.in_use(target)
            if use is None:
                return True, ""
            if use == "irreversible-using":
                return False, f"{target} is in use for good (irreversible-using); waiting will not help"
            remaining = ctx.in_use_remaining(target)
            # wait exactly as long as the other user needs when the backend says so (plus a moment)
            seconds = max_step if remaining is None else remaining + 1.0
            if not ctx.wait(seconds):
                return _fail(ctx, f"waiting for {target}")


@register_skill
class Wash(Skill):
    """Wash a dirty object under a running faucet (put it in the sink, faucet on, off, take it back)."""

    name = "wash"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        o = ctx.find(target) or {}
        if not o.get("isDirty"):
            return True, "already clean"
        if not o.get("pickupable"):
            # Beds, mirrors: nothing to carry to a sink; AI2-THOR cleans them with CleanObject.
            if not goto(ctx, target):
                return _fail(ctx, f"going to {target}")
            return _do(ctx, Action(name="CleanObject", object_id=target), "cleaning")
        sinks = ctx.of_type("SinkBasin") or ctx.of_type("BathtubBasin")
        faucets = ctx.of_type("Faucet")
        if not sinks or not faucets:
            return False, "no sink with a faucet in this scene"
        sink = sinks[0]
        sx, sz = _pos(sink)
        faucet = min(faucets, key=lambda f: ((_pos(f)[0] - sx) ** 2 + (_pos(f)[1] - sz) ** 2, f["objectId"]))
        for step in (
            SkillCall(skill="pickup", target=target),
            SkillCall(skill="put", target=sink["objectId"]),
            SkillCall(skill="toggle_on", target=faucet["objectId"]),
            SkillCall(skill="toggle_off", target=faucet["objectId"]),
            SkillCall(skill="pickup", target=target),
        ):
            from .registry import get_skill

            res = get_skill(step.skill)(step, ctx)
            if not res.ok:
                return False, f"washing {target}: {res.reason}"
        if (ctx.find(target) or {}).get("isDirty"):
            return False, f"{target} is still dirty after rinsing"
        return True, ""


@register_skill
class Slice(Skill):
    """Slice a sliceable object; the agent must hold a knife (ALFRED's rule; AI2-THOR does not check)."""

    name = "slice"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        held = ctx.held()
        if held is None or held.get("objectType") not in CUTTING_TOOLS:
            unmet.append("the agent must hold a Knife or ButterKnife to slice")
        o = ctx.find(call.target or "") or {}
        if o and not o.get("sliceable"):
            unmet.append(f"{call.target} is not sliceable")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        target = call.target or ""
        if not goto(ctx, target):
            return _fail(ctx, f"going to {target}")
        return _do(ctx, Action(name="SliceObject", object_id=target), f"slicing {target}")


@register_skill
class Prepare(Skill):
    """Get a chosen object ready to use: fail on broken / irreversible use, wait, wash, let it cool.

    ``args["temperature"]`` (optional) is the temperature the task wants; a hot object waits until it cools.
    """

    name = "prepare"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        from .registry import get_skill

        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("isBroken"):
            return False, f"{target} is broken: it cannot be made ready"
        if o.get("isUsedUp"):
            return False, f"{target} is used up"
        use = ctx.in_use(target)
        if use == "irreversible-using":
            return False, f"{target} is in use for good (irreversible-using)"
        done: list[str] = []
        if use == "reversible-using":
            res = get_skill("wait")(SkillCall(skill="wait", target=target), ctx)
            if not res.ok:
                return False, res.reason
            done.append("waited until free")
        if (ctx.find(target) or {}).get("isDirty"):
            res = get_skill("wash")(SkillCall(skill="wash", target=target), ctx)
            if not res.ok:
                return False, res.reason
            done.append("washed")
        want = call.args.get("temperature")
        if want == "RoomTemp" and (ctx.find(target) or {}).get("temperature") != "RoomTemp":
            for _ in range(ctx.max_steps):
                if (ctx.find(target) or {}).get("temperature") == "RoomTemp":
                    break
                if not ctx.wait(WAIT_STEP_SECONDS):
                    return _fail(ctx, "waiting to cool")
            else:
                return False, f"{target} did not reach RoomTemp"
            done.append("let it reach room temperature")
        return True, ", ".join(done) or "ready as is"


def _set_down(ctx: SkillContext, held: RawObject) -> tuple[bool, str]:
    """Put the held object on the nearest work surface, so the hand is free for the next object."""
    from .registry import get_skill

    surfaces = [o for t in WORK_SURFACES for o in ctx.of_type(t)]
    for surface in surfaces[:3]:
        res = get_skill("put")(SkillCall(skill="put", target=surface["objectId"]), ctx)
        if res.ok:
            return True, ""
    return False, f"could not set {held['objectId']} down on any work surface"


@register_skill
class Use(Skill):
    """Use the chosen object for its utility: switch an appliance on, open a receptacle, else take it."""

    name = "use"

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        from .registry import get_skill

        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("objectType") in HEAT_SOURCES or o.get("toggleable"):
            sub = SkillCall(skill="toggle_on", target=target)
        elif o.get("pickupable"):
            held = ctx.held()
            if held is not None and held["objectId"] != target:
                ok, why = _set_down(ctx, held)
                if not ok:
                    return False, why
            sub = SkillCall(skill="pickup", target=target)
        elif o.get("openable"):
            sub = SkillCall(skill="open", target=target)
        else:
            sub = SkillCall(skill="goto", target=target)
        res = get_skill(sub.skill)(sub, ctx)
        return res.ok, res.reason or f"{sub.skill} {target}"
