"""ScienceWorld on the real JVM (offline: the jar ships in the scienceworld wheel).

Every test here starts a JVM, so the module is marked ``sciworld_live`` (deselected by default); the first
test is the quick one (JVM start + one reset + a few steps, ~3 s):

    COAT_DATA_DIR=<data dir> PYTHONPATH=. python -m pytest -q -m sciworld_live tests/scenes/test_sciworld_live.py
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from planner.errors import SimulatorError
from scenes.base import Action
from scenes.sciworld import CHANGE_OF_STATE_TASKS, ScienceWorldEnv, broken_devices, java_version, tasks

pytestmark = pytest.mark.sciworld_live

pytest.importorskip("scienceworld")
if not java_version():
    pytest.skip("ScienceWorld needs Java on PATH", allow_module_level=True)


def T(command: str, **kw: object) -> Action:
    return Action(name="Text", args={"command": command, **kw})


def _java_proc(env: ScienceWorldEnv) -> object:
    return env._env._gateway.java_process  # the JVM this env started


def test_real_broken_stove_is_a_failed_step_and_ground_truth() -> None:
    env = ScienceWorldEnv("boil", variation=1)
    proc = _java_proc(env)
    try:
        obs, info = env.reset()
        assert "This room is called" in obs.text and "boil water" in obs.extra["task_description"]
        assert info["variation"] == 1 and info["moves"] == 0
        _, _, _, _, info = env.step(T("teleport to kitchen"))
        assert info["action_success"] and info["moves"] == 1
        _, reward, terminated, _, info = env.step(Action(name="ToggleObjectOn", object_id="stove"))
        assert info["action_success"] is False and "appears broken" in info["error"]
        assert (reward, terminated) == (0.0, False)
        assert env.broken_devices() == ("kitchen:stove",) == broken_devices("boil", 1)
        pot = next(o for o in env.objects() if o.name == "metal pot")
        assert pot.material == "steel" and pot.room == "kitchen"
    finally:
        env.close()
    assert proc.poll() is not None  # close() shut the JVM down and reaped it


# ---------------------------------------------------------------- longer live checks


@pytest.fixture(scope="module")
def live() -> Iterator[ScienceWorldEnv]:
    env = ScienceWorldEnv("boil")
    yield env
    env.close()


@pytest.mark.sciworld_live
def test_live_boil_with_a_substitute_heater_reaches_100(live: ScienceWorldEnv) -> None:
    # Closed loop: ScienceWorld 1.2.3's heat transfer is not deterministic, so wait until the water boils.
    live.reset(options={"variation": 1})
    for a in [
        T("teleport to kitchen"),
        Action(name="OpenObject", object_id="cupboard"),
        Action(name="PickupObject", object_id="metal pot"),
        Action(name="PutObject", object_id="sink"),
        Action(name="ToggleObjectOn", object_id="sink"),
        Action(name="ToggleObjectOff", object_id="sink"),
        Action(name="PickupObject", object_id="metal pot"),
        T("focus on water"),
        Action(name="OpenObject", object_id="oven"),
        Action(name="PutObject", object_id="oven"),
        Action(name="ToggleObjectOn", object_id="oven"),
    ]:
        _, _, terminated, _, info = live.step(a)
        assert info["action_success"], (info["command"], info["error"])
    for _ in range(30):
        _, _, terminated, truncated, info = live.step(Action(name="Pass"))
        if terminated or truncated:
            break
    assert terminated and info["success"] and info["score"] == 100


@pytest.mark.sciworld_live
def test_live_ambiguity(live: ScienceWorldEnv) -> None:
    live.reset(options={"variation": 1})  # starts in the art studio with three wood cups
    _, _, _, _, info = live.step(T("pick up cup"))
    assert info["action_success"] is False and len(info["choices"]) == 3
    _, _, _, _, info = live.step(T("look around"))  # cancels the question (one move), then looks
    assert info["action_success"] and info["moves"] == 1
    _, _, _, _, info = live.step(T("pick up cup", choice=2))
    assert info["action_success"] and "wood cup" in live.step(T("inventory"))[0].extra["observation"]


@pytest.mark.sciworld_live
def test_live_truncation_and_failure(live: ScienceWorldEnv) -> None:
    env = ScienceWorldEnv("boil", step_limit=4)
    try:
        env.reset()
        flags = [env.step(Action(name="Pass"))[2:4] for _ in range(3)]
        assert flags == [(False, False), (False, False), (False, True)]
    finally:
        env.close()
    live.reset(options={"variation": 1})
    _, reward, terminated, truncated, info = live.step(T("focus on orange"))  # the orange is in the inventory
    assert terminated and not truncated and reward < 0 and not info["success"]


@pytest.mark.sciworld_live
def test_live_broken_device_rule_matches_the_object_tree(live: ScienceWorldEnv) -> None:
    for task in CHANGE_OF_STATE_TASKS:
        env = ScienceWorldEnv(task)
        try:
            for v in range(env.max_variations()):
                env.reset(options={"variation": v})
                assert env.broken_devices() == broken_devices(task, v), (task, v)
        finally:
            env.close()


@pytest.mark.sciworld_live
def test_live_task_names(live: ScienceWorldEnv) -> None:
    assert sorted(live._env.get_task_names()) == sorted(tasks())  # the JVM lists them in another order


@pytest.mark.sciworld_live
def test_live_dead_jvm_is_reported() -> None:
    env = ScienceWorldEnv("boil")
    env.reset()
    proc = _java_proc(env)
    os.kill(proc.pid, signal.SIGKILL)  # the JVM this test started
    time.sleep(0.5)
    with pytest.raises(SimulatorError, match="stopped responding"):
        env.step(T("look around"))
    with pytest.raises(SimulatorError, match="closed"):
        env.step(T("look around"))
    assert proc.poll() is not None


@pytest.mark.sciworld_live
def test_live_conformance() -> None:
    import scenes
    from scenes.checker import check_scene_env

    check_scene_env(scenes.make("sciworld/boil-v0", max_steps=50))
