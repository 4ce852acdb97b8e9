"""Plan on real AI2-THOR: live with a Unity build, or offline on a recorded AI2-THOR episode.

With a build (``pip install 'coat-planner[thor]'`` on a machine that can download or has the Unity
player), ``--live`` plans in ``thor/FloorPlan1-v0`` through the real ``Controller``. Without one (this
script's default), it replays a real AI2-THOR 5.0.0 recording from the data directory through the same
``ThorEnv`` adapter, perceives every object's five variables from the real metadata after each recorded
action, and plans a task on what it sees.

    python examples/03_thor_demo.py                       # offline: replay traces/clean_up_kitchen
    python examples/03_thor_demo.py --live --task "boil water"
"""

from __future__ import annotations

import argparse

from perception.metadata import MetadataEstimator
from planner.api import plan, plan_in_state
from scenes.thor import ThorEnv
from scenes.thor.replay import ReplayController
from scenes.thor.traces import load_trace


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--live", action="store_true", help="use the real AI2-THOR controller (needs the Unity build)")
    ap.add_argument("--trace", default="clean_up_kitchen", help="recording to replay offline")
    ap.add_argument("--task", default="washing dishes")
    ap.add_argument("--llm", default="none", help="model for free-text tasks (none: COAT knowledge only)")
    args = ap.parse_args(argv)
    llm = None if args.llm == "none" else args.llm

    if args.live:
        p = plan(args.task, "thor/FloorPlan1-v0", llm=llm)  # raises SimulatorError with the fix when no build
        print(p.model_dump_json(indent=2))
        return 0 if p.feasible else 1

    trace = load_trace(args.trace, frames=False)
    estimator = MetadataEstimator()
    with ThorEnv(controller=ReplayController(trace)) as env:
        obs, _ = env.reset()
        for act in trace.actions[1:]:  # the first action is the Initialize that reset() replayed
            obs, _r, _term, _trunc, info = env.step(act)
            print(f"{act.name:<22} {act.object_id or '':<45} success={info['action_success']}")
        state = estimator.estimate(obs)  # five variables from real AI2-THOR metadata
        p = plan_in_state(args.task, state, llm=llm, interpret="nearest")
    print(f"\n{p.task}: feasible={p.feasible}")
    for c in p.choices:
        rec = state.by_id(c.object_id)
        print(f"  {c.object_id}: {rec.state.as_text()}\n    {c.rationale}")
    if p.reason:
        print(f"  note: {p.reason}")
    return 0 if p.feasible else 1


if __name__ == "__main__":
    raise SystemExit(main())
