"""The embedded simulator: AI2-THOR schema, actions, contextual rules, time and in-use, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scenes.embedded.env as env_mod
from planner.errors import ConfigError, DataError, UnknownIdError
from scenes.base import Action
from scenes.embedded import EmbeddedEnv, load_scene
from scenes.embedded.metadata import OBJECT_KEYS, TOP_LEVEL_KEYS, fmt_coord

from .conftest import first

# --------------------------------------------------------------------------- schema


def test_objects_have_exactly_the_42_thor_keys(kitchen: EmbeddedEnv) -> None:
    obs, _ = kitchen.reset(seed=0)
    assert len(OBJECT_KEYS) == 42
    for o in obs.objects:
        assert tuple(o) == OBJECT_KEYS
    assert tuple(obs.event.metadata) == TOP_LEVEL_KEYS


def test_keys_match_a_real_ai2thor_event(data_dir: Path) -> None:
    real = json.loads((data_dir / "ai2thor/traces/pickup_mug/event_00.json").read_text())
    assert tuple(real) == TOP_LEVEL_KEYS
    assert tuple(real["objects"][0]) == OBJECT_KEYS


def test_event_is_a_genuine_ai2thor_event(kitchen: EmbeddedEnv) -> None:
    ai2thor_server = pytest.importorskip("ai2thor.server")
    obs, _, _, _, info = kitchen.step(Action(name="Pass"))
    assert isinstance(obs.event, ai2thor_server.Event)
    assert bool(obs.event) is True and info["action_success"]
    knife = first(obs, "Knife")
    assert obs.event.get_object(knife["objectId"])["objectType"] == "Knife"
    assert obs.event.metadata["lastAction"] == "Pass"
    obs, _, _, _, _ = kitchen.step(Action(name="PickupObject", object_id="Nope|+00.00|+00.00|+00.00"))
    assert bool(obs.event) is False
    assert obs.event.metadata["errorMessage"] == (
        "ArgumentException: objectId: Nope|+00.00|+00.00|+00.00 is not the objectId on any object in the scene!"
    )


def test_object_ids_use_thor_formatting() -> None:
    assert fmt_coord(-0.47) == "-00.47"
    assert fmt_coord(1.15) == "+01.15"
    assert fmt_coord(0.0) == "+00.00"
    assert fmt_coord(-0.002) == "00.00"  # AI2-THOR prints a negative zero without sign: GarbageCan|+00.05|00.00|+03.88


def test_real_floorplan_loads_unchanged(data_dir: Path) -> None:
    dump = json.loads((data_dir / "ai2thor/floorplans/FloorPlan1_physics.json").read_text())
    env = EmbeddedEnv("FloorPlan1", frames=False, data_dir=data_dir)
    obs, _ = env.reset(seed=0)
    assert {o["objectId"] for o in obs.objects} == set(dump)
    for o in obs.objects:
        d = dump[o["objectId"]]
        for k in ("isOpen", "isToggled", "temperature", "parentReceptacles", "receptacleObjectIds", "mass"):
            assert o[k] == d[k], (o["objectId"], k)
    assert obs.event.metadata["sceneName"] == "FloorPlan1_physics"
    assert obs.event.metadata["agent"]["position"]["x"] == -1.0  # AI2-THOR's start pose in FloorPlan1


# --------------------------------------------------------------------------- bad input


def test_bad_input_fails_the_step_and_never_raises(kitchen: EmbeddedEnv) -> None:
    cases = [
        (Action(name="Fly"), "Invalid action"),
        (Action(name="PickupObject", object_id="Ghost|+01.00|+01.00|+01.00"), "is not the objectId on any object"),
        (Action(name="PickupObject"), "is missing the following arguments: objectId"),
        (Action(name="Teleport", args={"position": "kitchen"}), "position"),
        (Action(name="Teleport", args={"position": {"x": 100.0, "y": 0.9, "z": 100.0}}), "not a valid agent position"),
        (Action(name="TeleportFull", args={"position": {"x": 0, "y": 0.9, "z": 0}}), "TeleportFull needs"),
        (Action(name="MoveAhead", args={"moveMagnitude": -1}), "moveMagnitude"),
        (Action(name="LookDown", args={"degrees": 90}), "beyond 60"),
        (Action(name="Wait", args={"seconds": -3}), "Wait needs seconds"),
        (Action(name="PutObject", object_id="Fridge|+02.15|+00.00|-00.80"), "not found within the specified"),
        (
            Action(name="PutObject", object_id="Fridge|+02.15|+00.00|-00.80", args={"forceAction": True}),
            "isn't holding anything",
        ),
        (
            Action(
                name="FillObjectWithLiquid",
                object_id="Mug|+01.05|+00.92|-02.10",
                args={"fillLiquid": "milk", "forceAction": True},
            ),
            "ArgumentException: milk is not a valid Liquid Type",
        ),
    ]
    for a, msg in cases:
        _, _, _, _, info = kitchen.step(a)
        assert info["action_success"] is False, a
        assert msg in info["error"], (a, info["error"])
        assert info["errorCode"] in (None, "InvalidAction", "MissingArguments", "InvalidArgument")
    with pytest.raises(ConfigError):
        kitchen.step("PickupObject")  # type: ignore[arg-type]  # a programmer error, not a world outcome


def test_unknown_scene_and_corrupt_scene_file(tmp_path: Path) -> None:
    with pytest.raises(UnknownIdError, match="kitchen"):
        load_scene("spaceship")
    bad = tmp_path / "broken.json"
    bad.write_text('{"objects": [{"type": "Knife", "center": [0, 1]')
    with pytest.raises(DataError, match="broken.json"):
        load_scene(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"objects": [{"type": "Spaceship", "center": [0, 1, 0]}]}))
    with pytest.raises(DataError, match=r"wrong.json: at objects/0/type: unknown object type 'Spaceship'"):
        load_scene(wrong)
    dump = tmp_path / "FloorPlan999_physics.json"
    dump.write_text(json.dumps({"Apple|+00.00|+00.00|+00.00": {"objectId": "Apple|+00.00|+00.00|+00.00"}}))
    with pytest.raises(DataError, match="FloorPlan999_physics.json.*missing AI2-THOR metadata keys"):
        load_scene(dump)


# --------------------------------------------------------------------------- pick/put and receptacles


def test_pickup_put_updates_containment(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    apple, table, plate = first(obs, "Apple"), first(obs, "DiningTable"), first(obs, "Plate")
    obs, info = act("PickupObject", apple["objectId"])
    assert info["action_success"] and info["actionReturn"] == apple["objectId"]
    a = obs.object(apple["objectId"])
    assert a["isPickedUp"] and a["parentReceptacles"] is None
    assert apple["objectId"] not in obs.object(table["objectId"])["receptacleObjectIds"]
    assert obs.event.metadata["inventoryObjects"] == [{"objectId": apple["objectId"], "objectType": "Apple"}]
    obs, info = act("PickupObject", plate["objectId"])
    assert not info["action_success"] and "Agent hand has something in it already!" in info["error"]
    obs, info = act("PutObject", plate["objectId"])
    assert info["action_success"]
    assert obs.object(apple["objectId"])["parentReceptacles"] == [plate["objectId"]]
    assert obs.object(plate["objectId"])["receptacleObjectIds"] == [apple["objectId"]]
    # picking the plate takes the apple along; the table no longer lists either
    obs, _ = act("PickupObject", plate["objectId"])
    assert obs.object(apple["objectId"])["parentReceptacles"] == [plate["objectId"]]
    assert apple["objectId"] not in obs.object(table["objectId"])["receptacleObjectIds"]


def test_receptacle_restrictions_and_closed_receptacles(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    apple, coffee, fridge = first(obs, "Apple"), first(obs, "CoffeeMachine"), first(obs, "Fridge")
    act("PickupObject", apple["objectId"])
    _, info = act("PutObject", coffee["objectId"], forceAction=False)
    assert not info["action_success"]
    # without forceAction the visibility check or the type restriction stops it; with it, restrictions hold too
    kitchen.step(
        Action(name="Teleport", args={"position": {"x": 1.25, "y": 0.9, "z": -1.5}, "rotation": 180, "horizon": 30})
    )
    _, info = act("PutObject", coffee["objectId"], forceAction=False)
    # a CoffeeMachine is an ObjectSpecificReceptacle: only a Mug, with or without forceAction
    assert info["error"] == "Apple_1 is not a valid Object Type to be placed in CoffeeMachine_1"
    _, info = act("PutObject", coffee["objectId"])
    assert info["error"] == "Apple_1 is not a valid Object Type to be placed in CoffeeMachine_1"
    _, info = act("PutObject", fridge["objectId"])  # forceAction skips visibility and type, not "closed"
    assert info["error"] == "Target openable Receptacle is CLOSED, can't place if target is not open!"
    act("OpenObject", fridge["objectId"])
    _, info = act("PutObject", fridge["objectId"])
    assert info["action_success"]
    obs, info = act("PickupObject", first(obs, "Knife")["objectId"])
    _, info = act("PutObject", first(obs, "Potato")["objectId"])
    assert info["error"] == "This target object is NOT a receptacle!"


def test_visibility_gates_actions_without_force(kitchen: EmbeddedEnv) -> None:
    obs, _ = kitchen.reset(seed=0)
    far_knife = first(obs, "Knife")  # on the counter, behind the table from the start pose
    assert not far_knife["visible"]
    _, _, _, _, info = kitchen.step(Action(name="PickupObject", object_id=far_knife["objectId"]))
    assert info["error"] == "NullReferenceException: Target object not found within the specified visibility."
    near = [o for o in obs.objects if o["visible"] and o["pickupable"]]
    assert near, "the start pose looks at the table"
    _, _, _, _, info = kitchen.step(Action(name="PickupObject", object_id=near[0]["objectId"]))
    assert info["action_success"], info["error"]


def test_a_closed_cabinet_hides_what_is_in_it_but_not_a_fixed_object_whose_box_overlaps_it() -> None:
    # FloorPlan19's recording lists the fridge among the cabinets' and a drawer's contents (their boxes overlap)
    env = EmbeddedEnv("FloorPlan19", frames=False)
    obs, _ = env.reset(seed=0)
    fridge = first(obs, "Fridge")
    assert any(p.startswith("Cabinet|") for p in fridge["parentReceptacles"])
    _, _, _, _, info = env.step(Action(name="Teleport", args={"position": {"x": -2.5, "y": 0.9, "z": -2.25},
                                                              "rotation": {"x": 0, "y": 270, "z": 0}, "horizon": 30}))
    assert info["action_success"], info["error"]
    obs, _, _, _, _ = env.step(Action(name="Done"))
    assert first(obs, "Fridge")["visible"]
    hidden = {o["objectType"] for o in obs.objects if o["objectId"] in env.world._hidden()}  # type: ignore[union-attr]
    assert "Plate" in hidden and "Fridge" not in hidden  # the plate in a closed cabinet stays hidden
    env.close()


def test_a_plate_the_recording_lists_a_counter_top_in_carries_no_counter_top() -> None:
    # FloorPlan8's recording puts a CounterTop (and with it the Microwave) inside a Plate: their boxes overlap
    env = EmbeddedEnv("FloorPlan8", frames=False)
    obs, _ = env.reset(seed=0)
    plate, micro = first(obs, "Plate"), first(obs, "Microwave")
    counter = next(o for o in obs.objects if o["objectId"] in plate["receptacleObjectIds"])
    env.step(Action(name="OpenObject", object_id=micro["objectId"], args={"forceAction": True}))
    obs, _, _, _, info = env.step(Action(name="PickupObject", object_id=plate["objectId"], args={"forceAction": True}))
    assert info["action_success"], info["error"]
    assert next(o for o in obs.objects if o["objectId"] == counter["objectId"])["position"] == counter["position"]
    obs, _, _, _, info = env.step(Action(name="PutObject", object_id=micro["objectId"], args={"forceAction": True}))
    assert info["action_success"], info["error"]  # was: "Cannot put the Plate into its own contents"
    assert plate["objectId"] in first(obs, "Microwave")["receptacleObjectIds"]
    env.close()


# --------------------------------------------------------------------------- contextual rules


def test_fridge_makes_cold_and_objects_warm_up_after_ten_seconds(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    apple, fridge = first(obs, "Apple"), first(obs, "Fridge")
    act("OpenObject", fridge["objectId"])
    act("PickupObject", apple["objectId"])
    obs, _ = act("PutObject", fridge["objectId"])
    assert obs.object(apple["objectId"])["temperature"] == "Cold"  # immediately, as in AI2-THOR
    obs, _ = act("PickupObject", apple["objectId"])
    obs, _ = act("Wait", seconds=9.0)
    assert obs.object(apple["objectId"])["temperature"] == "Cold"
    obs, info = act("Wait", seconds=1.5)
    assert obs.object(apple["objectId"])["temperature"] == "RoomTemp"
    assert info["time"] == pytest.approx(obs.time) and obs.time > 10.5


def test_microwave_heats_and_cooks(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    potato, mw = first(obs, "Potato"), first(obs, "Microwave")
    act("OpenObject", mw["objectId"])
    act("PickupObject", potato["objectId"])
    act("PutObject", mw["objectId"])
    _, info = act("ToggleObjectOn", mw["objectId"])
    assert info["error"] == "Target must be closed to Toggle On!"
    act("CloseObject", mw["objectId"])
    obs, info = act("ToggleObjectOn", mw["objectId"])
    p = obs.object(potato["objectId"])
    assert info["action_success"] and p["temperature"] == "Hot" and p["isCooked"]
    _, info = act("OpenObject", mw["objectId"])
    assert info["error"] == "Target must be OFF to open!"
    _, info = act("ToggleObjectOn", mw["objectId"])
    assert info["error"] == "can't toggle object on if it's already on!"


def test_stove_burner_is_switched_by_its_knob(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    pan = first(obs, "Pan")
    burner = obs.object(pan["parentReceptacles"][0])
    knob = next(
        o for o in obs.objects if o["objectType"] == "StoveKnob" and burner["objectId"] in o["controlledObjects"]
    )
    _, info = act("ToggleObjectOn", burner["objectId"])
    assert info["error"] == (
        "target object is controlled by another sim object. target object cannot be turned on/off directly"
    )
    egg = first(obs, "Egg")
    act("PickupObject", egg["objectId"])
    _, info = act("SliceObject", egg["objectId"])
    assert info["error"] == "target object cannot be sliced if it is in the agent's hand"
    act("DropHandObject")
    obs, _ = act("SliceObject", egg["objectId"])
    cracked = next(o for o in obs.objects if o["objectType"] == "EggCracked")
    assert cracked["objectId"] == f"{egg['objectId']}|EggCracked_0" and cracked["cookable"]
    act("PickupObject", cracked["objectId"])
    act("PutObject", pan["objectId"])
    obs, _ = act("ToggleObjectOn", knob["objectId"])
    assert obs.object(burner["objectId"])["isToggled"] and obs.object(knob["objectId"])["isToggled"]
    assert obs.object(pan["objectId"])["temperature"] == "Hot"
    c = obs.object(cracked["objectId"])
    assert c["temperature"] == "Hot" and c["isCooked"]
    obs, _ = act("ToggleObjectOff", knob["objectId"])
    assert not obs.object(burner["objectId"])["isToggled"]


def test_running_faucet_cleans_and_fills(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    mug, basin, faucet = first(obs, "Mug"), first(obs, "SinkBasin"), first(obs, "Faucet")
    act("DirtyObject", mug["objectId"])
    _, info = act("DirtyObject", mug["objectId"])
    assert not info["action_success"]
    act("PickupObject", mug["objectId"])
    obs, _ = act("PutObject", basin["objectId"])
    assert obs.object(mug["objectId"])["isDirty"]
    obs, _ = act("ToggleObjectOn", faucet["objectId"])
    m = obs.object(mug["objectId"])
    assert not m["isDirty"] and m["isFilledWithLiquid"] and m["fillLiquid"] == "water"
    _, info = act("FillObjectWithLiquid", mug["objectId"], fillLiquid="coffee")
    assert info["error"] == "InvalidOperationException: Mug_1 is already Filled!"
    obs, _ = act("EmptyLiquidFromObject", mug["objectId"])
    # still under running water: the next step fills it again
    obs, _ = act("Pass")
    assert obs.object(mug["objectId"])["isFilledWithLiquid"]


def test_coffee_machine_and_toaster(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    mug, cm = first(obs, "Mug"), first(obs, "CoffeeMachine")
    act("PickupObject", mug["objectId"])
    act("PutObject", cm["objectId"], forceAction=False) if False else act("PutObject", cm["objectId"])
    obs, _ = act("ToggleObjectOn", cm["objectId"])
    m = obs.object(mug["objectId"])
    assert m["fillLiquid"] == "coffee" and m["temperature"] == "Hot"
    bread, toaster, knife = first(obs, "Bread"), first(obs, "Toaster"), first(obs, "Knife")
    obs, _ = act("SliceObject", bread["objectId"])
    slices = [o for o in obs.objects if o["objectType"] == "BreadSliced"]
    assert slices and all(s["objectId"].startswith(bread["objectId"] + "|BreadSliced_") for s in slices)
    # SliceObject.Slice keeps the whole loaf in the metadata (isSliced), deactivated: never visible again
    whole = obs.object(bread["objectId"])
    assert whole["isSliced"] and not whole["visible"] and whole["parentReceptacles"] is None
    act("PickupObject", slices[0]["objectId"])
    act("PutObject", toaster["objectId"])
    obs, _ = act("ToggleObjectOn", toaster["objectId"])
    assert obs.object(slices[0]["objectId"])["isCooked"]
    assert knife["objectId"] in {o["objectId"] for o in obs.objects}


def test_break_dirty_useup_cook(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    phone, mug, towel, potato = (
        first(obs, "CellPhone"),
        first(obs, "Mug"),
        first(obs, "PaperTowelRoll"),
        first(obs, "Potato"),
    )
    act("ToggleObjectOn", phone["objectId"])
    obs, _ = act("BreakObject", phone["objectId"])
    assert obs.object(phone["objectId"])["isBroken"] and not obs.object(phone["objectId"])["isToggled"]
    _, info = act("ToggleObjectOn", phone["objectId"])
    assert not info["action_success"] and "broken" in info["error"]
    act("FillObjectWithLiquid", mug["objectId"], fillLiquid="wine")
    obs, _ = act("BreakObject", mug["objectId"])
    assert obs.object(mug["objectId"])["isBroken"] and not obs.object(mug["objectId"])["isFilledWithLiquid"]
    obs, info = act("UseUpObject", towel["objectId"])
    assert info["action_success"] and obs.object(towel["objectId"])["isUsedUp"]
    obs, info = act("CookObject", potato["objectId"])
    assert obs.object(potato["objectId"])["isCooked"]
    _, info = act("CookObject", first(obs, "Knife")["objectId"])
    assert not info["action_success"]


def test_slice_requires_knife_when_asked() -> None:
    env = EmbeddedEnv("kitchen", frames=False, slice_requires_knife=True)
    obs, _ = env.reset(seed=0)
    apple, knife = first(obs, "Apple"), first(obs, "Knife")
    step = lambda name, oid, **a: env.step(Action(name=name, object_id=oid, args=a))[4]  # noqa: E731
    assert step("SliceObject", apple["objectId"], forceAction=True)["action_success"] is True  # forceAction skips it
    env.reset(seed=0)
    info = step("SliceObject", apple["objectId"])
    assert not info["action_success"]
    step("PickupObject", knife["objectId"], forceAction=True)
    env.step(Action(name="Teleport", args={"position": {"x": 0.5, "y": 0.9, "z": 1.0}, "rotation": 180, "horizon": 45}))
    info = step("SliceObject", apple["objectId"])
    assert info["action_success"], info["error"]


# --------------------------------------------------------------------------- time and in-use


def test_in_use_reversible_ends_after_waiting(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    pot = first(obs, "Pot")
    obs, info = act("UseObject", pot["objectId"], seconds=30.0, by="Alex")
    assert info["in_use"][pot["objectId"]]["state"] == "reversible-using"
    assert obs.extra["in_use"][pot["objectId"]]["by"] == "Alex"
    _, info = act("PickupObject", pot["objectId"])
    assert not info["action_success"] and "in use by Alex" in info["error"]
    obs, info = act("Wait", seconds=29.0)
    assert obs.extra["in_use"][pot["objectId"]]["remaining"] == pytest.approx(30.0 - 29.0 - 2 * 0.02, abs=1e-6)
    obs, info = act("Wait", seconds=1.0)
    assert pot["objectId"] not in obs.extra["in_use"]
    _, info = act("PickupObject", pot["objectId"])
    assert info["action_success"]
    # nothing of this leaks into the 42 AI2-THOR keys
    assert tuple(obs.object(pot["objectId"])) == OBJECT_KEYS


def test_in_use_irreversible_never_ends(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    mug = first(obs, "Mug")
    act("UseObject", mug["objectId"], irreversible=True)
    obs, _ = act("Wait", seconds=1e6)
    assert obs.extra["in_use"][mug["objectId"]] == {
        "state": "irreversible-using",
        "by": "someone else",
        "until": None,
        "remaining": None,
    }
    _, info = act("FillObjectWithLiquid", mug["objectId"], fillLiquid="water")
    assert not info["action_success"] and "irreversible" in info["error"]


def test_every_action_takes_thor_time(kitchen: EmbeddedEnv) -> None:
    obs, _ = kitchen.reset(seed=0)
    assert obs.time == 0.0
    for _ in range(5):
        obs, *_ = kitchen.step(Action(name="Pass"))
    assert obs.time == pytest.approx(5 * 0.02)
    assert obs.event.metadata["currentTime"] == pytest.approx(obs.time)


# --------------------------------------------------------------------------- navigation


def test_reachable_positions_and_moves(kitchen: EmbeddedEnv) -> None:
    obs, _, _, _, info = kitchen.step(Action(name="GetReachablePositions"))
    pts = info["actionReturn"]
    assert len(pts) > 50 and all(set(p) == {"x", "y", "z"} for p in pts)
    p = pts[len(pts) // 2]
    obs, _, _, _, info = kitchen.step(
        Action(name="Teleport", args={"position": p, "rotation": {"x": 0, "y": 90, "z": 0}})
    )
    assert info["action_success"] and obs.event.metadata["agent"]["rotation"]["y"] == 90
    # walking into the fridge along +x eventually collides
    for _ in range(40):
        obs, _, _, _, info = kitchen.step(Action(name="MoveAhead"))
        if not info["action_success"]:
            break
    assert not info["action_success"] and "is blocking Agent 0 from moving" in info["error"]
    assert obs.event.metadata["collided"] is True


def test_held_object_moves_with_the_agent(kitchen: EmbeddedEnv, act) -> None:  # type: ignore[no-untyped-def]
    obs, _ = kitchen.reset(seed=0)
    apple = first(obs, "Apple")
    obs, _ = act("PickupObject", apple["objectId"])
    before = obs.object(apple["objectId"])["position"]
    obs, info = act("MoveBack")
    assert info["action_success"], info["error"]
    after = obs.object(apple["objectId"])["position"]
    assert after["z"] == pytest.approx(before["z"] + 0.25)
    assert obs.event.metadata["heldObjectPose"]["position"]["z"] == pytest.approx(after["z"], abs=0.2)


# --------------------------------------------------------------------------- scenarios


@pytest.mark.parametrize("name", ["knife-dirty", "no-knife", "stove-in-use", "mug-broken"])
def test_scenarios_are_seeded(name: str) -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    obs1, info1 = env.reset(seed=7, options={"scenario": name})
    obs2, info2 = env.reset(seed=7, options={"scenario": name})
    assert obs1.objects == obs2.objects and info1["scenario"] == info2["scenario"]
    changed = info1["scenario"]["changed"]
    assert changed
    ids = {o["objectId"] for o in obs1.objects}
    if name == "knife-dirty":
        (k,) = changed
        assert obs1.object(k)["isDirty"] and obs1.object(k)["objectType"] == "Knife"
    elif name == "no-knife":
        assert not [o for o in obs1.objects if o["objectType"] in ("Knife", "ButterKnife")]
        assert not any(k in ids for k in changed)
    elif name == "stove-in-use":
        busy = obs1.extra["in_use"]
        assert {o["objectId"] for o in obs1.objects if o["objectType"] in ("StoveBurner", "StoveKnob")} <= set(busy)
        assert all(v["state"] == "reversible-using" for v in busy.values())
        assert any(o["isToggled"] for o in obs1.objects if o["objectType"] == "StoveBurner")
    else:
        (m,) = changed
        assert obs1.object(m)["isBroken"]


def test_the_cook_switches_the_stove_off_when_done() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    obs, _ = env.reset(seed=0, options={"scenario": "stove-in-use", "in_use_seconds": 30})
    lit = [o["objectId"] for o in obs.objects if o["objectType"] == "StoveBurner" and o["isToggled"]]
    assert lit
    obs, *_ = env.step(Action(name="Wait", args={"seconds": 10}))
    assert all(obs.object(b)["isToggled"] for b in lit) and obs.extra["in_use"]
    obs, *_ = env.step(Action(name="Wait", args={"seconds": 25}))
    assert not obs.extra["in_use"]
    assert not any(o["isToggled"] for o in obs.objects if o["objectType"] in ("StoveBurner", "StoveKnob"))


def test_random_scenario_depends_on_seed_and_rejects_unknown_names() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    names = {env.reset(seed=s, options={"scenario": "random"})[1]["scenario"]["name"] for s in range(12)}
    assert len(names) >= 3
    with pytest.raises(ConfigError, match="knife-dirty"):
        env.reset(seed=0, options={"scenario": "flood"})
    with pytest.raises(ConfigError, match="unknown reset options"):
        env.reset(seed=0, options={"weather": "rain"})


# --------------------------------------------------------------------------- frames and optional dependencies


def test_frames_and_instance_masks() -> None:
    pytest.importorskip("cv2")
    env = EmbeddedEnv("kitchen")
    obs, _ = env.reset(seed=0)
    assert obs.rgb is not None and obs.rgb.shape == (300, 300, 3) and obs.rgb.dtype == np.uint8
    ids = {o["objectId"] for o in obs.objects}
    assert obs.instance_masks and set(obs.instance_masks) <= ids
    fridge = first(obs, "Fridge")["objectId"]
    m = obs.instance_masks[fridge]
    assert m.dtype == bool and m.any()
    if obs.event is not None:  # the Event's lazy masks agree with ours
        assert np.array_equal(obs.event.instance_masks[fridge], m)
        assert fridge in obs.event.instance_detections2D
    assert np.array_equal(env.render(), obs.rgb)


def test_works_without_ai2thor_and_without_cv2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env_mod, "_event_cls", False)  # as if ai2thor were not installed
    real = env_mod.is_available
    monkeypatch.setattr(env_mod, "is_available", lambda m: False if m == "cv2" else real(m))
    env = EmbeddedEnv("kitchen")
    obs, _ = env.reset(seed=0)
    assert obs.event is None and obs.rgb is None and obs.instance_masks is None
    assert len(obs.objects) > 40 and tuple(obs.objects[0]) == OBJECT_KEYS
    assert env.render() is None
    obs, _, _, _, info = env.step(
        Action(name="PickupObject", object_id=first(obs, "Apple")["objectId"], args={"forceAction": True})
    )
    assert info["action_success"]


def test_observations_do_not_alias_the_simulator(kitchen: EmbeddedEnv) -> None:
    obs, _ = kitchen.reset(seed=0)
    table = first(obs, "DiningTable")
    n = len(table["receptacleObjectIds"])
    table["receptacleObjectIds"].clear()
    table["isOpen"] = True
    assert kitchen.world is not None
    live = kitchen.world.objs[table["objectId"]]
    assert len(live["receptacleObjectIds"]) == n and live["isOpen"] is False
    # a changed object gets a fresh snapshot
    apple = first(obs, "Apple")
    obs2, *_ = kitchen.step(Action(name="PickupObject", object_id=apple["objectId"], args={"forceAction": True}))
    assert len(obs2.object(table["objectId"])["receptacleObjectIds"]) == n - 1


@pytest.mark.parametrize("scene", ["kitchen", "living-room", "bathroom", "bedroom"])
def test_packaged_scenes_start_on_a_reachable_position(scene: str) -> None:
    env = EmbeddedEnv(scene, frames=False)
    obs, _ = env.reset(seed=0)
    w = env.world
    assert w is not None and w._can_stand(w.pos[0], w.pos[2])
    assert any(o["visible"] for o in obs.objects), "the start view shows something"


def test_initialize_sets_grid_and_visibility(kitchen: EmbeddedEnv) -> None:
    _, _, _, _, info = kitchen.step(
        Action(name="Initialize", args={"gridSize": 0.5, "visibilityDistance": 2.0, "renderDepthImage": False})
    )
    assert info["action_success"] and info["actionReturn"]["cameraFarPlane"] == 20.0
    _, _, _, _, info = kitchen.step(Action(name="GetReachablePositions"))
    xs = {round(p["x"] / 0.5, 6) for p in info["actionReturn"]}
    assert all(x == int(x) for x in xs)
    _, _, _, _, info = kitchen.step(Action(name="Initialize", args={"gridSize": -1}))
    assert not info["action_success"] and info["errorCode"] == "InvalidArgument"
