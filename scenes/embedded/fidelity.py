"""Fidelity of the embedded simulator to real AI2-THOR 5.0.0: replay recorded traces and compare states.

A trace is a directory ``<data root>/ai2thor/traces/<name>/`` with ``actions.json`` (the actions sent, in
order) and ``event_NN.json`` (``event.metadata`` after action NN). The replay starts from ``event_00``'s
metadata (objects, agent pose, held object), applies actions 1..N to the embedded :class:`World` and compares,
after every action, each object's :data:`~scenes.embedded.metadata.COMPARED_KEYS` with the recording.

List-valued keys (``parentReceptacles``, ``receptacleObjectIds``) are compared as sets: AI2-THOR reorders them
on unrelated actions (physics trigger order; e.g. ``open_fridge`` step 3 swaps two floor entries), so order
carries no state. Exact-order agreement is reported separately.

Example:
    >>> from scenes.embedded.fidelity import load_traces, replay        # doctest: +SKIP
    >>> for t in load_traces():                                          # doctest: +SKIP
    ...     print(t.name, replay(t).agreement)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import DataError

from .loader import scene_from_event
from .metadata import COMPARED_KEYS
from .world import World

LIST_KEYS = frozenset({"parentReceptacles", "receptacleObjectIds"})

PHYSICS_ONLY: dict[str, dict[str, str]] = {
    "FloorPlan1_physics": {
        "DishSponge|-01.94|+00.75|-01.71": (
            "the sponge starts resting in the SinkBasin but AI2-THOR's physics lets it fall through the basin into "
            "the cabinet below within the first steps (parent SinkBasin -> none -> Cabinet|-01.55|+00.50|-01.97), "
            "at a step that differs between recordings (step 2, 4, or not within 4 steps); the embedded simulator "
            "has no rigid-body physics and keeps it in the basin"
        ),
    },
}
"""Objects whose recorded state changes come from AI2-THOR's physics engine alone, per scene, with the reason.

A mismatch on such an object, or on a containment list that differs from the recording only by such an object,
is counted as *explained*; ``TraceResult.agreement_rules`` leaves them out.
"""


@dataclass
class Trace:
    """A recorded AI2-THOR episode."""

    name: str
    path: Path
    actions: list[dict[str, Any]]
    events: list[dict[str, Any]]


@dataclass
class Mismatch:
    """One state that differs from the recording after a step."""

    step: int
    action: str
    object_id: str
    key: str
    recorded: Any
    simulated: Any


@dataclass
class TraceResult:
    """Agreement of one replay with its recording."""

    name: str
    scene: str
    steps: int
    compared: int = 0
    matched: int = 0
    matched_exact_order: int = 0
    changed: int = 0
    changed_matched: int = 0
    success_matched: int = 0
    explained: int = 0
    visible_tp: int = 0
    visible_fp: int = 0
    visible_fn: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        """Share of compared (step, object, key) states equal to the recording (lists as sets)."""
        return self.matched / self.compared if self.compared else 1.0

    @property
    def agreement_rules(self) -> float:
        """Agreement when mismatches explained by physics alone (:data:`PHYSICS_ONLY`) are left out."""
        n = self.compared - self.explained
        return (self.matched / n) if n else 1.0

    @property
    def unexplained(self) -> list[Mismatch]:
        """Mismatches not explained by :data:`PHYSICS_ONLY`."""
        return [m for m in self.mismatches if not _explained(self.scene, m)]

    @property
    def agreement_exact_order(self) -> float:
        """Same, but lists must also be in the recorded order."""
        return self.matched_exact_order / self.compared if self.compared else 1.0

    @property
    def changed_agreement(self) -> float:
        """Agreement on the states that changed in the recording or the replay during a step."""
        return self.changed_matched / self.changed if self.changed else 1.0


def _explained(scene: str, m: Mismatch) -> bool:
    phys = PHYSICS_ONLY.get(scene, {})
    if not phys:
        return False
    if m.object_id in phys:
        return True
    if m.key in LIST_KEYS:
        a = set(m.recorded or []) if isinstance(m.recorded, list) or m.recorded is None else set()
        b = set(m.simulated or []) if isinstance(m.simulated, list) or m.simulated is None else set()
        return bool(a ^ b) and (a ^ b) <= set(phys)
    return False


def load_trace(path: str | Path) -> Trace:
    """Read one trace directory.

    Raises:
        DataError: a file is missing, not JSON, or actions and events do not line up.
    """
    p = Path(path)
    af = p / "actions.json"
    try:
        actions = json.loads(af.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(af, "", f"cannot read the actions: {e}") from e
    files = sorted(p.glob("event_*.json"), key=lambda f: int(re.sub(r"\D", "", f.stem) or 0))
    events = []
    for f in files:
        try:
            events.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as e:
            raise DataError(f, "", f"cannot read the event: {e}") from e
    if not isinstance(actions, list) or len(actions) != len(events) or not events:
        raise DataError(p, "", f"{len(actions) if isinstance(actions, list) else '?'} actions but {len(events)} events")
    return Trace(name=p.name, path=p, actions=actions, events=events)


def load_traces(data_dir: str | Path | None = None) -> list[Trace]:
    """Every trace under ``<data root>/ai2thor/traces`` (sorted by name)."""
    from planner.paths import resolve_data_dir

    root = resolve_data_dir(data_dir, need="ai2thor") / "ai2thor" / "traces"
    return [load_trace(d) for d in sorted(root.iterdir(), key=lambda d: d.name.lower()) if d.is_dir()]


def _norm(key: str, v: Any) -> Any:
    if key in LIST_KEYS:
        return None if v is None else frozenset(v)
    return v


def _action_params(a: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in a.items() if k != "sequenceId"}


def replay(trace: Trace, *, keys: Iterable[str] = COMPARED_KEYS, **world_kwargs: Any) -> TraceResult:
    """Replay ``trace`` in the embedded simulator and compare states after every action.

    Args:
        trace: The recording.
        keys: Object keys to compare.
        **world_kwargs: Passed to :class:`World` (``grid_size`` defaults to the trace's Initialize value).

    Returns:
        A TraceResult with counts and every mismatch.
    """
    first = trace.events[0]
    scene = scene_from_event(first, source=str(trace.path / "event_00.json"))
    init = trace.actions[0]
    if init.get("action") == "Initialize" and "gridSize" in init:
        world_kwargs.setdefault("grid_size", init["gridSize"])
    world = World(scene, **world_kwargs)
    keys = tuple(keys)
    res = TraceResult(name=trace.name, scene=scene.name, steps=len(trace.actions) - 1)
    prev = {o["objectId"]: o for o in first["objects"]}
    for i in range(1, len(trace.actions)):
        act = _action_params(trace.actions[i])
        ok, _err, _ret, _code = world.step(act)
        rec = trace.events[i]
        res.success_matched += int(ok == rec["lastActionSuccess"])
        vis, _ = world.visibility()
        rv_ = {o["objectId"] for o in rec["objects"] if o["visible"]}
        sv_ = {k for k, v in vis.items() if v}
        res.visible_tp += len(rv_ & sv_)
        res.visible_fp += len(sv_ - rv_)
        res.visible_fn += len(rv_ - sv_)
        rec_objs = {o["objectId"]: o for o in rec["objects"]}
        sim_ids = set(world.objs)
        for oid in sorted(set(rec_objs) | sim_ids):
            r, s = rec_objs.get(oid), world.objs.get(oid)
            for k in keys:
                rv = r[k] if r is not None else "<absent>"
                sv = s[k] if s is not None else "<absent>"
                res.compared += 1
                same = _norm(k, rv) == _norm(k, sv) if r is not None and s is not None else rv == sv
                res.matched += int(same)
                res.matched_exact_order += int(rv == sv)
                pv = prev[oid][k] if oid in prev else "<absent>"
                changed = (r is None) or (_norm(k, rv) != _norm(k, pv)) or (s is None) or (_norm(k, sv) != _norm(k, pv))
                if changed:
                    res.changed += 1
                    res.changed_matched += int(same)
                if not same:
                    mm = Mismatch(i, act.get("action", "?"), oid, k, rv, sv)
                    res.mismatches.append(mm)
                    res.explained += int(_explained(res.scene, mm))
        prev = rec_objs
    return res


__all__ = ["PHYSICS_ONLY", "Mismatch", "Trace", "TraceResult", "load_trace", "load_traces", "replay"]
