"""Visibility and interactability: which objects the camera sees, with caches keyed on the world's versions.

AI2-THOR (``BaseFPSAgentController.GetAllVisibleSimObjPhysics`` / ``CheckIfVisibilityPointInViewport``) calls an
object visible when one of its visibility points is in the camera's viewport, within ``visibilityDistance``, and
a ray from the camera reaches it; a ray that first hits see-through glass (``CanSeeThrough``) may continue, and
the object is then visible but not interactable. ``getInteractableSimObjectFromId`` refuses actions (without
``forceAction``) on an object that is not visible ("Target object not found within the specified visibility.")
or visible only through glass ("... It is likely obstructed by some clear object like glass."). The embedded
simulator approximates the visibility points by the 8 corners (pulled 10 % in) and the centre of the object's
box, and the glass by the boxes of :data:`~planner.schemas.thor_rules.SEE_THROUGH` objects (an open ShowerDoor
obstructs nothing; glass never hides glass or the Floor); it has no occlusion by opaque objects other than closed
enclosures.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from planner.schemas.thor_rules import SEE_THROUGH

from .state import WorldState, yaw_vectors

_NEVER_BEHIND = SEE_THROUGH | {"Floor"}

_SIGNS = 0.9 * np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)] + [[0, 0, 0]], dtype=float)
"""Visibility sample points (times the half size): the 8 corners pulled 10 % in, and the centre."""


class Visibility(WorldState):
    """AI2-THOR's ``visible`` flag, approximated from boxes, the camera's view and ``visibilityDistance``."""

    def is_visible(self, oid: str) -> bool:
        """AI2-THOR's ``visible`` for one object (see :meth:`visibility`)."""
        vis, _ = self.visibility()
        return bool(vis.get(oid, False))

    def is_interactable(self, oid: str) -> bool:
        """AI2-THOR's ``isInteractable``: visible, and not only through see-through glass."""
        self.visibility()
        return oid in self._interactable

    _vis_cache: tuple[Any, dict[str, bool], dict[str, float]] | None = None
    vis_arrays: tuple[list[str], np.ndarray, np.ndarray] | None = None
    """(ids, visible, distance) of the last visibility computation, in ``objs`` order."""
    interactable_array: np.ndarray | None = None
    """``isInteractable`` of the last visibility computation, in the order of :attr:`vis_arrays`."""
    _interactable: frozenset[str] = frozenset()

    def visibility(self) -> tuple[dict[str, bool], dict[str, float]]:
        """Return ({objectId: visible}, {objectId: distance}); cached until something changes.

        ``distance`` is AI2-THOR's: object position to agent position. ``visible``: some corner or the
        centre of the object's box is inside the camera's view and the box's nearest point is within
        ``visibility_distance`` of the camera; what can move inside a closed fridge, cabinet or drawer is hidden,
        and so is an object AI2-THOR has deactivated (the whole of a sliced object). ``isInteractable``
        (:meth:`is_interactable`) also needs one such point that the camera reaches without crossing glass.
        """
        key = (self.geometry_version, self.open_version, self.held, self.pos, self.yaw, self.horizon, self.standing)
        if self._vis_cache is not None and self._vis_cache[0] == key:
            return self._vis_cache[1], self._vis_cache[2]
        ids, pos, lo, hi, pts = self._geometry()
        n = len(ids)
        d = pos - np.array(self.pos)
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        cam = np.array(self.camera)
        # AI2-THOR measures visibilityDistance in the floor plane (the floor, 1.58 m below the camera, is visible)
        near = (np.clip(cam, lo, hi) - cam)[:, ::2]
        close = np.einsum("ij,ij->i", near, near) <= self.visibility_distance**2
        (fx, fz), (rx, rz) = yaw_vectors(self.yaw)
        h = math.radians(self.horizon)  # positive horizon looks down
        ch, sh = math.cos(h), math.sin(h)
        basis = np.array([[fx * ch, rx, fx * sh], [-sh, 0.0, ch], [fz * ch, rz, fz * sh]])
        proj = (pts - cam) @ basis  # (n*9, 3): forward, right, up
        lim = self._tan_half_fov * proj[:, 0]
        ok = (proj[:, 0] > 0.05) & (np.abs(proj[:, 1]) <= lim) & (np.abs(proj[:, 2]) <= lim)
        inview = ok.reshape(n, 9).any(axis=1)
        visible = close & inview
        index = self._geo[5]  # type: ignore[index]
        for k in self._hidden():
            visible[index[k]] = False
        interactable = visible.copy()
        glass = self._glass_boxes(cam)
        rows = np.zeros(0, dtype=int)
        if glass and visible.any():
            # glass never hides glass (an L-shaped ShowerGlass's box holds its door), nor the Floor (AI2-THOR's
            # floor has visibility points all over the room, some always on the agent's side)
            rows = np.array(
                [i for i in np.flatnonzero(visible) if self.objs[ids[i]]["objectType"] not in _NEVER_BEHIND], dtype=int
            )
        if glass and len(rows):
            sel = ok.reshape(n, 9)[rows]
            seg = pts.reshape(n, 9, 3)[rows]
            clear = sel & ~self._behind_glass(cam, seg, glass, [ids[i] for i in rows])
            interactable[rows] = clear.any(axis=1)
        if self.held is not None:
            visible[index[self.held]] = True
            interactable[index[self.held]] = True
        vis = dict(zip(ids, visible.tolist(), strict=True))
        dd = dict(zip(ids, dist.tolist(), strict=True))
        self._vis_cache = (key, vis, dd)
        self.vis_arrays = (ids, visible, dist)
        self.interactable_array = interactable
        self._interactable = frozenset(k for k, v in zip(ids, interactable.tolist(), strict=True) if v)
        return vis, dd

    def _glass_boxes(self, cam: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(id, lo, hi) of the see-through glass that can stand between the camera and an object: closed
        ShowerDoors and ShowerGlass whose box does not hold the camera."""
        out = []
        for k in self._glass:
            o = self.objs.get(k)
            if o is None or (o["openable"] and o["isOpen"]):
                continue
            bb = o["axisAlignedBoundingBox"]
            c, s = bb["center"], bb["size"]
            lo = np.array((c["x"] - s["x"] / 2, c["y"] - s["y"] / 2, c["z"] - s["z"] / 2))
            hi = np.array((c["x"] + s["x"] / 2, c["y"] + s["y"] / 2, c["z"] + s["z"] / 2))
            if not (np.all(cam >= lo) and np.all(cam <= hi)):
                out.append((k, lo, hi))
        return out

    @staticmethod
    def _behind_glass(
        cam: np.ndarray, pts: np.ndarray, glass: list[tuple[str, np.ndarray, np.ndarray]], owners: list[str]
    ) -> np.ndarray:
        """(m, 9) bool: the segment from the camera to each sample point crosses a glass box other than the
        point's own object (slab test on the segment, parameter in [0, 1])."""
        d = pts - cam  # (m, 9, 3)
        out = np.zeros(pts.shape[:2], dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / d
            for gid, lo, hi in glass:
                t1 = (lo - cam) * inv
                t2 = (hi - cam) * inv
                tmin = np.nanmax(np.minimum(t1, t2), axis=2)
                tmax = np.nanmin(np.maximum(t1, t2), axis=2)
                hit = (tmax >= np.maximum(tmin, 0.0)) & (tmin <= 1.0)
                own = np.array([k == gid for k in owners])
                hit[own] = False
                out |= hit
        return out

    def take_dirty(self) -> set[str]:
        """Ids of objects written since the previous call (and forget them)."""
        out = set(self.dirty)
        self.dirty.clear()
        return out

    def _geometry(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self._geo is None or len(self._geo[0]) != len(self.objs):
            ids = list(self.objs)
            rows = []
            for k in ids:
                o = self.objs[k]
                p = o["position"]
                bb = o["axisAlignedBoundingBox"]
                c, s = bb["center"], bb["size"]
                rows.append((p["x"], p["y"], p["z"], c["x"], c["y"], c["z"], s["x"] / 2, s["y"] / 2, s["z"] / 2))
            a = np.array(rows, dtype=float).reshape(-1, 9)
            cen, half = a[:, 3:6], a[:, 6:9]
            pts = (cen[:, None, :] + _SIGNS[None, :, :] * half[:, None, :]).reshape(-1, 3)
            self._geo = (ids, a[:, 0:3].copy(), cen - half, cen + half, pts, {k: i for i, k in enumerate(ids)})
        return self._geo[:5]  # type: ignore[return-value]

    _hidden_cache: tuple[Any, set[str]] | None = None

    def _hidden(self) -> set[str]:
        hk = (self.geometry_version, self.open_version)
        if self._hidden_cache is not None and self._hidden_cache[0] == hk:
            return self._hidden_cache[1]
        out: set[str] = set(self.inactive)
        for k in self._enclosures:
            o = self.objs.get(k)
            if o is not None and not o["isOpen"] and o["receptacleObjectIds"]:
                out.update(self.contents(k))
        self._hidden_cache = (hk, out)
        return out

    def touch(self) -> None:
        """Tell the caches that objects were edited from outside the actions (scenarios do this)."""
        self.state_version += 1
        self.geometry_version += 1
        self.open_version += 1
        self._geo = None
        self._hidden_cache = None
        self._index_sources()

    def _geo_update(self, oid: str) -> None:
        """Refresh one object's rows in the cached geometry arrays (objects move one at a time)."""
        if self._geo is None:
            return
        i = self._geo[5].get(oid)
        if i is None:
            self._geo = None
            return
        _, pos, lo, hi, pts, _ = self._geo
        o = self.objs[oid]
        p = o["position"]
        bb = o["axisAlignedBoundingBox"]
        c, s = bb["center"], bb["size"]
        cen = np.array((c["x"], c["y"], c["z"]))
        half = np.array((s["x"] / 2, s["y"] / 2, s["z"] / 2))
        pos[i] = (p["x"], p["y"], p["z"])
        lo[i] = cen - half
        hi[i] = cen + half
        pts[9 * i : 9 * i + 9] = cen + _SIGNS * half
