"""``coat sciworld``: the COAT agent on ScienceWorld's tasks, and the stove baseline on change of state.

Examples:
    coat sciworld --tasks all --split test --per-task 3 --json      # every task; the unplayed ones listed
    coat sciworld --tasks boil melt --split test                    # COAT agent and stove baseline
    coat sciworld --tasks boil melt freeze change-the-state-of-matter-of --split test --llm none \\
        --out runs/sciworld
    coat sciworld --tasks boil --variations 1,3 --policies coat --no-device-specs
    coat sciworld --tasks all --split dev --per-task 3 --simplification none   # walk, open doors, water pots

``--simplification`` is ScienceWorld's: ``easy`` (the default: teleport, doors open, self-watering flower pots,
no electrical actions except on the electrical tasks), ``none``, or a comma list of its labels. It is recorded
in every row's options and in ``runs.jsonl``; a resume never takes a row played with another one.
``--tasks all`` takes the 30 task names (an unknown name lists them). Tasks the agent has no play for yet
are reported as not played, never scored. Prints the per-task table and the change-of-state table
(``benchmarks/sciworld_tasks.md`` shows them for the full benchmark); ``--json`` prints one summary document
instead. With ``--out`` also writes ``episodes.jsonl`` (one ``EpisodeResult`` per episode, appended), ``summary.md``,
and one line per invocation in ``runs.jsonl`` (its options and time, appended: an earlier run's line is never
replaced). A rerun into the same ``--out`` resumes: finished episodes are not played again (``--no-resume`` plays
them all). ``episodes.jsonl`` goes through the results writer (:mod:`planner.results`): locked for the run (a second
run on ``--out`` is refused at once), of one COAT data (recorded in ``episodes.jsonl.run.json``). A JVM that dies
makes its episode a failure with the reason; a new JVM is started and the run goes on.

Requires: the ``sciworld`` extra and Java 8+ on PATH, the COAT data (``coat data download`` or
``COAT_DATA_DIR``); ``--llm local`` needs the ``local-llm`` extra.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..results import ResultsFile, RunIdentity
from . import COUNT_ARG, POSITIVE_ARG, add_ray_args, check_out_path, check_ray, echo, ray_pool


def register(sub: Any) -> None:
    """Add ``coat sciworld`` to the CLI."""
    p = sub.add_parser("sciworld", help="the COAT agent in ScienceWorld's 30 tasks, scores",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=["boil"],
                   help="task names or ids (space or comma separated), or all for the 30 tasks")
    p.add_argument("--split", default="test", help="train, dev, test or all")
    p.add_argument("--limit", type=POSITIVE_ARG, default=None, help="first N variations of the split per task")
    p.add_argument("--per-task", dest="limit", type=POSITIVE_ARG, default=None, help="the same as --limit")
    p.add_argument("--json", action="store_true",
                   help="print one JSON summary document (mean_score, per-task mean_score, completed_rate...)")
    p.add_argument("--variations", default="", type=_variations,
                   help="explicit variations, e.g. 0,1,2,3 (overrides --split)")
    p.add_argument("--llm", default="none", help="none (COAT knowledge), local, fake, openai:<model>...")
    p.add_argument("--interpret", choices=["mapped", "literal"], default=None,
                   help="how a phase is put to COAT: its annotated analogue (mapped) or ScienceWorld's words")
    p.add_argument("--policies", nargs="+", default=["coat", "default"], choices=["coat", "default"])
    p.add_argument("--no-device-specs", action="store_true", help="find weak devices only by trying them")
    p.add_argument("--step-limit", type=POSITIVE_ARG, default=150, help="ScienceWorld's envStepLimit (moves)")
    p.add_argument("--simplification", default="easy", type=_simplification,
                   help="easy (default), none, or a comma list of ScienceWorld's labels: teleportAction, "
                        "selfWateringFlowerPots, openContainers, openDoors, noElectricalAction")
    p.add_argument("--max-replans", type=COUNT_ARG, default=10, help="re-plan budget per episode (COAT agent)")
    p.add_argument("--out", default=None, help="directory for episodes.jsonl and summary.md")
    p.add_argument("--no-resume", action="store_true",
                   help="play every episode even if --out holds it already (rows are still appended)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--data-dir", default=None)
    add_ray_args(p, "episodes (one JVM per actor)")
    p.set_defaults(func=_run)


def _data_root(args: argparse.Namespace) -> Path:
    """The run's data directory, resolved here: the Ray actors are given it (they do not share this shell)."""
    from ..paths import resolve_data_dir

    return resolve_data_dir(args.data_dir)


def _variations(text: str) -> str:
    """``--variations``: comma-separated ints (argparse reports anything else as a usage error)."""
    bad = [v for v in text.split(",") if v.strip() and not v.strip().isdigit()]
    if bad:
        raise argparse.ArgumentTypeError(f"variations are comma-separated numbers (e.g. 0,1,2), not {bad[0]!r}")
    return text


def _simplification(text: str) -> str:
    """``--simplification``: checked here (argparse reports a bad label as a usage error naming the valid ones)."""
    from ..agents.sciworld.bench import read_simplification
    from ..errors import ConfigError

    try:
        return read_simplification(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _run(args: argparse.Namespace) -> int:
    from ..agents.sciworld import AgentConfig, run_benchmark, summarize
    from ..agents.sciworld.bench import expand_tasks, not_played
    from ..agents.sciworld.report import summary_json, task_table

    if args.out:
        check_out_path(args.out, kind="dir")
    ray = check_ray(args)
    llm = None if args.llm in ("none", "") else args.llm
    configs = [
        AgentConfig(policy=p, llm=llm if p == "coat" else None, interpret=args.interpret,
                    device_specs=not args.no_device_specs, max_replans=args.max_replans,
                    keep_transcript=bool(args.out))
        for p in args.policies
    ]
    variations = [int(v) for v in args.variations.split(",") if v.strip()] or None
    names = expand_tasks(args.tasks)  # an unknown name: ConfigError listing the 30
    skipped = not_played(names)
    t0 = time.perf_counter()
    with ray_pool(ray, _data_root(args) if ray is not None else None) as pool:
        results = run_benchmark(names, split=args.split, limit=args.limit, variations=variations, configs=configs,
                                step_limit=args.step_limit, simplification=args.simplification, out=args.out,
                                data_dir=args.data_dir, progress=not args.no_progress, resume=not args.no_resume,
                                pool=pool)
    if args.json:
        doc = summary_json(results, skipped)
        doc["seconds"] = round(time.perf_counter() - t0, 1)
        echo(json.dumps(doc, indent=1))
    else:
        echo(task_table(results, skipped))
        if any(r.shape == "change-state" for r in results):
            echo("")
            echo(summarize(results))
        echo(f"{len(results)} episodes in {time.perf_counter() - t0:.0f} s"
             + (f"; not played (no play yet): {', '.join(skipped)}" if skipped else ""))
    if args.out:
        meta = {"tasks": names, "not_played": skipped, "split": args.split, "limit": args.limit,
                "variations": args.variations,
                "llm": args.llm, "interpret": args.interpret, "policies": args.policies,
                "device_specs": not args.no_device_specs, "step_limit": args.step_limit,
                "simplification": args.simplification,
                "max_replans": args.max_replans, "resume": not args.no_resume,
                "seconds": round(time.perf_counter() - t0, 1), "ended": datetime.now(timezone.utc).isoformat()}
        with ResultsFile(Path(args.out) / "runs.jsonl", RunIdentity({"results": "coat sciworld invocations"}),
                         what="invocation", sort_keys=True) as runs:
            runs.append(meta)
    return 0
