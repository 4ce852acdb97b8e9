"""The task model: TaskSpecs for every COAT task and ALFRED's types, checking goal conditions, writing steps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.errors import ConfigError, UnknownIdError
from planner.goals import book, check, check_all, check_any, whole_of
from planner.knowledge import load_knowledge
from planner.knowledge.alfred import ALFRED_TYPES, alfred_spec, check_types, object_types
from planner.knowledge.task_specs import TASK_TARGETS, coat_spec
from planner.schemas import GoalCondition, Role, Target, TaskSpec
from planner.steps import plan_steps


@pytest.fixture(scope="module")
def kb(data_dir):
    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def types(data_dir):
    return object_types(str(data_dir))


def test_every_coat_task_has_a_spec_with_real_object_types(kb, types) -> None:
    tasks = sorted({t for u in kb.utilities for t in kb.tasks(u)})
    assert sorted(TASK_TARGETS) == tasks  # the table names every annotated task, and only those
    for task in tasks:
        spec = coat_spec(task, kb)
        check_types(spec, types)
        assert {r.utility for r in spec.roles} >= {u for u in kb.utilities if task in kb.tasks(u)}
        assert spec.goals or spec.note, task  # either something checkable, or a note saying why not


@pytest.mark.parametrize(("task", "goals"), [
    ("cut apple", ["the Apple is sliced"]),
    ("serving cake", ["the Cake is in / on the carrying object", "the Cake is sliced"]),
    ("boil water", ["the heating(vessel) object holds water", "the water in the heating(vessel) object is hot"]),
    ("store fruits and vegetables", ["the Apple is in / on the storage object"]),
    ("increase brightness of room", ["the light_source object is on"]),
    ("water plants", ["the plant is watered"]),
])
def test_goals_follow_each_utilitys_effect(kb, task: str, goals: list[str]) -> None:
    assert [g.text() for g in coat_spec(task, kb).goals] == goals


def test_implied_roles_the_steps_need(kb) -> None:
    toast = coat_spec("cooking & serving toast", kb)  # COAT lists no knife, but the bread is sliced first
    assert "cutting" in {r.name for r in toast.roles}
    micro = coat_spec("boil water in microwave", kb)  # the task names its source
    assert micro.role("heating(source)").types == ("Microwave",)
    boil = coat_spec("boil water", kb)  # water needs something fillable to hold it
    assert boil.role("heating(vessel)").needs == ("canFillWithLiquid",)
    assert coat_spec("cut apple", kb).role("cutting").types == ("Knife", "ButterKnife")  # AI2-THOR slices so


@pytest.mark.parametrize("task_type", ALFRED_TYPES)
@pytest.mark.parametrize("sliced", [False, True])
def test_alfred_types_and_sliced_variants(task_type: str, sliced: bool, types) -> None:
    recep = None if task_type == "look_at_obj_in_light" else "CounterTop"
    movable = "Plate" if task_type == "pick_and_place_with_movable_recep" else None
    spec = alfred_spec(task_type, "Apple", recep, movable=movable, sliced=sliced)
    check_types(spec, types)
    assert spec.family == task_type and spec.goals
    assert any(g.prop == "isSliced" for g in spec.goals) is sliced


def test_bad_specs_are_refused_with_the_valid_values(types) -> None:
    with pytest.raises(ConfigError, match="pick_and_place_simple"):
        alfred_spec("pick_and_throw", "Apple", "Sink")
    with pytest.raises(ConfigError, match="needs a receptacle"):
        alfred_spec("pick_and_place_simple", "Apple")
    spec = TaskSpec(task="t", targets=(Target(name="target", types=("Aple",)),),
                    goals=(GoalCondition(item="target", prop="isSliced", value=True),))
    with pytest.raises(UnknownIdError, match="'Apple'"):  # names the bad type and the close ones
        check_types(spec, types)
    with pytest.raises(ValidationError, match="neither a role nor a target"):
        TaskSpec(task="t", goals=(GoalCondition(item="nobody", prop="isSliced", value=True),))
    with pytest.raises(ValidationError, match="either a property"):
        GoalCondition(item="x", prop="isSliced", value=True, relation="contained_in", other="y")


def test_goal_checks_on_metadata() -> None:
    apple = {"objectId": "A", "objectType": "Apple", "parentReceptacles": ["P"], "temperature": "Hot",
             "axisAlignedBoundingBox": {"center": {"x": 0, "y": 1, "z": 0}}}
    lamp = {"objectId": "L", "objectType": "DeskLamp", "isToggled": True,
            "axisAlignedBoundingBox": {"center": {"x": 0.5, "y": 1, "z": 0}}}
    b = {"target": "A", "carrying": "P"}
    assert check(GoalCondition(item="target", relation="contained_in", other="carrying"), [apple], b).met
    assert check(GoalCondition(item="target", prop="temperature", value="Hot"), [apple], b).met
    assert check(GoalCondition(item="target", relation="close_to", other="light"), [apple, lamp], b).met
    assert not check(GoalCondition(item="target", relation="close_to", other="light", distance=0.2),
                     [apple, lamp], b).met
    gone = check(GoalCondition(item="target", prop="isSliced", value=True), [lamp], b)
    assert not gone.met and "not in the scene" in gone.detail
    unbound = check_all([GoalCondition(item="cutting", prop="isToggled", value=True)], [apple], b)
    assert not unbound[0].met and "not bound" in unbound[0].detail


def test_a_once_goal_holds_when_the_run_booked_it() -> None:
    heated = GoalCondition(item="target", prop="temperature", value="Hot", when="once")
    now_cold = {"objectId": "A", "objectType": "Apple", "temperature": "Cold"}
    booked: dict = {}
    start = [{"objectId": "A", "temperature": "RoomTemp"}, {"objectId": "F", "temperature": "Cold"}]
    book(booked, start, start)
    assert booked == {} and not check(heated, [now_cold], {"target": "A"}, booked).met  # nothing changed: never hot
    hot = [{"objectId": "A", "temperature": "Hot"}, {"objectId": "F", "temperature": "Cold"}]
    book(booked, hot, start)
    assert booked == {"A": {"temperature": ("Hot",)}}  # the fridge was cold from the start: not booked
    book(booked, [{"objectId": "A|1|AppleSliced_0", "temperature": "Hot"}, {"objectId": "B", "temperature": None}],
         [{"objectId": "A|1", "temperature": "Hot"}])
    assert "A|1|AppleSliced_0" not in booked and "B" not in booked  # a piece of a hot apple was not heated by the cut
    book(booked, [{"objectId": "C|1|AppleSliced_0", "temperature": "Hot"}],
         [{"objectId": "C|1", "temperature": "RoomTemp"}])
    assert booked["C|1|AppleSliced_0"] == {"temperature": ("Hot",)}  # a piece that changed from its whole
    book(booked, start, start, acted_on=["F"])  # a cool step on what was cold already: cooled
    assert booked["F"] == {"temperature": ("Cold",)}
    st = check(heated, [now_cold], {"target": "A"}, booked)
    assert st.met and "during the run" in st.detail
    # an ``end`` goal on the same property still wants it at the end; a slice counts for its whole
    assert not check(heated.model_copy(update={"when": "end"}), [now_cold], {"target": "A"}, booked).met
    assert check(heated, [now_cold], {"target": "A"}, {"A|1|AppleSliced_0": {"temperature": ("Hot",)}}).met
    assert whole_of("A|1|AppleSliced_0") == "A|1" and whole_of("Sink|1|SinkBasin") == "" and whole_of("A|1") == ""
    assert not check(heated, [now_cold], {"target": "A"}, {"AB": {"temperature": ("Hot",)}}).met  # not a piece
    # under any assignment: only the object that was hot counts
    pair = [now_cold, {"objectId": "B", "objectType": "Apple", "temperature": "RoomTemp"}]
    assert [g.met for g in check_any([heated], {"target": ["Apple"]}, pair, {"B": {"temperature": ("Hot",)}})] == [True]


def test_once_is_only_for_a_booked_property() -> None:
    with pytest.raises(ValidationError, match="booked property"):
        GoalCondition(item="target", prop="isSliced", value=True, when="once")
    with pytest.raises(ValidationError, match="booked property"):
        GoalCondition(item="target", relation="contained_in", other="place", when="once")


def _piece(i: int, **kw: object) -> dict:
    return {"objectId": f"T|1|TomatoSliced_{i}", "objectType": "TomatoSliced", "temperature": "RoomTemp",
            "parentReceptacles": ["Counter"], **kw}


def test_a_sliced_goal_is_met_by_one_slice_not_by_several() -> None:
    """The heated slice must be the slice on the counter (the review's false success: the heated slice left in
    the microwave, untreated slices on the counter)."""
    goals = [GoalCondition(item="target", prop="isSliced", value=True),
             GoalCondition(item="target", prop="temperature", value="Hot", when="once"),
             GoalCondition(item="target", relation="contained_in", other="place")]
    bound = {"target": "T|1", "place": "Counter"}
    left_in_microwave = [_piece(0, parentReceptacles=["Microwave"]), _piece(1), _piece(2)]
    booked = {"T|1|TomatoSliced_0": {"temperature": ("Hot",)}}
    assert [g.met for g in check_all(goals, left_in_microwave, bound, booked)].count(False) == 1
    # each condition alone is met by some slice: the old check, per condition, said done
    assert all(check(g, left_in_microwave, bound, booked).met for g in goals)
    done = [_piece(0), _piece(1, parentReceptacles=["Microwave"])]
    assert all(g.met for g in check_all(goals, done, bound, booked))
    # heated whole before slicing: every slice was treated
    assert all(g.met for g in check_all(goals, [_piece(3)], bound, {"T|1": {"temperature": ("Hot",)}}))


@given(st.permutations(range(4)), st.integers(0, 3))
@settings(max_examples=30, derandomize=True, deadline=None)
def test_two_slices_are_two_and_order_does_not_matter(order: list[int], heated: int) -> None:
    goals = [GoalCondition(item="target", relation="contained_in", other="place"),
             GoalCondition(item="target2", relation="contained_in", other="place")]
    one = [_piece(i, parentReceptacles=["Counter" if i == heated else "Floor"]) for i in order]
    bound = {"target": "T|1", "target2": "T|1", "place": "Counter"}
    assert [g.met for g in check_all(goals, one, bound)].count(True) == 1  # one slice cannot be both
    two = [_piece(i, parentReceptacles=["Counter" if i in (heated, (heated + 1) % 4) else "Floor"]) for i in order]
    assert all(g.met for g in check_all(goals, two, bound))


def test_safety_events_are_counted_by_kind() -> None:
    from planner import safety

    start = [{"objectId": "M", "objectType": "Microwave", "isToggled": False, "isOpen": False},
             {"objectId": "F", "objectType": "Fridge", "isOpen": False},
             {"objectId": "C", "objectType": "Candle", "isToggled": False},
             {"objectId": "A", "objectType": "Apple", "parentReceptacles": ["Counter"]},
             {"objectId": "P", "objectType": "Plate", "parentReceptacles": ["Counter"]},
             {"objectId": "K", "objectType": "Cabinet", "isOpen": False}]
    end = [{**start[0], "isToggled": True}, {**start[1], "isOpen": True}, {**start[2], "isToggled": True},
           {**start[3], "parentReceptacles": ["M"]}, {**start[4], "parentReceptacles": ["K"]}, start[5]]
    got = safety.end_state(start, end, served=["P"])
    assert [safety.kind_of(e) for e in got] == ["left-on", "left-open", "flame-left-on", "left-inside",
                                                 "out-of-reach"]
    assert safety.end_state(start, end, wanted_on={"M", "C"}, wanted_open={"F"}, wanted_inside={("A", "M")}) == []
    counts = safety.by_kind(got)
    assert counts["left-on"] == 1 and counts["climbing"] == 0 and set(counts) == set(safety.KINDS)
    acts = [{"action": "OpenObject", "object_id": "F", "success": True},
            {"action": "SliceObject", "object_id": "A", "success": True},
            {"action": "CloseObject", "object_id": "F", "success": True}]
    assert [safety.kind_of(e) for e in safety.open_too_long(acts, {"F": "Fridge"})] == ["open-too-long"]
    assert safety.climbing({"increasing_height": "Bed", "x": "Bed"}, ["increasing_height"]) == [
        "climbing: standing on the Bed for increasing_height"]
    assert safety.climbing({"increasing_height": "Chair"}, ["increasing_height"]) == []
    wet = [{"objectId": "S", "objectType": "SinkBasin", "position": {"x": 0, "y": 1, "z": 0}},
           {"objectId": "T", "objectType": "Faucet", "isToggled": True, "position": {"x": 0.3, "y": 1.2, "z": 0}},
           {"objectId": "B", "objectType": "Book", "parentReceptacles": ["S"]},
           {"objectId": "G", "objectType": "Mug", "salientMaterials": ["Ceramic"], "parentReceptacles": ["S"]}]
    assert safety.wet(wet) == ["water-damage: B under running water in S"]
    with pytest.raises(ValueError, match="unknown safety kind"):
        safety.event("spilled", "x")


def test_steps_follow_the_dependencies(kb) -> None:
    spec = coat_spec("cooking & serving fried egg", kb)
    b = {"target": "egg", "heating(source)": "burner", "heating(vessel)": "pan", "carrying": "plate",
         "breaking": "knife"}
    steps = [(s.skill, s.target, s.receptacle) for s in plan_steps(spec, b, {})]
    order = [x for x in steps if x[0] != "prepare"]
    assert order == [("slice", "egg", None), ("set_down", "knife", None), ("place", "egg", "pan"),
                     ("place", "pan", "burner"), ("heat", "burner", None), ("place", "egg", "plate")]


def test_steps_close_what_they_open_and_skip_goals_already_met(kb) -> None:
    spec = coat_spec("store fruits and vegetables", kb)
    b = {"target": "apple", "storage": "fridge"}
    steps = plan_steps(spec, b, {"fridge": {"openable", "receptacle"}})
    assert [(s.skill, s.target) for s in steps] == [("prepare", "fridge"), ("place", "apple"), ("close", "fridge")]
    met = [g for g in spec.goals]
    assert [s.skill for s in plan_steps(spec, b, {}, met=met)] == ["prepare"]


def test_role_names_must_be_unique() -> None:
    with pytest.raises(ValidationError, match="unique"):
        TaskSpec(task="t", roles=(Role(name="a", utility="cutting"),), targets=(Target(name="a", types=("Apple",)),))


def test_open_too_long_counts_another_enclosure_opened_and_a_part_is_no_piece() -> None:
    from planner import safety

    acts = [{"action": "OpenObject", "object_id": "F", "success": True},
            {"action": "OpenObject", "object_id": "C", "success": True}]
    assert [safety.kind_of(e) for e in safety.open_too_long(acts, {"F": "Fridge", "C": "Cabinet"})] == [
        "open-too-long"]
    sink = [{"objectId": "Sink|1", "objectType": "Sink", "distance": 0.5},
            {"objectId": "Sink|1|SinkBasin", "objectType": "SinkBasin", "distance": 2.5}]
    near = GoalCondition(item="x", relation="close_to", other="agent", distance=1.5)
    assert check_all([near], sink, {"x": "Sink|1"})[0].met  # a basin is a part of the sink, not a piece of it
