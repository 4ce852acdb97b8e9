"""Frame geometry: where an object is in the image and how big it is, and what its size says about its mass.

- **where**: 2D boxes from instance masks (:func:`boxes_from_masks`). :class:`Camera` projects AI2-THOR
  3D boxes into the image, which the benchmark uses for recorded frames that have no masks.
- **mass**: object volume from depth + mask (:func:`volume_from_depth`), or from an AI2-THOR axis-aligned
  box (:func:`aabb_volume`), turned into kg with a per-material shell model (:func:`kg_from_volume`,
  calibrated on AI2-THOR).

numpy only.

Example:
    >>> import numpy as np
    >>> masks = {"Mug|1": np.zeros((4, 6), bool)}
    >>> masks["Mug|1"][1:3, 2:5] = True
    >>> boxes_from_masks(masks)["Mug|1"]
    Box2D(x1=2, y1=1, x2=4, y2=2)
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.errors import ConfigError
from planner.schemas import Material

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- 2D boxes
@dataclass(frozen=True)
class Box2D:
    """An inclusive pixel box ``(x1, y1, x2, y2)`` = (min col, min row, max col, max row), AI2-THOR's convention."""

    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def width(self) -> int:
        """Columns covered."""
        return self.x2 - self.x1 + 1

    @property
    def height(self) -> int:
        """Rows covered."""
        return self.y2 - self.y1 + 1

    @property
    def area(self) -> int:
        """Pixels covered."""
        return self.width * self.height

    def iou(self, other: Box2D) -> float:
        """Intersection over union with another box."""
        ix = min(self.x2, other.x2) - max(self.x1, other.x1) + 1
        iy = min(self.y2, other.y2) - max(self.y1, other.y1) + 1
        if ix <= 0 or iy <= 0:
            return 0.0
        inter = ix * iy
        return inter / (self.area + other.area - inter)

    def clip(self, width: int, height: int) -> Box2D | None:
        """The part inside a ``width`` x ``height`` image, or None when nothing is inside."""
        x1, y1 = max(0, self.x1), max(0, self.y1)
        x2, y2 = min(width - 1, self.x2), min(height - 1, self.y2)
        if x2 < x1 or y2 < y1:
            return None
        return Box2D(x1, y1, x2, y2)


def boxes_from_masks(
    masks: Mapping[str, Any] | None, shape: tuple[int, int] | None = None, *, min_pixels: int = 1
) -> dict[str, Box2D]:
    """Bounding boxes of instance masks; objects whose mask is empty are not visible.

    Args:
        masks: objectId -> HxW mask (bool or 0/1). Masks of the wrong shape or dimension are skipped with
            a warning (bad input from a backend must not stop planning).
        shape: Expected (H, W); defaults to the first mask's shape.
        min_pixels: Fewer mask pixels than this counts as not visible.

    Returns:
        objectId -> Box2D, in the masks' order.
    """
    out: dict[str, Box2D] = {}
    for oid, raw in (masks or {}).items():
        m = np.asarray(raw)
        if m.ndim != 2:
            log.warning("mask of %s has shape %s, expected HxW; skipped", oid, m.shape)
            continue
        if shape is None:
            shape = (int(m.shape[0]), int(m.shape[1]))
        if tuple(m.shape) != tuple(shape):
            log.warning("mask of %s has shape %s, frame is %s; skipped", oid, m.shape, shape)
            continue
        m = m.astype(bool, copy=False)
        if int(m.sum()) < min_pixels:
            continue
        rows = np.flatnonzero(m.any(axis=1))
        cols = np.flatnonzero(m.any(axis=0))
        out[str(oid)] = Box2D(int(cols[0]), int(rows[0]), int(cols[-1]), int(rows[-1]))
    return out


# ---------------------------------------------------------------- camera and 3D boxes
@dataclass(frozen=True)
class Camera:
    """A pinhole camera with AI2-THOR's conventions (Unity: y up, z forward at yaw 0, left-handed).

    Attributes:
        position: Camera position (x, y, z) in metres.
        yaw: Agent rotation about y in degrees (0 looks along +z, 90 along +x).
        horizon: Camera pitch in degrees, positive looking down (``agent.cameraHorizon``).
        fov: Vertical field of view in degrees.
        width, height: Image size in pixels.
    """

    position: tuple[float, float, float]
    yaw: float
    horizon: float
    fov: float
    width: int
    height: int

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any]) -> Camera | None:
        """Build from AI2-THOR event metadata (camera position, agent pose, fov, screen size); None if incomplete."""
        try:
            cam, agent = meta["cameraPosition"], meta["agent"]
            return cls(
                (float(cam["x"]), float(cam["y"]), float(cam["z"])),
                float(agent["rotation"]["y"]),
                float(agent.get("cameraHorizon", 0.0)),
                float(meta.get("fov", 90.0)),
                int(meta["screenWidth"]),
                int(meta["screenHeight"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    @property
    def focal(self) -> float:
        """Focal length in pixels."""
        return (self.height / 2) / math.tan(math.radians(self.fov) / 2)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> camera coordinates (N, 3): x right, y up, z forward."""
        yaw, h = math.radians(self.yaw), math.radians(self.horizon)
        right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
        fwd = np.array([math.sin(yaw) * math.cos(h), -math.sin(h), math.cos(yaw) * math.cos(h)])
        up = np.array([math.sin(yaw) * math.sin(h), math.cos(h), math.cos(yaw) * math.sin(h)])
        d = np.asarray(points, float).reshape(-1, 3) - np.asarray(self.position)
        return np.stack([d @ right, d @ up, d @ fwd], axis=1)

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World points -> (u, v, z): pixel column, pixel row, depth along the view axis."""
        c = self.to_camera(points)
        z = c[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = self.width / 2 + self.focal * c[:, 0] / z
            v = self.height / 2 - self.focal * c[:, 1] / z
        return u, v, z

    def project_box(self, obj: Mapping[str, Any], *, near: float = 0.05) -> Box2D | None:
        """2D box of an object's ``axisAlignedBoundingBox`` in the image, or None (behind, outside, missing)."""
        try:
            corners = np.asarray(obj["axisAlignedBoundingBox"]["cornerPoints"], float)
        except (KeyError, TypeError, ValueError):
            return None
        if corners.shape != (8, 3):
            return None
        u, v, z = self.project(corners)
        if (z <= near).any():
            return None  # partly behind the camera: the projection would be meaningless
        box = Box2D(
            int(math.floor(u.min())), int(math.floor(v.min())), int(math.ceil(u.max())), int(math.ceil(v.max()))
        )
        return box.clip(self.width, self.height)


# ---------------------------------------------------------------- size -> mass
MASS_VOLUME_EXPONENT = 2 / 3
"""kg grows like volume^(2/3): household objects are mostly shells, so mass follows surface area.
Least-squares fit of log kg on log AABB volume over AI2-THOR's pickupable/moveable objects gives 0.665."""

SHELL_COEFFICIENT: dict[Material, float] = {
    # kg / (m^3)^(2/3) per first-listed material: median of mass / aabb_volume^(2/3) over the pickupable and
    # moveable objects of the 60 even-numbered AI2-THOR 5.0.0 floorplans (real scene dump, the data
    # directory's ai2thor/floorplans/). Regenerate with perception.evaluation.calibrate_shell_coefficients.
    Material.CERAMIC: 29.4,
    Material.FABRIC: 9.0,
    Material.FOOD: 15.0,
    Material.GLASS: 23.5,
    Material.METAL: 21.9,
    Material.PAPER: 16.9,
    Material.PLASTIC: 7.5,
    Material.RUBBER: 19.3,
    Material.SOAP: 39.0,
    Material.SPONGE: 5.5,
    Material.STONE: 24.6,
    Material.WAX: 46.1,
    Material.WOOD: 22.8,
}
DEFAULT_SHELL_COEFFICIENT = 18.8
"""Coefficient over all materials (same calibration), used when the material is unknown."""


def kg_from_volume(volume_m3: float, material: Material | str | None = None) -> float:
    """Estimated kg of an object whose bounding volume is ``volume_m3`` (shell model, see module constants).

    Raises:
        ConfigError: for a negative or NaN volume.
    """
    if not isinstance(volume_m3, (int, float)) or math.isnan(volume_m3) or volume_m3 < 0:
        raise ConfigError(f"volume must be a non-negative number of m^3, got {volume_m3!r}")
    coeff = DEFAULT_SHELL_COEFFICIENT
    if material is not None:
        try:
            coeff = SHELL_COEFFICIENT.get(Material(material), DEFAULT_SHELL_COEFFICIENT)
        except ValueError:
            coeff = DEFAULT_SHELL_COEFFICIENT
    return coeff * float(volume_m3) ** MASS_VOLUME_EXPONENT


def aabb_volume(obj: Mapping[str, Any]) -> float | None:
    """Volume (m^3) of an AI2-THOR object's axis-aligned box, or None when missing."""
    try:
        s = obj["axisAlignedBoundingBox"]["size"]
        v = float(s["x"]) * float(s["y"]) * float(s["z"])
    except (KeyError, TypeError, ValueError):
        return None
    return v if v > 0 and math.isfinite(v) else None


def volume_from_depth(mask: np.ndarray, depth: np.ndarray, fov: float = 90.0) -> float | None:
    """Bounding volume (m^3) of the object under ``mask``, from a metric depth frame.

    Back-projects the mask's pixels, takes the 5-95 percentile extent along the image axes (width, height)
    and along depth. The back of the object is unseen, so the thickness is at least the smaller of width
    and height (a box seen face-on has no visible depth extent).

    Returns:
        The volume, or None when the mask is empty, shapes differ, or depth is not finite/positive there.
    """
    mask = np.asarray(mask).astype(bool)
    depth = np.asarray(depth, dtype=float)
    if mask.ndim != 2 or depth.shape != mask.shape:
        return None
    z = depth[mask]
    ok = np.isfinite(z) & (z > 0)
    if ok.sum() < 3:
        return None
    rows, cols = np.nonzero(mask)
    rows, cols, z = rows[ok], cols[ok], z[ok]
    h, w = mask.shape
    f = (h / 2) / math.tan(math.radians(fov) / 2)
    x = (cols - w / 2 + 0.5) * z / f
    y = (rows - h / 2 + 0.5) * z / f
    ext = [float(np.percentile(a, 95) - np.percentile(a, 5)) for a in (x, y, z)]
    # One pixel at the median depth is the smallest measurable extent.
    px = float(np.median(z)) / f
    width, height = max(ext[0], px), max(ext[1], px)
    thickness = max(ext[2], min(width, height))
    return width * height * thickness


__all__ = [
    "DEFAULT_SHELL_COEFFICIENT",
    "MASS_VOLUME_EXPONENT",
    "SHELL_COEFFICIENT",
    "Box2D",
    "Camera",
    "aabb_volume",
    "boxes_from_masks",
    "kg_from_volume",
    "volume_from_depth",
]
