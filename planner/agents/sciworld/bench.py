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

import functools
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenes.sciworld import (
    CHANGE_OF_STATE_TASKS,
    SIMPLIFICATIONS,
    broken_devices,
    check_simplification,
    resolve_task,
    split_variations,
    tasks,
)

from ...arguments import POSITIVE_COUNT, Range, check_number
from ...errors import ConfigError, DataError, SimulatorError
from ...paths import writing
from ...results import ResultsFile, RunIdentity, data_fingerprint, read_numbered
from ...terminal import one_line
from .contracts import AgentConfig, EpisodeResult
from .player import ScienceWorldPlayer
from .spec import is_played

if TYPE_CHECKING:
    from ...bench.scale import RayPool

logger = logging.getLogger(__name__)

Episode = tuple[str, int, int]
"""One episode to play: (task, variation, index of the agent's config)."""

SPLITS: dict[str, range] = {"train": range(0, 14), "dev": range(14, 21), "test": range(21, 30), "all": range(0, 30)}
"""The change-of-state tasks' 30 variations by split (contiguous, as ScienceWorld 1.2.3 reports them); every
task's own ranges: :func:`scenes.sciworld.split_variations`."""


def expand_tasks(names: Sequence[str]) -> list[str]:
    """Task names or ids, ``all`` for the 30 tasks; each resolved (an unknown name lists the 30).

    Raises:
        ConfigError: an unknown task name.
    """
    out: list[str] = []
    for n in names:
        for part in str(n).split(","):
            part = part.strip()
            if not part:
                continue
            for t in (tasks() if part == "all" else [resolve_task(part)]):
                if t not in out:
                    out.append(t)
    return out


def select_variations(task: str, split: str, limit: int | None = None,
                      variations: Sequence[int] | None = None) -> list[int]:
    """Variations to run: explicit ones, or a split's (first ``limit``), without starting a JVM.

    Every task's splits are contiguous ranges (:func:`scenes.sciworld.split_variations`); the change-of-state
    tasks have 30 variations: train 0-13, dev 14-20, test 21-29 (:data:`SPLITS`).

    Raises:
        ConfigError: an unknown task or split, a ``limit`` below 1 or a variation out of the task's range
            (``limit=-1`` would play all but the last).
    """
    if limit is not None:
        check_number("limit", limit, POSITIVE_COUNT)
    name = resolve_task(task)
    every = split_variations(name, "all")
    for v in variations or ():
        check_number("variation", v, Range(0, len(every) - 1, integer=True))
    if variations:
        return list(variations)
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}; valid: {', '.join(SPLITS)}")
    out = list(split_variations(name, split))
    return out[:limit] if limit is not None else out


def read_simplification(text: str) -> str:
    """A ``--simplification`` value, normalised: ``easy``, ``none`` (ScienceWorld's empty string: no
    simplification) or a comma list of ScienceWorld's own labels (:data:`scenes.sciworld.SIMPLIFICATIONS`).

    Raises:
        ConfigError: an unknown label (the message names it and the valid ones), or ``easy`` combined with
            others (ScienceWorld then fails with "Unknown simplification label: easy").
    """
    flags = [f.strip() for f in str(text).split(",") if f.strip()]
    if flags in ([], ["none"]):
        return "none"
    bad = [f for f in flags if f not in (*SIMPLIFICATIONS, "easy")]
    if bad:
        raise ConfigError(f"unknown ScienceWorld simplification {bad[0]!r}; valid: 'easy' or 'none' alone, or a "
                          f"comma list of {', '.join(SIMPLIFICATIONS)}")
    if "easy" in flags and len(flags) > 1:
        raise ConfigError(f"simplification {text!r}: 'easy' cannot be combined with other labels in ScienceWorld "
                          f"1.2; spell the labels out instead ({', '.join(SIMPLIFICATIONS)})")
    return ",".join(dict.fromkeys(flags))


def env_simplification(simplification: str) -> str:
    """The string ScienceWorld takes for a :func:`read_simplification` value (``none`` -> ``""``)."""
    return "" if simplification == "none" else simplification


def _make_sciworld_env(task: str, step_limit: int, simplification: str = "easy") -> Any:
    from scenes.sciworld import ScienceWorldEnv

    return ScienceWorldEnv(task, simplification=env_simplification(simplification), step_limit=step_limit)


def episode_line(r: EpisodeResult) -> str:
    """One line per episode for logs and progress output."""
    return (f"{r.task:>30} var {r.variation:>2} {r.policy:>7} {r.llm or 'none':>6}: score {r.score:>4} "
            f"done={r.completed!s:5} moves {r.moves:>3} used {list(r.devices_used)} {r.failure}")


def run_options(config: AgentConfig, step_limit: int, simplification: str = "easy") -> dict[str, int | str]:
    """The settings an episode's outcome depends on beyond its task, variation and agent identity (ScienceWorld's
    simplification among them: rows of an ``easy`` run and of one without it are never mixed on resume)."""
    return {"step_limit": step_limit, "max_heat_waits": config.max_heat_waits,
            "max_cool_waits": config.max_cool_waits, "max_replans": config.max_replans,
            "simplification": simplification}


def episode_key(task: str, variation: int, config: AgentConfig, options: dict[str, int | str]) -> str:
    """The resume key: task, variation, policy and every option that changes the episode."""
    agent = {"policy": config.policy, "llm": config.llm, "interpret": config.interpretation,
             "device_specs": config.device_specs}
    return json.dumps([resolve_task(task), variation, agent, options], sort_keys=True)


def _row_key(r: EpisodeResult) -> str:
    agent = {"policy": r.policy, "llm": r.llm, "interpret": r.interpret, "device_specs": r.device_specs}
    options = {"simplification": "easy", **r.options}  # rows written before the option were all played with easy
    return json.dumps([r.task, r.variation, agent, options], sort_keys=True)


def read_episodes(path: str | Path) -> list[EpisodeResult]:
    """The rows of an ``episodes.jsonl`` ([] when there is none; a last row cut short by a crash is left out).

    Raises:
        DataError: a line that is not UTF-8, not a JSON object or not an episode row, naming the file and line.
        ConfigError: a device, FIFO or a file too large.
    """
    return _episodes(Path(path), read_numbered(path, what="episode row"))


def _episodes(path: Path, rows: Iterable[tuple[int, dict[str, Any]]]) -> list[EpisodeResult]:
    out: list[EpisodeResult] = []
    for n, raw in rows:
        try:
            out.append(EpisodeResult.model_validate(raw))
        except ValueError as e:
            raise DataError(path, f"line {n}", f"not an episode row of this version ({one_line(e, 200)}); move the "
                            "file away or give another --out") from None
    return out


def latest(rows: Iterable[EpisodeResult]) -> list[EpisodeResult]:
    """The last row per episode, in the order episodes were first played (a rerun replaces a crashed row)."""
    by_key: dict[str, EpisodeResult] = {}
    for r in rows:
        by_key.pop(_row_key(r), None)
        by_key[_row_key(r)] = r
    return list(by_key.values())


def dead_episode(task: str, variation: int, config: AgentConfig, options: dict[str, int | str],
                 error: BaseException) -> EpisodeResult:
    """The row of an episode whose simulator died: a failure with the reason."""
    try:
        broken = broken_devices(task, variation)
    except Exception:  # noqa: BLE001 - a task the fact table lacks: nothing is known to be broken
        broken = ()
    why = f"{type(error).__name__}: {error}"
    return EpisodeResult(task=resolve_task(task), variation=variation, broken=tuple(broken), policy=config.policy,
                         llm=config.llm, interpret=config.interpretation,
                         device_specs=config.device_specs, score=0, completed=False, moves=0, commands=0,
                         options=options, failure=f"the simulator died: {why}", error=why)


def run_identity(data_dir: Any = None) -> RunIdentity:
    """The identity of an ``episodes.jsonl``: every row names its agent and options itself (its key, so one file holds
    several agents), and all of them play on the COAT data of this fingerprint."""
    return RunIdentity({"results": "sciworld episodes", "key": "task, variation, agent, options"},
                       data_fingerprint(data_dir), of="data")


class _Rows:
    """``episodes.jsonl``, appended to through the results writer; earlier rows are read first (finished episodes
    are skipped)."""

    def __init__(self, out: str | Path | None, resume: bool, data_dir: Any = None) -> None:
        self.file: ResultsFile | None = None
        self.earlier: list[EpisodeResult] = []
        self.resume = resume
        if out is None:
            return
        self.file = ResultsFile(Path(out) / "episodes.jsonl", run_identity(data_dir), what="episode row")
        rows = self.file.open()
        try:
            self.earlier = _episodes(self.file.path, zip(self.file.line_numbers, rows, strict=True))
        except BaseException:
            self.file.close()
            raise

    def finished(self) -> dict[str, EpisodeResult]:
        """Earlier episodes that ended without a simulator failure, by key (these are not played again)."""
        return {_row_key(r): r for r in self.earlier if not r.error} if self.resume else {}

    def write(self, r: EpisodeResult) -> None:
        if self.file is not None:
            self.file.append(r)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def run_benchmark(
    tasks: Sequence[str],
    *,
    split: str = "test",
    limit: int | None = None,
    variations: Sequence[int] | None = None,
    configs: Sequence[AgentConfig] = (AgentConfig(),),
    step_limit: int = 150,
    simplification: str = "easy",
    out: str | Path | None = None,
    make_env: Callable[[str, int], Any] | None = None,
    data_dir: Any = None,
    progress: bool = True,
    resume: bool = True,
    pool: RayPool | None = None,
) -> list[EpisodeResult]:
    """Play every (task, variation, config) once and return the results.

    One JVM per task; agents are built once per config (the model loads once). With ``out``, every episode
    is appended to ``episodes.jsonl`` as it ends, and a rerun resumes: episodes already there (same task,
    variation, agent and options, :func:`episode_key`) are not played again. A simulator that dies (the env
    raises :class:`~planner.errors.SimulatorError`) makes that episode a failure with the reason
    (``EpisodeResult.error``); a new JVM is started and the benchmark goes on (a resume plays such episodes
    again). ``summary.md`` is written in the end, also when the run stops on an error.

    Args:
        tasks: Task names or ids, or ``all`` (:func:`expand_tasks`); tasks the agent has no play for yet are
            not played (:func:`not_played` lists them), never scored as if played.
        split: ``train``, ``dev``, ``test`` or ``all`` (:data:`SPLITS`).
        limit: The first N variations of the split per task.
        variations: Explicit variations (override ``split``).
        configs: One agent per config; each plays every variation.
        step_limit: ScienceWorld's ``envStepLimit`` (moves).
        simplification: ScienceWorld's simplification (:func:`read_simplification`: ``easy``, ``none`` or a
            comma list of its labels); part of every row's options, so a resume never mixes two.
        out: Directory for ``episodes.jsonl`` (one row per episode, appended as it ends) and ``summary.md``.
        make_env: ``(task, step_limit) -> SceneEnv`` (default: a ScienceWorldEnv with ``simplification``).
        data_dir: Data directory for the knowledge base and perception priors.
        progress: Show a tqdm progress bar over episodes (each episode is also logged at INFO).
        resume: Skip episodes ``out`` already holds (False: play them all again; rows are still appended).
        pool: Play on these Ray actors (:class:`~planner.bench.scale.RayPool`; each an :class:`EpisodePlayer`
            with its own agents and JVM) instead of in this process. Rows are appended as episodes end; an actor
            that dies on an episode twice makes it a failure with the reason, as a dead JVM does.

    Returns:
        The episodes of this benchmark (earlier rows of skipped ones included), in the order they are listed
        (task, variation, config).

    Raises:
        ConfigError: an unknown task (the message lists the 30), an unknown split or simplification (or one a
            task does not allow); ``make_env`` with ``pool``.
        SimulatorError: a new JVM could not be started.
    """
    from ...progress import progress as progress_bar

    check_number("step_limit", step_limit, POSITIVE_COUNT)
    simplification = read_simplification(simplification)
    if pool is not None and make_env is not None:
        raise ConfigError("run_benchmark: make_env runs in this process only; give it without pool, or pool "
                          "without make_env (the actors start ScienceWorld's JVMs)")
    names = expand_tasks(tasks)
    plan = [(task, select_variations(task, split, limit, variations))  # validated before a JVM starts
            for task in names if is_played(task)]
    for task, _vs in plan:
        check_simplification(task, env_simplification(simplification))  # noElectricalAction on a circuit task
    episodes: list[Episode] = [(task, v, k) for task, vs in plan for v in vs for k, c in enumerate(configs)
                               if c.policy != "default" or task in CHANGE_OF_STATE_TASKS]  # the baseline: stove tasks
    rows = _Rows(out, resume, data_dir)  # locked before the agents load: a second run on ``out`` is refused at once
    results: list[EpisodeResult] = []
    try:
        done = rows.finished()
        bar = progress_bar(total=len(episodes), unit="episode", desc="sciworld", disable=not progress)
        try:
            if pool is None:
                player = EpisodePlayer([ScienceWorldPlayer(c, data_dir=data_dir) for c in configs], step_limit,
                                       make_env or functools.partial(_make_sciworld_env,
                                                                     simplification=simplification),
                                       simplification)
                try:
                    _play_here(episodes, player, done, rows, results, bar)
                finally:
                    player.close()
            else:
                _play_remote(episodes, pool, functools.partial(episode_player, list(configs), step_limit, data_dir,
                                                               simplification),
                             (configs, step_limit, simplification), done, rows, results, bar)
        finally:
            bar.close()
            if out:
                summary = Path(out) / "summary.md"
                from .report import task_table

                now = latest(results)
                with writing(summary):
                    summary.write_text(task_table(now, not_played(names)) + "\n\n" + summarize(now))
    finally:
        rows.close()
    return results


class EpisodePlayer:
    """Plays one episode per call on one JVM per task: started when an episode of the task is to be played, closed
    when the next task comes, a new one after a death (the episode then a failure with the reason).

    Args:
        agents: One player per config (an episode names its config by index).
        step_limit: ScienceWorld's ``envStepLimit``.
        make_env: ``(task, step_limit) -> SceneEnv``.
        simplification: What ``make_env`` plays with (:func:`read_simplification`), for the rows' options.
    """

    def __init__(self, agents: Sequence[ScienceWorldPlayer], step_limit: int,
                 make_env: Callable[[str, int], Any], simplification: str = "easy") -> None:
        self.agents = list(agents)
        self.step_limit = step_limit
        self.simplification = simplification
        self.make_env = make_env
        self.task: str | None = None
        self.env: Any = None

    def __call__(self, episode: Episode) -> EpisodeResult:
        task, v, k = episode
        agent = self.agents[k]
        options = run_options(agent.config, self.step_limit, self.simplification)
        if task != self.task:
            self.close()
            self.task = task
        self.env = self.env or self.make_env(task, self.step_limit)
        try:
            return agent.run(self.env, v).model_copy(update={"options": options})
        except SimulatorError as e:
            logger.warning("%s var %s: the simulator died (%s); starting a new one", task, v, e)
            _close(self.env)
            self.env = None
            return dead_episode(task, v, agent.config, options, e)

    def close(self) -> None:
        """Close the JVM (if one runs)."""
        if self.env is not None:
            _close(self.env)
            self.env = None


def episode_player(configs: Sequence[AgentConfig], step_limit: int, data_dir: Any = None,
                   simplification: str = "easy") -> EpisodePlayer:
    """A Ray actor's worker for ``coat sciworld --ray``: its own agents, its own JVMs."""
    return EpisodePlayer([ScienceWorldPlayer(c, data_dir=data_dir) for c in configs], step_limit,
                         functools.partial(_make_sciworld_env, simplification=simplification), simplification)


def _key(episode: Episode, configs: Sequence[AgentConfig], step_limit: int, simplification: str) -> str:
    task, v, k = episode
    return episode_key(task, v, configs[k], run_options(configs[k], step_limit, simplification))


def _done(r: EpisodeResult, rows: _Rows, results: list[EpisodeResult], bar: Any) -> None:
    results.append(r)
    rows.write(r)
    logger.info("%s", episode_line(r))
    bar.set_postfix_str(f"{r.task} var {r.variation} {r.policy}: {r.score}", refresh=False)
    bar.update()


def _play_here(episodes: Sequence[Episode], player: EpisodePlayer, done: dict[str, EpisodeResult], rows: _Rows,
               results: list[EpisodeResult], bar: Any) -> None:
    """The episodes in this process, in order (those ``done`` holds taken from it)."""
    configs = [a.config for a in player.agents]
    for ep in episodes:
        earlier = done.get(_key(ep, configs, player.step_limit, player.simplification))
        if earlier is not None:
            results.append(earlier)
            bar.update()
            continue
        _done(player(ep), rows, results, bar)


def _play_remote(episodes: Sequence[Episode], pool: RayPool, make_player: Callable[[], EpisodePlayer],
                 run: tuple[Sequence[AgentConfig], int, str], done: dict[str, EpisodeResult], rows: _Rows,
                 results: list[EpisodeResult], bar: Any) -> None:
    """The episodes on Ray actors, appended as they end; ``results`` in the episodes' order at the end."""
    from ...bench.scale import Done

    configs, step_limit, simplification = run
    slots: list[EpisodeResult | None] = []
    todo: list[tuple[int, Episode]] = []
    for ep in episodes:
        earlier = done.get(_key(ep, configs, step_limit, simplification))
        slots.append(earlier)
        if earlier is not None:
            results.append(earlier)
            bar.update()
        else:
            todo.append((len(slots) - 1, ep))
    # a task's episodes on one actor, in order, on one JVM: what ScienceWorld shows (the order of an ambiguous
    # request's choices, which of two cups is "#2") depends on the episodes that JVM played before
    for out in pool.map(make_player, [ep for _, ep in todo], groups=[ep[0] for _, ep in todo]):
        pos, (task, v, k) = todo[out.index]
        if isinstance(out, Done):
            r = out.value
        else:  # the actor died on it twice: a failure with the reason, played again by a resume
            why = SimulatorError(f"the Ray actor playing it died: {out.reason}")
            r = dead_episode(task, v, configs[k], run_options(configs[k], step_limit, simplification), why)
        slots[pos] = r
        _done(r, rows, results, bar)
    results[:] = [r for r in slots if r is not None]


def _close(env: Any) -> None:
    try:
        env.close()
    except Exception as e:  # noqa: BLE001 - a dead simulator may fail to close; it is gone either way
        logger.debug("ignoring error while closing a dead simulator: %r", e)


def _label(r: EpisodeResult) -> str:
    if r.policy == "default":
        return "baseline: always the stove"
    return f"COAT agent (llm {r.llm or 'none'}, {r.interpret}{'' if r.device_specs else ', no device specs'})"


def summarize(results: Iterable[EpisodeResult]) -> str:
    """Markdown table per agent, change-of-state task and whether the variation breaks a device (the other
    tasks: :func:`~.report.task_table`)."""
    groups: dict[tuple[str, str, str], list[EpisodeResult]] = {}
    for r in results:
        if r.task not in CHANGE_OF_STATE_TASKS:
            continue
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


def not_played(names: Sequence[str]) -> list[str]:
    """The tasks among ``names`` (``all`` allowed) that the agent has no play for yet."""
    return [t for t in expand_tasks(names) if not is_played(t)]


__all__ = ["SPLITS", "EpisodePlayer", "dead_episode", "env_simplification", "episode_key", "episode_line",
           "episode_player", "expand_tasks", "latest", "not_played", "read_episodes", "read_simplification",
           "run_benchmark", "run_identity", "run_options", "select_variations", "summarize"]
