"""Getting where an object can be handled, in AI2-THOR actions every backend of the project accepts.

Navigation is at the level of reachable positions (``GetReachablePositions`` then ``Teleport`` to the one
nearest the target, facing it), as the embedded simulator and AI2-THOR both support. A failed walk is a
``blocked`` outcome that blames no object: the object may be fine, the robot found nowhere to stand.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scenes.base import Action, RawObject

from .base import Outcome, SkillContext, failed

GOTO_POSITIONS = 4
"""Reachable positions (nearest the target first) ``goto`` tries before it gives up."""
GOTO_HORIZONS = (30.0, 0.0, 60.0, -30.0)
"""Camera pitches ``goto`` tries at each position (positive looks down), as a robot would look around."""
NEAR_METRES = 1.0
"""An interactable object this close to the agent is reached without moving."""


def position(o: RawObject) -> tuple[float, float]:
    """The object's (x, z) on the floor plan."""
    p = o.get("position") or {}
    return float(p.get("x", 0.0)), float(p.get("z", 0.0))


def action_return(ctx: SkillContext) -> Any:
    """The last action's ``actionReturn`` (from the Event, else from ``obs.extra``)."""
    if ctx.obs.event is not None:
        return ctx.obs.event.metadata.get("actionReturn")
    return ctx.obs.extra.get("actionReturn")


def interactable(o: RawObject | None) -> bool:
    """AI2-THOR's ``isInteractable`` (``visible`` on backends without it)."""
    if o is None:
        return False
    if "isInteractable" in o:
        return bool(o["isInteractable"])
    return bool(o.get("visible", True))


def goto(ctx: SkillContext, object_id: str, until: Callable[[], bool] | None = None,
         positions: int = GOTO_POSITIONS) -> bool:
    """Go where the object can be interacted with: the nearest reachable positions, facing it, looking
    down, ahead or further down until AI2-THOR's ``isInteractable`` holds (knobs and low drawers need it).

    ``until`` adds a test every pose must pass too (``hold_near_light``: the held object near the lamp).
    """
    target = ctx.find(object_id)
    if target is None:
        return False
    done = until or (lambda: True)
    if target.get("isPickedUp") or interactable(target) and float(target.get("distance") or 9.0) <= NEAR_METRES:
        if done():
            return True
    if not ctx.act(Action(name="GetReachablePositions")):
        return False
    spots = action_return(ctx) or []
    tx, tz = position(target)
    ranked = sorted(spots, key=lambda p: ((p["x"] - tx) ** 2 + (p["z"] - tz) ** 2, p["x"], p["z"]))
    for best in ranked[:positions]:
        yaw = math.degrees(math.atan2(tx - best["x"], tz - best["z"])) % 360.0
        rotation = {"x": 0.0, "y": yaw, "z": 0.0}
        for horizon in GOTO_HORIZONS:
            args = {"position": dict(best), "rotation": rotation, "horizon": horizon}
            if ctx.act(Action(name="Teleport", args=args)) and interactable(ctx.find(object_id)) and done():
                return True
    return False


def go(ctx: SkillContext, object_id: str, until: Callable[[], bool] | None = None) -> Outcome | None:
    """:func:`goto`, as a failure to return (None when the robot got there).

    The object gone is ``missing`` (blamed); no place to stand is ``blocked`` with no one to blame; an
    exhausted step budget has no fault.
    """
    if goto(ctx, object_id, until):
        return None
    err = ctx.last_error
    reason = f"going to {object_id} failed" + (f": {err}" if err else "")
    if ctx.find(object_id) is None:
        return failed(f"object {object_id!r} is not in the scene", "missing", object_id)
    if "budget" in err:
        return failed(reason)
    return failed(reason, "blocked")


__all__ = ["GOTO_HORIZONS", "GOTO_POSITIONS", "action_return", "go", "goto", "interactable", "position"]
