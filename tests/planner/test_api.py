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


def test_free_text_task_borrows_the_nearest_annotations_unless_exact() -> None:
    with pytest.raises(ConfigError, match="nearest"):
        plan("cut cake", llm=None, strategy="knowledge", interpret="exact")
    p = plan("cut cake", llm=None, strategy="knowledge")
    assert p.feasible and p.utility == "cutting"
    assert "cutting: decided with COAT's annotations of" in p.reason
    assert p.reading is not None and p.reading.understood and p.reading.method == "reader"


def test_free_text_task_with_a_model_records_the_model_decision() -> None:
    p = plan("cut cake", llm="fake", interpret="exact")
    assert p.utility == "cutting"
    assert p.decisions and p.decisions[0].model_id
    assert "COAT does not annotate" in p.reason


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


# --- argument validation at the boundary: a TypeError / ConfigError naming the argument, its value and what is
# accepted, before any work is done (no AttributeError from deep inside)

_STATE = SceneState(scene_id="s", objects=(_rec("apple", "Apple", material="Food"), _rec("k", "Knife")))


@pytest.mark.parametrize(("kwargs", "error", "names"), [
    ({"task": None}, TypeError, ("task", "None", "TaskSpec")),
    ({"task": 42}, TypeError, ("task", "42", "TaskSpec")),
    ({"task": ["cut apple"]}, TypeError, ("task", "['cut apple']")),
    ({"task": b"cut apple"}, TypeError, ("task", "b'cut apple'")),
    ({"task": ""}, ConfigError, ("empty task", "''")),
    ({"task": " \t\n "}, ConfigError, ("empty task",)),
    ({"task": "cut apple " * 300}, ConfigError, ("3,000 characters", "at most 2,000", "'cut apple cut")),
    ({"task": "cut \ud800 apple"}, ConfigError, ("not valid Unicode",)),
    ({"scene": None}, TypeError, ("scene", "None", "SceneState")),
    ({"scene": 5}, TypeError, ("scene", "5", "scene id")),
    ({"scene": {}}, TypeError, ("scene", "{}")),
    ({"llm": 5}, TypeError, ("llm", "5", "LLMBackend", "supports_scoring")),
    ({"llm": object()}, TypeError, ("llm", "object", "no structured, score, supports_scoring")),
    ({"planner": "triple"}, ConfigError, ("planner", "'triple'", "'two-stage', 'single'")),
    ({"planner": 2}, TypeError, ("planner", "2", "'two-stage'")),
    ({"strategy": "magic"}, ConfigError, ("strategy", "'magic'", "'hybrid', 'llm', 'knowledge'")),
    ({"strategy": None}, TypeError, ("strategy", "None")),
    ({"interpret": 5}, TypeError, ("interpret", "5", "'exact', 'nearest'")),
    ({"utility": 5}, TypeError, ("utility", "5", "utilities")),
    ({"options": ["scenario"]}, TypeError, ("options", "['scenario']", "dict")),
    ({"options": {1: "x"}}, TypeError, ("options keys", "1")),
    ({"seed": "x"}, TypeError, ("seed", "'x'", "int")),
    ({"seed": True}, TypeError, ("seed", "True", "int")),
    ({"kb": "x"}, TypeError, ("kb", "'x'", "KnowledgeBase")),
    ({"data_dir": 5}, TypeError, ("data_dir", "5", "path")),
])
def test_plan_names_the_bad_argument(kwargs, error, names) -> None:
    args = {"task": "cut apple", "llm": None, **kwargs}
    with pytest.raises(error) as info:
        plan(args.pop("task"), **args)
    for name in names:
        assert name in str(info.value), (name, str(info.value))
    assert not isinstance(info.value, AttributeError)


def test_an_annotated_task_does_not_accept_a_bad_llm_silently() -> None:
    with pytest.raises(TypeError, match="llm must be"):
        plan_in_state("cut apple", _STATE, llm=5)
    with pytest.raises(TypeError, match="llm must be"):
        plan("slice bread please", llm=5)


def test_the_value_in_the_message_is_shortened() -> None:
    with pytest.raises(TypeError) as info:
        plan(list(range(1000)), llm=None)
    assert len(str(info.value)) < 200 and "..." in str(info.value)


def test_plan_in_state_checks_the_state_and_its_mappings() -> None:
    with pytest.raises(TypeError, match="state must be a planner.schemas.SceneState, got NoneType None"):
        plan_in_state("cut apple", None, llm=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="exclude"):
        plan_in_state("cut apple", _STATE, llm=None, exclude=["k"])  # type: ignore[arg-type]
    assert plan_in_state("cut apple", _STATE, llm=None).feasible


def test_execute_plan_and_observe_check_their_arguments() -> None:
    from planner.api import observe

    with pytest.raises(TypeError, match="plan_ must be a planner.schemas.Plan .*got NoneType None"):
        execute_plan(None)  # type: ignore[arg-type]
    p = plan_in_state("cut apple", _STATE, llm=None)
    with pytest.raises(ConfigError, match="max_replans must be an integer >= 0, got -1"):
        execute_plan(p, max_replans=-1)
    with pytest.raises(TypeError, match="llm must be"):
        execute_plan(p, llm=3.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scene must be a scene id str.*got NoneType None"):
        observe(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="estimator must have an estimate"):
        observe(estimator=5)
