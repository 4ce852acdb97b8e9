"""Fit the reader's safety model (planner/understanding/safety_model.json) and say how it was chosen.

The model is a multinomial logistic regression over the MiniLM embedding of a request, with four classes
(harmful, impossible, alarming_fine, fine). Its training rows are the labelled safety sets' train and dev splits
(data/requests/safety-{train,dev}.jsonl, written by people who had not seen the reader) and the ordinary task
and infeasible requests of the understanding dev split (planner/understanding/requests/dev.jsonl), as ``fine``.
The test split (safety-test.jsonl) is never read here.

Selection, written down before the test split was run: 5-fold cross-validation over those rows (stratified, seed
0) gives each row a held-out probability; for each penalty C and each pair of thresholds (harmful, impossible) the
reader refuses a row as harmful when P(harmful) >= its threshold, and as impossible when P(impossible) >= its
threshold or the impossible rules say so. The chosen setting maximises harmful recall + 0.5 x impossible recall
subject to: at most 10 % of the safety sets' alarming_fine and fine rows refused, and at most 1 % of the ordinary
dev requests refused. The final model is then fitted on every row with that C.

Run (needs scikit-learn and the MiniLM encoder; COAT_DATA_DIR set):
    python scripts/train_safety.py                      # prints the selection table, writes the model
    python scripts/train_safety.py --dry-run            # the table only
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.understanding.examples import load_requests, load_safety  # noqa: E402
from planner.understanding.safety import CLASSES, MODEL_PATH  # noqa: E402

PENALTIES = (1.0, 3.0, 10.0, 30.0, 100.0)
GRID = tuple(round(x, 2) for x in np.arange(0.3, 0.96, 0.05))
MAX_FALSE_ALARM = 0.10
MAX_ORDINARY_REFUSED = 0.01
SEED = 0


def _rows() -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """Texts, class indices, the group of each row (0: safety set, 1: ordinary dev request), the source files."""
    texts: list[str] = []
    labels: list[int] = []
    group: list[int] = []
    for split in ("train", "dev"):
        for r in load_safety(split):
            texts.append(r.request)
            labels.append(CLASSES.index(r.label))
            group.append(0)
    for r in load_requests("dev"):
        if r.kind in ("task", "infeasible"):
            texts.append(r.request)
            labels.append(CLASSES.index("fine"))
            group.append(1)
    sources = ["data/requests/safety-train.jsonl", "data/requests/safety-dev.jsonl",
               "planner/understanding/requests/dev.jsonl (task and infeasible rows, as fine)"]
    return texts, np.array(labels), np.array(group), sources


def _rule_impossible(texts: list[str]) -> np.ndarray:
    from planner.knowledge import load_knowledge
    from planner.scene_planner import reader_for

    reader = reader_for(load_knowledge(None))
    return np.array([reader.read(t).reason.startswith("not a household task") for t in texts])


def select(x: np.ndarray, y: np.ndarray, group: np.ndarray, rule_imp: np.ndarray) -> tuple[dict, list[dict]]:
    """The chosen setting (the module doc's rule) and one line per penalty."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    harmful, impossible = CLASSES.index("harmful"), CLASSES.index("impossible")
    ok_safety = (group == 0) & (y >= 2)
    ordinary = group == 1
    strata = y + 4 * group
    table = []
    for c in PENALTIES:
        folds = list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(x, strata))
        p = cross_val_predict(LogisticRegression(C=c, max_iter=5000), x, y, cv=folds, method="predict_proba")
        top = None
        for th, ti in itertools.product(GRID, GRID):
            ph = p[:, harmful] >= th
            pi = (p[:, impossible] >= ti) | rule_imp
            refused = ph | pi
            fa = refused[ok_safety].mean()
            orr = refused[ordinary].mean()
            if fa > MAX_FALSE_ALARM or orr > MAX_ORDINARY_REFUSED:
                continue
            hr = ph[y == harmful].mean()
            ir = pi[y == impossible].mean()
            hp = (ph & (y == harmful)).sum() / max(ph.sum(), 1)
            score = hr + 0.5 * ir
            if top is None or score > top["score"]:
                top = {"C": c, "harmful_threshold": float(th), "impossible_threshold": float(ti),
                       "score": round(float(score), 4),
                       "harmful_recall": round(float(hr), 4), "harmful_precision": round(float(hp), 4),
                       "impossible_recall": round(float(ir), 4), "false_alarm": round(float(fa), 4),
                       "ordinary_refused": round(float(orr), 4)}
        table.append(top or {"C": c, "score": None})
    best = max((t for t in table if t.get("score") is not None), key=lambda t: t["score"])
    return best, table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="print the selection table; write nothing")
    ap.add_argument("--out", default=str(MODEL_PATH))
    args = ap.parse_args()
    from sklearn.linear_model import LogisticRegression

    from planner.llm.embedding import default_encoder

    encoder = default_encoder()
    texts, y, group, sources = _rows()
    x = np.asarray(encoder.embed(texts), dtype=np.float64)
    best, table = select(x, y, group, _rule_impossible(texts))
    print("| C | harmful thr | impossible thr | harmful R | harmful P | impossible R | false alarm | ordinary "
          "refused |")
    print("|---|---|---|---|---|---|---|---|")
    for t in table:
        if t.get("score") is None:
            print(f"| {t['C']} | no setting meets the limits | | | | | | |")
            continue
        pct = {k: 100 * t[k] for k in ("harmful_recall", "harmful_precision", "impossible_recall", "false_alarm",
                                       "ordinary_refused")}
        print(f"| {t['C']} | {t['harmful_threshold']} | {t['impossible_threshold']} | {pct['harmful_recall']:.1f} | "
              f"{pct['harmful_precision']:.1f} | {pct['impossible_recall']:.1f} | {pct['false_alarm']:.1f} | "
              f"{pct['ordinary_refused']:.2f} |")
    print(f"chosen: {best}")
    if args.dry_run:
        return
    model = LogisticRegression(C=best["C"], max_iter=5000).fit(x, y)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    out = {
        "classes": list(CLASSES), "encoder": encoder.model_id,
        "coef": np.round(model.coef_, 7).tolist(), "intercept": np.round(model.intercept_, 7).tolist(),
        "thresholds": {"harmful": best["harmful_threshold"], "impossible": best["impossible_threshold"]},
        "selection": {k: v for k, v in best.items()}, "rows": len(texts), "rows_sha256_16": digest,
        "sources": sources, "made_by": "python scripts/train_safety.py",
    }
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items())  # one line per key
    Path(args.out).write_text("{\n" + body + "\n}\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
