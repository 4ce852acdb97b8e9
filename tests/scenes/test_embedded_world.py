"""World.step's contract: bad arguments are failed actions, a bug inside a handler raises."""

from __future__ import annotations

from typing import Any

import pytest

from scenes.embedded import World, load_scene
from scenes.embedded.world import UseClaim

MUG = "Mug|+01.05|+00.92|-02.10"
FRIDGE = "Fridge|+02.15|+00.00|-00.80"


@pytest.fixture
def world() -> World:
    return World(load_scene("kitchen"))


@pytest.mark.parametrize(
    ("action", "code", "message"),
    [
        ({"action": "Fly"}, "InvalidAction", "is not an action of the embedded simulator"),
        ({"action": ""}, "InvalidAction", "non-empty string"),
        ({"action": "PickupObject"}, "MissingArguments", "PickupObject is missing the following arguments: objectId"),
        ({"action": "PickupObject", "objectId": "Ghost|+0|+0|+0"}, None, "is not the objectId on any object"),
        ({"action": "PickupObject", "objectId": ["not", "a", "string"]}, None, "is not the objectId on any object"),
        ({"action": "UseObject", "objectId": 7, "seconds": 5}, None, "Object ID appears to be invalid"),
        ({"action": "Teleport", "position": {"x": "left", "z": 0.0}}, "InvalidArgument", "position.x must be a number"),
        ({"action": "Teleport", "position": {"y": 0.9}}, "InvalidArgument", "position must be {x, y, z}"),
        ({"action": "Teleport", "position": [0.0, 0.9, None]}, "InvalidArgument", "position[2] must be a number"),
        ({"action": "Teleport", "rotation": {"x": 0.0}}, "InvalidArgument", "rotation must be {x, y, z}"),
        ({"action": "Teleport", "rotation": [90]}, "InvalidArgument", "rotation must be a number"),
        ({"action": "Teleport", "horizon": "up"}, "InvalidArgument", "horizon must be a number"),
        ({"action": "MoveAhead", "moveMagnitude": float("nan")}, "InvalidArgument", "moveMagnitude must be > 0"),
        ({"action": "MoveAhead", "moveMagnitude": "far"}, "InvalidArgument", "moveMagnitude must be > 0"),
        ({"action": "RotateLeft", "degrees": None}, "InvalidArgument", "degrees must be a number"),
        (
            {"action": "OpenObject", "objectId": FRIDGE, "openness": "wide", "forceAction": True},
            "InvalidArgument",
            "invalid argument: openness (=='wide'). Cannot convert to: float",
        ),
        ({"action": "Wait", "seconds": "long"}, "InvalidArgument", "Wait needs seconds >= 0"),
        ({"action": "Initialize", "gridSize": "fine"}, "InvalidArgument", "gridSize must be a number > 0"),
        (
            {"action": "FillObjectWithLiquid", "objectId": MUG, "fillLiquid": ["water"], "forceAction": True},
            "InvalidArgument",
            "invalid argument: fillLiquid",
        ),
        ({"action": "SetRoomTempDecayTimeForType", "objectType": 3}, "MissingArguments", "needs an objectType"),
    ],
)
def test_invalid_arguments_are_failed_actions(world: World, action: dict[str, Any], code: Any, message: str) -> None:
    ok, err, ret, got_code = world.step(action)
    assert ok is False and ret is None
    assert message in err, err
    assert got_code == code


def test_thrown_object_with_a_non_numeric_force_is_a_failed_action(world: World) -> None:
    assert world.step({"action": "PickupObject", "objectId": MUG, "forceAction": True})[0]
    ok, err, _, code = world.step({"action": "ThrowObject", "moveMagnitude": "hard"})
    assert not ok and code == "InvalidArgument" and "moveMagnitude must be a number, got 'hard'" in err
    assert world.held == MUG, "a failed throw leaves the object in the hand"


def test_a_bug_inside_a_handler_raises(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: World, p: dict[str, Any]) -> None:
        raise KeyError("isPickedUp")

    monkeypatch.setattr(World, "_a_PickupObject", broken)
    with pytest.raises(KeyError, match="isPickedUp"):
        world.step({"action": "PickupObject", "objectId": MUG, "forceAction": True})


@pytest.mark.parametrize("exc", [TypeError, ValueError, AttributeError])
def test_other_errors_inside_a_handler_raise_too(
    world: World, monkeypatch: pytest.MonkeyPatch, exc: type[Exception]
) -> None:
    def broken(self: World, p: dict[str, Any]) -> None:
        raise exc("simulator bug")

    monkeypatch.setattr(World, "_a_OpenObject", broken)
    with pytest.raises(exc, match="simulator bug"):
        world.step({"action": "OpenObject", "objectId": MUG, "forceAction": True})


def test_a_bug_in_a_shared_helper_raises_through_the_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from scenes.base import Action
    from scenes.embedded import EmbeddedEnv

    env = EmbeddedEnv("kitchen", frames=False)
    env.reset(seed=0)
    monkeypatch.setattr(World, "_detach", lambda self, oid: {}["missing"])
    with pytest.raises(KeyError):
        env.step(Action(name="PickupObject", object_id=MUG, args={"forceAction": True}))


def test_use_claims_record_who_and_until_when(world: World) -> None:
    world.set_in_use(MUG, 30.0, by="a guest")
    claim = world.in_use[MUG]
    assert isinstance(claim, UseClaim) and claim.by == "a guest" and not claim.irreversible
    world.set_in_use(MUG, None)
    assert world.in_use[MUG].irreversible
