"""Schemas of the scene and trace files, and reading them with errors that name the file and the key path.

One pydantic pass per file, strict (``"heavy"`` is not a mass, ``"no"`` is not false, ``true`` is not a
number); the first error becomes a :class:`~planner.errors.DataError` like ``FloorPlan1_physics.json: at
objects/Apple|-00.47|+01.15|+00.48/mass: Input should be a valid number (got 'heavy')``. Only the AI2-THOR
metadata fields the simulator and perception read are checked (state flags, numbers, vectors and boxes, the
object type against AI2-THOR's table plus the extension types, the id lists), not every key of an event.

- :data:`ObjectMeta`: one object of ``event.metadata["objects"]`` (the 42 keys, in AI2-THOR's order); its
  validated value is a fresh dict of those keys with fresh lists, so a loaded scene never aliases the file's.
- :data:`EventMeta`: a trace's ``event_NN.json``; :data:`EventScene`, the part a scene is built from;
  :data:`ActionRecord`: one entry of a trace's ``actions.json``.
- :data:`CompactScene`: the hand-written compact scene format of :mod:`scenes.embedded.loader`.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, TypeAdapter, with_config
from typing_extensions import NotRequired, TypedDict

from planner.paths import read_json, validate

from .extensions import ALL_TYPES
from .metadata import FLAG_KEYS, LIQUIDS, TEMPERATURES

_STRICT = ConfigDict(strict=True, allow_inf_nan=False)
_FORBID = ConfigDict(strict=True, allow_inf_nan=False, extra="forbid")

MATERIALS: tuple[str, ...] = (
    "Ceramic", "Fabric", "Food", "Glass", "Leather", "Metal", "Organic", "Paper", "Plastic", "Rubber", "Soap",
    "Sponge", "Stone", "Wax", "Wood",
)  # fmt: skip
"""AI2-THOR's salient materials."""


def _known_type(t: str) -> str:
    if t not in ALL_TYPES:
        raise ValueError(f"unknown object type {t!r} (not an AI2-THOR type nor an extension type)")
    return t


def _as_list(v: Any) -> Any:
    return [v] if isinstance(v, str) else v


Num = float
Id = Annotated[str, Field(min_length=1)]
ObjectType = Annotated[str, AfterValidator(_known_type)]
Temperature = Literal[TEMPERATURES]  # type: ignore[valid-type]
Liquid = Literal[LIQUIDS]  # type: ignore[valid-type]
Material = Literal[MATERIALS]  # type: ignore[valid-type]
Point3 = Annotated[list[Num], Field(min_length=3, max_length=3)]


class Vec3(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    x: Num
    y: Num
    z: Num


class Box(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    cornerPoints: list[Point3]
    center: Vec3
    size: Vec3


class OrientedBox(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    cornerPoints: list[Point3]


class ObjectMeta(TypedDict):
    """The 42 keys of one AI2-THOR 5.0.0 object, in the real order (other keys are dropped)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    name: str
    position: Vec3
    rotation: Vec3
    visible: bool
    isInteractable: bool
    receptacle: bool
    toggleable: bool
    isToggled: bool
    breakable: bool
    isBroken: bool
    canFillWithLiquid: bool
    isFilledWithLiquid: bool
    fillLiquid: Liquid | None
    dirtyable: bool
    isDirty: bool
    canBeUsedUp: bool
    isUsedUp: bool
    cookable: bool
    isCooked: bool
    temperature: Temperature
    isHeatSource: bool
    isColdSource: bool
    sliceable: bool
    isSliced: bool
    openable: bool
    isOpen: bool
    openness: Annotated[Num, Field(ge=0.0, le=1.0)]
    pickupable: bool
    isPickedUp: bool
    moveable: bool
    mass: Annotated[Num, Field(ge=0.0)]
    salientMaterials: list[Material] | None
    receptacleObjectIds: list[Id] | None
    distance: Num
    objectType: ObjectType
    objectId: Id
    assetId: str
    parentReceptacles: list[Id] | None
    controlledObjects: list[Id] | None
    isMoving: bool
    axisAlignedBoundingBox: Box
    objectOrientedBoundingBox: OrientedBox | None


class AgentMeta(TypedDict, total=False):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    position: Vec3
    rotation: Vec3
    cameraHorizon: Num
    isStanding: bool | None


class InventoryItem(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    objectId: Id
    objectType: ObjectType


class EventScene(TypedDict):
    """The ``event.metadata`` keys a scene is built from (:func:`scenes.embedded.loader.scene_from_event`)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    objects: list[ObjectMeta]
    sceneName: NotRequired[str]
    agent: NotRequired[AgentMeta | None]
    cameraPosition: NotRequired[Vec3]
    inventoryObjects: NotRequired[list[InventoryItem] | None]
    sceneBounds: NotRequired[Box | None]


class EventMeta(EventScene):
    """A recorded ``event.metadata``: also the keys ``ai2thor.server.Event`` reads on construction."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    screenWidth: Annotated[int, Field(gt=0)]
    screenHeight: Annotated[int, Field(gt=0)]
    lastActionSuccess: bool
    lastAction: NotRequired[str]
    errorMessage: NotRequired[str]


class ActionRecord(TypedDict):
    """One ``controller.step`` kwargs dict of a trace's ``actions.json`` (other keys are the action's arguments)."""

    __pydantic_config__ = ConfigDict(strict=True, allow_inf_nan=False, extra="allow")
    action: Id
    objectId: NotRequired[Id]


class CompactState(TypedDict, total=False):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    isOpen: bool
    isToggled: bool
    isDirty: bool
    isBroken: bool
    isSliced: bool
    isCooked: bool
    isUsedUp: bool
    isFilledWithLiquid: bool
    fillLiquid: Liquid | None
    temperature: Temperature


_Size = Annotated[list[Annotated[Num, Field(gt=0.0)]], Field(min_length=3, max_length=3)]
# the functional form, because one key ("in") is a Python keyword
CompactObject = with_config(_FORBID)(
    TypedDict(
        "CompactObject",
        {
            "type": ObjectType,
            "center": Point3,
            "name": NotRequired[Id],
            "size": NotRequired[_Size],
            "yaw": NotRequired[Num],
            "mass": NotRequired[Annotated[Num, Field(ge=0.0)]],
            "materials": NotRequired[list[Material] | None],
            "assetId": NotRequired[str],
            "state": NotRequired[CompactState],
            "flags": NotRequired[dict[Literal[FLAG_KEYS], bool]],  # type: ignore[valid-type]
            "in": NotRequired[Annotated[list[Id], BeforeValidator(_as_list)]],
            "part_of": NotRequired[Id],
            "controls": NotRequired[list[Id]],
        },
    )
)


class CompactAgent(TypedDict, total=False):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    position: Annotated[list[Num], Field(min_length=2, max_length=3)]
    rotation: Num
    horizon: Num


class CompactScene(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    objects: Annotated[list[CompactObject], Field(min_length=1)]
    sceneName: NotRequired[str]
    agent: NotRequired[CompactAgent | None]


@functools.cache
def adapter(tp: Any) -> TypeAdapter[Any]:
    """The (cached) pydantic adapter of a schema."""
    return TypeAdapter(tp)


__all__ = [
    "ActionRecord",
    "MATERIALS",
    "CompactScene",
    "EventMeta",
    "EventScene",
    "ObjectMeta",
    "adapter",
    "read_json",
    "validate",
]
