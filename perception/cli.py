"""``coat perception``: run the perception benchmarks.

Usage:
    coat perception agreement [--material-rule first|densest|prior] [--json out.json]
    coat perception estimate FloorPlan1 [--visible-only]      # print the estimated five variables

Requires: the AI2-THOR reference data (``ai2thor/`` in the data directory) and COAT's data for priors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``perception`` subcommand and its sub-subcommands."""
    p = subparsers.add_parser("perception", help="perception benchmarks and estimates")
    p.add_argument("--data-dir", default=None, help="data root with coat/ and ai2thor/")
    sub = p.add_subparsers(dest="perception_command", metavar="ACTION")

    a = sub.add_parser("agreement", help="agreement of metadata-derived variables with COAT's common values")
    a.add_argument("--material-rule", default="first", choices=["first", "densest", "prior"])
    a.add_argument("--limit", type=int, default=None, help="only the first N floorplans")
    a.add_argument("--json", type=Path, default=None, help="write the full result here")
    a.set_defaults(func=_agreement)

    e = sub.add_parser("estimate", help="estimate the five variables in one floorplan")
    e.add_argument("scene", help="e.g. FloorPlan1")
    e.add_argument("--visible-only", action="store_true")
    e.set_defaults(func=_estimate)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _root(args: argparse.Namespace) -> Path:
    from planner.data import resolve_data_dir

    return resolve_data_dir(args.data_dir, need="ai2thor")


def _agreement(args: argparse.Namespace) -> int:
    from .evaluation import agreement
    from .priors import TypePriors

    root = _root(args)
    res = agreement(
        root / "ai2thor" / "floorplans",
        material_rule=args.material_rule,
        priors=TypePriors.from_knowledge(root),
        limit=args.limit,
    )
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    out = sys.stdout
    out.write(f"objects {res['objects']}, scored (type in COAT) {res['scored']}, rule={res['material_rule']}\n")
    out.write(f"{'variable':<16}{'all':>18}{'from metadata':>18}{'from prior':>18}\n")
    for var, d in res["per_variable"].items():
        cells = []
        for k in ("all", "metadata", "prior"):
            c = d.get(k)
            cells.append(f"{c['agree']}/{c['n']} {100 * c['rate']:.1f}%" if c else "-")
        out.write(f"{var:<16}" + "".join(f"{c:>18}" for c in cells) + "\n")
    out.write(f"estimation time: {1e6 * res['seconds_per_object']:.1f} us/object\n")
    return 0


def _estimate(args: argparse.Namespace) -> int:
    from scenes.base import SceneObs

    from .metadata import MetadataEstimator
    from .priors import TypePriors

    root = _root(args)
    f = root / "ai2thor" / "floorplans" / f"{args.scene.removesuffix('_physics')}_physics.json"
    if not f.is_file():
        from planner.errors import ConfigError

        raise ConfigError(f"no floorplan {args.scene!r} in {f.parent}; use e.g. FloorPlan1, FloorPlan201")
    objs = tuple(json.loads(f.read_text()).values())
    est = MetadataEstimator(priors=TypePriors.from_knowledge(root), visible_only=args.visible_only)
    scene = est.estimate(SceneObs(objects=objs, extra={"scene_id": f.stem}))
    for r in scene.objects:
        unk = f"  (prior: {', '.join(r.unknown)})" if r.unknown else ""
        sys.stdout.write(f"{r.object_id:<48} {r.state.as_text()}{unk}\n")
    return 0
