"""Stage-2 settings of the learned selectors, chosen on inner folds that never touch the reported folds.

The folds are those of ``learned_stage1_inner.py``: for each chosen outer fold o of the combination split
(`coat train --folds K --seed S`), the outer fold's *training* combinations are split into inner folds (seed
S + 1000); a model is trained without the outer fold and one inner fold and scored on that inner fold only. Stage
1 is not trained (``epochs1`` 0): it does not change stage 2.

Scores, over every inner combination's configurations (its ideal ones and its moderate and bad pools, each
costed by COAT's cost model as `coat train` ranks them: ideal < moderate < bad, then total penalty): the fraction
of configuration pairs with different costs that the stage-2 score orders right, for all pairs, for pairs of two
moderate configurations (what Task-2 and Full-moderate ask) and for moderate-vs-bad pairs (the bad rate). Pairs
are pooled over the 6 (outer, inner) models.

Selection rule for borrowed rules (``stage2=rules``, :mod:`planner.learned.rules`), written down before the
held-out run: a setting is trained and evaluated on the held-out folds only if its inner moderate-moderate and
moderate-bad accuracies are both at least the trained head's (``stage2=mlp``); it then becomes the default if, held
out, its accuracy is higher than the trained head's on at least 3 of Task-1, Task-2, Full-ideal and Full-moderate
and none of its bad rates is above 2 %. The rules' own settings
(``rules_k`` 10, ``rules_temp`` 0.1, ``rules_utility`` 0.5) were chosen by a first version of this probe on
the same inner folds, among k 1 / 3 / 5 / 10, temperature 0.05 / 0.1 / 1 and bonus 0 / 0.5 / 1.

Run (single-threaded):
    PYTHONPATH=. python benchmarks/probes/learned_stage2_inner.py --model runs/learned \
        --configs '{"stage2": "mlp"}' '{"stage2": "rules"}'
(``--model`` is only read for its embedding cache, so no text is embedded again.)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _inner_folds import inner_folds, options, parser

from planner.knowledge import CostModel, load_knowledge
from planner.learned import train_model
from planner.learned.data import rank_examples
from planner.learned.model import EMBEDDINGS_FILE
from planner.learned.train import featurizer


def pair_scores(kb: Any, cost: CostModel, model: Any, combos: list[Any]) -> dict[str, list[bool]]:
    """Per kind of pair (``all``, ``moderate``, ``moderate_bad``), whether the model orders each pair right."""
    out: dict[str, list[bool]] = {"all": [], "moderate": [], "moderate_bad": []}
    for u, t in combos:
        if t is None:
            continue
        exs = rank_examples(kb, [(u, t)], cost)
        c = np.asarray([e.cost for e in exs])
        s = np.asarray(model.rank(t, u, [(e.obj, e.state) for e in exs]))
        i, j = np.nonzero(c[:, None] < c[None, :])  # i is the better one
        right = s[i] > s[j]
        cls_i, cls_j = np.minimum(c[i] // 1000, 2), np.minimum(c[j] // 1000, 2)  # a bad total can pass 1000
        out["all"] += right.tolist()
        out["moderate"] += right[(cls_i == 1) & (cls_j == 1)].tolist()
        out["moderate_bad"] += right[(cls_i == 1) & (cls_j == 2)].tolist()
    return out


def main() -> None:
    args = parser().parse_args()
    kb = load_knowledge()
    cost = CostModel(kb)
    feat = featurizer(kb, f"{args.model}/{EMBEDDINGS_FILE}")
    for raw in args.configs:
        opts = options(raw, epochs1=0)
        pooled: dict[str, list[bool]] = {}
        t0 = time.perf_counter()
        for _, _, inner, held in inner_folds(kb, args):
            m = train_model(kb, feat, seed=args.seed, held_out=held, options=opts)
            for k, v in pair_scores(kb, cost, m, inner).items():
                pooled.setdefault(k, []).extend(v)
        print(f"{raw}: " + ", ".join(f"{k} {np.mean(v):.4f} ({len(v)} pairs)" for k, v in pooled.items())
              + f" ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
