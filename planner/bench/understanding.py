"""The free-text understanding benchmark: requests people make, read and planned in a named scene.

The requests are ``dev`` (shipped: ``planner/understanding/requests/dev.jsonl``, the reader's worked examples) and
``test`` (``data/requests/test.jsonl`` of the source checkout, not shipped; :mod:`planner.understanding.examples`):
household requests that are not COAT task strings, each labelled with the roles (COAT utilities) and targets a
sensible reading needs and, per role, the object types present in its scene that a sensible person would accept;
plus requests that must be refused (``nonsense``: letter salad, emoji, other languages, off-topic questions) and
requests the scene cannot serve (``infeasible``). ``dev`` is for tuning the reader (and its worked examples);
``test`` is reported.

Per request, :func:`run_request` calls :func:`planner.api.plan` (scene built, perceived, read, decided) and
scores it:

- **role precision / recall**: the spec's roles against the labelled roles (optional roles count neither way);
- **acceptable objects**: a labelled role bound to an object of an acceptable type (per role; a request counts
  when all its roles are);
- **refusal**: nonsense not understood; a task or infeasible request understood;
- **infeasible reported**: an infeasible request understood and planned infeasible;
- **time per plan**: wall time of ``plan()`` including the scene and perception;
- **model asked** (``interpret="model"``, :mod:`planner.understanding.model_reader`): the requests a generating
  model read, the replies asked for, the re-asks after a reply that failed validation, the requests no reply
  validated (``parse_failed``, counted as not understood) and the model's time per request.

:func:`sample_requests` draws ``--limit`` requests with a seed, the same rows for every reader.

:func:`leave_one_task_out` reads each of COAT's annotated tasks with that task left out of the reader's index.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import Field

from ..errors import DataError, PlannerError
from ..schemas import Contract, Plan, TaskReading
from ..understanding.examples import SPLITS, Kind, Request, load_requests, requests_path


class RequestResult(Contract):
    """How one request was read and planned, and how it scores."""

    id: str
    kind: Kind
    request: str
    scene: str
    understood: bool
    confidence: float
    feasible: bool
    roles: tuple[str, ...]
    """The utilities of the plan's spec."""
    chosen: dict[str, str] = Field(default_factory=dict)
    """Labelled role -> the object type bound to it."""
    acceptable: dict[str, bool] = Field(default_factory=dict)
    """Labelled role -> whether its object is of an acceptable type (task requests)."""
    true_roles: int = 0
    predicted_roles: int = 0
    gold_roles: int = 0
    seconds: float
    reason: str = ""
    error: bool = False
    """``plan()`` raised (the reason names the error); such a request counts as not understood."""
    targets_right: bool | None = None
    """Every labelled target is acted on: a spec target or a role's bound object (task requests; None for others)."""
    goal_label: str = ""
    """How the request's goal is labelled: ``checkable``, ``proxy``, ``unobservable`` or "" (not labelled)."""
    executed: bool = False
    """The plan was carried out in its scene (a labelled goal, a feasible plan)."""
    achieved: bool | None = None
    """The planner's own verdict on its spec's goals after carrying it out (None: not carried out)."""
    goal_met: bool | None = None
    """The independent checker's verdict on the request's labelled goal after the run (None: not checkable, or
    not carried out)."""
    goal_reasons: tuple[str, ...] = ()
    """The checker's reasons and problems."""
    prepared: tuple[dict[str, Any], ...] = ()
    """The scene preparation the request's label presumes (reset perturbations: the mugs dirty for "wash the dirty
    mug", a book lying on a shelf moved elsewhere for "put the book back on the shelf";
    :func:`checker.request.preparation`), applied before it is planned, carried out and replayed."""
    goal_unreachable: str = ""
    """Why the prepared scene cannot reach the labelled goal whatever the plan (no source of the liquid it asks for:
    :func:`checker.request.unreachable`), or "": such a request is reported apart, outside ``plan_correct_rate``."""
    goal_at_reset: bool = False
    """The labelled goal already held, as an end state, before the run (the scene left nothing to do: the mug to
    wash was clean): reported apart, outside ``plan_correct_rate``."""
    plan_correct: bool | None = None
    """Roles acceptable, targets right and the request's goal reached (requests with a checkable or proxy goal
    label; None otherwise)."""
    asked: int = 0
    """Replies a generating model was asked for to read the request (0: no model read it)."""
    reasked: int = 0
    """Re-asks after a reply that failed validation."""
    parse_failed: bool = False
    """A model was asked and no reply validated (the request is not understood)."""
    read_seconds: float = 0.0
    """The model's time reading the request."""


def _type_of(object_id: str) -> str:
    """An AI2-THOR id's type: ``Apple|x|y|z`` -> Apple; a basin's ``Sink|x|y|z|SinkBasin`` -> SinkBasin."""
    parts = object_id.split("|")
    return parts[-1] if len(parts) > 4 else parts[0]


def score(req: Request, p: Plan, seconds: float) -> RequestResult:
    """Score one plan against its request's labels."""
    roles = tuple(r.utility for r in p.spec.roles) if p.spec is not None else ()
    gold, optional = set(req.roles), set(req.optional_roles)
    counted = [r for r in roles if r not in optional or r in gold]
    chosen = {r: _type_of(p.bindings[r]) for r in req.roles if r in p.bindings}
    ok = {r: chosen.get(r) in req.acceptable.get(r, ()) for r in req.roles} if req.kind == "task" else {}
    asked = p.reading.asked if p.reading is not None else None
    return RequestResult(
        id=req.id, kind=req.kind, request=req.request, scene=req.scene, understood=p.understood,
        confidence=p.reading.confidence if p.reading is not None else 1.0, feasible=p.feasible, roles=roles,
        chosen=chosen, acceptable=ok, true_roles=len(set(counted) & gold), predicted_roles=len(set(counted)),
        gold_roles=len(gold), seconds=round(seconds, 4), reason=p.reason[:300], error=p.reason.startswith("error: "),
        **({"asked": asked.asked, "reasked": asked.reasked, "parse_failed": asked.failed,
            "read_seconds": asked.seconds} if asked is not None else {}),
    )


def targets_right(req: Request, p: Plan) -> bool | None:
    """Every labelled target (an object type, or a liquid) is acted on: among the spec's targets, or the type of an
    object the plan binds to a role (the candle of "light the candle" is the light source it switches on, the mug
    of "heat my coffee" the vessel it heats); None for a request that is not a task."""
    if req.kind != "task":
        return None
    have = {t.lower() for tg in (p.spec.targets if p.spec is not None else ()) for t in tg.types}
    have |= {_type_of(oid).lower() for oid in p.bindings.values()}
    return all(t.lower() in have for t in req.targets)


def judge_goal(req: Request, p: Plan, execute: Callable[[Plan], Any],
               options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Carry out a task request's feasible plan and let the independent checker (``checker``, no code shared with
    the planner's goals) judge the request's labelled goal on the replayed run.

    Returns:
        The :class:`RequestResult` fields ``executed``, ``achieved``, ``goal_met``, ``goal_reasons``.
    """
    label = req.goal_label
    if req.kind != "task" or not label or label == "unobservable" or not (p.understood and p.feasible):
        return {}
    import checker

    try:
        trace = execute(p)
    except Exception as e:  # a plan that cannot run, or a crash while it runs, is a counted failure
        return {"executed": False, "goal_met": False, "goal_reasons": (f"execution error: {type(e).__name__}: {e}",)}
    actions = [a.model_dump() for r in trace.results for a in r.actions]
    task = {"kind": "request", "text": req.request, "goal": list(req.goal or ())}
    try:
        history = checker.replay(req.scene, 0, options, actions)
        verdict = checker.judge(task, history)
        at_reset = checker.met_at_reset(task, history)
    except Exception as e:  # a checker crash is counted, never a confirmation
        return {"executed": True, "achieved": trace.achieved, "goal_met": False,
                "goal_reasons": (f"checker error: {type(e).__name__}: {e}",)}
    return {"executed": True, "achieved": trace.achieved, "goal_met": verdict.success,
            "goal_reasons": (*verdict.reasons, *verdict.problems), "goal_at_reset": at_reset}


def unreachable_goal(req: Request, options: dict[str, Any] | None = None) -> str:
    """Why the request's scene, reset (and prepared) as it is planned, cannot reach its labelled goal, or ""
    (:func:`checker.unreachable_at_reset`, on the independent checker's replay of the reset alone)."""
    import checker

    history = checker.replay(req.scene, 0, options, [])
    return checker.unreachable_at_reset({"kind": "request", "text": req.request, "goal": list(req.goal or ())},
                                        history)


def label_preparation(kb: Any) -> Callable[[Any], list[dict[str, Any]]]:
    """A labelled request -> the scene preparation its label presumes (:func:`checker.request.preparation`), on the
    types its scene has (read from the scene after a plain reset) that AI2-THOR's type table in ``kb``'s data
    directory gives the state (dirtyable, toggleable, openable; pickupable for an object to be put somewhere, which
    the simulator first moves out of the receptacles it must be put in)."""
    from checker.request import PREMISE_PROPERTIES, preparation

    from ..knowledge.alfred import types_with

    having = {prop: types_with(prop, kb.root) for prop in PREMISE_PROPERTIES}

    def prepare(r: Any) -> list[dict[str, Any]]:
        if not r.goal:
            return []
        import scenes

        with scenes.make(r.scene, frames=False) as env:
            obs, _info = env.reset(seed=0)
        present = {o["objectType"] for o in obs.objects}
        return preparation(r.goal, lambda t, prop: t in present and t in having[prop])

    return prepare


def check_goal_labels(reqs: Iterable[Request], source: Any) -> None:
    """Every labelled goal is one the checker can judge (before any request runs).

    Raises:
        DataError: naming the file, the request id and what is wrong with its goal.
    """
    from checker.request import request_goal

    for req in reqs:
        if req.goal is None:
            continue
        try:
            request_goal(req.goal, label=req.id)
        except ValueError as e:
            raise DataError(source, f"{req.id}.goal", str(e)) from e


def run_request(req: Request, plan_fn: Callable[..., Plan], *, execute: Callable[[Plan], Any] | None = None,
                prepare: Callable[[Request], list[dict[str, Any]]] | None = None, **plan_kw: Any) -> RequestResult:
    """Plan one request in its scene (seed 0) and score it; with ``execute`` (``planner.api.execute_plan``), a
    task request with a labelled goal is also carried out and its goal judged (:func:`judge_goal`). ``prepare``
    gives the reset perturbations a request's label presumes (:func:`checker.request.preparation`): the scene is
    prepared so before it is planned, carried out and replayed."""
    perturb = prepare(req) if prepare is not None else []
    options = {"perturb": perturb} if perturb else None
    t0 = time.perf_counter()
    try:
        p = plan_fn(req.request, req.scene, seed=0, **({"options": options} if options else {}), **plan_kw)
    except PlannerError as e:  # counted as a failed request (not understood), with the error as its reason
        reason = f"error: {type(e).__name__}: {e}"
        p = Plan(task=req.request, feasible=False, reason=reason,
                 reading=TaskReading(text=req.request, understood=False, confidence=0.0, reason=reason))
    row = score(req, p, time.perf_counter() - t0)
    extra: dict[str, Any] = {"targets_right": targets_right(req, p), "goal_label": req.goal_label,
                             "prepared": tuple(perturb)}
    if req.kind == "task" and req.goal_label in ("checkable", "proxy"):
        extra["goal_unreachable"] = unreachable_goal(req, options)
    if execute is not None:
        extra.update(judge_goal(req, p, execute, options))
    if req.kind == "task" and req.goal_label in ("checkable", "proxy"):
        extra["plan_correct"] = bool(row.understood and all(row.acceptable.values()) and extra["targets_right"]
                                     and extra.get("goal_met") is True)
    return row.model_copy(update=extra)


def summarize(rows: Sequence[RequestResult]) -> dict[str, Any]:
    """The benchmark's figures over scored requests (see the module doc)."""
    tasks = [r for r in rows if r.kind == "task"]
    sensible = [r for r in rows if r.kind != "nonsense"]
    nonsense = [r for r in rows if r.kind == "nonsense"]
    infeasible = [r for r in rows if r.kind == "infeasible"]
    tp = sum(r.true_roles for r in sensible)
    pred = sum(r.predicted_roles for r in sensible)
    gold = sum(r.gold_roles for r in sensible)
    role_ok = [ok for r in tasks for ok in r.acceptable.values()]
    secs = sorted(r.seconds for r in rows)

    def pct(num: float, den: float) -> float | None:
        return round(100 * num / den, 1) if den else None

    return {
        "requests": len(rows), "tasks": len(tasks), "infeasible": len(infeasible), "nonsense": len(nonsense),
        "role_precision": pct(tp, pred), "role_recall": pct(tp, gold),
        "acceptable_roles": pct(sum(role_ok), len(role_ok)),
        "acceptable_requests": pct(sum(all(r.acceptable.values()) and r.understood for r in tasks), len(tasks)),
        "nonsense_refused": pct(sum(not r.understood for r in nonsense), len(nonsense)),
        "sensible_understood": pct(sum(r.understood for r in sensible), len(sensible)),
        "infeasible_reported": pct(sum(r.understood and not r.feasible for r in infeasible), len(infeasible)),
        "tasks_feasible": pct(sum(r.feasible for r in tasks), len(tasks)),
        **plan_figures(tasks, pct),
        "errors": sum(r.error for r in rows),
        "median_s": round(statistics.median(secs), 4) if secs else None,
        "mean_s": round(statistics.fmean(secs), 4) if secs else None,
        "p95_s": round(secs[min(len(secs) - 1, int(0.95 * len(secs)))], 4) if secs else None,
        **model_figures(rows),
    }


def model_figures(rows: Sequence[RequestResult]) -> dict[str, Any]:
    """What reading with a generating model cost: requests it read, replies asked for, re-asks, requests with no
    valid reply (``parse_failed``, also as a share of the requests it read) and its mean time per request read."""
    read = [r for r in rows if r.asked]
    failed = sum(r.parse_failed for r in read)
    return {"model_read": len(read), "model_replies": sum(r.asked for r in read),
            "reasked": sum(r.reasked for r in read), "parse_failed": failed,
            "parse_failed_rate": round(100 * failed / len(read), 1) if read else None,
            "model_mean_s": round(statistics.fmean(r.read_seconds for r in read), 4) if read else None}


def sample_requests(reqs: Sequence[Request], limit: int, seed: int = 0) -> list[Request]:
    """``limit`` of the requests drawn at random with ``seed`` (kept in file order); all of them for 0 or more
    than there are. The same arguments give the same rows whatever reads them."""
    import random

    if not limit or limit >= len(reqs):
        return list(reqs)
    keep = sorted(random.Random(seed).sample(range(len(reqs)), limit))
    return [reqs[i] for i in keep]


def plan_figures(tasks: Sequence[RequestResult], pct: Callable[[float, float], float | None]) -> dict[str, Any]:
    """Whole-plan figures over the task requests whose goal is labelled: ``plan_correct_rate`` (roles acceptable,
    targets right, the request's goal reached, judged by the independent checker) over the checkable ones, the
    same for proxies apart, and ``wrong_goal_rate``: plans the planner called achieved whose request goal the
    checker denies. A request whose goal the scene already met before the run (``goal_true_at_reset``, counted)
    or cannot reach whatever the plan (``goal_unreachable``, counted, with ``unreachable_reported_rate``: the share
    the planner reported infeasible, the right answer there) is in neither rate: only the planner's plan, not the
    scene, can be scored."""
    unreachable = [r for r in tasks if r.goal_unreachable]
    checkable = [r for r in tasks if r.goal_label == "checkable" and not r.goal_at_reset and not r.goal_unreachable]
    proxy = [r for r in tasks if r.goal_label == "proxy" and not r.goal_at_reset and not r.goal_unreachable]
    claimed = [r for r in checkable if r.achieved]
    return {
        "goal_labelled": sum(bool(r.goal_label) for r in tasks), "goal_checkable": len(checkable),
        "goal_true_at_reset": sum(r.goal_at_reset for r in tasks),
        "goal_unreachable": len(unreachable),
        "unreachable_reported_rate": pct(sum(r.understood and not r.feasible for r in unreachable), len(unreachable)),
        "plan_correct_rate": pct(sum(bool(r.plan_correct) for r in checkable), len(checkable)),
        "goal_met_rate": pct(sum(r.goal_met is True for r in checkable), len(checkable)),
        "targets_right_rate": pct(sum(bool(r.targets_right) for r in tasks), len(tasks)),
        "wrong_goal_rate": pct(sum(r.goal_met is not True for r in claimed), len(claimed)),
        "proxy_plan_correct_rate": pct(sum(bool(r.plan_correct) for r in proxy), len(proxy)),
    }


ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom")


def room_of(scene: str) -> str:
    """The room type of a scene id (``embedded/FloorPlan2xx-v0`` is a living room, as in iTHOR's numbering)."""
    name = scene.split("/", 1)[-1]
    for room in ROOMS:
        if name.startswith(room.replace(" ", "-")):
            return room
    m = re.search(r"FloorPlan(\d+)", name)
    n = int(m.group(1)) if m else 0
    return ROOMS[min(3, n // 100 - 1)] if n >= 100 else "kitchen"


def by_room(rows: Sequence[RequestResult]) -> dict[str, dict[str, Any]]:
    """:func:`summarize` per room type."""
    return {room: summarize(sel) for room in ROOMS if (sel := [r for r in rows if room_of(r.scene) == room])}


TABLE_FIGURES: tuple[tuple[str, str], ...] = (
    ("requests", "requests"), ("role_precision", "role P %"), ("role_recall", "role R %"),
    ("acceptable_roles", "acceptable %"), ("nonsense_refused", "nonsense refused %"),
    ("sensible_understood", "understood %"), ("infeasible_reported", "infeasible reported %"),
    ("plan_correct_rate", "plan correct %"), ("wrong_goal_rate", "wrong goal %"), ("median_s", "median s"),
    ("reasked", "re-asked"), ("parse_failed", "parse failed"),
)


def print_table(summary: dict[str, Any], file: Any = None) -> None:
    """The figures overall and per room: with rich when it is installed, plain text otherwise."""
    import sys

    from .task_report import print_rows

    groups = [("all", summary), *summary.get("by_room", {}).items()]
    head = ["group", *(label for _, label in TABLE_FIGURES)]
    rows = [[g, *("-" if s.get(k) is None else str(s[k]) for k, _ in TABLE_FIGURES)] for g, s in groups]
    title = f"understanding, {summary.get('split', '?')} split, strategy {summary.get('strategy', '?')}"
    if summary.get("interpret") == "model":
        title += f", read by {summary.get('llm')}"
    print_rows(title, head, rows, file=file or sys.stdout)


def plot_summary(summary: dict[str, Any], path: str) -> str:
    """Bars per room: acceptable objects and requests understood; nonsense refused (matplotlib, ``report``)."""
    from .task_report import plot_bars

    groups = [("all", summary), *summary.get("by_room", {}).items()]
    keys = (("acceptable_roles", "acceptable objects"), ("sensible_understood", "sensible understood"),
            ("nonsense_refused", "nonsense refused"))
    return plot_bars(path, [g for g, _ in groups], [(label, [s.get(k) or 0.0 for _, s in groups]) for k, label in keys],
                     ylabel="%", line=90,
                     title=f"free-text understanding, {summary.get('split', '?')} split ({summary.get('requests')} "
                           "requests)")


def leave_one_task_out(kb: Any, reader: Any, tasks: Iterable[str] | None = None) -> dict[str, Any]:
    """Read each COAT task with itself left out of the reader's index; its annotated utilities are the labels.

    Returns:
        ``role_precision`` / ``role_recall`` (%), ``exact_roles`` (% of tasks whose role set is exactly right),
        ``understood`` (%) and ``rows`` (task, labelled and read utilities).
    """
    names = sorted(tasks) if tasks is not None else sorted({t for u in kb.utilities for t in kb.tasks(u)})
    rows = []
    tp = pred = gold = exact = understood = 0
    for t in names:
        labels = {u for u in kb.utilities if t in kb.tasks(u)}
        reading = reader.read(t, exclude=(t,))
        got = {r.utility for r in reading.spec.roles} if reading.spec is not None else set()
        tp, pred, gold = tp + len(got & labels), pred + len(got), gold + len(labels)
        exact += got == labels
        understood += reading.understood
        rows.append({"task": t, "labels": sorted(labels), "read": sorted(got), "understood": reading.understood})
    n = max(1, len(names))
    return {"tasks": len(names), "role_precision": round(100 * tp / max(1, pred), 1),
            "role_recall": round(100 * tp / max(1, gold), 1), "exact_roles": round(100 * exact / n, 1),
            "understood": round(100 * understood / n, 1), "rows": rows}


__all__ = [
    "ROOMS", "SPLITS", "Request", "RequestResult", "by_room", "leave_one_task_out", "load_requests", "plot_summary",
    "check_goal_labels", "judge_goal", "model_figures", "plan_figures", "print_table", "requests_path", "room_of",
    "run_request", "label_preparation", "sample_requests", "score", "summarize", "targets_right",
]
