"""``coat eval`` and ``coat ablate``: measure the decision pipelines on COAT question sets.

Examples::

    coat eval --set task2 --pipeline two-stage --strategy knowledge --limit 200
    coat eval --set full_moderate --pipeline single --strategy llm --llm local --limit 300 --out runs/fm-single.jsonl
    coat ablate --llm local --limit 300 --out runs/ablate-smollm2
    coat eval --set task0 --strategy learned --held-out --limit 300   # after `coat train --folds 5`

``coat ablate`` runs the single prompt and two-stage on the same questions of every set and reports, per set and
pooled, each one's accuracy with a 95 % bootstrap interval, the paired difference with its interval and McNemar's
exact p-value (:mod:`planner.bench.ablation`: ``report.md``, ``summary.json``, ``comparison.png`` in ``--out``).

Heavy dependencies (the model, scipy, matplotlib) are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from ..arguments import Range
from ..errors import ConfigError
from ..schemas import QUESTION_SETS
from . import COUNT_ARG, SEED_ARG, add_ray_args, check_out_path, check_ray, echo, number, ray_pool

log = logging.getLogger(__name__)

ABLATE_SETS: tuple[str, ...] = ("full_ideal", "full_moderate", "task1", "task2")
TIMEOUT = Range(0, 86_400, low_open=True)
"""Seconds one model request may take: more than 0, at most a day."""
CONCURRENCY = Range(1, 64, integer=True)
"""Questions decided at once."""


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strategy", choices=("llm", "knowledge", "hybrid", "learned"), default="llm",
                   help="decision strategy")
    p.add_argument("--model", default=None, metavar="DIR",
                   help="learned strategy: the `coat train --out` directory (default: the user cache)")
    p.add_argument("--held-out", action="store_true",
                   help="learned strategy: answer each question with the fold model for which it is held out "
                        "(needs `coat train --folds K`): by combinations, the fold that never saw its (utility, "
                        "task); by objects (`--split objects`), the fold that never saw its correct option's object")
    p.add_argument("--llm", default=None, metavar="SPEC",
                   help="model spec: local, local:gemma-270m, openai:<model>, ollama:<model>, "
                        "served:<base_url>[#<model>] (a server that also scores: planner.llm.served), fake "
                        "(default: local for llm/hybrid; none for knowledge)")
    p.add_argument("--limit", type=COUNT_ARG, default=300,
                   help="questions per set, stratified over variations (0 = all)")
    p.add_argument("--seed", type=SEED_ARG, default=0, help="question-set seed and sampling seed")
    p.add_argument("--questions", default=None, metavar="DIR",
                   help="read questions from a `coat datasets build` output instead of generating them")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the model-call cache")
    p.add_argument("--data-dir", default=None, help="COAT data root (default: $COAT_DATA_DIR or the user cache)")
    p.add_argument("--keep-rule", choices=("ensemble", "margin", "yesno"), default="ensemble",
                   help="stage 1 rule for scoring models (see planner.object_selector)")
    p.add_argument("--margin", type=number(Range(0)), default=None,
                   help="stage 1 margin: summed scaled signals for --keep-rule ensemble (default 2), nats for "
                        "margin (default 2)")
    p.add_argument("--scale", choices=("reference", "question"), default="reference",
                   help="how --keep-rule ensemble scales each signal: by its SD over COAT's object types "
                        "(reference) or z-scored over the question's candidates (question)")
    p.add_argument("--signals", nargs="+", choices=("utility", "embedding", "cloze", "yesno"), default=None,
                   help="stage 1 signals for --keep-rule ensemble (default: utility embedding)")
    p.add_argument("--stage1-strategy", choices=("llm", "knowledge", "hybrid", "learned"), default=None,
                   help="two-stage only: a different strategy for stage 1 (e.g. knowledge, to measure the model's "
                        "stage 2 behind a perfect stage 1)")
    p.add_argument("--object-prior", type=number(Range(0)), default=None, metavar="W",
                   help="add W x stage 1's ensemble score of each option's object to the single prompt's scores "
                        "(the same signals two-stage filters on; scoring models). eval: with --pipeline single; "
                        "ablate: adds a third pipeline, single+prior")
    p.add_argument("--timeout", type=number(TIMEOUT), default=60.0, metavar="SECONDS",
                   help="seconds one request to a model server may take (openai:, ollama:); a failing server is "
                        "retried twice with backoff, then the run stops with an error and resumes later")
    p.add_argument("--concurrency", type=number(CONCURRENCY), default=1, metavar="N",
                   help="questions decided at once, for models behind a server (openai:, ollama:, served:); rows are "
                        "written in question order, as a sequential run writes them")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_ray_args(p, "questions")
    p.add_argument("--blend", type=number(Range(0)), default=None, metavar="W",
                   help="learned strategy: add W x the --llm scoring model's task affinity to stage 1's logit "
                        "(planner.learned.blend; chosen per fold on inner folds: local:gemma-270m, template task, "
                        "W 1 on four folds of five, 0.5 on one)")
    p.add_argument("--blend-template", default="task", choices=("task", "utility"),
                   help="--blend: the affinity's prompt pair (planner.learned.blend.TEMPLATES)")
    p.add_argument("--blend-keep", type=number(Range()), default=None, metavar="T",
                   help="--blend: stage 1 keeps objects whose blended logit is >= T (default: the head's threshold)")


def register(subparsers: Any) -> None:
    """Add ``eval`` and ``ablate`` to the ``coat`` CLI."""
    p = subparsers.add_parser("eval", help="evaluate a decision pipeline on a COAT question set",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", required=True, choices=QUESTION_SETS, dest="set_name", help="question set")
    p.add_argument("--variation", type=COUNT_ARG, default=None, help="only this variation")
    p.add_argument("--pipeline", choices=("two-stage", "single"), default="two-stage")
    p.add_argument("--out", default=None, metavar="FILE.jsonl",
                   help="append one row per question, locked for the run; resumes a run of the same settings and "
                        "question set (recorded in FILE.jsonl.run.json), refuses any other")
    _common(p)
    p.set_defaults(func=_eval_handler)

    a = subparsers.add_parser("ablate", help="single prompt vs two-stage on several sets, with a markdown report",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--sets", nargs="+", choices=QUESTION_SETS, default=list(ABLATE_SETS))
    a.add_argument("--out", required=True, metavar="DIR",
                   help="directory for JSONL rows (locked, resumed like coat eval's), report.md, summary.json and "
                        "comparison.png")
    a.add_argument("--json", action="store_true",
                   help="print the summary (summary.json) as one JSON object on stdout; the table goes to stderr")
    _common(a)
    a.set_defaults(func=_ablate_handler)


def _setup(args: argparse.Namespace) -> tuple[Any, Any, dict[str, Any]]:
    from ..knowledge import load_knowledge

    kb = load_knowledge(args.data_dir)
    spec = args.llm if args.llm is not None else ("local" if args.strategy in ("llm", "hybrid") else None)
    llm = None
    if spec is not None:
        from ..llm import make_llm

        llm = make_llm(spec, cache=not args.no_cache, timeout=args.timeout)
    kw = {"keep_rule": args.keep_rule, "margin": args.margin, "signals": tuple(args.signals) if args.signals else None,
          "scale": args.scale,
          "stage1_strategy": args.stage1_strategy}
    learned = None
    uses_learned = "learned" in (args.strategy, args.stage1_strategy)
    if args.blend is None and args.blend_template != "task":
        raise ConfigError("--blend-template needs --blend W")
    if not uses_learned and (args.held_out or args.model or args.blend is not None):
        raise ConfigError("--model, --held-out and --blend apply to --strategy learned only")
    if args.blend is None and args.blend_keep is not None:
        raise ConfigError("--blend-keep needs --blend W")
    if args.blend is not None and llm is None:
        raise ConfigError("--blend needs --llm SPEC, a scoring model (local:gemma-270m, local)")
    if uses_learned:
        from ..learned import default_dir, load_learned

        learned = load_learned(kb, args.model or default_dir(), held_out=args.held_out)
        if args.blend is not None:
            from ..learned.blend import LLMBlend

            learned = LLMBlend(learned, llm, kb.templates.utility_phrases, weight=args.blend,
                               template=args.blend_template, keep_logit=args.blend_keep)
    kw["learned"] = learned
    return kb, llm, {"spec": spec, "kw": kw}


def _sample(args: argparse.Namespace, kb: Any, set_name: str, variation: int | None = None) -> tuple[list[Any], str]:
    """The questions to answer, and the fingerprint of the set they are drawn from."""
    from ..bench.evaluate import load_set, sample_questions, set_fingerprint

    # a generated set is built on demand: only the combinations the sample draws from
    groups = load_set(kb, set_name, seed=args.seed, variation=variation, questions=args.questions, lazy=True)
    return sample_questions(groups, args.limit, args.seed), set_fingerprint(kb, groups)


def _labels(kb: Any, set_name: str) -> dict[int, str]:
    from ..bench.datasets import variations

    return {v.number: v.label for v in variations(kb, set_name)}


def _pipeline(args: argparse.Namespace, kb: Any, llm: Any, info: dict[str, Any], pipeline: str) -> Any:
    """The decision pipeline of one ``--pipeline`` (``single+prior``: the single prompt with stage 1's prior)."""
    from ..pipeline import make_pipeline

    kw: dict[str, Any] = {"learned": info["kw"]["learned"]}
    if pipeline == "two-stage":
        kw = info["kw"]
    elif pipeline == "single+prior":
        kw = {k: v for k, v in info["kw"].items() if k in ("signals", "scale", "learned")}
        kw["object_prior"] = 1.0 if args.object_prior is None else args.object_prior
    return make_pipeline("single" if pipeline == "single+prior" else pipeline, args.strategy, llm, kb, **kw)


def remote_decider(args: argparse.Namespace, pipeline: str) -> Any:
    """A Ray actor's worker for ``coat eval --ray``: the same pipeline as the driver's, built in the actor (its
    own model client), deciding one question per call."""
    kb, llm, info = _setup(args)
    return _pipeline(args, kb, llm, info, pipeline).decide


def _for_actors(args: argparse.Namespace, kb: Any) -> argparse.Namespace:
    """The arguments an actor builds the pipeline from: paths absolute (an actor has another working directory)."""
    given = {k: v for k, v in vars(args).items() if k != "func"}
    for k in ("questions", "model"):
        if given.get(k):
            given[k] = str(Path(given[k]).expanduser().absolute())
    return argparse.Namespace(**{**given, "data_dir": str(kb.root)})


def _run_one(args: argparse.Namespace, kb: Any, llm: Any, info: dict[str, Any], set_name: str, pipeline: str,
             out: Any, variation: int | None = None,
             sampled: tuple[list[Any], str] | None = None, pool: Any = None) -> list[dict[str, Any]]:
    from ..bench.evaluate import run_eval
    from ..two_stage import TwoStagePipeline

    pipe = _pipeline(args, kb, llm, info, pipeline)
    qs, question_set = sampled if sampled is not None else _sample(args, kb, set_name, variation)
    stage1 = pipe.objects.rule if isinstance(pipe, TwoStagePipeline) else getattr(pipe, "prior_rule", None)
    run = {"set": set_name, "pipeline": pipeline, "strategy": pipe.strategy, "llm": info["spec"], "seed": args.seed,
           "stage1": stage1}
    if info["kw"].get("learned") is not None:
        run["learned"] = info["kw"]["learned"].model_id
    make_decider = None
    if pool is not None:
        import functools

        make_decider = functools.partial(remote_decider, _for_actors(args, kb), pipeline)
    return run_eval(qs, pipe, run=run, out=out, progress=not args.no_progress, concurrency=args.concurrency,
                    question_set=question_set, pool=pool, make_decider=make_decider)


def _eval_handler(args: argparse.Namespace) -> int:
    from ..results import ResultsFile

    ray = check_ray(args)
    out = None
    if args.out:  # checked and locked before any model loads or question runs: a second run is refused at once
        out = ResultsFile(check_out_path(args.out, kind="file"), what="result row").lock()
    try:
        return _eval(args, out, ray)
    finally:
        if out is not None:
            out.close()


def _eval(args: argparse.Namespace, out: Any, ray: Any) -> int:
    from ..bench.evaluate import PAPER_TASK_U, format_summary, summarize

    kb, llm, info = _setup(args)
    pipeline = args.pipeline
    if args.object_prior is not None:
        if pipeline != "single":
            raise ConfigError(f"--object-prior applies to --pipeline single, not {pipeline!r}")
        pipeline = "single+prior"
    with ray_pool(ray, kb.root) as pool:
        rows = _run_one(args, kb, llm, info, args.set_name, pipeline, out, args.variation, pool=pool)
    summary = summarize(rows)
    echo(format_summary(summary, _labels(kb, args.set_name)))
    if args.set_name == "task_u":
        paper = "; ".join(f"{m}: " + "/".join(str(v) for v in accs.values()) for m, accs in PAPER_TASK_U.items())
        echo(f"\npaper (Task-u accuracy % for 2/3/4/5 options): {paper}")
    if args.out:
        echo(f"\nrows: {args.out}")
    return 0


# ---------------------------------------------------------------- ablation


def _ablate_handler(args: argparse.Namespace) -> int:
    from ..bench.stats import require_stats
    from ..results import locked_dir

    require_stats()  # the report's statistics: a missing extra is said before anything runs
    ray = check_ray(args)
    out = check_out_path(args.out, kind="dir")
    with locked_dir(out):  # one ablation at a time (refused before any model loads); each rows file is checked too
        kb, llm, info = _setup(args)
        with ray_pool(ray, kb.root) as pool:
            return _ablate(args, kb, llm, info, out, pool)


def _ablate(args: argparse.Namespace, kb: Any, llm: Any, info: dict[str, Any], out: Path, pool: Any) -> int:
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for set_name in args.sets:
        results[set_name] = {}
        sampled = _sample(args, kb, set_name)  # the same questions for every pipeline, sampled once
        for pipeline in ("single", "two-stage", *(("single+prior",) if args.object_prior is not None else ())):
            rows_path = out / f"{set_name}-{pipeline}.jsonl"
            results[set_name][pipeline] = _run_one(args, kb, llm, info, set_name, pipeline, str(rows_path),
                                                   sampled=sampled, pool=pool)
    learned = info["kw"]["learned"]
    cmd = ["coat ablate", f"--llm {info['spec']}" if info["spec"] else "", f"--strategy {args.strategy}",
           f"--model {args.model}" if args.model else "", "--held-out" if args.held_out else "",
           f"--limit {args.limit}", f"--seed {args.seed}", "--sets " + " ".join(args.sets),
           f"--questions {args.questions}" if args.questions else "", f"--out {args.out}",
           f"--keep-rule {args.keep_rule}" if args.keep_rule != "ensemble" else "",
           f"--margin {args.margin}" if args.margin is not None else "",
           "--signals " + " ".join(args.signals) if args.signals else "",
           f"--scale {args.scale}" if args.scale != "reference" else "",
           f"--stage1-strategy {args.stage1_strategy}" if args.stage1_strategy else "",
           f"--object-prior {args.object_prior:g}" if args.object_prior is not None else "",
           f"--blend {args.blend:g}" if args.blend is not None else "",
           f"--blend-template {args.blend_template}" if args.blend is not None else "",
           f"--blend-keep {args.blend_keep:g}" if args.blend_keep is not None else ""]
    meta = {
        "command": " ".join(c for c in cmd if c),
        "model_id": ", ".join(m for m in (getattr(llm, "model_id", None), getattr(learned, "model_id", None)) if m)
        or None,
        "strategy": args.strategy,
        "seed": args.seed,
        "limit": args.limit,
    }
    from ..bench.ablation import comparison_table, write_report

    summary = write_report(results, meta, out, seed=args.seed, labels={s: _labels(kb, s) for s in results})
    where = sys.stderr if args.json else sys.stdout
    echo(comparison_table(summary), file=where)
    echo(f"\nreport: {out / 'report.md'}; numbers: {out / 'summary.json'}", file=where)
    if args.json:
        echo(json.dumps(summary, sort_keys=True))
    return 0


__all__ = ["ABLATE_SETS", "register"]
