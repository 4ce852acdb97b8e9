"""``EmbeddedEnv``: the embedded AI2-THOR-like simulator as a ``gymnasium.Env`` (ids ``coat/kitchen-v0``...).

Observations carry genuine ``ai2thor.server.Event`` objects when ``ai2thor`` is installed (``import
ai2thor.server`` only needs numpy); without it ``SceneObs.event`` is None and everything else (objects with the
42 AI2-THOR keys, frames, masks, time, in-use) is the same. Frames are top-down OpenCV pictures when ``cv2`` is
installed (extra ``vision``), else None.

Observations are read-only views: an object that did not change keeps the same dict from one observation to the
next (this is what makes 5,000+ actions/s possible); copy a dict before editing it. Editing never reaches the
simulator: its containment lists are copied into every observation.

State AI2-THOR lacks is kept out of the 42-key object metadata (so fidelity is untouched) and reported in
``SceneObs.extra`` and ``info``:

- ``extra["in_use"]`` / ``info["in_use"]``: ``{objectId: {"state": "reversible-using" | "irreversible-using",
  "by", "until", "remaining"}}`` for objects someone else is using (``UseObject``; scenarios);
- ``extra["perturbed"]`` / ``info["perturbed"]`` (at reset): ``{objectId: condition}`` for what the scenario and
  the ``perturb`` options changed (:mod:`scenes.embedded.perturb`), the episode's ground truth (perception
  should not read it: some faults show only on use);
- ``extra["extension_objects"]``: ids of objects of the extension types AI2-THOR lacks
  (:mod:`scenes.embedded.extensions`, e.g. the kitchen's Cake);
- ``extra["extensions"]``: ``{objectId: [label, ...]}`` of every COAT extension situation in force at this step
  (``dirty-not-dirtyable``, ``busy-timer``, ``faulty``...; the labels are documented in
  :mod:`scenes.embedded.perturb`); ``{}`` when the episode is AI2-THOR-native at this step;
- ``extra["perturbation_kinds"]`` / ``info["perturbation_kinds"]`` (at reset): ``{objectId: "native" |
  "extension"}`` for every perturbed object (native: missing, dirty on a dirtyable object, broken on a breakable
  one);
- ``extra["scene_id"]`` (the scene's name) and ``extra["actionReturn"]`` (as ``info["actionReturn"]``), which
  perception and the skills read when ``ai2thor`` is not installed and ``SceneObs.event`` is None;
- ``SceneObs.time`` / ``info["time"]``: simulated seconds since reset (every action takes ``step_seconds``;
  ``Wait`` takes ``seconds``); reversible use ends and hot/cold objects return to RoomTemp as time passes.

As a dict, the observation holds the Gymnasium view (:func:`scenes.spaces.thor_observation_space`): ``objects``
(one :class:`~scenes.spaces.ObjectState` per object), ``held`` and, with frames, ``rgb``.

Extensions beyond AI2-THOR (documented where they live): faults that show only on use (a faulty appliance
switches on but does nothing; an object that breaks when picked up; an object someone takes as the robot
approaches: :mod:`scenes.embedded.world.faults`) and object types AI2-THOR lacks (Cake:
:mod:`scenes.embedded.extensions`).

Example:
    >>> from scenes.embedded import EmbeddedEnv
    >>> from scenes.base import Action
    >>> env = EmbeddedEnv("kitchen", frames=False)
    >>> obs, info = env.reset(seed=0)
    >>> knife = next(o for o in obs.objects if o["objectType"] == "Knife")
    >>> obs, r, term, trunc, info = env.step(Action(name="PickupObject", object_id=knife["objectId"],
    ...                                            args={"forceAction": True}))
    >>> info["action_success"], obs.object(knife["objectId"])["isPickedUp"]
    (True, True)
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from planner._optional import is_available
from planner.errors import ConfigError

from ..base import Action, SceneEnv, SceneObs
from ..spaces import ObjectStates, thor_action_space, thor_observation_space
from .extensions import EXTENSION_TYPES
from .loader import SceneData, load_scene
from .metadata import vec
from .world import ROOM_TEMP_AFTER, STEP_SECONDS, World

log = logging.getLogger(__name__)

_INIT_RETURN = {"cameraNearPlane": 0.01, "cameraFarPlane": 20.0}

_event_cls: Any = None


def _event_class() -> Any:
    """``ai2thor.server.Event`` when ai2thor is installed, else None (imported lazily, once)."""
    global _event_cls
    if _event_cls is None:
        if is_available("ai2thor"):
            from planner._optional import require

            _event_cls = require("ai2thor.server", "thor").Event
        else:
            _event_cls = False
    return _event_cls or None


def _snapshot(o: dict[str, Any], visible: bool, distance: float, interactable: bool) -> dict[str, Any]:
    """One object's observed metadata: the live dict's values with the view-dependent keys filled in.

    Containment lists are copied so that editing an observation cannot change the simulator; other nested
    values (position, boxes) are replaced, never mutated, by the simulator, so sharing them is safe.
    """
    d = o.copy()
    d["visible"] = visible
    d["isInteractable"] = interactable
    d["distance"] = distance
    r = d["receptacleObjectIds"]
    if r is not None:
        d["receptacleObjectIds"] = r[:]
    r = d["parentReceptacles"]
    if r is not None:
        d["parentReceptacles"] = r[:]
    return d


class EmbeddedEnv(SceneEnv[SceneObs, Action]):
    """The embedded household simulator (AI2-THOR 5.0.0 metadata, action names and contextual rules).

    Args:
        scene: Packaged scene name (``kitchen``, ``living-room``, ``bathroom``, ``bedroom``), ``FloorPlanN``
            (real iTHOR scene from the data directory), a scene ``.json`` path, or a SceneData.
        data_dir: Data root for ``FloorPlanN`` (default: ``$COAT_DATA_DIR`` / user cache).
        frames: Render a top-down frame and instance masks every step (needs cv2; else frames are None).
        width: Frame width (AI2-THOR's ``screenWidth``).
        height: Frame height.
        grid_size: AI2-THOR ``gridSize``.
        visibility_distance: AI2-THOR ``visibilityDistance``.
        step_seconds: Simulated seconds each action takes (default 0.02 s, real AI2-THOR's median).
        room_temp_after: Seconds after leaving a heat/cold source before an object is RoomTemp again
            (default 10 s, AI2-THOR's ``HowManySecondsUntilRoomTemp``).
        slice_requires_knife: ALFRED's rule: SliceObject (without forceAction) needs a held knife.
        events: Build ``ai2thor.server.Event`` objects when ai2thor is installed.
        render_mode: ``"rgb_array"`` (``render()`` returns the top-down frame; None without cv2) or None.

    Raises:
        UnknownIdError: unknown scene name.
        DataNotFoundError: ``FloorPlanN`` without the ai2thor/ data.
        DataError: corrupt scene file (names the file).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}  # one frame per action in a video

    def __init__(
        self,
        scene: str | Path | SceneData = "kitchen",
        *,
        data_dir: str | Path | None = None,
        frames: bool = True,
        width: int = 300,
        height: int = 300,
        grid_size: float = 0.25,
        visibility_distance: float = 1.5,
        step_seconds: float = STEP_SECONDS,
        room_temp_after: float = ROOM_TEMP_AFTER,
        slice_requires_knife: bool = False,
        events: bool = True,
        render_mode: str | None = "rgb_array",
    ) -> None:
        for name, v in (("width", width), ("height", height)):
            if not isinstance(v, int) or v < 16:
                raise ConfigError(f"{name} must be an int >= 16, got {v!r}")
        for name, f in (("grid_size", grid_size), ("visibility_distance", visibility_distance)):
            if not isinstance(f, (int, float)) or f <= 0:
                raise ConfigError(f"{name} must be > 0, got {f!r}")
        if not isinstance(step_seconds, (int, float)) or step_seconds < 0:
            raise ConfigError(f"step_seconds must be >= 0, got {step_seconds!r}")
        self.scene_data = scene if isinstance(scene, SceneData) else load_scene(scene, data_dir=data_dir)
        self.frames = bool(frames) and is_available("cv2")
        if frames and not self.frames:
            log.info("cv2 is not installed: EmbeddedEnv frames are None (pip install 'coat-planner[vision]')")
        self.width, self.height = width, height
        self._world_kwargs = {
            "grid_size": grid_size,
            "visibility_distance": visibility_distance,
            "step_seconds": step_seconds,
            "room_temp_after": room_temp_after,
            "slice_requires_knife": slice_requires_knife,
        }
        self.events = bool(events)
        if not is_available("cv2"):
            self.metadata = {"render_modes": [], "render_fps": 4}  # nothing to render with
            render_mode = None
        self._set_render_mode(render_mode)
        self.observation_space = thor_observation_space((height, width) if self.frames else None)
        self.action_space = thor_action_space()
        self._states = ObjectStates()
        self.world: World | None = None
        self.scenario: dict[str, Any] = {}
        self.perturbed: dict[str, str] = {}
        self.perturbation_kinds: dict[str, str] = {}
        self._last_obs: SceneObs | None = None
        self._renderer: Any = None
        self._prev: Any = None
        self._ext: tuple[tuple[int, int], list[str]] | None = None
        self._ext_candidates: set[str] | None = None
        self._closed = False

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[SceneObs, dict[str, Any]]:
        """Start from the scene's initial state, perturbed by ``options`` when given.

        Args:
            seed: Seeds the scenario generator and the perturbations (same seed and options -> same
                observation).
            options: ``{"scenario": name, "perturb": [...], "in_use_seconds": 300.0}``, every key optional:
                ``scenario`` is one of :data:`~scenes.embedded.scenarios.SCENARIOS` or ``"random"``
                (:mod:`scenes.embedded.scenarios`); ``perturb`` a list of ``{"type", "condition", "which",
                "seconds"}`` dicts applied after the scenario (:mod:`scenes.embedded.perturb`);
                ``in_use_seconds`` how long ``stove-in-use`` and ``busy`` keep an object busy.

        Returns:
            (obs, info); ``info["scenario"]`` describes the scenario applied (``{}`` without one; ``name`` is
            the one drawn for ``random``, ``requested`` the one asked for); ``info["perturbed"]`` (also
            ``obs.extra["perturbed"]``) maps every objectId the scenario or the perturbations changed to its
            condition.

        Raises:
            ConfigError: an unknown option, scenario, object type or condition (the message lists the valid
                values), or a bad ``in_use_seconds``.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        name = options.pop("scenario", None)
        perturb = options.pop("perturb", None)
        seconds = options.pop("in_use_seconds", 300.0)
        if options:
            raise ConfigError(
                f"unknown reset options {sorted(options)}; valid: scenario, perturb, in_use_seconds"
            )
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
            raise ConfigError(f"in_use_seconds must be a number > 0, got {seconds!r}")
        self.world = World(self.scene_data, **self._world_kwargs)
        self._prev: Any = None
        self._ext = None
        self._ext_candidates = None
        self._states.clear()
        self.scenario = {}
        self.perturbed: dict[str, str] = {}
        if name is not None:
            from .scenarios import apply_scenario

            self.scenario = apply_scenario(self.world, name, seed=seed, in_use_seconds=seconds)
            self.perturbed.update(self.scenario["perturbed"])
        if perturb is not None:
            from .perturb import apply_perturbations

            self.perturbed.update(apply_perturbations(self.world, perturb, seed=seed, busy_seconds=seconds))
        self.world.settle()
        from .perturb import perturbation_kinds

        self.perturbation_kinds = perturbation_kinds(self.world, self.perturbed)
        obs, info = self._observe(True, "", dict(_INIT_RETURN), None, "Initialize")
        info["scenario"] = self.scenario
        info["perturbed"] = dict(self.perturbed)
        info["perturbation_kinds"] = dict(self.perturbation_kinds)
        return obs, info

    def step(self, action: Action | dict[str, Any]) -> tuple[SceneObs, float, bool, bool, dict[str, Any]]:
        """Apply one AI2-THOR action (an :class:`Action`, or ``controller.step`` kwargs as a dict).

        Impossible actions, unknown action names and unknown objectIds return ``info["action_success"] =
        False`` with AI2-THOR-like ``info["error"]``; they never raise.

        Raises:
            ResetNeeded: called before ``reset()``.
            ConfigError: ``action`` is neither an Action nor a dict with ``"action"``.
        """
        if self.world is None:
            from planner.errors import ResetNeeded

            raise ResetNeeded("call reset() first: EmbeddedEnv.step() before reset()")
        d = Action.coerce(action).to_thor()
        ok, err, ret, code = self.world.step(d)
        obs, info = self._observe(ok, err, ret, code, self.world.last_action)
        return obs, 0.0, False, False, info

    def render(self) -> np.ndarray | None:
        """The current top-down frame (HxWx3 uint8); None with ``render_mode=None``, without cv2 or before reset."""
        if self.world is None or self.render_mode is None:
            return None
        if self._last_obs is not None and self._last_obs.rgb is not None:
            return self._last_obs.rgb
        if not is_available("cv2"):
            return None
        rgb, _ = self._render()
        return rgb

    def close(self) -> None:
        """Release the scene (idempotent)."""
        self._closed = True
        self._last_obs = None

    def __repr__(self) -> str:
        return f"<EmbeddedEnv {self.scene_data.name}>"

    # ------------------------------------------------------------------ observation

    def _render(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        from .render import TopDownRenderer

        assert self.world is not None
        if self._renderer is None:
            self._renderer = TopDownRenderer(self.world, self.width, self.height)
        return self._renderer.render(self.world)

    def _observe(
        self, ok: bool, err: str, ret: Any, code: str | None, last_action: str
    ) -> tuple[SceneObs, dict[str, Any]]:
        w = self.world
        assert w is not None
        meta = self.metadata_dict(ok, err, ret, code, last_action)
        rgb = None
        masks = None
        if self.frames:
            rgb, masks = self._render()
            meta["colors"] = self._renderer.colors(list(w.objs)) if self._renderer is not None else None
        event = None
        cls = _event_class() if self.events else None
        if cls is not None:
            event = cls(meta)
            if rgb is not None:
                event.frame = rgb
                self._renderer.attach_segmentation(event)
        in_use = w.in_use_report()
        # what skills and perception read when ai2thor (and so the Event) is not installed: the scene's name
        # and the action's return value, under the names they look for
        extra = {"in_use": in_use, "held": w.held, "scene_id": w.scene_name, "scenario": self.scenario,
                 "actionReturn": ret, "perturbed": self.perturbed, "perturbation_kinds": self.perturbation_kinds,
                 "extension_objects": self._extension_objects(), "extensions": self._extensions()}
        objects = tuple(meta["objects"])
        obs = SceneObs(objects=objects, rgb=rgb, instance_masks=masks, event=event, time=w.time, extra=extra,
                       view=self._view(objects, w.held or "", rgb))
        self._last_obs = obs
        info = {
            "action_success": ok,
            "error": err,
            "errorCode": code,
            "lastAction": last_action,
            "actionReturn": ret,
            "time": w.time,
            "in_use": in_use,
        }
        return obs, info

    def _view(self, objects: tuple[dict[str, Any], ...], held: str, rgb: np.ndarray | None) -> Any:
        """The Gymnasium view of one observation, built when it is first read (see :class:`SceneObs`)."""
        states, frames = self._states, self.frames

        def build() -> dict[str, Any]:
            view: dict[str, Any] = {"objects": states(objects), "held": held}
            if frames:
                view["rgb"] = rgb
            return view

        return build

    def _extensions(self) -> dict[str, list[str]]:
        """:func:`~scenes.embedded.perturb.extension_situations` (candidates found once per reset, plus the
        objects the actions made extension situations of: new extension objects, claims and faults)."""
        from .perturb import extension_candidates, extension_situations

        w = self.world
        assert w is not None
        if self._ext_candidates is None:
            self._ext_candidates = extension_candidates(w)
        return extension_situations(w, self._ext_candidates | set(self._extension_objects()))

    def _extension_objects(self) -> list[str]:
        """Ids of extension-type objects (recomputed only when objects were added, removed or moved)."""
        w = self.world
        assert w is not None
        key = (w.geometry_version, len(w.objs))
        if self._ext is None or self._ext[0] != key:
            self._ext = (key, [k for k, o in w.objs.items() if o["objectType"] in EXTENSION_TYPES])
        return self._ext[1][:]

    def _objects(self) -> list[dict[str, Any]]:
        """Observed object dicts: a fresh snapshot for every object that changed (state, visibility,
        distance) since the previous observation, the previous dict for the others."""
        w = self.world
        assert w is not None
        w.visibility()
        assert w.vis_arrays is not None and w.interactable_array is not None
        ids, varr, darr = w.vis_arrays
        iarr = w.interactable_array
        dirty = w.take_dirty()
        prev = self._prev
        objs = w.objs
        if prev is None or prev[0] is not ids or prev[4] != w.pos:
            # first observation, objects added/removed, or the agent moved (every distance changed)
            objects = [
                _snapshot(objs[k], v, d, i)
                for k, v, d, i in zip(ids, varr.tolist(), darr.tolist(), iarr.tolist(), strict=True)
            ]
        else:
            _, pv, pd, plist, _, pi = prev
            objects = plist[:]
            changed = (
                set(np.flatnonzero((varr != pv) | (darr != pd) | (iarr != pi)).tolist()) if varr is not pv else set()
            )
            if dirty:
                index = {k: i for i, k in enumerate(ids)} if len(dirty) > 8 else None
                for k in dirty:
                    if k in objs:
                        changed.add(index[k] if index is not None else ids.index(k))
            for i in changed:
                objects[i] = _snapshot(objs[ids[i]], bool(varr[i]), float(darr[i]), bool(iarr[i]))
        self._prev = (ids, varr, darr, objects, w.pos, iarr)
        return objects

    def metadata_dict(self, ok: bool, err: str, ret: Any, code: str | None, last_action: str) -> dict[str, Any]:
        """AI2-THOR 5.0.0 ``event.metadata`` for the current state (37 top-level keys, 42 per object)."""
        w = self.world
        assert w is not None
        objects = self._objects()

        cam = w.camera
        hand = w.hand_position()
        held = w.objs.get(w.held) if w.held else None
        return {
            "objects": objects,
            "isSceneAtRest": True,
            "agent": {
                "name": "agent",
                "position": vec(*w.pos),
                "rotation": vec(-0.0, w.yaw, 0.0),
                "cameraHorizon": w.horizon,
                "isStanding": w.standing,
                "inHighFrictionArea": False,
            },
            "heldObjectPose": {
                "position": vec(*hand),
                "rotation": vec(0.0, w.yaw, 0.0),
                "localPosition": vec(-0.0, -0.16, 0.38),
                "localRotation": vec(-0.0, 0.0, 0.0),
            },
            "arm": None,
            "fov": w.fov,
            "cameraPosition": vec(*cam),
            "cameraOrthSize": 0.0,
            "thirdPartyCameras": [],
            "collided": w.collided,
            "collidedObjects": [],
            "inventoryObjects": [{"objectId": held["objectId"], "objectType": held["objectType"]}] if held else [],
            "sceneName": w.scene_name,
            "lastAction": last_action,
            "errorMessage": err,
            "errorCode": code,
            "lastActionSuccess": ok,
            "screenWidth": self.width,
            "screenHeight": self.height,
            "agentId": 0,
            "depthFormat": "Meters",
            "colors": None,
            "flatSurfacesOnGrid": [],
            "distances": [],
            "normals": [],
            "isOpenableGrid": [],
            "segmentedObjectIds": [],
            "objectIdsInBox": [],
            "actionIntReturn": 0,
            "actionFloatReturn": 0.0,
            "actionStringsReturn": None,
            "actionFloatsReturn": None,
            "actionVector3sReturn": None,
            "visibleRange": None,
            "currentTime": w.time,
            "sceneBounds": w.scene_bounds,
            "actionReturn": ret,
        }


__all__ = ["EmbeddedEnv"]
