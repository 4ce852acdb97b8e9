"""The ``coat`` command line.

Usage:
    coat plan "cut cake"                          # plan in the embedded kitchen with the embedded model
    coat data download                            # fetch COAT + AI2-THOR reference data into the cache
    coat datasets build --seed 0 --out data/qs    # regenerate the COAT question sets
    coat datasets stats --out data/qs
    coat eval --set task2 --pipeline two-stage --strategy knowledge --limit 100
    coat ablate --llm local --limit 300
    coat bench tasks --episodes 140 --seed 0      # household task episodes: planner vs baseline

Each subcommand lives in its own module (``planner/cli/<name>.py``) exposing ``register(subparsers)``;
the modules import heavy dependencies only inside their handlers, so ``coat --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from ..errors import PlannerError

# subcommand modules, in the order they appear in --help; a module that is missing is skipped
_COMMAND_MODULES: tuple[str, ...] = (
    "planner.cli.plan",
    "planner.cli.data",
    "planner.cli.datasets",
    "planner.cli.eval",
    "planner.cli.sciworld",
    "planner.cli.scenes",
    "planner.cli.perception",
    "planner.cli.bench",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available subcommand."""
    parser = argparse.ArgumentParser(prog="coat", description="COAT physical-commonsense planner.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``coat``; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except PlannerError as e:
        print(f"coat: error: {e}", file=sys.stderr)
        return 1

