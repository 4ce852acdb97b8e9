"""The embedded household simulator's state and rules, in AI2-THOR 5.0.0's vocabulary.

:class:`World` holds object metadata dicts with exactly AI2-THOR's 42 keys and applies AI2-THOR actions to them
(``PickupObject``, ``PutObject``, ``ToggleObjectOn``...). Failures are outcomes: :meth:`World.step` returns
``(False, errorMessage, ...)``, never raises. After every action the contextual rules run (:meth:`World.settle`):
fridge -> Cold; running microwave, lit burner (via its StoveKnob), toaster, coffee machine -> Hot, cook, fill
coffee; running faucet/shower over a basin -> clean and fill with water; time passing -> reversible use ends and
hot/cold objects return to RoomTemp.

Where AI2-THOR's behaviour comes from physics (where exactly an object lands, trigger volumes), the rule is an
approximation chosen to match the recorded traces; each is listed in ``benchmarks/scenes.md``.

Copy-on-write discipline: nested values of an object dict (position, lists, boxes) are replaced, never mutated,
so the per-step metadata snapshots can share them with the live state.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._types import TYPES
from .loader import SceneData
from .metadata import LIQUIDS, aabb, box_of, make_object_id, oobb, vec

log = logging.getLogger(__name__)

INF = float("inf")

AGENT_RADIUS = 0.2
"""Horizontal radius of the agent's body used for reachability (AI2-THOR's capsule is about this wide)."""
CAMERA_HEIGHT = 0.675
"""Camera above the agent's position when standing (real FloorPlan1 event: 1.576 - 0.901)."""
CROUCH_DROP = 0.22
HAND_OFFSET = (0.0, -0.16, 0.38)
"""Held object position relative to the camera (right, up, forward): real ``heldObjectPose.localPosition``."""
HORIZON_LIMITS = (-30.0, 60.0)
FLOOR_TRIGGER_DEFAULT = 0.45
"""Height (m) below which a resting object also lies in the Floor's receptacle volume, when a scene gives no
evidence (real dumps: floor-contained objects rest below 0.47 m, table tops at 0.47-0.57 m are not)."""

ENCLOSING = frozenset({"Fridge", "Cabinet", "Drawer", "Microwave", "Safe", "Box", "LaundryHamper", "Kettle"})
"""Openable receptacles that hide their contents and take objects only when open (AI2-THOR: "Target openable
Receptacle is CLOSED"). A Toilet's lid does not count: the recording CleanToilets puts a SprayBottle on a closed
Toilet."""
OBSTACLE_SHRINK = 0.1
"""Metres taken off each side of an obstacle's box: colliders are tighter than render boxes (trace
prepare_going_to_bed walks 0.18 m from a DogBed's box)."""
STEP_SECONDS = 0.02
"""Simulated seconds per action: the median ``currentTime`` increment of real AI2-THOR 5.0.0 actions in the
recordings (0.019 s over 67 actions; DropHandObject waits for physics, about 1.1 s)."""
ROOM_TEMP_AFTER = 10.0
"""AI2-THOR's ``SimObjPhysics.HowManySecondsUntilRoomTemp`` default: seconds after leaving a heat/cold zone."""
ELECTRONICS = frozenset({"CellPhone", "Laptop", "Television"})
"""Broken ones switch off and cannot be turned on (object-types docs [S5])."""
COOK_HEAT = frozenset({"Microwave", "StoveBurner"})
SLICE_RESULT = {"Apple": 8, "Bread": 10, "Lettuce": 7, "Potato": 8, "Tomato": 7}
"""Number of ``XSliced`` pieces SliceObject makes (not in the notes: AI2-THOR's prefabs decide; chosen)."""
KNIVES = frozenset({"Knife", "ButterKnife"})
WATER_SOURCES = frozenset({"Faucet", "ShowerHead"})
BASINS = frozenset({"SinkBasin", "BathtubBasin"})
OBSTACLE_SKIP = frozenset({
    "Floor", "Window", "Painting", "Poster", "Curtains", "Blinds", "LightSwitch", "Mirror", "ShowerCurtain",
    "ShowerHead", "Faucet", "SinkBasin", "BathtubBasin", "StoveBurner", "StoveKnob", "TowelHolder",
    "HandTowelHolder", "ToiletPaperHanger", "Cabinet", "Drawer", "Shelf", "ShowerGlass", "ShowerDoor", "RoomDecor",
})  # fmt: skip
"""Types that never block the agent's body (wall-mounted, parts of furniture, or flat on the floor)."""


_POSE_ONLY = frozenset({
    "Pass", "Done", "Wait", "GetReachablePositions", "MoveAhead", "MoveBack", "MoveLeft", "MoveRight",
    "RotateLeft", "RotateRight", "LookUp", "LookDown", "Crouch", "Stand", "Teleport", "TeleportFull",
})  # fmt: skip
"""Actions that change at most the agent's pose (and the held object's position)."""


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
class InUse:
    """Someone else is using an object until ``until`` (``inf`` = for good, i.e. irreversible)."""

    until: float
    by: str = "someone else"
    switch_off: tuple[str, ...] = ()
    """Switches the other user turned on and turns off when done (the stove they were cooking on)."""

    @property
    def irreversible(self) -> bool:
        return math.isinf(self.until)


_SIGNS = 0.9 * np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)] + [[0, 0, 0]], dtype=float)
"""Visibility sample points (times the half size): the 8 corners pulled 10 % in, and the centre."""


def _yaw_vectors(yaw_deg: float) -> tuple[tuple[float, float], tuple[float, float]]:
    r = math.radians(yaw_deg)
    fwd = (math.sin(r), math.cos(r))
    right = (math.cos(r), -math.sin(r))
    return fwd, right


def _clean(v: float) -> float:
    # keep coordinates free of 1e-17 noise after trigonometry
    return round(v, 6) + 0.0


class World:
    """State and rules of one embedded scene. Create with a :class:`~scenes.embedded.loader.SceneData`.

    Args:
        scene: Initial state.
        grid_size: AI2-THOR ``gridSize`` (reachable-position spacing and default move length), metres.
        visibility_distance: AI2-THOR ``visibilityDistance``, metres.
        rotate_step: Default rotation, degrees.
        step_seconds: Simulated seconds every action takes (``Wait`` takes its ``seconds``).
        room_temp_after: Seconds after leaving a heat/cold source before an object is RoomTemp again.
        slice_requires_knife: ALFRED's rule (SliceObject needs a held Knife/ButterKnife); AI2-THOR has none.
        fov: Camera field of view, degrees.
    """

    def __init__(
        self,
        scene: SceneData,
        *,
        grid_size: float = 0.25,
        visibility_distance: float = 1.5,
        rotate_step: float = 90.0,
        step_seconds: float = STEP_SECONDS,
        room_temp_after: float = ROOM_TEMP_AFTER,
        slice_requires_knife: bool = False,
        fov: float = 90.0,
    ) -> None:
        import copy

        self.scene_name = scene.name
        self.grid_size = float(grid_size)
        self.visibility_distance = float(visibility_distance)
        self.rotate_step = float(rotate_step)
        self.step_seconds = float(step_seconds)
        self.room_temp_after = float(room_temp_after)
        self.room_temp_after_type: dict[str, float] = {}
        self.slice_requires_knife = bool(slice_requires_knife)
        self.fov = float(fov)
        self._tan_half_fov = math.tan(math.radians(self.fov) / 2)
        self.objs: dict[str, dict[str, Any]] = {}
        self.dirty: set[str] = set()
        """Ids of objects written since the last observation took them (:meth:`take_dirty`)."""
        self.writes = [0]
        """World-wide count of object writes (the renderer keys its cache on it)."""
        for o in scene.objects:
            self.objs[o["objectId"]] = ObjState(copy.deepcopy(o), self.dirty, self.writes)
        self.held: str | None = scene.held if scene.held in self.objs else None
        self.time = 0.0
        self.in_use: dict[str, InUse] = {}
        self.temp_clock: dict[str, float] = {}
        self.scene_bounds = scene.scene_bounds or self._bounds()
        self.floors = [k for k, o in self.objs.items() if o["objectType"] == "Floor"]
        self._floor_trigger = {f: self._estimate_floor_trigger(f) for f in self.floors}
        self._faucet_basins = self._link_faucets()
        self._grid: np.ndarray | None = None
        self.agent_y = self._agent_height(scene)
        self._obstacles = self._obstacle_boxes()
        self.pos = (0.0, self.agent_y, 0.0)
        self.yaw = 0.0
        self.horizon = 0.0
        self.standing = True
        self._place_agent(scene)
        self.last_action = "Initialize"
        self.collided = False
        self.geometry_version = 0
        """Bumped whenever an object moves (caches of boxes/visibility key on it)."""
        self.state_version = 0
        """Bumped by every action that may change object states (open, contents...)."""
        self._settled = -1
        self.open_version = 0
        self._in_source: set[str] = set()
        self._geo: tuple[Any, ...] | None = None
        self._index_sources()

    def _index_sources(self) -> None:
        # static capability flags: index the objects the contextual rules look at once
        objs = self.objs.values()
        self._cold = [o["objectId"] for o in objs if o["isColdSource"]]
        self._heat = [o["objectId"] for o in objs if o["isHeatSource"] and not o["isColdSource"]]
        self._water = [o["objectId"] for o in objs if o["objectType"] in WATER_SOURCES]
        self._enclosures = [o["objectId"] for o in objs if o["objectType"] in ENCLOSING and o["openable"]]

    # ------------------------------------------------------------------ scene geometry

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

    # ------------------------------------------------------------------ derived poses

    @property
    def camera(self) -> tuple[float, float, float]:
        """Camera position (agent position + eye height)."""
        h = CAMERA_HEIGHT - (0.0 if self.standing else CROUCH_DROP)
        return (self.pos[0], self.pos[1] + h, self.pos[2])

    def hand_position(self) -> tuple[float, float, float]:
        """Where a held object sits (AI2-THOR's heldObjectPose position)."""
        cx, cy, cz = self.camera
        (fx, fz), (rx, rz) = _yaw_vectors(self.yaw)
        dx, dy, dz = HAND_OFFSET
        return (_clean(cx + rx * dx + fx * dz), _clean(cy + dy), _clean(cz + rz * dx + fz * dz))

    # ------------------------------------------------------------------ containment helpers

    def contents(self, oid: str, *, recursive: bool = True) -> list[str]:
        """Objects inside ``oid`` (recursively: a potato in a pot on a burner is in the burner)."""
        out: list[str] = []
        stack = list(self.objs[oid]["receptacleObjectIds"] or [])
        seen = {oid}
        while stack:
            k = stack.pop(0)
            if k in seen or k not in self.objs:
                continue
            seen.add(k)
            out.append(k)
            if recursive:
                stack.extend(self.objs[k]["receptacleObjectIds"] or [])
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
        o["position"] = vec(_clean(p["x"] + d[0]), _clean(p["y"] + d[1]), _clean(p["z"] + d[2]))
        c, s = box_of(o)
        nc = (_clean(c[0] + d[0]), _clean(c[1] + d[1]), _clean(c[2] + d[2]))
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
        return (_clean(c[0] + rad * math.cos(ang)), _clean(bottom + os_[1] / 2), _clean(c[2] + rad * math.sin(ang)))

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

    # ------------------------------------------------------------------ in-use (COAT's availability)

    def set_in_use(
        self, oid: str, seconds: float | None, by: str = "someone else", switch_off: tuple[str, ...] = ()
    ) -> None:
        """Mark an object as used by someone else for ``seconds`` (None = for good, irreversible).

        ``switch_off``: toggleables that user switched on and switches off when the use ends.
        """
        until = INF if seconds is None else self.time + float(seconds)
        self.in_use[oid] = InUse(until=until, by=by, switch_off=tuple(switch_off))

    def in_use_report(self) -> dict[str, dict[str, Any]]:
        """``{objectId: {"state": "reversible-using"|"irreversible-using", "by", "until", "remaining"}}``."""
        out = {}
        for k, u in sorted(self.in_use.items()):
            out[k] = {
                "state": "irreversible-using" if u.irreversible else "reversible-using",
                "by": u.by,
                "until": None if u.irreversible else round(u.until, 6),
                "remaining": None if u.irreversible else round(max(u.until - self.time, 0.0), 6),
            }
        return out

    def _check_free(self, oid: str) -> None:
        u = self.in_use.get(oid)
        if u is None:
            return
        if u.irreversible:
            raise ActionFailed(f"{oid} is in use by {u.by} and will not become available (irreversible use)")
        raise ActionFailed(f"{oid} is in use by {u.by} for another {u.until - self.time:.1f} s")

    # ------------------------------------------------------------------ stepping

    def step(self, action: dict[str, Any]) -> tuple[bool, str, Any, str | None]:
        """Apply one AI2-THOR action dict ``{"action": name, **params}``.

        Returns:
            (lastActionSuccess, errorMessage, actionReturn, errorCode). Never raises for bad input.
        """
        name = action.get("action")
        self.collided = False
        if not isinstance(name, str) or not name:
            self.last_action = str(name)
            return False, "Invalid action: the 'action' key must be a non-empty string", None, "InvalidAction"
        self.last_action = name
        handler = getattr(self, f"_a_{name}", None)
        if handler is None:
            return (
                False,
                f"Invalid action: {name!r} is not an action of the embedded simulator (AI2-THOR names, e.g. "
                "PickupObject, PutObject, OpenObject, ToggleObjectOn, Teleport, Pass)",
                None,
                "InvalidAction",
            )
        params = {k: v for k, v in action.items() if k not in ("action", "sequenceId")}
        dt = self.step_seconds
        try:
            ret = handler(params)
            ok, err, code = True, "", None
            if name not in _POSE_ONLY:
                self.state_version += 1
        except ActionFailed as e:
            ret, ok, err, code = None, False, str(e), e.code
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            ret, ok, err, code = None, False, f"Invalid argument for {name}: {e}", "InvalidArgument"
        if name == "Wait" and ok:
            dt = float(params.get("seconds", self.step_seconds))
        self.advance(dt)
        return ok, err, ret, code

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass, then apply the contextual rules."""
        if seconds > 0:
            self.time += seconds
        for k in [k for k, u in self.in_use.items() if u.until <= self.time]:
            for switch in self.in_use.pop(k).switch_off:
                self._switch_off(switch)
        self.settle()

    def _switch_off(self, oid: str) -> None:
        o = self.objs.get(oid)
        if o is None or not o["isToggled"]:
            return
        o["isToggled"] = False
        for c in o.get("controlledObjects") or []:
            if c in self.objs:
                self.objs[c]["isToggled"] = False
        self.state_version += 1

    # ------------------------------------------------------------------ contextual rules

    def settle(self) -> None:
        """Apply AI2-THOR's contextual state changes (heat, cold, running water, cooling down)."""
        objs = self.objs
        if self._settled == self.state_version:
            # nothing that decides zone membership changed since the last full pass: only the clocks run
            self._clocks(self._in_source)
            return
        in_source: set[str] = set()
        for k in self._cold:
            if k in objs:
                for c in self.contents(k):
                    self._set_temp(c, "Cold")
                    in_source.add(c)
        for k in self._heat:
            o = objs.get(k)
            if o is None:
                continue
            t = o["objectType"]
            if o["isToggled"] and not o["isBroken"]:
                for c in self.contents(k):
                    co = objs[c]
                    if t == "Toaster":
                        if co["objectType"] == "BreadSliced":
                            if not co["isCooked"]:
                                co["isCooked"] = True
                            self._set_temp(c, "Hot")
                            in_source.add(c)
                        continue
                    if t == "CoffeeMachine":
                        if co["objectType"] == "Mug" and co["canFillWithLiquid"] and not co["isBroken"]:
                            if not co["isFilledWithLiquid"]:
                                co["isFilledWithLiquid"] = True
                                co["fillLiquid"] = "coffee"
                                self._set_temp(c, "Hot")
                            in_source.add(c)
                        continue
                    self._set_temp(c, "Hot")
                    in_source.add(c)
                    if t in COOK_HEAT and co["cookable"] and not co["isCooked"]:
                        co["isCooked"] = True
        for k in self._water:
            o = objs.get(k)
            if o is not None and o["isToggled"]:
                for b in self._faucet_basins.get(k, ()):
                    for c in self.contents(b):
                        co = objs[c]
                        if co["dirtyable"] and co["isDirty"]:
                            co["isDirty"] = False
                        if co["canFillWithLiquid"] and not co["isFilledWithLiquid"] and not co["isBroken"]:
                            co["isFilledWithLiquid"] = True
                            co["fillLiquid"] = "water"
                        if co["objectType"] == "Candle" and co["isToggled"]:
                            co["isToggled"] = False
        self._in_source = in_source
        self._settled = self.state_version
        self._clocks(in_source)

    def _clocks(self, in_source: set[str]) -> None:
        # leaving a source starts the clock; after room_temp_after seconds the object is RoomTemp again
        objs = self.objs
        for c in in_source:
            self.temp_clock[c] = self.time
        for c, since in list(self.temp_clock.items()):
            if c in in_source:
                continue
            o = objs.get(c)
            if o is None or o["temperature"] == "RoomTemp":
                self.temp_clock.pop(c, None)
            elif self.time - since >= self.room_temp_after_type.get(o["objectType"], self.room_temp_after):
                o["temperature"] = "RoomTemp"
                self.temp_clock.pop(c, None)

    def _set_temp(self, oid: str, temp: str) -> None:
        o = self.objs[oid]
        if o["temperature"] != temp:
            o["temperature"] = temp

    # ------------------------------------------------------------------ parameter helpers

    def _target(self, p: dict[str, Any], *, need_visible: bool = True) -> dict[str, Any]:
        if "objectId" not in p:
            raise ActionFailed(f"{self.last_action} needs an objectId", "MissingArguments")
        oid = p["objectId"]
        if not isinstance(oid, str) or oid not in self.objs:
            raise ActionFailed(f"Object ID appears to be invalid. ({oid!r} is not in the scene)")
        o = self.objs[oid]
        if need_visible and not p.get("forceAction", False) and not self.is_interactable(oid):
            if self._in_frame_but_far(oid):
                raise ActionFailed(f"{oid} is too far away to be interacted with")
            raise ActionFailed(f"{oid} is not interactable and (perhaps it is occluded by something).")
        return o

    def is_interactable(self, oid: str) -> bool:
        """Visibility test used for actions without forceAction (see :meth:`visibility`)."""
        vis, _ = self.visibility()
        return bool(vis.get(oid, False))

    _vis_cache: tuple[Any, dict[str, bool], dict[str, float]] | None = None
    vis_arrays: tuple[list[str], np.ndarray, np.ndarray] | None = None
    """(ids, visible, distance) of the last visibility computation, in ``objs`` order."""
    _far_mask: tuple[list[str], np.ndarray] | None = None

    def _in_frame_but_far(self, oid: str) -> bool:
        self.visibility()
        if self._far_mask is None:
            return False
        ids, far = self._far_mask
        return bool(far[ids.index(oid)]) if oid in self.objs else False

    def visibility(self) -> tuple[dict[str, bool], dict[str, float]]:
        """Return ({objectId: visible}, {objectId: distance}); cached until something changes.

        ``distance`` is AI2-THOR's: object position to agent position. ``visible``: some corner or the
        centre of the object's box is inside the camera's view and the box's nearest point is within
        ``visibility_distance`` of the camera; contents of closed fridges/cabinets/drawers are hidden.
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
        (fx, fz), (rx, rz) = _yaw_vectors(self.yaw)
        h = math.radians(self.horizon)  # positive horizon looks down
        ch, sh = math.cos(h), math.sin(h)
        basis = np.array([[fx * ch, rx, fx * sh], [-sh, 0.0, ch], [fz * ch, rz, fz * sh]])
        proj = (pts - cam) @ basis  # (n*9, 3): forward, right, up
        lim = self._tan_half_fov * proj[:, 0]
        ok = (proj[:, 0] > 0.05) & (np.abs(proj[:, 1]) <= lim) & (np.abs(proj[:, 2]) <= lim)
        inview = ok.reshape(n, 9).any(axis=1)
        visible = close & inview
        self._far_mask = (ids, inview & ~close)
        index = self._geo[5]  # type: ignore[index]
        for k in self._hidden():
            visible[index[k]] = False
        if self.held is not None:
            visible[index[self.held]] = True
        vis = dict(zip(ids, visible.tolist(), strict=True))
        dd = dict(zip(ids, dist.tolist(), strict=True))
        self._vis_cache = (key, vis, dd)
        self.vis_arrays = (ids, visible, dist)
        return vis, dd

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
        out: set[str] = set()
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

    # ------------------------------------------------------------------ navigation actions

    def _a_Pass(self, p: dict[str, Any]) -> None:
        return None

    def _a_Initialize(self, p: dict[str, Any]) -> dict[str, float]:
        """AI2-THOR's agent set-up (sent by ``Controller.reset``): takes gridSize, visibilityDistance,
        rotateStepDegrees and fieldOfView; other keys (render flags...) are accepted and ignored."""
        for key, attr in (
            ("gridSize", "grid_size"),
            ("visibilityDistance", "visibility_distance"),
            ("rotateStepDegrees", "rotate_step"),
            ("fieldOfView", "fov"),
        ):
            if key in p:
                v = p[key]
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0 or math.isinf(v):
                    raise ActionFailed(f"{key} must be a number > 0, got {v!r}", "InvalidArgument")
                setattr(self, attr, float(v))
        self._tan_half_fov = math.tan(math.radians(self.fov) / 2)
        self._grid = None
        self._vis_cache = None
        return {"cameraNearPlane": 0.01, "cameraFarPlane": 20.0}

    def _a_Done(self, p: dict[str, Any]) -> None:
        return None

    def _a_Wait(self, p: dict[str, Any]) -> None:
        s = p.get("seconds", self.step_seconds)
        if not isinstance(s, (int, float)) or isinstance(s, bool) or s < 0 or math.isnan(s) or math.isinf(s):
            raise ActionFailed(f"Wait needs seconds >= 0, got {s!r}", "InvalidArgument")
        return None

    def _a_GetReachablePositions(self, p: dict[str, Any]) -> list[dict[str, float]]:
        return [vec(float(x), self.agent_y, float(z)) for x, z in self.reachable()]

    def _can_stand(self, x: float, z: float) -> bool:
        return bool(self._clear(np.array([[x, z]]))[0])

    def _move(self, p: dict[str, Any], dx: float, dz: float) -> None:
        mag = p.get("moveMagnitude", self.grid_size)
        if not isinstance(mag, (int, float)) or isinstance(mag, bool) or mag <= 0 or math.isinf(mag):
            raise ActionFailed(f"moveMagnitude must be > 0, got {mag!r}", "InvalidArgument")
        x0, _, z0 = self.pos
        n = max(2, int(math.ceil(mag / 0.05)) + 1)
        ts = np.linspace(0.0, 1.0, n)[1:]
        pts = np.stack([x0 + dx * mag * ts, z0 + dz * mag * ts], axis=1)
        if not self._clear(pts).all():
            self.collided = True
            raise ActionFailed(f"{self._blocker(pts)} is blocking Agent 0 from moving {self.last_action[4:]} {mag}")
        self._set_pose(x0 + dx * mag, z0 + dz * mag)

    def _set_pose(self, x: float, z: float) -> None:
        self.pos = (_clean(x), self.agent_y, _clean(z))
        self._carry()

    def _carry(self) -> None:
        if self.held is not None:
            self._move_to(self.held, self.hand_position())

    def _a_MoveAhead(self, p: dict[str, Any]) -> None:
        (fx, fz), _ = _yaw_vectors(self.yaw)
        self._move(p, fx, fz)

    def _a_MoveBack(self, p: dict[str, Any]) -> None:
        (fx, fz), _ = _yaw_vectors(self.yaw)
        self._move(p, -fx, -fz)

    def _a_MoveRight(self, p: dict[str, Any]) -> None:
        _, (rx, rz) = _yaw_vectors(self.yaw)
        self._move(p, rx, rz)

    def _a_MoveLeft(self, p: dict[str, Any]) -> None:
        _, (rx, rz) = _yaw_vectors(self.yaw)
        self._move(p, -rx, -rz)

    def _rotate(self, p: dict[str, Any], sign: float) -> None:
        deg = p.get("degrees", self.rotate_step)
        if not isinstance(deg, (int, float)) or isinstance(deg, bool) or math.isnan(deg) or math.isinf(deg):
            raise ActionFailed(f"degrees must be a number, got {deg!r}", "InvalidArgument")
        self.yaw = _clean((self.yaw + sign * deg) % 360)
        self._carry()

    def _a_RotateRight(self, p: dict[str, Any]) -> None:
        self._rotate(p, 1.0)

    def _a_RotateLeft(self, p: dict[str, Any]) -> None:
        self._rotate(p, -1.0)

    def _look(self, p: dict[str, Any], sign: float) -> None:
        deg = p.get("degrees", 30.0)
        if not isinstance(deg, (int, float)) or isinstance(deg, bool) or math.isnan(deg):
            raise ActionFailed(f"degrees must be a number, got {deg!r}", "InvalidArgument")
        h = self.horizon + sign * deg
        lo, hi = HORIZON_LIMITS
        if h < lo - 1e-6 or h > hi + 1e-6:
            raise ActionFailed(
                f"can't look {'down' if sign > 0 else 'up'} beyond {hi if sign > 0 else lo} degrees (horizon {h})"
            )
        self.horizon = _clean(h)
        self._carry()

    def _a_LookDown(self, p: dict[str, Any]) -> None:
        self._look(p, 1.0)

    def _a_LookUp(self, p: dict[str, Any]) -> None:
        self._look(p, -1.0)

    def _a_Crouch(self, p: dict[str, Any]) -> None:
        if not self.standing:
            raise ActionFailed("Already crouching")
        self.standing = False
        self._carry()

    def _a_Stand(self, p: dict[str, Any]) -> None:
        if self.standing:
            raise ActionFailed("Already standing")
        self.standing = True
        self._carry()

    def _teleport(self, p: dict[str, Any], full: bool) -> None:
        if full:
            missing = [k for k in ("position", "rotation", "horizon", "standing") if k not in p]
            if missing:
                raise ActionFailed(f"TeleportFull needs {', '.join(missing)}", "MissingArguments")
        x, z = self.pos[0], self.pos[2]
        if p.get("position") is not None:
            pos = p["position"]
            if isinstance(pos, dict):
                x, z = float(pos["x"]), float(pos["z"])
            elif isinstance(pos, (list, tuple)) and len(pos) == 3:
                x, z = float(pos[0]), float(pos[2])
            else:
                raise ActionFailed(f"position must be {{x, y, z}}, got {pos!r}", "InvalidArgument")
        yaw = self.yaw
        if p.get("rotation") is not None:
            r = p["rotation"]
            yaw = float(r["y"]) if isinstance(r, dict) else float(r)
        horizon = float(p["horizon"]) if p.get("horizon") is not None else self.horizon
        lo, hi = HORIZON_LIMITS
        if not lo - 1e-6 <= horizon <= hi + 1e-6:
            raise ActionFailed(f"horizon must be in [{lo}, {hi}], got {horizon}", "InvalidArgument")
        standing = bool(p["standing"]) if p.get("standing") is not None else self.standing
        if not all(math.isfinite(v) for v in (x, z, yaw)):
            raise ActionFailed("position and rotation must be finite numbers", "InvalidArgument")
        if not self._can_stand(x, z):
            self.collided = True
            raise ActionFailed(
                f"Teleport to ({x:.3f}, {z:.3f}) is not a valid agent position (collides or is off the floor)"
            )
        self.yaw = yaw % 360
        self.horizon = horizon
        self.standing = standing
        self._set_pose(x, z)

    def _a_Teleport(self, p: dict[str, Any]) -> None:
        self._teleport(p, full=False)

    def _a_TeleportFull(self, p: dict[str, Any]) -> None:
        self._teleport(p, full=True)

    # ------------------------------------------------------------------ object actions

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
        mag = float(p.get("moveMagnitude", 0.0))
        if mag < 0 or not math.isfinite(mag):
            raise ActionFailed(f"moveMagnitude must be >= 0, got {mag}", "InvalidArgument")
        hid = h["objectId"]
        (fx, fz), _ = _yaw_vectors(self.yaw)
        dist = min(mag / 50.0, 3.0)
        hx, _, hz = self.hand_position()
        out = self._drop(_clean(hx + fx * dist), _clean(hz + fz * dist))
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

    def _toggle(self, p: dict[str, Any], on: bool) -> None:
        o = self._target(p)
        oid, t = o["objectId"], o["objectType"]
        if not o["toggleable"]:
            if t == "StoveBurner":
                raise ActionFailed(f"{oid} is not toggleable (a StoveBurner is switched by its StoveKnob)")
            raise ActionFailed(f"{oid} is not toggleable")
        self._check_free(oid)
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self._check_free(c)
        if on:
            if o["isToggled"]:
                raise ActionFailed("can't toggle object on if it's already on!")
            if o["isBroken"]:
                raise ActionFailed(f"{oid} is broken and cannot be turned on")
            if t == "Microwave" and o["isOpen"]:
                raise ActionFailed("Target must be closed to turn on! (a Microwave cannot run while open)")
        elif not o["isToggled"]:
            raise ActionFailed("can't toggle object off if it's already off!")
        o["isToggled"] = on
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self.objs[c]["isToggled"] = on

    def _a_ToggleObjectOn(self, p: dict[str, Any]) -> None:
        self._toggle(p, True)

    def _a_ToggleObjectOff(self, p: dict[str, Any]) -> None:
        self._toggle(p, False)

    def _knife_check(self, p: dict[str, Any]) -> None:
        if self.slice_requires_knife and not p.get("forceAction", False):
            if self.held is None or self.objs[self.held]["objectType"] not in KNIVES:
                raise ActionFailed("Agent should be holding a knife before slicing.")

    def _a_SliceObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["sliceable"]:
            raise ActionFailed(f"{o['name']} Does not have the CanBeSliced property!")
        if o["isSliced"]:
            raise ActionFailed(f"{oid} is already sliced")
        self._check_free(oid)
        self._knife_check(p)
        if o["objectType"] == "Egg":
            self._crack(oid)
            return
        o["isSliced"] = True
        self._spawn_pieces(oid, f"{o['objectType']}Sliced", SLICE_RESULT.get(o["objectType"], 4))

    def _spawn_pieces(self, oid: str, piece_type: str, n: int) -> list[str]:
        """Replace ``oid`` by ``n`` pieces ``<oid>|<PieceType>_i`` (AI2-THOR ids for slices)."""
        import copy

        o = self.objs[oid]
        info = TYPES.get(piece_type)
        c, s = box_of(o)
        parents = list(o["parentReceptacles"] or [])
        was_held = self.held == oid
        pieces = []
        for i in range(n):
            pid = f"{oid}|{piece_type}_{i}"
            m = copy.deepcopy(dict(o))
            frac = (i + 0.5) / n - 0.5
            ps = (s[0] / n if s[0] >= s[2] else s[0], s[1], s[2] / n if s[2] > s[0] else s[2])
            pc = (c[0] + (frac * s[0] if s[0] >= s[2] else 0.0), c[1], c[2] + (frac * s[2] if s[2] > s[0] else 0.0))
            m.update(
                name=f"{o['name']}_{piece_type}_{i}",
                objectId=pid,
                objectType=piece_type,
                assetId=f"{piece_type}_1",
                position=vec(pc[0], pc[1] - ps[1] / 2, pc[2]),
                axisAlignedBoundingBox=aabb(pc, ps),
                objectOrientedBoundingBox=oobb(pc, ps),
                sliceable=False,
                isSliced=False,
                breakable=False,
                isPickedUp=False,
                pickupable=True,
                cookable="cookable" in (info.flags if info else ()),
                mass=round(o["mass"] / n, 4),
                parentReceptacles=list(parents) or None,
                receptacleObjectIds=None,
            )
            self.objs[pid] = ObjState(m, self.dirty, self.writes)
            pieces.append(pid)
        # the whole object is replaced: gone from receptacles and from the scene (AI2-THOR deactivates it)
        self._detach(oid)
        for p_ in parents:
            r = self.objs.get(p_)
            if r is not None:
                r["receptacleObjectIds"] = [*(r["receptacleObjectIds"] or []), *pieces]
        del self.objs[oid]
        self._geo = None
        self.in_use.pop(oid, None)
        self.temp_clock.pop(oid, None)
        if was_held:
            # AI2-THOR drops the object's pieces where it was; the hand is empty afterwards
            self.held = None
            fl = self._floor_at(c[0], c[2])
            for pid in pieces:
                self.objs[pid]["parentReceptacles"] = [fl] if fl else None
                if fl:
                    self.objs[fl]["receptacleObjectIds"] = [*(self.objs[fl]["receptacleObjectIds"] or []), pid]
        self.geometry_version += 1
        return pieces

    def _crack(self, oid: str) -> None:
        self._spawn_pieces(oid, "EggCracked", 1)

    def _break(self, oid: str) -> None:
        o = self.objs[oid]
        if o["objectType"] == "Egg":
            self._crack(oid)
            return
        o["isBroken"] = True
        if o["objectType"] in ELECTRONICS and o["isToggled"]:
            o["isToggled"] = False
        if o["isFilledWithLiquid"]:
            o["isFilledWithLiquid"] = False
            o["fillLiquid"] = None

    def _a_BreakObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["breakable"]:
            raise ActionFailed(f"{oid} is not a Breakable object")
        if o["isBroken"]:
            raise ActionFailed(f"{oid} is already broken")
        self._check_free(oid)
        self._break(oid)

    def _a_DirtyObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{oid} is not a Dirtyable object")
        if o["isDirty"]:
            raise ActionFailed(f"{oid} is already dirty")
        self._check_free(oid)
        o["isDirty"] = True

    def _a_CleanObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{oid} is not a Dirtyable object")
        if not o["isDirty"]:
            raise ActionFailed(f"{oid} is already clean")
        self._check_free(oid)
        o["isDirty"] = False

    def _a_FillObjectWithLiquid(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        liquid = p.get("fillLiquid")
        if liquid is None:
            raise ActionFailed(
                "FillObjectWithLiquid needs fillLiquid ('water', 'coffee' or 'wine')", "MissingArguments"
            )
        if liquid not in LIQUIDS:
            raise ActionFailed(f"fillLiquid must be one of {list(LIQUIDS)}, got {liquid!r}", "InvalidArgument")
        if not o["canFillWithLiquid"]:
            raise ActionFailed(f"{oid} cannot be filled with liquid")
        if o["isBroken"]:
            raise ActionFailed(f"{oid} is broken and cannot hold liquid")
        if o["isFilledWithLiquid"]:
            raise ActionFailed("Object is already filled!")
        self._check_free(oid)
        o["isFilledWithLiquid"] = True
        o["fillLiquid"] = liquid

    def _a_EmptyLiquidFromObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canFillWithLiquid"]:
            raise ActionFailed(f"{oid} cannot be filled with liquid")
        if not o["isFilledWithLiquid"]:
            raise ActionFailed("Object is already empty!")
        self._check_free(oid)
        o["isFilledWithLiquid"] = False
        o["fillLiquid"] = None

    def _a_UseUpObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canBeUsedUp"]:
            raise ActionFailed(f"{oid} cannot be used up")
        if o["isUsedUp"]:
            raise ActionFailed(f"{oid} is already used up")
        self._check_free(oid)
        o["isUsedUp"] = True

    def _a_CookObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["cookable"]:
            raise ActionFailed(f"{oid} is not a Cookable object")
        if o["isCooked"]:
            raise ActionFailed(f"{oid} is already cooked")
        self._check_free(oid)
        o["isCooked"] = True

    def _a_UseObject(self, p: dict[str, Any]) -> None:
        """Someone else starts using an object: for ``seconds`` (reversible), or for good (``irreversible``)."""
        if "objectId" not in p:
            raise ActionFailed("UseObject needs an objectId", "MissingArguments")
        oid = p["objectId"]
        if not isinstance(oid, str) or oid not in self.objs:
            raise ActionFailed(f"Object ID appears to be invalid: {oid!r} is not in the scene")
        irreversible = bool(p.get("irreversible", False))
        seconds = p.get("seconds")
        if not irreversible:
            if seconds is None:
                raise ActionFailed("UseObject needs seconds > 0, or irreversible=True", "MissingArguments")
            if (
                not isinstance(seconds, (int, float))
                or isinstance(seconds, bool)
                or not seconds > 0
                or math.isinf(seconds)
            ):
                raise ActionFailed(f"seconds must be a finite number > 0, got {seconds!r}", "InvalidArgument")
        if oid == self.held:
            raise ActionFailed(f"{oid} is in the agent's hand")
        self.set_in_use(oid, None if irreversible else float(seconds), by=str(p.get("by", "someone else")))

    def _decay_time(self, p: dict[str, Any]) -> float:
        t = p.get("TimeUntilRoomTemp", 0.0)
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0 or math.isnan(t):
            raise ActionFailed(f"TimeUntilRoomTemp must be a number >= 0, got {t!r}", "InvalidArgument")
        return float(t)

    def _a_SetRoomTempDecayTimeForType(self, p: dict[str, Any]) -> None:
        t = p.get("objectType")
        if not isinstance(t, str) or not t:
            raise ActionFailed("SetRoomTempDecayTimeForType needs an objectType", "MissingArguments")
        self.room_temp_after_type[t] = self._decay_time(p)

    def _a_SetGlobalRoomTempDecayTime(self, p: dict[str, Any]) -> None:
        self.room_temp_after = self._decay_time(p)
        self.room_temp_after_type.clear()

    # ------------------------------------------------------------------ helpers for scenarios

    def remove_object(self, oid: str) -> None:
        """Take an object out of the scene (scenario "no knife")."""
        if oid not in self.objs:
            return
        for c in self.contents(oid, recursive=False):
            self.objs[c]["parentReceptacles"] = [
                x for x in (self.objs[c]["parentReceptacles"] or []) if x != oid
            ] or None
        self._detach(oid)
        if self.held == oid:
            self.held = None
        del self.objs[oid]
        self._geo = None
        self.in_use.pop(oid, None)
        self.geometry_version += 1

    def new_object_id(self, object_type: str, center: tuple[float, float, float]) -> str:
        """A fresh AI2-THOR-style id for an object placed at ``center``."""
        return make_object_id(object_type, *center)


__all__ = ["AGENT_RADIUS", "ActionFailed", "InUse", "World"]
