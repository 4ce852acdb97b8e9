"""Containment: which object is in which receptacle, and moving objects with their contents."""

from __future__ import annotations

import math

from ..extensions import ALL_TYPES as TYPES
from ..metadata import aabb, box_of, oobb, vec
from .state import WorldState, denoise


class Containment(WorldState):
    """``parentReceptacles`` / ``receptacleObjectIds`` bookkeeping and object moves."""

    def contents(self, oid: str, *, recursive: bool = True, fixed: bool = False) -> list[str]:
        """Objects inside ``oid`` (recursively: a potato in a pot on a burner is in the burner).

        Only objects that can move (``pickupable`` or ``moveable``) unless ``fixed``: a recording lists a fixed
        object inside whatever its box overlaps (FloorPlan19's fridge among the cabinets' contents, a microwave
        on a plate), and none of it travels with, hides in or takes the heat of that object.
        """
        out: list[str] = []
        stack = list(self.objs[oid]["receptacleObjectIds"] or [])
        seen = {oid}
        while stack:
            k = stack.pop(0)
            o = self.objs.get(k)
            if k in seen or o is None or not (fixed or o.get("pickupable") or o.get("moveable")):
                continue
            seen.add(k)
            out.append(k)
            if recursive:
                stack.extend(o["receptacleObjectIds"] or [])
        return out

    def _detach(self, oid: str) -> None:
        o = self.objs[oid]
        for p in o["parentReceptacles"] or []:
            r = self.objs.get(p)
            if r and r["receptacleObjectIds"] and oid in r["receptacleObjectIds"]:
                r["receptacleObjectIds"] = [x for x in r["receptacleObjectIds"] if x != oid]
        # also drop stale mentions (AI2-THOR lists an object in every receptacle volume it touches)
        for r in self.objs.values():
            lst = r["receptacleObjectIds"]
            if lst and oid in lst:
                r["receptacleObjectIds"] = [x for x in lst if x != oid]
        o["parentReceptacles"] = None

    def _attach(self, oid: str, parents: list[str]) -> None:
        o = self.objs[oid]
        # AI2-THOR lists parents by type name (real dumps: 137 of 149 multi-parent lists are in that order)
        parents = sorted(parents, key=lambda p: self.objs[p]["objectType"])
        o["parentReceptacles"] = parents or None
        for p in parents:
            r = self.objs[p]
            r["receptacleObjectIds"] = [*(r["receptacleObjectIds"] or []), oid]

    def _move_to(self, oid: str, center: tuple[float, float, float]) -> None:
        """Move an object's box centre (and its contents with it)."""
        o = self.objs[oid]
        c, s = box_of(o)
        d = (center[0] - c[0], center[1] - c[1], center[2] - c[2])
        if abs(d[0]) + abs(d[1]) + abs(d[2]) < 1e-9:
            return
        for k in [oid, *self.contents(oid)]:
            self._shift(k, d)
        self.geometry_version += 1

    def _shift(self, oid: str, d: tuple[float, float, float]) -> None:
        o = self.objs[oid]
        p = o["position"]
        o["position"] = vec(denoise(p["x"] + d[0]), denoise(p["y"] + d[1]), denoise(p["z"] + d[2]))
        c, s = box_of(o)
        nc = (denoise(c[0] + d[0]), denoise(c[1] + d[1]), denoise(c[2] + d[2]))
        o["axisAlignedBoundingBox"] = aabb(nc, s)
        if o["objectOrientedBoundingBox"] is not None:
            o["objectOrientedBoundingBox"] = oobb(nc, s)
        self._geo_update(oid)

    def placement(self, receptacle: str, oid: str) -> tuple[float, float, float]:
        """Where PutObject sets ``oid`` down in ``receptacle`` (box centre)."""
        r = self.objs[receptacle]
        c, s = box_of(r)
        _, os_ = box_of(self.objs[oid])
        info = TYPES.get(r["objectType"])
        frac = info.place if info and info.place is not None else (0.1 if r["pickupable"] else 1.0)
        bottom = c[1] - s[1] / 2 + frac * s[1]
        # spread several objects over the surface so they do not share one point
        n = len([x for x in (r["receptacleObjectIds"] or []) if self.objs.get(x, {}).get("pickupable")])
        ang = n * 2.399963  # golden angle
        rad = min(s[0], s[2]) * 0.25 * min(1.0, math.sqrt(n) / 2)
        return (denoise(c[0] + rad * math.cos(ang)), denoise(bottom + os_[1] / 2), denoise(c[2] + rad * math.sin(ang)))

    def _floors_under(self, receptacle: str | None, bottom_y: float, x: float, z: float) -> list[str]:
        out = []
        for f in self.floors:
            fo = self.objs[f]
            if receptacle is not None and receptacle not in (fo["receptacleObjectIds"] or []):
                continue
            c, s = box_of(fo)
            if not (
                c[0] - s[0] / 2 - 0.5 <= x <= c[0] + s[0] / 2 + 0.5
                and c[2] - s[2] / 2 - 0.5 <= z <= c[2] + s[2] / 2 + 0.5
            ):
                continue
            if bottom_y - (c[1] + s[1] / 2) < self._floor_trigger[f]:
                out.append(f)
        return out
