"""The ALFRED directive benchmark: goals in ALFRED's language, read, planned and carried out in their scenes.

The directives are labelled evaluation sets kept outside the package (``data/requests/directives-{dev,test}.jsonl``
of the source checkout, :func:`planner.understanding.examples.load_directives`): texts in four styles (ALFRED's
goal descriptions, its step-by-step instructions, terse commands, a person asking), each labelled with the ALFRED
task it states (type, object, receptacle, movable receptacle, sliced) in a named embedded scene. ``dev`` was used
while the directive reader (:mod:`planner.understanding.directives`) was written; ``test`` is reported.

Per directive, :func:`run_directive`:

1. resets the scene as ALFRED's task needs it (a clean task's object made dirty: rl_ai2thor's preparation);
2. calls :func:`planner.api.plan` on the text (read, decided, steps) and :func:`planner.api.execute_plan` on the
   plan (the closed loop, re-planning when an object turns out unusable);
3. checks the **labelled** task's goal conditions (:func:`planner.knowledge.alfred.alfred_spec`) on the final
   observation, under any assignment of scene objects (:func:`planner.goals.check_any`): **success** when every
   one holds (ALFRED's success rate), the share that hold (its goal-condition rate);
4. does the same with the labelled TaskSpec given to ``plan()`` instead of the text (**oracle**: what a perfect
   reading would reach, so the gap between the two is the reading's).

A directive whose labelled task the scene cannot serve (the oracle's plan is infeasible: most often a second object
of the type for ``pick_two_obj_and_place``, which few embedded scenes have) counts apart: there the right outcome is
the plan reported infeasible (**infeasible reported**), and success and the oracle are over the servable ones.

It also counts a reading as **exact** when it is an ALFRED reading (``method == "directive"``) of the labelled
type, object, receptacle, movable receptacle and slicing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import PlannerError
from ..goals import check_any
from ..schemas import Contract, Plan, TaskSpec
from ..understanding.examples import DirectiveRequest, load_directives

STYLES: tuple[str, ...] = ("goal", "steps", "terse", "casual")
SHORT_TYPES: dict[str, str] = {
    "pick_and_place_simple": "simple", "pick_two_obj_and_place": "two", "pick_and_place_with_movable_recep": "movable",
    "pick_clean_then_place_in_recep": "clean", "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool", "look_at_obj_in_light": "look",
}


class DirectiveResult(Contract):
    """How one directive was read, planned and carried out, and how it scores."""

    id: str
    style: str
    task_type: str
    request: str
    scene: str
    method: str = ""
    """How the text was read (``directive``, ``reader``, ... as :class:`~planner.schemas.TaskReading`)."""
    read_type: str = ""
    """The family of the spec read (an ALFRED type for a directive reading)."""
    understood: bool = False
    exact: bool = False
    feasible: bool = False
    success: bool = False
    goal_rate: float = 0.0
    servable: bool = True
    """The scene can serve the labelled task (the oracle's plan is feasible)."""
    oracle_success: bool = False
    oracle_goal_rate: float = 0.0
    seconds: float = 0.0
    """Wall time of ``plan()`` on the text (scene and perception included)."""
    reason: str = ""
    error: bool = False


def gold_spec(req: DirectiveRequest) -> TaskSpec:
    """The labelled ALFRED task's TaskSpec."""
    from ..knowledge.alfred import alfred_spec

    a = req.alfred
    return alfred_spec(a.type, a.object, a.receptacle, movable=a.movable, sliced=a.sliced)


def reset_options(req: DirectiveRequest) -> dict[str, Any] | None:
    """The reset that keeps the goal from holding at the start: a clean task's object types made dirty."""
    if req.alfred.type == "pick_clean_then_place_in_recep":
        return {"perturb": [{"type": req.alfred.object, "condition": "dirty", "which": "all"}]}
    return None


def exact(req: DirectiveRequest, p: Plan) -> bool:
    """Whether ``p`` was read as the labelled ALFRED task (type, object, receptacle, movable receptacle, slicing)."""
    if p.reading is None or p.reading.method != "directive" or p.spec is None:
        return False
    a, spec = req.alfred, p.spec
    types = {t.name: t.types for t in spec.targets} | {r.name: r.types for r in spec.roles}
    movable = next((n for n in ("movable", "carrying") if n in types and a.movable in types[n]), None)
    holder = movable or "target"
    # where the object (or its movable receptacle) ends up: a place target, or a role the reader made of it
    place = next((g.other for g in spec.goals if g.relation == "contained_in" and g.item == holder), None)
    return (spec.family == a.type and a.object in types.get("target", ())
            and (a.receptacle is None) == (place is None)
            and (a.receptacle is None or a.receptacle in types.get(place or "", ()))
            and (a.movable is None) == (movable is None)
            and a.sliced == any(t.sliced for t in spec.targets if t.name == "target"))


def _carried_out(p: Plan, gold: TaskSpec, execute_fn: Callable[..., Any]) -> tuple[bool, float, str]:
    """Execute a feasible plan and check the labelled goals on its last observation (and, for "heated" and
    "cooled", on what the run booked): (success, goal rate, why)."""
    if not p.feasible or not p.steps:
        return False, 0.0, p.reason or "no steps"
    trace = execute_fn(p)
    candidates = {t.name: t.types for t in gold.targets}
    status = check_any(gold.goals, candidates, trace.final_objects, trace.booked)
    met = sum(g.met for g in status)
    why = "; ".join(f"{g.condition.text()}: {g.detail}" for g in status if not g.met) or ""
    return met == len(status), round(met / len(status), 4) if status else 0.0, (trace.failure or why)[:300]


def run_directive(req: DirectiveRequest, plan_fn: Callable[..., Plan], execute_fn: Callable[..., Any],
                  **plan_kw: Any) -> DirectiveResult:
    """Read, plan and carry out one directive, and the same with its labelled spec (see the module doc)."""
    gold = gold_spec(req)
    opts = reset_options(req)
    row: dict[str, Any] = {"id": req.id, "style": req.style, "task_type": req.alfred.type, "request": req.request,
                           "scene": req.scene}
    t0 = time.perf_counter()
    try:
        p = plan_fn(req.request, req.scene, seed=0, options=opts, **plan_kw)
        row["seconds"] = round(time.perf_counter() - t0, 4)
        row.update(method=p.reading.method if p.reading is not None else "", understood=p.understood,
                   read_type=p.spec.family if p.spec is not None else "", exact=exact(req, p), feasible=p.feasible)
        row["success"], row["goal_rate"], row["reason"] = _carried_out(p, gold, execute_fn)
    except PlannerError as e:  # counted as a failure, with the error as its reason
        row.update(seconds=round(time.perf_counter() - t0, 4), reason=f"error: {type(e).__name__}: {e}"[:300],
                   error=True)
    try:
        g = plan_fn(gold, req.scene, seed=0, options=opts, **plan_kw)
    except PlannerError as e:  # the labelled task cannot be planned here: not servable
        row.update(servable=False, reason=row.get("reason") or f"labelled task: {type(e).__name__}: {e}"[:300])
    else:
        row["servable"] = g.feasible
        try:
            row["oracle_success"], row["oracle_goal_rate"], _ = _carried_out(g, gold, execute_fn)
        except PlannerError as e:  # servable, and the oracle failed: counted as its failure
            row["reason"] = row.get("reason") or f"labelled task, executing: {type(e).__name__}: {e}"[:300]
    return DirectiveResult(**row)


def summarize(rows: Sequence[DirectiveResult]) -> dict[str, Any]:
    """The figures over scored directives: read exactly, success and goal-condition rate, the oracle's, time."""
    def pct(num: float, den: float) -> float | None:
        return round(100 * num / den, 1) if den else None

    secs = sorted(r.seconds for r in rows)
    n = len(rows)
    ok = [r for r in rows if r.servable]
    unservable = [r for r in rows if not r.servable]
    return {
        "directives": n, "servable": len(ok),
        "read_exact": pct(sum(r.exact for r in rows), n),
        "understood": pct(sum(r.understood for r in rows), n),
        "success": pct(sum(r.success for r in ok), len(ok)),
        "goal_conditions": pct(sum(r.goal_rate for r in ok), len(ok)),
        "oracle_success": pct(sum(r.oracle_success for r in ok), len(ok)),
        "oracle_goal_conditions": pct(sum(r.oracle_goal_rate for r in ok), len(ok)),
        "infeasible_reported": pct(sum(r.understood and not r.feasible for r in unservable), len(unservable)),
        "errors": sum(r.error for r in rows),
        "median_s": round(statistics.median(secs), 4) if secs else None,
    }


def by_group(rows: Sequence[DirectiveResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """:func:`summarize` per task type (short names) and per style."""
    types = {SHORT_TYPES.get(t, t): summarize([r for r in rows if r.task_type == t])
             for t in SHORT_TYPES if any(r.task_type == t for r in rows)}
    styles = {s: summarize([r for r in rows if r.style == s]) for s in STYLES if any(r.style == s for r in rows)}
    return {"type": types, "style": styles}


TABLE_FIGURES: tuple[tuple[str, str], ...] = (
    ("directives", "n"), ("read_exact", "read exact %"), ("understood", "understood %"), ("servable", "servable"),
    ("success", "success %"), ("goal_conditions", "goal cond. %"), ("oracle_success", "oracle success %"),
    ("infeasible_reported", "infeasible reported %"), ("median_s", "median s"),
)


def print_table(summary: dict[str, Any], file: Any = None) -> None:
    """The figures overall, per task type and per style (rich when installed, plain text otherwise)."""
    import sys

    from .task_report import print_rows

    groups = [("all", summary), *((f"type {k}", v) for k, v in summary.get("by_type", {}).items()),
              *((f"style {k}", v) for k, v in summary.get("by_style", {}).items())]
    head = ["group", *(label for _, label in TABLE_FIGURES)]
    table = [[g, *("-" if s.get(k) is None else str(s[k]) for k, _ in TABLE_FIGURES)] for g, s in groups]
    print_rows(f"ALFRED directives, {summary.get('split', '?')} split", head, table, file=file or sys.stdout)


def plot_summary(summary: dict[str, Any], path: str) -> str:
    """Bars per task type: success from the text beside the oracle's (matplotlib, the ``report`` extra)."""
    from .task_report import plot_bars

    groups = [("all", summary), *summary.get("by_type", {}).items()]
    keys = (("success", "success, read from the text"), ("oracle_success", "success, labelled task given"),
            ("read_exact", "read exactly"))
    return plot_bars(path, [g for g, _ in groups], [(label, [s.get(k) or 0.0 for _, s in groups]) for k, label in keys],
                     ylabel="%", line=None,
                     title=f"ALFRED directives, {summary.get('split', '?')} split ({summary.get('directives')})")


__all__ = ["STYLES", "DirectiveResult", "by_group", "exact", "gold_spec", "load_directives", "plot_summary",
           "print_table", "reset_options", "run_directive", "summarize"]
