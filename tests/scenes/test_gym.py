"""The backends as Gymnasium environments: spaces, ``check_env``, vector envs, rendering, the SceneObs dict."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import scenes
from planner.errors import ConfigError
from scenes import Action, SceneObs
from scenes.embedded import EmbeddedEnv
from scenes.spaces import OBJECT_FLAGS, clean_text, object_state, thor_observation_space


@pytest.mark.parametrize("env_id", ["coat/FloorPlan1-v0", "coat/kitchen-v0", "coat/living-room-v0"])
def test_gymnasium_make_and_check_env(env_id: str) -> None:
    env = gymnasium.make(env_id, frames=False)
    assert isinstance(env.unwrapped, gymnasium.Env) and isinstance(env.unwrapped, scenes.SceneEnv)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and set(obs) == {"objects", "held"}
    assert [s.objectId for s in obs["objects"]] == [o["objectId"] for o in obs.objects]  # the planner's view too
    check_env(env.unwrapped)
    env.close()


def test_check_env_with_frames() -> None:
    pytest.importorskip("cv2")
    env = gymnasium.make("coat/kitchen-v0")
    obs, _ = env.reset(seed=0)
    assert obs["rgb"].shape == (300, 300, 3) and obs["rgb"] is obs.rgb
    assert env.render().shape == (300, 300, 3)  # render_mode defaults to rgb_array
    check_env(env.unwrapped)
    assert gymnasium.make("coat/kitchen-v0", render_mode=None).unwrapped.render_mode is None
    with pytest.raises(ConfigError, match="valid render_mode: 'rgb_array' or None"):
        EmbeddedEnv("kitchen", render_mode="human")


def test_gymnasiums_render_wrappers_get_the_frames(tmp_path: Any) -> None:
    pytest.importorskip("cv2")
    env = gymnasium.make("coat/kitchen-v0", render_mode="rgb_array_list", frames=False)  # RenderCollection
    env.reset(seed=0)
    env.step(Action(name="RotateRight"))
    frames = env.render()
    assert len(frames) == 2 and frames[1].shape == (300, 300, 3) and not np.array_equal(frames[0], frames[1])
    env.close()
    pytest.importorskip("moviepy", reason="RecordVideo writes with moviepy, which coat-planner does not need")
    env = gymnasium.wrappers.RecordVideo(gymnasium.make("coat/kitchen-v0", frames=False), str(tmp_path))
    env.reset(seed=0)
    env.step(Action(name="RotateRight"))
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_every_embedded_id_resets_inside_its_observation_space() -> None:
    for env_id in scenes.registry_ids("embedded"):
        env = EmbeddedEnv(**scenes.spec(env_id).kwargs, frames=False, events=False)
        obs, _ = env.reset(seed=0)
        assert obs in env.observation_space, env_id


def test_a_vector_env_over_two_embedded_scenes_steps() -> None:
    envs = gymnasium.vector.SyncVectorEnv([
        lambda: gymnasium.make("coat/kitchen-v0", frames=False),
        lambda: gymnasium.make("coat/living-room-v0", frames=False),
    ])
    obs, info = envs.reset(seed=[0, 1])
    assert len(obs["objects"]) == 2 and obs["held"] == ("", "")
    actions = {"action": ("Pass", "NoSuchAction"), "objectId": ("", "")}
    assert actions in envs.action_space
    obs, reward, terminated, truncated, info = envs.step(actions)
    assert reward.tolist() == [0.0, 0.0] and not terminated.any() and not truncated.any()
    assert info["action_success"].tolist() == [True, False]
    envs.action_space.seed(0)
    envs.step(envs.action_space.sample())  # random text actions fail cleanly
    envs.close()


def test_actions_from_the_action_space_and_the_project() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    obs, _ = env.reset(seed=0)
    fridge = next(o["objectId"] for o in obs.objects if o["objectType"] == "Fridge")
    as_space = {"action": "OpenObject", "objectId": fridge}
    assert as_space in env.action_space
    _, _, _, _, info = env.step({**as_space, "forceAction": True})  # extra kwargs pass on, as in AI2-THOR
    assert info["action_success"], info["error"]
    obs, _, _, _, info = env.step(Action(name="CloseObject", object_id=fridge, args={"forceAction": True}))
    assert info["action_success"] and not obs.object(fridge)["isOpen"]
    assert not env.step({"action": "Pass", "objectId": ""})[4]["error"]
    with pytest.raises(ConfigError, match="scenes.Action or a dict"):
        env.step("Pass")  # type: ignore[arg-type]


def test_the_object_states_follow_the_metadata() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    obs, _ = env.reset(seed=0)
    mug = next(o for o in obs.objects if o["objectType"] == "Mug")
    obs, *_ = env.step(Action(name="PickupObject", object_id=mug["objectId"], args={"forceAction": True}))
    state = next(s for s in obs["objects"] if s.objectId == mug["objectId"])
    assert state.flags[OBJECT_FLAGS.index("isPickedUp")] and obs["held"] == mug["objectId"] and state.parent == ""
    assert obs in env.observation_space
    # a partial dict (another simulator's) reads missing keys as False
    s = object_state({"objectId": "X|1", "objectType": "X", "temperature": "Hot"})
    assert s == ("X|1", "X", "", (False,) * len(OBJECT_FLAGS), 2)
    assert s in thor_observation_space()["objects"].feature_space


_VALUES = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=5)


@settings(max_examples=60)
@given(oid=st.text(max_size=300), otype=st.text(max_size=12) | st.none(),
       parents=st.none() | st.lists(st.text(max_size=30), max_size=2),
       flags=st.dictionaries(st.sampled_from(OBJECT_FLAGS), _VALUES),
       temperature=st.sampled_from(["Cold", "RoomTemp", "Hot", "Warm", None]))
def test_any_metadata_gives_a_state_inside_the_space(oid: str, otype: str | None, parents: list[str] | None,
                                                     flags: dict[str, Any], temperature: str | None) -> None:
    o = {"objectId": oid, "objectType": otype, "parentReceptacles": parents, "temperature": temperature, **flags}
    assert object_state(o) in thor_observation_space()["objects"].feature_space


def test_scene_obs_is_the_gymnasium_dict_and_keeps_its_attributes() -> None:
    built: list[int] = []

    def view() -> dict[str, Any]:
        built.append(1)
        return {"held": "Mug|1"}

    obs = SceneObs(objects=({"objectId": "Mug|1"},), text="hi", view=view)
    assert obs.text == "hi" and obs.object("Mug|1") and built == []  # the attributes do not build the dict
    assert obs["held"] == "Mug|1" and dict(obs) == {"held": "Mug|1"} and {**obs} == {"held": "Mug|1"}
    assert built == [1] and bool(SceneObs()) and len(SceneObs()) == 0
    for clone in (copy.deepcopy(obs), pickle.loads(pickle.dumps(obs))):
        assert clone == obs and clone.text == "hi" and clone["held"] == "Mug|1"
    assert obs != SceneObs(objects=obs.objects, text="other", view={"held": "Mug|1"})
    with pytest.raises(AttributeError):
        obs.text = "no"  # type: ignore[misc]
    a, b = SceneObs(rgb=np.zeros((2, 2, 3), np.uint8)), SceneObs(rgb=np.zeros((2, 2, 3), np.uint8))
    assert a == b and a != SceneObs(rgb=np.ones((2, 2, 3), np.uint8))


def test_text_outside_the_charset_is_replaced_in_the_view_only() -> None:
    assert clean_text("25\u00b0C\nok") == "25?C\nok" and clean_text(None) == ""
    assert len(clean_text("x" * 100_000)) == 65_536


def test_thor_declares_its_spaces_without_starting_anything() -> None:
    from scenes.thor import ThorEnv

    class NoController:
        last_event = None

    env = ThorEnv("FloorPlan1", controller=NoController(), render_depth=True, width=64, height=48)
    assert env.observation_space["rgb"].shape == (48, 64, 3) and env.observation_space["depth"].shape == (48, 64)
    assert {"action": "PickupObject", "objectId": "Mug|+00.12|-01.00|+00.90"} in env.action_space


def test_sciworld_declares_text_spaces_without_a_jvm() -> None:
    from scenes.sciworld import ScienceWorldEnv

    class Backend:
        envStepLimit = 0  # noqa: N815

        def close(self) -> None:
            pass

    env = ScienceWorldEnv("boil", backend=Backend())
    assert "open door to kitchen" in env.action_space and env.render_mode == "ansi"
    assert {"text": "x", "inventory": "", "task_description": "y"} in env.observation_space
    env.close()
