"""Extend the robot with your own skill (the extension tutorial).

A skill is a class with a lower-case ``name``, optional pre-conditions, a ``run`` that sends
AI2-THOR-named actions through ``ctx.act`` (every action is recorded and budgeted), and optional
post-conditions checked on the observation ``run`` leaves. Register it with ``@register_skill`` and it can
appear in any Plan. Failures are returned, never raised; a failure an object caused names it
(``SkillResult.fault`` / ``blame``), so a closed-loop executor can choose another object.

    python examples/05_custom_skill.py
"""

from __future__ import annotations

import scenes
from planner.schemas import Plan, SkillCall
from skills import Outcome, Skill, SkillContext, Unmet, execute, register_skill, unregister_skill


class Chill(Skill):
    """Cool an object: put it in the nearest fridge, close the door, wait; postcondition: it is Cold."""

    name = "chill"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if not ctx.of_type("Fridge"):
            unmet.append("there is no fridge in this scene")
        return unmet

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        fridge = ctx.of_type("Fridge")[0]["objectId"]
        temp = (ctx.find(call.target or "") or {}).get("temperature")
        # an Unmet names the fault and the object to blame: here the fridge did not cool
        return [] if temp == "Cold" else [Unmet(f"temperature is {temp}, not Cold", "faulty", fridge)]

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        fridge = ctx.of_type("Fridge")[0]["objectId"]
        for skill, target in (("pickup", call.target), ("put", fridge), ("close", fridge)):
            res = ctx.sub(skill, target)  # compose existing skills; their actions count in ctx
            if not res.ok:
                return Outcome(False, res.reason, res.fault, res.blame)  # keep who was at fault
        ctx.wait(60.0)
        return Outcome(True, "chilled")


def main() -> int:
    register_skill(Chill)
    try:
        with scenes.make("embedded/kitchen-v0") as env:
            obs, _ = env.reset(seed=0)
            bottle = next(o["objectId"] for o in obs.objects if o["objectType"] == "WineBottle")
            trace, obs = execute(Plan(task="chill the wine", steps=(SkillCall(skill="chill", target=bottle),)),
                                 env, obs)
            r = trace.results[0]
            print(f"chill({bottle}): ok={r.ok} {r.reason} fault={r.fault}; actions: {[a.action for a in r.actions]}")
            return 0 if trace.ok else 1
    finally:
        unregister_skill("chill")  # so the example can run twice in one process


if __name__ == "__main__":
    raise SystemExit(main())
