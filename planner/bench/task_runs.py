"""Running the household task benchmark's episodes: the planner, the baseline, one JSONL row per episode.

For each :class:`~planner.bench.tasks.Episode`:

- **planner**: ``plan(spec, scene, options=...)`` then the closed loop ``execute_plan(plan, max_replans=...)``
  (re-decides a role whose object turns out unusable and re-plans);
- **baseline**: never substitutes, never re-plans: the role is bound to an object of the ideal type (the ideal
  object itself when it is still there), or the episode fails when none is left; the other roles are decided
  by the knowledge strategy; the steps run open loop (``skills.run_skill`` one after the other, stopping at
  the first failure, as ``skills.execute`` does) and the goals are checked at the end with
  :func:`planner.goals.check_all`.

The knowledge strategy's choice for the role in the *perturbed* scene is the reference for agreement.

Output files never overwrite results: rows go through the results writer (:mod:`planner.results`, see
:func:`open_rows`), which refuses a file that has rows unless asked to resume, and resuming appends only the
episodes whose key (``seed:index``) the file lacks, after checking the run's identity (config and data) recorded
beside the file.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..results import ResultsFile, RunIdentity, data_fingerprint

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from .scale import RayPool
    from .tasks import Episode, TaskBenchConfig

log = logging.getLogger(__name__)

INFEASIBLE_MARKS = ("no substitute", "no object in scene", "no usable", "infeasible", "to act on")
"""Failure texts that report the task infeasible (rather than a step that went wrong)."""


def reports_infeasible(side: dict[str, Any]) -> bool:
    """True when a run ended not achieved and said the task cannot be done (a plan infeasible, no substitute)."""
    if side.get("success"):
        return False
    if side.get("plan_feasible") is False:
        return True
    return any(m in str(side.get("failure", "")) for m in INFEASIBLE_MARKS)


class Runner:
    """Runs episodes with one config: the planner (with the config's model) and the baseline."""

    def __init__(self, cfg: TaskBenchConfig, kb: KnowledgeBase, *, llm: Any = None) -> None:
        from ..api import make_estimator

        self.cfg = cfg
        self.kb = kb
        self.llm = llm
        self.estimator = make_estimator(kb)

    def row(self, ep: Episode) -> dict[str, Any]:
        """Run one episode both ways; the JSONL row. Everything it reads (scene files, the checker's replay) comes
        from the directory the knowledge base was loaded from."""
        from ..paths import use_data_dir

        with use_data_dir(self.kb.root):
            return self._row(ep)

    def _row(self, ep: Episode) -> dict[str, Any]:
        spec = ep.task_def().spec(self.kb)
        try:
            knowledge = self._knowledge_choice(ep, spec)
        except Exception:  # the sides report the same crash
            log.debug("episode %s: no knowledge choice", ep.key, exc_info=True)
            knowledge = None
        planner = self._guard(self._planner, ep, spec)
        baseline = self._guard(self._baseline, ep, spec)
        for side in (planner, baseline):
            chosen = side.get("chosen")
            side["agreement"] = None if knowledge is None and chosen is None else chosen == knowledge
            side["infeasible_reported"] = reports_infeasible(side)
            side["checker"] = self._check(ep, side.pop("actions", None))
        return {
            "config_hash": self.cfg.hash(), "key": ep.key, "seed": ep.seed, "index": ep.index, "scene": ep.scene,
            "task": ep.task, "kind": ep.kind, "task_type": ep.task_type, "condition": ep.condition, "role": ep.role,
            "ideal": ep.ideal, "ideal_type": ep.ideal_type, "perturb": [dict(p) for p in ep.perturb],
            "goal_kind": ep.goal_kind, "extensions": list(ep.extensions), "native": ep.native,
            "model": self.cfg.model_id, "strategy": self.cfg.strategy, "knowledge_choice": knowledge,
            "success": planner["success"], "failure": planner["failure"],
            "planner": planner, "baseline": baseline,
        }

    def _check(self, ep: Episode, actions: list[dict[str, Any]] | None) -> dict[str, Any] | None:
        """The independent checker's verdict on a run: the episode replayed from its actions (the same reset), the
        task judged from the task's own definition (``checker``, which shares no code with the planner's goals).
        None when the side sent no action (an infeasible plan)."""
        if actions is None:
            return None
        import checker

        try:
            verdict = checker.judge(ep.taskdef, checker.replay(ep.scene, ep.seed, ep.options, actions))
        except Exception as e:  # a checker crash is counted, never a confirmation
            log.debug("episode %s: the checker failed", ep.key, exc_info=True)
            return {"success": False, "category": "error", "reasons": [f"checker error: {type(e).__name__}: {e}"],
                    "problems": []}
        return {"success": verdict.success, "category": verdict.category, "reasons": list(verdict.reasons),
                "problems": list(verdict.problems)}

    def _guard(self, fn: Any, ep: Episode, spec: Any) -> dict[str, Any]:
        """Run one side; an exception is the episode's failure (counted, not raised)."""
        t0 = time.perf_counter()
        try:
            out = fn(ep, spec)
        except Exception as e:  # a crash is a result of the benchmark, grouped with the other failures
            log.debug("episode %s crashed", ep.key, exc_info=True)
            out = _side(success=False, failure=f"error: {type(e).__name__}: {e}")
        out["wall_ms"] = round(1000 * (time.perf_counter() - t0), 3)
        return out

    def _knowledge_choice(self, ep: Episode, spec: Any) -> str | None:
        from ..scene_planner import plan_in_state

        _obs, state, aff = self._observe(ep)
        p = plan_in_state(spec, state, llm=None, strategy="knowledge", kb=self.kb, affordances=aff)
        return p.bindings.get(ep.role) if p.feasible else None

    def _observe(self, ep: Episode) -> tuple[Any, Any, Any]:
        import scenes

        from ..steps import affordances_of

        with scenes.make(ep.scene, frames=False, data_dir=self.kb.root) as env:
            obs, _ = env.reset(seed=ep.seed, options=ep.options)
        return obs, self.estimator.estimate(obs), affordances_of(obs.objects)

    def _planner(self, ep: Episode, spec: Any) -> dict[str, Any]:
        from ..api import execute_plan, plan

        p = plan(spec, ep.scene, llm=self.llm, strategy=self.cfg.strategy, seed=ep.seed,  # type: ignore[arg-type]
                 options=ep.options, kb=self.kb)
        chosen = p.bindings.get(ep.role) if p.feasible else None
        if not p.feasible:
            return _side(success=False, failure=p.reason or "the plan is infeasible", plan_feasible=False,
                         chosen=chosen)
        tr = execute_plan(p, llm=self.llm, strategy=self.cfg.strategy, max_replans=self.cfg.max_replans,  # type: ignore[arg-type]
                          kb=self.kb)
        final = tr.bindings.get(ep.role)
        return _side(
            success=tr.achieved, failure=tr.failure, plan_feasible=True, chosen=chosen, final=final,
            substituted=final is not None and final != ep.ideal, goal_rate=tr.goal_rate, replans=tr.replans,
            violations=list(tr.violations), steps=tr.steps, sim_time=tr.time, skills=len(tr.results),
            actions=[a.model_dump() for r in tr.results for a in r.actions],
        )

    def _baseline(self, ep: Episode, spec: Any) -> dict[str, Any]:
        import scenes

        from ..agents.household import safety_at_end
        from ..goals import check_all
        from ..scene_planner import plan_in_state
        from ..steps import affordances_of

        with scenes.make(ep.scene, frames=False, data_dir=self.kb.root) as env:
            obs, _ = env.reset(seed=ep.seed, options=ep.options)
            same = [str(o["objectId"]) for o in obs.objects if o.get("objectType") == ep.ideal_type]
            if not same:
                return _side(success=False, failure=f"no {ep.ideal_type} left for {ep.role} (the baseline never "
                             "substitutes): infeasible", plan_feasible=False)
            oid = ep.ideal if ep.ideal in same else same[0]
            p = plan_in_state(spec, self.estimator.estimate(obs), llm=None, strategy="knowledge", kb=self.kb,
                              affordances=affordances_of(obs.objects), fixed={ep.role: oid})
            if not p.feasible:
                return _side(success=False, failure=p.reason or "the plan is infeasible", plan_feasible=False,
                             chosen=oid)
            initial = tuple(obs.objects)
            results, obs, failure, unsafe, booked = _open_loop(env, obs, p.steps)
            goals = check_all(spec.goals, obs.objects, p.bindings, booked)
        achieved = bool(goals) and all(g.met for g in goals)
        if not failure and not achieved:
            failure = "goal not met: " + "; ".join(g.condition.text() for g in goals if not g.met)
        tidy = safety_at_end(spec, p.bindings, initial, obs.objects, [a for r in results for a in r.actions])
        return _side(
            success=achieved, failure="" if achieved else failure, plan_feasible=True, chosen=oid, final=oid,
            substituted=oid != ep.ideal, goal_rate=sum(g.met for g in goals) / len(goals) if goals else 0.0,
            violations=unsafe + tidy, steps=sum(r.steps for r in results), sim_time=float(obs.time or 0.0),
            skills=len(results), actions=[a.model_dump() for r in results for a in r.actions],
        )


def _open_loop(env: Any, obs: Any, steps: Iterable[Any]) -> tuple[list[Any], Any, str, list[str], dict[str, Any]]:
    """The steps one after the other, stopping at the first failure; (results, last obs, failure, unsafe, booked:
    what each step changed, for ``when="once"`` goals)."""
    from skills import run_skill

    from .. import safety
    from ..agents.household import _unsafe_actions, treated
    from ..goals import book

    results: list[Any] = []
    unsafe: list[str] = []
    booked: dict[str, Any] = {}
    for call in steps:
        pre = obs
        res, obs = run_skill(env, obs, call)
        results.append(res)
        unsafe += _unsafe_actions(pre, res)
        unsafe += [v for v in safety.wet(obs.objects) if v not in unsafe]
        book(booked, obs.objects, pre.objects, treated(call, res, obs.objects))
        if not res.ok:
            return results, obs, f"{call.skill}({call.target}): {res.reason}", unsafe, booked
        if getattr(env, "terminated", False):
            return results, obs, "episode ended", unsafe, booked
    return results, obs, "", unsafe, booked


def _side(**kw: Any) -> dict[str, Any]:
    """One side's metrics, with defaults for a run that did not execute."""
    out: dict[str, Any] = {"success": False, "failure": "", "plan_feasible": None, "chosen": None, "final": None,
                           "substituted": False, "goal_rate": 0.0, "replans": 0, "violations": [], "steps": 0,
                           "sim_time": 0.0, "skills": 0}
    out.update(kw)
    out["failure"] = str(out["failure"])
    return out


# ---------------------------------------------------------------- rows on disk


def run_identity(cfg: TaskBenchConfig, kb: KnowledgeBase) -> RunIdentity:
    """The identity of a run's rows: every setting that changes an episode (:meth:`TaskBenchConfig.hash`'s, so not
    the episode count: a resume may add episodes) and the COAT data's fingerprint."""
    config = cfg.model_dump(mode="json", exclude={"episodes"})
    config["scenes"] = list(cfg.scene_ids())
    return RunIdentity({"results": "task episodes", **config}, data_fingerprint(kb.root), of="data")


def open_rows(path: str | Path, cfg: TaskBenchConfig, kb: KnowledgeBase, *, resume: bool) -> ResultsFile:
    """The episodes file of a run, opened through the results writer (:class:`planner.results.ResultsFile`):
    locked, of this run's identity, refused when it has rows and ``resume`` is False."""
    return ResultsFile(path, run_identity(cfg, kb), resume=resume, what="episode row", sort_keys=True,
                       refuse_hint=_REFUSE_HINT)


_REFUSE_HINT = "pass --resume to add only the missing episodes of the same config"


def episode_worker(cfg: TaskBenchConfig, data_dir: str) -> Callable[[int], dict[str, Any]]:
    """A Ray actor's worker for ``coat bench tasks --ray``: episode ``i`` drawn and run both ways, as in
    :func:`run_tasks` (its own knowledge base, sampler and model client; the draw of an episode depends on its
    index only)."""
    from ..knowledge import load_knowledge
    from .tasks import Sampler

    kb = load_knowledge(data_dir)
    llm = None
    if cfg.llm is not None:
        from ..llm import make_llm

        llm = make_llm(cfg.llm)
    sampler, runner = Sampler(cfg, kb), Runner(cfg, kb, llm=llm)
    return lambda i: runner.row(sampler.episode(i))


def run_tasks(cfg: TaskBenchConfig, kb: KnowledgeBase, *, llm: Any = None, out: str | Path | ResultsFile | None = None,
              resume: bool = False, progress: bool = True, pool: RayPool | None = None) -> list[dict[str, Any]]:
    """Sample the config's episodes and run each (both sides); the rows, in episode order.

    With ``out`` (a JSONL file, or a :class:`~planner.results.ResultsFile` the caller locked and closes) every row is
    appended as soon as it is measured, through the results writer: a file that has rows is refused unless
    ``resume``, and resuming adds only the episodes whose key (``seed:index``) the file lacks, for the same config
    and data. Everything the run reads (scene files, the checker's replays) comes from the directory ``kb`` was
    loaded from.

    With ``pool`` the episodes run on its Ray actors (:func:`episode_worker`, the model made from ``cfg.llm`` in
    each); rows are appended here as they complete, the same rows but for the wall times.

    Raises:
        ConfigError: ``out`` has rows and ``resume`` is False, has rows of another config or data, or another run
            holds it.
        WorkerLostError: Ray actors died on some episodes (each tried twice); every other row is written.
    """
    from .tasks import Sampler

    f = None
    if out is not None:
        f = out if isinstance(out, ResultsFile) else open_rows(out, cfg, kb, resume=resume)
        f.resume, f.what, f.sort_keys, f.refuse_hint = resume, "episode row", True, _REFUSE_HINT
        f.open(run_identity(cfg, kb))
    try:
        done = {str(r.get("key")): r for r in f.rows} if f is not None else {}
        if pool is not None:
            return _run_remote(cfg, kb, pool, done, f, progress)
        sampler = Sampler(cfg, kb)
        runner = Runner(cfg, kb, llm=llm)
        rows: list[dict[str, Any]] = []
        bar = _progress(cfg.episodes, progress)
        for i in range(cfg.episodes):  # each row is measured in the knowledge base's data directory (Runner.row)
            key = f"{cfg.seed}:{i}"
            if key in done:
                rows.append(done[key])
            else:
                row = runner.row(sampler.episode(i))
                if f is not None:
                    f.append(row)
                rows.append(row)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
    finally:
        if f is not None and f is not out:
            f.close()
    return rows


def _run_remote(cfg: TaskBenchConfig, kb: KnowledgeBase, pool: RayPool, done: dict[str, dict[str, Any]],
                f: ResultsFile | None, progress: bool) -> list[dict[str, Any]]:
    """:func:`run_tasks` on Ray actors: the episodes ``done`` lacks, each row appended as it completes."""
    from .scale import Done, Lost, lost_error

    by_index = {i: done[f"{cfg.seed}:{i}"] for i in range(cfg.episodes) if f"{cfg.seed}:{i}" in done}
    todo = [i for i in range(cfg.episodes) if i not in by_index]
    bar = _progress(cfg.episodes, progress)
    if bar is not None:
        bar.update(len(by_index))
    lost: list[Lost] = []
    try:
        for out in pool.map(functools.partial(episode_worker, cfg, str(kb.root)), todo):
            if isinstance(out, Done):
                by_index[todo[out.index]] = out.value
                if f is not None:
                    f.append(out.value)
            else:
                lost.append(out)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    if lost:
        raise lost_error(lost, lambda k: f"episode {cfg.seed}:{todo[k]}", "episodes",
                         "run again with the same --out and --resume")
    return [by_index[i] for i in range(cfg.episodes)]


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from ..progress import progress as progress_bar

    return progress_bar(total=total, desc="episodes", unit="ep", leave=False)


__all__ = ["INFEASIBLE_MARKS", "Runner", "episode_worker", "open_rows", "reports_infeasible", "run_identity",
           "run_tasks"]
