"""``coat plan TASK``: choose the object for a task in a scene, optionally carry the plan out.

Examples:
    coat plan "cut cake"                                   # embedded kitchen, embedded model
    coat plan "boil water" --scenario stove-in-use --execute
    coat plan "serving cake" --llm fake --json
    coat plan "cut apple" --scene embedded/FloorPlan1-v0 --strategy knowledge
    coat plan "slice the bread with a knife" --interpret model --llm local --strategy knowledge

Requires: the COAT data directory (``coat data download`` or ``COAT_DATA_DIR``); ``--llm local`` needs
the ``local-llm`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError
from ..terminal import rich_text
from . import SEED_ARG, check_out_path, echo, safe_text

_FRAME_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


def register(sub: Any) -> None:
    """Add ``coat plan`` to the CLI."""
    p = sub.add_parser("plan", help="choose the object (or substitute) for a task in a scene",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", help='what to do, e.g. "cut cake"')
    p.add_argument("--scene", default="embedded/kitchen-v0", help="scene id (see `coat scenes list`)")
    p.add_argument("--scenario", default=None,
                   help="perturb the embedded scene: knife-dirty, no-knife, stove-in-use, mug-broken, "
                        "microwave-faulty, knife-breaks, burner-taken, random")
    p.add_argument("--seed", type=SEED_ARG, default=0, help="scene seed")
    p.add_argument("--llm", default="none",
                   help="model spec: none (default: COAT's annotations decide), local, local:gemma-270m, openai:M, "
                        "ollama:M, fake")
    p.add_argument("--planner", choices=("two-stage", "single"), default="two-stage")
    p.add_argument("--strategy", choices=("hybrid", "llm", "knowledge", "learned"), default="hybrid",
                   help="learned: the selectors `coat train` learned (trained into the user cache on first use)")
    p.add_argument("--utility", default=None, help="force one of COAT's 22 utilities")
    p.add_argument("--interpret", choices=("exact", "nearest", "model"), default="nearest",
                   help="nearest (default): each role of a free-text task borrows the closest COAT task's "
                        "annotations; exact: the model decides on the request's own words; model: the --llm model "
                        "reads the request into roles and targets, its reply decoded under a JSON schema (use "
                        "--strategy knowledge to let COAT's annotations decide)")
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
        echo(f"{u}: objects {', '.join(kb.utility_objects(u))}")
        for task in kb.tasks(u):
            echo(f"  {task!r}: context objects {', '.join(kb.context_objects(u, task))}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from ..api import _check_observe_args, _observe, plan

    if args.frame:
        check_out_path(args.frame, kind="file", flag="--frame", makes_parents=False)
        if not args.frame.lower().endswith(_FRAME_SUFFIXES):
            raise ConfigError(f"--frame {safe_text(args.frame)}: give a picture file ({', '.join(_FRAME_SUFFIXES)})")
    options = {"scenario": args.scenario} if args.scenario else None
    llm = None if args.llm in ("none", "") else args.llm
    # observe() without gymnasium's passive checker: this env only shows the scene's state, and is closed at once
    _check_observe_args(args.scene, args.seed, options, None, None, args.data_dir)
    env, _obs, state = _observe(args.scene, args.seed, options, None, None, args.data_dir, checked=False)
    env.close()
    p = plan(args.task, args.scene, llm=llm, planner=args.planner, strategy=args.strategy, utility=args.utility,
             interpret=args.interpret, seed=args.seed, options=options, data_dir=args.data_dir)
    trace = _execute(args, p, llm) if args.execute and p.feasible else None
    if args.frame and not (args.execute and p.feasible):
        _save_frames(args, p, None)
    if args.json:
        out: dict[str, Any] = {"plan": p.model_dump(mode="json"), "understood": p.understood}
        if trace is not None:
            out["execution"] = trace.model_dump(mode="json")
        echo(json.dumps(out, indent=2))
    else:
        _print_plan(p, state, trace)
    if not p.understood:
        return 5
    if not p.feasible:
        return 3
    return 0 if trace is None or trace.achieved else 4


def _execute(args: argparse.Namespace, p: Any, llm: Any) -> Any:
    """The closed loop in the plan's own scene; with ``--frame``, pictures before and after."""
    from ..agents.household import HouseholdLoop
    from ..api import make_estimator, open_plan_scene
    from ..knowledge import load_knowledge

    kb = load_knowledge(args.data_dir)
    env, obs = open_plan_scene(p, data_dir=args.data_dir)
    with env:
        before = env.render() if args.frame else None
        loop = HouseholdLoop(env, make_estimator(kb), kb, llm=llm, planner=args.planner, strategy=args.strategy)
        trace = loop.run(p, obs)
        if args.frame:
            _save_frames(args, p, (before, env.render()))
    return trace


class _Out:
    """Tables and lines on stdout: through rich when it is installed (the ``report`` extra), else plain text.

    Every text is user or model text (the task, object ids, a model's reasons): it is made safe for the terminal
    (:func:`planner.cli.safe_text`) and given to rich as ``Text``, so markup in it is shown, never interpreted.
    """

    def __init__(self) -> None:
        from .._optional import is_available

        self.console: Any = None
        if is_available("rich"):
            from rich.console import Console

            self.console = Console(file=sys.stdout, width=140)

    def line(self, text: str, style: str | None = None) -> None:
        if self.console is not None:
            self.console.print(rich_text(text, style or ""), highlight=False)
        else:
            echo(text)

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], bold_row: int | None) -> None:
        title = safe_text(title)
        rows = [[safe_text(v) for v in row] for row in rows]
        if self.console is not None:
            from rich.table import Table

            table = Table(title=rich_text(title), show_lines=False)
            for col in columns:
                table.add_column(rich_text(col))
            for i, row in enumerate(rows):
                table.add_row(*(rich_text(v) for v in row), style="bold green" if i == bold_row else None)
            self.console.print(table)
            return
        widths = [max(len(c), *(len(r[k]) for r in rows)) for k, c in enumerate(columns)]
        echo(title)
        echo("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
        for i, row in enumerate(rows):
            mark = " <- chosen" if i == bold_row else ""
            echo("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) + mark)


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
    if plan.spec is not None:
        bound = ", ".join(f"{k} = {v}" for k, v in plan.bindings.items()) or "-"
        out.line(f"Roles and targets: {bound}")
    if not plan.understood:
        out.line("Not understood: nothing was decided.", "red")
    elif not plan.feasible:
        out.line("No feasible plan.", "red")
        if plan.alternatives:
            out.line("  alternatives: " + "; ".join(plan.alternatives))
        return
    out.line("Plan:", "bold")
    for i, step in enumerate(plan.steps, 1):
        extra = f" -> {step.receptacle}" if step.receptacle else ""
        extra += f" {step.args}" if step.args else ""
        out.line(f"  {i}. {step.skill}({step.target}){extra}")
    if trace is None:
        for g in plan.spec.goals if plan.spec else ():
            out.line(f"  goal: {g.text()}")
        return
    _print_trace(out, trace)


def _print_trace(out: _Out, trace: Any) -> None:
    verdict = "achieved" if trace.achieved else f"NOT achieved: {trace.failure}"
    out.line(f"Execution: {verdict} ({trace.steps} simulator steps, {trace.replans} re-plans, "
             f"{trace.time:.0f} s simulated)", "bold" if trace.achieved else "red")
    for r in trace.results:
        why = f" [{r.fault}: {r.blame}]" if r.fault else ""
        out.line(f"  {r.skill}({r.target}): {'ok' if r.ok else 'failed'} {r.reason}{why}")
    for note in trace.notes:
        out.line(f"  re-planned: {note}", "yellow")
    before = {g.condition.text(): g.met for g in trace.goals_before}
    rows = [[g.condition.text(), "met" if before.get(g.condition.text()) else "not met",
             "met" if g.met else "not met", g.detail] for g in trace.goals]
    if rows:
        out.table("goal conditions", ("condition", "before", "after", "detail"), rows, None)
    for v in trace.violations:
        out.line(f"  safety: {v}", "red")


def _save_frames(args: argparse.Namespace, p: Any, frames: tuple[Any, Any] | None) -> None:
    """Write the scene's picture to ``--frame``: before | after side by side when the plan was carried out."""
    from .._optional import require
    from ..api import open_plan_scene

    cv2 = require("cv2", "vision")
    np = require("numpy", "vision")
    if frames is None:
        env, _obs = open_plan_scene(p, data_dir=args.data_dir)
        with env:
            frames = (env.render(), None)
    shown = [f for f in frames if f is not None and hasattr(f, "shape")]
    if not shown:
        echo(f"coat: scene {args.scene} renders no frame", file=sys.stderr)
        return
    image = np.concatenate(shown, axis=1) if len(shown) == 2 else shown[0]
    if not cv2.imwrite(args.frame, cv2.cvtColor(image, cv2.COLOR_RGB2BGR)):
        raise ConfigError(f"--frame {safe_text(args.frame)}: the picture could not be written there")
    echo(f"frame{'s before | after' if len(shown) == 2 else ''} written to {args.frame}", file=sys.stderr)
