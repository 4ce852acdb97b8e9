"""ThorEnv's code paths, driven by recorded AI2-THOR events (no Unity build needed).

Three stand-ins for the Unity side:
- ReplayController: replays a trace through the Controller API;
- the real ``ai2thor.controller.Controller.step``/``reset`` code with an in-process fake server that answers
  with recorded events (so Controller's own ValueError / RuntimeError rules are exercised);
- small scripted controllers for crashes and for checking what ThorEnv sends.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner.errors import ConfigError, ResetNeeded, SimulatorError
from scenes.base import Action, SceneObs
from scenes.thor import ReplayController, ThorEnv, Trace, event_from_metadata, load_trace
from scenes.thor.traces import trace_names

ai2thor_controller = pytest.importorskip("ai2thor.controller")
from ai2thor.server import Event  # noqa: E402


def _with_failure(trace: Trace, i: int, *, code: str | None, message: str) -> Trace:
    events = copy.deepcopy(trace.events)
    events[i].update(lastActionSuccess=False, errorCode=code, errorMessage=message, actionReturn=None)
    return Trace(trace.name, trace.actions, events, trace.frames)


# ---------------------------------------------------------------- reset / step mapping (replay)


@pytest.mark.parametrize("name", ["pickup_mug", "WashCutleryTask", "DoHomework", "clean_up_kitchen"])
def test_replay_maps_every_event_into_obs_and_info(data_dir: Path, name: str) -> None:
    t = load_trace(name, data_dir)
    scene = t.scene.removesuffix("_physics")
    with ThorEnv(scene, controller=ReplayController(t)) as env:
        obs, info = env.reset()
        assert isinstance(obs, SceneObs) and isinstance(obs.event, Event)
        assert list(obs.objects) == t.events[0]["objects"]
        assert np.array_equal(obs.rgb, t.frames[0]) and obs.time == 0.0
        assert info["action_success"] is True and info["error"] == "" and info["scene"] == scene
        for i, action in enumerate(t.actions[1:], start=1):
            obs, reward, terminated, truncated, info = env.step(action)
            md = t.events[i]
            assert info["action_success"] is md["lastActionSuccess"] is True
            assert info["last_action"] == action.name and info["action_return"] == md["actionReturn"]
            assert list(obs.objects) == md["objects"]
            assert obs.object(md["objects"][0]["objectId"]) == md["objects"][0]
            assert np.array_equal(obs.rgb, t.frames[i]) and np.array_equal(env.render(), t.frames[i])
            assert obs.time == pytest.approx(md["currentTime"] - t.events[0]["currentTime"])
            assert obs.extra["inventory"] == md["inventoryObjects"]
            assert (reward, terminated, truncated) == (0.0, False, False)


def test_pickup_shows_in_the_mapped_state(data_dir: Path) -> None:
    t = load_trace("pickup_mug", data_dir)
    env = ThorEnv(controller=ReplayController(t))
    env.reset()
    mug_id = t.actions[3].object_id
    env.step(t.actions[1])
    env.step(t.actions[2])
    obs, _, _, _, info = env.step(Action(name="PickupObject", object_id=mug_id, args={"forceAction": True}))
    assert info["action_success"] and obs.object(mug_id)["isPickedUp"] is True
    assert obs.extra["inventory"] == [{"objectId": mug_id, "objectType": "Mug"}]


# ---------------------------------------------------------------- failures are outcomes


@pytest.mark.parametrize("code", ["InvalidAction", "MissingArguments", "AmbiguousAction", "InvalidArgument"])
def test_controller_valueerror_becomes_a_failed_step(data_dir: Path, code: str) -> None:
    t = _with_failure(load_trace("pickup_mug", data_dir), 1, code=code, message="Object ID appears to be invalid.")
    env = ThorEnv(controller=ReplayController(t))
    env.reset()
    obs, _, terminated, truncated, info = env.step(t.actions[1])
    assert info["action_success"] is False
    assert info["error"] == "Object ID appears to be invalid." and info["error_code"] == code
    assert not terminated and not truncated and isinstance(obs.event, Event)


def test_plain_failure_keeps_the_thor_message(data_dir: Path) -> None:
    t = _with_failure(load_trace("pickup_mug", data_dir), 2, code=None, message="No object currently held to drop!")
    env = ThorEnv(controller=ReplayController(t))
    env.reset()
    env.step(t.actions[1])
    _, _, _, _, info = env.step(t.actions[2])
    assert info == {**info, "action_success": False, "error": "No object currently held to drop!"}


def test_unrecorded_action_is_a_failed_step_not_an_exception(data_dir: Path) -> None:
    env = ThorEnv(controller=ReplayController(load_trace("open_fridge", data_dir)))
    env.reset()
    _, _, _, _, info = env.step(Action(name="PickupObject", object_id="Nope|1|2|3"))
    assert info["action_success"] is False and "not in the recording" in info["error"]


# ---------------------------------------------------------------- lifecycle


def test_step_before_reset_and_after_close(data_dir: Path) -> None:
    ctrl = ReplayController(load_trace("open_fridge", data_dir))
    env = ThorEnv(controller=ctrl)
    with pytest.raises(ResetNeeded):
        env.step(Action(name="Pass"))
    env.reset()
    env.close()
    env.close()  # idempotent
    assert ctrl.stopped and env.controller is None
    with pytest.raises(SimulatorError, match="closed"):
        env.step(Action(name="Pass"))
    with pytest.raises(SimulatorError, match="closed"):
        env.reset()


def test_context_manager_stops_the_controller(data_dir: Path) -> None:
    ctrl = ReplayController(load_trace("open_fridge", data_dir))
    with ThorEnv(controller=ctrl) as env:
        env.reset()
    assert ctrl.stopped


def test_reset_rejects_unknown_options_and_scenes(data_dir: Path) -> None:
    env = ThorEnv(controller=ReplayController(load_trace("open_fridge", data_dir)))
    with pytest.raises(ConfigError, match="random_spawn"):
        env.reset(options={"shuffle": True})
    with pytest.raises(ConfigError, match="FloorPlan1-30"):
        env.reset(options={"scene": "FloorPlan99"})
    with pytest.raises(ConfigError, match="cannot load scene 'FloorPlan2'"):
        env.reset(options={"scene": "FloorPlan2"})  # not the recorded scene: the controller refuses it
    with pytest.raises(ConfigError, match="FloorPlan401-430"):
        ThorEnv("FloorPlan31", controller=object())


class _Scripted:
    """A controller that answers every action with the same recorded event (renamed), or raises."""

    def __init__(self, metadata: dict[str, Any], fail_with: BaseException | None = None) -> None:
        self.metadata = metadata
        self.fail_with = fail_with
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.last_event: Any = None
        self.stopped = 0

    def reset(self, scene: str, **params: Any) -> Any:
        self.calls.append(("reset", {"scene": scene, **params}))
        self.last_event = event_from_metadata(self.metadata)
        return self.last_event

    def step(self, action: str | None = None, **kwargs: Any) -> Any:
        self.calls.append(("step", {"action": action, **kwargs}))
        if self.fail_with is not None:
            raise self.fail_with
        md = dict(self.metadata, lastAction=action)
        self.last_event = event_from_metadata(md)
        return self.last_event

    def stop(self) -> None:
        self.stopped += 1


def test_reset_passes_init_params_and_random_spawn(data_dir: Path) -> None:
    ctrl = _Scripted(load_trace("pickup_mug", data_dir, frames=False).events[0])
    env = ThorEnv("FloorPlan1", controller=ctrl, grid_size=0.5, visibility_distance=2.0, render_depth=True)
    env.reset(seed=7, options={"random_spawn": {"numPlacementAttempts": 10}})
    assert ctrl.calls[0] == (
        "reset",
        {
            "scene": "FloorPlan1",
            "gridSize": 0.5,
            "visibilityDistance": 2.0,
            "renderDepthImage": True,
            "renderInstanceSegmentation": False,
        },
    )
    assert ctrl.calls[1] == (
        "step",
        {
            "action": "InitialRandomSpawn",
            "randomSeed": 7,
            "forceVisible": False,
            "numPlacementAttempts": 10,
            "placeStationary": True,
        },
    )
    env.step(Action(name="OpenObject", object_id="Fridge|1", args={"forceAction": True}))
    assert ctrl.calls[-1] == ("step", {"action": "OpenObject", "objectId": "Fridge|1", "forceAction": True})


@pytest.mark.parametrize(
    "exc",
    [BrokenPipeError("Broken pipe"), TimeoutError("timed out"), RuntimeError("Error encountered when running action")],
)
def test_dead_simulator_is_closed_and_reported(data_dir: Path, exc: BaseException) -> None:
    ctrl = _Scripted(load_trace("pickup_mug", data_dir, frames=False).events[0])
    env = ThorEnv(controller=ctrl)
    env.reset()
    ctrl.fail_with = exc
    with pytest.raises(SimulatorError, match="stopped responding") as ei:
        env.step(Action(name="MoveAhead"))
    assert ei.value.__cause__ is exc
    assert ctrl.stopped == 1 and env.controller is None
    with pytest.raises(SimulatorError, match="closed"):
        env.step(Action(name="MoveAhead"))


def test_depth_and_instance_masks_are_mapped(data_dir: Path) -> None:
    md = copy.deepcopy(load_trace("pickup_mug", data_dir, frames=False).events[0])
    apple = next(o["objectId"] for o in md["objects"] if o["objectType"] == "Apple")
    md["colors"] = [{"name": apple, "color": [10, 20, 30]}, {"name": "Apple", "color": [1, 2, 3]}]
    ids = np.zeros((300, 300, 3), np.uint8)
    ids[100:120, 50:60] = (10, 20, 30)  # the apple's colour in a 20x10 box (top-down image coordinates)
    ev = Event(md)
    ev.process_colors()
    ev.add_image_ids(np.ascontiguousarray(ids[::-1]).tobytes())  # wire format is bottom-up RGB
    ev.depth_frame = np.full((300, 300), 1.25, np.float32)

    class _One(_Scripted):
        def reset(self, scene: str, **params: Any) -> Any:
            self.last_event = ev
            return ev

    env = ThorEnv(controller=_One(md), render_instance_segmentation=True, render_depth=True)
    obs, _ = env.reset()
    assert set(obs.instance_masks) == {apple}
    mask = obs.instance_masks[apple]
    assert mask.dtype == bool and mask.sum() == 200 and mask[100:120, 50:60].all()
    assert obs.depth is not None and float(obs.depth[0, 0]) == 1.25


# ---------------------------------------------------------------- the real Controller.step / reset code


class _TraceServer:
    """In-process stand-in for ai2thor's FifoServer: answers with the recorded events of one trace."""

    def __init__(self, trace: Trace, *, die_after: int | None = None) -> None:
        self.trace = trace
        self.sent: list[dict[str, Any]] = []
        self.unity_proc = None
        self.stopped = False
        self.die_after = die_after

    def send(self, action: dict[str, Any]) -> None:
        self.sent.append(action)

    def receive(self, timeout: float | None = None) -> Any:
        if self.die_after is not None and len(self.sent) > self.die_after:
            raise BrokenPipeError("[Errno 32] Broken pipe")
        act = self.sent[-1]["action"]
        if act in ("Reset", "Initialize"):
            return self.trace.event(0)
        i = sum(1 for a in self.sent if a["action"] not in ("Reset", "Initialize"))
        return self.trace.event(i)

    def stop(self) -> None:
        self.stopped = True


def _real_controller(server: _TraceServer) -> Any:
    import ai2thor.build
    import ai2thor.platform

    c = ai2thor_controller.Controller.__new__(ai2thor_controller.Controller)
    c.server, c.headless, c.last_event, c.scene = server, False, None, None
    c.width = c.height = 300
    c._scenes_in_build = set()  # old-build behaviour: no scene check
    c.initialization_parameters = {}
    c._build = ai2thor.build.ExternalBuild("/nonexistent")
    c._build.platform = ai2thor.platform.Linux64
    return c


def test_real_controller_code_valueerror_path(data_dir: Path) -> None:
    t = _with_failure(load_trace("pickup_mug", data_dir), 1, code="InvalidArgument", message="bad objectId")
    server = _TraceServer(t)
    env = ThorEnv("FloorPlan1", controller=_real_controller(server))
    obs, info = env.reset()
    assert [a["action"] for a in server.sent] == ["Reset", "Initialize"]
    assert server.sent[1]["gridSize"] == 0.25 and info["action_success"]
    _, _, _, _, info = env.step(t.actions[1])  # Controller.step raises ValueError; ThorEnv reports it
    assert info["action_success"] is False and info["error"] == "bad objectId"
    assert server.sent[-1] == {"action": "PickupObject", "objectId": t.actions[1].object_id, "forceAction": True}
    _, _, _, _, info = env.step(t.actions[2])
    assert info["action_success"] is True


def test_real_controller_code_dead_server(data_dir: Path) -> None:
    server = _TraceServer(load_trace("pickup_mug", data_dir), die_after=2)
    env = ThorEnv("FloorPlan1", controller=_real_controller(server))
    env.reset()
    with pytest.raises(SimulatorError, match="stopped responding"):
        env.step(Action(name="MoveAhead"))  # Controller.step: server.stop(), then RuntimeError
    assert server.stopped and env.controller is None


# ---------------------------------------------------------------- starting a Controller


class _CaptureController:
    kwargs: dict[str, Any] = {}

    def __init__(self, **kwargs: Any) -> None:
        type(self).kwargs = kwargs
        raise ValueError(
            "Invalid commit_id: f0825767cd50d69f666c7f282e54abfe58f1e917"
            " - no build exists for arch=Linux platforms=Linux64"
        )


def test_offline_error_is_one_clear_simulator_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ai2thor_controller, "Controller", _CaptureController)
    with pytest.raises(SimulatorError) as ei:
        ThorEnv("FloorPlan1")
    msg = str(ei.value)
    assert "Unity build is unavailable" in msg
    assert "scenes.make('embedded/FloorPlan1-v0')" in msg and "local_executable_path" in msg
    assert ei.value.__cause__ is None and ei.value.__suppress_context__  # no misleading chained traceback


def test_no_display_selects_cloud_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    import ai2thor.platform

    monkeypatch.setattr(ai2thor_controller, "Controller", _CaptureController)
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(SimulatorError):
        ThorEnv("FloorPlan5", width=64, height=48, render_instance_segmentation=True)
    kw = _CaptureController.kwargs
    assert kw["platform"] is ai2thor.platform.CloudRendering
    assert (kw["scene"], kw["width"], kw["height"], kw["renderInstanceSegmentation"]) == ("FloorPlan5", 64, 48, True)
    monkeypatch.setenv("DISPLAY", ":0")
    with pytest.raises(SimulatorError):
        ThorEnv("FloorPlan5")
    assert "platform" not in _CaptureController.kwargs  # with a display ai2thor picks Linux64 itself
    with pytest.raises(SimulatorError):
        ThorEnv("FloorPlan5", platform="CloudRendering")
    assert _CaptureController.kwargs["platform"] is ai2thor.platform.CloudRendering
    with pytest.raises(ConfigError, match="unknown AI2-THOR platform"):
        ThorEnv("FloorPlan5", platform="Windows95")


def test_local_executable_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(ai2thor_controller, "Controller", _CaptureController)
    with pytest.raises(ConfigError, match="does not exist"):
        ThorEnv(local_executable_path=tmp_path / "missing")
    exe = tmp_path / "thor"
    exe.write_text("")
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(ConfigError, match="needs an X display"):
        ThorEnv(local_executable_path=exe)
    with pytest.raises(SimulatorError):
        ThorEnv(local_executable_path=exe, x_display=":1")
    assert _CaptureController.kwargs["local_executable_path"] == str(exe)
    assert _CaptureController.kwargs["x_display"] == ":1" and "platform" not in _CaptureController.kwargs


def test_real_controller_offline_gives_the_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unmodified ai2thor Controller, with the network cut: fails in well under a second."""
    import ai2thor.build
    import requests

    releases = Path(os.path.expanduser("~/.ai2thor/releases"))
    if releases.is_dir() and any(ai2thor.build.COMMIT_ID in p.name for p in releases.iterdir()):
        pytest.skip("an AI2-THOR build is cached here; the live tests cover this machine")

    def _offline(*a: Any, **k: Any) -> Any:
        raise requests.exceptions.ConnectionError("network disabled in tests")

    monkeypatch.setattr(requests, "head", _offline)
    monkeypatch.setattr(requests, "get", _offline)
    with pytest.raises(SimulatorError, match=r"Unity build is unavailable.*ai2thor said: Invalid commit_id"):
        ThorEnv("FloorPlan1")


def test_all_traces_replay_cleanly(data_dir: Path) -> None:
    for name in trace_names(data_dir):
        t = load_trace(name, data_dir, frames=False)
        env = ThorEnv(t.scene.removesuffix("_physics"), controller=ReplayController(t))
        env.reset()
        ok = [env.step(a)[4]["action_success"] for a in t.actions[1:]]
        assert all(ok), name
        env.close()


def test_conformance_through_the_registry(data_dir: Path) -> None:
    import scenes
    from scenes.checker import check_scene_env

    t = load_trace("pickup_mug", data_dir)
    env = scenes.make("thor/FloorPlan1-v0", controller=ReplayController(t))
    check_scene_env(env, actions=t.actions[1:])
