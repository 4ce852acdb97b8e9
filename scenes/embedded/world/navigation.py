"""Navigation action handlers: moving, turning, looking, crouching and teleporting the agent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..metadata import vec
from .constants import HORIZON_LIMITS
from .state import ActionFailed, WorldState, as_number, denoise, yaw_vectors


class NavigationActions(WorldState):
    """``_a_<Action>`` handlers that change only the agent's pose (and the held object's position)."""

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
        if not isinstance(mag, (int, float)) or isinstance(mag, bool) or not mag > 0 or math.isinf(mag):
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
        self.pos = (denoise(x), self.agent_y, denoise(z))
        self._carry()

    def _carry(self) -> None:
        if self.held is not None:
            self._move_to(self.held, self.hand_position())

    def _a_MoveAhead(self, p: dict[str, Any]) -> None:
        (fx, fz), _ = yaw_vectors(self.yaw)
        self._move(p, fx, fz)

    def _a_MoveBack(self, p: dict[str, Any]) -> None:
        (fx, fz), _ = yaw_vectors(self.yaw)
        self._move(p, -fx, -fz)

    def _a_MoveRight(self, p: dict[str, Any]) -> None:
        _, (rx, rz) = yaw_vectors(self.yaw)
        self._move(p, rx, rz)

    def _a_MoveLeft(self, p: dict[str, Any]) -> None:
        _, (rx, rz) = yaw_vectors(self.yaw)
        self._move(p, -rx, -rz)

    def _rotate(self, p: dict[str, Any], sign: float) -> None:
        deg = p.get("degrees", self.rotate_step)
        if not isinstance(deg, (int, float)) or isinstance(deg, bool) or math.isnan(deg) or math.isinf(deg):
            raise ActionFailed(f"degrees must be a number, got {deg!r}", "InvalidArgument")
        self.yaw = denoise((self.yaw + sign * deg) % 360)
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
        self.horizon = denoise(h)
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

    def _teleport_args(self, p: dict[str, Any], full: bool) -> tuple[float, float, float, float, bool]:
        """Read Teleport's (x, z, yaw, horizon, standing); the current pose fills what is not given."""
        if full:
            missing = [k for k in ("position", "rotation", "horizon", "standing") if k not in p]
            if missing:
                raise ActionFailed(f"TeleportFull needs {', '.join(missing)}", "MissingArguments")
        x, z = self.pos[0], self.pos[2]
        if p.get("position") is not None:
            pos = p["position"]
            if isinstance(pos, dict) and "x" in pos and "z" in pos:
                x, z = as_number(pos["x"], "position.x"), as_number(pos["z"], "position.z")
            elif isinstance(pos, (list, tuple)) and len(pos) == 3:
                x, z = as_number(pos[0], "position[0]"), as_number(pos[2], "position[2]")
            else:
                raise ActionFailed(f"position must be {{x, y, z}}, got {pos!r}", "InvalidArgument")
        yaw = self.yaw
        if p.get("rotation") is not None:
            r = p["rotation"]
            if isinstance(r, dict):
                if "y" not in r:
                    raise ActionFailed(f"rotation must be {{x, y, z}} or a number, got {r!r}", "InvalidArgument")
                yaw = as_number(r["y"], "rotation.y")
            else:
                yaw = as_number(r, "rotation")
        horizon = as_number(p["horizon"], "horizon") if p.get("horizon") is not None else self.horizon
        standing = bool(p["standing"]) if p.get("standing") is not None else self.standing
        return x, z, yaw, horizon, standing

    def _teleport(self, p: dict[str, Any], full: bool) -> None:
        x, z, yaw, horizon, standing = self._teleport_args(p, full)
        lo, hi = HORIZON_LIMITS
        if not lo - 1e-6 <= horizon <= hi + 1e-6:
            raise ActionFailed(f"horizon must be in [{lo}, {hi}], got {horizon}", "InvalidArgument")
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
