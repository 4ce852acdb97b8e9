"""Fit the task reader's confidence (a logistic model over its evidence); write it to the reader's calibration.json.

Data, none of it from the reported test split:

- positives: COAT's 75 annotated task strings, each read with itself left out of the reader's index (a task
  the reader has never seen), and the ``dev`` split's task and infeasible requests;
- negatives (weighted so that both classes count the same in total): the ``dev`` split's nonsense requests,
  and seeded generated text that no one would give a robot:
  word salads of common English words (some ending in a household object word, "purple monkey dishwasher"),
  questions about the world ("what is the capital of X"), and word salads that open with a household verb.

Letter salad and other languages never reach the model (the language check refuses them first). The fit is
L2-regularised logistic regression by gradient descent (numpy), once per similarity method (MiniLM
``embedding`` and the ``lexical`` fallback). The script prints each method's coefficients, its log loss and
its reliability table on the fitting data.

    COAT_DATA_DIR=<data root> python scripts/calibrate_reader.py [--seed 0] [--negatives 400]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from planner.bench.understanding import load_requests
from planner.knowledge import load_knowledge
from planner.understanding.calibration import CALIBRATION_FILE
from planner.understanding.frames import FRAMES
from planner.understanding.reader import TaskReader

_QUESTIONS = ("what is the capital of {}", "who wrote {}", "how tall is {}", "tell me about {}", "why is {} {}",
              "is {} better than {}", "when did {} happen", "define {}")


def negatives(reader: TaskReader, n: int, seed: int) -> list[str]:
    from wordfreq import top_n_list

    rng = random.Random(seed)
    common = [w for w in top_n_list("en", 5000) if w.isalpha() and len(w) > 2]
    objects = sorted({p for p in reader.vocab.phrases if " " not in p})
    out = []
    verbs = sorted(FRAMES)
    for i in range(n):
        kind = i % 4
        if kind == 3:  # a word salad that opens with a household verb ("mop broccoli telescope window thursday")
            out.append(" ".join([rng.choice(verbs), *rng.sample(common + objects, rng.randint(3, 4))]))
        elif kind == 0:
            out.append(" ".join(rng.sample(common, rng.randint(2, 4))))
        elif kind == 1:
            out.append(" ".join([*rng.sample(common, rng.randint(1, 3)), rng.choice(objects)]))
        else:
            q = rng.choice(_QUESTIONS)
            out.append(q.format(*rng.sample(common, q.count("{}"))))
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 0.01, steps: int = 20000, lr: float = 0.5) -> np.ndarray:
    """Class-balanced (a request and a non-request weigh the same in total), L2-regularised logistic regression."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    sw = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (sw * (p - y)) + l2 * np.r_[0, w[1:]]
        w -= lr * grad
    return w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--negatives", type=int, default=400)
    args = ap.parse_args()
    kb = load_knowledge()
    dev = load_requests("dev")
    result = {}
    for method in ("embedding", "lexical"):
        reader = TaskReader(kb, encoder="auto" if method == "embedding" else None)
        rows: list[tuple[dict[str, float], int]] = []
        for t in reader.tasks:
            rows.append((reader.assess(t, exclude=(t,)).features, 1))
        for r in dev:
            rows.append((reader.assess(" ".join(r.request.split()) or "?").features, int(r.kind != "nonsense")))
        for text in negatives(reader, args.negatives, args.seed):
            a = reader.assess(text)
            if a.language.english:
                rows.append((a.features, 0))
        keys = list(rows[0][0])
        x = np.array([[f[k] for k in keys] for f, _ in rows])
        y = np.array([label for _, label in rows], dtype=float)
        w = fit(x, y)
        coef = {"bias": round(float(w[0]), 4), **{k: round(float(v), 4) for k, v in zip(keys, w[1:], strict=True)}}
        p = 1 / (1 + np.exp(-(np.hstack([np.ones((len(x), 1)), x]) @ w)))
        loss = float(-np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)))
        print(f"{method}: {len(y)} rows ({int(y.sum())} positive), log loss {loss:.3f}, coefficients {coef}")
        for lo in np.arange(0, 1, 0.2):
            m = (p >= lo) & (p < lo + 0.2 + (1e-9 if lo >= 0.8 else 0))
            if m.any():
                share = 100 * y[m].mean()
                print(f"  confidence {lo:.1f}-{lo + 0.2:.1f}: {int(m.sum()):4} rows, {share:5.1f} % positive")
        result[method] = coef
    out = Path(__file__).resolve().parents[1] / "planner" / "understanding" / CALIBRATION_FILE
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
