"""The AI2-THOR adapter: ``ai2thor.controller.Controller`` as a ``gymnasium.Env`` (ids ``coat/thor-FloorPlanN-v0``).

For users who have the AI2-THOR Unity build (downloaded once by ai2thor into ``~/.ai2thor/releases``, or a
``local_executable_path``). Without a display it asks for the CloudRendering (Vulkan, headless) build.
Offline with no cached build, ai2thor's own message ("Invalid commit_id ... no build exists") is replaced by
one :class:`~planner.errors.SimulatorError` that says what is missing and what to use instead.

Actions are AI2-THOR's own (:class:`~scenes.base.Action` ``.to_thor()``), so nothing is translated; a failed
action, including the ones ``Controller.step`` raises ``ValueError`` for (errorCode InvalidAction,
MissingArguments, AmbiguousAction, InvalidArgument), comes back as ``info["action_success"] = False`` with
AI2-THOR's ``errorMessage``. A simulator that dies (broken pipe, timeout, crash) is closed and reported as
``SimulatorError``.

The spaces are declared without starting anything (:func:`scenes.spaces.thor_observation_space`): as a dict the
observation holds ``objects``, ``held``, ``rgb`` (black when the event carries no frame, e.g. a replayed trace
read without its PNGs) and, with ``render_depth``, ``depth``.

Example:
    >>> from scenes.thor import ThorEnv
    >>> with ThorEnv("FloorPlan1") as env:                          # doctest: +SKIP
    ...     obs, info = env.reset()
    ...     mug = next(o["objectId"] for o in obs.objects if o["objectType"] == "Mug")
    ...     obs, _, _, _, info = env.step(Action(name="PickupObject", object_id=mug, args={"forceAction": True}))
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

import numpy as np

from planner._optional import require
from planner.errors import ConfigError, ResetNeeded, SimulatorError

from .. import ITHOR_SCENES
from ..base import Action, SceneEnv, SceneObs
from ..spaces import ObjectStates, thor_action_space, thor_observation_space

logger = logging.getLogger(__name__)

_FLOORPLAN_RE = re.compile(r"^FloorPlan(\d+)(_physics)?$")
# Messages ai2thor raises when it finds no build (5.0.0 controller.find_build); the first is the usual one.
_NO_BUILD_MARKERS = ("no build exists", "No build exists")

_OFFLINE_FIX = (
    "Fix: use the embedded simulator, which needs no build: scenes.make('embedded/FloorPlan1-v0'); "
    "or, if you have an AI2-THOR Unity build on disk, pass local_executable_path='/path/to/thor-Linux64-...' "
    "(ThorEnv(..., local_executable_path=...) or scenes.make('thor/FloorPlan1-v0', local_executable_path=...)); "
    "or run once with internet access so ai2thor can download it into ~/.ai2thor/releases."
)


def _is_no_build(exc: BaseException) -> bool:
    return any(m in str(exc) for m in _NO_BUILD_MARKERS)


def _dead_exceptions() -> tuple[type[BaseException], ...]:
    # What ai2thor raises when the Unity process or the pipe to it is gone: Controller.step turns any server
    # error into RuntimeError/TimeoutError (after server.stop()), RestartError is a RuntimeError; a raw
    # pipe/socket error can escape from send().
    return (RuntimeError, TimeoutError, OSError, EOFError)


def check_ithor_scene(scene: str) -> str:
    """Check an iTHOR scene name and return it as ``FloorPlanN`` (a ``_physics`` suffix is dropped).

    Names that are not ``FloorPlanN`` (RoboTHOR ``FloorPlan_Train1_1``, custom builds) pass through
    unchanged for AI2-THOR to judge.

    Raises:
        ConfigError: ``FloorPlanN`` with an N that is not an iTHOR scene.
    """
    m = _FLOORPLAN_RE.match(scene)
    if not m:
        return scene
    name = f"FloorPlan{int(m.group(1))}"
    if name not in ITHOR_SCENES:
        raise ConfigError(
            f"unknown iTHOR scene {scene!r}; valid: FloorPlan1-30 (kitchens), FloorPlan201-230 (living rooms), "
            "FloorPlan301-330 (bedrooms), FloorPlan401-430 (bathrooms)"
        )
    return name


class ThorEnv(SceneEnv[SceneObs, Action]):
    """AI2-THOR 5.x through ``ai2thor.controller.Controller``.

    Args:
        scene: iTHOR scene, e.g. ``"FloorPlan1"``.
        controller: An existing ``Controller`` (or an object with its ``reset``/``step``/``stop``/
            ``last_event`` API, such as :class:`~scenes.thor.replay.ReplayController`). ThorEnv takes
            ownership and stops it on ``close()``. When None, a Controller is started.
        platform: ``"CloudRendering"``, ``"Linux64"``, ``"OSXIntel64"`` or an ``ai2thor.platform`` class;
            None picks CloudRendering when there is no ``DISPLAY`` and lets ai2thor choose otherwise.
        local_executable_path: A Unity build on disk (skips the download).
        x_display: X display for a ``local_executable_path`` build (ai2thor launches external builds as
            Linux64 and needs one); defaults to ``$DISPLAY``.
        width: Frame width in pixels.
        height: Frame height in pixels.
        grid_size: Navigation grid step in metres (``gridSize``).
        visibility_distance: Interaction range in metres (``visibilityDistance``).
        render_depth: Render depth frames (``renderDepthImage``) into ``obs.depth``.
        render_instance_segmentation: Render instance masks (``renderInstanceSegmentation``) into
            ``obs.instance_masks``.
        server_timeout: Seconds to wait for one action before the simulator counts as dead.
        server_start_timeout: Seconds to wait for Unity to start.
        render_mode: ``"rgb_array"`` (``render()`` returns the last frame) or None.

    Raises:
        SimulatorError: the Unity build is unavailable (offline, no cached build) or did not start.
        ConfigError: an argument is invalid (unknown scene, missing executable, no display for it).
        DependencyNotInstalled: ai2thor is not installed (``pip install 'coat-planner[thor]'``).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}  # one frame per action in a video

    def __init__(
        self,
        scene: str = "FloorPlan1",
        *,
        controller: Any = None,
        platform: Any = None,
        local_executable_path: str | os.PathLike[str] | None = None,
        x_display: str | None = None,
        width: int = 300,
        height: int = 300,
        grid_size: float = 0.25,
        visibility_distance: float = 1.5,
        render_depth: bool = False,
        render_instance_segmentation: bool = False,
        server_timeout: float = 100.0,
        server_start_timeout: float = 300.0,
        render_mode: str | None = "rgb_array",
    ) -> None:
        self.scene = check_ithor_scene(scene)
        if width <= 0 or height <= 0:
            raise ConfigError(f"width and height must be positive, got {width}x{height}")
        self._set_render_mode(render_mode)
        self.observation_space = thor_observation_space((height, width), depth=render_depth)
        self.action_space = thor_action_space()
        self._states = ObjectStates()
        self._frame_shape = (height, width)
        self.init_params: dict[str, Any] = {
            "gridSize": grid_size,
            "visibilityDistance": visibility_distance,
            "renderDepthImage": render_depth,
            "renderInstanceSegmentation": render_instance_segmentation,
        }
        self._controller: Any = None
        self._closed = False
        self._needs_reset = True
        self._fresh = False  # the controller has just loaded self.scene and nothing was done since
        self._t0 = 0.0
        self._last: SceneObs | None = None
        if controller is not None:
            self._controller = controller
            self._fresh = getattr(controller, "last_event", None) is not None and _event_scene(
                controller.last_event
            ) == physics_scene_name(self.scene)
        else:
            self._controller = self._start_controller(
                platform=platform,
                local_executable_path=local_executable_path,
                x_display=x_display,
                width=width,
                height=height,
                server_timeout=server_timeout,
                server_start_timeout=server_start_timeout,
            )
            self._fresh = True

    # ------------------------------------------------------------------ start-up
    def _start_controller(
        self,
        *,
        platform: Any,
        local_executable_path: str | os.PathLike[str] | None,
        x_display: str | None,
        width: int,
        height: int,
        server_timeout: float,
        server_start_timeout: float,
    ) -> Any:
        require("ai2thor", "thor")
        import ai2thor.controller
        import ai2thor.platform

        kwargs: dict[str, Any] = dict(
            scene=self.scene,
            width=width,
            height=height,
            server_timeout=server_timeout,
            server_start_timeout=server_start_timeout,
            **self.init_params,
        )
        display = x_display or os.environ.get("DISPLAY")
        if local_executable_path is not None:
            path = os.fspath(local_executable_path)
            if not os.path.exists(path):
                raise ConfigError(
                    f"local_executable_path {path!r} does not exist; point it at a Unity build of AI2-THOR"
                )
            if not display:
                # ai2thor launches external builds as Linux64 and passes DISPLAY to Popen; None -> TypeError.
                raise ConfigError(
                    f"local_executable_path {path!r} needs an X display: set DISPLAY or pass x_display=':0' "
                    "(start one with `sudo ai2thor-xorg start` or Xvfb)"
                )
            kwargs.update(local_executable_path=path, x_display=display)
        else:
            plat = _resolve_platform(platform, ai2thor.platform)
            if plat is None and not display:
                plat = ai2thor.platform.CloudRendering  # headless machine: the Vulkan build needs no X server
            if plat is not None:
                kwargs["platform"] = plat
            if x_display:
                kwargs["x_display"] = x_display

        try:
            return ai2thor.controller.Controller(**kwargs)
        except Exception as e:
            if _is_no_build(e) or _is_download_error(e):
                plat_name = getattr(kwargs.get("platform"), "__name__", "Linux64")
                raise SimulatorError(
                    f"The AI2-THOR Unity build is unavailable: ai2thor {_ai2thor_version()} needs build "
                    f"{_commit_id()[:12]} for {plat_name}, which is not in ~/.ai2thor/releases and could not be "
                    f"downloaded (no internet access?). ai2thor said: {e}. {_OFFLINE_FIX}"
                ) from None  # ai2thor's "Invalid commit_id" traceback misleads; its text is quoted above
            if "missing dependencies" in str(e):
                raise SimulatorError(
                    f"AI2-THOR found a build but cannot run it here: {e}. On a machine without a display, "
                    "pass platform='CloudRendering' (needs Vulkan); or use scenes.make('embedded/FloorPlan1-v0')."
                ) from e
            if isinstance(e, ValueError) and "not contained in build" in str(e):
                raise ConfigError(str(e).strip()) from e
            raise SimulatorError(f"AI2-THOR did not start: {type(e).__name__}: {e}") from e

    # ------------------------------------------------------------------ SceneEnv API
    @property
    def controller(self) -> Any:
        """The wrapped controller (None once closed)."""
        return self._controller

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[SceneObs, dict[str, Any]]:
        """Load the scene afresh.

        Args:
            seed: Seed for ``InitialRandomSpawn`` when ``options["random_spawn"]`` asks for it. AI2-THOR's
                scene reset itself is deterministic, so without random spawn the seed changes nothing.
            options: ``{"scene": "FloorPlan2"}`` switches scene; ``{"random_spawn": True}`` or
                ``{"random_spawn": {...InitialRandomSpawn params...}}`` shuffles pickupable objects.

        Returns:
            ``(obs, info)``; ``info`` has ``action_success``, ``error`` and ``scene``.

        Raises:
            ConfigError: unknown option or scene.
            SimulatorError: the simulator died (it has been closed).
        """
        super().reset(seed=seed)
        self._check_open()
        options = dict(options or {})
        unknown = set(options) - {"scene", "random_spawn"}
        if unknown:
            raise ConfigError(f"unknown reset option(s) {sorted(unknown)}; valid: 'scene', 'random_spawn'")
        if "scene" in options:
            scene = check_ithor_scene(str(options["scene"]))
            if scene != self.scene:
                self.scene, self._fresh = scene, False
        if self._fresh:
            event = self._controller.last_event  # a Controller has just loaded the scene: no second load
        else:
            try:
                event = self._call(lambda: self._controller.reset(self.scene, **self.init_params), "reset")
            except ValueError as e:  # Controller.reset: "Scene '...' not contained in build"
                raise ConfigError(f"AI2-THOR cannot load scene {self.scene!r}: {str(e).strip()}") from e
        self._fresh = False
        spawn = options.get("random_spawn")
        if spawn:
            params = {
                "randomSeed": 0 if seed is None else int(seed),
                "forceVisible": False,
                "numPlacementAttempts": 5,
                "placeStationary": True,
            }
            if isinstance(spawn, dict):
                params.update(spawn)
            event = self._step_event({"action": "InitialRandomSpawn", **params})
            if not event.metadata["lastActionSuccess"]:
                raise ConfigError(f"InitialRandomSpawn failed with {params}: {event.metadata.get('errorMessage')}")
        self._needs_reset = False
        self._t0 = float(event.metadata.get("currentTime") or 0.0)
        obs = self._observe(event)
        info = self._info(event)
        info["scene"] = self.scene
        return obs, info

    def step(self, action: Action | dict[str, Any]) -> tuple[SceneObs, float, bool, bool, dict[str, Any]]:
        """Send one AI2-THOR action (an :class:`Action`, or ``controller.step`` kwargs as a dict).

        A failed action is an outcome: ``info["action_success"]`` False and ``info["error"]`` AI2-THOR's
        ``errorMessage``. AI2-THOR has no task reward or episode end, so reward is 0.0 and ``terminated`` /
        ``truncated`` are False (``scenes.make(..., max_steps=N)`` adds a time limit).

        Raises:
            ResetNeeded: called before ``reset()``.
            SimulatorError: the simulator died or the env is closed (it has been closed).
            ConfigError: ``action`` is neither an Action nor a dict with ``"action"``.
        """
        self._check_open()
        if self._needs_reset:
            raise ResetNeeded("ThorEnv.step() called before reset(); call reset() first")
        event = self._step_event(Action.coerce(action).to_thor())
        return self._observe(event), 0.0, False, False, self._info(event)

    def render(self) -> np.ndarray | None:
        """The last RGB frame (HxWx3 uint8), or None (``render_mode=None``, before reset, no frame)."""
        return None if self._last is None or self.render_mode is None else self._last.rgb

    def close(self) -> None:
        """Stop the controller (and Unity). Safe to call more than once."""
        ctrl, self._controller = self._controller, None
        self._closed = True
        if ctrl is not None:
            try:
                ctrl.stop()
            except Exception as e:  # a dead Unity or a stopped server: nothing left to release
                logger.debug("ignoring error while stopping the AI2-THOR controller: %r", e)

    # ------------------------------------------------------------------ internals
    def _check_open(self) -> None:
        if self._closed or self._controller is None:
            raise SimulatorError("this ThorEnv is closed; create a new one (scenes.make('thor/...'))")

    def _step_event(self, kwargs: dict[str, Any]) -> Any:
        ctrl = self._controller
        try:
            return self._call(lambda: ctrl.step(**kwargs), kwargs.get("action", "?"))
        except ValueError:
            # Controller.step raises ValueError for errorCode InvalidAction / MissingArguments /
            # AmbiguousAction / InvalidArgument after storing the failed event: report it as an outcome.
            event = ctrl.last_event
            if event is None or event.metadata.get("lastActionSuccess", True):
                raise
            return event

    def _call(self, fn: Any, what: str) -> Any:
        try:
            return fn()
        except ValueError:
            raise
        except _dead_exceptions() as e:
            self.close()
            raise SimulatorError(
                f"AI2-THOR stopped responding during {what!r} in {self.scene} ({type(e).__name__}: {e}); "
                "the environment has been closed. Create a new one to continue."
            ) from e

    def _observe(self, event: Any) -> SceneObs:
        md = event.metadata
        masks = None
        if getattr(event, "instance_segmentation_frame", None) is not None:
            masks = {k: np.asarray(v, dtype=bool) for k, v in event.instance_masks.items()}
        objects = tuple(md.get("objects") or ())
        inventory = list(md.get("inventoryObjects") or [])
        held = str(inventory[0].get("objectId") or "") if inventory else ""
        states, shape, depth = self._states, self._frame_shape, "depth" in self.observation_space.spaces

        def view() -> dict[str, Any]:  # built when first read (see SceneObs)
            out: dict[str, Any] = {
                "objects": states(objects),
                "held": held,
                "rgb": np.zeros((*shape, 3), np.uint8) if event.frame is None else event.frame.copy(),
            }
            if depth:
                d = event.depth_frame
                out["depth"] = np.zeros(shape, np.float32) if d is None else d.astype(np.float32)
            return out

        obs = SceneObs(
            objects=objects,
            rgb=event.frame,
            depth=event.depth_frame,
            instance_masks=masks,
            event=event,
            time=max(0.0, float(md.get("currentTime") or 0.0) - self._t0),
            extra={"agent": md.get("agent"), "inventory": inventory},
            view=view,
        )
        self._last = obs
        return obs

    @staticmethod
    def _info(event: Any) -> dict[str, Any]:
        md = event.metadata
        ok = bool(md.get("lastActionSuccess"))
        return {
            "action_success": ok,
            "error": "" if ok else str(md.get("errorMessage") or "action failed"),
            "error_code": md.get("errorCode"),
            "last_action": md.get("lastAction"),
            "action_return": md.get("actionReturn"),
        }


def physics_scene_name(scene: str) -> str:
    """``FloorPlanN`` -> ``FloorPlanN_physics``: the name AI2-THOR reports in ``sceneName``.

    The same rule as ai2thor's ``Controller.normalize_scene``; other names pass through unchanged. Unlike
    :func:`check_ithor_scene` it neither validates the number nor strips a ``_physics`` suffix.
    """
    return scene + "_physics" if _FLOORPLAN_RE.match(scene) and not scene.endswith("_physics") else scene


def _event_scene(event: Any) -> str:
    try:
        return str(event.metadata.get("sceneName") or "")
    except AttributeError:
        return ""


def _resolve_platform(platform: Any, module: Any) -> Any:
    if platform is None or not isinstance(platform, str):
        return platform
    plat = getattr(module, "STR_PLATFORM_MAP", {}).get(platform) or getattr(module, platform, None)
    if plat is None:
        valid = sorted(getattr(module, "STR_PLATFORM_MAP", {}) or ["CloudRendering", "Linux64", "OSXIntel64"])
        raise ConfigError(f"unknown AI2-THOR platform {platform!r}; valid: {', '.join(valid)}")
    return plat


def _is_download_error(exc: BaseException) -> bool:
    # A cached release dir without metadata.json makes ai2thor download it (requests ConnectionError).
    return type(exc).__module__.startswith("requests") or "Digest mismatch" in str(exc)


def _ai2thor_version() -> str:
    try:
        from importlib.metadata import version

        return version("ai2thor")
    except Exception:
        return "?"


def _commit_id() -> str:
    try:
        import ai2thor.build

        return str(ai2thor.build.COMMIT_ID)
    except Exception:
        return "?"


__all__ = ["ThorEnv", "check_ithor_scene", "physics_scene_name"]
