"""Per-task results of a ScienceWorld run: a Markdown table and a JSON summary document.

Every task asked for appears: the played ones with their mean score, completion, moves, skill-level
commands, seconds and failures by cause; the ones the agent has no play for yet as "not played", never as a
score of 0. The overall means are over the played tasks; ``mean_score_all_30`` counts a task not played as 0
and says so (a lower bound, not a measurement of those tasks).

Example:
    >>> print(task_table([], ["grow-plant"]).splitlines()[-1])
    | grow-plant | not played | | | | | | |
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from scenes.sciworld import tasks

from .contracts import EpisodeResult

ALL_TASKS = 30
"""ScienceWorld's task count."""


def failure_cause(r: EpisodeResult) -> str:
    """A short cause for a failed episode (``step limit``, ``task failed`` (a wrong focus), ``sw_pick_up``...)."""
    text = r.failure or ("not completed" if not r.completed else "")
    head = text.split(":")[0].split("(")[0].strip()
    return head[:40] or "not completed"


def _by_task(results: Iterable[EpisodeResult], policy: str = "coat") -> dict[str, list[EpisodeResult]]:
    out: dict[str, list[EpisodeResult]] = {}
    for r in results:
        if r.policy == policy and r.played:
            out.setdefault(r.task, []).append(r)
    order = {t: i for i, t in enumerate(tasks())}
    return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], 99)))


def task_stats(rs: Sequence[EpisodeResult]) -> dict[str, Any]:
    """Mean score, completion, moves, commands, seconds and failures by cause of one task's episodes."""
    n = len(rs)
    causes = Counter(failure_cause(r) for r in rs if not r.completed)
    return {"episodes": n, "mean_score": round(sum(r.score for r in rs) / n, 1),
            "completed_rate": round(sum(r.completed for r in rs) / n, 3),
            "mean_moves": round(sum(r.moves for r in rs) / n, 1),
            "mean_commands": round(sum(r.commands for r in rs) / n, 1),
            "mean_seconds": round(sum(r.seconds for r in rs) / n, 2),
            "failures": dict(causes.most_common())}


def summary_json(results: Iterable[EpisodeResult], not_played: Sequence[str]) -> dict[str, Any]:
    """The run as one document: ``mean_score`` over played tasks, per-task stats, the tasks not played."""
    per = {t: {"played": True, **task_stats(rs)} for t, rs in _by_task(results).items()}
    for t in not_played:
        per[t] = {"played": False, "mean_score": None, "completed_rate": None, "episodes": 0}
    played = [v for v in per.values() if v["played"]]
    mean = round(sum(v["mean_score"] for v in played) / len(played), 1) if played else None
    return {"mean_score": mean, "tasks_played": len(played), "tasks_not_played": sorted(not_played),
            "mean_score_all_30": round(sum(v["mean_score"] for v in played) / ALL_TASKS, 1) if played else None,
            "mean_score_all_30_note": "tasks not played count as 0 here (a lower bound, not a measurement)",
            "tasks": per}


def task_table(results: Iterable[EpisodeResult], not_played: Sequence[str] = ()) -> str:
    """Markdown: one row per task (COAT agent), then the mean over the played tasks."""
    lines = ["| task | episodes | mean score | completed | mean moves | commands | seconds | failures by cause |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    by = _by_task(results)
    for t, rs in by.items():
        st = task_stats(rs)
        fails = ", ".join(f"{k} ×{v}" for k, v in st["failures"].items()) or "–"
        lines.append(f"| {t} | {st['episodes']} | {st['mean_score']:.1f} | {st['completed_rate']:.0%} | "
                     f"{st['mean_moves']:.0f} | {st['mean_commands']:.0f} | {st['mean_seconds']:.1f} | {fails} |")
    if by:
        means = [task_stats(rs)["mean_score"] for rs in by.values()]
        lines.append(f"| **mean over {len(by)} played tasks** | {sum(len(r) for r in by.values())} | "
                     f"**{sum(means) / len(means):.1f}** | | | | | |")
    lines += [f"| {t} | not played | | | | | | |" for t in not_played]
    return "\n".join(lines)


__all__ = ["ALL_TASKS", "failure_cause", "summary_json", "task_stats", "task_table"]
