"""Prompt probes behind the scored decision design (``benchmarks/decision.md``, "How the scored prompts were
chosen"). Small samples, so read differences of a few points as noise.

* ``stage1``: object scoring on Full-moderate questions (the distinct objects of each question's options).
  Variants: ``listed`` (the candidates listed in the prompt, then "Answer with the name of the most suitable
  object.", calibrated by that instruction), ``cloze`` (the shipped prompt: the task, then "Which object would
  you use?", candidates not listed), ``cloze-task-only`` (just 'Which object would you use for the task
  "<task>"?'), and the per-object ``yesno`` rule. Reports top-1 precision (the top object is a context
  object), and for each margin the recall (the correct option's object is kept) and objects kept.
* ``stage2``: single decision over Task-2 variation 1 (3 moderate + 2 bad options). Variants: ``listed``
  (options listed compactly in a prompt with the variable glossary, each option's text scored), ``cloze``
  (the shipped prompt and descriptions), ``cloze-no-mass``, ``cloze-domain-neutral`` (calibrated by
  "A household robot needs an object." + the cloze), ``question`` ("Which object should the robot use?
  Consider its material, temperature, whether it is free, and its condition.").

* ``margins``: single prompt vs two-stage at several stage-1 margins on one Full-moderate sample.
* ``paired``: two-stage vs single on the same questions of a ``coat ablate`` run: the questions only one of
  them answers correctly, and McNemar's exact p-value (``coat ablate`` now reports this itself, with intervals:
  ``summary.json``; :func:`planner.bench.stats.mcnemar_exact` is the one implementation).
* ``groups``: splits a ``coat ablate`` run's full-pipeline accuracy into variations whose distractors are all
  context objects and the rest (the paper: two-stage wins on F_moderate except when all options are context
  objects).

Run (about 20 minutes on 2 shared cores):
    COAT_LLM_THREADS=1 PYTHONPATH=. python benchmarks/probes/decision_probe.py --part stage1 stage2 --llm local
    PYTHONPATH=. python benchmarks/probes/decision_probe.py --part groups --runs runs/ablate-smollm2
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from planner import prompting as P
from planner.bench.evaluate import load_set, sample_questions
from planner.knowledge import load_knowledge
from planner.llm import make_llm
from planner.state_selector import StateSelector

LISTED_OBJECT_INSTRUCTION = "Answer with the name of the most suitable object."
LISTED_OPTION_INSTRUCTION = "Answer with the best option, written exactly as listed."


def _phrase(kb: Any, u: str) -> str | None:
    return kb.templates.utility_phrases.get(u)


def stage1(kb: Any, llm: Any, n: int) -> None:
    qs = sample_questions(load_set(kb, "full_moderate", seed=0), n, seed=7)
    variants = {
        "listed": lambda q, names: (
            P.context_block(q.task, q.utility, _phrase(kb, q.utility))
            + "\nCandidate objects: " + ", ".join(P.humanize_object(o) for o in names) + ".\n"
            + LISTED_OBJECT_INSTRUCTION,
            LISTED_OBJECT_INSTRUCTION,
        ),
        "cloze": lambda q, names: (
            P.object_prompt(q.task, q.utility, names, phrase=_phrase(kb, q.utility)), P.neutral_prompt("object")
        ),
        "cloze-task-only": lambda q, names: (
            f'Which object would you use for the task "{q.task}"?', P.neutral_prompt("object")
        ),
    }
    rows = []
    for q in qs:
        names = list(dict.fromkeys(o.object for o in q.options))
        if len(names) < 2:
            continue
        row: dict[str, Any] = {"answer": q.option(q.answer).object, "names": names,
                               "ctx": set(kb.context_objects(q.utility, q.task))}
        for k, fn in variants.items():
            prompt, neutral = fn(q, names)
            row[k] = dict(zip(names, llm.score(prompt, [P.humanize_object(o) for o in names], neutral_prompt=neutral),
                              strict=True))
        yn = {}
        for o in names:
            yes, no = llm.score(P.object_yesno_prompt(q.task, q.utility, o, phrase=_phrase(kb, q.utility)),
                                ["Yes", "No"], neutral_prompt=P.neutral_prompt("yesno"))
            yn[o] = yes - no
        row["yesno"] = yn
        rows.append(row)
    print(f"\n## stage 1: {len(rows)} Full-moderate questions, {statistics.mean(len(r['names']) for r in rows):.2f} "
          f"objects each; {100 * statistics.mean(len(r['ctx'] & set(r['names'])) / len(r['names']) for r in rows):.1f} "
          f"% of them context objects; chance of a random top-1 being the answer's object "
          f"{100 * statistics.mean(1 / len(r['names']) for r in rows):.1f} %")
    print("| variant | top-1 is a context object % | margin 0 recall % | margin 1 recall % / kept | "
          "margin 2 recall % / kept | margin 3 recall % / kept |")
    print("|---|---|---|---|---|---|")
    for k in (*variants, "yesno"):
        cells = []
        top_ctx = statistics.mean(max(r[k], key=r[k].get) in r["ctx"] for r in rows)
        for m in (0, 1, 2, 3):
            kept = [[o for o in r["names"] if r[k][o] >= max(r[k].values()) - m] for r in rows]
            rec = statistics.mean(r["answer"] in kk for r, kk in zip(rows, kept, strict=True))
            cells.append(f"{100 * rec:.1f}" + ("" if m == 0 else f" / {statistics.mean(len(kk) for kk in kept):.2f}"))
        print(f"| {k} | {100 * top_ctx:.1f} | " + " | ".join(cells) + " |")
    for th in (0.0, -1.0, -2.0):
        kept = [[o for o in r["names"] if r["yesno"][o] >= th] for r in rows]
        print(f"yesno absolute threshold {th}: recall "
              f"{100 * statistics.mean(r['answer'] in kk for r, kk in zip(rows, kept, strict=True)):.1f} %, kept "
              f"{statistics.mean(len(kk) for kk in kept):.2f}, nothing kept in "
              f"{100 * statistics.mean(not kk for kk in kept):.1f} %")


def stage2(kb: Any, llm: Any, n: int, variation: int | None = 1, only: list[str] | None = None,
           seed: int = 7) -> None:
    qs = sample_questions(load_set(kb, "task2", seed=0, variation=variation), n, seed=seed)
    sel = StateSelector("llm", llm, kb, template="single")

    def describe_no_mass(o: Any) -> str:
        full = P.describe_state(o.object, o.state)
        return full.replace(f"{P._MASS[o.state.mass.value]} ", "", 1)

    def listed(q: Any) -> list[float]:
        texts = [f"{P.humanize_object(o.object)} ({', '.join(getattr(o.state, v).value for v in ('mass', 'material', 'temperature', 'already_in_use', 'condition'))})" for o in q.options]  # noqa: E501
        prompt = (P.context_block(q.task, q.utility, _phrase(kb, q.utility)) + "\n" + P.render("variables")
                  + "\nOptions list the values in the order mass, material, temperature, already_in_use, condition."
                  + "\n\nOptions:\n" + P.options_block([o.letter for o in q.options], texts)
                  + "\n\nWhich option is best to use now?\n" + LISTED_OPTION_INSTRUCTION)
        return llm.score(prompt, texts, neutral_prompt=LISTED_OPTION_INSTRUCTION)

    def cloze(q: Any, describe: Any, neutral: str) -> list[float]:
        prompt = P.decision_prompt("single", q.task, q.utility, [], [], phrase=_phrase(kb, q.utility))
        return llm.score(prompt, [describe(o) for o in q.options], neutral_prompt=neutral)

    def question(q: Any) -> list[float]:
        ask = ("Which object should the robot use? Consider its material, temperature, whether it is free, "
               "and its condition.")
        prompt = P.context_block(q.task, q.utility, _phrase(kb, q.utility)) + "\n" + ask
        return llm.score(prompt, [P.describe_state(o.object, o.state) for o in q.options], neutral_prompt=ask)

    variants = {
        "listed": listed,
        "cloze": lambda q: list(sel(q.task, q.utility, q.options).scores),
        "cloze-no-mass": lambda q: cloze(q, describe_no_mass, P.neutral_prompt("option")),
        "cloze-domain-neutral": lambda q: cloze(
            q, lambda o: P.describe_state(o.object, o.state),
            "A household robot needs an object.\n" + P.neutral_prompt("option")),
        "question": question,
    }
    if only:
        variants = {k: v for k, v in variants.items() if k in only}
    chance = statistics.mean(1 / len(q.options) for q in qs)
    bad_chance = statistics.mean(sum(o.pool == "bad" for o in q.options) / len(q.options) for q in qs)
    which = f"variation {variation}" if variation else "all variations"
    print(f"\n## stage 2: single decision on {len(qs)} Task-2 questions ({which}, sample seed {seed}; chance "
          f"{100 * chance:.1f} % accuracy, {100 * bad_chance:.1f} % bad)")
    print("| variant | accuracy % | bad rate % | p50 s |")
    print("|---|---|---|---|")
    for k, fn in variants.items():
        ok = bad = 0
        lat = []
        for q in qs:
            t0 = time.perf_counter()
            sc = fn(q)
            lat.append(time.perf_counter() - t0)
            ch = q.options[max(range(len(sc)), key=lambda i: sc[i])]
            ok += ch.letter == q.answer
            bad += ch.pool == "bad"
        print(f"| {k} | {100 * ok / len(qs):.1f} | {100 * bad / len(qs):.1f} | {statistics.median(lat):.2f} |",
              flush=True)


def groups(kb: Any, runs: str) -> None:
    """Full-pipeline accuracy split as in the paper: all distractors context objects vs some concept/random."""
    from planner.bench.datasets import variations
    from planner.bench.evaluate import read_rows, summarize

    print(f"\n## full-pipeline sets by distractor kind ({runs})")
    print("| set | pipeline | all-context variations: n / acc % / chance % | with concept or random distractors: "
          "n / acc % / chance % |")
    print("|---|---|---|---|")
    for s in ("full_moderate", "full_ideal"):
        mix = {v.number: dict(v.mix) for v in variations(kb, s)}
        for p in ("single", "two-stage"):
            rows = read_rows(f"{runs}/{s}-{p}.jsonl")
            ctx = [r for r in rows if mix[r["variation"]]["concept"] == 0 and mix[r["variation"]]["random"] == 0]
            rest = [r for r in rows if not (mix[r["variation"]]["concept"] == 0 and mix[r["variation"]]["random"] == 0)]
            a, b = summarize(ctx)["overall"], summarize(rest)["overall"]
            print(f"| {s} | {p} | {a['n']} / {a['accuracy']} / {a['chance']} | {b['n']} / {b['accuracy']} / "
                  f"{b['chance']} |")
    print("\n| set | stage 1 kept the answer's object | questions | single correct | two-stage correct |")
    print("|---|---|---|---|---|")
    for s in ("full_moderate", "full_ideal", "task2", "task1"):
        try:
            one = {r["question_id"]: r for r in read_rows(f"{runs}/{s}-single.jsonl")}
            two = read_rows(f"{runs}/{s}-two-stage.jsonl")
        except OSError:
            continue
        for kept in (True, False):
            sel = [r for r in two if r["stage1_kept_answer"] is kept and r["question_id"] in one]
            n_one = sum(one[r["question_id"]]["correct"] for r in sel)
            print(f"| {s} | {'yes' if kept else 'no'} | {len(sel)} | {n_one} | {sum(r['correct'] for r in sel)} |")


def paired(runs: str) -> None:
    """Two-stage vs single on the same questions: who wins where they disagree, and McNemar's exact p."""
    from planner.bench.evaluate import read_rows
    from planner.bench.stats import mcnemar_exact

    print(f"\n## paired: two-stage vs single on the same questions ({runs})")
    print("| set | n | single acc % | two-stage acc % | only two-stage right | only single right | McNemar p |")
    print("|---|---|---|---|---|---|---|")
    for s in ("full_moderate", "full_ideal", "task2", "task1", "task0", "task_u"):
        try:
            one = {r["question_id"]: r for r in read_rows(f"{runs}/{s}-single.jsonl")}
            two = {r["question_id"]: r for r in read_rows(f"{runs}/{s}-two-stage.jsonl")}
        except OSError:
            continue
        ids = [q for q in one if q in two]
        if not ids:
            continue
        b = sum(two[q]["correct"] and not one[q]["correct"] for q in ids)
        c = sum(one[q]["correct"] and not two[q]["correct"] for q in ids)
        acc1 = 100 * sum(one[q]["correct"] for q in ids) / len(ids)
        acc2 = 100 * sum(two[q]["correct"] for q in ids) / len(ids)
        print(f"| {s} | {len(ids)} | {acc1:.1f} | {acc2:.1f} | {b} | {c} | {mcnemar_exact(b, c):.3f} |")


def margins(kb: Any, llm: Any, n: int, seed: int, values: list[float]) -> None:
    """Single prompt vs two-stage at several stage-1 margins on one Full-moderate sample."""
    from planner.bench.evaluate import run_eval, summarize
    from planner.pipeline import make_pipeline

    qs = sample_questions(load_set(kb, "full_moderate", seed=0), n, seed=seed)
    print(f"\n## stage-1 margin sweep: {len(qs)} Full-moderate questions, sample seed {seed}")
    print("| pipeline | accuracy % | chance % | bad % | stage-1 recall % | objects kept |")
    print("|---|---|---|---|---|---|")
    pipes = [("single", make_pipeline("single", "llm", llm, kb))]
    pipes += [(f"two-stage, margin {m:g}", make_pipeline("two-stage", "llm", llm, kb, keep_rule="margin", margin=m))
              for m in values]
    for name, pipe in pipes:
        run = {"set": "full_moderate", "pipeline": name, "strategy": "llm", "llm": llm.model_id, "seed": 0}
        o = summarize(run_eval(qs, pipe, run=run, progress=False))["overall"]
        print(f"| {name} | {o['accuracy']} | {o['chance']} | {o['bad_rate']} | {o.get('stage1_recall', '-')} | "
              f"{o.get('stage1_kept_mean', '-')} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", nargs="+", choices=("stage1", "stage2", "groups", "margins", "paired"),
                    default=["stage1", "stage2"])
    ap.add_argument("--margins", nargs="+", type=float, default=[2.0, 3.0, 4.0], help="for --part margins")
    ap.add_argument("--n3", type=int, default=150, help="questions for --part margins")
    ap.add_argument("--seed3", type=int, default=5, help="sample seed for --part margins")
    ap.add_argument("--runs", default=None, help="for --part groups: a `coat ablate --out` directory")
    ap.add_argument("--llm", default="local")
    ap.add_argument("--n1", type=int, default=80, help="stage-1 questions")
    ap.add_argument("--n2", type=int, default=40, help="stage-2 questions")
    ap.add_argument("--s2-variation", type=int, default=1, help="Task-2 variation for stage 2 (0 = all)")
    ap.add_argument("--s2-variants", nargs="*", default=None, help="only these stage-2 variants")
    ap.add_argument("--s2-seed", type=int, default=7, help="stage-2 sample seed")
    args = ap.parse_args()
    if "paired" in args.part:
        paired(args.runs)
    kb = load_knowledge()
    if "groups" in args.part:
        groups(kb, args.runs)
    if set(args.part) <= {"groups", "paired"}:
        return
    llm = make_llm(args.llm, cache=True)
    print(f"model {llm.model_id}")
    if "stage1" in args.part:
        stage1(kb, llm, args.n1)
    if "stage2" in args.part:
        stage2(kb, llm, args.n2, args.s2_variation or None, args.s2_variants, args.s2_seed)
    if "margins" in args.part:
        margins(kb, llm, args.n3, args.seed3, args.margins)


if __name__ == "__main__":
    main()
