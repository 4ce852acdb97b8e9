"""``coat train``: train the learned selectors (stage 1 and stage 2 heads) on COAT's annotations.

Examples::

    coat train --seed 0                      # one model on every combination, in the user cache
    coat train --seed 0 --folds 5 --out runs/learned   # plus 5 fold models for `coat eval --held-out`
    coat train --seed 0 --folds 5 --split objects --out runs/learned-objects   # folds of whole object types
    coat train --seed 0 --folds 5 --option hard_weight=2 --out runs/learned-hw2  # a non-default training option
    coat train --seed 0 --folds 5 --option knn_temp=0.3 --out runs/learned-knn   # stage-1 neighbour inputs

Deterministic for a seed: each model trains single-threaded on its own generator, one model per CPU core at a time
(``--workers``; the files are the same for any number). The first run embeds COAT's texts with MiniLM and caches
them beside the models; reruns read the cache. ``--folds 5`` (six models) takes about 3 minutes on two idle cores.
The output directory is locked while training and never overwritten: a training with another seed, other options
or other COAT data is refused (the identity is in ``results.run.json``); the same training resumes, keeping the
models already there and adding fold models to a directory trained without them.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..arguments import Range
from ..errors import ConfigError
from . import POSITIVE_ARG, SEED_ARG, echo, number, safe_text


def register(subparsers: Any) -> None:
    """Add ``train`` to the ``coat`` CLI."""
    p = subparsers.add_parser("train", help="train the learned selectors (strategy 'learned')",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=SEED_ARG, default=0, help="training seed (also the fold split's)")
    p.add_argument("--out", default=None, metavar="DIR", help="output directory (default: the user cache)")
    p.add_argument("--folds", type=POSITIVE_ARG, default=1, metavar="K",
                   help="also train K models, each without one fold of (utility, task) combinations, or of object "
                        "types with --split objects (K >= 2)")
    p.add_argument("--split", default="combinations", metavar="KIND",
                   help="what the folds hold out: 'combinations' (of utility and task; the default) or 'objects' "
                        "(whole object types: a fold model sees no example of its objects)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a training option (repeatable), e.g. --option hard_weight=3; keys: "
                        "hidden, epochs1, batch1, epochs2, lr, weight_decay, dropout, hard_weight, pair_weight, "
                        "knn_temp, cos_features, keep_logit "
                        "(defaults in planner.learned.train.DEFAULTS)")
    p.add_argument("--workers", type=number(Range(1, 64, integer=True)), default=None, metavar="N",
                   help="models trained at once, one thread each (default: one per CPU core, at most 4); the "
                        "models are the same for any N")
    p.add_argument("--data-dir", default=None, help="COAT data root (default: $COAT_DATA_DIR or the user cache)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_handler)


def _handler(args: argparse.Namespace) -> int:
    from ..knowledge import load_knowledge
    from ..learned import default_dir, train_dir
    from ..learned.data import SPLITS
    from ..paths import data_checksums
    from ..results import locked_dir
    from . import check_out_path

    if args.split not in SPLITS:
        raise ConfigError(f"--split {args.split!r} is not a split kind; accepted: {', '.join(SPLITS)}")
    if args.split != "combinations" and args.folds < 2:
        raise ConfigError(f"--split {args.split} makes held-out folds: give --folds K with K >= 2, got {args.folds}")
    options = parse_options(args.option)
    out = args.out or str(default_dir())
    check_out_path(out, kind="dir")
    with locked_dir(out):  # a second training on it is refused before anything loads
        kb = load_knowledge(args.data_dir)
        manifest = train_dir(kb, out, seed=args.seed, folds=args.folds, split=args.split, options=options,
                             checksums=data_checksums(args.data_dir), progress=not args.no_progress,
                             workers=args.workers)
    echo(f"trained: {out} (seed {args.seed}, {manifest['folds']} folds by {manifest['split']}, "
          f"encoder {manifest['encoder']})")
    return 0


def parse_options(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` training options, each parsed as its default's type and checked against its range
    (:data:`planner.learned.train.OPTION_RANGES`) before any data is loaded.

    Raises:
        ConfigError: not ``KEY=VALUE``, an unknown key (the message lists the accepted ones), or a value that is
            not a number of the key's type, not finite or out of range (the message names the accepted range).
    """
    from ..learned.train import DEFAULTS, OPTION_RANGES, option_value

    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep:
            raise ConfigError(f"--option {safe_text(repr(item))}: give KEY=VALUE, e.g. --option hard_weight=3")
        if key not in DEFAULTS:
            raise ConfigError(f"--option {safe_text(repr(key))} is not a training option; accepted: "
                              f"{', '.join(DEFAULTS)}")
        try:
            value = OPTION_RANGES[key].parse(raw) if key in OPTION_RANGES else raw
            out[key] = option_value(key, value)
        except (ValueError, ConfigError) as e:
            problem = str(e).removeprefix(f"option {key} ")
            raise ConfigError(f"--option {key}={safe_text(raw)}: {problem}") from None
    return out


__all__ = ["parse_options", "register"]
