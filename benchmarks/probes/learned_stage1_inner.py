"""Stage-1 settings of the learned selectors, chosen on inner folds that never touch the reported folds.

For each chosen outer fold o (the combination folds `coat train --folds K --seed S` makes), the outer fold's
*training* combinations are split again into inner folds (seed S + 1000); a stage-1 head is trained on the
training combinations minus one inner fold (so without the outer fold o and without the inner fold) and
scored on that inner fold only. The outer folds' held-out combinations are never trained on nor scored, so
the reported held-out numbers are not tuned on.

Scores, averaged over (outer, inner) pairs, each a pairwise AUC over the inner fold's combinations:

* hard: context objects of (utility, task) above the utility's other objects (what Task-0 asks);
* easy: context objects above objects of other utilities;
* task_u: a utility's objects above every other object, for (utility, None).

Selection rule used in ``benchmarks/learned.md``: the setting with the highest hard AUC whose easy and Task-u
AUCs are each at most 0.01 below the default's; if none, the default stays.

Neighbour inputs (``knn_temp``, ``cos_features``; :mod:`planner.learned.neighbours`), written down before their
runs: the same rule, over the settings ``{"knn_temp": 0.3}``, ``{"cos_features": 1}`` and
``{"knn_temp": 0.3, "cos_features": 1}`` against the default (hard 0.691, easy 0.975, Task-u 0.902 from the
earlier run of this probe; the first default head is re-run here with ``--max-models 1`` to check the code
still gives it). The temperature 0.3 was picked from the raw neighbour score alone on these same inner folds
(no training: hard AUC 0.658 / 0.663 / 0.667 / 0.674 / 0.672 at temperatures 0.02 / 0.05 / 0.1 / 0.3 / 1).
The neighbour table of every head comes from its own training combinations (without the outer and the inner
fold), so the inner fold's combinations are never anyone's neighbours.

Stage-1 keep threshold (option ``keep_logit``), written down before its runs: with ``--thresholds T ...`` each
head is also scored, per threshold, on how many objects stage 1 keeps on the inner fold. For each inner
(utility, task) with a task, the candidates are the utility's COAT objects; stage 1 keeps every candidate whose
logit is >= T, and always the best (the ``learned`` strategy's rule):

* recall: the fraction of the combination's context objects kept (what Task-0/1/2 and the full pipeline need:
  a dropped context object can no longer be the answer);
* kept: the number of the utility's objects kept; kept_all: the number of COAT's objects kept (all 100 as
  candidates);
* task_u recall: for (utility, None), the fraction of the utility's objects kept with all objects as candidates.

Each is a mean over the inner fold's combinations, then over the 6 heads. Heads: ``{"knn_temp": 0.3,
"cos_features": 1}`` (the neighbour-input head, at thresholds -2, -1.5, -1, -0.5, 0) and the default ``{}`` (at
0, the reference). Selection rule: **the largest threshold whose inner recall is at least the default head's
inner recall at 0; if none, the smallest candidate (-2).** Only this rule picks the threshold; the reported
held-out folds are then evaluated once with it (``benchmarks/learned.md``).

Run (single-threaded; stage 2 is not trained, it does not change stage 1):
    PYTHONPATH=. python benchmarks/probes/learned_stage1_inner.py --model runs/learned \
        --configs '{}' '{"hard_weight": 3}' '{"pair_weight": 1}'
(``--model`` is only read for its embedding cache, so no text is embedded again.) The keep threshold:
    PYTHONPATH=. python benchmarks/probes/learned_stage1_inner.py --model runs/learned \
        --configs '{}' '{"knn_temp": 0.3, "cos_features": 1}' --thresholds -2 -1.5 -1 -0.5 0
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _inner_folds import inner_folds, options, parser

from planner.knowledge import load_knowledge
from planner.learned import train_model
from planner.learned.data import vocabulary
from planner.learned.model import EMBEDDINGS_FILE
from planner.learned.train import featurizer


def _auc(pos: list[float], neg: list[float]) -> float | None:
    if not pos or not neg:
        return None
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def score(kb: Any, model: Any, combos: list[Any]) -> dict[str, float]:
    """Mean AUCs (see the module docstring) of ``model``'s stage 1 over ``combos``."""
    objs = vocabulary(kb)
    out: dict[str, list[float]] = {"hard": [], "easy": [], "task_u": []}
    for u, t in combos:
        s = dict(zip(objs, model.suits(t, u, objs), strict=True))
        mine = set(kb.utility_objects(u))
        if t is None:
            a = _auc([s[o] for o in objs if o in mine], [s[o] for o in objs if o not in mine])
            if a is not None:
                out["task_u"].append(a)
            continue
        ctx = set(kb.context_objects(u, t))
        pos = [s[o] for o in objs if o in ctx]
        for key, neg in (("hard", [s[o] for o in objs if o in mine and o not in ctx]),
                         ("easy", [s[o] for o in objs if o not in mine and o not in ctx])):
            a = _auc(pos, neg)
            if a is not None:
                out[key].append(a)
    return {k: float(np.mean(v)) for k, v in out.items() if v}


def keep_stats(kb: Any, model: Any, combos: list[Any], thresholds: list[float]) -> dict[str, float]:
    """Per threshold T, the keep statistics of the module docstring (keys ``recall@T``, ``kept@T``,
    ``kept_all@T``, ``task_u_recall@T``), each a mean over ``combos``."""
    objs = vocabulary(kb)
    out: dict[str, list[float]] = {}
    for u, t in combos:
        s = dict(zip(objs, model.suits(t, u, objs), strict=True))
        mine = [o for o in objs if o in set(kb.utility_objects(u))]
        for thr in thresholds:
            if t is None:
                kept = _keep(s, objs, thr)
                out.setdefault(f"task_u_recall@{thr:g}", []).append(len(kept & set(mine)) / len(mine))
                continue
            ctx = set(kb.context_objects(u, t)) & set(mine)
            if not ctx:
                continue
            kept = _keep(s, mine, thr)
            out.setdefault(f"recall@{thr:g}", []).append(len(kept & ctx) / len(ctx))
            out.setdefault(f"kept@{thr:g}", []).append(len(kept))
            out.setdefault(f"kept_all@{thr:g}", []).append(len(_keep(s, objs, thr)))
    return {k: float(np.mean(v)) for k, v in out.items()}


def _keep(scores: dict[str, float], candidates: list[str], threshold: float) -> set[str]:
    """The ``learned`` strategy's stage-1 rule: every candidate with logit >= threshold, and always the best."""
    kept = {o for o in candidates if scores[o] >= threshold}
    return kept or {max(candidates, key=lambda o: scores[o])}


def main() -> None:
    ap = parser()
    ap.add_argument("--max-models", type=int, default=None, help="stop each config after this many heads (a check)")
    ap.add_argument("--thresholds", type=float, nargs="*", default=[],
                    help="also report stage-1 keep statistics at these logit thresholds (see the docstring)")
    args = ap.parse_args()
    kb = load_knowledge()
    feat = featurizer(kb, f"{args.model}/{EMBEDDINGS_FILE}")
    for raw in args.configs:
        opts = options(raw, epochs2=0)
        per: list[dict[str, float]] = []
        t0 = time.perf_counter()
        for o, j, inner, held in inner_folds(kb, args):
            if args.max_models is not None and len(per) >= args.max_models:
                break
            m = train_model(kb, feat, seed=args.seed, held_out=held, options=opts)
            per.append({**score(kb, m, inner), **keep_stats(kb, m, inner, args.thresholds)})
            print(f"  {raw} outer {o} inner {j}: " + ", ".join(f"{k} {v:.3f}" for k, v in per[-1].items()),
                  flush=True)
        keys = list(dict.fromkeys(k for p in per for k in p))
        mean = {k: float(np.mean([p[k] for p in per if k in p])) for k in keys}
        print(f"{raw}: " + ", ".join(f"{k} {v:.3f}" for k, v in mean.items())
              + f" ({len(per)} models, {time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
