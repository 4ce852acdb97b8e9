"""Scene geometry: bounds, floor triggers, faucet-basin links, obstacles, reachable positions, agent poses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..loader import SceneData
from ..metadata import aabb, box_of
from .constants import (
    AGENT_RADIUS,
    BASINS,
    CAMERA_HEIGHT,
    CROUCH_DROP,
    FLOOR_TRIGGER_DEFAULT,
    HAND_OFFSET,
    INF,
    OBSTACLE_SHRINK,
    OBSTACLE_SKIP,
    WATER_SOURCES,
)
from .state import WorldState, denoise, yaw_vectors


class SceneGeometry(WorldState):
    """The static layout (floors, obstacles, reachable grid) and the poses derived from the agent's."""

    def _bounds(self) -> dict[str, Any]:
        los = np.array([[INF, INF, INF]])
        his = np.array([[-INF, -INF, -INF]])
        for o in self.objs.values():
            c, s = box_of(o)
            los = np.minimum(los, np.array(c) - np.array(s) / 2)
            his = np.maximum(his, np.array(c) + np.array(s) / 2)
        lo, hi = los[0], his[0]
        center = (lo + hi) / 2
        return aabb(tuple(float(v) for v in center), tuple(float(v) for v in hi - lo))  # type: ignore[arg-type]

    def _agent_height(self, scene: SceneData) -> float:
        if scene.agent and scene.agent["position"].get("y") is not None:
            return float(scene.agent["position"]["y"])
        tops = [box_of(self.objs[f])[0][1] + box_of(self.objs[f])[1][1] / 2 for f in self.floors]
        return (max(tops) if tops else 0.0) + 0.901

    def _estimate_floor_trigger(self, floor: str) -> float:
        # Evidence from the initial state: pickupable objects resting in a floor-standing receptacle are in the
        # Floor's volume when low enough. Take the midpoint between the highest one inside and the lowest outside.
        f = self.objs[floor]
        contents = set(f["receptacleObjectIds"] or [])
        inside, outside = [], []
        for k, o in self.objs.items():
            if not o["pickupable"] or not o["parentReceptacles"]:
                continue
            parents = [p for p in o["parentReceptacles"] if p != floor and p in self.objs]
            if not any(p in contents for p in parents):
                continue
            c, s = box_of(o)
            bottom = c[1] - s[1] / 2
            (inside if k in contents else outside).append(bottom)
        lo = max(inside) if inside else None
        hi = min((b for b in outside if lo is None or b > lo), default=None)
        if lo is not None and hi is not None:
            return (lo + hi) / 2
        if lo is not None:
            return max(lo + 0.02, FLOOR_TRIGGER_DEFAULT)
        if hi is not None:
            return min(hi - 0.02, FLOOR_TRIGGER_DEFAULT)
        return FLOOR_TRIGGER_DEFAULT

    def _link_faucets(self) -> dict[str, list[str]]:
        # A faucet's running water reaches the basin nearest to it (same Sink/Bathtub in AI2-THOR's scenes).
        basins = [k for k, o in self.objs.items() if o["objectType"] in BASINS]
        out: dict[str, list[str]] = {}
        for k, o in self.objs.items():
            if o["objectType"] not in WATER_SOURCES or not basins:
                continue
            p = o["position"]
            want = "BathtubBasin" if o["objectType"] == "ShowerHead" else None
            cands = [b for b in basins if want is None or self.objs[b]["objectType"] == want] or basins

            def d(b: str, p: dict[str, float] = p) -> float:
                c = box_of(self.objs[b])[0]
                return math.hypot(c[0] - p["x"], c[2] - p["z"])

            best = min(cands, key=d)
            if d(best) < 2.0:
                out[k] = [best]
        return out

    def _obstacle_boxes(self) -> np.ndarray:
        rows = []
        self._obstacle_names: list[str] = []
        for o in self.objs.values():
            if o["pickupable"] or o["objectType"] in OBSTACLE_SKIP:
                continue
            c, s = box_of(o)
            bottom, top = c[1] - s[1] / 2, c[1] + s[1] / 2
            floor_y = self.agent_y - 0.901
            if bottom > floor_y + 1.5 or top < floor_y + 0.1 or s[1] < 0.05:
                continue
            hx = max(s[0] / 2 - OBSTACLE_SHRINK, min(s[0] / 2, 0.05))
            hz = max(s[2] / 2 - OBSTACLE_SHRINK, min(s[2] / 2, 0.05))
            rows.append((c[0] - hx, c[0] + hx, c[2] - hz, c[2] + hz))
            self._obstacle_names.append(o["name"])
        return np.array(rows, dtype=float).reshape(-1, 4)

    def _blocker(self, pts: np.ndarray) -> str:
        """Name of the obstacle nearest to the first blocked point (for THOR-like error messages)."""
        if not len(self._obstacles):
            return "Wall"
        bad = pts[~self._clear(pts)]
        p = bad[0] if len(bad) else pts[-1]
        b = self._obstacles
        dx = np.maximum(np.maximum(b[:, 0] - p[0], 0), p[0] - b[:, 1])
        dz = np.maximum(np.maximum(b[:, 2] - p[1], 0), p[1] - b[:, 3])
        d = dx * dx + dz * dz
        i = int(np.argmin(d))
        return self._obstacle_names[i] if d[i] < AGENT_RADIUS**2 else "Wall"

    def _floor_rect(self) -> tuple[float, float, float, float]:
        if self.floors:
            xs0, xs1, zs0, zs1 = [], [], [], []
            for f in self.floors:
                c, s = box_of(self.objs[f])
                xs0.append(c[0] - s[0] / 2)
                xs1.append(c[0] + s[0] / 2)
                zs0.append(c[2] - s[2] / 2)
                zs1.append(c[2] + s[2] / 2)
            return min(xs0), max(xs1), min(zs0), max(zs1)
        b = self.scene_bounds
        c, s = b["center"], b["size"]
        return c["x"] - s["x"] / 2, c["x"] + s["x"] / 2, c["z"] - s["z"] / 2, c["z"] + s["z"] / 2

    def _clear(self, pts: np.ndarray) -> np.ndarray:
        """Boolean mask: which (x, z) points can hold the agent (inside the floor, away from obstacles)."""
        x0, x1, z0, z1 = self._floor_rect()
        r = AGENT_RADIUS
        ok = (pts[:, 0] >= x0 + r) & (pts[:, 0] <= x1 - r) & (pts[:, 1] >= z0 + r) & (pts[:, 1] <= z1 - r)
        if len(self._obstacles):
            b = self._obstacles
            dx = np.maximum(np.maximum(b[None, :, 0] - pts[:, None, 0], 0), pts[:, None, 0] - b[None, :, 1])
            dz = np.maximum(np.maximum(b[None, :, 2] - pts[:, None, 1], 0), pts[:, None, 1] - b[None, :, 3])
            ok &= ((dx * dx + dz * dz) >= r * r).all(axis=1)
        return ok

    def reachable(self) -> np.ndarray:
        """(M, 2) array of reachable (x, z) grid points (cached)."""
        if self._grid is None:
            g = self.grid_size
            x0, x1, z0, z1 = self._floor_rect()
            xs = np.arange(math.ceil(x0 / g), math.floor(x1 / g) + 1) * g
            zs = np.arange(math.ceil(z0 / g), math.floor(z1 / g) + 1) * g
            pts = np.array([(x, z) for x in xs for z in zs], dtype=float).reshape(-1, 2)
            grid = pts[self._clear(pts)] if len(pts) else pts
            self._grid = np.round(grid, 4)
        return self._grid

    def _place_agent(self, scene: SceneData) -> None:
        if scene.agent:
            p = scene.agent["position"]
            self.pos = (float(p["x"]), self.agent_y, float(p["z"]))
            self.yaw = float(scene.agent.get("rotation", 0.0)) % 360
            self.horizon = float(scene.agent.get("horizon", 0.0))
            self.standing = bool(scene.agent.get("standing", True))
            return
        grid = self.reachable()
        if len(grid) == 0:
            x0, x1, z0, z1 = self._floor_rect()
            self.pos = ((x0 + x1) / 2, self.agent_y, (z0 + z1) / 2)
            return
        x0, x1, z0, z1 = self._floor_rect()
        mid = np.array([(x0 + x1) / 2, (z0 + z1) / 2])
        i = int(np.argmin(((grid - mid) ** 2).sum(axis=1)))
        self.pos = (float(grid[i, 0]), self.agent_y, float(grid[i, 1]))

    @property
    def camera(self) -> tuple[float, float, float]:
        """Camera position (agent position + eye height)."""
        h = CAMERA_HEIGHT - (0.0 if self.standing else CROUCH_DROP)
        return (self.pos[0], self.pos[1] + h, self.pos[2])

    def hand_position(self) -> tuple[float, float, float]:
        """Where a held object sits (AI2-THOR's heldObjectPose position)."""
        cx, cy, cz = self.camera
        (fx, fz), (rx, rz) = yaw_vectors(self.yaw)
        dx, dy, dz = HAND_OFFSET
        return (denoise(cx + rx * dx + fx * dz), denoise(cy + dy), denoise(cz + rz * dx + fz * dz))
