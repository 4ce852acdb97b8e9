"""``coat perception``: run the perception benchmarks.

Usage:
    coat perception agreement [--material-rule first|densest|prior] [--json out.json]
    coat perception frames [--checkpoint model.pt2]            # vision on the recorded AI2-THOR frames
    coat perception mass-size                                  # size -> mass bucket, held-out floorplans
    coat perception embedded [--seeds 10]                      # vision on the embedded simulator's frames
    coat perception sciworld [--tasks boil,melt] [--per-task 3] # text vs ScienceWorld ground truth (JVM)
    coat perception estimate FloorPlan1 [--visible-only]      # print the estimated five variables

Requires: the AI2-THOR reference data (``ai2thor/`` in the data directory) and COAT's data for priors.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import COUNT_ARG, POSITIVE_ARG, check_out_path, echo


def register(subparsers: Any) -> None:
    """Add the ``perception`` subcommand and its sub-subcommands."""
    p = subparsers.add_parser("perception", help="perception benchmarks and estimates")
    p.add_argument("--data-dir", default=None, help="data root with coat/ and ai2thor/")
    sub = p.add_subparsers(dest="perception_command", metavar="ACTION")

    a = sub.add_parser("agreement", help="agreement of metadata-derived variables with COAT's common values")
    a.add_argument("--material-rule", default="first", choices=["first", "densest", "prior"])
    a.add_argument("--limit", type=POSITIVE_ARG, default=None, help="only the first N floorplans")
    a.add_argument("--json", type=Path, default=None, help="write the full result here")
    a.set_defaults(func=_checked(_agreement))

    f = sub.add_parser("frames", help="vision estimator on the recorded AI2-THOR frames vs their metadata")
    f.add_argument("--checkpoint", type=Path, default=None, help="torch state classifier (.pt2 / TorchScript)")
    f.add_argument("--json", type=Path, default=None)
    f.set_defaults(func=_checked(_frames))

    m = sub.add_parser("mass-size", help="mass bucket from 3D box size vs AI2-THOR kg (held-out floorplans)")
    m.add_argument("--json", type=Path, default=None)
    m.set_defaults(func=_checked(_mass_size))

    b = sub.add_parser("embedded", help="vision estimators on the embedded simulator's frames vs its metadata")
    b.add_argument("--seeds", type=POSITIVE_ARG, default=10, help="episodes per scene")
    b.add_argument("--perturbations", type=COUNT_ARG, default=12, help="random state changes per episode")
    b.add_argument("--json", type=Path, default=None)
    b.set_defaults(func=_checked(_embedded))

    t = sub.add_parser("sciworld", help="text estimator vs ScienceWorld's object tree on gold paths (starts a JVM)")
    t.add_argument("--tasks", default=None, help="comma-separated task names (default: 8 tasks, see --help)")
    t.add_argument("--per-task", type=POSITIVE_ARG, default=3, help="first N test variations of each task")
    t.add_argument("--every", type=POSITIVE_ARG, default=5, help="score every N gold steps (and the last)")
    t.add_argument("--json", type=Path, default=None)
    t.set_defaults(func=_checked(_sciworld))

    e = sub.add_parser("estimate", help="estimate the five variables in one floorplan")
    e.add_argument("scene", help="e.g. FloorPlan1")
    e.add_argument("--visible-only", action="store_true")
    e.set_defaults(func=_estimate)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _checked(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``run``, after checking that its ``--json`` file can be written (before a long benchmark, not after)."""

    def checked(args: argparse.Namespace) -> int:
        if args.json is not None:
            check_out_path(args.json, kind="file", flag="--json", makes_parents=False)
        return run(args)

    return checked


def _root(args: argparse.Namespace) -> Path:
    from planner.paths import resolve_data_dir

    return resolve_data_dir(args.data_dir, need="ai2thor")


def _agreement(args: argparse.Namespace) -> int:
    from perception.evaluation import agreement
    from perception.priors import TypePriors

    root = _root(args)
    res = agreement(
        root / "ai2thor" / "floorplans",
        material_rule=args.material_rule,
        priors=TypePriors.from_data_dir(root),
        limit=args.limit,
    )
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    echo(f"objects {res['objects']}, scored (type in COAT) {res['scored']}, rule={res['material_rule']}")
    echo(f"{'variable':<16}{'all':>18}{'from metadata':>18}{'from prior':>18}")
    for var, d in res["per_variable"].items():
        cells = []
        for k in ("all", "metadata", "prior"):
            c = d.get(k)
            cells.append(f"{c['agree']}/{c['n']} {100 * c['rate']:.1f}%" if c else "-")
        echo(f"{var:<16}" + "".join(f"{c:>18}" for c in cells))
    echo(f"estimation time: {1e6 * res['seconds_per_object']:.1f} us/object")
    return 0


def _frames(args: argparse.Namespace) -> int:
    from perception.evaluation import frames_eval
    from perception.priors import TypePriors

    root = _root(args)
    clf = None
    if args.checkpoint is not None:
        from perception.state_classifiers import TorchStateClassifier

        clf = TorchStateClassifier(args.checkpoint)
    res = frames_eval(root, classifier=clf, priors=TypePriors.from_data_dir(root))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    echo(f"frames {res['frames']}, visible objects {res['objects']} (boxes projected from metadata)")
    echo(f"{'state':<10}{'n':>6}{'pos':>6}{'acc':>8}{'majority':>10}{'TP':>5}")
    for st, d in res["states"].items():
        acc = f"{100 * d['accuracy']:.1f}" if d["accuracy"] is not None else "-"
        maj = f"{100 * d['majority_baseline']:.1f}" if d["majority_baseline"] is not None else "-"
        echo(f"{st:<10}{d['n']:>6}{d['positives']:>6}{acc:>8}{maj:>10}{d['true_positives']:>5}")
    echo(f"{'variable':<16}{'vision+prior':>14}{'prior only':>12}{'by vision':>11}")
    for var, d in res["variables"].items():
        echo(
            f"{var:<16}{100 * d['rate']:>13.1f}%{100 * d['prior_only_rate']:>11.1f}%{d['decided_by_vision']:>11}"
        )
    echo(f"estimation time: {1e3 * res['seconds_per_object']:.2f} ms/object")
    return 0


def _mass_size(args: argparse.Namespace) -> int:
    from perception.evaluation import calibrate_shell_coefficients, mass_from_size

    fp = _root(args) / "ai2thor" / "floorplans"
    res = {"calibration": calibrate_shell_coefficients(fp, split="even"), "test": mass_from_size(fp, split="odd")}
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    t = res["test"]
    echo(
        f"calibrated on even floorplans ({res['calibration']['objects']} objects, log-log slope "
        f"{res['calibration']['exponent_fit']}); tested on odd ({t['objects']} objects):\n"
        f"  per-material coefficients {100 * t['per_material']:.1f}%   single coefficient "
        f"{100 * t['single_coefficient']:.1f}%   majority '{t['majority_bucket']}' "
        f"{100 * t['majority_baseline']:.1f}%"
    )
    return 0


def _embedded(args: argparse.Namespace) -> int:
    from perception.evaluation import embedded_eval
    from perception.priors import TypePriors

    priors = TypePriors.from_data_dir(args.data_dir)
    res = embedded_eval(seeds=args.seeds, perturbations=args.perturbations, priors=priors)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    echo(f"frames {res['frames']}")
    for name, r in res["estimators"].items():
        echo(f"== {name}: {r['objects']} visible objects, {1e3 * r['seconds_per_object']:.2f} ms/object")
        echo(f"{'state':<10}{'n':>6}{'pos':>6}{'acc':>8}{'majority':>10}{'recall':>8}{'prec':>8}")
        for st, d in r["states"].items():
            f = [
                ("-" if d[k] is None else f"{100 * d[k]:.1f}")
                for k in ("accuracy", "majority_baseline", "recall", "precision")
            ]
            echo(f"{st:<10}{d['n']:>6}{d['positives']:>6}{f[0]:>8}{f[1]:>10}{f[2]:>8}{f[3]:>8}")
        echo(f"{'variable':<16}{'vision+prior':>14}{'prior only':>12}{'by vision':>11}")
        for var, d in r["variables"].items():
            echo(
                f"{var:<16}{100 * d['rate']:>13.1f}%{100 * d['prior_only_rate']:>11.1f}%{d['decided_by_vision']:>11}"
            )
    return 0


def _sciworld(args: argparse.Namespace) -> int:
    from perception.evaluation import TEXT_EVAL_TASKS, text_eval

    tasks = [t.strip() for t in args.tasks.split(",")] if args.tasks else list(TEXT_EVAL_TASKS)
    res = text_eval(tasks, per_task=args.per_task, every=args.every)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    echo(f"{len(res['episodes'])} episodes, {res['snapshots']} scored snapshots")

    def cell(d: dict[str, Any]) -> str:
        return f"{d['agree']}/{d['n']} {100 * d['rate']:.1f}%" if d["n"] else "-"

    for var in ("temperature", "material"):
        echo(f"{var}: " + "  ".join(f"{k}={cell(v)}" for k, v in res[var].items()))
    b = res["broken"]
    echo(
        f"broken: {b['broken_devices']} broken of {b['devices']} device sightings; found {b['true_positive']}, "
        f"false alarms {b['false_positive']}, missed {b['false_negative']}"
    )
    echo(f"mass: {res['mass']}")
    echo(f"estimation time: {1e6 * res['seconds_per_object']:.1f} us/object")
    return 0


def _estimate(args: argparse.Namespace) -> int:
    from perception.metadata import MetadataEstimator
    from perception.priors import TypePriors
    from planner.errors import ConfigError
    from scenes.base import SceneObs
    from scenes.embedded.loader import load_scene_file

    root = _root(args)
    name = args.scene.removesuffix("_physics")
    f = root / "ai2thor" / "floorplans" / f"{name}_physics.json"
    if not (name.startswith("FloorPlan") and name[9:].isdigit()) or not f.exists():
        raise ConfigError(f"no floorplan {args.scene!r} in {f.parent}; use e.g. FloorPlan1, FloorPlan201")
    objs = tuple(load_scene_file(f).objects)  # validated and bounded: a damaged file is a DataError naming it
    est = MetadataEstimator(priors=TypePriors.from_data_dir(root), visible_only=args.visible_only)
    scene = est.estimate(SceneObs(objects=objs, extra={"scene_id": f.stem}))
    for r in scene.objects:
        unk = f"  (prior: {', '.join(r.unknown)})" if r.unknown else ""
        echo(f"{r.object_id:<48} {r.state.as_text()}{unk}")
    return 0
