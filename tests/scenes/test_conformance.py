"""Conformance of the embedded world to AI2-THOR 5.0.0's C# rules, one test per row of docs/conformance.md.

Each test names the C# it checks (allenai/ai2thor unity/Assets/Scripts/<file> <method>). The scene is a small
hand-written room built for these rules: a counter with appliances, a sink, a stove, a fridge, a safe, and a
towel behind a shower glass panel in front of the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.schemas.thor_rules import (
    BEHIND_GLASS,
    NOT_VISIBLE,
    OBJECT_SPECIFIC_RECEPTACLES,
    PLACEMENT_RESTRICTIONS,
    unknown_object,
    unknown_type,
)
from scenes.base import Action
from scenes.embedded import EmbeddedEnv, World, load_scene
from scenes.embedded.loader import SceneData

ROOM: dict[str, Any] = {
    "sceneName": "ConformanceRoom",
    "agent": {"position": [0.0, 1.0], "rotation": 180, "horizon": 30},
    "objects": [
        {"name": "Floor_1", "type": "Floor", "center": [0, -0.05, 0], "size": [6.0, 0.1, 6.0]},
        {"name": "CounterTop_1", "type": "CounterTop", "center": [0.0, 0.9, -2.2], "size": [4.0, 0.05, 0.6]},
        {"name": "Sink_1", "type": "Sink", "center": [-1.8, 0.88, -2.2], "size": [0.6, 0.12, 0.6]},
        {"name": "SinkBasin_1", "type": "SinkBasin", "center": [-1.8, 0.83, -2.2], "size": [0.4, 0.13, 0.38],
         "part_of": "Sink_1"},
        {"name": "Faucet_1", "type": "Faucet", "center": [-1.8, 1.0, -2.45], "size": [0.1, 0.25, 0.15]},
        {"name": "Microwave_1", "type": "Microwave", "center": [-0.9, 1.075, -2.3], "size": [0.5, 0.3, 0.38],
         "in": ["CounterTop_1"]},
        {"name": "Toaster_1", "type": "Toaster", "center": [1.8, 1.025, -2.3], "size": [0.3, 0.2, 0.2],
         "in": ["CounterTop_1"]},
        {"name": "CoffeeMachine_1", "type": "CoffeeMachine", "center": [1.3, 1.1, -2.3], "size": [0.25, 0.35, 0.3],
         "in": ["CounterTop_1"]},
        {"name": "StoveBurner_1", "type": "StoveBurner", "center": [0.25, 0.94, -2.05], "size": [0.22, 0.02, 0.22]},
        {"name": "StoveKnob_1", "type": "StoveKnob", "center": [0.2, 0.85, -1.88], "size": [0.05, 0.05, 0.03],
         "controls": ["StoveBurner_1"]},
        {"name": "Fridge_1", "type": "Fridge", "center": [2.6, 0.9, -0.8], "size": [0.7, 1.8, 0.75],
         "in": ["Floor_1"]},
        {"name": "Safe_1", "type": "Safe", "center": [-2.6, 0.3, 0.5], "size": [0.5, 0.6, 0.5], "in": ["Floor_1"]},
        {"name": "Pan_1", "type": "Pan", "center": [0.7, 0.95, -2.1], "size": [0.28, 0.049, 0.403],
         "in": ["CounterTop_1"]},
        {"name": "Pot_1", "type": "Pot", "center": [1.0, 0.99, -2.1], "size": [0.3, 0.15, 0.3],
         "in": ["CounterTop_1"]},
        {"name": "Mug_1", "type": "Mug", "center": [0.5, 0.977, -2.3], "size": [0.11, 0.104, 0.103],
         "in": ["CounterTop_1"]},
        {"name": "Cup_1", "type": "Cup", "center": [0.4, 0.99, -2.4], "size": [0.11, 0.15, 0.11],
         "in": ["CounterTop_1"]},
        {"name": "Bread_1", "type": "Bread", "center": [-0.3, 0.993, -2.1], "size": [0.244, 0.136, 0.287],
         "in": ["CounterTop_1"]},
        {"name": "Potato_1", "type": "Potato", "center": [-0.5, 0.963, -2.05], "size": [0.099, 0.076, 0.107],
         "in": ["CounterTop_1"]},
        {"name": "Egg_1", "type": "Egg", "center": [-0.6, 0.96, -2.3], "size": [0.05, 0.06, 0.05],
         "in": ["CounterTop_1"]},
        {"name": "PaperTowelRoll_1", "type": "PaperTowelRoll", "center": [-1.2, 1.0, -2.3],
         "size": [0.12, 0.2, 0.12], "in": ["CounterTop_1"]},
        {"name": "ScrubBrush_1", "type": "ScrubBrush", "center": [-1.4, 0.95, -2.3], "size": [0.1, 0.05, 0.25],
         "in": ["CounterTop_1"]},
        {"name": "Knife_1", "type": "Knife", "center": [0.0, 0.93, -2.3], "size": [0.3, 0.02, 0.05],
         "in": ["CounterTop_1"]},
        {"name": "Plate_1", "type": "Plate", "center": [-0.1, 0.93, -2.0], "size": [0.25, 0.02, 0.25],
         "in": ["CounterTop_1"]},
        {"name": "Bowl_1", "type": "Bowl", "center": [0.1, 0.95, -2.0], "size": [0.19, 0.08, 0.19],
         "in": ["CounterTop_1"]},
        {"name": "CellPhone_1", "type": "CellPhone", "center": [1.5, 0.93, -2.0], "size": [0.14, 0.01, 0.17],
         "in": ["CounterTop_1"]},
        {"name": "SideTable_1", "type": "SideTable", "center": [0.4, 0.35, 0.75], "size": [0.5, 0.7, 0.4],
         "in": ["Floor_1"]},
        {"name": "Cloth_1", "type": "Cloth", "center": [0.4, 0.71, 0.75], "size": [0.2, 0.02, 0.18],
         "in": ["SideTable_1"]},
        {"name": "ShowerGlass_1", "type": "ShowerGlass", "center": [0.0, 1.0, 0.4], "size": [2.0, 2.0, 0.05]},
        {"name": "TowelHolder_1", "type": "TowelHolder", "center": [0.0, 1.2, -0.05], "size": [0.6, 0.05, 0.05]},
        {"name": "Towel_1", "type": "Towel", "center": [0.0, 1.0, -0.05], "size": [0.4, 0.5, 0.04],
         "in": ["TowelHolder_1"]},
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def room_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("conformance") / "room.json"
    p.write_text(json.dumps(ROOM))
    return p


@pytest.fixture
def room(room_file: Path) -> SceneData:
    return load_scene(room_file)


@pytest.fixture
def w(room: SceneData) -> World:
    return World(room)


def oid(world: World, name: str) -> str:
    return next(k for k, o in world.objs.items() if o["name"] == name)


def do(world: World, action: str, target: str | None = None, **args: Any) -> tuple[bool, str]:
    """Run an action on the object named ``target``; ``forceAction`` defaults to True (placement, not sight)."""
    args.setdefault("forceAction", True)
    d = {"action": action, **args}
    if target is not None:
        d["objectId"] = oid(world, target) if target in {o["name"] for o in world.objs.values()} else target
    ok, err, _, _ = world.step(d)
    return ok, err


def hold(world: World, name: str) -> None:
    if world.held is not None:
        assert do(world, "DropHandObject")[0]
    ok, err = do(world, "PickupObject", name)
    assert ok, err


# --------------------------------------------------------------------------- placement (PutObject)


def test_placement_row_decides_without_force_and_force_skips_it(w: World) -> None:
    # SimObjType.cs ReceptacleRestrictions.PlacementRestrictions, read by placeHeldObject
    hold(w, "PaperTowelRoll_1")
    w.step({"action": "Teleport", "position": {"x": -1.8, "y": w.agent_y, "z": -1.4}, "rotation": 180, "horizon": 30})
    assert w.is_interactable(oid(w, "SinkBasin_1"))
    ok, err = do(w, "PutObject", "SinkBasin_1", forceAction=False)
    assert not ok and err == "PaperTowelRoll_1 cannot be placed in SinkBasin_1"
    assert "SinkBasin" not in PLACEMENT_RESTRICTIONS["PaperTowelRoll"]
    ok, err = do(w, "PutObject", "SinkBasin_1")  # forceAction=True skips the restriction
    assert ok, err


def test_a_type_without_a_row_goes_anywhere(w: World) -> None:
    # the placeHeldObject loop finds no row for ScrubBrush: no restriction
    assert "ScrubBrush" not in PLACEMENT_RESTRICTIONS
    hold(w, "ScrubBrush_1")
    w.step({"action": "Teleport", "position": {"x": -1.8, "y": w.agent_y, "z": -1.4}, "rotation": 180, "horizon": 30})
    ok, err = do(w, "PutObject", "SinkBasin_1", forceAction=False)
    assert ok, err


def test_mug_row_has_microwave_fridge_and_coffee_machine() -> None:
    assert {"Microwave", "Fridge", "CoffeeMachine"} <= PLACEMENT_RESTRICTIONS["Mug"]
    assert "Microwave" not in PLACEMENT_RESTRICTIONS["Tomato"]


def test_closed_receptacles_refuse_even_with_force(w: World) -> None:
    # ReceptacleRestrictions.MustBeOpenToPlaceObjectsIn, checked before forceAction matters
    hold(w, "Mug_1")
    ok, err = do(w, "PutObject", "Fridge_1")
    assert not ok and err == "Target openable Receptacle is CLOSED, can't place if target is not open!"
    assert do(w, "OpenObject", "Fridge_1")[0]
    assert do(w, "PutObject", "Fridge_1")[0]
    hold(w, "CellPhone_1")
    assert not w.objs[oid(w, "Safe_1")]["isOpen"]
    ok, err = do(w, "PutObject", "Safe_1")  # a Safe is not in MustBeOpenToPlaceObjectsIn
    assert ok, err


def test_object_specific_receptacles_take_their_types_only_with_or_without_force(w: World) -> None:
    # placeHeldObject's ObjectSpecificReceptacle branch (ObjectSpecificReceptacle.cs HasSpecificType / isFull)
    assert OBJECT_SPECIFIC_RECEPTACLES["CoffeeMachine"] == {"Mug"}
    hold(w, "Cup_1")
    ok, err = do(w, "PutObject", "CoffeeMachine_1")
    assert not ok and err == "Cup_1 is not a valid Object Type to be placed in CoffeeMachine_1"
    hold(w, "Mug_1")
    assert do(w, "PutObject", "CoffeeMachine_1")[0]
    hold(w, "Potato_1")
    ok, err = do(w, "PutObject", "StoveBurner_1")
    assert not ok and err == "Potato_1 is not a valid Object Type to be placed in StoveBurner_1"
    hold(w, "Pan_1")
    assert do(w, "PutObject", "StoveBurner_1")[0]
    hold(w, "Pot_1")
    ok, err = do(w, "PutObject", "StoveBurner_1")
    assert not ok and err == "StoveBurner_1 is full right now"
    hold(w, "Potato_1")
    ok, err = do(w, "PutObject", "Toaster_1")
    assert not ok and err == "Potato_1 is not a valid Object Type to be placed in Toaster_1"


def test_no_room_in_a_small_or_full_receptacle(w: World) -> None:
    # the spawn points of InstantiatePrefabTest.PlaceObjectReceptacle, approximated by boxes
    hold(w, "Pot_1")
    ok, err = do(w, "PutObject", "Mug_1")
    assert not ok and err == "No valid positions to place object found"
    hold(w, "Potato_1")
    assert do(w, "PutObject", "Bowl_1")[0]


def test_a_broken_receptacle_has_no_room(w: World) -> None:
    # Break.BreakObject deactivates a shattered object's children, its receptacle trigger boxes included
    assert do(w, "BreakObject", "Bowl_1")[0]
    hold(w, "Potato_1")
    ok, err = do(w, "PutObject", "Bowl_1")
    assert not ok and err == "No valid positions to place object found"


def test_put_checks_target_then_hand_then_receptacle(w: World) -> None:
    ok, err = do(w, "PutObject", "Fridge_1", forceAction=False)
    assert not ok and err == NOT_VISIBLE
    ok, err = do(w, "PutObject", "Fridge_1")
    assert err == "Can't place an object if Agent isn't holding anything"
    hold(w, "Mug_1")
    ok, err = do(w, "PutObject", "Potato_1")
    assert err == "This target object is NOT a receptacle!"


def test_the_held_objects_contents_travel_with_it(w: World) -> None:
    hold(w, "Potato_1")
    assert do(w, "PutObject", "Plate_1")[0]
    hold(w, "Plate_1")
    assert do(w, "OpenObject", "Microwave_1")[0]
    assert do(w, "PutObject", "Microwave_1")[0]
    assert w.objs[oid(w, "Potato_1")]["parentReceptacles"] == [oid(w, "Plate_1")]
    assert oid(w, "Potato_1") in w.contents(oid(w, "Microwave_1"))


# --------------------------------------------------------------------------- unknown types


def test_a_rule_needing_an_unknown_type_fails_instead_of_succeeding(w: World) -> None:
    hold(w, "Mug_1")
    w.objs[w.held]["objectType"] = "Spaceship"  # a type neither AI2-THOR nor the extensions have
    ok, err = do(w, "PutObject", "CounterTop_1")
    assert not ok and err == unknown_type("Spaceship")
    assert err == "ArgumentException: Requested value 'Spaceship' was not found."
    w.objs[oid(w, "Potato_1")].update(objectType="Yam", sliceable=True)
    ok, err = do(w, "SliceObject", "Potato_1")
    assert not ok and err == unknown_type("YamSliced")


# --------------------------------------------------------------------------- heat, cooking, coffee, water


def run(w: World, switch: str) -> None:
    ok, err = do(w, "ToggleObjectOn", switch)
    assert ok, err


def test_microwave_heats_and_cooks_but_does_not_toast_bread(w: World) -> None:
    # HeatZone.OnTriggerStay; the Microwave's CanToastBread is false
    assert do(w, "SliceObject", "Bread_1")[0]
    piece = f"{oid(w, 'Bread_1')}|BreadSliced_0"
    assert do(w, "OpenObject", "Microwave_1")[0]
    for p in (piece, oid(w, "Potato_1")):
        assert do(w, "PickupObject", p)[0] and do(w, "PutObject", "Microwave_1")[0]
    assert do(w, "CloseObject", "Microwave_1")[0]
    run(w, "Microwave_1")
    assert w.objs[piece]["temperature"] == "Hot" and not w.objs[piece]["isCooked"]
    assert w.objs[oid(w, "Potato_1")]["isCooked"]


def test_toaster_toasts_bread_slices(w: World) -> None:
    assert do(w, "SliceObject", "Bread_1")[0]
    piece = f"{oid(w, 'Bread_1')}|BreadSliced_0"
    assert do(w, "PickupObject", piece)[0] and do(w, "PutObject", "Toaster_1")[0]
    run(w, "Toaster_1")
    assert w.objs[piece]["isCooked"] and w.objs[piece]["temperature"] == "Hot"


def test_stove_cooks_through_the_pan_it_holds(w: World) -> None:
    assert do(w, "SliceObject", "Egg_1")[0]
    cracked = f"{oid(w, 'Egg_1')}|EggCracked_0"
    hold(w, "Pan_1")
    assert do(w, "PutObject", "StoveBurner_1")[0]
    assert do(w, "PickupObject", cracked)[0] and do(w, "PutObject", "Pan_1")[0]
    run(w, "StoveKnob_1")
    assert w.objs[cracked]["isCooked"] and w.objs[oid(w, "Pan_1")]["temperature"] == "Hot"


def test_coffee_machine_fills_the_mug_with_hot_coffee(w: World) -> None:
    # coffeemachine.Serve -> Fill.FillObject("coffee"): coffee is hot
    hold(w, "Mug_1")
    assert do(w, "PutObject", "CoffeeMachine_1")[0]
    run(w, "CoffeeMachine_1")
    m = w.objs[oid(w, "Mug_1")]
    assert m["fillLiquid"] == "coffee" and m["temperature"] == "Hot"


def test_fill_with_coffee_makes_it_hot(w: World) -> None:
    ok, _ = do(w, "FillObjectWithLiquid", "Cup_1", fillLiquid="Coffee")  # the C# lower-cases the liquid
    assert ok and w.objs[oid(w, "Cup_1")]["temperature"] == "Hot"


def test_running_water_cleans_and_fills_what_is_in_the_basin(w: World) -> None:
    # Dirty.OnTriggerStay and Fill.OnTriggerStay on a 'Liquid' trigger
    assert do(w, "DirtyObject", "Bowl_1")[0]
    hold(w, "Bowl_1")
    assert do(w, "PutObject", "SinkBasin_1")[0]
    run(w, "Faucet_1")
    b = w.objs[oid(w, "Bowl_1")]
    assert not b["isDirty"] and b["fillLiquid"] == "water"


# --------------------------------------------------------------------------- interactability


def test_behind_shower_glass_is_visible_but_not_interactable(room: SceneData) -> None:
    # BaseFPSAgentController.CheckIfVisibilityPointInViewport (CanSeeThrough) and getInteractableSimObjectFromId
    env = EmbeddedEnv(room, frames=False)
    obs, _ = env.reset(seed=0)
    towel, cloth = (next(o for o in obs.objects if o["objectType"] == t) for t in ("Towel", "Cloth"))
    assert towel["visible"] and not towel["isInteractable"]
    assert cloth["visible"] and cloth["isInteractable"]
    _, _, _, _, info = env.step(Action(name="PickupObject", object_id=towel["objectId"]))
    assert not info["action_success"] and info["error"] == BEHIND_GLASS
    _, _, _, _, info = env.step(Action(name="PickupObject", object_id=towel["objectId"], args={"forceAction": True}))
    assert info["action_success"], info["error"]


def test_not_visible_and_unknown_ids_use_ai2thors_messages(w: World) -> None:
    ok, err = do(w, "PickupObject", "Knife_1", forceAction=False)
    assert not ok and err == NOT_VISIBLE
    ok, err = do(w, "PickupObject", "Nope|+00.00|+00.00|+00.00")
    assert not ok and err == unknown_object("Nope|+00.00|+00.00|+00.00")


# --------------------------------------------------------------------------- object-state actions


def test_slice_needs_no_knife_in_ai2thor_only_in_alfred(room: SceneData) -> None:
    w = World(room)
    assert do(w, "SliceObject", "Potato_1")[0]  # PhysicsRemoteFPSAgentController.SliceObject: no knife
    alfred = World(room, slice_requires_knife=True)
    alfred.step({"action": "Teleport", "position": {"x": -0.5, "y": alfred.agent_y, "z": -1.4}, "rotation": 180,
                 "horizon": 30})
    ok, err = do(alfred, "SliceObject", "Potato_1", forceAction=False)
    assert not ok and err == "Agent should be holding a knife before slicing."


def test_slice_keeps_the_whole_refuses_a_held_object_and_slicing_twice_succeeds(w: World) -> None:
    hold(w, "Potato_1")
    ok, err = do(w, "SliceObject", "Potato_1")
    assert not ok and err == "target object cannot be sliced if it is in the agent's hand"
    do(w, "DropHandObject")
    assert do(w, "SliceObject", "Potato_1")[0]
    p = w.objs[oid(w, "Potato_1")]
    assert p["isSliced"] and not w.is_visible(p["objectId"]) and p["parentReceptacles"] is None
    assert do(w, "SliceObject", "Potato_1") == (True, "")  # SliceObject.Slice returns early, the action succeeds
    ok, err = do(w, "SliceObject", "Mug_1")
    assert not ok and err == "Mug_1 Does not have the CanBeSliced property!"
    # SliceObject.Slice cooks the pieces of a cooked object
    assert do(w, "CookObject", "Egg_1")[0] is False  # an Egg is not cookable, its EggCracked is
    w.objs[oid(w, "Bread_1")].update(cookable=True, isCooked=True)
    assert do(w, "SliceObject", "Bread_1")[0] and w.objs[f"{oid(w, 'Bread_1')}|BreadSliced_0"]["isCooked"]


def test_break(w: World) -> None:
    ok, err = do(w, "BreakObject", "Potato_1")
    assert not ok and err == "Potato_1 does not have the CanBreak property!!"
    hold(w, "Mug_1")
    assert do(w, "BreakObject", "Mug_1")[0] and w.held is None  # leaves the hand
    assert do(w, "BreakObject", "Mug_1") == (True, "")  # no "already broken" check in the C#
    assert do(w, "BreakObject", "Egg_1")[0]
    assert w.objs[oid(w, "Egg_1")]["isBroken"] and f"{oid(w, 'Egg_1')}|EggCracked_0" in w.objs


def test_dirty_clean_fill_empty_use_up_cook_messages(w: World) -> None:
    assert do(w, "DirtyObject", "Knife_1") == (False, "Knife_1 does not have CanBeDirty property!")
    assert do(w, "CleanObject", "Knife_1") == (False, "Knife_1 does not have dirtyable property!")
    assert do(w, "CleanObject", "Mug_1") == (False, "Mug_1 is already Clean!")
    assert do(w, "DirtyObject", "Mug_1")[0]
    assert do(w, "DirtyObject", "Mug_1") == (False, "Mug_1 is already dirty!")
    assert do(w, "FillObjectWithLiquid", "Mug_1") == (
        False, "InvalidOperationException: Missing Liquid string for FillObject action")
    assert do(w, "FillObjectWithLiquid", "Knife_1", fillLiquid="water") == (
        False, "ArgumentException: Knife_1 does not have CanBeFilled property!")
    assert do(w, "FillObjectWithLiquid", "Mug_1", fillLiquid="milk") == (
        False, "ArgumentException: milk is not a valid Liquid Type")
    assert do(w, "FillObjectWithLiquid", "Mug_1", fillLiquid="wine")[0]
    assert do(w, "FillObjectWithLiquid", "Mug_1", fillLiquid="water") == (
        False, "InvalidOperationException: Mug_1 is already Filled!")
    assert do(w, "EmptyLiquidFromObject", "Mug_1")[0]
    assert do(w, "EmptyLiquidFromObject", "Mug_1") == (False, "object already empty")
    assert do(w, "UseUpObject", "Mug_1") == (False, "Mug_1 does not have CanBeUsedUp property!")
    assert do(w, "CookObject", "Mug_1") == (False, "target object is not cookable")
    assert do(w, "CookObject", "Potato_1")[0]
    assert do(w, "CookObject", "Potato_1") == (False, f"{oid(w, 'Potato_1')} is already Toasted!")
    # a broken container can still be filled by the action (Fill.FillObject has no broken check)
    assert do(w, "BreakObject", "Cup_1")[0] and do(w, "FillObjectWithLiquid", "Cup_1", fillLiquid="water")[0]


def test_toggle_and_open_messages(w: World) -> None:
    assert do(w, "ToggleObjectOn", "StoveBurner_1") == (
        False, "target object is controlled by another sim object. target object cannot be turned on/off directly")
    assert do(w, "ToggleObjectOn", "Mug_1") == (False, "object is not toggleable.")
    assert do(w, "OpenObject", "Microwave_1")[0]
    assert do(w, "ToggleObjectOn", "Microwave_1") == (False, "Target must be closed to Toggle On!")
    assert do(w, "CloseObject", "Microwave_1")[0] and do(w, "ToggleObjectOn", "Microwave_1")[0]
    assert do(w, "ToggleObjectOn", "Microwave_1") == (False, "can't toggle object on if it's already on!")
    assert do(w, "OpenObject", "Microwave_1") == (False, "Target must be OFF to open!")
    assert do(w, "OpenObject", "Mug_1") == (False, f"{oid(w, 'Mug_1')} is not an Openable object")
    assert do(w, "OpenObject", "Fridge_1", openness=2.0) == (False, "openness must be in [0:1]")
    assert do(w, "BreakObject", "CellPhone_1")[0]
    assert do(w, "ToggleObjectOn", "CellPhone_1") == (False, "Target is broken and cannot be Toggled On!")


def test_pickup_drop_throw_messages(w: World) -> None:
    assert do(w, "PickupObject", "CounterTop_1") == (
        False, f"InvalidOperationException: {oid(w, 'CounterTop_1')} must have the property CanPickup to be picked up.")
    assert do(w, "DropHandObject") == (False, "InvalidOperationException: Nothing is in the agent's hand to drop!")
    assert do(w, "ThrowObject", moveMagnitude=10.0) == (False, "InvalidOperationException: Nothing in Hand to Throw!")
    hold(w, "Mug_1")
    assert do(w, "PickupObject", "Cup_1") == (
        False, "InvalidOperationException: Agent hand has something in it already! Can't pick up anything else")


# --------------------------------------------------------------------------- COAT extensions, labelled


def test_extension_situations_and_native_perturbations_are_reported(room: SceneData) -> None:
    env = EmbeddedEnv(room, frames=False)
    obs, info = env.reset(seed=0, options={"perturb": [
        {"type": "Knife", "condition": "dirty"}, {"type": "Mug", "condition": "dirty"},
        {"type": "Cup", "condition": "broken"}, {"type": "Potato", "condition": "broken"},
        {"type": "Egg", "condition": "missing"}, {"type": "Toaster", "condition": "faulty"},
        {"type": "Pan", "condition": "busy", "seconds": 5}, {"type": "Pot", "condition": "busy-for-good"},
        {"type": "Bowl", "condition": "breaks-on-pickup"}, {"type": "Plate", "condition": "taken-on-approach"},
    ]})
    kinds = {obs.object(k)["objectType"] if k in {o["objectId"] for o in obs.objects} else "Egg": v
             for k, v in info["perturbation_kinds"].items()}
    assert kinds == {"Knife": "extension", "Mug": "native", "Cup": "native", "Potato": "extension", "Egg": "native",
                     "Toaster": "extension", "Pan": "extension", "Pot": "extension", "Bowl": "extension",
                     "Plate": "extension"}
    assert obs.extra["perturbation_kinds"] == info["perturbation_kinds"]
    ext = {obs.object(k)["objectType"]: v for k, v in obs.extra["extensions"].items()}
    assert ext == {"Knife": ["dirty-not-dirtyable"], "Cup": ["broken-unusable"],
                   "Potato": ["broken-not-breakable", "broken-unusable"], "Toaster": ["faulty"], "Pan": ["busy-timer"],
                   "Pot": ["busy-for-good"], "Bowl": ["breaks-on-pickup"], "Plate": ["taken-on-approach"]}
    _, _, _, _, _ = env.step(Action(name="Wait", args={"seconds": 6}))
    obs, _, _, _, _ = env.step(Action(name="PickupObject", object_id=next(
        k for k in info["perturbation_kinds"] if k.startswith("Bowl")), args={"forceAction": True}))
    plate = next(k for k in info["perturbation_kinds"] if k.startswith("Plate"))
    obs, _, _, _, step_info = env.step(Action(name="PickupObject", object_id=plate, args={"forceAction": True}))
    assert not step_info["action_success"]  # reaching for it: someone takes it first
    ext = {obs.object(k)["objectType"]: v for k, v in obs.extra["extensions"].items()}
    assert "Pan" not in ext and ext["Bowl"] == ["broken-unusable", "broke-on-pickup"]
    assert ext["Plate"] == ["taken-by-someone"]


def test_a_native_episode_lists_no_extension(room: SceneData) -> None:
    env = EmbeddedEnv(room, frames=False)
    obs, info = env.reset(seed=0, options={"perturb": [{"type": "Mug", "condition": "dirty"}]})
    assert set(info["perturbation_kinds"].values()) == {"native"} and obs.extra["extensions"] == {}
