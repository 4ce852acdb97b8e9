"""The task steps closed-loop execution needs, carried out in the embedded scenes (AI2-THOR action names).

Each test walks (teleports) the agent to face the object it acts on and sends the action without
``forceAction``, so visibility, reach, receptacle restrictions and the held-knife rule are all in play.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from scenes.base import Action, SceneObs
from scenes.embedded import EmbeddedEnv


class Driver:
    """Steps an embedded env, asserting every action succeeds, and keeps the last observation."""

    def __init__(self, scene: str, **kwargs: Any) -> None:
        self.env = EmbeddedEnv(scene, frames=False, **kwargs)
        self.obs, _ = self.env.reset(seed=0)

    def id(self, object_type: str) -> str:
        return next(o["objectId"] for o in self.obs.objects if o["objectType"] == object_type)

    def ids(self, object_type: str) -> list[str]:
        return [o["objectId"] for o in self.obs.objects if o["objectType"] == object_type]

    def __getitem__(self, oid: str) -> dict[str, Any]:
        return self.obs.object(oid)

    def do(self, name: str, object_id: str | None = None, *, ok: bool = True, **args: Any) -> dict[str, Any]:
        self.obs, _, _, _, info = self.env.step(Action(name=name, object_id=object_id, args=args))
        assert info["action_success"] is ok, (name, object_id, info["error"])
        return info

    def face(self, oid: str) -> None:
        """Teleport to the reachable position nearest ``oid``, turned towards it and looking down at it."""
        c = self[oid]["axisAlignedBoundingBox"]["center"]
        spots = self.do("GetReachablePositions")["actionReturn"]
        p = min(spots, key=lambda s: (s["x"] - c["x"]) ** 2 + (s["z"] - c["z"]) ** 2)
        yaw = math.degrees(math.atan2(c["x"] - p["x"], c["z"] - p["z"]))
        eye = self.env.world.camera[1] if self.env.world else 1.576
        down = math.degrees(math.atan2(eye - c["y"], math.hypot(c["x"] - p["x"], c["z"] - p["z"])))
        horizon = min(max(round(down / 30.0) * 30.0, 0.0), 60.0)
        self.do("Teleport", position=p, rotation={"x": 0.0, "y": yaw, "z": 0.0}, horizon=horizon)

    def at(self, name: str, oid: str, **args: Any) -> dict[str, Any]:
        self.face(oid)
        return self.do(name, oid, **args)


def pieces(obs: SceneObs, oid: str) -> list[dict[str, Any]]:
    return [o for o in obs.objects if o["objectId"].startswith(oid + "|")]


@pytest.fixture
def kitchen() -> Driver:
    return Driver("kitchen", slice_requires_knife=True)


def test_slicing_needs_a_held_knife_and_cuts_apple_bread_cake_and_cracks_egg(kitchen: Driver) -> None:
    k = kitchen
    apple = k.id("Apple")
    k.face(apple)
    assert "holding a knife" in k.do("SliceObject", apple, ok=False)["error"]
    k.at("PickupObject", k.id("Knife"))
    for t in ("Apple", "Bread", "Cake"):
        oid = k.id(t)
        k.at("SliceObject", oid)
        got = pieces(k.obs, oid)
        assert got and {o["objectType"] for o in got} == {f"{t}Sliced"}
        whole = k.obs.object(oid)  # AI2-THOR keeps the whole object, sliced and deactivated
        assert whole["isSliced"] and not whole["visible"] and not whole["isInteractable"]
    k.at("OpenObject", k.id("Fridge"))
    egg = k.id("Egg")
    k.at("SliceObject", egg)
    assert [o["objectType"] for o in pieces(k.obs, egg)] == ["EggCracked"]


def test_a_bread_slice_in_a_running_toaster_gets_toasted_and_hot(kitchen: Driver) -> None:
    k = kitchen
    k.at("PickupObject", k.id("Knife"))
    bread = k.id("Bread")
    k.at("SliceObject", bread)
    k.do("PutObject", k.id("CounterTop"), forceAction=True)
    piece = pieces(k.obs, bread)[0]["objectId"]
    k.at("PickupObject", piece)
    toaster = k.id("Toaster")
    k.at("PutObject", toaster)
    k.do("ToggleObjectOn", toaster)
    assert k[piece]["isCooked"] and k[piece]["temperature"] == "Hot"
    assert k[piece]["parentReceptacles"] == [toaster]


def test_a_mug_of_water_heated_in_the_microwave_is_hot() -> None:
    k = Driver("kitchen")
    mug, mw = k.id("Mug"), k.id("Microwave")
    k.at("PickupObject", mug)
    k.do("FillObjectWithLiquid", mug, fillLiquid="water")
    k.at("OpenObject", mw)
    k.do("PutObject", mw)
    k.do("CloseObject", mw)
    k.do("ToggleObjectOn", mw)
    k.do("Wait", seconds=30)
    m = k[mug]
    assert m["temperature"] == "Hot" and m["isFilledWithLiquid"] and m["fillLiquid"] == "water"
    k.do("ToggleObjectOff", mw)
    assert k[mw]["isToggled"] is False


def test_a_pot_of_water_on_a_lit_burner_gets_hot() -> None:
    k = Driver("kitchen")
    pot = k.id("Pot")
    k.at("PickupObject", pot)
    k.do("FillObjectWithLiquid", pot, fillLiquid="water")
    free = [b for b in k.ids("StoveBurner") if not any(
        k[c]["objectType"] in ("Pan", "Kettle") for c in k[b]["receptacleObjectIds"])]
    burner = free[0]
    k.at("PutObject", burner)
    knob = next(o["objectId"] for o in k.obs.objects if burner in (o["controlledObjects"] or []))
    k.at("ToggleObjectOn", knob)
    k.do("Wait", seconds=5)
    assert k[burner]["isToggled"] and k[pot]["temperature"] == "Hot" and k[pot]["fillLiquid"] == "water"


def test_an_apple_in_the_closed_fridge_is_cold_after_waiting() -> None:
    k = Driver("kitchen")
    apple, fridge = k.id("Apple"), k.id("Fridge")
    k.at("PickupObject", apple)
    k.at("OpenObject", fridge)
    k.do("PutObject", fridge)
    k.do("CloseObject", fridge)
    k.do("Wait", seconds=30)
    assert k[apple]["temperature"] == "Cold" and k[apple]["parentReceptacles"] == [fridge]


def test_a_dirty_plate_under_the_running_faucet_gets_clean() -> None:
    k = Driver("kitchen")
    plate = k.id("Plate")
    k.do("DirtyObject", plate, forceAction=True)
    k.at("PickupObject", plate)
    k.at("PutObject", k.id("SinkBasin"))
    assert k[plate]["isDirty"]
    k.at("ToggleObjectOn", k.id("Faucet"))
    assert not k[plate]["isDirty"]


@pytest.mark.parametrize(("scene", "lamp"), [("bedroom", "DeskLamp"), ("living-room", "FloorLamp"),
                                             ("living-room", "DeskLamp")])
def test_lamps_switch_off_and_on(scene: str, lamp: str) -> None:
    k = Driver(scene)
    oid = k.id(lamp)
    k.at("ToggleObjectOff", oid)
    assert k[oid]["isToggled"] is False
    k.do("ToggleObjectOn", oid)
    assert k[oid]["isToggled"] is True
