"""Composite skills that make a *moderate* substitute usable: wash the dirty mug, wait for the busy stove,
let the hot pan cool (``wash``, ``prepare``), and ``use`` an object for its utility.
"""

from __future__ import annotations

from planner.schemas import SkillCall
from scenes.base import Action

from .base import Outcome, Skill, SkillContext, failed
from .navigation import go
from .primitives import HEAT_SOURCES, WAIT_STEP_SECONDS, action_failed, hand_free, in_use_unmet, relay, send
from .registry import register_skill


@register_skill
class Wash(Skill):
    """Wash a dirty object under running water: into a sink basin, its faucet on and off, taken back.

    Every basin with a faucet over it is tried in turn, nearest first (a faucet that runs no water is ``faulty``
    and the next basin is tried); ``args["using"]``, the task's washing or cleaning object, goes first when it is a
    basin. What cannot be carried to a sink (a mirror, a bed) is cleaned with AI2-THOR's ``CleanObject`` while the
    robot holds ``args["using"]`` (a cloth, a sponge); without one it is not cleaned. Postcondition: the object
    is not dirty. Someone else using it is ``in-use``.
    """

    name = "wash"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return super().unmet_preconditions(call, ctx) or in_use_unmet(ctx, call.target or "")

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        if (ctx.find(call.target or "") or {}).get("isDirty"):
            return [f"{call.target} is still dirty after rinsing"]
        return []

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        from .tasks import water_sources

        target = call.target or ""
        o = ctx.find(target) or {}
        if not o.get("isDirty"):
            return Outcome(True, "already clean")
        using = str(call.args.get("using") or "")
        if not o.get("pickupable"):
            return _wipe(ctx, target, using if (ctx.find(using) or {}).get("pickupable") else None)
        sources = sorted(water_sources(ctx), key=lambda bf: bf[0]["objectId"] != using)
        if not sources:
            return failed(f"no sink or bathtub with a faucet over it in this scene to wash {target}")
        freed = hand_free(ctx, keep=target)
        if freed is not None:
            return freed
        tried = []
        for basin, faucet in sources:
            steps = (("pickup", target), ("put", basin["objectId"]), ("toggle_on", faucet["objectId"]),
                     ("toggle_off", faucet["objectId"]), ("pickup", target))
            for skill, obj in steps:
                if skill == "pickup" and (ctx.find(target) or {}).get("isPickedUp"):
                    continue
                res = ctx.sub(skill, obj)
                if not res.ok:
                    if res.blame == target or res.fault == "in-use":
                        return relay(res, f"washing {target}")
                    tried.append(f"{basin['objectId']}: {res.reason}")
                    break
            else:
                if not (ctx.find(target) or {}).get("isDirty"):
                    return Outcome(True, f"rinsed in {basin['objectId']}")
                tried.append(f"{faucet['objectId']} ran no water")
                ctx.sub("pickup", target)
        return failed(f"no basin washed {target}: " + "; ".join(tried), "faulty" if len(sources) == 1 else None,
                      sources[0][1]["objectId"] if len(sources) == 1 else None)


def _wipe(ctx: SkillContext, target: str, tool: object) -> Outcome:
    """Clean what cannot be carried to a sink: AI2-THOR's CleanObject with the cleaning tool in hand."""
    if not tool:
        return failed(f"{target} cannot be carried to a sink and no cleaning tool (a cloth, a sponge) was chosen")
    tool = str(tool)
    if not (ctx.find(tool) or {}).get("isPickedUp"):
        freed = hand_free(ctx, keep=tool)
        if freed is not None:
            return freed
        res = ctx.sub("pickup", tool)
        if not res.ok:
            return relay(res, f"taking {tool} to clean {target}")
    return go(ctx, target) or send(ctx, Action(name="CleanObject", object_id=target), f"cleaning {target} with {tool}")


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
