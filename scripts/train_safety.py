"""Fit the reader's safety model (planner/understanding/safety_model.npz) and say how it was chosen.

The model is two RBF support-vector classifiers over the MiniLM embedding of a request: harmful vs the rest,
and impossible vs the rest (the labels are harmful, impossible, alarming_fine, fine). With a rule weight w (chosen
below from RULE_WEIGHTS), each embedding has one more input: w when the keyword rules (safety.unsafe) call the
request harmful, else 0. Its training rows:

- the labelled safety sets' train and dev splits and the extra training set (data/requests/safety-{train,dev,
  extra}.jsonl, each written by a writer who had not seen the reader; the extra set's rows that repeat a row of
  the train or dev set, or of the test split (LEFT_OUT), are left out);
- the understanding dev split (planner/understanding/requests/dev.jsonl): its task and infeasible requests as
  ``fine``; its ``nonsense`` requests whose labeller's reason names harm as ``harmful``, or an impossibility as
  ``impossible`` (:func:`_refusal_class`);
- ``fine`` by construction: COAT's task names in the knowledge base ("serving cake", "cut apple"; the tasks the
  planner exists to do) and the ALFRED-style goals of data/requests/directives-dev.jsonl (ordinary household
  goals the directive reader was written on: "chill the egg in the fridge, then set it on the dining table").

These last three sources are the ordinary requests. The test split (safety-test.jsonl) is never read here.

Selection: 5-fold cross-validation over those rows (seed 0, stratified by label and source) gives each row a
held-out decision value per classifier. For each rule weight, each penalty C and each pair of thresholds, a row is
refused as harmful when its harmful value is at or above its threshold, and as impossible when its impossible value
is, or the impossible rules say so. The chosen setting maximises harmful recall + 0.5 x impossible recall, subject to:

- at most 10 % of the safety sets' alarming_fine and fine rows refused;
- at most 1 % of each source of ordinary requests refused;
- at most 0.5 % of each source of ordinary requests refused as impossible when they are held out a topic at a
  time (:func:`topic_folds`: the ordinary requests' embeddings in 40 k-means clusters, whole clusters to a fold).

The third limit is there because the ordinary requests come in near-paraphrases: with stratified folds a held-out
request nearly always has a twin in training, which hid how a request on a topic no training row covers is read
("slice the cake": no fine training row cuts a cake). Held out by topic, 28 of the 2,090 dev requests were refused
as impossible at the old threshold (0), against 2 in stratified folds. The harmful gate is not held to it: a harmful
request carried out hurts someone, an impossible one does not.

The final model is then fitted on every row with that rule weight and C. The first two limits were written before
the safety test split was first run; the extra sources and the third limit came from the issue that "slice the cake"
was refused, were chosen on these rows alone, and were set before the test split's 4th run. The extra set and the
rule weight were added before its 5th run, under the same limits. Logistic regression, a small MLP, k nearest
neighbours and a four-class SVC were compared on the same stratified folds; the two binary SVCs scored best
(benchmarks/safety.md).

Run (needs scikit-learn and the MiniLM encoder; COAT_DATA_DIR set):
    python scripts/train_safety.py                      # prints the selection table, writes the model
    python scripts/train_safety.py --dry-run            # the table only
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.understanding.examples import load_requests, load_safety  # noqa: E402
from planner.understanding.safety import CLASSES, MODEL_PATH, REFUSALS  # noqa: E402

PENALTIES = (1.0, 3.0, 10.0, 30.0)
RULE_WEIGHTS = (0.0, 0.5, 1.0)
"""The extra input when the keyword rules (:func:`~planner.understanding.safety.unsafe`) fire; 0: none."""
GRID = tuple(round(float(x), 2) for x in np.arange(-1.0, 1.51, 0.1))
MAX_FALSE_ALARM = 0.10
MAX_ORDINARY_REFUSED = 0.01
MAX_UNFAMILIAR_IMPOSSIBLE = 0.005
TOPICS = 40
SEED = 0
SOURCES = ("safety sets and dev refusals", "dev requests", "COAT tasks", "directives")
"""The source of each row (:func:`_rows`); all but the first are ordinary requests."""


def _rows() -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """Texts, class indices, the source of each row (an index into :data:`SOURCES`), the source files."""
    from planner.knowledge import load_knowledge
    from planner.understanding.examples import load_directives

    texts: list[str] = []
    labels: list[int] = []
    source: list[int] = []

    def add(text: str, label: str, where: int) -> None:
        texts.append(text)
        labels.append(CLASSES.index(label))
        source.append(where)

    seen = set()
    for split in ("train", "dev", "extra"):
        for r in load_safety(split):
            if split == "extra" and (r.id in LEFT_OUT or _norm(r.request) in seen):
                continue
            seen.add(_norm(r.request))
            add(r.request, r.label, 0)
    for r in load_requests("dev"):
        label = "fine" if r.kind in ("task", "infeasible") else _refusal_class(r.why)
        if label is None:  # gibberish, other languages, off-topic questions: refused before this gate
            continue
        add(r.request, label, 1 if label == "fine" else 0)
    kb = load_knowledge(None)
    for task in sorted({t for u in kb.utilities for t in kb.tasks(u)}):
        add(" ".join(task.split()), "fine", 2)
    for d in load_directives("dev"):
        add(d.request, "fine", 3)
    sources = ["data/requests/safety-train.jsonl", "data/requests/safety-dev.jsonl",
               "data/requests/safety-extra.jsonl, less the rows that repeat one of the train or dev set and "
               "LEFT_OUT (rows that repeat the test split)",
               "planner/understanding/requests/dev.jsonl: task and infeasible rows as fine; nonsense rows whose "
               "labeller's reason names harm as harmful, or an impossibility as impossible (_refusal_class)",
               "COAT's task names in the knowledge base (tasks.json of the data directory) as fine",
               "data/requests/directives-dev.jsonl as fine"]
    return texts, np.array(labels), np.array(source), sources


LEFT_OUT = {"sx345": "repeats safety-test st075 word for word ('Exterminate the dust bunnies under the bed.')",
            "sx266": "one word from safety-test st002 ('Strip the bed and bung / throw the sheets in the wash.')"}
"""Rows of safety-extra.jsonl that never train: they repeat a row of the test split. They were found once, when the
set was added, by comparing its requests with the other sets' (the same text, or a MiniLM cosine of 0.95 or more);
this script does not read the test split."""


def _norm(text: str) -> str:
    """A request's words, lower case: rows that differ only in case and punctuation are one row."""
    return " ".join(re.findall(r"[a-z]+", text.lower()))


HARM_WHY = re.compile(r"harm|hurt|danger|unsafe|poison|cruel|safety|injur|privacy|private|prank|toxic|scald|kill|"
                      r"arson|electrocut|drown|destroy|destructive|abuse|illegal|theft|steal|hoax|deceiv|burn|"
                      r"suffocat|smother|choke|fire|must be refused|threat|weapon")
IMPOSSIBLE_WHY = re.compile(r"impossible|cannot|can't|fantasy|magic|not possible|no robot|physically")


def _refusal_class(why: str) -> str | None:
    """The safety class of an understanding-dev ``nonsense`` row, from its labeller's reason (written before this
    gate existed): ``harmful`` when it names harm, ``impossible`` when it names an impossibility, else None."""
    w = why.lower()
    if HARM_WHY.search(w):
        return "harmful"
    return "impossible" if IMPOSSIBLE_WHY.search(w) else None


def _rules(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Whether the impossible rules (:func:`~planner.understanding.safety.impossible`, as the reader runs them)
    refuse each text, and whether the keyword rules (:func:`~planner.understanding.safety.unsafe`, with the reader's
    vocabulary) call it harmful. The reader also runs the shipped safety model, whose refusals (their reason shows
    the model's value) are left out: they were fitted on these very rows, and counting them made a re-run score the
    old model's in-sample answers as the rules' (impossible recall 100 %)."""
    from planner.knowledge import load_knowledge
    from planner.scene_planner import reader_for
    from planner.understanding.safety import unsafe

    reader = reader_for(load_knowledge(None))
    reasons = [reader.read(t).reason for t in texts]
    rule_imp = np.array([r.startswith("not a household task") and "(safety model:" not in r for r in reasons])
    rule_harm = np.array([bool(unsafe(" ".join(t.split()), lambda p: bool(reader.vocab.mentions(p)))) for t in texts])
    return rule_imp, rule_harm


def features(x: np.ndarray, rule_harm: np.ndarray, weight: float) -> np.ndarray:
    """The model's inputs: the embeddings, and with a weight, one more column (the weight where the keyword rules
    fire, else 0), as :meth:`~planner.understanding.safety.SafetyModel.scores` builds them."""
    return np.hstack([x, weight * rule_harm[:, None].astype(x.dtype)]) if weight else x


def topic_folds(x: np.ndarray, strata: np.ndarray, ordinary: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """5 folds in which the ordinary requests are held out a topic at a time: their embeddings fall in
    :data:`TOPICS` k-means clusters (seed 0) and each cluster goes whole to one fold (a seeded order), so a held-out
    request has no paraphrase of itself in training. The other rows are split as in the stratified folds."""
    from sklearn.cluster import KMeans
    from sklearn.model_selection import StratifiedKFold

    fold = np.empty(len(x), dtype=int)
    mine = np.flatnonzero(ordinary)
    cluster = KMeans(TOPICS, random_state=SEED, n_init=4).fit_predict(x[mine])
    order = np.random.default_rng(SEED).permutation(TOPICS)
    fold_of = np.empty(TOPICS, dtype=int)
    fold_of[order] = np.arange(TOPICS) % 5
    fold[mine] = fold_of[cluster]
    rest = np.flatnonzero(~ordinary)
    for f, (_, held) in enumerate(StratifiedKFold(5, shuffle=True, random_state=SEED).split(x[rest], strata[rest])):
        fold[rest[held]] = f
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(5)]


def select(x: np.ndarray, y: np.ndarray, source: np.ndarray, rule_imp: np.ndarray,
           rule_harm: np.ndarray) -> tuple[dict, list[dict]]:
    """The chosen setting (the module doc's rule) and one line per rule weight and penalty. The folds (and the
    topics) come from the embeddings alone, so every setting is scored on the same folds."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.svm import SVC

    harmful, impossible = CLASSES.index("harmful"), CLASSES.index("impossible")
    ok_safety = (source == 0) & (y >= 2)
    ordinary = source >= 1
    kinds = [k for k in range(1, len(SOURCES)) if (source == k).any()]
    strata = y + len(CLASSES) * source
    folds = list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(x, strata))
    by_topic = topic_folds(x, strata, ordinary)
    table = []
    for w, c in itertools.product(RULE_WEIGHTS, PENALTIES):
        f = features(x, rule_harm, w)
        dh, di = (cross_val_predict(SVC(C=c, kernel="rbf"), f, (y == k).astype(int), cv=folds,
                                    method="decision_function") for k in (harmful, impossible))
        dt = cross_val_predict(SVC(C=c, kernel="rbf"), f, (y == impossible).astype(int), cv=by_topic,
                               method="decision_function")
        top = None
        for th, ti in itertools.product(GRID, GRID):
            ph = dh >= th
            pi = (di >= ti) | rule_imp
            refused = ph | pi
            fa = refused[ok_safety].mean()
            orr = {SOURCES[k]: float(refused[source == k].mean()) for k in kinds}
            unfamiliar = {SOURCES[k]: float(((dt >= ti) | rule_imp)[source == k].mean()) for k in kinds}
            if fa > MAX_FALSE_ALARM or max(orr.values()) > MAX_ORDINARY_REFUSED or \
                    max(unfamiliar.values()) > MAX_UNFAMILIAR_IMPOSSIBLE:
                continue
            hr = ph[y == harmful].mean()
            ir = pi[y == impossible].mean()
            hp = (ph & (y == harmful)).sum() / max(ph.sum(), 1)
            score = hr + 0.5 * ir
            if top is None or score > top["score"]:
                top = {"rule_weight": w, "C": c, "harmful_threshold": th, "impossible_threshold": ti,
                       "score": round(float(score), 4),
                       "harmful_recall": round(float(hr), 4), "harmful_precision": round(float(hp), 4),
                       "impossible_recall": round(float(ir), 4), "false_alarm": round(float(fa), 4),
                       "ordinary_refused": round(float(refused[ordinary].mean()), 4),
                       "ordinary_refused_by_source": {k: round(v, 4) for k, v in orr.items()},
                       "unfamiliar_refused_as_impossible": {k: round(v, 4) for k, v in unfamiliar.items()}}
        table.append(top or {"rule_weight": w, "C": c, "score": None})
    best = max((t for t in table if t.get("score") is not None), key=lambda t: t["score"])
    return best, table


def fit(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, np.ndarray | float]:
    """Both classifiers on every row, as one matrix of support vectors and a coefficient row per classifier."""
    from sklearn.svm import SVC

    models = [SVC(C=c, kernel="rbf").fit(x, (y == CLASSES.index(k)).astype(int)) for k in REFUSALS]
    rows = sorted(set().union(*(m.support_.tolist() for m in models)))
    where = {r: i for i, r in enumerate(rows)}
    coef = np.zeros((len(models), len(rows)))
    for j, m in enumerate(models):
        for r, a in zip(m.support_, m.dual_coef_[0], strict=True):
            coef[j, where[int(r)]] = a
    gammas = {float(m._gamma) for m in models}
    assert len(gammas) == 1, gammas  # "scale": 1 / (features x variance), the same data for both
    return {"vectors": x[rows].astype(np.float32), "coef": coef.astype(np.float32),
            "intercept": np.array([m.intercept_[0] for m in models], dtype=np.float32), "gamma": gammas.pop()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="print the selection table; write nothing")
    ap.add_argument("--out", default=str(MODEL_PATH))
    args = ap.parse_args()
    from planner.llm.embedding import default_encoder

    encoder = default_encoder()
    texts, y, source, sources = _rows()
    x = np.asarray(encoder.embed(texts), dtype=np.float64)
    rule_imp, rule_harm = _rules(texts)
    best, table = select(x, y, source, rule_imp, rule_harm)
    names = SOURCES[1:]
    print("| rule weight | C | harmful thr | impossible thr | harmful R | harmful P | impossible R | false alarm | "
          f"ordinary refused ({' / '.join(names)}) | held out by topic, refused as impossible ({' / '.join(names)}) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t in table:
        if t.get("score") is None:
            print(f"| {t['rule_weight']} | {t['C']} | no setting meets the limits | | | | | | | |")
            continue
        pct = {k: 100 * t[k] for k in ("harmful_recall", "harmful_precision", "impossible_recall", "false_alarm")}
        orr = " / ".join(f"{100 * t['ordinary_refused_by_source'].get(n, 0.0):.2f}" for n in names)
        unf = " / ".join(f"{100 * t['unfamiliar_refused_as_impossible'].get(n, 0.0):.2f}" for n in names)
        print(f"| {t['rule_weight']} | {t['C']} | {t['harmful_threshold']} | {t['impossible_threshold']} | "
              f"{pct['harmful_recall']:.1f} | "
              f"{pct['harmful_precision']:.1f} | {pct['impossible_recall']:.1f} | {pct['false_alarm']:.1f} | {orr} | "
              f"{unf} |")
    print(f"chosen: {best}")
    if args.dry_run:
        return
    arrays = fit(features(x, rule_harm, best["rule_weight"]), y, best["C"])
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    meta = {"encoder": encoder.model_id, "gamma": arrays.pop("gamma"), "refusals": list(REFUSALS),
            "thresholds": {"harmful": best["harmful_threshold"], "impossible": best["impossible_threshold"]},
            "rule_weight": best["rule_weight"],
            "selection": best, "rows": len(texts), "rows_sha256_16": digest, "sources": sources,
            "made_by": "python scripts/train_safety.py"}
    np.savez_compressed(args.out, meta=np.array(json.dumps(meta)), **arrays)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
