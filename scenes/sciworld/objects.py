"""ScienceWorld's ground truth (``env.getObjectTree()``) as flat, typed records for perception scoring.

The tree is ``{"name", "uuid", "propMaterial", "propDevice", ..., "contents": {"<name>-<uuid>": node}}``
starting at ``universe``; its children are the rooms (and the ``sewer``), whose contents nest by container.
Each object also carries two electrical ``terminal`` parts; they are parts, not objects, and are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

_PART_RE = re.compile(r"^(terminal \d+|anode|cathode)$")


@dataclass(frozen=True)
class SWObject:
    """One ScienceWorld object with the properties the five variables need.

    Attributes:
        uuid: ScienceWorld's object id.
        name: Display name as in the text (``"metal pot"``, ``"stove"``).
        path: Containers from the room down to the direct parent, e.g. ``("kitchen", "cupboard")``.
        material: ``propMaterial.substanceName`` (``"steel"``, ``"water"``), or None.
        temperature_c: Temperature in degrees Celsius, or None when the object has no material.
        state_of_matter: ``"solid"`` / ``"liquid"`` / ``"gas"``, or None.
        is_broken: Device broken (``propDevice.isBroken``); None for non-devices.
        is_activated: Device on; None for non-devices.
        is_open: Container open; None for non-containers.
        max_temp_c: Heat source's maximum temperature, or None.
        min_temp_c: Cooling source's minimum temperature, or None.
        is_living: Has ``propLife``.
        contents: Names of the direct contents (parts skipped).
        raw: The node's properties, without ``contents``.
    """

    uuid: str
    name: str
    path: tuple[str, ...]
    material: str | None
    temperature_c: float | None
    state_of_matter: str | None
    is_broken: bool | None
    is_activated: bool | None
    is_open: bool | None
    max_temp_c: float | None
    min_temp_c: float | None
    is_living: bool
    contents: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def room(self) -> str | None:
        """The room the object is in (None for rooms themselves)."""
        return self.path[0] if self.path else None

    @property
    def location(self) -> str:
        """``"room:name"`` as used by :func:`scenes.sciworld.tasks.broken_devices` (rooms: just the name)."""
        return f"{self.path[0]}:{self.name}" if self.path else self.name


def _children(node: dict[str, Any]) -> list[dict[str, Any]]:
    c = node.get("contents") or {}
    return list(c.values()) if isinstance(c, dict) else list(c)


def _record(node: dict[str, Any], path: tuple[str, ...]) -> SWObject:
    mat = node.get("propMaterial") or {}
    dev = node.get("propDevice") or {}
    con = node.get("propContainer") or {}
    heat = node.get("propHeatSource") or {}
    cool = node.get("propCoolingSource") or {}
    temp = mat.get("temperatureC")
    return SWObject(
        uuid=str(node.get("uuid", "")),
        name=str(node.get("name", "")),
        path=path,
        material=mat.get("substanceName"),
        temperature_c=None if temp is None else float(temp),
        state_of_matter=mat.get("stateOfMatter"),
        is_broken=dev.get("isBroken") if dev else None,
        is_activated=dev.get("isActivated") if dev else None,
        is_open=con.get("isOpen") if con else None,
        max_temp_c=heat.get("maxTemp"),
        min_temp_c=cool.get("minTemp"),
        is_living=node.get("propLife") is not None,
        contents=tuple(str(c.get("name")) for c in _children(node) if not _PART_RE.match(str(c.get("name", "")))),
        raw={k: v for k, v in node.items() if k != "contents"},
    )


def iter_objects(tree: dict[str, Any]) -> Iterator[SWObject]:
    """Yield every object under ``universe`` (rooms included, electrical parts and deleted objects skipped)."""

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> Iterator[SWObject]:
        for child in _children(node):
            name = str(child.get("name", ""))
            if _PART_RE.match(name) or child.get("isDeleted"):
                continue
            yield _record(child, path)
            yield from walk(child, (*path, name))

    yield from walk(tree, ())


def flatten_tree(tree: dict[str, Any]) -> list[SWObject]:
    """All objects of an object tree as a list (see :func:`iter_objects`)."""
    return list(iter_objects(tree))


__all__ = ["SWObject", "flatten_tree", "iter_objects"]
