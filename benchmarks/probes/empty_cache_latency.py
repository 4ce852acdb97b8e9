"""Seconds per question from an empty model-call cache, before and after shipping the embedded models' fixed
log-likelihoods, side by side.

From an empty cache a decision with the embedded model scored each option after the prompt and after a neutral
(calibration) prompt, and stage 1 scored each candidate's utility prompt; the neutral half and the utility prompts do
not depend on the question. This probe answers the same questions with two set-ups, alternating question by question
so that the machine's load falls on both alike, each with its own empty model-call cache and its own in-process memo
of log-likelihoods (as two separate runs would have):

* ``before``: the code before ``planner/llm/scores/`` was shipped: every log-likelihood computed, only the neutral
  prompts' remembered in the process, and MiniLM encoding the query with every text on each call (numpy runtime);
* ``after``: the shipped tables (:mod:`planner.llm.shipped_scores`; one probe entry computed per process), every
  log-likelihood remembered in the process (an ablation's stage 2 asks the single prompt's options again, after the
  same prompt), and MiniLM's kept vectors (starting empty).

Both use stage 1's shipped reference spreads. The models are loaded before the clock starts (once per process in
both cases). Each question's single-prompt and two-stage decisions are timed apart; the decisions of the two set-ups
are compared, and the scores too (the largest difference).

Run:
    COAT_LLM_THREADS=1 PYTHONPATH=. python benchmarks/probes/empty_cache_latency.py --llm local --set task2 --limit 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from tqdm import tqdm

from planner import prompting
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


class NeutralMemo(OrderedDict):
    """The in-process memo as it was before: only the neutral prompts' log-likelihoods are kept."""

    def __init__(self, neutral_prefixes: set[tuple[int, ...]]) -> None:
        super().__init__()
        self.neutral_prefixes = neutral_prefixes

    def __setitem__(self, key: Any, value: float) -> None:
        if key[0] in self.neutral_prefixes:
            super().__setitem__(key, value)


def decision_scores(d: Any) -> list[float]:
    """Every score a decision reports (stage 1's per object, stage 2's per option), in a fixed order."""
    out = [v for _, v in sorted(d.stage1.scores.items())] if d.stage1 is not None else []
    return out + (list(d.stage2.scores) if d.stage2 is not None else [])


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", default="local")
    ap.add_argument("--set", default="task2")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--separate", action="store_true",
                    help="each pipeline with its own model-call cache and memo, as two `coat eval` runs (by default "
                         "they share them, as one `coat ablate` run: stage 2 finds the single prompt's scores)")
    args = ap.parse_args()
    from planner.llm import local

    kb = load_knowledge()
    qs = sample_questions(load_set(kb, args.set, seed=args.seed, lazy=True), args.limit, args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="empty-cache-"))
    enc = default_encoder()
    enc.similarities("load the encoder", ["before the clock starts"])
    setups: dict[str, dict[str, Any]] = {}
    for name in ("before", "after"):
        extra = {"shipped_scores": name == "after"} if args.llm.startswith("local") else {}
        llm = make_llm(args.llm, cache=LLMCache(tmp / f"{name}.sqlite"), **extra)
        llm2 = make_llm(args.llm, cache=LLMCache(tmp / f"{name}-2.sqlite"), **extra) if args.separate else llm
        two = make_pipeline("two-stage", "llm", llm2, kb, encoder=BatchedMiniLM(enc) if name == "before" else None)
        assert isinstance(two, TwoStagePipeline)
        setups[name] = {"single": make_pipeline("single", "llm", llm, kb), "two-stage": two, "llm": llm,
                        "times": {"single": [], "two-stage": []}, "cpu": {"single": [], "two-stage": []},
                        "chosen": [], "scores": []}
    if args.llm.startswith("local"):  # load the model outside the timings (a throwaway cache, a throwaway memo; the
        # shipped table is read and checked inside `after`'s first question)
        make_llm(args.llm, cache=LLMCache(tmp / "warm.sqlite"), shipped_scores=False).score("Warm up:", ["yes"])
        model = setups["before"]["llm"].model
        shared = model._shared()
        neutral = {tuple(model._tokenize(shared.llama, model.format_prompt(prompting.neutral_prompt(k))))
                   for k in ("object", "option", "yesno", "utility")}
        for p in ("single", "two-stage"):
            m = f"memo {p}"
            setups["before"][m], setups["after"][m] = NeutralMemo(neutral), OrderedDict()
            if not args.separate:  # one memo per set-up, shared by its pipelines
                for s in setups.values():
                    s[m] = s["memo single"]
    getattr(enc, "_recent", getattr(enc, "_memo", {})).clear()  # `after` starts with no kept vectors
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for q in tqdm(qs, desc="decide"):
        for s in setups.values():
            picks, scores = [], []
            for pipeline in ("single", "two-stage"):
                for shared in local._LOADED.values():  # each set-up keeps its own memo, as a separate run would
                    shared.memo = s.get(f"memo {pipeline}", shared.memo)
                t, c = time.perf_counter(), time.process_time()
                d = s[pipeline].decide(q)
                s["times"][pipeline].append(time.perf_counter() - t)
                s["cpu"][pipeline].append(time.process_time() - c)
                picks.append(d.chosen)
                scores.append(decision_scores(d))
            s["chosen"].append(tuple(picks))
            s["scores"].append(scores)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{len(qs)} {args.set} questions (seed {args.seed}), {args.llm}, each set-up from an empty cache; "
          f"seconds per question (wall clock, and the process's CPU time); load average {load_start:.1f} at the start, "
          f"{load:.1f} at the end; pipelines {'apart' if args.separate else 'sharing a cache and memo'}:")
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
    diffs = [abs(a - b) for qa, qb in zip(setups["before"]["scores"], setups["after"]["scores"], strict=True)
             for pa, pb in zip(qa, qb, strict=True) for a, b in zip(pa, pb, strict=False)]
    shapes = sum(len(pa) != len(pb) for qa, qb in zip(setups["before"]["scores"], setups["after"]["scores"],
                                                       strict=True) for pa, pb in zip(qa, qb, strict=True))
    print(f"scores compared: {len(diffs)}, largest difference {max(diffs, default=0.0):.2e}; decisions whose score "
          f"lists differ in length: {shapes}")


if __name__ == "__main__":
    main()
