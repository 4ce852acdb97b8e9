"""``coat scenes``: list scene ids, check the embedded simulator against AI2-THOR recordings, benchmark it.

Usage:
    coat scenes list [--family embedded|thor|sciworld] [--expand]
    coat scenes fidelity [--data-dir DIR] [--out benchmarks/scenes.md] [--details]
    coat scenes bench [--scene FloorPlan1] [--actions 5000] [--frames] [--out benchmarks/scenes.md]

``fidelity`` and ``bench`` print their report and, with ``--out``, replace their own section of that Markdown
file (between ``<!-- scenes:fidelity -->`` / ``<!-- scenes:bench -->`` markers), leaving the rest as it is.

Requires: the AI2-THOR reference data (``ai2thor/`` in the data directory) for ``fidelity`` and FloorPlan scenes.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path
from typing import Any

from . import POSITIVE_ARG, SEED_ARG, check_out_path, echo

DEFAULT_REPORT = "benchmarks/scenes.md"


def register(subparsers: Any) -> None:
    """Add the ``scenes`` subcommand to the ``coat`` parser."""
    p = subparsers.add_parser("scenes", help="scene backends: list ids, fidelity to AI2-THOR, speed")
    sub = p.add_subparsers(dest="scenes_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: _help(p))

    ls = sub.add_parser("list", help="list registered scene ids (Gymnasium ids, coat/...)")
    ls.add_argument("--family", help="only one family: embedded, thor, sciworld")
    ls.add_argument("--expand", action="store_true", help="one id per line (no FloorPlan{1-30,...} ranges)")
    ls.set_defaults(func=_cmd_list)

    fi = sub.add_parser("fidelity", help="replay AI2-THOR 5.0.0 recordings in the embedded simulator")
    fi.add_argument("--data-dir", help="data root with ai2thor/traces (default: $COAT_DATA_DIR or the cache)")
    fi.add_argument("--out", help=f"Markdown report to update (e.g. {DEFAULT_REPORT})")
    fi.add_argument("--details", action="store_true", help="print every mismatch")
    fi.set_defaults(func=_cmd_fidelity)

    be = sub.add_parser("bench", help="embedded simulator actions per second on a realistic action mix")
    be.add_argument("--scene", default="FloorPlan1", help="scene name (default FloorPlan1)")
    be.add_argument("--actions", type=POSITIVE_ARG, default=5000, help="number of actions (default 5000)")
    be.add_argument("--seed", type=SEED_ARG, default=0)
    be.add_argument("--repeats", type=POSITIVE_ARG, default=3, help="runs; the best is reported (default 3)")
    be.add_argument("--frames", action="store_true", help="also render frames and masks every step")
    be.add_argument("--data-dir", help="data root for FloorPlan scenes")
    be.add_argument("--out", help=f"Markdown report to update (e.g. {DEFAULT_REPORT})")
    be.set_defaults(func=_cmd_bench)


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def _cmd_list(args: argparse.Namespace) -> int:
    import scenes
    from scenes.registry import compact_ids, extra_available, extra_of

    ids = scenes.registry_ids(args.family)
    if not ids:
        echo(f"coat: error: no ids in family {args.family!r}", file=sys.stderr)
        return 1
    shown = ids if args.expand else compact_ids(ids)
    for i in shown:
        first_id = i if i in ids else next(x for x in ids if x.startswith(i.partition("{")[0]))
        s = scenes.spec(first_id)
        note = "" if extra_available(s) else f"  (needs extra '{extra_of(s)}')"
        echo(f"{i:60s} {s.entry_point}{note}")
    return 0




def fidelity_report(results: list[Any], command: str) -> str:
    """Markdown table of per-trace agreement (see :mod:`scenes.embedded.fidelity`)."""
    from scenes.embedded.fidelity import PHYSICS_ONLY

    lines = [
        f"Command: `{command}`",
        "",
        "| trace | scene | actions | states compared | agreement | agreement, rules only | exact list order "
        "| changed states matched | lastActionSuccess matched | outcome matched (lastActionSuccess + errorMessage) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    tot = [0, 0, 0, 0, 0, 0, 0, 0, 0]
    for r in results:
        lines.append(
            f"| {r.name} | {r.scene} | {r.steps} | {r.compared} | {100 * r.agreement:.2f} % "
            f"| {100 * r.agreement_rules:.2f} % | {100 * r.agreement_exact_order:.2f} % "
            f"| {r.changed_matched}/{r.changed} | {r.success_matched}/{r.steps} | {r.outcome_matched}/{r.steps} |"
        )
        for i, v in enumerate(
            (
                r.steps,
                r.compared,
                r.matched,
                r.explained,
                r.matched_exact_order,
                r.changed_matched,
                r.changed,
                r.success_matched,
                r.outcome_matched,
            )
        ):
            tot[i] += v
    steps, comp, matched, expl, exact, chm, ch, succ, outcome = tot
    lines.append(
        f"| **all** | | {steps} | {comp} | {100 * matched / max(comp, 1):.2f} % "
        f"| {100 * matched / max(comp - expl, 1):.2f} % | {100 * exact / max(comp, 1):.2f} % "
        f"| {chm}/{ch} | {succ}/{steps} | {outcome}/{steps} |"
    )
    tp = sum(r.visible_tp for r in results)
    fp = sum(r.visible_fp for r in results)
    fn = sum(r.visible_fn for r in results)
    lines += [
        "",
        f"Visible objects after each action (not part of the agreement): recall {100 * tp / max(tp + fn, 1):.1f} %, "
        f"precision {100 * tp / max(tp + fp, 1):.1f} % ({tp} agree, {fp} visible only in the simulator, "
        f"{fn} only in AI2-THOR).",
    ]
    lines += [
        "",
        "Mismatches not explained by physics alone: "
        + (
            ", ".join(f"{r.name} step {m.step} {m.object_id} {m.key}" for r in results for m in r.unexplained)
            or "none."
        ),
    ]
    for scene, objs in PHYSICS_ONLY.items():
        for oid, why in objs.items():
            n = sum(len(r.mismatches) for r in results if r.scene == scene)
            lines.append(f"- {scene}, `{oid}` ({n} mismatching states): {why}.")
    return "\n".join(lines)


def _cmd_fidelity(args: argparse.Namespace) -> int:
    from scenes.embedded.fidelity import replace_section, replay
    from scenes.thor.traces import load_traces

    if args.out:
        check_out_path(args.out, kind="file")
    results = [replay(t) for t in load_traces(args.data_dir, frames=False)]
    cmd = "coat scenes fidelity" + (f" --out {args.out}" if args.out else "")
    report = fidelity_report(results, cmd)
    echo(report)
    if args.details:
        for r in results:
            for m in r.mismatches:
                echo(
                    f"{r.name} step {m.step} {m.action}: {m.object_id} {m.key}: recorded {m.recorded!r}, "
                    f"simulated {m.simulated!r}"
                )
    if args.out:
        replace_section(Path(args.out), "fidelity", report)
    return 0 if all(not r.unexplained for r in results) else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from planner._optional import is_available
    from scenes.embedded.bench import benchmark
    from scenes.embedded.fidelity import replace_section

    if args.out:
        check_out_path(args.out, kind="file")
    runs = [
        benchmark(args.scene, n_actions=args.actions, seed=args.seed, frames=args.frames, data_dir=args.data_dir)
        for _ in range(args.repeats)
    ]
    best = max(runs, key=lambda r: r.actions_per_second)
    cmd = f"coat scenes bench --scene {args.scene} --actions {args.actions} --repeats {args.repeats}" + (
        " --frames" if args.frames else ""
    )
    try:
        load = "load average %.1f/%.1f/%.1f" % os.getloadavg()  # noqa: UP031
    except OSError:
        load = "load average n/a"
    body = "\n".join(
        [
            f"Command: `{cmd}`",
            "",
            f"- scene {best.scene} ({best.objects} objects), {best.actions} actions, seed {args.seed}, "
            f"frames {'on' if best.frames else 'off'}, ai2thor Events {'on' if is_available('ai2thor') else 'off'}",
            f"- wall clock, best of {len(runs)}: **{best.actions_per_second:,.0f} actions/s** "
            f"(runs: {', '.join(f'{r.actions_per_second:,.0f}' for r in runs)}); {best.succeeded} of {best.actions} "
            "actions succeeded",
            "- per CPU second used by the process (what one free core gives; the simulator is single-threaded): "
            f"**{max(r.actions_per_cpu_second for r in runs):,.0f} actions/s** "
            f"(runs: {', '.join(f'{r.actions_per_cpu_second:,.0f}' for r in runs)})",
            f"- machine: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, {load} "
            "when measured",
        ]
    )
    echo(body)
    if args.out:
        replace_section(Path(args.out), "bench-frames" if args.frames else "bench", body)
    return 0
