"""Stage 1 with a scoring model's task affinity added (:class:`planner.learned.blend.LLMBlend`), chosen on inner folds.

Nested selection, so no reported held-out combination is scored while choosing: for **every** outer fold o of the
combination split (`coat train --folds K --seed S`), the outer fold's training combinations are split into inner
folds (seed S + 1000, as the other inner-fold probes); a default stage-1 head is trained without the outer fold
and one inner fold and its logits on that inner fold are kept (``--dump``, so the heads train once). The
affinity (:func:`planner.learned.blend.task_affinity`) needs no training; for each model and template it is
computed once per (utility, task) over COAT's objects, through the model cache.

Scores per setting (model, template, weight) and outer fold, each a pairwise AUC averaged over the outer fold's
inner combinations (the AUCs of ``learned_stage1_inner.py``): hard (context objects above the utility's other
objects: what Task-0 asks) and easy (context objects above other utilities' objects). Task-u has no task, so
the blend leaves it unchanged.

Selection rule, written down before the runs: **for each outer fold, the setting with the highest inner hard
AUC whose inner easy AUC is at most 0.01 below the head's alone (weight 0); if none, weight 0.** The held-out
folds are then evaluated once with what each fold chose (``benchmarks/learned.md``).

Run (single-threaded):
    PYTHONPATH=. python benchmarks/probes/learned_llm_blend_inner.py --model runs/learned --dump runs/blend-inner \
        --llms local:gemma-270m local --weights 0.25 0.5 1 2
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from _inner_folds import inner_folds, options, parser

from planner.knowledge import load_knowledge
from planner.learned import train_model
from planner.learned.blend import TEMPLATES, task_affinity
from planner.learned.data import vocabulary
from planner.learned.model import EMBEDDINGS_FILE
from planner.learned.train import featurizer
from planner.llm import make_llm


def _auc(pos: list[float], neg: list[float]) -> float | None:
    if not pos or not neg:
        return None
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def key(u: str, t: str | None) -> str:
    """A combination as a JSON key."""
    return f"{u}|{t or ''}"


def dump_logits(kb: Any, args: Any) -> list[dict[str, Any]]:
    """Train (or read back) the inner heads; per head: outer fold, inner index, logits per inner combination."""
    path = Path(args.dump) / "inner_logits.json"
    if path.exists():
        return json.loads(path.read_text())
    feat = featurizer(kb, f"{args.model}/{EMBEDDINGS_FILE}")
    objs = vocabulary(kb)
    heads: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for o, j, inner, held in inner_folds(kb, args):
        m = train_model(kb, feat, seed=args.seed, held_out=held, options=options("{}", epochs2=0))
        heads.append({"outer": o, "inner": j,
                      "logits": {key(u, t): dict(zip(objs, m.suits(t, u, objs), strict=True)) for u, t in inner}})
        print(f"  head outer {o} inner {j} ({time.perf_counter() - t0:.0f} s)", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(heads))
    return heads


def aucs(kb: Any, logits: dict[str, dict[str, float]], extra: dict[str, dict[str, float]] | None,
         weight: float) -> dict[str, float]:
    """Mean hard and easy AUCs over the combinations of ``logits`` (tasks only), logit + weight * extra."""
    objs = vocabulary(kb)
    out: dict[str, list[float]] = {"hard": [], "easy": []}
    for k, lg in logits.items():
        u, t = k.split("|", 1)
        if not t:
            continue
        s = {o: lg[o] + (weight * extra[k][o] if extra is not None else 0.0) for o in objs}
        ctx, mine = set(kb.context_objects(u, t)), set(kb.utility_objects(u))
        pos = [s[o] for o in objs if o in ctx]
        for name, negs in (("hard", mine - ctx), ("easy", set(objs) - mine)):
            a = _auc(pos, [s[o] for o in objs if o in negs])
            if a is not None:
                out[name].append(a)
    return {k: float(np.mean(v)) for k, v in out.items()}


def main() -> None:
    ap = parser()
    ap.set_defaults(outer=[0, 1, 2, 3, 4])
    ap.add_argument("--dump", required=True, help="directory for the inner heads' logits (read back on a rerun)")
    ap.add_argument("--llms", nargs="+", default=["local:gemma-270m"], help="scoring model specs")
    ap.add_argument("--templates", nargs="+", default=list(TEMPLATES), choices=list(TEMPLATES))
    ap.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5, 1, 2])
    ap.add_argument("--tolerance", type=float, default=0.01, help="easy-AUC drop the rule allows")
    ap.add_argument("--thresholds", type=float, nargs="*", default=[],
                    help="also report stage-1 keep statistics of each fold's choice at these thresholds")
    args = ap.parse_args()
    kb = load_knowledge()
    heads = dump_logits(kb, args)
    objs = vocabulary(kb)
    phrases = kb.templates.utility_phrases
    tasks = sorted({k for h in heads for k in h["logits"] if k.split("|", 1)[1]})
    affinity: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for spec in args.llms:
        llm = make_llm(spec)
        for tpl in args.templates:
            t0 = time.perf_counter()
            table = {}
            for k in tasks:
                u, t = k.split("|", 1)
                table[k] = dict(zip(objs, task_affinity(llm, t, phrases[u], objs, tpl), strict=True))
            affinity[(spec, tpl)] = table
            print(f"affinity {spec} {tpl}: {len(tasks)} combinations ({time.perf_counter() - t0:.0f} s)", flush=True)
    chosen: dict[int, Any] = {}
    print("\n| outer fold | setting | inner hard AUC | inner easy AUC |\n|---|---|---|---|")
    for o in sorted({h["outer"] for h in heads}):
        mine = [h for h in heads if h["outer"] == o]

        def mean(extra: Any, w: float, mine: list[dict[str, Any]] = mine) -> dict[str, float]:
            per = [aucs(kb, h["logits"], extra, w) for h in mine]
            return {k: float(np.mean([p[k] for p in per])) for k in per[0]}

        base = mean(None, 0.0)
        print(f"| {o} | head alone | {base['hard']:.3f} | {base['easy']:.3f} |")
        best: tuple[float, Any] = (base["hard"], None)
        for (spec, tpl), table in affinity.items():
            for w in args.weights:
                s = mean(table, w)
                ok = s["easy"] >= base["easy"] - args.tolerance
                print(f"| {o} | {spec} {tpl} w {w:g} | {s['hard']:.3f} | {s['easy']:.3f}{'' if ok else ' (fails)'} |")
                if ok and s["hard"] > best[0]:
                    best = (s["hard"], (spec, tpl, w))
        chosen[o] = best[1]
    print("\nchosen per outer fold (None = the head alone):")
    for o, c in chosen.items():
        print(f"  outer {o}: {c}")
    if args.thresholds:
        keep_table(kb, heads, affinity, chosen, args.thresholds)


def keep_table(kb: Any, heads: list[dict[str, Any]], affinity: dict[tuple[str, str], Any], chosen: dict[int, Any],
               thresholds: list[float]) -> None:
    """Stage 1's keep statistics on the inner folds (``learned_stage1_inner.py``'s): for each outer fold, the head
    alone at its threshold 0 and the chosen blend at each threshold; then the keep-threshold rule of that probe."""
    objs = vocabulary(kb)

    def stats(h: dict[str, Any], extra: Any, w: float, thr: float) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {"recall": [], "kept": [], "kept_all": []}
        for k, lg in h["logits"].items():
            u, t = k.split("|", 1)
            if not t:
                continue
            s = {o: lg[o] + (w * extra[k][o] if extra is not None else 0.0) for o in objs}
            mine = [o for o in objs if o in set(kb.utility_objects(u))]
            ctx = set(kb.context_objects(u, t)) & set(mine)
            if not ctx:
                continue
            kept = _keep(s, mine, thr)
            out["recall"].append(len(kept & ctx) / len(ctx))
            out["kept"].append(len(kept))
            out["kept_all"].append(len(_keep(s, objs, thr)))
        return out

    def mean(mine: list[dict[str, Any]], extra: Any, w: float, thr: float) -> dict[str, float]:
        per = [stats(h, extra, w, thr) for h in mine]
        return {k: float(np.mean([np.mean(p[k]) for p in per])) for k in per[0]}

    print("\n| outer fold | stage 1 | threshold | inner recall | kept (utility's objects) | kept (all objects) |")
    print("|---|---|---|---|---|---|")
    picked: dict[int, float] = {}
    for o, c in chosen.items():
        mine = [h for h in heads if h["outer"] == o]
        base = mean(mine, None, 0.0, 0.0)
        print(f"| {o} | head alone | 0 | {base['recall']:.3f} | {base['kept']:.2f} | {base['kept_all']:.2f} |")
        if c is None:
            continue
        spec, tpl, w = c
        ok = []
        for thr in thresholds:
            m = mean(mine, affinity[(spec, tpl)], w, thr)
            print(f"| {o} | {spec} {tpl} w {w:g} | {thr:g} | {m['recall']:.3f} | {m['kept']:.2f} "
                  f"| {m['kept_all']:.2f} |")
            if m["recall"] >= base["recall"]:
                ok.append(thr)
        picked[o] = max(ok) if ok else min(thresholds)
    print("\nkeep threshold per outer fold (the largest whose inner recall is at least the head's at 0):")
    for o, thr in picked.items():
        print(f"  outer {o}: {thr:g}")


def _keep(scores: dict[str, float], candidates: list[str], threshold: float) -> set[str]:
    """The ``learned`` strategy's stage-1 rule: every candidate with logit >= threshold, and always the best."""
    kept = {o for o in candidates if scores[o] >= threshold}
    return kept or {max(candidates, key=lambda o: scores[o])}


if __name__ == "__main__":
    main()
