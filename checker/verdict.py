"""The verdict on one episode: :func:`judge` (task + recorded history -> :class:`Verdict`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .alfred import alfred_goal
from .coat import coat_goal, entry
from .history import History
from .request import request_goal
from .solver import Goal, Solution, solve
from .track import Track

Category = Literal["state-change", "placement", "proxy"]
MAX_LISTED = 5
"""Replay disagreements listed one by one (the rest are counted)."""


@dataclass(frozen=True)
class Verdict:
    """Whether an episode did its task, judged from what the world recorded.

    Attributes:
        success: True when every goal condition holds and nothing voids it; None for a proxy task (its effect
            cannot be shown in AI2-THOR).
        category: ``state-change`` (the task changes an object's state), ``placement`` (it puts objects
            somewhere) or ``proxy``.
        reasons: The goal, then each condition and why it holds or not (naming object ids).
        problems: What voids a success: a conjured liquid, a goal already true at reset, a replay that
            disagrees with the log.
        assignment: The objects the reasons are about (item name -> objectId).
    """

    success: bool | None
    category: Category
    reasons: tuple[str, ...]
    problems: tuple[str, ...] = ()
    assignment: Mapping[str, str] = field(default_factory=dict)


def task_goal(task: Mapping[str, Any]) -> tuple[Goal | None, str]:
    """The goal of a benchmark task (a TaskDef as a dict), or None for a proxy task; and a label for reasons.

    Raises:
        ValueError: an unknown kind or ALFRED type, or a missing field.
        KeyError: an unknown COAT task.
    """
    kind = task.get("kind")
    name = str(task.get("name", ""))
    if kind == "coat":
        return coat_goal(name), name
    if kind == "alfred":
        obj = task.get("obj")
        if not obj:
            raise ValueError(f"ALFRED task {name!r} needs obj")
        goal = alfred_goal(name, str(obj), task.get("recep"), task.get("movable"), bool(task.get("sliced", False)))
        return goal, f"{name}{' sliced' if task.get('sliced') else ''}"
    if kind == "request":
        conditions = task.get("goal")
        label = str(task.get("text") or name or "the request")
        return (None if conditions is None else request_goal(conditions, label=label)), label
    raise ValueError(f"unknown task kind {kind!r}; valid: alfred, coat, request")


def replay_problems(history: History) -> tuple[str, ...]:
    """One problem line per action whose replayed success differs from the logged one (the first few)."""
    bad = history.disagreements
    out = []
    for i in bad[:MAX_LISTED]:
        s = history.steps[i]
        target = f"({s.object_id})" if s.object_id else ""
        err = f": {s.error}" if s.error else ""
        out.append(f"replay disagrees with the log at action {i + 1} {s.action}{target}: logged "
                   f"success={s.logged}, replayed success={s.replayed}{err}")
    if len(bad) > MAX_LISTED:
        out.append(f"replay disagrees with the log at {len(bad) - MAX_LISTED} more actions")
    return tuple(out)


def conjured_liquids(history: History) -> tuple[str, ...]:
    """A problem line per successful FillObjectWithLiquid that is no pour (a liquid made from nothing)."""
    return tuple(f"conjured liquid: FillObjectWithLiquid({s.object_id}, {s.args.get('fillLiquid')}) at action "
                 f"{i + 1} (no faucet or coffee machine)"
                 for i, s in enumerate(history.steps)
                 if s.action == "FillObjectWithLiquid" and s.ok and history.poured_from(i) is None)


def _reasons(goal: Goal, sol: Solution) -> tuple[str, ...]:
    picked = ", ".join(f"{k}={v}" for k, v in sol.assignment.items()) or "no objects"
    return (f"goal: {goal.text}", f"objects: {picked}", *sol.missing,
            *(("[met] " if f.met else "[not met] ") + f.text for f in sol.findings))


def _dedup(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def unreachable_at_reset(task: Mapping[str, Any], history: History) -> str:
    """Why the world before the run cannot reach a request's labelled goal (no source of the liquid it asks for:
    :func:`checker.request.unreachable`), or "" (also for other tasks)."""
    from .request import unreachable

    if task.get("kind") != "request" or not task.get("goal"):
        return ""
    return unreachable(task["goal"], Track(History.of([list(history.frames[0])], [])))


def met_at_reset(task: Mapping[str, Any], history: History) -> bool:
    """True when a request's labelled goal already held, as an end state, on the world before the run (the scene
    left nothing to do: the mug asked to be washed was clean); False for other tasks and goals that cannot."""
    from .request import goal_at_reset

    if task.get("kind") != "request" or not task.get("goal"):
        return False
    goal = goal_at_reset(task["goal"])
    if goal is None:
        return False
    return solve(goal, Track(History.of([list(history.frames[0])], []))).met


def judge(task: Mapping[str, Any], history: History) -> Verdict:
    """Judge one episode: does the world's record show the task done?

    Args:
        task: The benchmark's TaskDef as a dict: ``{"kind": "alfred" | "coat", "name", "obj", "recep",
            "movable", "sliced"}``, or a request's label: ``{"kind": "request", "text", "goal": [conditions] |
            None, "unobservable"}`` (:mod:`checker.request`).
        history: What the world recorded (:func:`~checker.replay` or :meth:`History.of`).

    Returns:
        The :class:`Verdict`. ``success`` is True only when some assignment of distinct objects meets every
        condition and no problem voids it.
    """
    goal, label = task_goal(task)
    problems = replay_problems(history)
    if goal is None:
        why = task.get("unobservable") if task.get("kind") == "request" else entry(str(task.get("name", "")))[1]["why"]
        return Verdict(None, "proxy", (f"proxy: {label}: {why or 'no effect AI2-THOR can show'}",), problems)
    if goal.liquid:
        problems += conjured_liquids(history)
    sol = solve(goal, Track(history))
    problems += tuple(f.problem for f in sol.findings if f.problem)
    problems = _dedup(problems)
    success = sol.met and not problems
    return Verdict(success, goal.category, _reasons(goal, sol), problems, dict(sol.assignment))  # type: ignore[arg-type]


__all__ = ["Category", "Verdict", "conjured_liquids", "judge", "met_at_reset", "replay_problems", "task_goal"]
