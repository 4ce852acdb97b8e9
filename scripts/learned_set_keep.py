"""Copy a trained learned-selector directory with another stage-1 keep threshold (option ``keep_logit``).

The threshold does not change training, so the copy has the same weights as
``coat train --option keep_logit=<t>`` (with the source's other options and seed) would give, without training
again; every manifest records the new option, so the model ids carry its hash.

    PYTHONPATH=. python scripts/learned_set_keep.py runs/learned-knn runs/learned-knn-keep --keep-logit -1
"""

from __future__ import annotations

import argparse

from planner.learned.train import set_keep_logit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="a `coat train --out` directory")
    ap.add_argument("dst", help="a new directory for the copy")
    ap.add_argument("--keep-logit", type=float, required=True, help="the stage-1 keep threshold of the copy")
    args = ap.parse_args()
    m = set_keep_logit(args.src, args.dst, args.keep_logit)
    print(f"{args.dst}: {1 + len(m.get('fold_models') or [])} models, keep_logit {m['options']['keep_logit']:g}")


if __name__ == "__main__":
    main()
