"""Choose the object for a household task in the embedded kitchen.

Shows the one call a robot program makes, ``plan(task)``, and what comes back: the chosen object, why,
and the steps that make it ready and use it. Needs the COAT data (``COAT_DATA_DIR`` or ``coat data
download``); ``--llm local`` needs the ``local-llm`` extra, ``--llm fake`` and ``--llm none`` need nothing.

    python examples/01_plan_cut_cake.py --llm local
    python examples/01_plan_cut_cake.py --task "serving cake" --llm none
"""

from __future__ import annotations

import argparse

from planner.api import plan


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="cut cake")
    ap.add_argument("--llm", default="local", help="local, local:gemma-270m, openai:M, ollama:M, fake, none")
    args = ap.parse_args(argv)

    llm = None if args.llm == "none" else args.llm
    # A free-text task ("cut cake") is matched to COAT's utilities; the model decides where COAT's
    # annotations are silent. interpret="nearest" would borrow the closest annotated task instead.
    p = plan(args.task, "embedded/kitchen-v0", llm=llm)

    print(f"task: {p.task} (utility: {p.utility}); feasible: {p.feasible}")
    for choice in p.choices:
        print(f"  chose {choice.object_id}: {choice.rationale}")
    for step in p.steps:
        print(f"  step: {step.skill}({step.target})")
    if p.reason:
        print(f"  note: {p.reason}")
    return 0 if p.feasible else 1


if __name__ == "__main__":
    raise SystemExit(main())
