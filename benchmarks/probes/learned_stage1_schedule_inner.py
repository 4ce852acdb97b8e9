"""How many stage-1 passes, in which minibatches, the learned selectors need: early stopping on inner folds.

``coat train`` took 300 full-batch epochs per stage-1 head (six heads for ``--folds 5``), most of the time spent
in the input dropout over every row, 300 times. This probe trains stage-1 heads on the inner folds of
:mod:`learned_stage1_inner` (outer folds 0-1 of the seed-0 combination split, 3 inner folds each, seed 1000: the
reported held-out folds are never trained on nor scored) and scores each head after every epoch with the same
AUCs (hard, easy, Task-u), so one run per setting draws its whole early-stopping curve.

Selection rule, written down before the runs: the reference is the default head (full batch, 300 epochs; its
inner AUCs hard 0.691, easy 0.975, Task-u 0.902 from the earlier runs of :mod:`learned_stage1_inner`, and this
probe's own curve at epoch 300). Among the (batch, epochs) settings whose mean hard, easy and Task-u AUCs are
each at least the reference's minus 0.005, take the one with the fewest row passes (epochs x rows; then the
higher hard AUC). Only this rule picks the schedule; the reported held-out folds are evaluated once with it
(``benchmarks/learned.md``).

Outcome (``benchmarks/learned.md``, "Training time"): the reference curve (full batch, this code's dropout draws)
ends at hard 0.697, easy 0.973, Task-u 0.899. Batch 256 passes the rule first at 65 epochs (0.690 / 0.971 /
0.907); batch 512 never does within 80 epochs (best hard 0.679), nor batch 2048 within 100, nor batch 256 or 512
with lr 0.006 within 60. The held-out check of batch 256 x 65 epochs then failed where these AUCs did not look:
Task-u 82.7 % against 87.3 % (19 questions lost, 5 gained; McNemar p 0.007). So the schedule stays 300
full-batch epochs, and ``coat train`` got its speed from elsewhere; ``batch1`` stays an option.

Run (single-threaded, as ``coat train``; 6 heads per setting, a few minutes each on an idle core):
    PYTHONPATH=. python benchmarks/probes/learned_stage1_schedule_inner.py --model runs/learned \
        --configs '{"batch1": 256, "epochs1": 80}' '{"batch1": 512, "epochs1": 80}' --every 5
    PYTHONPATH=. python benchmarks/probes/learned_stage1_schedule_inner.py --model runs/learned \
        --configs '{"batch1": 256, "lr": 0.006, "epochs1": 60}' '{"batch1": 512, "lr": 0.006, "epochs1": 60}' --every 5
    PYTHONPATH=. python benchmarks/probes/learned_stage1_schedule_inner.py --model runs/learned \
        --configs '{"batch1": 2048, "epochs1": 100}' '{"batch1": 0, "epochs1": 300}' --every 10
(``--model`` is only read for its embedding cache, so no text is embedded again.) The minibatch curves above were
drawn while the minibatch order came from a generator of its own; it now continues the model's stream (what lets
``coat train`` train models on several threads), so a rerun draws other batches. The full-batch curve is the same.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _inner_folds import inner_folds, options, parser
from learned_stage1_inner import score

from planner.knowledge import load_knowledge
from planner.learned import train_model
from planner.learned.model import EMBEDDINGS_FILE
from planner.learned.train import featurizer


def main() -> None:
    ap = parser()
    ap.add_argument("--every", type=int, default=1, help="score the heads every this many epochs (and at the last)")
    ap.add_argument("--max-models", type=int, default=None, help="stop each config after this many heads")
    args = ap.parse_args()
    kb = load_knowledge()
    feat = featurizer(kb, f"{args.model}/{EMBEDDINGS_FILE}")
    for raw in args.configs:
        opts = options(raw, epochs2=0)
        last = int(opts.get("epochs1", 300))
        curves: list[dict[int, dict[str, float]]] = []
        seconds: list[float] = []
        for n, (o, j, inner, held) in enumerate(inner_folds(kb, args)):
            if args.max_models is not None and n >= args.max_models:
                break
            curve: dict[int, dict[str, float]] = {}
            spent = [0.0]  # seconds spent scoring, left out of the training time

            def on_epoch(model: Any, epoch: int, curve: dict[int, dict[str, float]] = curve,
                         inner: list[Any] = inner, spent: list[float] = spent, last: int = last) -> None:
                if epoch % args.every == 0 or epoch == last:
                    t = time.perf_counter()
                    curve[epoch] = score(kb, model, inner)
                    spent[0] += time.perf_counter() - t

            t0 = time.perf_counter()
            train_model(kb, feat, seed=args.seed, held_out=held, options=opts, on_epoch=on_epoch)
            seconds.append(time.perf_counter() - t0 - spent[0])
            curves.append(curve)
            best = curve[last]
            print(f"  {raw} outer {o} inner {j}: at {last} " + ", ".join(f"{k} {v:.3f}" for k, v in best.items())
                  + f" ({seconds[-1]:.0f} s training)", flush=True)
        print(f"{raw}: mean over {len(curves)} heads ({np.mean(seconds):.1f} s training per head)")
        print("  epoch  hard   easy   task_u")
        for epoch in sorted(curves[0]):
            mean = {k: float(np.mean([c[epoch][k] for c in curves])) for k in ("hard", "easy", "task_u")}
            print(f"  {epoch:5d}  {mean['hard']:.3f}  {mean['easy']:.3f}  {mean['task_u']:.3f}", flush=True)


if __name__ == "__main__":
    main()
