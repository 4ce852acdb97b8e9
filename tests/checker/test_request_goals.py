"""Request goals (``checker.request``): a labelled request's conditions judged on hand-built histories, the wrong
object or the wrong place failing, goals already true at reset, counts, and malformed labels named."""

from __future__ import annotations

from typing import Any

import pytest

from checker import judge
from checker.request import BECAME, request_goal

from .test_checker import World, obj


def req(*conds: dict[str, Any], text: str = "a request") -> dict[str, Any]:
    return {"kind": "request", "text": text, "goal": list(conds)}


KNIFE = obj("Knife|1", parentReceptacles=["CounterTop|1"])
COUNTER = obj("CounterTop|1")
PLATE = obj("Plate|1", parentReceptacles=["CounterTop|1"], isDirty=False)
FRIDGE = obj("Fridge|1", isOpen=False)
BIN = obj("GarbageCan|1")


def test_bread_put_away_in_the_bin_is_not_put_away() -> None:
    # "keep the bread from going stale, put it away": the bin is no place to keep it
    goal = {"object": ["Bread"], "in": ["Fridge", "Cabinet", "Drawer", "Box"]}
    bread = obj("Bread|1", parentReceptacles=["CounterTop|1"])
    w = World(COUNTER, bread, FRIDGE, BIN).pick("Bread|1").put("Bread|1", "GarbageCan|1")
    v = judge(req(goal), w.history())
    assert v.success is False and any("not in any Fridge/Cabinet/Drawer/Box" in r for r in v.reasons)
    w = World(COUNTER, bread, FRIDGE, BIN).pick("Bread|1").put("Bread|1", "Fridge|1")
    v = judge(req(goal), w.history())
    assert v.success is True and v.category == "placement" and v.assignment == {"c0": "Bread|1"}


def test_a_piece_of_cake_on_a_plate_needs_a_cut_piece_on_the_plate() -> None:
    goal = {"object": ["Cake"], "became": ["sliced"], "in": ["Plate", "Bowl"]}
    cake = obj("Cake|1", parentReceptacles=["CounterTop|1"])
    w = World(COUNTER, KNIFE, PLATE, cake).pick("Knife|1").slice("Cake|1")
    assert judge(req(goal), w.history()).success is False  # cut, but nothing on the plate
    w.set("Knife|1", isPickedUp=False, parentReceptacles=["CounterTop|1"]).act("PutObject", "CounterTop|1")
    w.pick("Cake|1|CakeSliced_0").put("Cake|1|CakeSliced_0", "Plate|1")
    v = judge(req(goal), w.history())
    assert v.success is True and v.assignment == {"c0": "Cake|1|CakeSliced_0"}


def test_the_wrong_slice_does_not_count() -> None:
    # a slice of bread on the plate does not serve "a piece of cake"
    goal = {"object": ["Cake"], "became": ["sliced"], "in": ["Plate"]}
    cake, bread = obj("Cake|1", parentReceptacles=["CounterTop|1"]), obj("Bread|1", parentReceptacles=["CounterTop|1"])
    w = World(COUNTER, KNIFE, PLATE, cake, bread).pick("Knife|1").slice("Cake|1").slice("Bread|1")
    w.set("Knife|1", isPickedUp=False, parentReceptacles=["CounterTop|1"]).act("PutObject", "CounterTop|1")
    w.pick("Bread|1|BreadSliced_0").put("Bread|1|BreadSliced_0", "Plate|1")
    assert judge(req(goal), w.history()).success is False


def test_a_light_already_on_is_no_light_turned_on() -> None:
    goal = {"object": ["FloorLamp", "DeskLamp"], "became": ["on"]}
    lamp = obj("FloorLamp|1", isToggled=True)
    v = judge(req(goal), World(lamp).act("Pass").history())
    assert v.success is False and any("already true at reset" in p for p in v.problems)
    lamp = obj("FloorLamp|1", isToggled=False)
    w = World(lamp).set("FloorLamp|1", isToggled=True).act("ToggleObjectOn", "FloorLamp|1")
    assert judge(req(goal), w.history()).success is True
    w.set("FloorLamp|1", isToggled=False).act("ToggleObjectOff", "FloorLamp|1")  # switched back off: not done
    assert judge(req(goal), w.history()).success is False


def test_hot_water_needs_water_from_a_source_and_heat() -> None:
    goal = {"object": ["Mug", "Cup"], "became": ["filled", "hot"], "liquid": "water"}
    mug = obj("Mug|1", parentReceptacles=["CounterTop|1"], isFilledWithLiquid=False, temperature="RoomTemp")
    w = World(COUNTER, mug).set("Mug|1", isFilledWithLiquid=True, fillLiquid="water")
    w.act("FillObjectWithLiquid", "Mug|1", args={"fillLiquid": "water"})  # conjured: no faucet
    w.set("Mug|1", temperature="Hot").act("Pass")
    v = judge(req(goal), w.history())
    assert v.success is False and any("conjured" in p for p in v.problems)


def test_counts_need_distinct_objects() -> None:
    goal = {"object": ["Apple"], "in": ["Fridge"], "count": 2}
    a1, a2 = (obj(f"Apple|{i}", parentReceptacles=["CounterTop|1"]) for i in (1, 2))
    w = World(COUNTER, FRIDGE, a1, a2).pick("Apple|1").put("Apple|1", "Fridge|1")
    assert judge(req(goal), w.history()).success is False
    w.pick("Apple|2").put("Apple|2", "Fridge|1")
    v = judge(req(goal), w.history())
    assert v.success is True and set(v.assignment.values()) == {"Apple|1", "Apple|2"}


def test_a_null_goal_is_reported_apart() -> None:
    v = judge({"kind": "request", "text": "play some music", "goal": None, "unobservable": "no music in AI2-THOR"},
              World(COUNTER).act("Pass").history())
    assert v.success is None and v.category == "proxy" and "no music" in v.reasons[0]


@pytest.mark.parametrize(("cond", "message"), [
    ({"object": ["Apple"], "became": ["sliced", "peeled"]}, "['peeled'] not known; valid: sliced"),
    ({"object": ["Apple"], "colour": "red", "held": True}, "unknown fields ['colour']"),
    ({"object": [], "held": True}, "needs object"),
    ({"object": ["Apple"]}, "asks nothing of its object"),
    ({"object": ["Mug"], "became": ["filled"], "liquid": "milk"}, "liquid 'milk' not known; valid: water"),
    ({"object": ["Apple"], "held": True, "count": 9}, "count 9; valid: 1..4"),
])
def test_malformed_conditions_are_named(cond: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        request_goal([cond], label="r1")


def test_every_became_word_makes_a_check() -> None:
    for word in BECAME:
        goal = request_goal([{"object": ["Mug"], "became": [word]}])
        assert goal.items[0].checks, word


def test_a_goal_the_scene_already_met_is_known_at_reset() -> None:
    from checker import met_at_reset

    clean = obj("Mug|1", isDirty=False, parentReceptacles=["CounterTop|1"])
    task = req({"object": ["Mug"], "became": ["clean"]})
    assert met_at_reset(task, World(COUNTER, clean).act("Pass").history()) is True
    dirty = obj("Mug|1", isDirty=True, parentReceptacles=["CounterTop|1"])
    assert met_at_reset(task, World(COUNTER, dirty).act("Pass").history()) is False
    placed = req({"object": ["Mug"], "in": ["CounterTop"]})  # already there: nothing to do
    assert met_at_reset(placed, World(COUNTER, clean).act("Pass").history()) is True
    cut = req({"object": ["Cake"], "became": ["sliced"]})  # a piece cannot exist before the run
    assert met_at_reset(cut, World(COUNTER, obj("Cake|1")).act("Pass").history()) is False


def test_filled_with_any_liquid_judges_the_liquid_it_holds() -> None:
    goal = {"object": ["Mug"], "became": ["filled"]}
    mug = obj("Mug|1", parentReceptacles=["CounterTop|1"], isFilledWithLiquid=False)
    v = judge(req(goal), World(COUNTER, mug).act("Pass").history())
    assert v.success is False and any("holds no water/coffee/wine" in r for r in v.reasons)
    w = World(COUNTER, mug).set("Mug|1", isFilledWithLiquid=True, fillLiquid="coffee")
    w.act("FillObjectWithLiquid", "Mug|1", args={"fillLiquid": "coffee"})  # from nowhere: conjured
    v = judge(req(goal), w.history())
    assert v.success is False and any("conjured" in p for p in v.problems)


def test_the_preparation_a_request_presumes_comes_from_its_label_alone() -> None:
    from checker.request import preparation

    props = {"Mug": {"dirtyable"}, "Mirror": {"dirtyable"}, "DeskLamp": {"toggleable"}, "Apple": set()}

    def has(t: str, prop: str) -> bool:
        return prop in props.get(t, set())

    goal = [{"object": ["Mug", "Apple"], "became": ["clean"]}, {"object": ["DeskLamp"], "became": ["on"]},
            {"object": ["Mirror"], "is": ["clean"]}, {"object": ["Apple"], "became": ["sliced"]}]
    # the apple is not dirtyable in AI2-THOR: never made so; an end state ("is") and a cut presume nothing
    assert preparation(goal, has) == [{"type": "Mug", "condition": "dirty", "which": "all"},
                                      {"type": "DeskLamp", "condition": "off", "which": "all"}]
    assert preparation([{"object": ["Mug"], "in": ["Cabinet"]}], has) == []
    props.update(Fridge={"openable"}, Television={"toggleable"})
    assert preparation([{"object": ["Fridge"], "became": ["closed"]}, {"object": ["Television"], "became": ["off"]},
                        {"object": ["Television"], "became": ["open"]}], has) == [
        {"type": "Fridge", "condition": "open", "which": "all"},
        {"type": "Television", "condition": "on", "which": "all"}]


def test_a_placement_presumes_its_objects_are_not_there_yet() -> None:
    """"Put the book back on the shelf" presumes a book that is not on a shelf: a pickupable type of an ``in``
    condition is displaced from the ``in`` types (the union when it is in several), from the label alone; an object
    held at the end, a piece cut during the run or a type that cannot be picked up presumes nothing."""
    from checker.request import DISPLACED, PREMISE_PROPERTIES, preparation

    props = {"Book": {"pickupable"}, "Mug": {"pickupable", "dirtyable"}, "Apple": {"pickupable"}, "Bed": set()}

    def has(t: str, prop: str) -> bool:
        return prop in props.get(t, set())

    assert DISPLACED == ("displaced", "pickupable") and "pickupable" in PREMISE_PROPERTIES
    assert set(PREMISE_PROPERTIES) >= {"dirtyable", "toggleable", "openable"}
    assert preparation([{"object": ["Book"], "in": ["Shelf"]}], has) == [
        {"type": "Book", "condition": "displaced", "which": "all", "from": ["Shelf"]}]
    goal = [{"object": ["Mug"], "became": ["clean"], "in": ["Cabinet"]}, {"object": ["Book", "Bed"], "in": ["Desk"]},
            {"object": ["Book"], "in": ["Shelf", "Desk"], "count": 2}]
    assert preparation(goal, has) == [{"type": "Mug", "condition": "dirty", "which": "all"},
                                      {"type": "Mug", "condition": "displaced", "which": "all", "from": ["Cabinet"]},
                                      {"type": "Book", "condition": "displaced", "which": "all",
                                       "from": ["Desk", "Shelf"]}]
    assert preparation([{"object": ["Book"], "in": ["Shelf"], "held": True},
                        {"object": ["Apple"], "became": ["sliced"], "in": ["Plate"]},
                        {"object": ["Bed"], "in": ["Floor"]}], has) == []


def test_a_goal_with_no_source_of_its_liquid_is_unreachable() -> None:
    from checker.history import History
    from checker.request import unreachable
    from checker.track import Track

    def track(*objs: dict[str, Any]) -> Track:
        return Track(History.of([list(objs)], []))

    water = [{"object": ["HousePlant"], "became": ["filled"], "liquid": "water"}]
    plant = obj("HousePlant|1", isFilledWithLiquid=False)
    assert "no source of it" in unreachable(water, track(plant))  # a living room: no basin, no faucet
    sink = obj("SinkBasin|1", position={"x": 0.0, "y": 0.9, "z": 0.0})
    faucet = obj("Faucet|1", position={"x": 0.0, "y": 1.0, "z": 0.2}, isToggled=False)
    assert unreachable(water, track(plant, sink, faucet)) == ""  # a faucet feeds the basin
    wine = [{"object": ["Cup"], "became": ["filled"], "liquid": "wine"}]
    assert "needs wine" in unreachable(wine, track(obj("Cup|1"), sink, faucet))
    held = obj("Bottle|1", isFilledWithLiquid=True, fillLiquid="wine")
    assert unreachable(wine, track(obj("Cup|1"), held)) == ""  # poured from what holds it
    assert unreachable([{"object": ["Apple"], "became": ["sliced"]}], track(plant)) == ""
