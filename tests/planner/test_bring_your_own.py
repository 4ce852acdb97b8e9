"""Bring your own: ``plan()`` takes an ai2thor Event, its metadata dict, a SceneObs, a SceneState, a scene id or a
gymnasium env; ``llm=`` any langchain chat model; ``execute_plan(p, env)`` runs in the env it is given and refuses,
in one line and before any step, an env of another scene (docs/bring-your-own.md, docs/reliability.md).

The Event is a genuine ``ai2thor.server.Event`` built from a recorded AI2-THOR 5.0.0 trace (FloorPlan1, the data
directory's ``ai2thor/traces/pickup_mug``); the chat models are langchain_core's own fakes.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

import scenes
from planner.api import execute_plan, plan, plan_in_state
from planner.errors import ConfigError
from planner.llm import LangChainBackend
from planner.schemas import ObjectRecord, PhysicalState, SceneState

TASK = "cut apple"
KNOWLEDGE = {"llm": None, "strategy": "knowledge"}


class Counting(gymnasium.Wrapper):  # type: ignore[type-arg]
    """Counts what reaches the env: resets and steps (a refused env must see neither)."""

    def __init__(self, env: gymnasium.Env) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        self.resets = 0
        self.steps = 0

    def reset(self, **kwargs: Any) -> Any:
        self.resets += 1
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Any:
        self.steps += 1
        return self.env.step(action)


def _env(env_id: str, **kwargs: Any) -> Counting:
    return Counting(scenes.make(env_id, frames=False, **kwargs))


@pytest.fixture(scope="module")
def event(data_dir: Path) -> Any:
    """A genuine ai2thor Event: AI2-THOR 5.0.0's metadata of FloorPlan1 after its reset, as recorded."""
    pytest.importorskip("ai2thor")
    from scenes.thor.traces import load_trace

    return load_trace("pickup_mug", data_dir, frames=False).event(0)


@pytest.fixture(scope="module")
def event_plan(event: Any) -> Any:
    return plan(TASK, event, **KNOWLEDGE)


# ---------------------------------------------------------------- each kind of scene plan() accepts


def test_a_real_ai2thor_event_its_metadata_and_a_recorded_dump_give_the_same_plan(event, event_plan, data_dir) -> None:
    from ai2thor.server import Event

    assert isinstance(event, Event)
    p = event_plan
    assert p.feasible, p.reason
    assert p.env_id is None and p.seed is None and p.scene_id == "FloorPlan1_physics"  # perceived as given
    assert p.bindings["cutting"].startswith("Knife|") and p.bindings["target"].startswith("Apple|")
    here = {o["objectId"] for o in event.metadata["objects"]}
    assert set(p.bindings.values()) <= here
    recorded = json.loads((data_dir / "ai2thor/traces/pickup_mug/event_00.json").read_text())
    duck = types.SimpleNamespace(metadata=recorded)  # another ai2thor version's Event: only .metadata is read
    for other in (event.metadata, recorded, duck):
        q = plan(TASK, other, **KNOWLEDGE)
        assert (q.bindings, q.steps, q.scene_id) == (p.bindings, p.steps, p.scene_id)
    assert event.metadata["objects"][0] == recorded["objects"][0]  # the caller's data is not changed


def test_a_plan_from_an_event_runs_in_an_env_of_its_scene(event_plan) -> None:
    with _env("coat/FloorPlan1-v0") as env:  # the embedded simulator on the same iTHOR scene: the same objectIds
        trace = execute_plan(event_plan, env, strategy="knowledge")
        assert trace.achieved, trace.failure
        assert env.steps > 0 and env.resets == 1
        env.step(scenes.Action(name="Pass"))  # the caller's env is left open


def test_plan_in_a_gymnasium_env_records_its_scene_and_runs_there() -> None:
    by_id = plan(TASK, "coat/kitchen-v0", **KNOWLEDGE, options={"scenario": "knife-dirty"})
    env = _env("coat/kitchen-v0")
    p = plan(TASK, env, **KNOWLEDGE, options={"scenario": "knife-dirty"})
    assert (p.env_id, p.seed, p.options) == ("coat/kitchen-v0", 0, {"scenario": "knife-dirty"})
    assert (p.bindings, p.steps) == (by_id.bindings, by_id.steps)
    assert env.resets == 1 and env.steps == 0
    trace = execute_plan(p, env, strategy="knowledge")  # reset again as the plan records, then run through wrappers
    assert trace.achieved, trace.failure
    assert env.resets == 2 and env.steps > 0
    env.close()
    raw = gymnasium.make("coat/kitchen-v0", frames=False)  # gymnasium's own make, and the plan's own record
    q = plan(TASK, raw, **KNOWLEDGE, options={"scenario": "knife-dirty"})
    assert q.bindings == p.bindings
    assert execute_plan(q, strategy="knowledge").achieved  # no env: rebuilt from the record
    raw.close()


def test_plan_from_an_observation_and_go_on_from_it_without_a_reset() -> None:
    env = _env("coat/kitchen-v0")
    obs, _ = env.reset(seed=0)
    fridge = next(o["objectId"] for o in obs.objects if o["objectType"] == "Fridge")
    obs, *_ = env.step(scenes.Action(name="OpenObject", object_id=fridge, args={"forceAction": True}))  # goes on
    assert obs.object(fridge)["isOpen"] is True
    p = plan(TASK, obs, **KNOWLEDGE)
    assert p.env_id is None and p.feasible
    trace = execute_plan(p, env, obs=obs, strategy="knowledge")
    assert trace.achieved, trace.failure
    assert env.resets == 1  # not reset: the fridge the caller opened is still open
    assert next(o for o in trace.final_objects if o["objectId"] == fridge)["isOpen"] is True
    env.close()


def test_a_scene_state_and_a_scene_id_are_still_taken() -> None:
    state = SceneState(scene_id="mine", objects=tuple(
        ObjectRecord(object_id=oid, category=cat, state=PhysicalState(
            mass="light", material=mat, temperature="RoomTemp", already_in_use="free", condition="clean"))
        for oid, cat, mat in (("a", "Apple", "Food"), ("k", "Knife", "Metal"))))
    assert plan(TASK, state, **KNOWLEDGE).bindings == {"target": "a", "cutting": "k"}
    assert plan(TASK, "embedded/kitchen-v0", **KNOWLEDGE).env_id == "embedded/kitchen-v0"


# ---------------------------------------------------------------- llm= takes any langchain chat model


def test_llm_takes_any_langchain_chat_model() -> None:
    # the model's answers decide: stage 1 keeps only the butter knife, stage 2 picks option A
    chat = FakeListChatModel(responses=['{"objects": ["ButterKnife"], "reason": "safer"}', '{"letter": "A"}'])
    p = plan("cut cake", llm=chat, strategy="llm", interpret="exact")
    assert p.bindings["cutting"].startswith("ButterKnife|"), p.reason
    assert p.decisions[0].model_id == "fake-list-chat-model:FakeListChatModel"
    assert execute_plan(p, llm=chat, strategy="llm").achieved
    generic = GenericFakeChatModel(messages=iter([AIMessage('{"objects": ["Knife"]}'), AIMessage('{"letter": "A"}')]))
    q = plan_in_state("cut cake", _kitchen_state(), llm=generic, strategy="llm", interpret="exact")
    assert q.bindings["cutting"].startswith("Knife|")
    assert q.decisions[0].model_id == "generic-fake-chat-model:GenericFakeChatModel" and q.decisions[0].calls >= 1


def test_the_closed_loop_and_the_sciworld_agent_wrap_a_chat_model_once() -> None:
    from planner.agents.household import HouseholdLoop
    from planner.agents.sciworld import SciWorldAgent
    from planner.api import make_estimator
    from planner.knowledge import load_knowledge

    chat = FakeListChatModel(responses=["{}"])
    kb = load_knowledge()
    loop = HouseholdLoop(None, make_estimator(kb), kb, llm=chat)  # type: ignore[arg-type]
    assert isinstance(loop.llm, LangChainBackend) and loop.llm.model is chat and loop.llm.cache is None
    assert isinstance(SciWorldAgent(kb=kb, llm=chat).llm, LangChainBackend)
    with pytest.raises(TypeError, match="llm must be"):
        SciWorldAgent(kb=kb, llm=5)  # type: ignore[arg-type]


def _kitchen_state() -> SceneState:
    from planner.api import observe

    env, _obs, state = observe("coat/kitchen-v0")
    env.close()
    return state


# ---------------------------------------------------------------- bad inputs: one clear line, nothing run elsewhere


def test_an_env_of_another_scene_is_refused_before_it_is_touched(event_plan) -> None:
    p = plan(TASK, "coat/kitchen-v0", **KNOWLEDGE)
    with _env("coat/FloorPlan1-v0") as env:
        with pytest.raises(ConfigError) as info:
            execute_plan(p, env, strategy="knowledge")
        msg = str(info.value)
        assert "\n" not in msg and "'coat/kitchen-v0'" in msg and "'coat/FloorPlan1-v0'" in msg
        assert "scenes.make('coat/kitchen-v0')" in msg
        assert (env.resets, env.steps) == (0, 0)
    with _env("embedded/FloorPlan1-v0") as env:  # an id of an earlier release is the same scene as coat/...
        assert execute_plan(event_plan, env, strategy="knowledge").achieved


def test_an_env_that_shows_another_scene_is_refused_before_any_step() -> None:
    from scenes.embedded import EmbeddedEnv

    p = plan(TASK, "coat/kitchen-v0", **KNOWLEDGE)
    built = Counting(EmbeddedEnv("FloorPlan1", frames=False))  # built directly: no registered id to compare
    remade = _env("coat/kitchen-v0", scene="FloorPlan1")  # the plan's id, another scene= given to make
    for env in (built, remade):
        with pytest.raises(ConfigError, match=r"made in scene 'coat/kitchen-v0' .* shows 'FloorPlan1_physics'.*"
                                              r"scenes\.make\('coat/kitchen-v0'\)"):
            execute_plan(p, env, strategy="knowledge")
        assert env.steps == 0
        env.close()


def test_a_plan_whose_objects_the_env_lacks_is_refused_naming_them(event_plan) -> None:
    with _env("coat/kitchen-v0") as env:
        with pytest.raises(ConfigError) as info:
            execute_plan(event_plan, env, strategy="knowledge")
        msg = str(info.value)
        assert "\n" not in msg and "the env ('coat/kitchen-v0') has no" in msg and "'FloorPlan1_physics'" in msg
        assert event_plan.bindings["cutting"] in msg and "plan(task, env)" in msg
        assert env.steps == 0
    with pytest.raises(ConfigError, match="records no scene to rebuild"):
        execute_plan(event_plan)  # no env and no record: never the default kitchen


def test_seed_options_and_obs_that_do_not_fit_are_refused() -> None:
    with _env("coat/kitchen-v0") as env:
        p = plan(TASK, env, **KNOWLEDGE)
        with pytest.raises(ConfigError, match="made with seed 0, not 3"):
            execute_plan(p, env, seed=3)
        with pytest.raises(ConfigError, match="made with no reset options"):
            execute_plan(p, env, options={"scenario": "knife-dirty"})
        obs, _ = env.reset(seed=0)
        with pytest.raises(ConfigError, match="obs= goes on from that observation .*seed= and options= cannot apply"):
            execute_plan(p, env, obs=obs, seed=0)
        with pytest.raises(ConfigError, match=r"obs= goes on from an observation of the env you pass"):
            execute_plan(p, obs=obs)
        with pytest.raises(TypeError, match="obs must be the env's latest observation"):
            execute_plan(p, env, obs=obs.event)
        assert env.steps == 0


@pytest.mark.parametrize(("scene", "error", "names"), [
    ({}, TypeError, ("scene must be", "ai2thor Event", "{}")),
    ({"agent": {}, "sceneName": "FloorPlan1"}, TypeError, ("scene must be", "metadata dict")),
    (types.SimpleNamespace(metadata={"render_modes": []}), TypeError, ("scene must be", "namespace")),
    ({"objects": [1]}, ConfigError, ("scene: metadata objects[0] is a int",)),
    ({"objects": [{"objectType": "Mug"}]}, ConfigError, ("objects[0] has no 'objectId'", "SceneState")),
    ({"objects": [{"objectId": "Mug|1", "objectType": ""}]}, ConfigError, ("no 'objectType'",)),
])
def test_a_scene_that_is_no_scene_is_refused_by_name(scene, error, names) -> None:
    with pytest.raises(error) as info:
        plan(TASK, scene, **KNOWLEDGE)
    for name in names:
        assert name in str(info.value), (name, str(info.value))


def test_the_gymnasium_view_text_observations_and_foreign_envs_are_refused() -> None:
    from scenes.base import SceneObs

    with _env("coat/kitchen-v0") as env:
        obs, _ = env.reset(seed=0)
        with pytest.raises(ConfigError, match="the Gymnasium view of a SceneObs: pass the SceneObs itself"):
            plan(TASK, dict(obs), **KNOWLEDGE)
    with pytest.raises(ConfigError, match="text without objects .*SciWorldAgent"):
        plan(TASK, SceneObs(text="This room is called the kitchen."), **KNOWLEDGE)
    p = plan(TASK, "coat/kitchen-v0", **KNOWLEDGE)
    cartpole = gymnasium.make("CartPole-v1")
    with pytest.raises(TypeError, match="the env's unwrapped env must be a scenes.SceneEnv, got CartPoleEnv"):
        execute_plan(p, cartpole)
    with pytest.raises(TypeError, match="the env's observation must be a scenes.SceneObs.*got ndarray"):
        plan(TASK, cartpole, **KNOWLEDGE)
    cartpole.close()
    with pytest.raises(TypeError, match=r"scene must be a scene id str .*, a gymnasium env .* or None, got int 42"):
        execute_plan(p, 42)  # type: ignore[arg-type]


def test_an_llm_that_is_no_chat_model_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="langchain completion model FakeListLLM .*chat counterpart"):
        plan(TASK, llm=FakeListLLM(responses=["x"]))
    with pytest.raises(TypeError, match="any langchain_core BaseChatModel"):
        execute_plan(plan(TASK, **KNOWLEDGE), llm=object())


# ---------------------------------------------------------------- the page that documents all this


def test_the_bring_your_own_page_runs(capsys, data_dir: Path) -> None:
    import re

    pytest.importorskip("ai2thor")  # the Event snippet builds a genuine ai2thor Event

    page = Path(__file__).resolve().parents[2] / "docs" / "bring-your-own.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 8  # one snippet per kind, and the refusal
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - the page's own snippets, in order
    assert namespace["p"].env_id == "coat/kitchen-v0"
    assert "made in scene 'coat/kitchen-v0', but the env is 'coat/FloorPlan1-v0'" in capsys.readouterr().out
