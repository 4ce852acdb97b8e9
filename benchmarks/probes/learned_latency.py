"""Decision latency of the ``learned`` strategy (two-stage), warm and cold embedding cache.

Warm: every text was embedded before (COAT's tasks, phrases and objects are cached by ``coat train``), so a
decision is two small MLP forwards. Cold: the in-memory cache is emptied before every decision, so each one
also embeds its task, phrase and objects with MiniLM (what a never-seen task costs once).

Run (quiet machine, after ``coat train --seed 0 --out DIR``):
    PYTHONPATH=. python benchmarks/probes/learned_latency.py --model DIR --n 200
"""

from __future__ import annotations

import argparse
import statistics
import time

from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge
from planner.learned import load_learned
from planner.pipeline import make_pipeline


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--set", default="full_moderate")
    args = ap.parse_args()
    kb = load_knowledge()
    model = load_learned(kb, args.model)
    pipe = make_pipeline("two-stage", "learned", kb=kb, learned=model)
    qs = sample_questions(load_set(kb, args.set, seed=0), args.n, 0)
    pipe.decide(qs[0])  # load torch and MiniLM once
    for name, cold in (("warm", False), ("cold", True)):
        ms = []
        for q in qs:
            if cold:
                model.featurizer.cache._vecs.clear()
            t0 = time.perf_counter()
            pipe.decide(q)
            ms.append(1000 * (time.perf_counter() - t0))
        ms.sort()
        print(f"{name}: n={len(ms)} p50 {statistics.median(ms):.2f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:.2f} ms")


if __name__ == "__main__":
    main()
