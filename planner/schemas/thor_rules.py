"""AI2-THOR's own rule tables and error messages, transcribed from its Unity C# sources.

Every table here is copied from ``allenai/ai2thor`` ``unity/Assets/Scripts/`` (the public repository's Unity
sources; the AI2-THOR 5.0.0 release commit itself was not retrievable, so these are the stored main-branch files,
whose error strings match those AI2-THOR 5.0.0 users report). Where a value lives in a Unity prefab rather than in
C#, the table says so and gives the evidence it was read from instead. ``docs/conformance.md`` lists each rule
with its source method and the test that proves it.

- :data:`PLACEMENT_RESTRICTIONS`: ``SimObjType.cs`` ``ReceptacleRestrictions.PlacementRestrictions``. Read by
  ``PhysicsRemoteFPSAgentController.placeHeldObject``: without ``forceAction`` a held type *with* a row may only go
  into the receptacle types of its row ("<name> cannot be placed in <name>"); the loop only looks for the held
  type's row, so a type *without* a row (ScrubBrush, Footstool...) may go into any receptacle.
- :data:`MUST_BE_OPEN_TO_PLACE_OBJECTS_IN`: ``ReceptacleRestrictions.MustBeOpenToPlaceObjectsIn`` (checked
  whether or not ``forceAction`` is given).
- :data:`OBJECT_SPECIFIC_RECEPTACLES`: receptacles with an ``ObjectSpecificReceptacle`` component
  (``ObjectSpecificReceptacle.cs``); ``placeHeldObject`` snaps an accepted type to the attach point and refuses
  every other type, with or without ``forceAction``. Which types each one accepts is a prefab field
  (``SpecificTypes``); the table is read from the 120 real 5.0.0 scene dumps (what these receptacles hold) and
  agrees with the restriction rows that name them.
- :data:`MUST_BE_CLOSED_TO_TURN_ON` (``CanToggleOnOff.MustBeClosedToTurnOn``), :data:`MUST_BE_OFF_TO_OPEN`
  (``CanOpen_Object.MustBeOffToOpen``).
- :data:`HEAT_ZONE_TOASTS_BREAD`: ``HeatZone.CanToastBread`` (default true; "make sure that Microwaves don't
  switch bread slices into their toasted version").
- :data:`SEE_THROUGH`: types whose glass AI2-THOR marks ``CanSeeThrough`` (a prefab property; the C# visibility
  check in ``BaseFPSAgentController.CheckIfVisibilityPointInViewport`` lets the camera see through them but
  leaves what it sees behind them non-interactable).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TABLES = ("DiningTable", "TVStand", "CoffeeTable", "SideTable")


def _row(*types: str) -> frozenset[str]:
    return frozenset(types)


PLACEMENT_RESTRICTIONS: dict[str, frozenset[str]] = {
    "AlarmClock": _row("Box", "Dresser", "Desk", "SideTable", "DiningTable", "TVStand", "CoffeeTable", "CounterTop",
                       "Shelf", "Chair", "Stool"),
    "Apple": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "Desk",
                  "CounterTop", "GarbageCan", "Dresser"),
    "AppleSliced": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "Desk",
                        "CounterTop", "GarbageCan", "Dresser"),
    "BaseballBat": _row("Bed", *_TABLES, "Desk", "CounterTop", "Floor"),
    "BasketBall": _row("Sofa", "ArmChair", "Dresser", "Desk", "Bed", *_TABLES, "CounterTop", "Stool", "Chair",
                       "Floor"),
    "Book": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "Desk", "Bed", "Cabinet", *_TABLES, "CounterTop",
                 "Shelf", "Drawer", "Stool", "Chair", "Floor"),
    "Boots": _row("Floor"),
    "Bottle": _row("Fridge", "Box", "Dresser", "Desk", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop",
                   "Shelf", "GarbageCan"),
    "Bowl": _row("Microwave", "Fridge", "Dresser", "Desk", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop",
                 "Shelf"),
    "Box": _row("Sofa", "ArmChair", "Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Ottoman", "Stool",
                "Chair", "Floor"),
    "Bread": _row("Microwave", "Fridge", *_TABLES, "Desk", "CounterTop", "GarbageCan", "Plate"),
    "BreadSliced": _row("Microwave", "Fridge", *_TABLES, "Desk", "CounterTop", "GarbageCan", "Toaster", "Plate"),
    "ButterKnife": _row("Pot", "Pan", "Bowl", "Mug", "Plate", "Cup", "Sink", "SinkBasin", *_TABLES, "Desk",
                        "CounterTop", "Drawer"),
    "Candle": _row("Box", "Dresser", "Desk", "Toilet", "Cart", "Bathtub", "Cabinet", *_TABLES, "CounterTop", "Shelf",
                   "Drawer", "Stool", "Chair"),
    "CD": _row("Box", "Ottoman", "Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer",
               "GarbageCan", "Safe", "Sofa", "ArmChair", "Stool", "Chair", "Footstool"),
    "CellPhone": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "Desk", "Bed", *_TABLES, "CounterTop", "Shelf",
                      "Drawer", "Safe", "Stool", "Chair", "Footstool"),
    "Cloth": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "LaundryHamper", "Desk", "Toilet", "Cart",
                  "BathtubBasin", "Bathtub", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer",
                  "GarbageCan", "Stool", "Chair", "Footstool", "Floor"),
    "CreditCard": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf",
                       "Drawer", "Stool", "Chair", "Footstool"),
    "Cup": _row("Microwave", "Fridge", "Dresser", "Desk", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop",
                "Shelf"),
    "DishSponge": _row("Pot", "Pan", "Bowl", "Plate", "Box", "Toilet", "Cart", "BathtubBasin", "Bathtub", "Sink",
                       "SinkBasin", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer", "GarbageCan"),
    "Egg": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop",
                "GarbageCan"),
    "EggCracked": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES,
                       "CounterTop", "GarbageCan"),
    "Fork": _row("Pot", "Pan", "Bowl", "Mug", "Plate", "Cup", "Sink", "SinkBasin", *_TABLES, "CounterTop", "Drawer"),
    "HandTowel": _row("HandTowelHolder"),
    "Kettle": _row(*_TABLES, "CounterTop", "Sink", "SinkBasin", "Cabinet", "StoveBurner", "Shelf"),
    "KeyChain": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf",
                     "Drawer", "Safe", "Stool", "Chair"),
    "Knife": _row("Pot", "Pan", "Bowl", "Mug", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop", "Drawer"),
    "Ladle": _row("Pot", "Pan", "Bowl", "Plate", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop", "Drawer"),
    "Laptop": _row("Sofa", "ArmChair", "Ottoman", "Dresser", "Desk", "Bed", *_TABLES, "CounterTop", "Stool", "Chair",
                   "Footstool"),
    "Lettuce": _row("Pot", "Pan", "Bowl", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop",
                    "GarbageCan"),
    "LettuceSliced": _row("Pot", "Pan", "Bowl", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop",
                          "GarbageCan"),
    "Mug": _row("CoffeeMachine", "Microwave", "Fridge", "Plate", "Box", "Dresser", "Desk", "Cart", "Sink", "SinkBasin",
                "Cabinet", *_TABLES, "CounterTop", "Shelf"),
    "Newspaper": _row("Sofa", "ArmChair", "Ottoman", "Dresser", "Desk", "Bed", "Toilet", "Cabinet", *_TABLES,
                      "CounterTop", "Shelf", "Drawer", "GarbageCan", "Stool", "Chair", "Footstool", "Floor"),
    "Pan": _row("DiningTable", "CounterTop", "TVStand", "CoffeeTable", "SideTable", "Sink", "SinkBasin", "Cabinet",
                "StoveBurner", "Fridge"),
    "PaperTowelRoll": _row("Box", "Toilet", "Cart", "Bathtub", *_TABLES, "CounterTop", "Shelf", "GarbageCan"),
    "Pen": _row("Mug", "Box", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf", "Drawer", "GarbageCan", "Stool",
                "Chair", "Footstool"),
    "Pencil": _row("Mug", "Box", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf", "Drawer", "GarbageCan", "Stool",
                   "Chair", "Footstool"),
    "PepperShaker": _row(*_TABLES, "CounterTop", "Drawer", "Cabinet", "Shelf"),
    "Pillow": _row("Sofa", "ArmChair", "Ottoman", "Bed", "Stool", "Chair"),
    "Plate": _row("Microwave", "Fridge", "Dresser", "Desk", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop",
                  "Shelf"),
    "Plunger": _row("Cart", "Cabinet", "Floor"),
    "Pot": _row("StoveBurner", "Fridge", "Sink", "SinkBasin", "Cabinet", *_TABLES, "CounterTop", "Shelf"),
    "Potato": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop",
                   "GarbageCan"),
    "PotatoSliced": _row("Pot", "Pan", "Bowl", "Microwave", "Fridge", "Plate", "Sink", "SinkBasin", *_TABLES,
                         "CounterTop", "GarbageCan"),
    "RemoteControl": _row("Sofa", "ArmChair", "Box", "Ottoman", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf",
                          "Drawer", "Stool", "Chair", "Footstool"),
    "SaltShaker": _row(*_TABLES, "CounterTop", "Drawer", "Cabinet", "Shelf"),
    "SoapBar": _row("Toilet", "Cart", "Bathtub", "BathtubBasin", "Sink", "SinkBasin", "Cabinet", *_TABLES,
                    "CounterTop", "Shelf", "Drawer", "GarbageCan"),
    "SoapBottle": _row("Dresser", "Desk", "Toilet", "Cart", "Bathtub", "Sink", "Cabinet", *_TABLES, "CounterTop",
                       "Shelf", "Drawer", "GarbageCan"),
    "Spatula": _row("Pot", "Pan", "Bowl", "Plate", "Sink", "SinkBasin", *_TABLES, "CounterTop", "Drawer"),
    "Spoon": _row("Pot", "Pan", "Bowl", "Mug", "Plate", "Cup", "Sink", "SinkBasin", *_TABLES, "CounterTop", "Drawer"),
    "SprayBottle": _row("Dresser", "Desk", "Toilet", "Cart", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer",
                        "GarbageCan"),
    "Statue": _row("Box", "Dresser", "Desk", "Cart", *_TABLES, "CounterTop", "Shelf", "Safe"),
    "TeddyBear": _row("Bed", "Sofa", "ArmChair", "Ottoman", "Dresser", "Desk", *_TABLES, "CounterTop", "Safe", "Stool",
                      "Chair"),
    "TennisRacket": _row("Dresser", "Desk", "Bed", *_TABLES, "CounterTop", "Stool", "Chair", "Floor"),
    "TissueBox": _row("Box", "Dresser", "Desk", "Toilet", "Cart", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer",
                      "GarbageCan", "Stool", "Chair", "Footstool"),
    "ToiletPaper": _row("Dresser", "Desk", "Toilet", "ToiletPaperHanger", "Cart", "Bathtub", "Cabinet", *_TABLES,
                        "CounterTop", "Shelf", "Drawer", "GarbageCan", "Stool", "Chair"),
    "ToiletPaperRoll": _row("Dresser", "Desk", "Toilet", "ToiletPaperHanger", "Cart", "Bathtub", "Cabinet", *_TABLES,
                            "CounterTop", "Shelf", "Drawer", "GarbageCan", "Stool"),
    "Tomato": _row(*_TABLES, "CounterTop", "Sink", "SinkBasin", "Pot", "Bowl", "Fridge", "GarbageCan", "Plate"),
    "TomatoSliced": _row(*_TABLES, "CounterTop", "Sink", "SinkBasin", "Pot", "Bowl", "Fridge", "GarbageCan", "Plate"),
    "Towel": _row("TowelHolder"),
    "Vase": _row("Box", "Dresser", "Desk", "Cart", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Safe"),
    "Watch": _row("Box", "Dresser", "Desk", *_TABLES, "CounterTop", "Shelf", "Drawer", "Safe", "Stool", "Chair",
                  "Footstool"),
    "WateringCan": _row("Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Drawer", "Stool", "Chair",
                        "Floor"),
    "WineBottle": _row("Fridge", "Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf", "GarbageCan"),
    "Dumbbell": _row("Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf", "Bed", "Chair", "ArmChair", "Sofa",
                     "Stool", "Footstool", "Floor"),
    "AluminumFoil": _row("Dresser", "Drawer", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf"),
    "TableTopDecor": _row("Dresser", "Desk", "Cabinet", *_TABLES, "CounterTop", "Shelf"),
    "TargetCircle": _row("Dresser", "Desk", *_TABLES, "CounterTop", "Shelf", "Floor"),
}  # fmt: skip
"""``ReceptacleRestrictions.PlacementRestrictions``: held type -> the receptacle types it may go into without
``forceAction``. A type that is not a key has no restriction (the C# loop finds no row)."""

MUST_BE_OPEN_TO_PLACE_OBJECTS_IN: frozenset[str] = frozenset(
    {"Drawer", "Cabinet", "LaundryHamper", "Microwave", "Fridge", "Box"}
)
"""``ReceptacleRestrictions.MustBeOpenToPlaceObjectsIn`` (only for receptacles that can open)."""

IN_RECEPTACLES: frozenset[str] = frozenset({"Drawer", "Cabinet", "Fridge", "Microwave", "LaundryHamper", "Box"})
"""``ReceptacleRestrictions.InReceptacles``: the whole held object must fit inside."""

ALWAYS_PLACE_UPRIGHT: frozenset[str] = frozenset({
    "Pot", "Pan", "Bowl", "Plate", "Bread", "Cup", "Mug", "Laptop", "SaltShaker", "PepperShaker", "AlarmClock", "Box",
    "SoapBottle", "Kettle", "Bottle", "CreditCard", "RemoteControl", "Candle", "SprayBottle", "Statue", "Vase",
    "KeyChain", "CD", "Book", "EggCracked", "Dumbbell", "TableTopDecor",
})  # fmt: skip
"""``ReceptacleRestrictions.AlwaysPlaceUpright``: placed without tipping over (the room check below uses it)."""

OBJECT_SPECIFIC_RECEPTACLES: dict[str, frozenset[str]] = {
    "CoffeeMachine": frozenset({"Mug"}),
    "StoveBurner": frozenset({"Pot", "Pan", "Kettle"}),
    "Toaster": frozenset({"BreadSliced"}),
    "ToiletPaperHanger": frozenset({"ToiletPaper"}),
    "TowelHolder": frozenset({"Towel"}),
    "HandTowelHolder": frozenset({"HandTowel"}),
}
"""Receptacles with an ``ObjectSpecificReceptacle`` component and the types their prefab accepts (one at a time).

Evidence (prefab values are not in C#): the 120 real scene dumps (CoffeeMachine holds Mugs only, StoveBurner Pots,
Pans and Kettles, the holders their towel or paper), each accepted type's own restriction row names the receptacle,
``coffeemachine.cs`` serves the object at the attach point, and AI2-THOR reports a toaster with a slice in it as
"full right now"."""

FULL = "is full right now"
"""The end of AI2-THOR's ``PutObject`` error for an object-specific receptacle that already holds an object (a
burner with a pan on it, a toaster with a slice in it): the receptacle is taken, not the wrong kind."""

FILLS_ONLY_EMPTY: frozenset[str] = frozenset({"CoffeeMachine"})
"""Devices that heat only by filling: ``coffeemachine.cs`` ``Serve`` fills the mug at its attach point with
(hot) coffee only ``if (!f.IsFilled())``, so a mug of cold coffee in a running coffee machine stays cold."""

MUST_BE_CLOSED_TO_TURN_ON: frozenset[str] = frozenset({"Microwave"})
"""``CanToggleOnOff.MustBeClosedToTurnOn``."""

MUST_BE_OFF_TO_OPEN: frozenset[str] = frozenset({"Microwave"})
"""``CanOpen_Object.MustBeOffToOpen``."""

HEAT_ZONE_TOASTS_BREAD: dict[str, bool] = {"Microwave": False, "StoveBurner": True, "Toaster": True}
"""Heat sources with a ``HeatZone`` while on, and its ``CanToastBread`` (false only for the Microwave)."""

COOKABLE: frozenset[str] = frozenset({"Potato", "PotatoSliced", "BreadSliced", "EggCracked"})
"""Types with AI2-THOR's ``CookObject`` component (the object-type table's ``cookable`` column): bread and eggs
cook only as pieces (a toasted slice, a cracked egg)."""


def piece_type(object_type: str) -> str:
    """The type of the pieces SliceObject makes of ``object_type`` (``EggCracked`` for an Egg, else ``<T>Sliced``);
    a piece's own type is returned as it is."""
    if object_type.endswith(("Sliced", "Cracked")):
        return object_type
    return "EggCracked" if object_type == "Egg" else f"{object_type}Sliced"


def held_liquid(obj: Mapping[str, Any]) -> str | None:
    """The liquid a filled object holds (lower case), or None when it is empty. A WineBottle starts filled in the
    recorded iTHOR kitchens with ``fillLiquid`` unreported (None); a wine bottle holds wine."""
    if not obj.get("isFilledWithLiquid"):
        return None
    liquid = obj.get("fillLiquid") or ("wine" if obj.get("objectType") == "WineBottle" else None)
    return str(liquid).lower() if liquid else None


SEE_THROUGH: frozenset[str] = frozenset({"ShowerGlass", "ShowerDoor"})
"""Glass AI2-THOR sees through (``SimObjSecondaryProperty.CanSeeThrough``, a prefab property): what lies behind it
is visible but not interactable."""

# --------------------------------------------------------------------------- error messages


def exception(kind: str, message: str) -> str:
    """The errorMessage of an action that threw ``kind`` (``BaseFPSAgentController.ProcessControlCommand``).

    AI2-THOR reports ``"<ExceptionType>: <message>. trace: <C# stack trace>"``; the embedded simulator has no C#
    stack, so its message ends before ``. trace:`` (the same text up to there).
    """
    return f"{kind}: {message}"


NOT_VISIBLE = exception("NullReferenceException", "Target object not found within the specified visibility.")
"""``getInteractableSimObjectFromId``: the target is not visible (and no ``forceAction``)."""

BEHIND_GLASS = exception(
    "NullReferenceException",
    "Target object is visible but not interactable. It is likely obstructed by some clear object like glass.",
)
"""``getInteractableSimObjectFromId``: visible only through see-through glass (and no ``forceAction``)."""


def unknown_object(oid: str) -> str:
    """``getInteractableSimObjectFromId``: no object has this id."""
    return exception("ArgumentException", f"objectId: {oid} is not the objectId on any object in the scene!")


def unknown_type(object_type: str) -> str:
    """An object type AI2-THOR does not have (``Enum.Parse(typeof(SimObjType), ...)`` in e.g.
    ``SetObjectStates``): the rule that needs the type cannot be decided, so the action fails."""
    return exception("ArgumentException", f"Requested value '{object_type}' was not found.")


__all__ = [
    "ALWAYS_PLACE_UPRIGHT", "BEHIND_GLASS", "COOKABLE", "FILLS_ONLY_EMPTY", "FULL", "HEAT_ZONE_TOASTS_BREAD",
    "IN_RECEPTACLES",
    "MUST_BE_CLOSED_TO_TURN_ON", "MUST_BE_OFF_TO_OPEN", "MUST_BE_OPEN_TO_PLACE_OBJECTS_IN", "NOT_VISIBLE",
    "OBJECT_SPECIFIC_RECEPTACLES", "PLACEMENT_RESTRICTIONS", "SEE_THROUGH", "exception", "held_liquid", "piece_type",
    "unknown_object", "unknown_type",
]  # fmt: skip
