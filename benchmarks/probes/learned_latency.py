"""Decision latency of the ``learned`` strategy (two-stage): warm, a never-seen task, and a cold embedding cache.

Warm: every text was embedded before (COAT's tasks, phrases and objects are cached by ``coat train``), so a
decision is two small MLP forwards. New task: only the question's task text is dropped from the cache before
each decision, so MiniLM embeds that one text, as it does for the first decision of a task the model never saw
(the utility phrases and object names it reads are COAT's, which every trained model ships in
``embeddings.npz``). Cold: the in-memory cache is emptied before every decision, so each one also embeds its
phrase and objects (an object name or phrase outside COAT's vocabulary costs this once).

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
from planner.learned.features import task_text
from planner.llm.embedding import _key
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
    cache = model.featurizer.cache
    for name in ("warm", "new task", "cold"):
        ms = []
        for q in qs:
            if name == "cold":
                cache._vecs.clear()
            elif name == "new task":
                cache._vecs.pop(_key(cache.model_id, task_text(q.task)), None)
            t0 = time.perf_counter()
            pipe.decide(q)
            ms.append(1000 * (time.perf_counter() - t0))
        ms.sort()
        print(f"{name}: n={len(ms)} p50 {statistics.median(ms):.2f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:.2f} ms")


if __name__ == "__main__":
    main()
