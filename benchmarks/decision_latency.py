"""Decision latency of the embedded models, uncached, single prompt vs two-stage, side by side in one run.

Stage 1's reference spreads (``ObjectSelector.calibrate``: about 100 short scoring calls per utility, made
once and then cached) are computed first and timed separately, as the one-time cost a robot pays per
utility; then every question is decided with the model-call cache off, alternating the two pipelines so
machine load affects both alike.

Run (quiet machine):
    COAT_LLM_THREADS=2 PYTHONPATH=. python benchmarks/decision_latency.py --llm local --n 100 --seed 0
"""

from __future__ import annotations

import argparse
import statistics
import time

from tqdm import tqdm

from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge
from planner.llm import make_llm
from planner.pipeline import make_pipeline
from planner.two_stage import TwoStagePipeline


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", default="local")
    ap.add_argument("--set", default="full_moderate")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    kb = load_knowledge()
    llm = make_llm(args.llm, cache=False)
    qs = sample_questions(load_set(kb, args.set, seed=args.seed), args.n, seed=args.seed)
    two = make_pipeline("two-stage", "llm", llm, kb)
    one = make_pipeline("single", "llm", llm, kb)
    assert isinstance(two, TwoStagePipeline)
    two.objects.encoder.similarities("warm up", ["the encoder"])  # load MiniLM outside the timings

    t0 = time.perf_counter()
    pairs = sorted({(q.task, q.utility) for q in qs}, key=str)
    for task, utility in tqdm(pairs, desc="calibrate"):
        two.objects.calibrate(task, utility)
    utilities = len({u for _, u in pairs})
    calib = time.perf_counter() - t0

    times: dict[str, list[float]] = {"single": [], "two-stage": []}
    correct = {"single": 0, "two-stage": 0}
    for q in tqdm(qs, desc="decide"):
        for name, pipe in (("single", one), ("two-stage", two)):
            t = time.perf_counter()
            d = pipe.decide(q)
            times[name].append(time.perf_counter() - t)
            correct[name] += d.chosen == q.answer
    print(f"model {llm.model_id}, {args.set}, {len(qs)} questions (seed {args.seed}), model-call cache off")
    print(f"stage-1 calibration: {calib:.1f} s for {len(pairs)} (task, utility) pairs over {utilities} utilities "
          f"({calib / utilities:.1f} s per utility, once)")
    print("| pipeline | acc % | p50 s | p95 s | mean s |")
    print("|---|---|---|---|---|")
    for name, ts in times.items():
        print(f"| {name} | {100 * correct[name] / len(qs):.1f} | {pct(ts, 0.5):.2f} | {pct(ts, 0.95):.2f} | "
              f"{statistics.mean(ts):.2f} |")


if __name__ == "__main__":
    main()
