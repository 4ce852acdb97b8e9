"""Skills on the embedded simulator: pre-conditions, outcomes (never exceptions), getting objects ready."""

from __future__ import annotations

import pytest

import scenes
import skills
from planner.errors import RegistrationError, UnknownIdError
from planner.schemas import Plan, SkillCall
from scenes.base import Action
from skills import Skill, SkillContext, execute, get_skill, register_skill, run_skill, unregister_skill


@pytest.fixture()
def kitchen():
    env = scenes.make("embedded/kitchen-v0")
    obs, _ = env.reset(seed=0)
    yield env, obs
    env.close()


def _first(obs, object_type: str) -> dict:
    return next(o for o in obs.objects if o["objectType"] == object_type)


def _state(obs, oid: str) -> dict:
    return obs.object(oid)


def test_builtin_skills_are_registered() -> None:
    assert {"goto", "pickup", "put", "open", "close", "toggle_on", "toggle_off", "wait", "wash", "slice",
            "prepare", "use"} <= set(skills.skill_names())


def test_unknown_skill_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownIdError, match="pickup"):
        get_skill("pick_up")


def test_registration_rejects_duplicates_and_non_skills() -> None:
    class Again(Skill):
        name = "pickup"

        def run(self, call, ctx):  # pragma: no cover - never run
            return True, ""

    with pytest.raises(RegistrationError, match="already registered"):
        register_skill(Again)
    with pytest.raises(RegistrationError, match="not a subclass"):
        register_skill(dict)  # type: ignore[arg-type]


def test_pickup_then_slice_needs_a_knife(kitchen) -> None:
    env, obs = kitchen
    apple = _first(obs, "Apple")["objectId"]
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple))
    assert not res.ok and "Knife" in res.reason and res.steps == 0  # pre-condition, nothing sent
    knife = _first(obs, "Knife")["objectId"]
    res, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    assert res.ok, res.reason
    assert _state(obs, knife)["isPickedUp"]
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple))
    assert res.ok, res.reason
    assert any(o["objectType"] == "AppleSliced" for o in obs.objects)


def test_pickup_of_a_static_object_is_a_failed_outcome(kitchen) -> None:
    env, obs = kitchen
    fridge = _first(obs, "Fridge")["objectId"]
    res, _ = run_skill(env, obs, SkillCall(skill="pickup", target=fridge))
    assert not res.ok and "cannot be picked up" in res.reason


def test_missing_target_is_a_failed_outcome(kitchen) -> None:
    env, obs = kitchen
    res, _ = run_skill(env, obs, SkillCall(skill="pickup", target="Knife|9|9|9"))
    assert not res.ok and "not in the scene" in res.reason


def test_wash_cleans_a_dirty_mug_at_the_sink(kitchen) -> None:
    env, obs = kitchen
    mug = _first(obs, "Mug")["objectId"]
    obs, _, _, _, info = env.step(Action(name="DirtyObject", object_id=mug, args={"forceAction": True}))
    assert info["action_success"] and obs.object(mug)["isDirty"]
    res, obs = run_skill(env, obs, SkillCall(skill="wash", target=mug))
    assert res.ok, res.reason
    assert not obs.object(mug)["isDirty"]
    used = [a.action for a in res.actions]
    assert "PutObject" in used and "ToggleObjectOn" in used  # washed under the faucet, not by fiat


def test_prepare_waits_for_a_busy_stove_then_use_switches_it_on() -> None:
    with scenes.make("embedded/kitchen-v0") as env:
        obs, _ = env.reset(seed=0, options={"scenario": "stove-in-use", "in_use_seconds": 120})
        burner = next(o["objectId"] for o in obs.objects
                      if o["objectType"] == "StoveBurner" and not o["isToggled"])
        ctx = SkillContext(env=env, obs=obs)
        assert ctx.in_use(burner) == "reversible-using"
        res = get_skill("prepare")(SkillCall(skill="prepare", target=burner), ctx)
        assert res.ok and "waited" in res.reason
        assert ctx.in_use(burner) is None and ctx.obs.time >= 120
        res = get_skill("use")(SkillCall(skill="use", target=burner), ctx)
        assert res.ok, res.reason
        assert ctx.find(burner)["isToggled"]


def test_prepare_refuses_a_broken_object() -> None:
    with scenes.make("embedded/kitchen-v0") as env:
        obs, _ = env.reset(seed=0, options={"scenario": "mug-broken"})
        broken = next(o["objectId"] for o in obs.objects if o["objectType"] == "Mug" and o["isBroken"])
        res, _ = run_skill(env, obs, SkillCall(skill="prepare", target=broken))
        assert not res.ok and "broken" in res.reason


def test_step_budget_stops_a_skill(kitchen) -> None:
    env, obs = kitchen
    knife = _first(obs, "Knife")["objectId"]
    res, _ = run_skill(env, obs, SkillCall(skill="pickup", target=knife), max_skill_steps=1)
    assert not res.ok and "budget" in res.reason


def test_execute_runs_steps_in_order_and_stops_at_the_first_failure(kitchen) -> None:
    env, obs = kitchen
    knife = _first(obs, "Knife")["objectId"]
    fridge = _first(obs, "Fridge")["objectId"]
    plan = Plan(task="t", steps=(SkillCall(skill="pickup", target=fridge), SkillCall(skill="pickup", target=knife)))
    trace, _ = execute(plan, env, obs)
    assert not trace.ok and len(trace.results) == 1 and "Fridge" in trace.failure
    trace, _ = execute(plan, env, obs, stop_on_failure=False)
    assert [r.ok for r in trace.results] == [False, True]


def test_execute_resolves_skill_names_before_acting(kitchen) -> None:
    env, obs = kitchen
    plan = Plan(task="t", steps=(SkillCall(skill="pickup", target="x"), SkillCall(skill="teleport_home")))
    with pytest.raises(UnknownIdError):
        execute(plan, env, obs)


def test_infeasible_plan_executes_nothing(kitchen) -> None:
    env, obs = kitchen
    trace, _ = execute(Plan(task="t", feasible=False, reason="no knife"), env, obs)
    assert not trace.ok and trace.failure == "no knife" and trace.steps == 0


def test_custom_skill_can_be_registered() -> None:
    class Knock(Skill):
        name = "knock"

        def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
            return ctx.act(Action(name="Pass")), ""

    register_skill(Knock)
    try:
        with scenes.make("embedded/kitchen-v0") as env:
            obs, _ = env.reset(seed=0)
            fridge = _first(obs, "Fridge")["objectId"]
            res, _ = run_skill(env, obs, SkillCall(skill="knock", target=fridge))
            assert res.ok and res.steps == 1
    finally:
        unregister_skill("knock")
