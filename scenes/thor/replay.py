"""A stand-in for ``ai2thor.controller.Controller`` that replays a recorded trace (no Unity build needed).

It answers the recorded actions with the recorded events (genuine ``ai2thor.server.Event``s), applies
``Controller.step``'s rule that an ``errorCode`` of InvalidAction / MissingArguments / AmbiguousAction /
InvalidArgument raises ``ValueError``, and answers any action that is not the next recorded one with a
failed event (``lastActionSuccess=False``), because it cannot simulate what was not recorded.

Use it to drive :class:`scenes.thor.ThorEnv` offline::

    env = ThorEnv(controller=ReplayController(load_trace("pickup_mug")))
"""

from __future__ import annotations

import copy
from typing import Any

from .env import physics_scene_name
from .traces import Trace, event_from_metadata

# The errorCodes for which ai2thor 5.0.0's Controller.step raises ValueError instead of returning.
RAISING_ERROR_CODES: frozenset[str] = frozenset(
    {"InvalidAction", "MissingArguments", "AmbiguousAction", "InvalidArgument"}
)


class ReplayController:
    """Replay a :class:`~scenes.thor.traces.Trace` through the ``Controller`` API used by ThorEnv.

    ``reset()`` returns the state after the trace's first action (its ``Initialize`` when recorded; two
    traces start mid-episode, and then the first recorded action is part of the start state).

    Args:
        trace: The recording to replay.
        check_args: Also require the action's parameters (not just name and objectId) to match.
    """

    def __init__(self, trace: Trace, *, check_args: bool = True) -> None:
        if not len(trace):
            raise ValueError(f"trace {trace.name!r} has no events to replay")
        self.trace = trace
        self.check_args = check_args
        self.last_event: Any = None
        self.scene: str | None = None
        self.stopped = False
        self.sent: list[dict[str, Any]] = []
        self._cursor = 0

    def reset(self, scene: str | None = None, **init_params: Any) -> Any:
        """Go back to the start of the recording; ``scene`` must match the recorded scene."""
        want = physics_scene_name(scene) if scene else None
        if want and want != self.trace.scene:
            raise ValueError(f"Scene {scene!r} is not in this recording (it has {self.trace.scene!r})")
        self.scene = scene or self.trace.scene
        self._cursor = 1
        self.last_event = self.trace.event(0)
        return self.last_event

    def step(self, action: str | dict[str, Any] | None = None, **action_args: Any) -> Any:
        """Return the recorded event when ``action`` is the next recorded action, else a failed event."""
        act = copy.deepcopy(action) if isinstance(action, dict) else {"action": action}
        action_args.pop("raise_for_failure", None)
        act.update(action_args)
        self.sent.append(act)
        if self._cursor >= len(self.trace):
            return self._fail(act, "the recording has no more actions to replay")
        expected = self.trace.actions[self._cursor].to_thor()
        if not self._matches(act, expected):
            return self._fail(act, f"not in the recording: expected {expected}, got {act}")
        self.last_event = self.trace.event(self._cursor)
        self._cursor += 1
        md = self.last_event.metadata
        if not md["lastActionSuccess"] and md.get("errorCode") in RAISING_ERROR_CODES:
            raise ValueError(md.get("errorMessage", ""))
        return self.last_event

    def stop(self) -> None:
        """Mark the controller stopped (nothing to release)."""
        self.stopped = True

    def _matches(self, act: dict[str, Any], expected: dict[str, Any]) -> bool:
        if act.get("action") != expected.get("action") or act.get("objectId") != expected.get("objectId"):
            return False
        return not self.check_args or act == expected

    def _fail(self, act: dict[str, Any], message: str) -> Any:
        base = self.last_event.metadata if self.last_event is not None else self.trace.events[0]
        md = dict(base)
        md.update(
            lastAction=act.get("action"),
            lastActionSuccess=False,
            errorMessage=message,
            errorCode=None,
            actionReturn=None,
        )
        frame = self.last_event.frame if self.last_event is not None else None
        self.last_event = event_from_metadata(md, frame=frame)
        return self.last_event


__all__ = ["RAISING_ERROR_CODES", "ReplayController"]
