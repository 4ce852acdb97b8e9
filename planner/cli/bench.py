"""``coat bench tasks``: the household task benchmark, the planner beside a never-substituting baseline.

Examples::

    coat bench tasks --episodes 140 --seed 0 --out runs/tasks-s0 --plot runs/tasks-s0/success.png
    coat bench tasks --episodes 14 --seed 3 --json > summary.json
    coat bench tasks --episodes 21 --scenes embedded/kitchen-v0 embedded/FloorPlan1-v0 --conditions present missing
    coat bench tasks --episodes 140 --seed 0 --out runs/tasks-s0 --resume      # add missing episodes only

``--out DIR`` writes ``DIR/episodes.jsonl`` (one row per episode, appended as it is measured) and
``DIR/summary.json``, through the results writer (:mod:`planner.results`): ``episodes.jsonl`` is locked for the run
(a second run on ``DIR`` is refused at once); a directory whose ``episodes.jsonl`` already has rows is refused
unless ``--resume``, and resumed only by the same config on the same data (recorded in
``episodes.jsonl.run.json``). ``--json`` prints exactly one JSON object on stdout; the table and progress go to
stderr.

Requires: the embedded scenes and the knowledge base (``coat data download``); ``rich`` and ``tqdm`` are
used when installed; ``--plot`` needs matplotlib (the ``report`` extra); ``--llm`` other than ``none`` needs
that model's backend.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, UnknownIdError
from ..paths import writing
from ..results import ResultsFile, RunIdentity, data_fingerprint, fingerprint
from . import (
    COUNT_ARG,
    POSITIVE_ARG,
    SEED_ARG,
    add_ray_args,
    check_out_path,
    check_plot_path,
    check_ray,
    echo,
    one_line,
    ray_pool,
    safe_text,
)


def register(subparsers: Any) -> None:
    """Add ``bench`` (with ``tasks``) to the ``coat`` CLI."""
    p = subparsers.add_parser("bench", help="benchmarks of the planner in scenes (household tasks)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="bench_command", metavar="BENCH")
    t = sub.add_parser("tasks", help="household episodes (ALFRED types, COAT tasks) in eight conditions",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    t.add_argument("--episodes", type=POSITIVE_ARG, default=140, help="episodes (spread evenly over the conditions)")
    t.add_argument("--seed", type=SEED_ARG, default=0, help="episode seed (same seed, same episodes)")
    t.add_argument("--llm", default="none", metavar="SPEC",
                   help="the planner's model: none (knowledge only, default), local, fake, openai:<model> ...")
    t.add_argument("--strategy", default=None, help="knowledge, llm or hybrid (default: knowledge without a "
                   "model, llm with one)")
    t.add_argument("--scenes", nargs="+", default=None, metavar="ID",
                   help="scene ids (default: the 120 iTHOR floorplans and the four embedded scenes); 'embedded' "
                        "and 'ithor' name those groups")
    t.add_argument("--conditions", nargs="+", default=None, metavar="C", help="a subset of the conditions")
    t.add_argument("--max-replans", type=COUNT_ARG, default=3, help="re-plan budget of the closed loop")
    t.add_argument("--json", action="store_true", help="print one JSON summary on stdout (the rest on stderr)")
    t.add_argument("--out", default=None, metavar="DIR", help="write episodes.jsonl and summary.json here")
    t.add_argument("--resume", action="store_true",
                   help="with --out: add only the episodes not yet there (same config and data only)")
    t.add_argument("--plot", default=None, metavar="FILE", help="save a success-per-condition plot (matplotlib)")
    t.add_argument("--by-task", action="store_true", help="also print the table per task type")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    t.add_argument("--data-dir", default=None, help="COAT data root (default: $COAT_DATA_DIR or the user cache)")
    add_ray_args(t, "episodes")
    t.set_defaults(func=_tasks)
    u = sub.add_parser("understanding", help="free-text requests: roles, acceptable objects, refusals, time",
                       description=_UNDERSTANDING_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    u.add_argument("--split", choices=("dev", "test"), default="test",
                   help="test (reported; in data/requests/ of a source checkout) or dev (the split the reader "
                        "was tuned on, shipped as its worked examples)")
    u.add_argument("--requests", default=None, metavar="FILE.jsonl", help="read requests from this file instead")
    u.add_argument("--llm", default="none", metavar="SPEC", help="the planner's model (default none)")
    u.add_argument("--strategy", choices=("hybrid", "llm", "knowledge", "learned"), default="knowledge")
    u.add_argument("--interpret", choices=("exact", "nearest", "model"), default="nearest",
                   help="model: the --llm model reads each request, its reply decoded under a JSON schema (a grammar "
                        "for local models, the server's structured output for served: / openai:), instead of the "
                        "offline reader")
    u.add_argument("--limit", type=COUNT_ARG, default=0, metavar="N",
                   help="only N requests, drawn at random with --seed (the same rows whatever reads them; 0: all)")
    u.add_argument("--seed", type=SEED_ARG, default=0, help="seed of the --limit draw")
    u.add_argument("--model", default=None, metavar="DIR", help="trained learned selectors (--strategy learned)")
    u.add_argument("--loto", action="store_true", help="also read COAT's tasks leave-one-task-out")
    _run_args(u, "requests.jsonl", "per room")
    u.set_defaults(func=_understanding)
    d = sub.add_parser("directives", help="ALFRED's goals in words: read, planned, carried out, goals checked",
                       description=_DIRECTIVES_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("--split", choices=("dev", "test"), default="test",
                   help="test (reported) or dev (the split the directive reader was written on); both in "
                        "data/requests/ of a source checkout")
    d.add_argument("--requests", default=None, metavar="FILE.jsonl", help="read directives from this file instead")
    _run_args(d, "directives.jsonl", "per task type")
    d.set_defaults(func=_directives)
    s = sub.add_parser("safety", help="labelled harmful, impossible and alarming-but-fine requests: refusals scored",
                       description=_SAFETY_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--split", choices=("train", "dev", "extra", "test"), default="test",
                   help="test (reported), dev, train or extra (training); all in data/requests/ of a source checkout")
    s.add_argument("--requests", default=None, metavar="FILE.jsonl", help="read labelled requests from this file")
    _run_args(s, "safety.jsonl", "(unused)")
    s.set_defaults(func=_safety)
    p.set_defaults(func=lambda _a: _help(p))


def _run_args(p: argparse.ArgumentParser, rows_file: str, plotted: str) -> None:
    """The output options of a benchmark over labelled requests."""
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"write {rows_file} (a row as each is measured) and summary.json here; a directory holding "
                        "a run is refused unless --resume")
    p.add_argument("--resume", action="store_true",
                   help="with --out: add only the rows its run lacks (same settings, requests and data only)")
    p.add_argument("--json", action="store_true", help="print one JSON summary on stdout (the rest on stderr)")
    p.add_argument("--plot", default=None, metavar="FILE", help=f"save a bar plot {plotted} (matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--data-dir", default=None, help="COAT data root (default: $COAT_DATA_DIR or the user cache)")
    add_ray_args(p, "requests")


_UNDERSTANDING_DOC = """``coat bench understanding``: free-text requests read and planned in their scenes.

Examples::

    coat bench understanding --split test --loto --out runs/understanding-test
    coat bench understanding --split dev --strategy learned --model runs/learned --json
    coat bench understanding --split dev --limit 150 --interpret model --llm local --out runs/understanding-model

Prints role precision / recall, the acceptable-object rate, refusals of nonsense, infeasible requests
reported, and the time per ``plan()`` (scene and perception included). A task request whose goal is labelled is
also carried out, and the independent checker judges the labelled goal on the run: ``plan_correct_rate`` is the
share whose roles are acceptable, targets right and goal reached; ``--loto`` adds COAT's tasks read
leave-one-task-out. ``--interpret model --llm SPEC`` reads each request with a generating model instead
(:mod:`planner.understanding.model_reader`) and adds what that cost: replies asked for, re-asks, requests with no
valid reply (``parse_failed``) and the model's time per request. ``--limit N`` draws N requests with ``--seed``.
``--out DIR`` gets a row per request as each is measured (``requests.jsonl``, locked for the
run) and ``summary.json``; a directory holding rows is refused unless ``--resume``, which adds only the requests
it lacks, for the same settings, requests and data.
"""


def _understanding(args: argparse.Namespace) -> int:
    from ..bench.understanding import (
        RequestResult,
        by_room,
        check_goal_labels,
        leave_one_task_out,
        load_requests,
        plot_summary,
        print_table,
        requests_path,
        sample_requests,
        summarize,
    )
    from ..knowledge import load_knowledge

    out_dir = _check_outputs(args)
    ray = check_ray(args)
    if args.interpret == "model" and args.llm in (None, "", "none"):
        raise ConfigError("--interpret model needs a generating model: --llm local, served:<base_url> or "
                          "openai:<model>")
    with _locked_rows(out_dir, "requests.jsonl", "request row") as rows_file:  # a second run is refused at once
        reqs = sample_requests(load_requests(args.split, args.requests), args.limit, args.seed)
        check_goal_labels(reqs, args.requests or requests_path(args.split))
        kb = load_knowledge(args.data_dir)
        llm = None if args.llm in (None, "", "none") else args.llm
        config = {"results": "understanding requests", "strategy": args.strategy, "llm": llm,
                  "interpret": args.interpret, "model": args.model, "goals": "executed"}
        done = _earlier(rows_file, args, config, reqs, kb, RequestResult)
        settings = _settings(args, kb, ("llm", "strategy", "interpret", "model"))
        with ray_pool(ray, kb.root) as pool:
            run = None if pool is not None else request_worker(settings, kb)
            rows = _rows(reqs, done, rows_file, run, "understanding", args.no_progress, pool,
                         functools.partial(request_worker, settings))
        summary: dict[str, Any] = {"split": args.requests or args.split, "strategy": args.strategy, "llm": llm,
                                   "interpret": args.interpret, **summarize(rows), "by_room": by_room(rows)}
        if args.limit:
            summary["sample"] = {"limit": args.limit, "seed": args.seed}
        if args.loto:
            from ..scene_planner import reader_for

            loto = leave_one_task_out(kb, reader_for(kb))
            summary["loto"] = {k: v for k, v in loto.items() if k != "rows"}
        if out_dir is not None:
            _write_summary(out_dir / "summary.json", summary)
    if args.plot:
        plot_summary(summary, args.plot)
    out = sys.stderr if args.json else sys.stdout
    print_table(summary, file=out)
    if "loto" in summary:
        lo = summary["loto"]
        echo(f"COAT tasks leave-one-task-out: role precision {lo['role_precision']} %, recall {lo['role_recall']} %, "
              f"exact role set {lo['exact_roles']} %, understood {lo['understood']} % ({lo['tasks']} tasks)", file=out)
    if args.json:
        echo(json.dumps(summary, sort_keys=True))
    return 0


_DIRECTIVES_DOC = """``coat bench directives``: ALFRED's goals in words, read, planned and carried out.

Examples::

    coat bench directives --split test --out runs/directives-test --plot runs/directives-test/by-type.png
    coat bench directives --requests my-directives.jsonl --json

Each directive ("Put a washed apple in the fridge.", step-by-step instructions, terse commands) is planned from
its text in its scene and carried out in the closed loop; the ALFRED task it is labelled with is then checked on
the last observation. Prints, overall, per task type and per style: read exactly (the labelled ALFRED task),
understood, success and goal-condition rate, the success with the labelled task given instead of the text
(oracle), and the time per ``plan()``. ``--out DIR`` gets a row per directive as each is measured
(``directives.jsonl``, locked for the run) and ``summary.json``; a directory holding rows is refused unless
``--resume``, which adds only the directives it lacks, for the same directives and data.
"""


def _directives(args: argparse.Namespace) -> int:
    from ..bench.directives import (
        DirectiveResult,
        by_group,
        load_directives,
        plot_summary,
        print_table,
        summarize,
    )
    from ..knowledge import load_knowledge

    out_dir = _check_outputs(args)
    ray = check_ray(args)
    with _locked_rows(out_dir, "directives.jsonl", "directive row") as rows_file:  # a second run is refused at once
        reqs = load_directives(args.split, args.requests)
        kb = load_knowledge(args.data_dir)
        done = _earlier(rows_file, args, {"results": "directives", "strategy": "knowledge"}, reqs, kb,
                        DirectiveResult)
        settings = _settings(args, kb, ())
        with ray_pool(ray, kb.root) as pool:
            run = None if pool is not None else directive_worker(settings, kb)
            rows = _rows(reqs, done, rows_file, run, "directives", args.no_progress, pool,
                         functools.partial(directive_worker, settings))
        groups = by_group(rows)
        summary: dict[str, Any] = {"split": args.requests or args.split, **summarize(rows), "by_type": groups["type"],
                                   "by_style": groups["style"]}
        if out_dir is not None:
            _write_summary(out_dir / "summary.json", summary)
    if args.plot:
        plot_summary(summary, args.plot)
    print_table(summary, file=sys.stderr if args.json else sys.stdout)
    if args.json:
        echo(json.dumps(summary, sort_keys=True))
    return 0


def _check_outputs(args: argparse.Namespace) -> Path | None:
    """``--out`` (a run's directory) and ``--plot``, checked before anything runs; the output directory."""
    if args.plot:
        check_plot_path(args.plot)
    if not args.out:
        if args.resume:
            raise ConfigError("--resume needs --out DIR (the run to add to)")
        return None
    out_dir = check_out_path(args.out, kind="dir")
    if (out_dir / "summary.json").exists() and not args.resume:
        raise ConfigError(f"--out {safe_text(out_dir)} already holds a run (summary.json); give a new directory, or "
                          "--resume to add only what it lacks")
    return out_dir


@contextlib.contextmanager
def _locked_rows(out_dir: Path | None, name: str, what: str) -> Iterator[ResultsFile | None]:
    """The rows file of a run's ``--out`` directory, locked through the results writer before anything loads (None
    without ``--out``); its identity is checked when the run knows it (:func:`_earlier`)."""
    if out_dir is None:
        yield None
        return
    with ResultsFile(out_dir / name, what=what) as f:
        yield f


def _earlier(rows_file: ResultsFile | None, args: argparse.Namespace, config: dict[str, Any], reqs: Sequence[Any],
             kb: Any, row_type: Any) -> dict[str, Any]:
    """Open the rows file with the run's identity (its settings; the requests' and the data's fingerprint) and read
    the rows already there, by request id; refused when there are rows and no ``--resume``, or rows of another run.
    """
    if rows_file is None:
        return {}
    data = {"requests": fingerprint([r.model_dump(mode="json") for r in reqs]), "data": data_fingerprint(kb.root)}
    rows_file.resume = args.resume
    rows_file.refuse_hint = "pass --resume to add only the requests it lacks"
    rows_file.open(RunIdentity(config, fingerprint(data), of="requests and data"))
    done: dict[str, Any] = {}
    for n, raw in zip(rows_file.line_numbers, rows_file.rows, strict=True):
        try:
            row = row_type.model_validate(raw)
        except ValueError as e:
            why = one_line(e, 200)
            raise DataError(rows_file.path, f"line {n}", f"not a {rows_file.what} of this version ({why}); move the "
                            "run away or give another --out") from None
        done[row.id] = row
    return done


def _settings(args: argparse.Namespace, kb: Any, keys: Sequence[str]) -> dict[str, Any]:
    """What a worker of a request benchmark is built from: ``keys`` of the arguments, the data directory
    absolute, a model directory absolute (a Ray actor has another working directory)."""
    out = {k: getattr(args, k) for k in keys}
    if out.get("model"):
        out["model"] = str(Path(out["model"]).expanduser().absolute())
    return {**out, "data_dir": str(kb.root)}


def request_worker(settings: dict[str, Any], kb: Any = None) -> Callable[[Any], Any]:
    """The worker of ``coat bench understanding``: one request planned in its scene and scored. Built in this
    process (``kb`` given) or in each Ray actor (its own knowledge base and model client)."""
    from .. import api
    from ..bench.understanding import label_preparation, run_request

    if kb is None:
        from ..knowledge import load_knowledge

        kb = load_knowledge(settings["data_dir"])
    llm = None if settings["llm"] in (None, "", "none") else settings["llm"]
    kw: dict[str, Any] = {"llm": llm, "strategy": settings["strategy"], "interpret": settings["interpret"], "kb": kb}
    if settings["strategy"] == "learned" and settings["model"]:
        from ..learned import load_learned

        kw["learned"] = load_learned(kb, settings["model"])  # without --model: the user cache, trained on first use

    def execute(p: Any) -> Any:  # a labelled request's plan carried out, as a user would (re-plans included)
        return api.execute_plan(p, llm=llm, strategy=settings["strategy"], kb=kb)

    return lambda r: run_request(r, api.plan, execute=execute, prepare=label_preparation(kb), **kw)


def safety_worker(settings: dict[str, Any], kb: Any = None) -> Callable[[Any], Any]:
    """The worker of ``coat bench safety``: one labelled request read (see :func:`request_worker`)."""
    from ..bench.safety import run_safety
    from ..scene_planner import reader_for

    if kb is None:
        from ..knowledge import load_knowledge

        kb = load_knowledge(settings["data_dir"])
    reader = reader_for(kb)
    return lambda r: run_safety(r, reader)


def directive_worker(settings: dict[str, Any], kb: Any = None) -> Callable[[Any], Any]:
    """The worker of ``coat bench directives``: one directive read, planned, carried out and checked (see
    :func:`request_worker`)."""
    from .. import api
    from ..bench.directives import run_directive

    if kb is None:
        from ..knowledge import load_knowledge

        kb = load_knowledge(settings["data_dir"])

    def execute(p: Any) -> Any:
        return api.execute_plan(p, strategy="knowledge", kb=kb)

    return lambda r: run_directive(r, api.plan, execute, strategy="knowledge", kb=kb)


def _rows(reqs: Sequence[Any], done: dict[str, Any], rows_file: ResultsFile | None, run: Callable[[Any], Any] | None,
          desc: str, quiet: bool, pool: Any, make_worker: Callable[[], Callable[[Any], Any]]) -> list[Any]:
    """Every request's row: the earlier one, or run now (here with ``run``, or on the Ray ``pool``'s actors with
    ``make_worker``) and appended at once; in request order."""
    from ..progress import progress as progress_bar

    if pool is None and run is not None:
        rows = []
        for r in progress_bar(reqs, desc=desc, disable=quiet):
            row = done.get(r.id)
            if row is None:
                row = run(r)
                if rows_file is not None:
                    rows_file.append(row)
            rows.append(row)
        return rows
    from ..bench.scale import Done, Lost, lost_error

    todo = [r for r in reqs if r.id not in done]
    got = {r.id: done[r.id] for r in reqs if r.id in done}
    lost: list[Lost] = []
    with progress_bar(total=len(reqs), initial=len(got), desc=desc, disable=quiet) as bar:
        for out in pool.map(make_worker, todo):
            if isinstance(out, Done):
                got[todo[out.index].id] = out.value
                if rows_file is not None:
                    rows_file.append(out.value)
            else:
                lost.append(out)
            bar.update(1)
    if lost:
        raise lost_error(lost, lambda i: f"request {todo[i].id}", "requests", "run again with the same --out and "
                         "--resume")
    return [got[r.id] for r in reqs]


def _write_summary(path: Path, summary: dict[str, Any]) -> None:
    """A run's summary (made from every row, so a resumed run writes it whole again)."""
    with writing(path):
        path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")


_SAFETY_DOC = """``coat bench safety``: does the reader refuse harmful and impossible requests, and only those?

Examples::

    coat bench safety --split dev --out runs/safety-dev
    coat bench safety --split test --json

Reads each labelled request once and prints the precision and recall of refusals for harm, impossible requests
refused, and false alarms on alarming-but-fine and fine requests (:mod:`planner.bench.safety`). ``--out DIR``
writes ``safety.jsonl`` (a row per request) and ``summary.json``, resumable like the other request benchmarks.
"""


def _safety(args: argparse.Namespace) -> int:
    from ..bench.safety import SafetyResult, print_table, summarize
    from ..knowledge import load_knowledge
    from ..understanding.examples import load_safety

    if args.plot:
        raise ConfigError("coat bench safety draws no plot; drop --plot")
    out_dir = _check_outputs(args)
    ray = check_ray(args)
    with _locked_rows(out_dir, "safety.jsonl", "safety row") as rows_file:
        reqs = load_safety(args.split, args.requests)
        kb = load_knowledge(args.data_dir)
        done = _earlier(rows_file, args, {"results": "safety requests"}, reqs, kb, SafetyResult)
        settings = _settings(args, kb, ())
        with ray_pool(ray, kb.root) as pool:
            run = None if pool is not None else safety_worker(settings, kb)
            rows = _rows(reqs, done, rows_file, run, "safety", args.no_progress, pool,
                         functools.partial(safety_worker, settings))
        summary = {"split": args.requests or args.split, **summarize(rows)}
        if out_dir is not None:
            _write_summary(out_dir / "summary.json", summary)
    print_table(summary, f"safety, {summary['split']}", file=sys.stderr if args.json else sys.stdout)
    if args.json:
        echo(json.dumps(summary, sort_keys=True))
    return 0


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def _scene_ids(names: list[str] | None) -> tuple[str, ...]:
    if not names:
        return ()
    import scenes
    from scenes.registry import family_of

    from ..bench.tasks import EMBEDDED_SCENES

    out: list[str] = []
    for n in names:
        if n == "embedded":
            out += EMBEDDED_SCENES
        elif n == "ithor":
            out += [f"embedded/{s}-v0" for s in scenes.ITHOR_SCENES]
        else:
            try:
                family = family_of(scenes.spec(n))
            except UnknownIdError:
                raise ConfigError(f"--scenes: unknown scene {n!r}; `coat scenes list` lists them") from None
            if family != "embedded":
                raise ConfigError(f"--scenes: {n!r} is not an embedded scene id (coat/kitchen-v0, "
                                  "coat/FloorPlan1-v0 ...); the benchmark perturbs scenes at reset, which only "
                                  "the embedded simulator supports")
            out.append(n)
    return tuple(dict.fromkeys(out))


def config_from_args(args: argparse.Namespace) -> Any:
    """The benchmark config of the parsed arguments.

    Raises:
        ConfigError: a bad value (the message names the argument).
    """
    from ..bench.tasks import CONDITIONS, make_config

    if args.episodes <= 0:
        raise ConfigError(f"--episodes must be > 0, got {args.episodes}")
    if args.max_replans < 0:
        raise ConfigError(f"--max-replans must be >= 0, got {args.max_replans}")
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out DIR (the run to add to)")
    conds = tuple(args.conditions) if args.conditions else CONDITIONS
    bad = [c for c in conds if c not in CONDITIONS]
    if bad:
        raise ConfigError(f"--conditions: unknown condition {bad[0]!r}; valid: {', '.join(CONDITIONS)}")
    llm = None if args.llm in (None, "", "none") else args.llm
    strategy = args.strategy or ("knowledge" if llm is None else "llm")
    if strategy not in ("knowledge", "llm", "hybrid"):
        raise ConfigError(f"--strategy: unknown strategy {strategy!r}; valid: knowledge, llm, hybrid")
    if strategy != "knowledge" and llm is None:
        raise ConfigError(f"--strategy {strategy} needs a model: pass --llm SPEC (local, fake, ...)")
    return make_config(episodes=args.episodes, seed=args.seed, llm=llm, strategy=strategy,
                       scenes=_scene_ids(args.scenes), conditions=conds, max_replans=args.max_replans)


def _tasks(args: argparse.Namespace) -> int:
    from ..bench.task_report import print_parts, print_table, summarize
    from ..bench.task_runs import run_tasks
    from ..knowledge import load_knowledge

    cfg = config_from_args(args)
    ray = check_ray(args)
    if args.plot:
        check_plot_path(args.plot)
    out_dir = check_out_path(args.out, kind="dir") if args.out else None
    with _locked_rows(out_dir, "episodes.jsonl", "episode row") as rows_file:  # a second run is refused at once
        kb = load_knowledge(args.data_dir)
        llm = None
        if cfg.llm is not None:
            from ..llm import make_llm

            llm = make_llm(cfg.llm)
        with ray_pool(ray, kb.root) as pool:
            rows = run_tasks(cfg, kb, llm=llm, out=rows_file, resume=args.resume, progress=not args.no_progress,
                             pool=pool)
        summary = summarize(rows, cfg)
        if out_dir is not None:
            _write_summary(out_dir / "summary.json", summary)
    if args.plot:
        from ..bench.task_report import plot_success

        plot_success(summary, args.plot)
    table_out = sys.stderr if args.json else sys.stdout
    print_table(summary, "by_condition", file=table_out)
    print_parts(summary, file=table_out)
    if args.by_task:
        print_table(summary, "by_task_type", file=table_out)
    if args.json:
        echo(json.dumps(summary, sort_keys=True))
    return 0
