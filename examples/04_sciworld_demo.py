"""Boil water in ScienceWorld when the stove is broken: COAT picks a substitute heat source.

ScienceWorld is a text-only world. In variation 1 of its "boil" task the kitchen stove is broken, and
nothing in the text says so until the agent tries it ("The stove appears broken, ..."). The agent reads
every room's text into five-variable object records (``perception.text``), lets COAT choose the vessel
and the heat source (``planner.api.plan_in_state``), carries a short scripted procedure out in
ScienceWorld commands, and, when the chosen device fails, marks it broken and decides again.

Needs the ``sciworld`` extra and Java on PATH (``pip install 'coat-planner[sciworld]'``), plus the COAT
data; ``--llm local`` also needs the ``local-llm`` extra.

    python examples/04_sciworld_demo.py                      # boil water, stove broken (variation 1)
    python examples/04_sciworld_demo.py --baseline           # the same with an agent that always uses the stove
    python examples/04_sciworld_demo.py --task melt --variation 21 --transcript
"""

from __future__ import annotations

import argparse

from planner.agents.sciworld import DEFAULT_DEVICES, AgentConfig, SciWorldAgent
from scenes.sciworld import ScienceWorldEnv, broken_devices


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="boil", help="boil, melt, freeze or change-the-state-of-matter-of")
    ap.add_argument("--variation", type=int, default=1, help="odd variations break the kitchen stove")
    ap.add_argument("--llm", default="none", help="none (COAT knowledge), local, fake, openai:<model>...")
    ap.add_argument("--baseline", action="store_true", help="always use the stove, never re-plan")
    ap.add_argument("--transcript", action="store_true", help="print every command and reply")
    args = ap.parse_args(argv)

    # 1. The world. What ScienceWorld broke is known to us, not to the agent.
    print(f"ScienceWorld {args.task!r} variation {args.variation}; broken (hidden from the agent): "
          f"{list(broken_devices(args.task, args.variation)) or 'nothing'}")

    # 2. The agent: COAT decisions (or the stove baseline), re-planning when a device fails.
    config = AgentConfig(policy="default" if args.baseline else "coat",
                         llm=None if args.llm == "none" else args.llm)
    agent = SciWorldAgent(config)

    # 3. Play one episode: explore the rooms, choose, act, re-plan.
    with ScienceWorldEnv(args.task, step_limit=150) as env:
        result = agent.run(env, variation=args.variation)
    print(f"task: {result.goal.text.splitlines()[-1] if result.goal else args.task}")
    print(f"phases: {list(result.phases)}")

    # 4. The plan: every decision, how it was made, and how using the chosen object went.
    for c in result.choices:
        print(f"  {c.role:>7} {c.phase:<10} -> {c.object_id} [{c.method}] outcome: {c.outcome}")
        if c.coat_task:
            print(f"          COAT task {c.coat_task!r} ({c.utility}): {c.reason[:150]}")
        skipped = {k: v for k, v in c.excluded.items() if c.role in ("heater", "cooler", "water")}
        if skipped:
            print(f"          left out: {skipped}")

    # 5. The substitution and the score.
    substitutes = [d for d in result.devices_used if d not in DEFAULT_DEVICES.values()]
    print(f"substitution: {'yes' if result.substituted else 'no'} (devices used: {list(result.devices_used)}; "
          f"defaults {sorted(DEFAULT_DEVICES.values())}; substitutes: {substitutes or 'none'})")
    print(f"score {result.score}/100, completed: {result.completed}, moves: {result.moves}, "
          f"re-plans: {result.replans} {result.failure}")
    if args.transcript:
        print("\n".join(result.transcript))
    return 0 if result.completed or args.baseline else 1


if __name__ == "__main__":
    raise SystemExit(main())
