"""Summaries of the household task benchmark's rows: per condition and task type, planner beside baseline.

Metrics of one side (``planner`` or ``baseline``) over a group of rows:

- ``success_rate``: share of episodes whose goal conditions all hold at the end (each item's conditions on one
  instance) and whose success the independent checker does not deny, over the episodes where a usable object
  exists (every condition but ``none-usable``); ``claimed_success_rate`` the same without the checker;
- ``infeasible_reported_rate``: over ``none-usable`` episodes, the share that ended not achieved *and* said so
  (the plan was infeasible, or execution stopped for want of a substitute); a success there is impossible;
- ``goal_condition_rate``: mean share of goal conditions met (ALFRED's goal-condition success);
- ``substitution_rate``: share whose final binding of the perturbed role is not the ideal object;
- ``agreement``: share whose chosen object is the knowledge strategy's choice in the same (perturbed) scene;
- ``checked_success_rate``: the same share as the independent checker (``checker/``, sharing no code with
  :mod:`planner.goals`) judges it from the replayed episode, over the episodes it can check;
- ``false_successes``: successes that should not be: claimed where no usable object exists, or denied by the
  checker (a proxy task's success claims only its proxy goal and is not held against it);
- ``safety_events``: :mod:`planner.safety` events by kind (every kind listed); ``safety_violations`` their total;
- ``replans_per_episode``, ``steps`` and ``sim_time`` (means), ``median_wall_ms`` (plan + execution, per episode).

The summary reports three parts apart (:func:`split`): ``native`` (goals that are the task, in situations
AI2-THOR 5.0.0 can produce: the headline), ``extension`` (resting on a COAT extension: dirt or breakage on types
AI2-THOR cannot dirty or break, busy timers, faulty appliances, tools that break on pickup, the Cake type) and
``proxy`` (goals that stand in for an effect AI2-THOR cannot show). The top level is every episode together.

In ``by_condition``, ``success_rate`` of ``none-usable`` is its ``infeasible_reported_rate`` (the right outcome
there). Failure reasons are grouped with object ids replaced by their types and numbers by ``N``.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..arguments import PLOT_SUFFIXES
from ..errors import ConfigError
from ..safety import by_kind
from ..terminal import echo, rich_text, safe_text
from .tasks import CONDITIONS, GOAL_KINDS

SIDES: tuple[str, ...] = ("planner", "baseline")


def _mean(xs: Sequence[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def is_false_success(row: dict[str, Any], side: str) -> bool:
    """A success that should not be: claimed where no usable object exists, or not confirmed by the independent
    checker (``checker.success`` False for a task it can check). A proxy task's success claims only its proxy
    goal (:func:`split`): the checker's verdict on the task itself is not held against it."""
    x = row[side]
    if not x.get("success"):
        return False
    if row["condition"] == "none-usable":
        return True
    return row.get("goal_kind") != "proxy" and (x.get("checker") or {}).get("success") is False


def side_metrics(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    """The metrics of one side over ``rows`` (module docstring)."""
    s = [r[side] for r in rows]
    usable = [r[side] for r in rows if r["condition"] != "none-usable"]
    none = [r[side] for r in rows if r["condition"] == "none-usable"]
    agree = [float(x["agreement"]) for x in s if x.get("agreement") is not None]
    walls = [float(x.get("wall_ms", 0.0)) for x in s]
    checked = [x["checker"]["success"] for x in usable if (x.get("checker") or {}).get("success") is not None]
    usable_rows = [r for r in rows if r["condition"] != "none-usable"]
    return {
        "episodes": len(rows),
        "success_rate": _mean([float(r[side]["success"] and not is_false_success(r, side)) for r in usable_rows]),
        "claimed_success_rate": _mean([float(x["success"]) for x in usable]),
        "checked_success_rate": _mean([float(c) for c in checked]),
        "infeasible_reported_rate": _mean([float(bool(x.get("infeasible_reported"))) for x in none]),
        "false_successes": sum(is_false_success(r, side) for r in rows),
        "safety_events": by_kind(v for x in s for v in x.get("violations") or ()),
        "goal_condition_rate": _mean([float(x.get("goal_rate", 0.0)) for x in s]),
        "substitution_rate": _mean([float(bool(x.get("substituted"))) for x in s]),
        "agreement": _mean(agree),
        "replans_per_episode": _mean([float(x.get("replans", 0)) for x in s]),
        "safety_violations": sum(len(x.get("violations") or []) for x in s),
        "steps": _mean([float(x.get("steps", 0)) for x in s]),
        "sim_time": _mean([float(x.get("sim_time", 0.0)) for x in s]),
        "median_wall_ms": round(statistics.median(walls), 3) if walls else None,
    }


def _groups(rows: Sequence[dict[str, Any]], key: str, order: Sequence[str] = ()) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in order}
    for r in rows:
        out.setdefault(str(r[key]), []).append(r)
    return out


def _grouped(rows: Sequence[dict[str, Any]], side: str, key: str, order: Sequence[str] = ()) -> dict[str, Any]:
    out = {}
    for k, rs in _groups(rows, key, order).items():
        m = side_metrics(rs, side)
        if k == "none-usable":
            m["success_rate"] = m["infeasible_reported_rate"]
        out[k] = m
    return out


_ID = re.compile(r"\b([A-Z][A-Za-z]+)\|[^\s,;:()']*")
_NUM = re.compile(r"\b\d+(\.\d+)?\b")


def reason_group(failure: str) -> str:
    """A failure reason with object ids replaced by their types and numbers by ``N`` (for grouping)."""
    text = _ID.sub(r"\1", failure)
    text = re.sub(r"'FloorPlan\w+'|'Embedded\w+'", "<scene>", text)
    return _NUM.sub("N", text)[:160]


def failure_groups(rows: Sequence[dict[str, Any]], side: str = "planner", examples: int = 3) -> list[dict[str, Any]]:
    """Failures of the episodes that should have succeeded (and false successes), grouped by reason."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        s = r[side]
        false = is_false_success(r, side)
        if false or not s["success"] and r["condition"] != "none-usable":
            if not false:
                reason = reason_group(s.get("failure", ""))
            elif r["condition"] == "none-usable":
                reason = "false success (no usable object)"
            else:
                reason = "false success (the checker: " + reason_group("; ".join(
                    (s.get("checker") or {}).get("reasons") or ())) + ")"
            groups[reason].append(r)
    out = []
    for reason, rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        conds = Counter(r["condition"] for r in rs)
        out.append({"reason": reason, "count": len(rs), "conditions": dict(conds),
                    "examples": [{k: r[k] for k in ("key", "scene", "task", "condition", "seed")}
                                 for r in rs[:examples]]})
    return out


def split(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of each report part: ``native`` (goals that are the task, in situations AI2-THOR can produce: the
    headline), ``extension`` (goals that are the task, resting on a COAT extension), ``proxy`` (goals that stand
    in for an effect AI2-THOR cannot show). Rows written before the parts existed count as native."""
    out: dict[str, list[dict[str, Any]]] = {"native": [], "extension": [], "proxy": []}
    for r in rows:
        part = "proxy" if r.get("goal_kind") == "proxy" else "extension" if r.get("extensions") else "native"
        out[part].append(r)
    return out


def summarize(rows: Sequence[dict[str, Any]], cfg: Any = None) -> dict[str, Any]:
    """The benchmark's JSON summary: the planner's metrics at the top, ``baseline`` beside, grouped views.

    ``native``, ``extension`` and ``proxy`` (:func:`split`) each carry the side's metrics and ``by_condition``;
    ``native.success_rate`` is the headline. The top level is every episode together (for comparison with
    earlier runs, not a headline).
    """
    out: dict[str, Any] = dict(side_metrics(rows, "planner"))
    out["by_condition"] = _grouped(rows, "planner", "condition", CONDITIONS)
    out["by_task_type"] = _grouped(rows, "planner", "task_type")
    out["by_goal_kind"] = _grouped([{**r, "goal_kind": r.get("goal_kind", "state-change")} for r in rows], "planner",
                                   "goal_kind", GOAL_KINDS)
    parts = split(rows)
    base = side_metrics(rows, "baseline")
    base["by_condition"] = _grouped(rows, "baseline", "condition", CONDITIONS)
    base["by_task_type"] = _grouped(rows, "baseline", "task_type")
    for name, rs in parts.items():
        out[name] = side_metrics(rs, "planner") | {"by_condition": _grouped(rs, "planner", "condition", CONDITIONS)}
        base[name] = side_metrics(rs, "baseline") | {"by_condition": _grouped(rs, "baseline", "condition",
                                                                              CONDITIONS)}
    out["extensions"] = dict(Counter(e for r in rows for e in r.get("extensions") or ()))
    out["baseline"] = base
    out["failures"] = failure_groups(rows, "planner")
    out["baseline_failures"] = failure_groups(rows, "baseline")
    if cfg is not None:
        out["config"] = cfg.model_dump(exclude={"scenes"}) | {"scenes": len(cfg.scene_ids())}
        out["config_hash"] = cfg.hash()
        out["model"] = cfg.model_id
        out["seed"] = cfg.seed
    return out


# ---------------------------------------------------------------- tables and the plot


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


TABLE_COLUMNS: tuple[str, ...] = (
    "group", "n", "success % (P / B)", "goal-cond % (P / B)", "subst % (P / B)", "agree % (P / B)",
    "replans (P)", "unsafe (P / B)", "steps (P / B)", "sim s (P / B)", "wall ms (P / B)",
)


def table_rows(summary: dict[str, Any], by: str = "by_condition") -> list[list[str]]:
    """One table row per group (condition or task type) and the total, planner / baseline side by side."""
    out = []
    groups = list(summary[by].items()) + [("all", summary)]
    for name, m in groups:
        b = summary["baseline"][by].get(name) if name != "all" else summary["baseline"]
        if not m["episodes"]:
            continue
        ok = "success_rate" if name != "all" else "success_rate"
        out.append([
            name, str(m["episodes"]), f"{_pct(m[ok])} / {_pct(b[ok])}",
            f"{_pct(m['goal_condition_rate'])} / {_pct(b['goal_condition_rate'])}",
            f"{_pct(m['substitution_rate'])} / {_pct(b['substitution_rate'])}",
            f"{_pct(m['agreement'])} / {_pct(b['agreement'])}", _num(m["replans_per_episode"]),
            f"{m['safety_violations']} / {b['safety_violations']}", f"{_num(m['steps'], 1)} / {_num(b['steps'], 1)}",
            f"{_num(m['sim_time'], 1)} / {_num(b['sim_time'], 1)}",
            f"{_num(m['median_wall_ms'], 1)} / {_num(b['median_wall_ms'], 1)}",
        ])
    return out


def markdown_table(summary: dict[str, Any], by: str = "by_condition") -> str:
    """The table as GitHub markdown."""
    head = "| " + " | ".join(TABLE_COLUMNS) + " |\n|" + "---|" * len(TABLE_COLUMNS) + "\n"
    return head + "\n".join("| " + " | ".join(r) + " |" for r in table_rows(summary, by)) + "\n"


def print_table(summary: dict[str, Any], by: str = "by_condition", file: Any = None) -> None:
    """Print the table: with rich when it is installed, plain text otherwise."""
    import sys


    title = f"household tasks {by.removeprefix('by_').replace('_', ' ')}: planner (P) vs baseline (B)"
    print_rows(title, list(TABLE_COLUMNS), table_rows(summary, by), file=file or sys.stdout)


def print_rows(title: str, head: list[str], rows: list[list[str]], *, file: Any) -> None:
    """A table with its first column left-aligned: with rich when it is installed, plain text otherwise."""
    from .._optional import is_available

    if is_available("rich"):
        from rich.console import Console
        from rich.table import Table

        t = Table(title=rich_text(title))  # Text: markup and escapes in a name or path are shown, not acted on
        for i, c in enumerate(head):
            t.add_column(rich_text(c), justify="left" if i == 0 else "right")
        for r in rows:
            t.add_row(*(rich_text(x) for x in r))
        Console(file=file, width=200).print(t)
        return
    rows = [[safe_text(x) for x in r] for r in rows]  # widths of what is printed
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(head)]
    echo(title, file=file)
    for r in [head, *rows]:
        cells = (x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths, strict=True)))
        echo("  ".join(cells), file=file)


def plot_bars(path: str, groups: list[str], series: list[tuple[str, list[float]]], *, ylabel: str,
              line: float | None, title: str) -> str:
    """Grouped bars in percent, one series beside the other per group, with a target line unless ``line`` is None
    (matplotlib, the ``report`` extra); returns the path."""
    from .._optional import require

    if Path(path).suffix.lower() not in PLOT_SUFFIXES:  # matplotlib would add ".png" and write elsewhere
        raise ConfigError(f"plot {path!r}: give a picture file ending in {', '.join(PLOT_SUFFIXES)}")
    require("matplotlib", extra="report")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(8, 4.0))
    for j, (label, values) in enumerate(series):
        offset = (j - (len(series) - 1) / 2) * width
        ax.bar([i + offset for i in range(len(groups))], values, width=width, label=label)
    ax.set_xticks(list(range(len(groups))), groups)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 105)
    if line is not None:
        ax.axhline(line, color="grey", lw=0.8, ls="--")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(series), fontsize=8, frameon=False)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_success(summary: dict[str, Any], path: str) -> str:
    """Bar plot of success per condition: the planner on AI2-THOR-native episodes (the headline) and on COAT
    extensions, the baseline on native ones (matplotlib, the ``report`` extra); the path."""
    native, ext = summary.get("native") or summary, summary.get("extension") or {}
    conds = [c for c in CONDITIONS if native["by_condition"].get(c, {}).get("episodes")
             or (ext.get("by_condition") or {}).get(c, {}).get("episodes")]

    def rate(part: dict[str, Any], c: str) -> float:
        return 100 * ((part.get("by_condition") or {}).get(c, {}).get("success_rate") or 0.0)

    base = summary["baseline"].get("native") or summary["baseline"]
    return plot_bars(path, conds, [("planner, AI2-THOR-native", [rate(native, c) for c in conds]),
                                   ("planner, COAT extensions", [rate(ext, c) for c in conds]),
                                   ("baseline, native (ideal type, open loop)", [rate(base, c) for c in conds])],
                     ylabel="success % (none-usable: infeasible reported)", line=95,
                     title=f"household tasks, {summary['episodes']} episodes, seed {summary.get('seed', '?')}")


PART_COLUMNS: tuple[str, ...] = (
    "part", "n", "success % (P / B)", "checker-confirmed % (P)", "false successes (P)", "infeasible reported % (P)",
    "goal-cond % (P)", "replans (P)", "safety events (P / B)",
)


def part_rows(summary: dict[str, Any]) -> list[list[str]]:
    """One row per report part (:func:`split`): native (the headline), extension, proxy."""
    out = []
    for part in ("native", "extension", "proxy"):
        m, b = summary.get(part), summary["baseline"].get(part)
        if not m or not m["episodes"]:
            continue
        out.append([part, str(m["episodes"]), f"{_pct(m['success_rate'])} / {_pct(b['success_rate'])}",
                    _pct(m["checked_success_rate"]), str(m["false_successes"]), _pct(m["infeasible_reported_rate"]),
                    _pct(m["goal_condition_rate"]), _num(m["replans_per_episode"]),
                    f"{sum(m['safety_events'].values())} / {sum(b['safety_events'].values())}"])
    return out


def print_parts(summary: dict[str, Any], file: Any = None) -> None:
    """The parts table, then the planner's safety events by kind."""
    import sys

    file = file or sys.stdout
    print_rows("household tasks by part: native is the headline (success where a usable object exists)",
               list(PART_COLUMNS), part_rows(summary), file=file)
    kinds = {k: v for k, v in summary.get("safety_events", {}).items() if v}
    echo("safety events (planner): " + (", ".join(f"{k} {v}" for k, v in kinds.items()) or "none"), file=file)


__all__ = ["PART_COLUMNS", "SIDES", "TABLE_COLUMNS", "failure_groups", "is_false_success", "markdown_table",
           "part_rows", "plot_bars", "plot_success", "print_parts", "print_rows", "print_table", "reason_group",
           "side_metrics", "split", "summarize", "table_rows"]
