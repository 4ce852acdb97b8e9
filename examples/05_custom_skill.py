"""Extend the robot with your own skill (the extension tutorial).

A skill is a class with a lower-case ``name``, optional pre-conditions, and a ``run`` that sends
AI2-THOR-named actions through ``ctx.act`` (every action is recorded and budgeted). Register it with
``@register_skill`` and it can appear in any Plan. Failures are returned, never raised.

    python examples/05_custom_skill.py
"""

from __future__ import annotations

import scenes
from planner.schemas import Plan, SkillCall
from scenes.base import Action
from skills import Skill, SkillContext, execute, register_skill, unregister_skill


class Chill(Skill):
    """Cool an object: put it in the nearest fridge, close the door, wait, take it out."""

    name = "chill"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        unmet = super().unmet_preconditions(call, ctx)
        if not ctx.of_type("Fridge"):
            unmet.append("there is no fridge in this scene")
        return unmet

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        from skills import get_skill

        fridge = ctx.of_type("Fridge")[0]["objectId"]
        for sub in (SkillCall(skill="pickup", target=call.target), SkillCall(skill="put", target=fridge),
                    SkillCall(skill="close", target=fridge)):
            res = get_skill(sub.skill)(sub, ctx)  # compose existing skills; their actions count in ctx
            if not res.ok:
                return False, res.reason
        ctx.act(Action(name="Wait", args={"seconds": 60.0}))
        temp = (ctx.find(call.target or "") or {}).get("temperature")
        return temp == "Cold", f"temperature is now {temp}"


def main() -> int:
    register_skill(Chill)
    try:
        with scenes.make("embedded/kitchen-v0") as env:
            obs, _ = env.reset(seed=0)
            bottle = next(o["objectId"] for o in obs.objects if o["objectType"] == "WineBottle")
            trace, obs = execute(Plan(task="chill the wine", steps=(SkillCall(skill="chill", target=bottle),)),
                                 env, obs)
            r = trace.results[0]
            print(f"chill({bottle}): ok={r.ok} {r.reason}; actions: {[a.action for a in r.actions]}")
            return 0 if trace.ok else 1
    finally:
        unregister_skill("chill")  # so the example can run twice in one process


if __name__ == "__main__":
    raise SystemExit(main())
