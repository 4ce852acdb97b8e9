"""The free-text understanding benchmark: requests people make, read and planned in a named scene.

The requests ship with the package (``planner/understanding/requests/{dev,test}.jsonl``,
:mod:`planner.understanding.examples`): household requests that are not COAT task strings, each labelled
with the roles (COAT utilities) and targets a sensible reading needs and, per role, the object types present
in its scene that a sensible person would accept; plus requests that must be refused (``nonsense``: letter
salad, emoji, other languages, off-topic questions) and requests the scene cannot serve (``infeasible``).
``dev`` is for tuning the reader (and its worked examples); ``test`` is reported.

Per request, :func:`run_request` calls :func:`planner.api.plan` (scene built, perceived, read, decided) and
scores it:

- **role precision / recall**: the spec's roles against the labelled roles (optional roles count neither way);
- **acceptable objects**: a labelled role bound to an object of an acceptable type (per role; a request counts
  when all its roles are);
- **refusal**: nonsense not understood; a task or infeasible request understood;
- **infeasible reported**: an infeasible request understood and planned infeasible;
- **time per plan**: wall time of ``plan()`` including the scene and perception.

:func:`leave_one_task_out` reads each of COAT's annotated tasks with that task left out of the reader's index.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import Field

from ..errors import PlannerError
from ..schemas import Contract, Plan
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
    return RequestResult(
        id=req.id, kind=req.kind, request=req.request, scene=req.scene, understood=p.understood,
        confidence=p.reading.confidence if p.reading is not None else 1.0, feasible=p.feasible, roles=roles,
        chosen=chosen, acceptable=ok, true_roles=len(set(counted) & gold), predicted_roles=len(set(counted)),
        gold_roles=len(gold), seconds=round(seconds, 4), reason=p.reason[:300],
    )


def run_request(req: Request, plan_fn: Callable[..., Plan], **plan_kw: Any) -> RequestResult:
    """Plan one request in its scene (seed 0) and score it."""
    t0 = time.perf_counter()
    try:
        p = plan_fn(req.request, req.scene, seed=0, **plan_kw)
    except PlannerError as e:  # counted as a failed request, with the error as its reason
        p = Plan(task=req.request, feasible=False, reason=f"error: {type(e).__name__}: {e}")
    return score(req, p, time.perf_counter() - t0)


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
        "median_s": round(statistics.median(secs), 4) if secs else None,
        "p95_s": round(secs[min(len(secs) - 1, int(0.95 * len(secs)))], 4) if secs else None,
    }


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
    "SPLITS", "Request", "RequestResult", "leave_one_task_out", "load_requests", "requests_path", "run_request",
    "score", "summarize",
]
