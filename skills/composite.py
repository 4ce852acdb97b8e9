"""Composite skills that make a *moderate* substitute usable: wash the dirty mug, wait for the busy stove,
let the hot pan cool (``wash``, ``prepare``), and ``use`` an object for its utility.
"""

from __future__ import annotations

from planner.schemas import SkillCall
from scenes.base import Action

from .base import Outcome, Skill, SkillContext, failed
from .navigation import go, position
from .primitives import HEAT_SOURCES, WAIT_STEP_SECONDS, action_failed, hand_free, in_use_unmet, relay, send
from .registry import register_skill


@register_skill
class Wash(Skill):
    """Wash a dirty object under a running faucet (put it in the sink, faucet on, off, take it back).

    Postcondition: the object is not dirty. Someone else using it is ``in-use``.
    """

    name = "wash"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return super().unmet_preconditions(call, ctx) or in_use_unmet(ctx, call.target or "")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if (ctx.find(call.target or "") or {}).get("isDirty"):
            return [f"{call.target} is still dirty after rinsing"]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        o = ctx.find(target) or {}
        if not o.get("isDirty"):
            return Outcome(True, "already clean")
        if not o.get("pickupable"):
            # Beds, mirrors: nothing to carry to a sink; AI2-THOR cleans them with CleanObject.
            return go(ctx, target) or send(ctx, Action(name="CleanObject", object_id=target), "cleaning")
        sinks = ctx.of_type("SinkBasin") or ctx.of_type("BathtubBasin")
        faucets = ctx.of_type("Faucet")
        if not sinks or not faucets:
            return failed("no sink with a faucet in this scene")
        sink = sinks[0]
        sx, sz = position(sink)
        faucet = min(faucets, key=lambda f: ((position(f)[0] - sx) ** 2 + (position(f)[1] - sz) ** 2, f["objectId"]))
        freed = hand_free(ctx, keep=target)
        if freed is not None:
            return freed
        for skill, obj in (("pickup", target), ("put", sink["objectId"]), ("toggle_on", faucet["objectId"]),
                           ("toggle_off", faucet["objectId"]), ("pickup", target)):
            res = ctx.sub(skill, obj)
            if not res.ok:
                return relay(res, f"washing {target}")
        return Outcome(True)


@register_skill
class Prepare(Skill):
    """Get a chosen object ready to use: fail on broken / irreversible use, wait, wash, let it cool.

    ``args["temperature"]`` (optional) is the temperature the task wants; a hot object waits until it cools.
    Faults: ``broken`` (blamed on the object), ``in-use`` for irreversible use.
    """

    name = "prepare"

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("isBroken"):
            return failed(f"{target} is broken: it cannot be made ready", "broken", target)
        if o.get("isUsedUp"):
            return failed(f"{target} is used up", "broken", target)
        use = ctx.in_use(target)
        if use == "irreversible-using":
            return failed(f"{target} is in use for good (irreversible-using)", "in-use", target)
        done: list[str] = []
        if use == "reversible-using":
            res = ctx.sub("wait", target)
            if not res.ok:
                return relay(res)
            done.append("waited until free")
        if (ctx.find(target) or {}).get("isDirty"):
            res = ctx.sub("wash", target)
            if not res.ok:
                return relay(res)
            done.append("washed")
        want = call.args.get("temperature")
        if want == "RoomTemp" and (ctx.find(target) or {}).get("temperature") != "RoomTemp":
            for _ in range(ctx.max_steps):
                if (ctx.find(target) or {}).get("temperature") == "RoomTemp":
                    break
                if not ctx.wait(WAIT_STEP_SECONDS):
                    return action_failed(ctx, "waiting to cool")
            else:
                return failed(f"{target} did not reach RoomTemp")
            done.append("let it reach room temperature")
        return Outcome(True, ", ".join(done) or "ready as is")


@register_skill
class Use(Skill):
    """Use the chosen object for its utility: switch an appliance on, open a receptacle, else take it."""

    name = "use"

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        target = call.target or ""
        o = ctx.find(target) or {}
        if o.get("objectType") in HEAT_SOURCES or o.get("toggleable"):
            skill = "toggle_on"
        elif o.get("pickupable"):
            freed = hand_free(ctx, keep=target)
            if freed is not None:
                return freed
            skill = "pickup"
        elif o.get("openable"):
            skill = "open"
        else:
            skill = "goto"
        res = ctx.sub(skill, target)
        if not res.ok:
            return relay(res)
        return Outcome(True, res.reason or f"{skill} {target}")


__all__ = ["Prepare", "Use", "Wash"]
