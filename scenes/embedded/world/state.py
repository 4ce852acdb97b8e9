"""The world's records and the state every part of :class:`~scenes.embedded.world.World` shares.

:class:`WorldState` declares the attributes once; the concern mixins (geometry, containment, visibility,
rules, action handlers) read and write them through ``self``, and :class:`~scenes.embedded.world.World`
combines the mixins and sets the attributes up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


class ObjState(dict):  # type: ignore[type-arg]
    """An object's live metadata: a dict that records its writes (``version``; its id goes into the world's
    ``dirty`` set) so observations rebuild only the snapshots of objects that changed."""

    __slots__ = ("version", "dirty", "oid", "counter")

    def __init__(self, data: dict[str, Any], dirty: set[str], counter: list[int]) -> None:
        super().__init__(data)
        self.version = 0
        self.dirty = dirty
        self.counter = counter
        self.oid = data["objectId"]

    def __setitem__(self, key: str, value: Any) -> None:
        self.version += 1
        self.counter[0] += 1
        self.dirty.add(self.oid)
        super().__setitem__(key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.version += 1
        self.counter[0] += 1
        self.dirty.add(self.oid)
        super().update(*args, **kwargs)


class ActionFailed(Exception):
    """Internal: an action cannot be done; becomes lastActionSuccess=False with this errorMessage."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class UseClaim:
    """Someone else is using an object until ``until`` (``inf`` = for good, i.e. irreversible)."""

    until: float
    by: str = "someone else"
    switch_off: tuple[str, ...] = ()
    """Switches the other user turned on and turns off when done (the stove they were cooking on)."""

    @property
    def irreversible(self) -> bool:
        return math.isinf(self.until)


def yaw_vectors(yaw_deg: float) -> tuple[tuple[float, float], tuple[float, float]]:
    r = math.radians(yaw_deg)
    fwd = (math.sin(r), math.cos(r))
    right = (math.cos(r), -math.sin(r))
    return fwd, right


def as_number(value: Any, what: str) -> float:
    """``float(value)``, or the failed-action outcome AI2-THOR gives an argument of the wrong type.

    Raises:
        ActionFailed: ``value`` is not convertible to a float (errorCode ``InvalidArgument``).
    """
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ActionFailed(f"{what} must be a number, got {value!r}", "InvalidArgument") from None


def denoise(v: float) -> float:
    # keep coordinates free of 1e-17 noise after trigonometry
    return round(v, 6) + 0.0


class WorldState:
    """Attributes shared by the parts of :class:`~scenes.embedded.world.World` (set in its ``__init__``)."""

    scene_name: str
    grid_size: float
    visibility_distance: float
    rotate_step: float
    step_seconds: float
    room_temp_after: float
    room_temp_after_type: dict[str, float]
    """Per-type override of :attr:`room_temp_after` (``SetRoomTempDecayTimeForType``)."""
    slice_requires_knife: bool
    fov: float
    _tan_half_fov: float
    objs: dict[str, dict[str, Any]]
    """Live object metadata (:class:`ObjState`) by objectId."""
    dirty: set[str]
    """Ids of objects written since the last observation took them (:meth:`take_dirty`)."""
    writes: list[int]
    """World-wide count of object writes (the renderer keys its cache on it)."""
    held: str | None
    time: float
    in_use: dict[str, UseClaim]
    temp_clock: dict[str, float]
    """objectId -> simulated time it was last in a heat/cold source."""
    scene_bounds: dict[str, Any]
    floors: list[str]
    _floor_trigger: dict[str, float]
    _faucet_basins: dict[str, list[str]]
    _grid: np.ndarray | None
    agent_y: float
    _obstacles: np.ndarray
    _obstacle_names: list[str]
    pos: tuple[float, float, float]
    yaw: float
    horizon: float
    standing: bool
    last_action: str
    collided: bool
    geometry_version: int
    """Bumped whenever an object moves (caches of boxes/visibility key on it)."""
    state_version: int
    """Bumped by every action that may change object states (open, contents...)."""
    _settled: int
    open_version: int
    _in_source: set[str]
    _geo: tuple[Any, ...] | None
    _cold: list[str]
    _heat: list[str]
    _water: list[str]
    _enclosures: list[str]
    _glass: list[str]
    """See-through objects (ShowerGlass, ShowerDoor) that can stand between the camera and an object."""
    inactive: set[str]
    """Objects AI2-THOR keeps in the metadata but deactivates (the whole of a sliced object): never visible, in no
    receptacle, touched by no contextual rule."""
    faulty: set[str]
    """Appliances that switch on but have no effect (:mod:`~scenes.embedded.world.faults`)."""
    break_on_pickup: dict[str, str]
    """objectId -> group: the first pickup of a group's member breaks it and disarms the group."""
    take_on_approach: set[str]
    """Objects someone else takes for good when the agent comes within reach."""
    fired: dict[str, set[str]]
    """Hidden faults that have shown (``broke-on-pickup``, ``taken-by-someone``), by objectId."""
    native_flags: dict[str, tuple[bool, bool]]
    """(dirtyable, breakable) of every object as the scene defined it, before any perturbation."""


__all__ = ["ActionFailed", "ObjState", "UseClaim", "WorldState", "as_number", "denoise", "yaw_vectors"]
