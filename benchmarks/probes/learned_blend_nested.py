"""Held-out results of a per-fold choice: each question answered by the run of the setting its fold chose.

`learned_llm_blend_inner.py` chooses a blend setting per outer fold on that fold's inner folds. `coat eval --held-out`
runs one setting for every fold; this probe takes one run per distinct setting and, for each question, the row of
the run its fold chose (the fold that holds out the question's (utility, task), from the model's manifest). It
prints the `all` figures of the merged rows: accuracy, bad rate, stage-1 recall (the answer's object kept).

Run (after the `coat eval` runs of each setting, the same --set, --limit and --seed):
    PYTHONPATH=. python benchmarks/probes/learned_blend_nested.py --model runs/learned --set task0 \
        --runs 0:runs/blend/w1-task0.jsonl 1:runs/blend/w1-task0.jsonl 2:runs/blend/w0.5-task0.jsonl \
               3:runs/blend/w1-task0.jsonl 4:runs/blend/w1-task0.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="the `coat train --folds K --out` directory (its manifest)")
    ap.add_argument("--set", required=True, dest="set_name")
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", nargs="+", required=True, metavar="FOLD:FILE.jsonl",
                    help="for each outer fold, the `coat eval --out` rows of the setting it chose")
    args = ap.parse_args()
    kb = load_knowledge()
    manifest = json.loads((Path(args.model) / "manifest.json").read_text(encoding="utf-8"))
    fold_of = {(u, t): i for i, combos in enumerate(manifest["fold_combinations"]) for u, t in combos}
    runs: dict[int, dict[str, dict]] = {}
    for spec in args.runs:
        fold, _, path = spec.partition(":")
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        runs[int(fold)] = {r["question_id"]: r for r in rows}
    questions = sample_questions(load_set(kb, args.set_name, seed=args.seed), args.limit, args.seed)
    merged = []
    for q in questions:
        fold = fold_of[(q.utility, q.task)]
        if fold not in runs:
            raise SystemExit(f"question {q.id} is held out by fold {fold}, which has no --runs entry")
        row = runs[fold].get(q.id)
        if row is None:
            raise SystemExit(f"question {q.id} is not in the run given for fold {fold}")
        merged.append(row)
    n = len(merged)
    acc = 100 * sum(r["correct"] for r in merged) / n
    bad = 100 * sum(r["bad"] for r in merged) / n
    recall = 100 * sum(bool(r.get("stage1_kept_answer")) for r in merged) / n
    print(f"| {args.set_name} | {n} | acc {acc:.1f} % | bad {bad:.1f} % | stage-1 recall {recall:.1f} % |")


if __name__ == "__main__":
    main()
