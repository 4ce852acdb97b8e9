"""Seconds per question from an empty model-call cache, before and after shipping stage 1's calibration, side by side.

``coat eval --set task2 --strategy llm --llm local --limit 20`` took 13 min 30 s from an empty cache (12 s per
question at the median, 138 s at p95): stage 1's reference spreads (``ObjectSelector.calibrate``) dominated, about
100 scoring calls per new utility plus a MiniLM encoding of the 100 reference objects for every question. This probe
answers the same questions with two set-ups, alternating question by question so that the machine's load falls on
both alike, each with its own empty model-call cache and its own in-process memo of neutral-prompt scores (as two
separate runs would have):

* ``before``: every spread computed (``ObjectSelector.shipped_spreads = False``) and MiniLM encoding the query with
  every text on each call, as the code did;
* ``after``: the shipped spreads (``planner/reference_spreads.json``, one probe call per utility) and MiniLM's kept
  vectors (starting empty).

The models are loaded before the clock starts (once per process in both cases). Each question's single-prompt and
two-stage decisions are timed apart; the decisions of the two set-ups are compared.

Run:
    COAT_LLM_THREADS=1 PYTHONPATH=. python benchmarks/probes/empty_cache_latency.py --llm local --set task2 --limit 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge
from planner.llm import make_llm
from planner.llm.cache import LLMCache
from planner.llm.embedding import default_encoder
from planner.pipeline import make_pipeline
from planner.two_stage import TwoStagePipeline


class BatchedMiniLM:
    """MiniLM as it was called before: the query and every text encoded together on each call, nothing kept."""

    def __init__(self, enc: Any) -> None:
        self.enc, self.model_id = enc, enc.model_id

    def similarities(self, query: str, texts: list[str]) -> list[float]:
        emb = self.enc.embed([query, *texts])
        return [float(x) for x in emb[1:] @ emb[0]]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", default="local")
    ap.add_argument("--set", default="task2")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from planner.llm import local

    kb = load_knowledge()
    qs = sample_questions(load_set(kb, args.set, seed=args.seed, lazy=True), args.limit, args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="empty-cache-"))
    enc = default_encoder()
    enc.similarities("load the encoder", ["before the clock starts"])
    setups: dict[str, dict[str, Any]] = {}
    for name in ("before", "after"):
        llm = make_llm(args.llm, cache=LLMCache(tmp / f"{name}.sqlite"))
        two = make_pipeline("two-stage", "llm", llm, kb, encoder=BatchedMiniLM(enc) if name == "before" else None)
        assert isinstance(two, TwoStagePipeline)
        two.objects.shipped_spreads = name == "after"
        setups[name] = {"single": make_pipeline("single", "llm", llm, kb), "two-stage": two, "neutral": {},
                        "times": {"single": [], "two-stage": []}, "cpu": {"single": [], "two-stage": []},
                        "chosen": []}
    if args.llm.startswith("local"):  # load the model outside the timings (a throwaway cache, a throwaway memo)
        make_llm(args.llm, cache=LLMCache(tmp / "warm.sqlite")).score("Warm up:", ["yes"])
    enc._memo.clear()  # `after` starts with no kept vectors
    for q in tqdm(qs, desc="decide"):
        for s in setups.values():
            for shared in local._LOADED.values():  # each set-up keeps its own memo, as a separate run would
                shared.neutral = s["neutral"]
            picks = []
            for pipeline in ("single", "two-stage"):
                t, c = time.perf_counter(), time.process_time()
                picks.append(s[pipeline].decide(q).chosen)
                s["times"][pipeline].append(time.perf_counter() - t)
                s["cpu"][pipeline].append(time.process_time() - c)
            s["chosen"].append(tuple(picks))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{len(qs)} {args.set} questions (seed {args.seed}), {args.llm}, each set-up from an empty cache; "
          f"seconds per question (wall clock, and the process's CPU time); load average {load:.1f} at the end:")
    print("| set-up | pipeline | median s | p95 s | mean s | max s | total s | "
          "CPU median s | CPU p95 s | CPU total s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, s in setups.items():
        rows = {**{p: (s["times"][p], s["cpu"][p]) for p in ("single", "two-stage")},
                "both (an ablation's question)": tuple(
                    [a + b for a, b in zip(s[k]["single"], s[k]["two-stage"], strict=True)] for k in ("times", "cpu"))}
        for pipeline, (ts, cs) in rows.items():
            print(f"| {name} | {pipeline} | {statistics.median(ts):.2f} | {pct(ts, 0.95):.2f} | "
                  f"{statistics.mean(ts):.2f} | {max(ts):.2f} | {sum(ts):.1f} | {statistics.median(cs):.2f} | "
                  f"{pct(cs, 0.95):.2f} | {sum(cs):.1f} |")
    same = sum(a == b for a, b in zip(setups["before"]["chosen"], setups["after"]["chosen"], strict=True))
    print(f"\nthe same answers (single and two-stage) on {same} of {len(qs)} questions")


if __name__ == "__main__":
    main()
