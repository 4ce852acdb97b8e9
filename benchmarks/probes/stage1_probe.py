"""Stage-1 signals for the embedded models, and what each would do to the two-stage pipeline.

For every sampled Full-moderate question it records, per candidate object, several model signals:

* ``cloze``: the shipped stage-1 score (object name after the task and "Which object would you use?",
  calibrated by that question alone);
* ``channel_task``: log-likelihood of the task given the object ("With a knife, a household robot can do
  this task: cut cake"); the scored text is the same for every object, so no calibration is needed;
* ``channel_need``: log-likelihood of COAT's utility phrase given the object ("A knife is an object that
  can be used to cut something");
* ``yesno``: calibrated ``Yes - No`` after "Could a knife serve this purpose?";
* ``single``: the best single-prompt score among the object's options (what the single prompt implicitly
  thinks of the object);

and the single-prompt score of every option. Because the scored stage-2 prompt does not list the
options, stage 2 over a subset is the single prompt's argmax restricted to that subset, so every keep
rule's two-stage accuracy is computed exactly from these numbers without further model calls.

Run:
    COAT_LLM_THREADS=2 PYTHONPATH=. python benchmarks/probes/stage1_probe.py collect --llm local --n 200 --seed 5 \
        --out runs/stage1-probe-s5.json
    PYTHONPATH=. python benchmarks/probes/stage1_probe.py analyse runs/stage1-probe-s5.json
    PYTHONPATH=. python benchmarks/probes/stage1_probe.py table --tune <tuning samples> --test <held-out sample>
    PYTHONPATH=. python benchmarks/probes/stage1_probe.py prior <samples>
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from planner import prompting as P
from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge
from planner.llm import make_llm

SIGNALS = ("cloze", "channel_task", "channel_need", "yesno", "single", "fewshot_chat", "fewshot_text", "minilm")


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


FEWSHOT = (
    ("hammer a nail into the wall", "hammer"),
    ("brush my teeth", "toothbrush"),
    ("sweep the porch", "broom"),
    ("pour tea for a guest", "teapot"),
)


def _fewshot_messages(task: str, need: str) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    msgs: list[Any] = []
    for t, o in FEWSHOT:
        msgs += [HumanMessage(f'Task: "{t}". Which object would you use?'), AIMessage(o)]
    msgs.append(HumanMessage(f'Task: "{task}". It needs {need}. Which object would you use?'))
    return msgs


def _fewshot_text(task: str, need: str) -> str:
    lines = [f'Task: "{t}". Object: {o}.' for t, o in FEWSHOT]
    return "\n".join([*lines, f'Task: "{task}" ({need}). Object:'])


def signal(name: str, llm: Any, q: Any, names: list[str], phrase: str | None) -> dict[str, float]:
    """One stage-1 signal for every candidate object of a question."""
    human = [P.humanize_object(o) for o in names]
    need = P.need_phrase(q.utility, phrase)
    if name == "cloze":
        prompt = P.object_prompt(q.task, q.utility, names, phrase=phrase, mode="scored")
        return dict(zip(names, llm.score(prompt, human, neutral_prompt=P.neutral_prompt("object")), strict=True))
    if name == "fewshot_chat":
        # messages go straight to the model (the backend's cache keys on string prompts)
        neutral = P.neutral_prompt("object")
        return dict(zip(names, llm.model.score_options(_fewshot_messages(q.task, need), human,
                                                         neutral_prompt=neutral), strict=True))
    if name == "fewshot_text":
        return dict(zip(names, llm.score(_fewshot_text(q.task, need), human,
                                         neutral_prompt=_fewshot_text("something", "an object")), strict=True))
    if name == "minilm":
        from planner.llm.embedding import default_encoder

        sims = default_encoder().similarities(f"{q.task}: {need}", [f"a {h}" for h in human])
        return dict(zip(names, sims, strict=True))
    out: dict[str, float] = {}
    for o, h in zip(names, human, strict=True):
        if name == "channel_task":
            (out[o],) = llm.score(f"With {_a(h)}, a household robot can do this task:", [q.task],
                                  neutral_prompt="A household robot can do this task:")
        elif name == "channel_need":
            (out[o],) = llm.score(P.object_utility_prompt(o), [need], neutral_prompt=P.neutral_prompt("utility"))
        elif name == "yesno":
            yes, no = llm.score(P.object_yesno_prompt(q.task, q.utility, o, phrase=phrase), ["Yes", "No"],
                                neutral_prompt=P.neutral_prompt("yesno"))
            out[o] = yes - no
        else:
            raise ValueError(f"unknown signal {name!r}")
    return out


def reference_sd(llm: Any, kb: Any, q: Any, phrase: str | None) -> dict[str, float]:
    """SD of each signal over COAT's 100 object types for this question (the ``reference`` scale)."""
    vocab = sorted({o for u in kb.utilities for o in kb.utility_objects(u)})
    need = P.need_phrase(q.utility, phrase)
    util = [llm.score(P.object_utility_prompt(o), [need], neutral_prompt=P.neutral_prompt("utility"))[0]
            for o in vocab]
    from planner.llm.embedding import default_encoder

    emb = default_encoder().similarities(f"{q.task}: {need}", [f"a {P.humanize_object(o)}" for o in vocab])
    return {"channel_need": statistics.pstdev(util), "minilm": statistics.pstdev(emb)}


def collect(llm_spec: str, n: int, seed: int, set_name: str, signals: list[str],
            old: dict[str, Any] | None = None) -> dict[str, Any]:
    kb = load_knowledge()
    llm = make_llm(llm_spec, cache=True)
    qs = sample_questions(load_set(kb, set_name, seed=0), n, seed=seed)
    prev = {r["id"]: r for r in (old or {}).get("rows", [])}
    rows = []
    for q in tqdm(qs, desc=f"{llm.model_id} {set_name}"):
        phrase = kb.templates.utility_phrases.get(q.utility)
        names = list(dict.fromkeys(o.object for o in q.options))
        row = prev.get(q.id)
        if row is None:
            s_prompt = P.decision_prompt("single", q.task, q.utility, [], [], phrase=phrase, mode="scored")
            opt = llm.score(s_prompt, [P.describe_state(o.object, o.state) for o in q.options],
                            neutral_prompt=P.neutral_prompt("option"))
            row = {
                "id": q.id, "variation": q.variation, "task": q.task, "utility": q.utility,
                "answer": [o.letter for o in q.options].index(q.answer),
                "objects": [o.object for o in q.options],
                "context": sorted(set(kb.context_objects(q.utility, q.task)) & set(names)),
                "option_scores": opt,
                "signals": {"single": {o: max(s for oo, s in zip(q.options, opt, strict=True) if oo.object == o)
                                       for o in names}},
            }
        for name in signals:
            if name == "reference":
                if "ref_sd" not in row:
                    row["ref_sd"] = reference_sd(llm, kb, q, phrase)
            elif name not in row["signals"]:
                row["signals"][name] = signal(name, llm, q, names, phrase)
        rows.append(row)
    return {"llm": llm.model_id, "set": set_name, "n": n, "sample_seed": seed, "rows": rows}


def _z(d: dict[str, float]) -> dict[str, float]:
    vals = list(d.values())
    mu = statistics.mean(vals)
    sd = statistics.pstdev(vals) or 1.0
    return {k: (v - mu) / sd for k, v in d.items()}


def pooled_scales(rows: list[dict[str, Any]], names: Sequence[str]) -> dict[str, float]:
    """Each signal's pooled within-question SD (the fixed scale of the ``scaled`` combination)."""
    out = {}
    for name in names:
        var = [statistics.pvariance(list(r["signals"][name].values())) for r in rows if len(r["signals"][name]) > 1]
        out[name] = statistics.mean(var) ** 0.5
    return out


def combined(row: dict[str, Any], weights: dict[str, float],
             scales: dict[str, float] | str | None = None) -> dict[str, float]:
    """Sum of the signals, each z-scored within the question, or divided by a fixed scale when given."""
    out: dict[str, float] = {}
    for name, w in weights.items():
        sig = row["signals"][name]
        if scales == "reference":
            vals = {o: v / row["ref_sd"][name] for o, v in sig.items()}
        else:
            vals = _z(sig) if scales is None else {o: v / scales[name] for o, v in sig.items()}
        for o, v in vals.items():
            out[o] = out.get(o, 0.0) + w * v
    return out


def two_stage(row: dict[str, Any], kept: set[str]) -> int:
    """Index of the option stage 2 picks among the kept objects' options (all options if none kept)."""
    idx = [i for i, o in enumerate(row["objects"]) if o in kept] or list(range(len(row["objects"])))
    return max(idx, key=lambda i: (row["option_scores"][i], -i))


def evaluate(rows: list[dict[str, Any]], keep: Any) -> dict[str, float]:
    acc = rec = kept_n = 0.0
    for r in rows:
        kept = keep(r)
        pick = two_stage(r, kept)
        acc += pick == r["answer"]
        rec += r["objects"][r["answer"]] in kept
        kept_n += len(kept)
    n = len(rows)
    return {"acc": 100 * acc / n, "recall": 100 * rec / n, "kept": kept_n / n}


def margin_rule(weights: dict[str, float], m: float, scales: dict[str, float] | str | None = None) -> Any:
    def keep(r: dict[str, Any]) -> set[str]:
        if len(r["signals"]["single"]) == 1:
            return set(r["signals"]["single"])
        c = combined(r, weights, scales)
        best = max(c.values())
        return {o for o, v in c.items() if v >= best - m}
    return keep


def analyse(path: str) -> None:
    data = json.loads(open(path).read())
    rows = data["rows"]
    n = len(rows)
    signals = [s for s in SIGNALS if all(s in r["signals"] for r in rows)]
    single = sum(max(range(len(r["objects"])), key=lambda i: (r["option_scores"][i], -i)) == r["answer"]
                 for r in rows)
    oracle = evaluate(rows, lambda r: set(r["context"]))
    print(f"{data['llm']} {data['set']} n={n} sample seed {data['sample_seed']}: single {100 * single / n:.1f} %, "
          f"two-stage with COAT's context objects {oracle['acc']:.1f} %")
    for s in signals:
        top = statistics.mean(max(r["signals"][s], key=r["signals"][s].get) in r["context"] for r in rows)
        print(f"  {s:13s} top-1 is a context object {100 * top:.1f} %")
    print("| signals (z-scored, summed) | margin | acc % | recall % | kept |")
    print("|---|---|---|---|---|")
    combos = [c for k in (1, 2, 3) for c in itertools.combinations(signals, k)]
    results = []
    for c in combos:
        for m in (0.0, 0.5, 1.0, 1.5, 2.0):
            res = evaluate(rows, margin_rule(dict.fromkeys(c, 1.0), m))
            results.append((res["acc"], c, m, res))
    for acc, c, m, res in sorted(results, key=lambda t: -t[0])[:25]:
        print(f"| {'+'.join(c)} | {m:g} | {acc:.1f} | {res['recall']:.1f} | {res['kept']:.2f} |")


def table(tune: list[str], test: list[str], top: int, scaled: str = "z") -> None:
    """Rank keep rules on the tuning samples; show the same rules on the held-out samples."""
    def load(paths: list[str]) -> list[dict[str, Any]]:
        return [r for p in paths for r in json.loads(open(p).read())["rows"]]

    tune_rows, test_rows = load(tune), load(test)
    signals = [s for s in SIGNALS if all(s in r["signals"] for r in tune_rows + test_rows)]

    def single_acc(rows: list[dict[str, Any]]) -> float:
        return 100 * statistics.mean(
            max(range(len(r["objects"])), key=lambda i: (r["option_scores"][i], -i)) == r["answer"] for r in rows)

    print(f"single: tune {single_acc(tune_rows):.1f} % (n={len(tune_rows)}), test {single_acc(test_rows):.1f} % "
          f"(n={len(test_rows)})")
    if "cloze" in signals:
        old = [evaluate(rows, lambda r: _raw_margin(r, "cloze", 2.0)) for rows in (tune_rows, test_rows)]
        print(f"cloze margin 2 nats (the previous default): tune {old[0]['acc']:.1f} / recall {old[0]['recall']:.1f}, "
              f"test {old[1]['acc']:.1f} / recall {old[1]['recall']:.1f}")
    print("| signals | margin (z) | tune acc % | tune recall % | test acc % | test recall % | test kept |")
    print("|---|---|---|---|---|---|---|")
    res = []
    for c in (c for k in (1, 2, 3, 4) for c in itertools.combinations(signals, k)):
        if "single" in c:
            continue  # stage 1 must not look at the states
        if scaled == "reference" and not set(c) <= {"channel_need", "minilm"}:
            continue
        scales = pooled_scales(tune_rows, c) if scaled == "pooled" else ("reference" if scaled == "reference" else None)
        for m in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
            rule = margin_rule(dict.fromkeys(c, 1.0), m, scales)
            res.append((evaluate(tune_rows, rule), c, m, rule))
    for a, c, m, rule in sorted(res, key=lambda t: -t[0]["acc"])[:top]:
        b = evaluate(test_rows, rule)
        print(f"| {'+'.join(c)} | {m:g} | {a['acc']:.1f} | {a['recall']:.1f} | {b['acc']:.1f} | {b['recall']:.1f} | "
              f"{b['kept']:.2f} |")


def prior(paths: list[str], signals: list[str], weights: list[float]) -> None:
    """The soft alternative to filtering: the single prompt's option scores plus w x the summed z-scores of the
    same stage-1 signals (w = 0 is the single prompt). Shows how much of the two-stage gain is the extra
    signal rather than the hard filter."""
    print(f"single prompt + w x z({'+'.join(signals)}) of the option's object, accuracy %")
    print("| sample | n | " + " | ".join(f"w={w:g}" for w in weights) + " |")
    print("|---|---|" + "---|" * len(weights))
    for p in paths:
        data = json.loads(open(p).read())
        rows = data["rows"]
        cells = []
        for w in weights:
            acc = 0
            for r in rows:
                c = combined(r, dict.fromkeys(signals, 1.0))
                sc = [s + w * c[o] for s, o in zip(r["option_scores"], r["objects"], strict=True)]
                acc += max(range(len(sc)), key=lambda i: (sc[i], -i)) == r["answer"]
            cells.append(f"{100 * acc / len(rows):.1f}")
        print(f"| {data['llm']} seed {data['sample_seed']} | {len(rows)} | " + " | ".join(cells) + " |")


def _raw_margin(r: dict[str, Any], name: str, m: float) -> set[str]:
    sc = r["signals"][name]
    best = max(sc.values())
    return {o for o, v in sc.items() if v >= best - m}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--llm", default="local")
    c.add_argument("--set", default="full_moderate")
    c.add_argument("--n", type=int, default=200)
    c.add_argument("--seed", type=int, default=5)
    c.add_argument("--out", required=True, help="written; signals already in it are kept")
    c.add_argument("--signals", nargs="+", default=["cloze", "channel_task", "channel_need", "yesno"])
    a = sub.add_parser("analyse")
    a.add_argument("path")
    t = sub.add_parser("table")
    t.add_argument("--tune", nargs="+", required=True)
    t.add_argument("--test", nargs="+", required=True)
    t.add_argument("--top", type=int, default=20)
    t.add_argument("--scale", choices=("z", "pooled", "reference"), default="z",
                   help="z: z-score each signal within the question; pooled: divide by its pooled within-question SD "
                        "on the tuning rows; reference: divide by its SD over COAT's 100 object types for the "
                        "question (collect with --signals reference)")
    pr = sub.add_parser("prior")
    pr.add_argument("paths", nargs="+")
    pr.add_argument("--signals", nargs="+", default=["channel_need", "minilm"])
    pr.add_argument("--weights", nargs="+", type=float, default=[0, 0.5, 1, 2, 4])
    args = ap.parse_args()
    if args.cmd == "collect":
        old = json.loads(open(args.out).read()) if os.path.exists(args.out) else None
        data = collect(args.llm, args.n, args.seed, args.set, args.signals, old)
        with open(args.out, "w") as f:
            json.dump(data, f)
    elif args.cmd == "prior":
        prior(args.paths, args.signals, args.weights)
    elif args.cmd == "table":
        table(args.tune, args.test, args.top, args.scale)
    else:
        analyse(args.path)


if __name__ == "__main__":
    main()
