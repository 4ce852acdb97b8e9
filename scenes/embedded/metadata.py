"""The AI2-THOR 5.0.0 metadata schema the embedded simulator emits (key sets, ids, boxes).

Key lists and their order are those of a real 5.0.0 event (the data directory's
``ai2thor/traces/*/event_00.json``; its ``notes/ai2thor.md`` sections 1 and 1b).
"""

from __future__ import annotations

from typing import Any

OBJECT_KEYS: tuple[str, ...] = (
    "name", "position", "rotation", "visible", "isInteractable", "receptacle", "toggleable", "isToggled",
    "breakable", "isBroken", "canFillWithLiquid", "isFilledWithLiquid", "fillLiquid", "dirtyable", "isDirty",
    "canBeUsedUp", "isUsedUp", "cookable", "isCooked", "temperature", "isHeatSource", "isColdSource",
    "sliceable", "isSliced", "openable", "isOpen", "openness", "pickupable", "isPickedUp", "moveable", "mass",
    "salientMaterials", "receptacleObjectIds", "distance", "objectType", "objectId", "assetId",
    "parentReceptacles", "controlledObjects", "isMoving", "axisAlignedBoundingBox", "objectOrientedBoundingBox",
)  # fmt: skip
"""The 42 keys of one object in ``event.metadata["objects"]`` (AI2-THOR 5.0.0), in the real order."""

TOP_LEVEL_KEYS: tuple[str, ...] = (
    "objects", "isSceneAtRest", "agent", "heldObjectPose", "arm", "fov", "cameraPosition", "cameraOrthSize",
    "thirdPartyCameras", "collided", "collidedObjects", "inventoryObjects", "sceneName", "lastAction",
    "errorMessage", "errorCode", "lastActionSuccess", "screenWidth", "screenHeight", "agentId", "depthFormat",
    "colors", "flatSurfacesOnGrid", "distances", "normals", "isOpenableGrid", "segmentedObjectIds",
    "objectIdsInBox", "actionIntReturn", "actionFloatReturn", "actionStringsReturn", "actionFloatsReturn",
    "actionVector3sReturn", "visibleRange", "currentTime", "sceneBounds", "actionReturn",
)  # fmt: skip
"""The top-level keys of ``event.metadata`` (AI2-THOR 5.0.0 single agent), in the real order."""

FLAG_KEYS: tuple[str, ...] = (
    "pickupable", "moveable", "receptacle", "openable", "toggleable", "breakable", "dirtyable",
    "canFillWithLiquid", "sliceable", "cookable", "canBeUsedUp", "isHeatSource", "isColdSource",
)  # fmt: skip
"""Capability flags (static per object)."""

STATE_KEYS: tuple[str, ...] = (
    "isOpen", "openness", "isToggled", "isDirty", "isBroken", "temperature", "isPickedUp", "parentReceptacles",
    "receptacleObjectIds", "isFilledWithLiquid", "fillLiquid", "isSliced", "isCooked", "isUsedUp",
)  # fmt: skip
"""State keys a scene file may set and the simulator changes."""

COMPARED_KEYS: tuple[str, ...] = (
    "isOpen", "isToggled", "isDirty", "isBroken", "temperature", "isPickedUp", "parentReceptacles",
    "receptacleObjectIds", "isFilledWithLiquid", "fillLiquid",
)  # fmt: skip
"""Object states compared with real AI2-THOR recordings (issue 4, section 2)."""

TEMPERATURES: tuple[str, ...] = ("RoomTemp", "Hot", "Cold")
LIQUIDS: tuple[str, ...] = ("water", "coffee", "wine")


def fmt_coord(v: float) -> str:
    """Format one objectId coordinate the way AI2-THOR does: ``+01.15``, ``-00.47``, ``00.00`` for -0.00."""
    s = f"{abs(v):05.2f}"
    if v >= 0:
        return "+" + s
    return s if s == "00.00" else "-" + s


def make_object_id(object_type: str, x: float, y: float, z: float) -> str:
    """Return an AI2-THOR objectId, e.g. ``Apple|-00.47|+01.15|+00.48``."""
    return f"{object_type}|{fmt_coord(x)}|{fmt_coord(y)}|{fmt_coord(z)}"


def vec(x: float, y: float, z: float) -> dict[str, float]:
    """An AI2-THOR Vector3 dict."""
    return {"x": float(x), "y": float(y), "z": float(z)}


def aabb(center: tuple[float, float, float], size: tuple[float, float, float]) -> dict[str, Any]:
    """An ``axisAlignedBoundingBox`` dict (8 corner points in AI2-THOR's order, center, size)."""
    cx, cy, cz = center
    hx, hy, hz = size[0] / 2, size[1] / 2, size[2] / 2
    corners = [[cx + sx * hx, cy + sy * hy, cz + sz * hz] for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)]
    return {"cornerPoints": corners, "center": vec(cx, cy, cz), "size": vec(*size)}


def oobb(center: tuple[float, float, float], size: tuple[float, float, float]) -> dict[str, Any]:
    """An ``objectOrientedBoundingBox`` dict for an unrotated box (bottom face first, as AI2-THOR lists it)."""
    cx, cy, cz = center
    hx, hy, hz = size[0] / 2, size[1] / 2, size[2] / 2
    pts = []
    for sy in (-1, 1):
        for sx, sz in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            pts.append([cx + sx * hx, cy + sy * hy, cz + sz * hz])
    return {"cornerPoints": pts}


def box_of(obj: dict[str, Any]) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Return (center, size) of an object's axis-aligned box."""
    bb = obj["axisAlignedBoundingBox"]
    c, s = bb["center"], bb["size"]
    return (c["x"], c["y"], c["z"]), (s["x"], s["y"], s["z"])


__all__ = [
    "COMPARED_KEYS",
    "FLAG_KEYS",
    "LIQUIDS",
    "OBJECT_KEYS",
    "STATE_KEYS",
    "TEMPERATURES",
    "TOP_LEVEL_KEYS",
    "aabb",
    "box_of",
    "fmt_coord",
    "make_object_id",
    "oobb",
    "vec",
]
