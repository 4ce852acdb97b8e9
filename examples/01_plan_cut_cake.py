"""Choose the object for a household task in the embedded kitchen.

Shows the one call a robot program makes, ``plan(task)``, and what comes back: how the request was read, the
chosen object, why, and the steps that make it ready and use it. Needs the COAT data (``COAT_DATA_DIR`` or
``coat data download``); ``--llm local --interpret exact`` (the embedded model decides on the request's own
words) needs the ``local-llm`` extra.

    python examples/01_plan_cut_cake.py
    python examples/01_plan_cut_cake.py --task "could you make me an omelette"
    python examples/01_plan_cut_cake.py --task "couper le gâteau"        # not understood: nothing decided
    python examples/01_plan_cut_cake.py --llm local --interpret exact
"""

from __future__ import annotations

import argparse

from planner.api import plan


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="cut cake")
    ap.add_argument("--llm", default="none", help="none (COAT's annotations decide), local, fake, openai:M, ollama:M")
    ap.add_argument("--interpret", choices=("nearest", "exact", "model"), default="nearest")
    args = ap.parse_args(argv)

    llm = None if args.llm == "none" else args.llm
    # Free text is read offline into roles, targets and goals; each role borrows the nearest COAT task's
    # annotations (interpret="nearest"), or the model decides on the request's own words (interpret="exact").
    p = plan(args.task, "embedded/kitchen-v0", llm=llm, interpret=args.interpret)

    if not p.understood:
        print(p.reason)
        return 1
    print(f"task: {p.task}; read with confidence {p.reading.confidence:.2f}; feasible: {p.feasible}")
    for why in p.reading.evidence[:3]:
        print(f"  read: {why}")
    for choice in p.choices:
        print(f"  chose {choice.object_id}: {choice.rationale}")
    for step in p.steps:
        print(f"  step: {step.skill}({step.target})")
    if p.reason:
        print(f"  note: {p.reason}")
    return 0 if p.feasible else 1


if __name__ == "__main__":
    raise SystemExit(main())
