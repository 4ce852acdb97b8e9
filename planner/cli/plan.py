"""``coat plan TASK``: choose the object for a task in a scene, optionally carry the plan out.

Examples:
    coat plan "cut cake"                                   # embedded kitchen, embedded model
    coat plan "boil water" --scenario stove-in-use --execute
    coat plan "serving cake" --llm fake --json
    coat plan "cut apple" --scene embedded/FloorPlan1-v0 --strategy knowledge

Requires: the COAT data directory (``coat data download`` or ``COAT_DATA_DIR``); ``--llm local`` needs
the ``local-llm`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any


def register(sub: Any) -> None:
    """Add ``coat plan`` to the CLI."""
    p = sub.add_parser("plan", help="choose the object (or substitute) for a task in a scene",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", help='what to do, e.g. "cut cake"')
    p.add_argument("--scene", default="embedded/kitchen-v0", help="scene id (see `coat scenes list`)")
    p.add_argument("--scenario", default=None,
                   help="perturb the scene: knife-dirty, no-knife, stove-in-use, mug-broken, random")
    p.add_argument("--seed", type=int, default=0, help="scene seed")
    p.add_argument("--llm", default="local", help="model spec: local, local:gemma-270m, openai:M, ollama:M, fake, none")
    p.add_argument("--planner", choices=("two-stage", "single"), default="two-stage")
    p.add_argument("--strategy", choices=("hybrid", "llm", "knowledge"), default="hybrid")
    p.add_argument("--utility", default=None, help="force one of COAT's 22 utilities")
    p.add_argument("--interpret", choices=("exact", "nearest"), default="exact",
                   help="nearest: borrow the closest COAT task's annotations for a free-text task")
    p.add_argument("--execute", action="store_true", help="carry the plan out with the skills")
    p.add_argument("--frame", default=None, help="save a top-down picture of the final scene to this PNG")
    p.add_argument("--json", action="store_true", help="print the plan (and trace) as JSON")
    p.add_argument("--data-dir", default=None)
    p.set_defaults(func=_run)

    t = sub.add_parser("tasks", help="list COAT's utilities and annotated tasks (with their context objects)")
    t.add_argument("--utility", default=None, help="only this utility")
    t.add_argument("--data-dir", default=None)
    t.set_defaults(func=_tasks)


def _tasks(args: argparse.Namespace) -> int:
    from ..knowledge import load_knowledge

    kb = load_knowledge(args.data_dir)
    utilities = [kb.resolve_utility(args.utility)] if args.utility else list(kb.utilities)
    for u in utilities:
        print(f"{u}: objects {', '.join(kb.utility_objects(u))}")
        for task in kb.tasks(u):
            print(f"  {task!r}: context objects {', '.join(kb.context_objects(u, task))}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from ..api import execute_plan, observe, plan_in_state

    options = {"scenario": args.scenario} if args.scenario else None
    llm = None if args.llm in ("none", "") else args.llm
    env, obs, state = observe(args.scene, seed=args.seed, options=options, data_dir=args.data_dir)
    env.close()
    plan = plan_in_state(args.task, state, llm=llm, planner=args.planner, strategy=args.strategy,
                         utility=args.utility, interpret=args.interpret, data_dir=args.data_dir)
    trace = None
    if args.execute and plan.feasible:
        trace = execute_plan(plan, args.scene, seed=args.seed, options=options)
    if args.frame:
        _save_frame(args, plan, options)
    if args.json:
        out: dict[str, Any] = {"plan": plan.model_dump(mode="json")}
        if trace is not None:
            out["execution"] = trace.model_dump(mode="json")
        print(json.dumps(out, indent=2))
    else:
        _print_plan(plan, state, trace)
    if not plan.feasible:
        return 3
    return 0 if trace is None or trace.ok else 4


class _Out:
    """Tables and lines on stdout: through rich when it is installed (the ``report`` extra), else plain text."""

    def __init__(self) -> None:
        from .._optional import is_available

        self.console: Any = None
        if is_available("rich"):
            from rich.console import Console

            self.console = Console(file=sys.stdout, width=140)

    def line(self, text: str, style: str | None = None) -> None:
        if self.console is not None:
            self.console.print(f"[{style}]{text}[/{style}]" if style else text, markup=bool(style), highlight=False)
        else:
            print(text)

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], bold_row: int | None) -> None:
        if self.console is not None:
            from rich.table import Table

            table = Table(title=title, show_lines=False)
            for col in columns:
                table.add_column(col)
            for i, row in enumerate(rows):
                table.add_row(*row, style="bold green" if i == bold_row else None)
            self.console.print(table)
            return
        widths = [max(len(c), *(len(r[k]) for r in rows)) for k, c in enumerate(columns)]
        print(title)
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
        for i, row in enumerate(rows):
            mark = " <- chosen" if i == bold_row else ""
            print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) + mark)


_COLUMNS = ("rank", "object", "mass", "material", "temperature", "already_in_use", "condition", "stage 1")


def _print_plan(plan: Any, state: Any, trace: Any) -> None:
    out = _Out()
    out.line(f"Task: {plan.task}    Scene: {plan.scene_id}")
    records = {r.object_id: r for r in state.objects}
    for decision, ids in zip(plan.decisions, plan.considered, strict=True):
        st1 = decision.stage1
        kept = set(st1.kept) if st1 is not None else None
        title = f"utility {st1.utility if st1 else plan.utility}: {decision.pipeline}, {decision.strategy}"
        if decision.model_id:
            title += f", model {decision.model_id}"
        cands = [(label, records[oid]) for label, oid in zip(decision.labels, ids, strict=True)]
        order = {label: i for i, label in enumerate(decision.ranking)}
        rows: list[list[str]] = []
        chosen_row = None
        for label, rec in sorted(cands, key=lambda lr: order.get(lr[0], 99)):
            s = rec.state
            mark = "kept" if kept is None or rec.category in kept else "dropped"
            if label == decision.chosen:
                chosen_row = len(rows)
            rows.append([str(order.get(label, -1) + 1), rec.object_id, s.mass.value, s.material.value,
                         s.temperature.value, s.already_in_use.value, s.condition.value, mark])
        out.table(title, _COLUMNS, rows, chosen_row)
        out.line(f"  reason: {decision.reason}")
    if plan.reason:
        out.line(f"note: {plan.reason}", "yellow")
    if not plan.feasible:
        out.line("No feasible plan.", "red")
        return
    out.line("Plan:", "bold")
    for i, step in enumerate(plan.steps, 1):
        extra = f" {step.args}" if step.args else ""
        out.line(f"  {i}. {step.skill}({step.target}){extra}")
    if trace is not None:
        out.line(f"Execution: {'ok' if trace.ok else 'FAILED: ' + trace.failure} ({trace.steps} simulator steps)",
                 "bold")
        for r in trace.results:
            out.line(f"  {r.skill}({r.target}): {'ok' if r.ok else 'failed'} {r.reason}")


def _save_frame(args: argparse.Namespace, plan: Any, options: dict[str, Any] | None) -> None:
    import scenes
    import skills

    from .._optional import require

    cv2 = require("cv2", "vision")
    with scenes.make(args.scene) as env:
        obs, _ = env.reset(seed=args.seed, options=options)
        if args.execute and plan.feasible:
            _trace, obs = skills.execute(plan, env, obs)
        frame = env.render()
    if frame is None or not hasattr(frame, "shape"):
        print(f"coat: scene {args.scene} renders no frame", file=sys.stderr)
        return
    cv2.imwrite(args.frame, cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    print(f"frame written to {args.frame}")
