"""The Skill contract: postconditions after run, fault and blame on failures, never an exception for a world outcome."""

from __future__ import annotations

import pytest

import scenes
import skills
from planner.schemas import Plan, SkillCall
from scenes.base import Action
from skills import FAULTS, Outcome, Skill, SkillContext, SkillResult, Unmet, execute, register_skill, run_skill
from skills import unregister_skill as _unregister

from .conftest import object_id as _id
from .conftest import poke as _poke

GONE = "Knife|+09.00|+09.00|+09.00"



def test_skill_result_fields() -> None:
    assert {"skill", "target", "ok", "reason", "fault", "blame", "opened", "actions"} == set(SkillResult.model_fields)
    assert FAULTS == ("missing", "broken", "in-use", "faulty", "blocked")
    u = Unmet("x is broken", "broken", "x")
    assert isinstance(u, str) and u == "x is broken" and (u.fault, u.blame) == ("broken", "x")


class _Stub(Skill):
    name = "stub_post"
    needs_target = False

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        return [Unmet("the light is off", "faulty", "Lamp|1")] if call.args.get("fail") else []

    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        return ctx.act(Action(name="Pass")), "ran"


def test_unmet_postcondition_turns_success_into_a_blamed_failure(kitchen) -> None:
    env, obs = kitchen
    register_skill(_Stub)
    try:
        res, _ = run_skill(env, obs, SkillCall(skill="stub_post", args={"fail": True}))
        assert not res.ok and res.reason == "postcondition not met: the light is off"
        assert (res.fault, res.blame, res.steps) == ("faulty", "Lamp|1", 1)
        res, _ = run_skill(env, obs, SkillCall(skill="stub_post"))
        assert res.ok and res.reason == "ran" and res.fault is None  # a plain (ok, reason) run still works
    finally:
        _unregister("stub_post")


def test_run_may_return_an_outcome_with_fault_and_blame(kitchen) -> None:
    class Grumpy(Skill):
        name = "stub_grumpy"

        def run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
            return Outcome(False, "it is broken", "broken", call.target)

    env, obs = kitchen
    register_skill(Grumpy)
    try:
        fridge = _id(obs, "Fridge")
        res, _ = run_skill(env, obs, SkillCall(skill="stub_grumpy", target=fridge))
        assert (res.ok, res.fault, res.blame) == (False, "broken", fridge)
    finally:
        _unregister("stub_grumpy")


EMBEDDED_SKILLS = sorted(n for n in skills.skill_names() if not n.startswith(("sw_", "stub_")))


@pytest.mark.parametrize("name", EMBEDDED_SKILLS)
def test_a_missing_object_is_a_failed_step_never_an_exception(kitchen, name: str) -> None:
    env, obs = kitchen
    knife = _id(obs, "Knife", 1)
    call = SkillCall(skill=name, target=GONE, receptacle=GONE, args={"tool": GONE, "object": GONE})
    if name == "set_down":  # its only object is the receptacle: hold something first
        _, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    res, _ = run_skill(env, obs, call)
    assert not res.ok and res.steps == 0
    assert res.fault == "missing" and res.blame == GONE, (name, res.reason)


def test_primitive_postconditions_hold_after_success(kitchen) -> None:
    env, obs = kitchen
    knife, plate, fridge = _id(obs, "Knife", 1), _id(obs, "Plate"), _id(obs, "Fridge")
    res, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    assert res.ok and obs.object(knife)["isPickedUp"]
    res, obs = run_skill(env, obs, SkillCall(skill="put", target=plate))
    assert res.ok and plate in obs.object(knife)["parentReceptacles"]
    res, obs = run_skill(env, obs, SkillCall(skill="open", target=fridge))
    assert res.ok and obs.object(fridge)["isOpen"] and res.opened == (fridge,)
    res, obs = run_skill(env, obs, SkillCall(skill="close", target=fridge))
    assert res.ok and not obs.object(fridge)["isOpen"] and res.opened == ()


def test_put_into_a_broken_receptacle_blames_it(kitchen) -> None:
    env, obs = kitchen
    knife, plate = _id(obs, "Knife", 1), _id(obs, "Plate")
    _, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    obs = _poke(env, plate, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="put", target=plate))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "broken", plate, 0)


def test_pickup_of_an_object_someone_uses_is_in_use(kitchen) -> None:
    env, obs = kitchen
    mug = _id(obs, "Mug")
    obs, *_ = env.step(Action(name="UseObject", object_id=mug, args={"seconds": 60.0}))
    res, _ = run_skill(env, obs, SkillCall(skill="pickup", target=mug))
    assert (res.ok, res.fault, res.blame) == (False, "in-use", mug) and "reversible-using" in res.reason


def test_wait_for_irreversible_use_blames_the_object(kitchen) -> None:
    env, obs = kitchen
    mug = _id(obs, "Mug")
    obs, *_ = env.step(Action(name="UseObject", object_id=mug, args={"irreversible": True}))
    res, _ = run_skill(env, obs, SkillCall(skill="wait", target=mug))
    assert (res.ok, res.fault, res.blame) == (False, "in-use", mug)


def test_switching_on_a_broken_appliance_is_broken(kitchen) -> None:
    env, obs = kitchen
    toaster = _id(obs, "Toaster")
    obs = _poke(env, toaster, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="toggle_on", target=toaster))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "broken", toaster, 0)


def test_nowhere_to_stand_is_blocked_and_blames_no_object(kitchen, monkeypatch) -> None:
    env, obs = kitchen
    fridge = _id(obs, "Fridge")
    monkeypatch.setattr(env.unwrapped.world, "reachable", lambda: [])
    res, _ = run_skill(env, obs, SkillCall(skill="goto", target=fridge))
    assert (res.ok, res.fault, res.blame) == (False, "blocked", None)


def test_prepare_of_a_broken_object_blames_it() -> None:
    with scenes.make("embedded/kitchen-v0") as env:
        obs, _ = env.reset(seed=0, options={"scenario": "mug-broken"})
        broken = next(o["objectId"] for o in obs.objects if o["objectType"] == "Mug" and o["isBroken"])
        res, _ = run_skill(env, obs, SkillCall(skill="prepare", target=broken))
        assert (res.ok, res.fault, res.blame) == (False, "broken", broken)


def test_execute_reports_the_blamed_object_and_stops(kitchen) -> None:
    env, obs = kitchen
    knife = _id(obs, "Knife", 1)
    plan = Plan(task="t", steps=(SkillCall(skill="slice", target=_id(obs, "Apple"), args={"tool": GONE}),
                                 SkillCall(skill="pickup", target=knife)))
    trace, _ = execute(plan, env, obs)
    assert not trace.ok and len(trace.results) == 1
    assert trace.results[0].blame == GONE and "missing" in trace.failure
