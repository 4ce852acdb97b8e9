"""``coat datasets``: build the COAT question sets and summarise them.

Usage:
    coat datasets build --seed 0 --out data/qs                 # every set, with a progress bar
    coat datasets build --seed 0 --out data/qs --set task2     # one set (repeat --set for more)
    coat datasets stats --out data/qs                          # counts per set and variation vs the paper
    coat datasets stats                                        # same, computed in memory (no files needed)

``build`` locks ``--out`` and never overwrites it: a directory built with another seed, generator or data is
refused (the identity is in ``results.run.json``); one built the same way is added to (files already there kept).

Requires: the COAT data (``--data-dir``, ``$COAT_DATA_DIR`` or ``coat data download``); no extras.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..schemas import QUESTION_SETS
from . import SEED_ARG, check_out_path, echo, safe_text


def register(subparsers: Any) -> None:
    """Add the ``datasets`` subcommand (``build`` and ``stats``) to the ``coat`` parser."""
    p = subparsers.add_parser(
        "datasets",
        help="build / summarise the COAT question sets",
        description="Regenerate the COAT question sets (Task-u, Task-0, Task-1, Task-2, Full-ideal, Full-moderate).",
    )
    p.set_defaults(func=lambda args: _no_action(p))
    sub = p.add_subparsers(dest="datasets_command", metavar="ACTION")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--data-dir", default=None, help="data root holding coat/ (default: $COAT_DATA_DIR, cache)")
        q.add_argument(
            "--set",
            dest="sets",
            action="append",
            choices=QUESTION_SETS,
            default=None,
            help="only this set (repeatable; default: all)",
        )

    b = sub.add_parser("build", help="generate the sets into JSONL files plus manifest.json")
    b.add_argument("--seed", type=SEED_ARG, default=0, help="master seed (default 0)")
    b.add_argument("--out", required=True, help="output directory")
    b.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    common(b)
    b.set_defaults(func=_build)

    s = sub.add_parser("stats", help="print counts per set and variation beside the paper's totals")
    s.add_argument("--out", default=None, help="a directory written by `build` (default: compute in memory)")
    common(s)
    s.set_defaults(func=_stats)


def _no_action(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _build(args: argparse.Namespace) -> int:
    from ..bench.datasets import write_sets
    from ..knowledge import load_knowledge
    from ..results import locked_dir

    check_out_path(args.out, kind="dir")
    with locked_dir(args.out):  # a second build on it is refused before anything loads
        kb = load_knowledge(args.data_dir)
        manifest = write_sets(
            kb, args.out, seed=args.seed, sets=args.sets, progress=not args.no_progress, data_dir=args.data_dir
        )
    built = args.sets or list(QUESTION_SETS)
    total = sum(manifest["totals"].get(s, 0) for s in built)
    echo(f"wrote {total:,} questions ({', '.join(built)}) to {safe_text(args.out)} (seed {args.seed})")
    return 0


def _stats(args: argparse.Namespace) -> int:
    from ..bench.datasets import PAPER_TOTALS, plan_counts, read_manifest, variations
    from ..errors import DataNotFoundError
    from ..knowledge import load_knowledge

    kb = load_knowledge(args.data_dir)
    wanted = args.sets or list(QUESTION_SETS)
    counts: dict[str, dict[int, int]] = {}
    if args.out is not None:
        manifest = read_manifest(args.out)
        if manifest is None:
            out = safe_text(args.out)
            raise DataNotFoundError(f"no manifest.json in {out}; run `coat datasets build --out {out}`")
        for s in wanted:
            counts[s] = {int(v): int(n) for v, n in manifest.get("counts", {}).get(s, {}).items()}
        source = f"{safe_text(args.out)} (seed {manifest.get('seed')}, generator {manifest.get('generator_version')})"
    else:
        # counts do not depend on the seed, and plan_counts gives exactly what a build would write
        for (s, v), n in plan_counts(kb, wanted).items():
            counts.setdefault(s, {})[v] = n
        source = "computed in memory (counts are the same for every seed)"

    echo(f"COAT question sets: {source}")
    echo(f"{'set':<14} {'var':>3} {'opts':>4}  {'mix':<36} {'questions':>10}")
    grand = 0
    for s in wanted:
        if not counts.get(s):
            echo(f"{s:<14} (not built)")
            continue
        for var in variations(kb, s):
            if var.number in counts[s]:
                echo(f"{s:<14} {var.number:>3} {var.n_options:>4}  {var.label:<36} {counts[s][var.number]:>10,}")
        total = sum(counts[s].values())
        grand += total
        paper = PAPER_TOTALS.get(s)
        vs = f"paper ~{paper:,} ({(total - paper) / paper:+.1%})" if paper else "paper: not reported"
        echo(f"{s + ' total':<62} {total:>10,}   {vs}")
    echo(f"{'all sets':<62} {grand:>10,}")
    return 0
