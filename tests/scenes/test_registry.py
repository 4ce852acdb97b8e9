"""The ids in Gymnasium's registry, what ``scenes.make`` adds to ``gymnasium.make``, and the scene checker."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import gymnasium
import pytest
from gymnasium.error import ResetNeeded

import scenes
from planner.errors import (
    ConfigError,
    DataNotFoundError,
    DependencyNotInstalled,
    SimulatorError,
    UnknownIdError,
)
from scenes import Action
from scenes.checker import ConformanceError, check_scene_env
from scenes.registry import check_env_scene, compact_ids, extra_available, extra_of, family_of


def test_builtin_ids_are_registered_in_gymnasium() -> None:
    ids = scenes.registry_ids()
    for i in (
        "coat/kitchen-v0",
        "coat/living-room-v0",
        "coat/bathroom-v0",
        "coat/bedroom-v0",
        "coat/FloorPlan1-v0",
        "coat/FloorPlan430-v0",
        "coat/thor-FloorPlan1-v0",
        "coat/thor-FloorPlan230-v0",
        "coat/sciworld-boil-v0",
    ):
        assert i in ids and i in gymnasium.registry
    assert len(scenes.registry_ids("thor")) == 120
    assert len(scenes.registry_ids("embedded")) == 124
    assert len(scenes.registry_ids("sciworld")) == 30
    s = scenes.spec("coat/thor-FloorPlan7-v0")
    assert (s.entry_point, s.kwargs, extra_of(s)) == ("scenes.thor:ThorEnv", {"scene": "FloorPlan7"}, "thor")
    s = scenes.spec("coat/sciworld-boil-v0")
    assert (s.entry_point, s.kwargs, extra_of(s), s.nondeterministic) == (
        "scenes.sciworld:ScienceWorldEnv", {"task": "boil"}, "sciworld", True)
    assert family_of(scenes.spec("coat/kitchen-v0")) == "embedded" and extra_available(scenes.spec("coat/kitchen-v0"))


def test_the_ids_of_earlier_releases_still_work() -> None:
    for old, new in (("embedded/kitchen-v0", "coat/kitchen-v0"), ("embedded/FloorPlan1-v0", "coat/FloorPlan1-v0"),
                     ("thor/FloorPlan1-v0", "coat/thor-FloorPlan1-v0"), ("sciworld/boil-v0", "coat/sciworld-boil-v0")):
        assert scenes.canonical_id(old) == new and scenes.spec(old).id == new and scenes.same_scene(old, new)
    with scenes.make("embedded/kitchen-v0", frames=False) as env:
        assert env.spec is not None and env.spec.id == "coat/kitchen-v0"
    assert scenes.canonical_id("CartPole-v1") == "CartPole-v1"


def test_importing_scenes_imports_no_simulator() -> None:
    mods = ("ai2thor", "cv2", "scienceworld", "scenes.embedded", "scenes.thor")
    code = f"import sys, scenes; print(sorted(m for m in {mods!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_gymnasium_alone_imports_scenes_when_the_id_names_it() -> None:
    code = ("import gymnasium\n"
            "env = gymnasium.make('scenes:coat/FloorPlan1-v0', frames=False)\n"
            "obs, info = env.reset(seed=0)\n"
            "print(type(env.unwrapped).__name__, obs in env.observation_space, len(obs['objects']) > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["EmbeddedEnv", "True", "True"], out.stderr


def test_unknown_id_lists_close_matches_first() -> None:
    for bad, close in (("coat/kitchn-v0", "coat/kitchen-v0"), ("embedded/kitchn-v0", "embedded/kitchen-v0"),
                       ("thor/FloorPlan1-v1", "thor/FloorPlan1-v0")):
        with pytest.raises(UnknownIdError) as e:
            scenes.make(bad)
        msg = str(e.value)
        assert msg.index(f"Did you mean: {close}") < msg.index("Available ids")  # in the style asked for
        assert "coat/thor-FloorPlan{1-30,201-230,301-330,401-430}-v0" in msg
    with pytest.raises(UnknownIdError, match="coat/sciworld-boil-v0"):
        scenes.spec("coat/sciworld-boill-v0")


def test_a_missing_extra_names_the_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import planner._optional as optional
    import scenes.registry

    real = optional.is_available
    for module in (optional, scenes.registry):
        monkeypatch.setattr(module, "is_available", lambda m: m != "ai2thor" and real(m))
    assert not extra_available(scenes.spec("coat/thor-FloorPlan1-v0"))
    for make in (scenes.make, gymnasium.make):  # Gymnasium's own make says it too: the backend does
        with pytest.raises(DependencyNotInstalled, match=r"pip install 'coat-planner\[thor\]'"):
            make("coat/thor-FloorPlan1-v0")


def test_compact_ids() -> None:
    assert compact_ids(["a/F1-v0", "a/F2-v0", "a/F3-v0", "a/F7-v0", "b/x-v0"]) == ["a/F{1-3,7}-v0", "b/x-v0"]
    assert compact_ids(["a/F9-v0"]) == ["a/F9-v0"]


def test_gymnasiums_order_enforcing_and_time_limit() -> None:
    env = scenes.make("coat/kitchen-v0", max_steps=2, frames=False)
    assert isinstance(env, gymnasium.wrappers.TimeLimit)
    with pytest.raises(ResetNeeded):
        env.step(Action(name="Pass"))
    env.reset(seed=0)
    assert env.step(Action(name="Pass"))[3] is False
    assert env.step(Action(name="Pass"))[3] is True
    env.reset(seed=0)
    assert env.step(Action(name="Pass"))[3] is False
    assert env.unwrapped.world is not None and env.get_wrapper_attr("world") is env.unwrapped.world
    env.close()
    env.close()


def test_an_env_of_another_scene_is_refused_in_one_line() -> None:
    from planner.schemas import Plan
    from skills import execute

    plan = Plan(task="cut apple", env_id="embedded/kitchen-v0")
    with scenes.make("coat/living-room-v0", frames=False) as env:
        with pytest.raises(ConfigError) as e:
            execute(plan, env)
    msg = str(e.value)
    assert "\n" not in msg and "'embedded/kitchen-v0'" in msg and "'coat/living-room-v0'" in msg
    assert "scenes.make('coat/kitchen-v0')" in msg
    with scenes.make("coat/kitchen-v0", frames=False) as env:
        check_env_scene(env, plan.env_id)  # the same scene under its new id
        check_env_scene(env.unwrapped, None)


def _make_or_skip(env_id: str) -> gymnasium.Env[Any, Any]:
    s = scenes.spec(env_id)
    if not extra_available(s):
        pytest.skip(f"extra {extra_of(s)!r} not installed")
    try:
        return scenes.make(env_id)
    except (DependencyNotInstalled, DataNotFoundError, SimulatorError) as e:
        pytest.skip(f"{env_id} cannot start here: {type(e).__name__}: {str(e)[:120]}")


# One embedded id of each kind (packaged, and a FloorPlan of each room type); tests/scenes/test_gym.py resets
# every id. -m sciworld_live / -m slow check ScienceWorld (a JVM each) and every THOR id (AI2-THOR tries to start).
_DEFAULT = [
    *(f"coat/{n}-v0" for n in scenes.EMBEDDED_SCENES),
    "coat/FloorPlan1-v0", "coat/FloorPlan201-v0", "coat/FloorPlan301-v0", "coat/FloorPlan401-v0",
    "coat/thor-FloorPlan1-v0",
    pytest.param("coat/sciworld-boil-v0", marks=pytest.mark.sciworld_live),
]


@pytest.mark.parametrize("env_id", _DEFAULT)
def test_check_scene_env(env_id: str) -> None:
    env = _make_or_skip(env_id)
    check_scene_env(env, check_determinism=family_of(env.unwrapped.spec) != "sciworld")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [i for i in scenes.registry_ids("embedded") if i not in _DEFAULT])
def test_check_scene_env_every_embedded_id(env_id: str) -> None:
    """gymnasium's check_env and the project's rules (determinism included) on every embedded scene, about a second
    each: the default run checks one of each kind."""
    check_scene_env(_make_or_skip(env_id), check_determinism=True)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", scenes.registry_ids("thor") + scenes.registry_ids("sciworld"))
def test_check_scene_env_every_external_id(env_id: str) -> None:
    env = _make_or_skip(env_id)
    check_scene_env(env, check_determinism=family_of(env.unwrapped.spec) != "sciworld")


class _Raises(scenes.SceneEnv[scenes.SceneObs, Any]):
    metadata = {"render_modes": []}
    observation_space = gymnasium.spaces.Dict({"held": gymnasium.spaces.Text(8, min_length=0)})
    action_space = gymnasium.spaces.Dict({"action": gymnasium.spaces.Text(8)})

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return scenes.SceneObs(view={"held": ""}), {}

    def step(self, action: Any) -> Any:
        if Action.coerce(action).name not in ("Pass",) and isinstance(action, Action):
            raise KeyError(action.name)
        return scenes.SceneObs(view={"held": ""}), 0.0, False, False, {"action_success": True, "error": ""}


@pytest.mark.filterwarnings("ignore:.*not having a spec")  # made without gymnasium.make: no render modes to try
def test_the_checker_catches_what_gymnasium_does_not() -> None:
    with pytest.raises(ConformanceError, match="impossible action"):
        check_scene_env(_Raises())

    class BadInfo(_Raises):
        def step(self, action: Any) -> Any:
            return scenes.SceneObs(view={"held": ""}), 0.0, False, False, {}

    with pytest.raises(ConformanceError, match="action_success"):
        check_scene_env(BadInfo())

    class OutOfSpace(_Raises):
        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            super().reset(seed=seed)
            return scenes.SceneObs(view={"held": "far too long a name"}), {}

    with pytest.raises(AssertionError, match="not within the observation space"):
        check_scene_env(OutOfSpace())
