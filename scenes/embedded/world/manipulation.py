"""Manipulation action handlers: picking up, putting, dropping, throwing, opening and closing.

Preconditions and error messages follow ``PhysicsRemoteFPSAgentController`` (``pickupObject``,
``placeHeldObject``, ``DropHeldObject``, ``ThrowObject``, ``openObject``); the tables are in
:mod:`~planner.schemas.thor_rules`.
"""

from __future__ import annotations

import math
from typing import Any

from planner.schemas.thor_rules import (
    ALWAYS_PLACE_UPRIGHT,
    FULL,
    MUST_BE_OFF_TO_OPEN,
    MUST_BE_OPEN_TO_PLACE_OBJECTS_IN,
    OBJECT_SPECIFIC_RECEPTACLES,
    PLACEMENT_RESTRICTIONS,
    exception,
    unknown_type,
)

from ..extensions import ALL_TYPES as TYPES
from ..extensions import EXTENSION_PLACEMENT
from ..metadata import box_of
from .constants import INF
from .state import ActionFailed, WorldState, as_number, denoise, yaw_vectors

NO_ROOM = "No valid positions to place object found"
"""``placeHeldObject`` when no spawn point of the receptacle takes the held object."""
FIT_SLACK = 1.1
"""How much an axis-aligned box may exceed the receptacle's footprint and still fit (boxes of turned objects are
larger than the objects: a kitchen knife's is 0.25 x 0.25 m, a plate's 0.24 x 0.25 m)."""


def placement_row(object_type: str) -> frozenset[str] | None:
    """The receptacle types ``object_type`` may go into without ``forceAction``; None = anywhere (no row).

    Raises:
        ActionFailed: a type the simulator does not know (neither AI2-THOR's nor an extension type).
    """
    if object_type in PLACEMENT_RESTRICTIONS:
        return PLACEMENT_RESTRICTIONS[object_type]
    if object_type in EXTENSION_PLACEMENT:
        return EXTENSION_PLACEMENT[object_type]
    if object_type in TYPES:
        return None
    raise ActionFailed(unknown_type(object_type))


def _footprint(o: dict[str, Any]) -> tuple[float, float, float]:
    _, s = box_of(o)
    return s


class ManipulationActions(WorldState):
    """``_a_<Action>`` handlers that move objects between the hand and receptacles, or open them."""

    def _a_PickupObject(self, p: dict[str, Any]) -> str:
        o = self._target(p)
        oid = o["objectId"]
        if not o["pickupable"]:
            raise ActionFailed(exception("InvalidOperationException", f"{oid} must have the property CanPickup to be "
                                                                      "picked up."))
        if self.held is not None:
            raise ActionFailed(exception("InvalidOperationException",
                                         "Agent hand has something in it already! Can't pick up anything else"))
        self._check_free(oid)
        for c in self.contents(oid):
            self._check_free(c)
        # leaving a fridge or a heat source starts the cool-down clock
        self._lift(oid)
        o["isPickedUp"] = True
        self.held = oid
        self._move_to(oid, self.hand_position())
        self.geometry_version += 1
        if self.break_on_pickup:
            self._picked_up(oid)
        return oid

    def _lift(self, oid: str) -> None:
        """Take ``oid`` out of every receptacle, its contents travelling with it: other receptacles stop listing
        them, and they keep only the parents that travel along (``PickupObject``'s bookkeeping)."""
        self._detach(oid)
        inner = self.contents(oid)
        carried = {oid, *inner}
        for c in inner:
            for r in self.objs.values():
                lst = r["receptacleObjectIds"]
                if lst and c in lst and r["objectId"] not in carried:
                    r["receptacleObjectIds"] = [x for x in lst if x != c]
            co = self.objs[c]
            co["parentReceptacles"] = [x for x in (co["parentReceptacles"] or []) if x in carried] or None

    def relocate(self, oid: str, rid: str) -> None:
        """Move ``oid`` (with what it holds) into receptacle ``rid`` before the run, as AI2-THOR's ``SetObjectPoses``
        and ``InitialRandomSpawn`` move objects at reset: ``PickupObject``'s bookkeeping then ``PutObject``'s
        placement, without the hand (``parentReceptacles`` and ``receptacleObjectIds`` of the receptacles it leaves
        and of ``rid`` updated, set down where ``PutObject`` sets it). The caller chooses a receptacle the object
        may go in (:func:`scenes.embedded.perturb.displacement_target`).

        Raises:
            ActionFailed: ``oid`` is held, or ``rid`` is no receptacle, ``oid`` itself or something it holds.
        """
        if self.held == oid or self.objs[oid]["isPickedUp"]:
            raise ActionFailed(f"{oid} is held: only an object lying in the scene is moved at reset")
        if not self.objs[rid]["receptacle"] or rid == oid or rid in self.contents(oid):
            raise ActionFailed(f"{oid} cannot be set in {rid}: not a receptacle, or the object itself or its content")
        self._lift(oid)
        self._place(oid, rid)

    def _held_or_fail(self, message: str = "Can't place an object if Agent isn't holding anything") -> dict[str, Any]:
        if self.held is None:
            raise ActionFailed(message)
        return self.objs[self.held]

    def _a_PutObject(self, p: dict[str, Any]) -> None:
        """``PhysicsRemoteFPSAgentController.placeHeldObject``, in its order of checks."""
        r = self._target(p)
        h = self._held_or_fail()
        rid, hid = r["objectId"], h["objectId"]
        rt, ht = r["objectType"], h["objectType"]
        if not r["receptacle"]:
            raise ActionFailed("This target object is NOT a receptacle!")
        if rt not in TYPES:
            raise ActionFailed(unknown_type(rt))
        row = placement_row(ht)
        if r["openable"] and rt in MUST_BE_OPEN_TO_PLACE_OBJECTS_IN and not r["isOpen"]:
            raise ActionFailed("Target openable Receptacle is CLOSED, can't place if target is not open!")
        self._check_free(rid)
        if rt in OBJECT_SPECIFIC_RECEPTACLES:
            # snapped to the attach point, with or without forceAction; one object at a time
            if ht in OBJECT_SPECIFIC_RECEPTACLES[rt] and not self._occupied(rid):
                self._place(hid, rid)
                return
            if self._occupied(rid):
                raise ActionFailed(f"{r['name']} {FULL}")
            raise ActionFailed(f"{h['name']} is not a valid Object Type to be placed in {r['name']}")
        if not p.get("forceAction", False) and row is not None and rt not in row:
            raise ActionFailed(f"{h['name']} cannot be placed in {r['name']}")
        # a broken receptacle has shattered (Break.cs swaps in the pieces and deactivates the object's children,
        # its receptacle trigger boxes included), so it has no spawn point left
        if rid == hid or rid in self.contents(hid) or r["isBroken"] or not self._has_room(r, h):
            raise ActionFailed(NO_ROOM)
        self._place(hid, rid)

    def _occupied(self, rid: str) -> bool:
        """``ObjectSpecificReceptacle.isFull``: something that can move already sits in the receptacle."""
        return bool(self.contents(rid, recursive=False))

    def _has_room(self, r: dict[str, Any], h: dict[str, Any]) -> bool:
        """Whether a receptacle that is itself an object (a Plate, Bowl, Pot, Box...) has room for the held object.

        AI2-THOR tries the receptacle's spawn points one by one and places the object where it collides with
        nothing (``InstantiatePrefabTest.PlaceObjectReceptacle``). Boxes approximate that only where the box is the
        receptacle (pickupable receptacles): the held object's footprint must fit inside the receptacle's (turned
        by 90 degrees if need be; objects AI2-THOR does not keep upright may lie on any side), with
        :data:`FIT_SLACK` for boxes that are axis-aligned around turned objects (a knife lying at 45 degrees has a
        square box), and the footprints of what it already holds plus the held one must not exceed its area. A fixed
        receptacle's box (a cabinet's door, a counter) is not its receptacle volume, so it is not checked
        (docs/conformance.md).
        """
        if not r["pickupable"]:
            return True
        rs = _footprint(r)
        hs = _footprint(h)
        rxz = sorted((rs[0], rs[2]))
        sides = [sorted((hs[0], hs[2]))]
        if h["objectType"] not in ALWAYS_PLACE_UPRIGHT:
            sides += [sorted((hs[0], hs[1])), sorted((hs[1], hs[2]))]
        fits = [sd for sd in sides if sd[0] <= rxz[0] * FIT_SLACK and sd[1] <= rxz[1] * FIT_SLACK]
        if not fits:
            return False
        used = 0.0
        for c in self.contents(r["objectId"], recursive=False):
            cs = _footprint(self.objs[c])
            used += cs[0] * cs[2]
        return used + min(a * b for a, b in fits) <= rxz[0] * rxz[1] + 1e-9

    def _place(self, oid: str, rid: str) -> None:
        o = self.objs[oid]
        center = self.placement(rid, oid)
        self._move_to(oid, center)
        _, s = box_of(o)
        bottom = center[1] - s[1] / 2
        floors = [f for f in self._floors_under(rid, bottom, center[0], center[2]) if f != rid]
        if rid in self.floors:
            floors = []
        self._attach(oid, [rid, *floors])
        o["isPickedUp"] = False
        if self.held == oid:
            self.held = None
        self.geometry_version += 1

    def _landing(self, x: float, z: float, top_limit: float, skip: set[str]) -> str | None:
        best, best_top = None, -INF
        for k, o in self.objs.items():
            if not o["receptacle"] or k in skip or o["objectType"] == "Floor" or o["isPickedUp"]:
                continue
            c, s = box_of(o)
            if not (c[0] - s[0] / 2 <= x <= c[0] + s[0] / 2 and c[2] - s[2] / 2 <= z <= c[2] + s[2] / 2):
                continue
            top = c[1] + s[1] / 2
            if top <= top_limit and top > best_top:
                best, best_top = k, top
        return best

    def _drop(self, hx: float, hz: float, message: str) -> dict[str, float]:
        h = self._held_or_fail(message)
        hid = h["objectId"]
        hy = self.hand_position()[1]
        skip = {hid, *self.contents(hid)}
        land = self._landing(hx, hz, hy, skip)
        if land is not None:
            self._place(hid, land)
        else:
            floor = self._floor_at(hx, hz)
            _, s = box_of(h)
            fy = (
                (box_of(self.objs[floor])[0][1] + box_of(self.objs[floor])[1][1] / 2) if floor else self.agent_y - 0.901
            )
            self._move_to(hid, (hx, fy + s[1] / 2, hz))
            self._attach(hid, [floor] if floor else [])
            h["isPickedUp"] = False
            self.held = None
            self.geometry_version += 1
        return dict(self.objs[hid]["position"])

    def _floor_at(self, x: float, z: float) -> str | None:
        best, bd = None, INF
        for f in self.floors:
            c, s = box_of(self.objs[f])
            d = max(abs(x - c[0]) - s[0] / 2, 0) + max(abs(z - c[2]) - s[2] / 2, 0)
            if d < bd:
                best, bd = f, d
        return best

    def _a_DropHandObject(self, p: dict[str, Any]) -> dict[str, float]:
        hx, _, hz = self.hand_position()
        return self._drop(hx, hz, exception("InvalidOperationException", "Nothing is in the agent's hand to drop!"))

    def _a_ThrowObject(self, p: dict[str, Any]) -> dict[str, float]:
        h = self._held_or_fail(exception("InvalidOperationException", "Nothing in Hand to Throw!"))
        mag = as_number(p.get("moveMagnitude", 0.0), "moveMagnitude")
        if mag < 0 or not math.isfinite(mag):
            raise ActionFailed(f"moveMagnitude must be >= 0, got {mag}", "InvalidArgument")
        hid = h["objectId"]
        (fx, fz), _ = yaw_vectors(self.yaw)
        dist = min(mag / 50.0, 3.0)
        hx, _, hz = self.hand_position()
        out = self._drop(denoise(hx + fx * dist), denoise(hz + fz * dist), "")
        # thrown hard enough, breakable objects break (AI2-THOR: "if subjected to enough force")
        if mag >= 100.0 and self.objs[hid]["breakable"] and not self.objs[hid]["isBroken"]:
            self._break(hid)
        return out

    def _a_OpenObject(self, p: dict[str, Any]) -> None:
        openness = p.get("openness", 1.0)
        if not isinstance(openness, (int, float)) or isinstance(openness, bool):
            raise ActionFailed(f"action: OpenObject has an invalid argument: openness (=={openness!r}). Cannot "
                               "convert to: float", "InvalidArgument")
        o = self._target(p)
        oid = o["objectId"]
        if not 0.0 <= openness <= 1.0:
            raise ActionFailed("openness must be in [0:1]")
        if not o["openable"]:
            raise ActionFailed(f"{oid} is not an Openable object")
        if o["objectType"] in MUST_BE_OFF_TO_OPEN and o["isToggled"]:
            raise ActionFailed("Target must be OFF to open!")
        self._check_free(oid)
        o["openness"] = float(openness)
        o["isOpen"] = openness > 0
        self.open_version += 1

    def _a_CloseObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["openable"]:
            raise ActionFailed(f"{oid} is not an Openable object")
        self._check_free(oid)
        o["openness"] = 0.0
        o["isOpen"] = False
        self.open_version += 1
