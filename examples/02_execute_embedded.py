"""Plan with a missing, dirty, busy or faulty object, then get the task done in the embedded simulator.

The embedded simulator speaks AI2-THOR's metadata schema and action names. Its scenarios perturb a kitchen
the way COAT's moderate configurations do (knife dirty, no knife, stove in use, mug broken) and add faults
that show only on use (a microwave that never heats, a knife that turns out broken, a burner someone takes).
The planner picks a substitute, writes the steps that reach the task's goal conditions, and the closed loop
carries them out: each step is verified on the next observation, and an object found unusable is replaced
by deciding its role again.

    python examples/02_execute_embedded.py --task "boil water" --scenario stove-in-use
    python examples/02_execute_embedded.py --task "cut apple" --scenario knife-breaks
"""

from __future__ import annotations

import argparse

from planner.api import execute_plan, plan

SCENARIOS = ["none", "knife-dirty", "no-knife", "stove-in-use", "mug-broken", "microwave-faulty", "knife-breaks",
             "burner-taken", "random"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="boil water")
    ap.add_argument("--scenario", default="stove-in-use", choices=SCENARIOS)
    ap.add_argument("--llm", default="none", help="model for tasks COAT does not annotate (none: knowledge only)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    options = None if args.scenario == "none" else {"scenario": args.scenario}
    llm = None if args.llm == "none" else args.llm
    # 1. observe the scene, 2. decide an object for every role and write the steps that reach the goal
    p = plan(args.task, "embedded/kitchen-v0", llm=llm, seed=args.seed, options=options, interpret="nearest")
    print(f"{p.task}: {p.bindings} feasible={p.feasible} {p.reason}")
    for g in p.spec.goals if p.spec else ():
        print(f"  goal: {g.text()}")
    # 3. act step by step in the plan's own scene, verify, and re-plan when an object turns out unusable
    trace = execute_plan(p, llm=llm)
    for r in trace.results:
        print(f"  {r.skill}({r.target}): {'ok' if r.ok else 'FAILED'} {r.reason} [{r.steps} actions]")
    for note in trace.notes:
        print(f"  re-planned: {note}")
    for g in trace.goals:
        print(f"  {'met' if g.met else 'NOT met'}: {g.condition.text()} ({g.detail})")
    print(f"achieved: {trace.achieved}; replans: {trace.replans}; simulated time: {trace.time:.0f} s; "
          f"violations: {list(trace.violations)}")
    return 0 if trace.achieved else 1


if __name__ == "__main__":
    raise SystemExit(main())
