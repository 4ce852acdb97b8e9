"""The :class:`World` class: the concern mixins combined, its set-up, and :meth:`World.step`."""

from __future__ import annotations

import copy
import math
from typing import Any

from planner.schemas.thor_rules import BEHIND_GLASS, NOT_VISIBLE, SEE_THROUGH, unknown_object

from ..loader import SceneData
from ..metadata import make_object_id
from .constants import ENCLOSING, POSE_ONLY, ROOM_TEMP_AFTER, STEP_SECONDS, WATER_SOURCES
from .containment import Containment
from .faults import Faults
from .geometry import SceneGeometry
from .manipulation import ManipulationActions
from .navigation import NavigationActions
from .rules import StateRules
from .state import ActionFailed, ObjState
from .state_changes import StateChangeActions
from .visibility import Visibility


class World(
    NavigationActions,
    ManipulationActions,
    StateChangeActions,
    Faults,
    StateRules,
    Visibility,
    Containment,
    SceneGeometry,
):
    """State and rules of one embedded scene. Create with a :class:`~scenes.embedded.loader.SceneData`.

    Args:
        scene: Initial state.
        grid_size: AI2-THOR ``gridSize`` (reachable-position spacing and default move length), metres.
        visibility_distance: AI2-THOR ``visibilityDistance``, metres.
        rotate_step: Default rotation, degrees.
        step_seconds: Simulated seconds every action takes (``Wait`` takes its ``seconds``).
        room_temp_after: Seconds after leaving a heat/cold source before an object is RoomTemp again.
        slice_requires_knife: ALFRED's rule (SliceObject needs a held Knife/ButterKnife); AI2-THOR has none.
        fov: Camera field of view, degrees.
    """

    def __init__(
        self,
        scene: SceneData,
        *,
        grid_size: float = 0.25,
        visibility_distance: float = 1.5,
        rotate_step: float = 90.0,
        step_seconds: float = STEP_SECONDS,
        room_temp_after: float = ROOM_TEMP_AFTER,
        slice_requires_knife: bool = False,
        fov: float = 90.0,
    ) -> None:
        self.scene_name = scene.name
        self.grid_size = float(grid_size)
        self.visibility_distance = float(visibility_distance)
        self.rotate_step = float(rotate_step)
        self.step_seconds = float(step_seconds)
        self.room_temp_after = float(room_temp_after)
        self.room_temp_after_type = {}
        self.slice_requires_knife = bool(slice_requires_knife)
        self.fov = float(fov)
        self._tan_half_fov = math.tan(math.radians(self.fov) / 2)
        self.objs = {}
        self.dirty = set()
        self.writes = [0]
        for o in scene.objects:
            self.objs[o["objectId"]] = ObjState(_tree_copy(o), self.dirty, self.writes)
        self.held = scene.held if scene.held in self.objs else None
        self.time = 0.0
        self.in_use = {}
        self.faulty = set()
        self.break_on_pickup = {}
        self.take_on_approach = set()
        self.fired = {}
        self.native_flags = {k: (bool(o["dirtyable"]), bool(o["breakable"])) for k, o in self.objs.items()}
        self.inactive = set()
        self.temp_clock = {}
        self.scene_bounds = scene.scene_bounds or self._bounds()
        self.floors = [k for k, o in self.objs.items() if o["objectType"] == "Floor"]
        self._floor_trigger = {f: self._estimate_floor_trigger(f) for f in self.floors}
        self._faucet_basins = self._link_faucets()
        self._grid = None
        self.agent_y = self._agent_height(scene)
        self._obstacles = self._obstacle_boxes()
        self.pos = (0.0, self.agent_y, 0.0)
        self.yaw = 0.0
        self.horizon = 0.0
        self.standing = True
        self._place_agent(scene)
        self.last_action = "Initialize"
        self.collided = False
        self.geometry_version = 0
        self.state_version = 0
        self._settled = -1
        self.open_version = 0
        self._in_source = set()
        self._geo = None
        self._index_sources()

    def _index_sources(self) -> None:
        # static capability flags: index the objects the contextual rules look at once
        objs = self.objs.values()
        self._cold = [o["objectId"] for o in objs if o["isColdSource"]]
        self._heat = [o["objectId"] for o in objs if o["isHeatSource"] and not o["isColdSource"]]
        self._water = [o["objectId"] for o in objs if o["objectType"] in WATER_SOURCES]
        self._enclosures = [o["objectId"] for o in objs if o["objectType"] in ENCLOSING and o["openable"]]
        self._glass = [o["objectId"] for o in objs if o["objectType"] in SEE_THROUGH]

    def step(self, action: dict[str, Any]) -> tuple[bool, str, Any, str | None]:
        """Apply one AI2-THOR action dict ``{"action": name, **params}``.

        Returns:
            (lastActionSuccess, errorMessage, actionReturn, errorCode). Bad input (an unknown action name, a
            missing or unknown objectId, an argument of the wrong type or out of range) and impossible actions
            are failed outcomes, as in AI2-THOR; errorCode is ``InvalidAction``, ``MissingArguments`` or
            ``InvalidArgument`` for bad input, None for an impossible action.

        Raises:
            Exception: only for a bug in the simulator itself (an error inside a handler it did not check for).
        """
        name = action.get("action")
        self.collided = False
        if not isinstance(name, str) or not name:
            self.last_action = str(name)
            return False, "Invalid action: the 'action' key must be a non-empty string", None, "InvalidAction"
        self.last_action = name
        handler = getattr(self, f"_a_{name}", None)
        if handler is None:
            return (
                False,
                f"Invalid action: {name!r} is not an action of the embedded simulator (AI2-THOR names, e.g. "
                "PickupObject, PutObject, OpenObject, ToggleObjectOn, Teleport, Pass)",
                None,
                "InvalidAction",
            )
        params = {k: v for k, v in action.items() if k not in ("action", "sequenceId")}
        dt = self.step_seconds
        if self.take_on_approach:
            self._approach_before(params)
        try:
            ret = handler(params)
            ok, err, code = True, "", None
            if name not in POSE_ONLY:
                self.state_version += 1
        except ActionFailed as e:
            # only what the handlers check explicitly (missing or unknown objectId, wrong argument types, impossible
            # actions) is a failed action; any other exception is a simulator bug and propagates
            ret, ok, err, code = None, False, str(e), e.code
        if name == "Wait" and ok:
            dt = float(params.get("seconds", self.step_seconds))
        if self.take_on_approach:
            self._approach_after()
        self.advance(dt)
        return ok, err, ret, code

    def _target(self, p: dict[str, Any], *, need_visible: bool = True) -> dict[str, Any]:
        """The action's target (AI2-THOR's ``getInteractableSimObjectFromId``).

        Raises:
            ActionFailed: no objectId (MissingArguments), an id no object has, or (without ``forceAction``) a
                target that is not visible or visible only through glass, with AI2-THOR's messages.
        """
        if "objectId" not in p:
            raise ActionFailed(f"action: {self.last_action} is missing the following arguments: objectId",
                               "MissingArguments")
        oid = p["objectId"]
        if not isinstance(oid, str) or oid not in self.objs:
            raise ActionFailed(unknown_object(str(oid)))
        o = self.objs[oid]
        if need_visible and not p.get("forceAction", False):
            if not self.is_visible(oid):
                raise ActionFailed(NOT_VISIBLE)
            if not self.is_interactable(oid):
                raise ActionFailed(BEHIND_GLASS)
        return o

    def remove_object(self, oid: str) -> None:
        """Take an object out of the scene (scenario "no knife")."""
        if oid not in self.objs:
            return
        for c in self.contents(oid, recursive=False, fixed=True):
            self.objs[c]["parentReceptacles"] = [
                x for x in (self.objs[c]["parentReceptacles"] or []) if x != oid
            ] or None
        self._detach(oid)
        if self.held == oid:
            self.held = None
        del self.objs[oid]
        self._geo = None
        self.in_use.pop(oid, None)
        self.inactive.discard(oid)
        self.geometry_version += 1

    def new_object_id(self, object_type: str, center: tuple[float, float, float]) -> str:
        """A fresh AI2-THOR-style id for an object placed at ``center``."""
        return make_object_id(object_type, *center)



_ATOMS = frozenset({str, float, int, bool, type(None)})


def _tree_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, tuples, str, numbers, bool, None; nothing shared inside, as a
    scene file's objects are), several times faster than ``copy.deepcopy``; anything else is deep-copied."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else _tree_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else _tree_copy(v) for v in value]
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return tuple(v if type(v) in _ATOMS else _tree_copy(v) for v in value)
    return copy.deepcopy(value)


__all__ = ["World"]
