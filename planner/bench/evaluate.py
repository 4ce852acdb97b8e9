"""Evaluate a decision pipeline on COAT question sets: sampling, JSONL rows, resume, summary tables.

Used by ``coat eval`` and ``coat ablate`` (:mod:`planner.cli.eval`), and usable on its own::

    qs = sample_questions(load_set(kb, "task2", seed=0), limit=300, seed=0)
    rows = run_eval(qs, make_pipeline("two-stage", "llm", llm, kb), out="runs/t2.jsonl", run=run_info)
    print(format_summary(summarize(rows)))

One JSONL row per question: question id, set, variation, option count, the chosen letter (or null when
the answer was unparsed), correct, bad (the chosen option comes from the bad pool), unparsed, the model
id, the prompt hash, the seed, model calls, tokens and latency. A run whose output file already has rows
resumes: questions already answered are skipped; the run's settings and the question set must be the ones
recorded beside the file (``<out>.run.json``, :mod:`planner.results`).

Metrics: accuracy; Bad Rate (share of answers whose option has ``pool == "bad"``, COAT's definition; a
stricter ``bad_strict`` also counts unpooled context configurations the cost model calls bad); unparsed
rate. Chance beside every number: the mean of 1/n for accuracy, the mean share of bad options for the
bad rate.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
import math
import os
import random
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..prompting import templates_hash
from ..results import ResultsFile, RunIdentity, read_results
from ..schemas import Decision, Option, Question

if TYPE_CHECKING:
    from ..pipeline import DecisionPipeline
    from .scale import Lost, RayPool

log = logging.getLogger(__name__)

RUN_KEYS: tuple[str, ...] = ("set", "pipeline", "strategy", "llm", "seed", "stage1", "learned")
"""Row fields that identify a run; resuming into a file with other values is refused."""

PAPER_TASK_U: dict[str, dict[int, float]] = {
    "PaLM": {2: 98.6, 3: 96.8, 4: 96.2, 5: 92.7},
    "GPT-3.5-Turbo": {2: 97.3, 3: 96.2, 4: 94.9, 5: 92.1},
}
"""COAT paper, Table 3: Task-u accuracy (%) by option count."""


# ---------------------------------------------------------------- questions


def load_set(
    kb: Any,
    set_name: str,
    *,
    seed: int = 0,
    variation: int | None = None,
    questions: str | os.PathLike[str] | None = None,
    lazy: bool = False,
) -> dict[int, Sequence[Question]]:
    """The questions of one set, by variation: read from ``questions`` (a ``coat datasets build`` output)
    or generated in memory from ``kb`` with ``seed`` (the same questions the build writes).

    With ``lazy`` a generated set is built on demand (:mod:`planner.bench.generated`): a sample of it builds only
    the combinations it draws from. :func:`set_fingerprint` identifies either kind.

    Raises:
        UnknownIdError: unknown set or variation.
        DataNotFoundError: ``questions`` lacks the set's files.
    """
    from . import datasets

    if questions is None and lazy:
        from .generated import generated_set

        return dict(generated_set(kb, set_name, seed, variation=variation))
    if questions is not None:
        qs = datasets.load_questions(questions, set=set_name, variation=variation)
    else:
        only = {set_name: [variation]} if variation is not None else None
        qs = [q for _, group in datasets.iter_sets(kb, seed, [set_name], only=only) for q in group]
    out: dict[int, list[Question]] = defaultdict(list)
    for q in qs:
        out[q.variation].append(q)
    return dict(sorted(out.items()))


def set_fingerprint(kb: Any, by_variation: Mapping[int, Sequence[Question]]) -> str:
    """The fingerprint of the set a sample is drawn from (what :func:`run_eval`'s ``question_set`` records): of a
    set generated on demand, what decides its questions (:func:`planner.bench.generated.generated_fingerprint`);
    of questions in memory or read from files, their content (:func:`question_set_fingerprint`)."""
    from .generated import GeneratedVariation, generated_fingerprint

    groups = dict(by_variation)
    if groups and all(isinstance(g, GeneratedVariation) for g in groups.values()):
        return generated_fingerprint(kb, groups)  # type: ignore[arg-type]
    return question_set_fingerprint(q for qs in groups.values() for q in qs)


def sample_questions(
    by_variation: Mapping[int, Sequence[Question]], limit: int | None, seed: int = 0
) -> list[Question]:
    """Pick ``limit`` questions deterministically, stratified over variations.

    Each variation gets ``limit // V`` questions (the remainder goes to the first variations; a variation
    with too few questions gives its unused share to the others), drawn with ``random.Random`` seeded by
    ``(seed, set, variation)``. The result interleaves variations round-robin, so a run stopped early is
    still stratified.

    Args:
        by_variation: ``{variation: questions}`` (e.g. from :func:`load_set`).
        limit: Number of questions; None or 0 for all.
        seed: Sampling seed.

    Raises:
        ConfigError: negative limit.
    """
    if limit is not None and limit < 0:
        raise ConfigError(f"--limit must be >= 0, got {limit}")
    groups = {v: qs for v, qs in sorted(by_variation.items()) if len(qs)}  # not copied: may be built on demand
    total = sum(len(g) for g in groups.values())
    want = total if not limit else min(limit, total)
    quota = dict.fromkeys(groups, 0)
    left = want
    while left > 0:
        open_ = [v for v in groups if quota[v] < len(groups[v])]
        share, extra = divmod(left, len(open_))
        for i, v in enumerate(open_):
            quota[v] += min(share + (1 if i < extra else 0), len(groups[v]) - quota[v])
        left = want - sum(quota.values())
    picked: dict[int, list[Question]] = {}
    for v, qs in groups.items():
        set_name = qs[0].set
        rng = random.Random(f"{seed}:{set_name}:{v}")
        idx = sorted(rng.sample(range(len(qs)), quota[v]))
        order = rng.sample(idx, len(idx))  # random order within the variation, still deterministic
        picked[v] = [qs[i] for i in order]
    out: list[Question] = []
    for k in range(max((len(p) for p in picked.values()), default=0)):
        out += [p[k] for p in picked.values() if k < len(p)]
    return out


# ---------------------------------------------------------------- rows


def _is_bad_strict(o: Option) -> bool:
    if o.pool == "bad":
        return True
    return o.pool == "context" and ((o.time_penalty or 0) >= 500 or o.material_penalty == 500)


def question_row(question: Question, decision: Decision, run: Mapping[str, Any]) -> dict[str, Any]:
    """The JSONL row of one answered question."""
    chosen = question.option(decision.chosen) if decision.chosen is not None else None
    s1 = decision.stage1
    return {
        "question_id": question.id,
        "set": question.set,
        "variation": question.variation,
        "n_options": len(question.options),
        "answer": question.answer,
        "chosen": decision.chosen,
        "correct": decision.chosen == question.answer,
        "bad": bool(chosen is not None and chosen.pool == "bad"),
        "bad_strict": bool(chosen is not None and _is_bad_strict(chosen)),
        "unparsed": decision.unparsed,
        "n_bad_options": sum(o.pool == "bad" for o in question.options),
        "chosen_pool": chosen.pool if chosen is not None else None,
        "ranking": list(decision.ranking),
        "stage1_kept": list(s1.kept) if s1 is not None else None,
        "stage1_unparsed": bool(s1 is not None and s1.unparsed),
        "stage1_kept_answer": (question.option(question.answer).object in s1.kept) if s1 is not None else None,
        "fallback": decision.fallback,
        "method": decision.stage2.method if decision.stage2 is not None else None,
        "model_id": decision.model_id,
        "prompt_hash": decision.prompt_hash,
        "templates_hash": templates_hash(),
        "calls": decision.calls,
        "cache_hits": decision.cache_hits,
        "prompt_tokens": decision.prompt_tokens,
        "completion_tokens": decision.completion_tokens,
        "latency": round(decision.seconds, 4),
        **{k: run.get(k) for k in RUN_KEYS if k != "set"},
    }


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Rows of a JSONL results file ([] when it does not exist); a torn last line is ignored.

    Raises:
        DataError: a line other than the last is not valid JSON, or a line is not UTF-8 or not a JSON object
            (``[]``, ``null``), naming the file and the line.
        ConfigError: ``path`` is a device or FIFO (``/dev/zero`` would be read forever), or too large.
    """
    return read_results(path, what="result row")


def question_set_fingerprint(questions: Iterable[Question]) -> str:
    """A fingerprint of a question set (every question's content, in id order): a set rebuilt with another seed,
    or from other data, has another one."""
    h = hashlib.sha256()
    for q in sorted(questions, key=lambda q: q.id):
        h.update(q.model_dump_json().encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def run_identity(run: Mapping[str, Any], question_set: str | None) -> RunIdentity:
    """The identity of an evaluation's rows: its settings (:data:`RUN_KEYS`) and the question set's fingerprint."""
    return RunIdentity({"results": "question rows", **{k: run.get(k) for k in RUN_KEYS}}, question_set,
                       of="question set")


def _decisions(questions: Sequence[Question], pipeline: DecisionPipeline, concurrency: int) -> Iterator[Decision]:
    """``pipeline.decide`` of every question, in order; up to ``concurrency`` decisions run at once."""
    if concurrency == 1:
        for q in questions:
            yield pipeline.decide(q)
        return
    ex = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="coat-eval")

    def submit(q: Question) -> Any:  # in the run's context: its data directory (planner.paths.use_data_dir)
        return ex.submit(contextvars.copy_context().run, pipeline.decide, q)

    try:
        todo = iter(questions)
        # a bounded window: a failure (an unreachable server) stops the run with few answers in flight
        pending = deque(submit(q) for q in islice(todo, 2 * concurrency))
        while pending:
            decision = pending.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                pending.append(submit(nxt))
            yield decision
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _in_process(questions: Sequence[Question], pipeline: DecisionPipeline,
                concurrency: int) -> Iterator[tuple[Question, Decision]]:
    """``(question, decision)`` in question order, decided in this process (:func:`_decisions`)."""
    decisions = _decisions(questions, pipeline, concurrency)
    try:
        yield from zip(questions, decisions, strict=False)
    finally:
        decisions.close()


def _remote_decisions(questions: Sequence[Question], pipeline: DecisionPipeline, pool: RayPool,
                      make_decider: Callable[[], Callable[[Question], Decision]],
                      lost: list[Lost]) -> Iterator[tuple[Question, Decision]]:
    """``(question, decision)`` as the Ray actors complete them; questions whose actors died go to ``lost``.

    When stage 1 scales its signals by their reference spread (a scoring model), the questions of one utility go
    to one actor in their order: the spread is computed (and its model calls counted) once per utility and
    process, by the utility's first question, so every row (``calls`` included) is the serial run's. Otherwise
    each question goes to the next free actor.
    """
    from .scale import Done

    selectors = (getattr(pipeline, "objects", None), getattr(pipeline, "prior", None))
    memoized = any(getattr(s, "calibrates_by_reference", False) for s in selectors)
    by_utility = [q.utility for q in questions] if memoized else None
    for out in pool.map(make_decider, questions, groups=by_utility):
        if isinstance(out, Done):
            yield questions[out.index], out.value
        else:
            lost.append(out)


def _check_concurrency(concurrency: int, pipeline: DecisionPipeline) -> None:
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"--concurrency must be an integer >= 1, got {concurrency!r}")
    llm = getattr(pipeline, "llm", None)
    if concurrency > 1 and llm is not None and not getattr(llm, "concurrent", False):
        raise ConfigError(
            f"--concurrency {concurrency} needs a model behind a server (openai:<model>, ollama:<model>, "
            "served:<url>); "
            f"{getattr(llm, 'model_id', llm)!r} answers in this process one call at a time: use --concurrency 1"
        )


def run_eval(
    questions: Sequence[Question],
    pipeline: DecisionPipeline,
    *,
    run: Mapping[str, Any],
    out: str | os.PathLike[str] | ResultsFile | None = None,
    progress: bool = True,
    concurrency: int = 1,
    question_set: str | None = None,
    pool: RayPool | None = None,
    make_decider: Callable[[], Callable[[Question], Decision]] | None = None,
) -> list[dict[str, Any]]:
    """Answer every question and return one row per question (resuming from ``out``).

    Args:
        questions: The sample to answer (e.g. from :func:`sample_questions`).
        pipeline: A :class:`~planner.two_stage.TwoStagePipeline` or
            :class:`~planner.baseline.SinglePromptBaseline`.
        run: Run settings written into every row: ``set``, ``pipeline``, ``strategy``, ``llm``, ``seed``,
            ``stage1`` (the two-stage pipeline's stage-1 rule, see ``ObjectSelector.rule``; None for single).
        out: JSONL file to append rows to, through :class:`planner.results.ResultsFile`: rows already there
            (of the same settings and question set) are reused, not recomputed; the file is locked for the run,
            so a second run on it is refused. A :class:`~planner.results.ResultsFile` its caller has locked
            (and will close) is opened with this run's identity.
        progress: Show a tqdm progress bar.
        concurrency: Questions decided at once (threads), for models behind a server. Rows are written
            in question order, so the file is the sequential run's (a stopped run resumes the same way);
            only latency differs, and calls/cache hits when two questions in flight send the same prompt.
        question_set: The fingerprint of the set the sample was drawn from (:func:`question_set_fingerprint`),
            recorded beside ``out`` and checked on resume, so rows of a rebuilt set are never reused (``coat eval``
            and ``coat ablate`` always pass it). None records none: only the settings are checked, and a larger
            sample of the same set may resume a smaller one.
        pool: Decide on these Ray actors (:class:`~planner.bench.scale.RayPool`) instead of in this process; rows
            are written here as the actors complete them (in completion order; a resumed run skips by question
            id), the same rows as a run in this process but for latency. With stage 1 scaled by reference spreads
            (a scoring model), a utility's questions go to one actor (its first question pays for the spread, as
            in this process).
        make_decider: With ``pool``: a picklable ``() -> pipeline.decide`` that builds the same pipeline in an
            actor (:func:`planner.cli.eval.remote_decider`).

    Returns:
        The rows of ``questions``, in their order.

    Raises:
        ConfigError: ``out`` holds rows of a run with other settings or another question set, is being written
            by another run, or ``concurrency`` is not allowed for this model (or above 1 with ``pool``).
        WorkerLostError: Ray actors died on some questions (each tried twice); every other row is written.
    """
    _check_concurrency(concurrency, pipeline)
    if pool is not None and (make_decider is None or concurrency != 1):
        raise ConfigError("run_eval with a Ray pool needs make_decider and concurrency 1, got "
                          f"{'no make_decider' if make_decider is None else f'concurrency {concurrency}'}")
    f = None
    if out is not None:
        ident = run_identity(run, question_set)
        f = out if isinstance(out, ResultsFile) else ResultsFile(out, what="result row")
        f.open(ident)
    done = {r.get("question_id"): r for r in f.rows} if f is not None else {}
    todo = [q for q in questions if q.id not in done]
    if done and f is not None:
        log.info("resuming: %d of %d questions already answered in %s", len(questions) - len(todo), len(questions),
                 f.path)
    bar = None
    if progress and todo:
        from ..progress import progress as progress_bar

        bar = progress_bar(total=len(questions), initial=len(questions) - len(todo), unit="q",
                           desc=str(run.get("set", "")))
    lost: list[Lost] = []
    pairs = (_in_process(todo, pipeline, concurrency) if pool is None or make_decider is None
             else _remote_decisions(todo, pipeline, pool, make_decider, lost))
    try:
        for q, decision in pairs:
            row = question_row(q, decision, {**run, "set": q.set})
            done[q.id] = row
            if f is not None:
                f.append(row)
            if bar is not None:
                bar.update(1)
    finally:
        pairs.close()  # stops the worker threads (or the busy actors) of a run that failed
        if f is not None and f is not out:
            f.close()  # releases the lock
        if bar is not None:
            bar.close()
    if lost:
        from .scale import lost_error

        raise lost_error(lost, lambda i: todo[i].id, "questions", "run again with the same --out")
    return [done[q.id] for q in questions]


# ---------------------------------------------------------------- summary


def _pct(x: float) -> float:
    return round(100.0 * x, 1)


def _quantile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def _group_stats(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    if n == 0:
        return {"n": 0}
    has_bad = any(r.get("n_bad_options") for r in rows)
    s1 = [r for r in rows if r.get("stage1_kept") is not None]
    timed = [r["latency"] for r in rows if r.get("calls", 0) > 0] or [r["latency"] for r in rows]
    return {
        "n": n,
        "accuracy": _pct(sum(bool(r["correct"]) for r in rows) / n),
        "chance": _pct(sum(1.0 / r["n_options"] for r in rows) / n),
        "bad_rate": _pct(sum(bool(r["bad"]) for r in rows) / n) if has_bad else None,
        "bad_chance": _pct(sum(r.get("n_bad_options", 0) / r["n_options"] for r in rows) / n) if has_bad else None,
        "unparsed_rate": _pct(sum(bool(r["unparsed"]) for r in rows) / n),
        # stage 1 unparsed: stage 2 then saw every option, so the final answer may still parse
        "stage1_unparsed_rate": _pct(sum(bool(r.get("stage1_unparsed")) for r in s1) / len(s1)) if s1 else None,
        "fallback_rate": _pct(sum(bool(r.get("fallback")) for r in rows) / n),
        "calls_per_q": round(sum(r.get("calls", 0) for r in rows) / n, 2),
        "cache_hits_per_q": round(sum(r.get("cache_hits", 0) for r in rows) / n, 2),
        "tokens_per_q": round(sum(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in rows) / n, 1),
        "latency_p50": round(_quantile(timed, 0.5), 3),
        "latency_p95": round(_quantile(timed, 0.95), 3),
        "latency_n": len(timed),
    }


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Overall, per-variation and per-option-count metrics of result rows (percentages, 1 decimal)."""
    by_var: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    by_n: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_var[int(r["variation"])].append(r)
        by_n[int(r["n_options"])].append(r)
    s1 = [r for r in rows if r.get("stage1_kept") is not None]
    overall = _group_stats(rows)
    if s1:
        overall["stage1_recall"] = _pct(sum(bool(r.get("stage1_kept_answer")) for r in s1) / len(s1))
        overall["stage1_kept_mean"] = round(sum(len(r["stage1_kept"]) for r in s1) / len(s1), 2)
    first = rows[0] if rows else {}
    return {
        "run": {k: first.get(k) for k in (*RUN_KEYS, "model_id")},
        "overall": overall,
        "by_variation": {v: _group_stats(g) for v, g in sorted(by_var.items())},
        "by_options": {n: _group_stats(g) for n, g in sorted(by_n.items())},
    }


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return str(x)


def markdown_table(header: Sequence[str], body: Iterable[Sequence[Any]]) -> str:
    """A GitHub-markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


_COLS = ("n", "acc %", "chance %", "bad %", "bad chance %", "unparsed %", "s1 unparsed %", "calls/q", "tokens/q",
         "p50 s", "p95 s")


def _row(label: Any, g: Mapping[str, Any]) -> list[Any]:
    keys = ("n", "accuracy", "chance", "bad_rate", "bad_chance", "unparsed_rate", "stage1_unparsed_rate",
            "calls_per_q", "tokens_per_q", "latency_p50", "latency_p95")
    return [label, *(g.get(k) for k in keys)]


def format_summary(summary: Mapping[str, Any], labels: Mapping[int, str] | None = None) -> str:
    """Render :func:`summarize` output as markdown tables (overall, per option count, per variation)."""
    run = summary["run"]
    o = summary["overall"]
    head = ", ".join(f"{k}={run.get(k)}" for k in (*RUN_KEYS, "model_id"))
    parts = [head, "", markdown_table(("", *_COLS), [_row("all", o)])]
    if "stage1_recall" in o:
        parts.append(
            f"\nstage 1 kept the correct option's object in {o['stage1_recall']} % of questions "
            f"(mean {o['stage1_kept_mean']} objects kept); stage 1's answer was unparsed in "
            f"{o['stage1_unparsed_rate']} %; stage 2 saw all options in {o['fallback_rate']} %"
        )
    parts += ["", markdown_table(("options", *_COLS), [_row(n, g) for n, g in summary["by_options"].items()])]
    var_rows = []
    for v, g in summary["by_variation"].items():
        var_rows.append(_row(f"{v}" + (f" ({labels[v]})" if labels and v in labels else ""), g))
    parts += ["", markdown_table(("variation", *_COLS), var_rows)]
    return "\n".join(parts)


__all__ = [
    "PAPER_TASK_U",
    "RUN_KEYS",
    "format_summary",
    "load_set",
    "markdown_table",
    "question_row",
    "question_set_fingerprint",
    "read_rows",
    "run_eval",
    "run_identity",
    "sample_questions",
    "set_fingerprint",
    "summarize",
]
