"""Tasks on several objects ("two eggs", "both lamps", "all the lights", "the remote and my phone"): read as a count
or a second thing, made into one target per object once the scene is seen (``planner.multiples``), carried out on
each, and judged by the independent checker against a goal written from the request's words, with its ``count``."""

from __future__ import annotations

from typing import Any

import pytest

from planner.api import execute_plan, plan
from planner.multiples import copies_of, expand_targets
from planner.schemas import GoalCondition, Target, TaskSpec
from planner.steps import plan_steps
from planner.understanding.counts import counts_in
from planner.understanding.frames import clauses
from planner.understanding.vocabulary import Vocabulary

from .labelled_row import run_labelled

KITCHEN, EGGS, LIVING = "embedded/FloorPlan1-v0", "embedded/kitchen-v0", "embedded/FloorPlan201-v0"


def _spec(*targets: Target, goals: tuple[GoalCondition, ...] = ()) -> TaskSpec:
    return TaskSpec(task="t", targets=targets, goals=goals)


def test_a_count_becomes_copies_that_get_every_goal_of_the_first() -> None:
    spec = _spec(Target(name="target", types=("Egg",), count=3),
                 goals=(GoalCondition(item="target", prop="isSliced", value=True, description="the egg is cracked"),))
    out = expand_targets(spec, ["Egg"] * 3)
    assert [(t.name, t.same_as, t.count) for t in out.targets] == [("target", None, 1), ("target2", "target", 1),
                                                                   ("target3", "target", 1)]
    assert [(g.item, g.prop) for g in out.goals] == [("target", "isSliced"), ("target2", "isSliced"),
                                                     ("target3", "isSliced")]
    assert "for target2 (Egg)" in out.goals[1].text()
    assert expand_targets(out, ["Egg"] * 3) == out  # idempotent: a re-plan expands nothing twice
    assert copies_of(out, "target") == ["target", "target2", "target3"]


def test_every_counts_the_scenes_objects_of_the_types() -> None:
    spec = _spec(Target(name="switched", types=("DeskLamp", "FloorLamp"), every=True),
                 goals=(GoalCondition(item="switched", prop="isToggled", value=False),))
    out = expand_targets(spec, ["DeskLamp", "FloorLamp", "FloorLamp", "Sofa"])
    assert [t.name for t in out.targets] == ["switched", "switched2", "switched3"]
    assert [g.item for g in out.goals] == ["switched", "switched2", "switched3"]
    none = expand_targets(spec, ["Sofa"])  # none in the scene: the one target stays (binding says it is missing)
    assert [t.name for t in none.targets] == ["switched"] and not none.targets[0].every


def test_a_copy_of_a_copy_gets_the_goals_copied_before_it() -> None:
    spec = _spec(Target(name="target", types=("Plate",), count=2),
                 Target(name="target2", types=("Fork",), count=2, same_as="target"),
                 goals=(GoalCondition(item="target", prop="isDirty", value=False),))
    out = expand_targets(spec, ["Plate", "Plate", "Fork", "Fork"])
    assert {t.name: t.same_as for t in out.targets} == {"target": None, "target3": "target", "target2": "target",
                                                         "target4": "target2"}
    assert sorted(g.item for g in out.goals) == ["target", "target2", "target3", "target4"]


def test_a_copy_must_name_another_target() -> None:
    with pytest.raises(ValueError, match="copy of 'nothing'"):
        _spec(Target(name="target", types=("Egg",), same_as="nothing"))
    with pytest.raises(ValueError):
        Target(name="target", types=("Egg",), count=0)


@pytest.mark.parametrize(("phrase", "types", "count"), [
    ("two slices of bread", ("Bread",), 2), ("a couple of eggs", ("Egg",), 2), ("both lamps", ("DeskLamp", "FloorLamp"),
                                                                               2),
    ("three fresh eggs", ("Egg",), 3), ("a few eggs", ("Egg",), 3), ("all lights", ("LightSwitch", "DeskLamp",
                                                                                    "FloorLamp"), "every"),
    ("the egg", ("Egg",), None), ("two big red old eggs", ("Egg",), None),
])
def test_a_count_word_counts_the_thing_named_after_it(phrase: str, types: tuple[str, ...], count: Any) -> None:
    vocab = Vocabulary(["Bread", "Egg", "LightSwitch", "DeskLamp", "FloorLamp"])
    assert counts_in(phrase, vocab.mentions(phrase)).get(types) == count


def test_a_thing_joined_by_and_shares_the_verb_and_the_place() -> None:
    first, second = clauses("put the remote and my phone in the drawer")
    assert (second.verb, second.obj, second.where, second.joined) == ("put", "phone", "drawer", True)
    plates, forks = clauses("lay two plates and two forks on the dining table")
    assert plates.where == forks.where == "dining table" and forks.joined
    assert clauses("step 3: whisk 2 eggs")[-1].obj == "two eggs"  # a digit is a count word


@pytest.mark.parametrize(("request_", "scene", "targets", "goal"), [
    ("toast two slices of bread", KITCHEN, ("Bread",),
     [{"object": ["Bread"], "became": ["sliced", "cooked"], "count": 2}]),
    ("crack a couple of eggs into a bowl", EGGS, ("Egg",), [{"object": ["Egg"], "became": ["cracked"], "count": 2}]),
    ("fry 2 eggs", EGGS, ("Egg",), [{"object": ["Egg"], "became": ["cracked", "cooked"], "count": 2}]),
    ("slice the apple and the tomato", KITCHEN, ("Apple", "Tomato"),
     [{"object": ["Apple"], "became": ["sliced"]}, {"object": ["Tomato"], "became": ["sliced"]}]),
])
def test_each_of_several_things_is_done(request_: str, scene: str, targets: tuple[str, ...],
                                        goal: list[dict[str, Any]], data_dir: Any) -> None:
    row = run_labelled(request_, scene, targets, goal, data_dir)
    assert row.understood and row.executed, row.reason
    assert row.goal_met is True and row.plan_correct is True, row.goal_reasons


def test_two_slices_are_two_pieces_of_one_loaf_each_toasted(data_dir: Any) -> None:
    p = plan("toast two slices of bread", KITCHEN, llm=None, strategy="knowledge", data_dir=data_dir)
    assert p.bindings["target"] == p.bindings["target2"]  # one loaf, sliced once
    assert [s.skill for s in p.steps].count("slice") == 1
    trace = execute_plan(p, llm=None, strategy="knowledge", data_dir=data_dir)
    assert trace.achieved and trace.bindings["target"] != trace.bindings["target2"]  # two pieces
    assert [r.skill for r in trace.results if r.ok].count("heat") == 2


def test_a_second_thing_the_scene_lacks_makes_the_plan_infeasible_naming_it(data_dir: Any) -> None:
    p = plan("put the remote and my phone in the drawer", LIVING, llm=None, strategy="knowledge", data_dir=data_dir)
    assert [(t.name, t.types) for t in p.spec.targets] == [("target", ("RemoteControl",)),
                                                          ("target2", ("CellPhone",))]
    assert not p.feasible and "no CellPhone" in p.reason and "(target2)" in p.reason


def test_each_egg_is_cracked_and_the_knife_set_down_once() -> None:
    spec = expand_targets(_spec(Target(name="target", types=("Egg",), sliced=True, count=2),
                                goals=(GoalCondition(item="target", prop="isSliced", value=True),)), ["Egg", "Egg"])
    from planner.schemas import Role

    spec = spec.model_copy(update={"roles": (Role(name="breaking", utility="breaking"),)})
    steps = plan_steps(spec, {"target": "Egg|1", "target2": "Egg|2", "breaking": "Knife|1"}, {})
    assert [(s.skill, s.target) for s in steps if s.skill != "prepare"] == [
        ("slice", "Egg|1"), ("slice", "Egg|2"), ("set_down", "Knife|1")]


def test_pieces_of_a_thing_not_named_count_the_sliced_target() -> None:
    from planner.understanding.counts import with_counts

    assert counts_in("two slices", []) == {(): 2} and counts_in("two slices of bread", []) == {}
    bread, knife = Target(name="target", types=("Bread",), sliced=True), Target(name="placed", types=("Knife",))
    assert [t.count for t in with_counts([bread, knife], {(): 2})] == [2, 1]


def test_a_toaster_takes_one_slice_at_a_time_each_is_taken_out_before_the_next(data_dir: Any) -> None:
    # the toaster holds one slice (the embedded world refuses a second, as it is full)
    p = plan("Could you toast a couple of slices of bread for my breakfast?", "embedded/FloorPlan12-v0", llm=None,
             strategy="knowledge", data_dir=data_dir)
    trace = execute_plan(p, llm=None, strategy="knowledge", data_dir=data_dir)
    assert trace.achieved, trace.failure
    done = [(r.skill, r.target) for r in trace.results if r.ok]
    first, second = trace.bindings["target"], trace.bindings["target2"]
    assert done.index(("pickup", first)) < done.index(("place", second))
