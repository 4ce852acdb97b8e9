"""ScienceWorld task specs, knowledge lookups and goal checks, offline on recorded text.

``assets/sciworld_texts.json`` holds real ScienceWorld 1.2.3 text recorded on train variation 0: the 30 task
descriptions and a few observations (a box holding what was put in it, a light bulb that is on, a
thermometer reply, the animals outside). No JVM is started here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perception.sciworld_text import parse_look
from planner.agents.sciworld import EpisodeResult, expand_tasks, not_played, read_task, shape_of
from planner.agents.sciworld.checks import answer_box, box_holds, device_on, focused, state_of_matter
from planner.agents.sciworld.report import summary_json, task_table
from planner.agents.sciworld.select import (
    conductive_prior,
    is_fixed,
    kinds_of,
    lifespan_years,
    power_source,
    referent,
)
from planner.agents.sciworld.spec import load_data, played_shapes
from planner.errors import ConfigError
from scenes.sciworld import SPLIT_SIZES, split_variations, tasks

TEXTS = json.loads((Path(__file__).parent / "assets" / "sciworld_texts.json").read_text())
DESC = TEXTS["descriptions"]
OBS = TEXTS["observations"]


# ---------------------------------------------------------------- task specs
def test_every_task_has_a_shape_and_its_recorded_description_reads() -> None:
    assert set(DESC) == set(tasks())
    for task, text in DESC.items():
        spec = read_task(text, task)
        assert spec.shape == shape_of(task)
        assert spec.played == (spec.shape in played_shapes())


def test_pattern_examples_read_into_their_shape() -> None:
    for shape in load_data("task_patterns")["shapes"]:
        for task in shape["tasks"]:
            assert read_task(shape["example"], task).shape == shape["shape"]


@pytest.mark.parametrize(
    ("task", "fields"),
    [
        ("boil", {"target": "water"}),
        ("find-living-thing", {"kind": "living thing", "boxes": {"goal": "red box"}, "box_room": "kitchen"}),
        ("use-thermometer", {"target": "unknown substance B", "room": "living room", "threshold_c": 100.0,
                             "boxes": {"above": "red box", "below": "green box"}, "box_room": "bathroom",
                             "answer": "place"}),
        ("measure-melting-point-known-substance", {"target": "chocolate", "threshold_c": -10.0, "answer": "focus",
                                                   "boxes": {"above": "blue box", "below": "orange box"}}),
        ("measure-melting-point-unknown-substance", {"target": "solid unknown substance C", "threshold_c": 150.0}),
        ("power-component", {"target": "red light bulb", "kind": ""}),
        ("power-component-renewable-vs-nonrenewable-energy", {"target": "red light bulb", "kind": "renewable"}),
        ("test-conductivity", {"target": "aluminum foil", "room": "workshop",
                               "boxes": {"yes": "red box", "no": "green box"}}),
        ("lifespan-longest-lived", {"kind": "longest", "room": "outside"}),
        ("grow-plant", {"target": "apple plant", "played": True}),
        ("grow-fruit", {"shape": "grow-fruit", "target": "apple", "played": True}),
        ("lifespan-shortest-lived", {"kind": "shortest"}),
        ("lifespan-longest-lived-then-shortest-lived", {"kind": "longest-then-shortest"}),
        ("mendelian-genetics-known-plant", {"shape": "genetics", "kind": "tall plant height", "target": "pea plant",
                                            "boxes": {"yes": "red box", "no": "green box"}, "answer": "focus",
                                            "played": True}),
        ("mendelian-genetics-unknown-plant", {"kind": "blue seed color", "target": "unknown E plant"}),
    ],
)
def test_recorded_descriptions_read_into_specs(task: str, fields: dict[str, object]) -> None:
    spec = read_task(DESC[task], task)
    for k, v in fields.items():
        assert getattr(spec, k) == v, k


def test_an_unreadable_description_is_an_error_with_the_text_never_a_guess() -> None:
    with pytest.raises(ConfigError, match="cannot read the find-animal task description: 'Your task is to dance"):
        read_task("Your task is to dance.", "find-animal")


def test_all_expands_to_the_30_tasks_and_an_unknown_name_lists_them() -> None:
    assert expand_tasks(["all"]) == tasks() and len(tasks()) == 30
    assert expand_tasks(["boil,1-2", "boil"]) == ["boil", "melt"]
    with pytest.raises(ConfigError, match="valid: boil, melt, .*mendelian-genetics-unknown-plant"):
        expand_tasks(["boil", "bake-a-cake"])
    assert not_played(["all"]) == []  # every task has a play (the genetics ones since the breeding experiment)
    assert read_task(DESC["chemistry-mix-paint-secondary-color"], "chemistry-mix-paint-secondary-color").target \
        == "green paint"


def test_split_sizes_cover_every_task_contiguously() -> None:
    assert set(SPLIT_SIZES) == set(tasks())
    assert split_variations("boil", "test") == range(21, 30)
    for t in tasks():
        tr, dv, te = (split_variations(t, s) for s in ("train", "dev", "test"))
        assert tr.stop == dv.start and dv.stop == te.start and split_variations(t, "all").stop == te.stop


# ---------------------------------------------------------------- knowledge (data files)
@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("blue jay egg", {"animal", "living thing"}),
        ("baby brown bear", {"animal", "living thing"}),
        ("apple tree in the adult stage", {"plant", "living thing"}),
        ("pea plant in the adult stage with a tall height", {"plant", "living thing"}),
        ("orange wire", {"non-living thing"}),
        ("flower pot 5", {"non-living thing"}),
        ("orange", set()),  # a picked fruit: ambiguous, never chosen for living or non-living
        ("unknown substance B", set()),
    ],
)
def test_kinds_from_the_head_noun(name: str, kinds: set[str]) -> None:
    assert kinds_of(name) == kinds


def test_data_files_name_their_sources() -> None:
    for f in ("kinds", "lifespans", "electrical"):
        assert load_data(f)["sources"], f


def test_knowledge_lookups() -> None:
    assert referent("apple tree in the adult stage") == "apple tree"
    assert is_fixed("table") and is_fixed("stove") and not is_fixed("glass cup")
    assert lifespan_years("giant tortoise egg") > lifespan_years("baby brown bear") > lifespan_years("baby mouse")
    assert power_source("solar panel") == {"renewable": True, "outdoors": True}
    assert power_source("nuclear generator")["renewable"] is False and power_source("black wire") is None
    assert conductive_prior("aluminum foil") is True and conductive_prior("plastic fork") is False
    assert conductive_prior("unknown substance B") is None


def test_animals_outside_are_read_and_ranked_by_lifespan() -> None:
    names = [o.name for o in parse_look(OBS["outside_animals"]).objects if "animal" in kinds_of(o.name)]
    assert sorted(names) == ["baby brown bear", "baby mouse", "baby wolf"]
    assert max(names, key=lambda n: lifespan_years(n) or 0) == "baby brown bear"


def test_life_stages_are_ordered_by_their_stage_words() -> None:
    from planner.agents.sciworld.stages import stage_index

    turtle = ["adult turtle", "turtle egg", "juvenile turtle", "hatchling turtle", "dead turtle"]
    ordered = sorted((n for n in turtle if stage_index(n, "turtle") is not None),
                     key=lambda n: stage_index(n, "turtle"))
    assert ordered == ["turtle egg", "hatchling turtle", "juvenile turtle", "adult turtle"]  # death is no stage
    apple = ["apple tree in the reproducing stage", "apple seed", "apple tree in the seedling stage",
             "apple tree in the adult stage"]
    assert [stage_index(n, "apple") for n in apple] == [3, 0, 1, 2]
    assert stage_index("tadpole", "frog") is not None and stage_index("tadpole", "turtle") is None
    assert stage_index("baby wolf", "beaver") is None


def test_recipe_ingredients_and_chemistry_spec() -> None:
    from planner.agents.sciworld.chemistry import ingredients

    assert ingredients("The recipe reads:\nTo make salt water, you need to mix sodium chloride, water.") == [
        "sodium chloride", "water"]
    assert ingredients("To make mixed nuts, you need to mix peanut, almond, cashew.") == ["peanut", "almond", "cashew"]
    assert ingredients("The recipe is blank.") == []
    spec = read_task(DESC["chemistry-mix"], "chemistry-mix")
    assert (spec.shape, spec.target, spec.room, spec.played) == ("chemistry", "salt water", "kitchen", True)


def test_paint_recipes_and_colour_names() -> None:
    from planner.agents.sciworld.stages import _recipe, _same_color

    assert _recipe("green") == ["yellow", "blue"] and _recipe("green-blue") == ["green", "blue"]
    assert _same_color("blue green paint", "green-blue paint") and not _same_color("green paint", "blue paint")


# ---------------------------------------------------------------- goal checks on recorded text
def test_box_holds_what_was_moved_in() -> None:
    look = OBS["kitchen_after_move_to_box"]
    assert box_holds(look, "red box", "blue jay egg")
    assert not box_holds(look, "red box", "dove egg") and not box_holds(look, "green box", "blue jay egg")


def test_device_on_from_look_at_and_room_text() -> None:
    assert device_on(OBS["bulb_on"]) is True
    assert device_on("a blue light bulb, which is off") is False and device_on("a battery.") is None
    lines = {o.name: o.device_on for o in parse_look(OBS["workshop_look"]).objects}
    assert lines["red light bulb"] is True and lines["blue light bulb"] is False


def test_thermometer_focus_state_and_answer() -> None:
    from planner.agents.sciworld.episode import read_temperature

    assert read_temperature(OBS["thermometer_reply"]) == 61.0
    assert focused("You focus on the blue jay egg.", "blue jay egg") and not focused("No known action matches")
    assert state_of_matter("liquid unknown substance J") == "liquid" and state_of_matter("lead") is None
    assert state_of_matter("gaseous mercury") == "gas"
    boxes = {"above": "red box", "below": "green box", "yes": "red box", "no": "blue box"}
    assert answer_box(boxes, above=read_temperature(OBS["thermometer_reply"]) > 100.0) == "green box"
    assert answer_box(boxes, yes=False) == "blue box"


# ---------------------------------------------------------------- reporting
def _row(task: str, score: int, done: bool, failure: str = "") -> EpisodeResult:
    return EpisodeResult(task=task, variation=0, policy="coat", score=score, completed=done, moves=5, commands=6,
                         failure=failure, shape=shape_of(task))


def test_unplayed_tasks_are_listed_never_scored() -> None:
    rows = [_row("find-animal", 100, True), _row("find-animal", -100, False, "task failed"),
            _row("lifespan-longest-lived", 100, True)]
    doc = summary_json(rows, ["grow-plant"])
    assert doc["mean_score"] == 50.0 and doc["tasks_played"] == 2  # (0 + 100) / 2 over played tasks
    assert doc["tasks"]["grow-plant"] == {"played": False, "mean_score": None, "completed_rate": None,
                                          "episodes": 0}
    assert doc["tasks"]["find-animal"]["failures"] == {"task failed": 1}
    table = task_table(rows, ["grow-plant"])
    assert "| grow-plant | not played |" in table and "mean over 2 played tasks" in table
