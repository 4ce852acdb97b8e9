"""Live AI2-THOR: runs only with ``-m thor`` on a machine that has the Unity build (or can download it).

    COAT_DATA_DIR=<data dir> PYTHONPATH=. python -m pytest -q -m thor tests/scenes/test_thor_live.py

Set ``AI2THOR_LOCAL_EXECUTABLE`` to use a build on disk instead of ~/.ai2thor/releases.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scenes.base import Action
from scenes.thor import ThorEnv, load_trace

pytestmark = pytest.mark.thor
pytest.importorskip("ai2thor.controller")


@pytest.fixture(scope="module")
def env() -> Iterator[ThorEnv]:
    exe = os.environ.get("AI2THOR_LOCAL_EXECUTABLE")
    e = ThorEnv("FloorPlan1", local_executable_path=exe, render_depth=True, render_instance_segmentation=True)
    yield e
    e.close()


def test_live_reset_has_the_50_schema(env: ThorEnv) -> None:
    obs, info = env.reset()
    assert info["action_success"] and info["scene"] == "FloorPlan1"
    assert obs.rgb is not None and obs.rgb.shape == (300, 300, 3)
    assert obs.depth is not None and obs.instance_masks is not None
    assert len(obs.objects) > 50 and all(len(o) == 42 for o in obs.objects)


def test_live_pickup_and_failure(env: ThorEnv) -> None:
    obs, _ = env.reset()
    mug = next(o["objectId"] for o in obs.objects if o["objectType"] == "Mug")
    obs, _, _, _, info = env.step(Action(name="PickupObject", object_id=mug, args={"forceAction": True}))
    assert info["action_success"], info["error"]
    assert obs.object(mug)["isPickedUp"]
    _, _, _, _, info = env.step(Action(name="OpenObject", object_id="NoSuchObject|0|0|0", args={"forceAction": True}))
    assert info["action_success"] is False and info["error"]
    _, _, _, _, info = env.step(Action(name="NoSuchAction"))
    assert info["action_success"] is False


def test_live_matches_the_recorded_trace(env: ThorEnv, data_dir: Path) -> None:
    t = load_trace("pickup_mug", data_dir, frames=False)
    env.reset(options={"scene": "FloorPlan1"})
    keys = ("isPickedUp", "isOpen", "isToggled", "isDirty", "isBroken", "temperature")
    for i, a in enumerate(t.actions[1:], start=1):
        obs, _, _, _, info = env.step(a)
        assert info["action_success"] == t.events[i]["lastActionSuccess"]
        want = {o["objectId"]: tuple(o[k] for k in keys) for o in t.events[i]["objects"]}
        got = {o["objectId"]: tuple(o[k] for k in keys) for o in obs.objects}
        assert got == want
