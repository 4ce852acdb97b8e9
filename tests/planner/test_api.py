"""plan(): scene -> perception -> two-stage decision -> steps, and executing them."""

from __future__ import annotations

import pytest

from planner.api import execute_plan, plan, plan_in_state, roles_for
from planner.errors import ConfigError, UnknownIdError
from planner.knowledge import load_knowledge
from planner.schemas import ObjectRecord, PhysicalState, SceneState


def _rec(oid: str, cat: str, **kw: str) -> ObjectRecord:
    base = {"mass": "light", "material": "Metal", "temperature": "RoomTemp", "already_in_use": "free",
            "condition": "clean"}
    base.update(kw)
    return ObjectRecord(object_id=oid, category=cat, state=PhysicalState(**base))


def test_annotated_task_with_two_utilities_gets_one_object_each() -> None:
    p = plan("serving cake", llm=None)
    assert p.feasible, p.reason
    assert len(p.choices) == 2 and len(p.decisions) == 2
    by_role = {c.rationale.split(":")[0]: c.object_id.split("|")[0] for c in p.choices}
    assert by_role["cutting"] == "Knife"
    assert by_role["carrying"] in load_knowledge().context_objects("carrying", "serving cake")
    assert p.bindings["target"].startswith("Cake|")  # the embedded kitchen's cake (an extension type)
    # cut before serve: the knife cuts the cake, then a slice goes onto the carrier
    skills = [s.skill for s in p.steps]
    assert skills.index("slice") < skills.index("place")
    assert [g.text() for g in p.spec.goals] == ["the Cake is in / on the carrying object", "the Cake is sliced"]


def test_dirty_knife_loses_to_a_clean_one() -> None:
    p = plan("cut apple", llm=None, options={"scenario": "knife-dirty"})
    assert p.feasible
    chosen = p.choices[0].object_id
    state = {r: d for r, d in zip(p.considered[0], p.decisions[0].labels, strict=True)}
    assert chosen in state and chosen.startswith("Knife")


def test_substitute_when_the_ideal_object_is_busy() -> None:
    s = SceneState(scene_id="s", objects=(
        _rec("apple", "Apple", material="Food"),
        _rec("k1", "Knife", already_in_use="irreversible-using"),
        _rec("k2", "Knife", condition="dirty"),
        _rec("f1", "Fork"),
    ))
    p = plan_in_state("cut apple", s, llm=None)
    assert p.feasible and p.choices[0].object_id == "k2"  # a dirty knife can be washed; a used-up one cannot
    assert p.steps[0].skill == "prepare"


def test_no_usable_object_is_an_infeasible_plan_not_an_exception() -> None:
    s = SceneState(scene_id="s", objects=(_rec("p", "Pillow", material="Fabric"),))
    p = plan_in_state("cut apple", s, llm=None)
    assert not p.feasible and "no object" in p.reason and not p.steps
    broken = SceneState(scene_id="s", objects=(
        _rec("k", "Knife", condition="broken", already_in_use="irreversible-using"),))
    p = plan_in_state("cut apple", broken, llm=None)
    assert not p.feasible and "unusable" in p.reason


def test_free_text_task_needs_a_model_or_nearest_interpretation() -> None:
    with pytest.raises(ConfigError, match="nearest"):
        plan("cut cake", llm=None, strategy="knowledge")
    p = plan("cut cake", llm=None, interpret="nearest")
    assert p.feasible and p.utility == "cutting"
    assert "interpreted 'cut cake' as COAT task" in p.reason


def test_free_text_task_with_a_model_records_the_model_decision() -> None:
    p = plan("cut cake", llm="fake")
    assert p.utility == "cutting"
    assert p.decisions and p.decisions[0].model_id
    assert "not a COAT task" in p.reason


def test_roles_and_forced_utility() -> None:
    kb = load_knowledge()
    roles, exact = roles_for("Serving Cake", kb)
    assert exact and {r.utility for r in roles} == {"cutting", "carrying"}
    roles, exact = roles_for("serving cake", kb, utility="carrying")
    assert exact and [r.utility for r in roles] == ["carrying"]
    with pytest.raises(UnknownIdError):
        roles_for("serving cake", kb, utility="flying")
    with pytest.raises(ConfigError, match="empty task"):
        roles_for("   ", kb)


def test_unknown_scene_lists_valid_ids() -> None:
    with pytest.raises(UnknownIdError, match="embedded/kitchen-v0"):
        plan("cut apple", scene="embedded/kitchn-v0", llm=None)


def test_execute_plan_waits_for_the_busy_stove() -> None:
    opts = {"scenario": "stove-in-use", "in_use_seconds": 60}
    p = plan("boil water", llm=None, options=opts)
    assert p.feasible
    trace = execute_plan(p, options=opts)
    assert trace.ok, trace.failure


def test_a_broken_ideal_object_is_replaced_by_a_usable_substitute() -> None:
    s = SceneState(scene_id="s", objects=(
        _rec("apple", "Apple", material="Food"),
        _rec("k", "Knife", condition="broken", already_in_use="irreversible-using"),
        _rec("b", "ButterKnife"),
    ))
    p = plan_in_state("cut apple", s, llm=None)
    assert p.feasible and p.choices[0].object_id == "b"
    assert "k is unusable (broken)" in p.reason
    assert len(p.decisions) == 2 and p.considered[1] == ("b",)


def test_coat_tasks_lists_annotated_tasks(capsys) -> None:
    from planner.cli import main

    assert main(["tasks", "--utility", "cutting"]) == 0
    out = capsys.readouterr().out
    assert "'cut apple': context objects" in out and "Knife" in out
