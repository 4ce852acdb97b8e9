"""Top-down pictures of an embedded scene (OpenCV), with instance masks.

Each object is drawn as its axis-aligned footprint, lower objects first, filled with a colour per type and
outlined by state (legend below); the agent is a circle with a heading arrow. An instance-id image drawn the
same way gives ``objectId -> bool mask`` for every object that shows in the frame, and feeds the
``ai2thor.server.Event`` segmentation API (``event.instance_masks``, ``event.instance_detections2D``).

Legend (outline colour, BGR order handled internally): Hot red, Cold blue, toggled on yellow, open white,
dirty brown fill, broken red cross, filled with liquid cyan dot, used by someone else magenta, held green.
North (-z) is up, +x is right.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from planner._optional import require

from .world import World

STATE_COLOURS: dict[str, tuple[int, int, int]] = {
    "Hot": (230, 40, 40),
    "Cold": (40, 90, 240),
    "on": (250, 210, 0),
    "open": (255, 255, 255),
    "dirty": (120, 80, 40),
    "broken": (220, 0, 0),
    "liquid": (0, 200, 220),
    "in_use": (220, 0, 220),
    "held": (0, 200, 0),
}
"""RGB colours of the state marks."""


def _type_colour(t: str) -> tuple[int, int, int]:
    h = zlib.crc32(t.encode())
    return (80 + h % 150, 80 + (h >> 8) % 150, 80 + (h >> 16) % 150)


class TopDownRenderer:
    """Draws a World top-down. One renderer per scene; it keeps instance colours stable across steps."""

    def __init__(self, world: World, width: int = 300, height: int = 300) -> None:
        self.cv2 = require("cv2", "vision")
        self.width, self.height = width, height
        x0, x1, z0, z1 = world._floor_rect()
        pad = 0.2
        self.x0, self.z0 = x0 - pad, z0 - pad
        span = max(x1 - x0 + 2 * pad, z1 - z0 + 2 * pad)
        self.scale = min(width, height) / span
        self._colour: dict[str, tuple[int, int, int]] = {}
        self._cache: tuple[Any, np.ndarray, dict[str, np.ndarray], bytes] | None = None
        self._colors_cache: tuple[list[str], list[dict[str, Any]]] | None = None

    def _px(self, x: float, z: float) -> tuple[int, int]:
        return int(round((x - self.x0) * self.scale)), int(round((z - self.z0) * self.scale))

    def instance_colour(self, oid: str) -> tuple[int, int, int]:
        """A unique, stable RGB colour for an objectId (never black, which means background)."""
        c = self._colour.get(oid)
        if c is None:
            used = set(self._colour.values())
            h = zlib.crc32(oid.encode()) & 0xFFFFFF
            while True:
                c = ((h >> 16) & 255, (h >> 8) & 255, h & 255)
                if c not in used and c != (0, 0, 0):
                    break
                h = (h * 1103515245 + 12345) & 0xFFFFFF
            self._colour[oid] = c
        return c

    def colors(self, ids: list[str]) -> list[dict[str, Any]]:
        """AI2-THOR ``metadata["colors"]`` entries ``{name: objectId, color: [r, g, b]}``."""
        if self._colors_cache is not None and self._colors_cache[0] == ids:
            return self._colors_cache[1]
        out = [{"name": k, "color": list(self.instance_colour(k))} for k in ids]
        self._colors_cache = (ids, out)
        return out

    def render(self, world: World) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Return (RGB frame HxWx3 uint8, {objectId: HxW bool mask}).

        The scene layer (objects and masks) is cached until an object changes or moves; the agent is drawn on
        a copy, so turning or walking empty-handed costs one image copy.
        """
        key = (world.writes[0], world.geometry_version, len(world.objs), tuple(sorted(world.in_use)))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, *self._scene_layer(world))
        _, base, masks, _ = self._cache
        img = base.copy()
        self._draw_agent(img, world)
        return img, masks

    def _scene_layer(self, world: World) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        cv2 = self.cv2
        img = np.full((self.height, self.width, 3), 40, np.uint8)
        label = np.zeros((self.height, self.width), np.int32)
        order = sorted(
            world.objs.items(),
            key=lambda kv: (
                kv[1]["axisAlignedBoundingBox"]["center"]["y"] + kv[1]["axisAlignedBoundingBox"]["size"]["y"] / 2
            ),
        )
        in_use = world.in_use
        font = cv2.FONT_HERSHEY_SIMPLEX
        labels = []
        ids: list[str] = []
        for k, o in order:
            if k in world.inactive:
                continue  # a sliced object's whole is deactivated: nothing to draw
            bb = o["axisAlignedBoundingBox"]
            c, s = bb["center"], bb["size"]
            p0 = self._px(c["x"] - s["x"] / 2, c["z"] - s["z"] / 2)
            p1 = self._px(c["x"] + s["x"] / 2, c["z"] + s["z"] / 2)
            p1 = (max(p1[0], p0[0] + 2), max(p1[1], p0[1] + 2))
            fill = (200, 200, 200) if o["objectType"] == "Floor" else _type_colour(o["objectType"])
            if o["isDirty"]:
                fill = STATE_COLOURS["dirty"]
            cv2.rectangle(img, p0, p1, fill, -1)
            ids.append(k)
            cv2.rectangle(label, p0, p1, len(ids), -1)
            edge = None
            if o["isPickedUp"]:
                edge = STATE_COLOURS["held"]
            elif k in in_use:
                edge = STATE_COLOURS["in_use"]
            elif o["temperature"] == "Hot":
                edge = STATE_COLOURS["Hot"]
            elif o["temperature"] == "Cold" and o["objectType"] != "Floor":
                edge = STATE_COLOURS["Cold"]
            elif o["isToggled"]:
                edge = STATE_COLOURS["on"]
            elif o["openable"] and o["isOpen"]:
                edge = STATE_COLOURS["open"]
            if edge is not None:
                cv2.rectangle(img, p0, p1, edge, 2)
            if o["isBroken"]:
                cv2.line(img, p0, p1, STATE_COLOURS["broken"], 2)
                cv2.line(img, (p0[0], p1[1]), (p1[0], p0[1]), STATE_COLOURS["broken"], 2)
            if o["isFilledWithLiquid"]:
                cv2.circle(img, ((p0[0] + p1[0]) // 2, (p0[1] + p1[1]) // 2), 3, STATE_COLOURS["liquid"], -1)
            if o["pickupable"] and p1[0] - p0[0] >= 3:
                labels.append((o["objectType"][:6], (p0[0], max(p0[1] - 1, 8))))
        for text, at in labels:
            cv2.putText(img, text, at, font, 0.28, (255, 255, 255), 1, cv2.LINE_AA)
        counts = np.bincount(label.ravel(), minlength=len(ids) + 1)
        masks = {ids[i - 1]: label == i for i in np.flatnonzero(counts[1:]) + 1}
        palette = np.zeros((len(ids) + 1, 4), np.uint8)
        palette[:, 3] = 255
        for i, k in enumerate(ids, 1):
            palette[i, :3] = self.instance_colour(k)
        # AI2-THOR sends the id image bottom-up (RGBA); Event flips it back
        seg = np.ascontiguousarray(palette[label][::-1]).tobytes()
        return img, masks, seg

    def _draw_agent(self, img: np.ndarray, world: World) -> None:
        cv2 = self.cv2
        ax, _, az = world.pos
        ap = self._px(ax, az)
        r = max(3, int(0.2 * self.scale))
        cv2.circle(img, ap, r, (255, 120, 0), -1)
        yaw = np.radians(world.yaw)
        tip = (int(ap[0] + np.sin(yaw) * r * 2.2), int(ap[1] + np.cos(yaw) * r * 2.2))
        cv2.arrowedLine(img, ap, tip, (255, 255, 255), 2, tipLength=0.4)

    def attach_segmentation(self, event: Any) -> None:
        """Give an ``ai2thor.server.Event`` the instance-id frame (``event.instance_masks`` etc. then work)."""
        if self._cache is not None:
            event.add_image_ids(self._cache[3])


__all__ = ["STATE_COLOURS", "TopDownRenderer"]
