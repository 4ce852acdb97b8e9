"""The ScienceWorld benchmark: every (task, variation, agent) once, as JSONL rows and a Markdown summary.

Run it from the command line with ``coat sciworld`` (``planner/cli/sciworld.py``); the results page is
``benchmarks/sciworld_tasks.md``.

Example:
    >>> from planner.agents.sciworld import AgentConfig, run_benchmark, summarize     # doctest: +SKIP
    >>> rows = run_benchmark(["boil"], split="test", limit=2,                          # doctest: +SKIP
    ...                      configs=[AgentConfig(), AgentConfig(policy="default")])
    >>> print(summarize(rows))                                                          # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from scenes.sciworld import CHANGE_OF_STATE_TASKS, resolve_task

from ...errors import ConfigError
from .agent import SciWorldAgent
from .contracts import AgentConfig, EpisodeResult

logger = logging.getLogger(__name__)

SPLITS: dict[str, range] = {"train": range(0, 14), "dev": range(14, 21), "test": range(21, 30), "all": range(0, 30)}
"""The change-of-state tasks' 30 variations by split (contiguous, as ScienceWorld 1.2.3 reports them)."""


def select_variations(task: str, split: str, limit: int | None = None,
                      variations: Sequence[int] | None = None) -> list[int]:
    """Variations to run: explicit ones, or a split's (first ``limit``), without starting a JVM.

    The change-of-state tasks have 30 variations: train 0-13, dev 14-20, test 21-29 (:data:`SPLITS`).

    Raises:
        ConfigError: a task the agent does not play, or an unknown split.
    """
    name = resolve_task(task)
    if name not in CHANGE_OF_STATE_TASKS:
        raise ConfigError(f"task {task!r} is not one the agent plays; valid: {', '.join(CHANGE_OF_STATE_TASKS)}")
    if variations:
        return list(variations)
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}; valid: {', '.join(SPLITS)}")
    out = list(SPLITS[split])
    return out[:limit] if limit else out


def _make_sciworld_env(task: str, step_limit: int) -> Any:
    from scenes.sciworld import ScienceWorldEnv

    return ScienceWorldEnv(task, simplification="easy", step_limit=step_limit)


def episode_line(r: EpisodeResult) -> str:
    """One line per episode for logs and progress output."""
    return (f"{r.task:>30} var {r.variation:>2} {r.policy:>7} {r.llm or 'none':>6}: score {r.score:>4} "
            f"done={r.completed!s:5} moves {r.moves:>3} used {list(r.devices_used)} {r.failure}")


def run_benchmark(
    tasks: Sequence[str],
    *,
    split: str = "test",
    limit: int | None = None,
    variations: Sequence[int] | None = None,
    configs: Sequence[AgentConfig] = (AgentConfig(),),
    step_limit: int = 150,
    out: str | Path | None = None,
    make_env: Callable[[str, int], Any] | None = None,
    data_dir: Any = None,
    progress: bool = True,
) -> list[EpisodeResult]:
    """Play every (task, variation, config) once and return the results.

    One JVM per task; agents are built once per config (the model loads once).

    Args:
        tasks: Task names or ids (:data:`scenes.sciworld.CHANGE_OF_STATE_TASKS`).
        split: ``train``, ``dev``, ``test`` or ``all`` (:data:`SPLITS`).
        limit: The first N variations of the split per task.
        variations: Explicit variations (override ``split``).
        configs: One agent per config; each plays every variation.
        step_limit: ScienceWorld's ``envStepLimit`` (moves).
        out: Directory for ``episodes.jsonl`` (one row per episode, written as it ends) and ``summary.md``.
        make_env: ``(task, step_limit) -> SceneEnv`` (default: a ScienceWorldEnv with the ``easy``
            simplification).
        data_dir: Data directory for the knowledge base and perception priors.
        progress: Show a tqdm progress bar over episodes (each episode is also logged at INFO).

    Returns:
        The episodes, in the order they were played.

    Raises:
        ConfigError: a task the agent does not play, or an unknown split.
    """
    from tqdm import tqdm

    make_env = make_env or _make_sciworld_env
    plan = [(task, select_variations(task, split, limit, variations)) for task in tasks]  # validate before a JVM
    agents = [SciWorldAgent(c, data_dir=data_dir) for c in configs]
    results: list[EpisodeResult] = []
    path = Path(out) if out else None
    if path:
        path.mkdir(parents=True, exist_ok=True)
    bar = tqdm(total=sum(len(vs) for _, vs in plan) * len(agents), unit="episode", desc="sciworld",
               disable=not progress)
    rows = open(path / "episodes.jsonl", "w") if path else None  # noqa: SIM115 - closed below
    try:
        for task, vs in plan:
            env = make_env(task, step_limit)
            try:
                for v in vs:
                    for agent in agents:
                        r = agent.run(env, v)
                        results.append(r)
                        if rows:
                            rows.write(r.model_dump_json() + "\n")
                            rows.flush()
                        logger.info("%s", episode_line(r))
                        bar.set_postfix_str(f"{r.task} var {v} {r.policy}: {r.score}", refresh=False)
                        bar.update()
            finally:
                env.close()
    finally:
        bar.close()
        if rows:
            rows.close()
    if path:
        (path / "summary.md").write_text(summarize(results))
    return results


def _label(r: EpisodeResult) -> str:
    if r.policy == "default":
        return "baseline: always the stove"
    return f"COAT agent (llm {r.llm or 'none'}, {r.interpret}{'' if r.device_specs else ', no device specs'})"


def summarize(results: Iterable[EpisodeResult]) -> str:
    """Markdown table per agent, task family and whether the variation breaks a device."""
    groups: dict[tuple[str, str, str], list[EpisodeResult]] = {}
    for r in results:
        kind = "device broken" if r.broken else "nothing broken"
        groups.setdefault((_label(r), r.task, kind), []).append(r)
        groups.setdefault((_label(r), "all", kind), []).append(r)
        groups.setdefault((_label(r), "all", "all"), []).append(r)
    lines = ["| agent | task | variations | episodes | mean score | completed | substitution rate | re-plans/ep | "
             "mean moves |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    tasks_order = {t: i for i, t in enumerate((*CHANGE_OF_STATE_TASKS, "all"))}
    kinds_order = {"device broken": 0, "nothing broken": 1, "all": 2}

    def order(k: tuple[str, str, str]) -> tuple[str, int, int]:
        return (k[0], tasks_order.get(k[1], -1), kinds_order[k[2]])

    for (label, task, kind), rs in sorted(groups.items(), key=lambda kv: order(kv[0])):
        n = len(rs)
        lines.append(
            f"| {label} | {task} | {kind} | {n} | {sum(r.score for r in rs) / n:.1f} | "
            f"{sum(r.completed for r in rs) / n:.0%} | {sum(r.substituted for r in rs) / n:.0%} | "
            f"{sum(r.replans for r in rs) / n:.2f} | {sum(r.moves for r in rs) / n:.0f} |"
        )
    return "\n".join(lines) + "\n"


__all__ = ["SPLITS", "episode_line", "run_benchmark", "select_variations", "summarize"]
