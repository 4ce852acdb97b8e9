"""perception.text on ScienceWorld texts we recorded (tests/perception/assets/, scienceworld 1.2.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perception.evaluation import match_ground_truth, sciworld_ground_truth
from perception.sciworld_text import THERMOMETER_READING, USE_THERMOMETER, parse_look, split_list
from perception.text import (
    TextEstimator,
    coat_category,
    material_from_name,
    temperature_category,
    temperature_from_name,
)
from scenes.base import SceneObs

ASSETS = Path(__file__).parent / "assets"
SAMPLES = json.loads((ASSETS / "sciworld_samples.json").read_text())
LOOKS = SAMPLES["looks"]


@pytest.fixture
def est(priors):
    return TextEstimator(priors=priors)


def test_split_list_respects_parentheses_and_which_clauses():
    s = "a battery, a bowl (containing a red apple, a banana), a red light bulb, which is off, a switch, which is off"
    assert split_list(s) == [
        "a battery",
        "a bowl (containing a red apple, a banana)",
        "a red light bulb, which is off",
        "a switch, which is off",
    ]


def test_parse_kitchen_containment_and_devices():
    p = parse_look(LOOKS["kitchen_broken_stove"])
    assert p.room == "kitchen"
    by = {(o.name, o.parent): o for o in p.objects}
    assert ("red apple", "bowl") in by and ("bowl", "counter") in by
    assert ("lead", "metal pot") in by and ("metal pot", "stove") in by
    assert by[("stove", None)].device_on is False and by[("stopwatch", None)].device_on is False
    assert by[("fridge", None)].is_open is True and by[("orange juice", "wood cup")].substance is False
    assert by[("sodium chloride", "glass jar")].substance is True
    assert not any(o.name in ("agent", "air") for o in p.objects)
    assert "door" not in " ".join(o.name for o in p.objects)  # doors are not objects


def test_parse_other_rooms():
    work = {o.name: o for o in parse_look(LOOKS["workshop"]).objects}
    assert work["switch"].device_on is False and work["red light bulb"].parent == "table"
    bed = {o.name: o for o in parse_look(LOOKS["bedroom"]).objects}
    assert bed["white pillow"].parent == "mattress" and bed["mattress"].parent == "bed"
    green = parse_look(LOOKS["greenhouse"])
    assert [o.name for o in green.objects].count("adult bee") == 5
    assert {o.name for o in green.objects} >= {"banana tree", "soil", "flower pot 2"}
    out = parse_look(LOOKS["outside"])
    assert out.room == "outside" and {"frog egg", "wood", "water"} <= {o.name for o in out.objects}
    bath = {o.name: o for o in parse_look(LOOKS["bathroom"]).objects}
    assert bath["drain"].parent == "toilet" and bath["water"].parent == "toilet"
    inv = parse_look(LOOKS["boil21_inventory"])
    assert inv.room is None and [(o.name, o.reading_c) for o in inv.objects] == [
        ("orange", None),
        ("thermometer", 10.0),
    ]


@pytest.mark.parametrize(
    ("name", "material"),
    [
        ("metal pot", "Metal"),
        ("tin cup", "Metal"),
        ("wood cup", "Wood"),
        ("glass jar", "Glass"),
        ("ceramic cup", "Ceramic"),
        ("aluminum foil", "Metal"),
        ("liquid tin", "Metal"),
        ("red apple", "Food"),
        ("sodium chloride", "Food"),
        ("orange juice", "Food"),
        ("frog egg", "Organic"),
        ("banana tree", "Organic"),
        ("orange light bulb", None),  # a colour, not an orange
        ("stove", None),
    ],
)
def test_material_from_name(name, material):
    got, _ = material_from_name(name)
    assert (got.value if got else None) == material


@pytest.mark.parametrize(
    ("name", "temp"),
    [
        ("steam", "Hot"),
        ("liquid tin", "Hot"),
        ("gaseous lead", "Hot"),
        ("ice", "Cold"),
        ("solid mercury", "Cold"),
        ("liquid mercury", None),
        ("ice cream", None),
        ("fire pit", None),
        ("water", None),
    ],
)
def test_temperature_from_name(name, temp):
    got = temperature_from_name(name)
    assert (got.value if got else None) == temp


def test_temperature_thresholds():
    assert [temperature_category(c).value for c in (-18, 5, 10, 39.9, 40, 127)] == [
        "Cold",
        "Cold",
        "RoomTemp",
        "RoomTemp",
        "Hot",
        "Hot",
    ]


def test_categories_map_to_coat():
    assert coat_category("metal pot") == "Pot" and coat_category("stove") == "StoveBurner"
    assert coat_category("flower pot 2") == "flower pot 2" and coat_category("thermometer") == "thermometer"


def test_broken_reply_is_remembered_per_room(est):
    for action, reply in SAMPLES["boil21"]:
        est.estimate(SceneObs(text=reply, extra={"action": action}))
        if action == "activate stove":
            break
    kitchen = est.estimate(SceneObs(text=LOOKS["kitchen_broken_stove"]))
    stove = kitchen.by_id("stove")
    assert stove.state.condition.value == "broken" and stove.state.already_in_use.value == "irreversible-using"
    assert stove.source == "text" and "condition" not in stove.unknown
    assert kitchen.by_id("sink").state.condition.value == "clean"
    bathroom = est.estimate(SceneObs(text="You move to the bathroom.\n"))
    assert bathroom.objects == ()  # the kitchen look belongs to the room we left
    bath = est.estimate(SceneObs(text=LOOKS["bathroom"]))
    assert bath.by_id("sink").state.condition.value == "clean"  # another room's sink
    est.reset()
    assert est.estimate(SceneObs(text=LOOKS["kitchen_broken_stove"])).by_id("stove").state.condition.value == "clean"


def test_final_foundry_scene(est):
    scene = est.estimate(SceneObs(text=LOOKS["boil21_final"], extra={"inventory": LOOKS["boil21_inventory"]}))
    assert scene.scene_id == "foundry"
    steel, lead = scene.by_id("liquid steel"), scene.by_id("gaseous lead")
    assert steel.state.temperature.value == "Hot" and lead.state.temperature.value == "Hot"
    assert steel.state.material.value == "Metal" and "material" not in steel.unknown
    assert scene.by_id("blast furnace").state.already_in_use.value == "reversible-using"
    assert scene.by_id("thermometer").state.temperature.value == "RoomTemp"  # reads 10 C
    for r in scene.objects:  # ScienceWorld has no mass: never invented
        assert "mass" in r.unknown and r.confidence["mass"] == 0.0


def test_thermometer_measurements_refer_to_the_action_target(est):
    look = (
        "This room is called the kitchen. In it, you see: \n\ta stove, which is turned on. On the stove is: "
        "a metal pot (containing a substance called tin).\n"
    )
    est.estimate(SceneObs(text=look))
    temps = []
    for action, reply in SAMPLES["melt22_thermometer"]:
        scene = est.estimate(SceneObs(text=reply, extra={"action": action}))
        if "measures" in reply:
            temps.append((scene.by_id("tin").state.temperature.value, scene.by_id("tin").confidence["temperature"]))
    assert temps[0] == ("RoomTemp", 0.95) and temps[-1] == ("Hot", 0.95)  # 16 C, then 67 C
    for _ in range(5):  # readings expire; the running stove still says Hot
        scene = est.estimate(SceneObs(text="You decide to wait for 1 iterations."))
    assert scene.by_id("tin").state.temperature.value == "Hot" and scene.by_id("tin").confidence["temperature"] < 0.95


def test_duplicate_names_get_distinct_ids(est):
    ids = [r.object_id for r in est.estimate(SceneObs(text=LOOKS["greenhouse"])).objects]
    assert len(ids) == len(set(ids))
    assert "adult bee in bee hive" in ids and "adult bee in greenhouse #2" in ids


@pytest.mark.parametrize(
    "text",
    [None, "", "No known action matches that input.", "ERROR: Task (boil): ERROR: variation (999)", "\t\t\n"],
)
def test_garbage_text_gives_an_empty_scene(est, text):
    assert est.estimate(SceneObs(text=text)).objects == ()


def test_ground_truth_extraction_and_matching(est):
    tree = json.loads((ASSETS / "sciworld_tree_foundry.json").read_text())  # pruned: foundry with the agent
    room, truth = sciworld_ground_truth(tree)
    assert room == "foundry"
    names = {g["name"] for g in truth}
    assert {"blast furnace", "sink", "table"} <= names
    est.estimate(SceneObs(text=LOOKS["boil21_final"]))
    pairs = match_ground_truth(est.parsed_objects(), truth, room)
    assert pairs["blast furnace"]["isBroken"] is False
    assert "gaseous lead" in pairs and pairs["gaseous lead"]["temperatureC"] > 100


def test_reply_followed_by_look_as_scenes_sciworld_sends_it(est):
    # scenes.sciworld puts "<reply>\n\n<look>" in obs.text and the command in info; accept extra["command"]
    text = "The stove appears broken, and can't be activated or deactivated.\n\n" + LOOKS["kitchen_broken_stove"]
    inv = LOOKS["boil21_inventory"]
    scene = est.estimate(SceneObs(text=text, extra={"command": "activate stove", "inventory": inv}))
    assert scene.by_id("stove").state.condition.value == "broken"
    assert scene.by_id("thermometer").object_id == "thermometer"  # inventory section kept apart
    assert {r.object_id for r in scene.objects} >= {"orange in bowl", "orange in inventory"}


@pytest.mark.sciworld_live
def test_live_sciworld_episode_scores():
    pytest.importorskip("scienceworld")
    from perception.evaluation import text_eval

    res = text_eval(["boil"], per_task=1, every=1)
    assert res["episodes"] == ["boil/21"] and res["snapshots"] > 3
    assert res["temperature"]["all"]["rate"] > 0.9
    assert res["material"]["text"]["rate"] > 0.9
    assert res["broken"]["true_positive"] >= 1 and res["broken"]["false_positive"] == 0  # stove is broken in 21


def test_thermometer_patterns_are_public():
    reply = "the thermometer measures a temperature of -3.5 degrees celsius"
    assert float(THERMOMETER_READING.search(reply).group(1)) == -3.5
    assert USE_THERMOMETER.match("use thermometer in inventory on substance in metal pot").group(1) == (
        "substance in metal pot"
    )
