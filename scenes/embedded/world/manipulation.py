"""Manipulation action handlers: picking up, putting, dropping, throwing, opening and closing."""

from __future__ import annotations

import math
from typing import Any

from ..extensions import ALL_TYPES as TYPES
from ..metadata import box_of
from .constants import ENCLOSING, INF
from .state import ActionFailed, WorldState, as_number, denoise, yaw_vectors


class ManipulationActions(WorldState):
    """``_a_<Action>`` handlers that move objects between the hand and receptacles, or open them."""

    def _a_PickupObject(self, p: dict[str, Any]) -> str:
        o = self._target(p)
        oid = o["objectId"]
        if not o["pickupable"]:
            raise ActionFailed(f"{oid} must have the property CanPickup to be picked up.")
        if self.held is not None:
            raise ActionFailed(f"Agent hand is full: already holding {self.held}; put or drop it first")
        self._check_free(oid)
        for c in self.contents(oid):
            self._check_free(c)
        # leaving a fridge or a heat source starts the cool-down clock
        self._detach(oid)
        inner = self.contents(oid)
        carried = {oid, *inner}
        for c in inner:
            # contents travel with the picked object: other receptacles stop listing them
            for r in self.objs.values():
                lst = r["receptacleObjectIds"]
                if lst and c in lst and r["objectId"] not in carried:
                    r["receptacleObjectIds"] = [x for x in lst if x != c]
            co = self.objs[c]
            co["parentReceptacles"] = [x for x in (co["parentReceptacles"] or []) if x in carried] or None
        o["isPickedUp"] = True
        self.held = oid
        self._move_to(oid, self.hand_position())
        self.geometry_version += 1
        if self.break_on_pickup:
            self._picked_up(oid)
        return oid

    def _held_or_fail(self) -> dict[str, Any]:
        if self.held is None:
            raise ActionFailed("Can't place an object if Agent isn't holding anything")
        return self.objs[self.held]

    def _a_PutObject(self, p: dict[str, Any]) -> None:
        h = self._held_or_fail()
        r = self._target(p)
        rid, hid = r["objectId"], h["objectId"]
        if not r["receptacle"]:
            raise ActionFailed("This target object is NOT a receptacle!")
        if rid == hid or rid in self.contents(hid):
            raise ActionFailed(f"Cannot put {hid} into itself or into its own contents ({rid})")
        if r["isBroken"]:
            raise ActionFailed(f"{rid} is broken and cannot hold objects")
        self._check_free(rid)
        if not p.get("forceAction", False):
            compat = TYPES[h["objectType"]].compatible if h["objectType"] in TYPES else ()
            if compat and r["objectType"] not in compat:
                raise ActionFailed(f"{h['name']} is not a valid Object Type to be placed in {r['name']}")
            if r["openable"] and not r["isOpen"] and r["objectType"] in ENCLOSING:
                raise ActionFailed("Target openable Receptacle is CLOSED, can't place if target is not open!")
        self._place(hid, rid)

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

    def _drop(self, hx: float, hz: float) -> dict[str, float]:
        h = self._held_or_fail()
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
        return self._drop(hx, hz)

    def _a_ThrowObject(self, p: dict[str, Any]) -> dict[str, float]:
        h = self._held_or_fail()
        mag = as_number(p.get("moveMagnitude", 0.0), "moveMagnitude")
        if mag < 0 or not math.isfinite(mag):
            raise ActionFailed(f"moveMagnitude must be >= 0, got {mag}", "InvalidArgument")
        hid = h["objectId"]
        (fx, fz), _ = yaw_vectors(self.yaw)
        dist = min(mag / 50.0, 3.0)
        hx, _, hz = self.hand_position()
        out = self._drop(denoise(hx + fx * dist), denoise(hz + fz * dist))
        # thrown hard enough, breakable objects break (AI2-THOR: "if subjected to enough force")
        if mag >= 100.0 and self.objs[hid]["breakable"] and not self.objs[hid]["isBroken"]:
            self._break(hid)
        return out

    def _a_OpenObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["openable"]:
            raise ActionFailed(f"{oid} is not an Openable object")
        openness = p.get("openness", 1.0)
        if not isinstance(openness, (int, float)) or isinstance(openness, bool) or not 0.0 <= openness <= 1.0:
            raise ActionFailed(f"openness must be in [0, 1], got {openness!r}", "InvalidArgument")
        if o["objectType"] == "Microwave" and o["isToggled"]:
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
