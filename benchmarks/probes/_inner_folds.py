"""What the inner-fold probes share: their arguments, the training options they accept, and the folds.

For each chosen outer fold o of the combination split (`coat train --folds K --seed S`), the outer fold's training
combinations are split into inner folds (seed S + 1000); a model trained without the outer fold and one inner fold
is scored on that inner fold only, so the reported held-out folds are never trained on nor scored.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

from planner.learned import combinations, fold_split
from planner.learned.train import DEFAULTS


def parser() -> argparse.ArgumentParser:
    """The arguments every inner-fold probe takes."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="a `coat train --out` directory (for its embedding cache)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--folds", type=int, default=5, help="outer folds (as `coat train --folds`)")
    ap.add_argument("--outer", type=int, nargs="+", default=[0, 1], help="outer folds to use")
    ap.add_argument("--inner", type=int, default=3, help="inner folds per outer fold")
    ap.add_argument("--configs", nargs="+", default=["{}"], help="JSON training options, one per config")
    return ap


def options(raw: str, **fixed: Any) -> dict[str, Any]:
    """The training options of one ``--configs`` value, with ``fixed`` ones (the stage a probe does not train).

    Raises:
        SystemExit: a key that is not a training option (the message lists the accepted ones).
    """
    opts = {**json.loads(raw), **fixed}
    unknown = sorted(set(opts) - set(DEFAULTS))
    if unknown:
        raise SystemExit(f"{raw}: not training options: {', '.join(unknown)} (accepted: {', '.join(DEFAULTS)})")
    return opts


def inner_folds(kb: Any, args: argparse.Namespace) -> Iterator[tuple[int, int, list[Any], list[Any]]]:
    """(outer fold, inner index, the inner fold's combinations, every combination the model holds out)."""
    outer = fold_split(combinations(kb), args.folds, args.seed)
    for o in args.outer:
        train = [c for c in combinations(kb) if c not in set(outer[o])]
        for j, inner in enumerate(fold_split(train, args.inner, args.seed + 1000)):
            yield o, j, inner, [*outer[o], *inner]
