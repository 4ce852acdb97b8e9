"""Plan with a missing, dirty or busy object, then carry the plan out in the embedded simulator.

The embedded simulator speaks AI2-THOR's metadata schema and action names. Its scenarios perturb a
kitchen the way COAT's moderate configurations do (knife dirty, no knife, stove in use, mug broken). The
planner picks a substitute or a moderate object and the skills get it ready first (wash it, wait for it).

    python examples/02_execute_embedded.py --task "boil water" --scenario stove-in-use
    python examples/02_execute_embedded.py --task "cut apple" --scenario no-knife --frame /tmp/after.png
"""

from __future__ import annotations

import argparse

import scenes
import skills
from perception.metadata import MetadataEstimator
from planner.api import plan_in_state


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="boil water")
    ap.add_argument("--scenario", default="stove-in-use",
                    choices=["none", "knife-dirty", "no-knife", "stove-in-use", "mug-broken", "random"])
    ap.add_argument("--llm", default="none", help="model for tasks COAT does not annotate (none: knowledge only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--frame", default=None, help="write the final top-down frame here (needs the vision extra)")
    args = ap.parse_args(argv)

    options = None if args.scenario == "none" else {"scenario": args.scenario}
    with scenes.make("embedded/kitchen-v0") as env:
        # 1. observe: AI2-THOR-style metadata -> five variables per object
        obs, _ = env.reset(seed=args.seed, options=options)
        state = MetadataEstimator().estimate(obs)
        # 2. decide: which object, in which state, suits the task
        p = plan_in_state(args.task, state, llm=None if args.llm == "none" else args.llm,
                          interpret="nearest")
        print(f"{p.task}: chose {[c.object_id for c in p.choices]} feasible={p.feasible} {p.reason}")
        # 3. act: prepare (wash / wait) then use, as AI2-THOR actions
        trace, obs = skills.execute(p, env, obs)
        for r in trace.results:
            print(f"  {r.skill}({r.target}): {'ok' if r.ok else 'FAILED'} {r.reason} [{r.steps} actions]")
        print(f"simulated time: {obs.time:.0f} s; success: {trace.ok}")
        if args.frame:
            import cv2

            frame = env.render()
            if frame is not None:
                cv2.imwrite(args.frame, cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
                print(f"frame: {args.frame}")
    return 0 if trace.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
