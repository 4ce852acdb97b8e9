"""Small probe of the embedded models: generated letters vs calibrated option scoring.

30 easy everyday object-choice questions (written for this probe, not from COAT), each with 3 or 4
options in a seeded random order. For each local model it measures:

* ``letters``: the model is shown lettered options and asked for the letter; the first A-D in the reply
  is its answer (no letter = wrong).
* ``score-raw``: sum of token log-probs of each option name after the question (no calibration).
* ``score-cal``: the same minus the log-prob under the neutral prompt (``score_options``), the default.
* ``score-cal-domain``: calibrated against "Which object would you use?" instead of "Answer:".
* ``score-cal+list``: calibrated, with the options also listed in the question.

Run:
    PYTHONPATH=. python benchmarks/probes/llm_probe.py --models smollm2 gemma-270m --threads 1
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import time

QUESTIONS: list[tuple[str, str, list[str]]] = [
    # (task, correct, distractors)
    ("cut a birthday cake into slices", "Knife", ["Pillow", "Sponge"]),
    ("write a note on paper", "Pen", ["Spoon", "Towel", "Apple"]),
    ("boil water for tea", "Kettle", ["Book", "Shoe"]),
    ("dry your hands after washing them", "Towel", ["Plate", "Hammer", "Candle"]),
    ("drive a nail into a wooden board", "Hammer", ["Apple", "Pillow"]),
    ("keep milk cold overnight", "Fridge", ["Oven", "Lamp", "Basket"]),
    ("sweep dust off the floor", "Broom", ["Fork", "Pillow"]),
    ("eat hot soup", "Spoon", ["Comb", "Brick", "Candle"]),
    ("sleep comfortably at night", "Bed", ["Stove", "Cup"]),
    ("clean your teeth", "Toothbrush", ["Fork", "Book", "Hammer"]),
    ("open a locked door", "Key", ["Banana", "Pillow"]),
    ("carry groceries home from the shop", "Bag", ["Plate", "Lamp", "Candle"]),
    ("tell what time it is", "Clock", ["Spoon", "Towel"]),
    ("take a photo of a friend", "Camera", ["Pot", "Shoe", "Broom"]),
    ("fry an egg", "Pan", ["Pillow", "Book"]),
    ("pour tea into and drink it", "Cup", ["Shoe", "Hammer", "Newspaper"]),
    ("protect your head while riding a bicycle", "Helmet", ["Scarf", "Plate"]),
    ("cut paper into shapes", "Scissors", ["Spoon", "Pillow", "Bowl"]),
    ("call a friend who lives far away", "Phone", ["Fork", "Brick"]),
    ("hold up your trousers", "Belt", ["Cup", "Lamp", "Spoon"]),
    ("stay dry while walking in the rain", "Umbrella", ["Toaster", "Fork"]),
    ("warm up leftovers quickly", "Microwave", ["Bookshelf", "Broom", "Pillow"]),
    ("dig a hole in the garden", "Shovel", ["Pillow", "Candle"]),
    ("read a story before bed", "Book", ["Hammer", "Sock", "Kettle"]),
    ("untangle long hair", "Comb", ["Brick", "Candle"]),
    ("sit at the dinner table", "Chair", ["Oven", "Towel", "Spoon"]),
    ("light up a dark room during a power cut", "Candle", ["Sponge", "Shoe"]),
    ("measure the length of a table", "Ruler", ["Cup", "Sock", "Pillow"]),
    ("cool down on a hot summer day", "Fan", ["Oven", "Blanket"]),
    ("wash the dirty dishes", "Sponge", ["Hammer", "Book", "Lamp"]),
]

LETTERS = "ABCD"
DOMAIN_NEUTRAL = "Which object would you use?"
"""Calibration prompt that keeps the question's form but drops the task (domain-conditional PMI)."""


def build(seed: int) -> list[tuple[str, list[str], int]]:
    """(task, shuffled options, index of the correct one) for every question."""
    rng = random.Random(seed)
    out = []
    for task, correct, distractors in QUESTIONS:
        opts = [correct, *distractors]
        rng.shuffle(opts)
        out.append((task, opts, opts.index(correct)))
    return out


def question(task: str) -> str:
    return f"Which object would you use to {task}?"


def listed(task: str, opts: list[str]) -> str:
    return f"{question(task)} The options are: {', '.join(opts)}."


def lettered(task: str, opts: list[str]) -> str:
    lines = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(opts))
    return f"{question(task)}\n{lines}\nAnswer with the letter of the best option only."


def first_letter(text: str, n: int) -> int | None:
    m = re.search(rf"\b([{LETTERS[:n]}])\b", text)
    return LETTERS.index(m.group(1)) if m else None


def run(name: str, seed: int, threads: int) -> dict[str, object]:
    from langchain_core.messages import HumanMessage

    from planner.llm.local import LlamaCppChatModel

    model = LlamaCppChatModel.from_name(name, n_ctx=512, n_threads=threads, max_tokens=8)
    items = build(seed)
    model.option_logprobs("warm up", ["a"])  # load once, outside the timings
    hits: dict[str, int] = {"letters": 0, "score-raw": 0, "score-cal": 0, "score-cal-domain": 0, "score-cal+list": 0}
    unparsed = 0
    t_gen: list[float] = []
    t_cal: list[float] = []
    c_cal: list[float] = []
    for task, opts, gold in items:
        t0 = time.perf_counter()
        reply = model.invoke([HumanMessage(lettered(task, opts))]).content
        t_gen.append(time.perf_counter() - t0)
        pick = first_letter(str(reply), len(opts))
        unparsed += pick is None
        hits["letters"] += pick == gold
        raw = model.option_logprobs(question(task), opts)
        hits["score-raw"] += raw.index(max(raw)) == gold
        t0, c0 = time.perf_counter(), time.process_time()
        cal = model.score_options(question(task), opts)
        t_cal.append(time.perf_counter() - t0)
        c_cal.append(time.process_time() - c0)
        hits["score-cal"] += cal.index(max(cal)) == gold
        dom = model.score_options(question(task), opts, neutral_prompt=DOMAIN_NEUTRAL)
        hits["score-cal-domain"] += dom.index(max(dom)) == gold
        cal_l = model.score_options(listed(task, opts), opts)
        hits["score-cal+list"] += cal_l.index(max(cal_l)) == gold
    n = len(items)
    chance = statistics.mean(1 / len(o) for _, o, _ in items)
    return {
        "model": name,
        "n": n,
        "chance": chance,
        **{k: v / n for k, v in hits.items()},
        "letters_unparsed": unparsed / n,
        "gen_p50_s": statistics.median(t_gen),
        "score_p50_s": statistics.median(t_cal),
        "score_max_s": max(t_cal),
        "score_cpu_p50_s": statistics.median(c_cal),
    }


def agreement(name: str, seed: int, threads: int) -> dict[str, object]:
    """Largest difference between KV-reusing scoring and two from-scratch references over the probe."""
    from planner.llm.local import LlamaCppChatModel

    model = LlamaCppChatModel.from_name(name, n_ctx=512, n_threads=threads)
    same_steps = one_batch = 0.0
    for task, opts, _ in build(seed):
        fast = model.option_logprobs(question(task), opts)
        for o, f in zip(opts, fast, strict=True):
            same_steps = max(same_steps, abs(f - model.naive_logprob(question(task), o)))
            one_batch = max(one_batch, abs(f - model.naive_logprob(question(task), o, one_batch=True)))
    return {"model": name, "max_abs_diff_same_steps": same_steps, "max_abs_diff_one_batch": one_batch}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["smollm2", "gemma-270m"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--agreement", action="store_true", help="compare scoring with from-scratch references")
    args = ap.parse_args()
    if args.agreement:
        for name in args.models:
            print(agreement(name, args.seed, args.threads))
        return
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), cores: {os.cpu_count()}")
    cols = [
        "model",
        "n",
        "chance",
        "letters",
        "letters_unparsed",
        "score-raw",
        "score-cal",
        "score-cal-domain",
        "score-cal+list",
        "gen_p50_s",
        "score_p50_s",
        "score_max_s",
        "score_cpu_p50_s",
    ]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for name in args.models:
        r = run(name, args.seed, args.threads)
        cells = [f"{r[c]:.2f}" if isinstance(r[c], float) else str(r[c]) for c in cols]
        print("| " + " | ".join(cells) + " |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
