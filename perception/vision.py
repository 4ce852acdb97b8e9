"""Estimate what frames can show: which objects are visible, where, how big, and their visual states.

A real robot has no simulator metadata; this module works from what a camera gives:

- **where**: 2D boxes from instance masks (:func:`boxes_from_masks`), or boxes supplied by a detector in
  ``obs.extra["boxes2d"]``. :class:`Camera` projects AI2-THOR 3D boxes into the image, which the benchmark
  uses for recorded frames that have no masks.
- **mass**: object volume from depth + mask (:func:`volume_from_depth`), turned into kg with a
  per-material shell model (:func:`kg_from_volume`, calibrated on AI2-THOR) and bucketed.
- **states**: dirty / broken / filled / open / on from a :class:`StateClassifier`: the OpenCV baseline
  :class:`OpenCVStateClassifier` (colour and texture heuristics), or :class:`TorchStateClassifier` with a
  user-supplied checkpoint.

Frames cannot tell **material** (a metal and a plastic mug look alike to these heuristics) or
**temperature** (no thermal camera), and they cannot tell whether someone else is using an object; those
stay unknown here and come from metadata (:class:`perception.FusedEstimator`) or priors.

numpy only at import; OpenCV (``require("cv2", "vision")``) when a :class:`VisionEstimator` or the OpenCV
classifier is built, torch when a :class:`TorchStateClassifier` is.

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
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from planner._optional import require
from planner.errors import ConfigError
from planner.schemas import Condition, InUse, Material, SceneState, Temperature, canonical_object_name
from scenes.base import SceneObs

from .base import ObjectEstimate, VariableEstimate, scene_id_of, to_record
from .metadata import mass_bucket

log = logging.getLogger(__name__)

SOURCE = "vision"

VISUAL_STATES: tuple[str, ...] = ("dirty", "broken", "filled", "open", "on")
"""The object states frames can show, in the order classifiers output them."""

DECISION_THRESHOLD = 0.5
"""A state is taken as present when its probability exceeds this."""

MIN_BOX_SIDE_PX = 4
"""Boxes smaller than this on either side are too small to classify."""

# AI2-THOR type facts (shared/notes/ai2thor.md §2): what "on" and "filled" mean for the in-use variable.
HEAT_SOURCE_TYPES: frozenset[str] = frozenset({"CoffeeMachine", "Microwave", "StoveBurner", "Toaster"})
CONTAINER_TYPES: frozenset[str] = frozenset({"Bowl", "Cup", "Mug", "Pot", "Pan", "Kettle", "Plate"})

STATE_TYPES: dict[str, frozenset[str]] = {
    # Which AI2-THOR types can be in each visual state (capability flags of the real 5.0.0 scene dump,
    # shared/notes/ai2thor_types.json; StoveBurner is switched through its knob). VisionEstimator ignores a
    # state for a known type that cannot have it: a sofa is never "filled", a mug never "on".
    "dirty": frozenset({"Bed", "Bowl", "Cloth", "Cup", "Mirror", "Mug", "Pan", "Plate", "Pot"}),
    "broken": frozenset(
        {
            "Bottle",
            "Bowl",
            "Cabinet",
            "CellPhone",
            "CoffeeMachine",
            "Cup",
            "Desktop",
            "Egg",
            "Laptop",
            "Mirror",
            "Mug",
            "Plate",
            "ShowerDoor",
            "ShowerGlass",
            "Statue",
            "Television",
            "Vase",
            "Window",
            "WineBottle",
        }
    ),
    "filled": frozenset({"Bottle", "Bowl", "Cup", "HousePlant", "Kettle", "Mug", "Pot", "WateringCan", "WineBottle"}),
    "open": frozenset(
        {
            "Blinds",
            "Book",
            "Box",
            "Cabinet",
            "Drawer",
            "Fridge",
            "Kettle",
            "Laptop",
            "LaundryHamper",
            "Microwave",
            "Safe",
            "ShowerCurtain",
            "ShowerDoor",
            "Toilet",
        }
    ),
    "on": frozenset(
        {
            "Candle",
            "CellPhone",
            "CoffeeMachine",
            "DeskLamp",
            "Desktop",
            "Faucet",
            "FloorLamp",
            "Laptop",
            "LightSwitch",
            "Microwave",
            "ShowerHead",
            "StoveBurner",
            "StoveKnob",
            "Television",
            "Toaster",
        }
    ),
}

# Vision is weaker evidence than metadata; its confidences are scaled by this.
VISION_CONFIDENCE_SCALE = 0.7


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
    # moveable objects of the 60 even-numbered AI2-THOR 5.0.0 floorplans (real scene dump, see
    # shared/notes/ai2thor.md §2). Regenerate with perception.evaluation.calibrate_shell_coefficients.
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


# ---------------------------------------------------------------- state classifiers
@runtime_checkable
class StateClassifier(Protocol):
    """Predicts visual states of one object from its RGB crop.

    ``predict`` returns a probability per state it can judge; a state missing from the result means
    "cannot tell" (unknown), not "absent".
    """

    states: tuple[str, ...]

    def predict(self, crop: np.ndarray, category: str | None = None) -> dict[str, float]:
        """Probabilities in [0, 1] for the states in ``self.states`` (HxWx3 uint8 RGB crop)."""
        ...


# Heuristic thresholds of the OpenCV baseline (HSV on OpenCV's 0-179 / 0-255 scales).
GLOW_MIN_VALUE = 235
"""Pixels this bright and this unsaturated look emissive (a lit lamp shade, a screen)."""
GLOW_MAX_SATURATION = 70
GLOW_FRACTION_ON = 0.15
"""A lit object has at least this fraction of glowing pixels."""
SCREEN_MIN_SATURATION = 90
"""Saturated, bright pixels on a dark device look like a lit screen."""
SCREEN_FRACTION_ON = 0.08
EDGE_DENSITY_OPEN = 0.20
"""Canny edge density above which a container's interior (shelves, contents) seems exposed."""
EDGE_DENSITY_BROKEN = 0.30
"""Edge density above which an object looks shattered (cracks, shards)."""
STAIN_FRACTION_DIRTY = 0.25
"""Fraction of brownish, mid-dark pixels above which a surface looks stained."""
LIQUID_FRACTION_FILLED = 0.30
"""Fraction of liquid-coloured pixels (coffee, wine) in the top-centre of a container."""


def _logistic(x: float, centre: float, width: float) -> float:
    return float(1.0 / (1.0 + math.exp(-(x - centre) / max(width, 1e-6))))


class OpenCVStateClassifier:
    """Colour and texture heuristics; no training. A baseline to beat, not a detector to trust.

    - on: fraction of glowing (very bright, unsaturated) or screen-like (bright, saturated) pixels.
    - open: Canny edge density (an exposed interior adds shelves and contents).
    - broken: very high edge density (cracks, shards).
    - dirty: fraction of brownish mid-dark "stain" pixels.
    - filled: fraction of coffee/wine-coloured pixels in the top-centre of the crop.
    """

    states: tuple[str, ...] = VISUAL_STATES

    def __init__(self) -> None:
        self._cv2 = require("cv2", "vision")

    def features(self, crop: np.ndarray) -> dict[str, float]:
        """The raw measurements behind :meth:`predict` (for inspection and calibration)."""
        cv2 = self._cv2
        rgb = np.ascontiguousarray(crop[..., :3], dtype=np.uint8)
        hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
        h, s, v = hsv[..., 0].astype(int), hsv[..., 1].astype(int), hsv[..., 2].astype(int)
        n = float(h.size)
        glow = float(((v >= GLOW_MIN_VALUE) & (s <= GLOW_MAX_SATURATION)).sum()) / n
        screen = float(((v >= 150) & (s >= SCREEN_MIN_SATURATION)).sum()) / n
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        edges = cv2.Canny(gray, 60, 160)
        edge = float((edges > 0).sum()) / n
        stain = float(((h >= 5) & (h <= 25) & (s >= 60) & (v >= 40) & (v <= 150)).sum()) / n
        hh, ww = h.shape
        top = (slice(0, max(1, hh // 2)), slice(ww // 4, max(ww // 4 + 1, 3 * ww // 4)))
        coffee = (h[top] >= 5) & (h[top] <= 20) & (s[top] >= 100) & (v[top] >= 30) & (v[top] <= 140)
        wine = ((h[top] <= 4) | (h[top] >= 170)) & (s[top] >= 120) & (v[top] >= 30) & (v[top] <= 150)
        liquid = float((coffee | wine).mean()) if coffee.size else 0.0
        return {"glow": glow, "screen": screen, "edge": edge, "stain": stain, "liquid": liquid}

    def predict(self, crop: np.ndarray, category: str | None = None) -> dict[str, float]:
        """Heuristic probabilities for every state in :data:`VISUAL_STATES`."""
        if crop.ndim != 3 or crop.shape[0] < MIN_BOX_SIDE_PX or crop.shape[1] < MIN_BOX_SIDE_PX:
            return {}
        f = self.features(crop)
        on = max(_logistic(f["glow"], GLOW_FRACTION_ON, 0.03), _logistic(f["screen"], SCREEN_FRACTION_ON, 0.02))
        return {
            "dirty": _logistic(f["stain"], STAIN_FRACTION_DIRTY, 0.015),
            "broken": _logistic(f["edge"], EDGE_DENSITY_BROKEN, 0.02),
            "filled": _logistic(f["liquid"], LIQUID_FRACTION_FILLED, 0.03),
            "open": _logistic(f["edge"], EDGE_DENSITY_OPEN, 0.02),
            "on": on,
        }


class SchematicStateClassifier:
    """Reads the state marks of a schematic renderer (e.g. the embedded simulator's top-down frames).

    Not visual perception: the renderer draws each state in a known colour, and this decodes them. It tests
    the frame pipeline (masks, boxes, crops, fusion) end to end. Use it with ``mask_crops=True`` so a crop
    only holds the object's own pixels.

    Args:
        legend: state -> RGB colour. Edge marks (drawn as an outline): ``Hot``, ``Cold``, ``on``, ``open``,
            ``in_use``, ``held``; fill marks: ``dirty``; line marks: ``broken``; dot marks: ``liquid``.
        tolerance: Max per-channel difference for a pixel to match a colour.
    """

    _EDGE = {"Hot": "hot", "Cold": "cold", "on": "on", "open": "open", "in_use": "in_use", "held": "held"}

    def __init__(self, legend: Mapping[str, Sequence[int]], *, tolerance: int = 12) -> None:
        self.legend = {k: np.asarray(v, dtype=int) for k, v in legend.items()}
        self.tolerance = int(tolerance)
        names = [self._EDGE.get(k, k) for k in self.legend]
        self.states = tuple("filled" if n == "liquid" else n for n in names)

    def _match(self, crop: np.ndarray, colour: np.ndarray) -> np.ndarray:
        return np.abs(crop[..., :3].astype(int) - colour).max(axis=-1) <= self.tolerance

    def predict(self, crop: np.ndarray, category: str | None = None) -> dict[str, float]:
        """1.0 / 0.0 per state whose mark is / is not found; {} for an unusable crop."""
        if not _usable_crop(crop):
            return {}
        h, w = crop.shape[:2]
        border = np.zeros((h, w), bool)
        border[:2, :] = border[-2:, :] = border[:, :2] = border[:, -2:] = True
        inner = ~border
        out: dict[str, float] = {}
        for key, colour in self.legend.items():
            hit = self._match(crop, colour)
            if key in self._EDGE:
                frac = float(hit[border].mean())
                out[self._EDGE[key]] = 1.0 if frac >= 0.3 else 0.0
            elif key == "dirty":
                out["dirty"] = 1.0 if float(hit[inner].mean() if inner.any() else 0.0) >= 0.3 else 0.0
            elif key == "liquid":
                out["filled"] = 1.0 if int(hit.sum()) >= 5 else 0.0
            else:  # line marks (broken): a cross covers a few percent of the crop
                out[key] = 1.0 if float(hit.mean()) >= 0.02 else 0.0
        return out


class TorchStateClassifier:
    """A torch model over RGB crops: ``(N, 3, S, S)`` floats in [0, 1] -> ``(N, len(states))`` logits.

    Args:
        checkpoint: Path to a ``torch.export`` program (``.pt2``, ``torch.export.save``; export with a
            dynamic batch dimension), a legacy TorchScript file (``torch.jit.save``), or a ``state_dict``
            (or a dict with a ``"state_dict"`` key) when ``model`` is given.
        model: The ``nn.Module`` whose weights the state_dict holds; None for .pt2/TorchScript files.
        states: Names of the output columns, in order (default :data:`VISUAL_STATES`).
        input_size: Side S of the square input.
        device: Torch device string.

    Raises:
        DependencyNotInstalled: torch (extra ``torch``) or OpenCV (extra ``vision``) missing.
        ConfigError: the checkpoint is missing, cannot be loaded, or the model's output width differs from
            ``len(states)``.
    """

    def __init__(
        self,
        checkpoint: str | Path,
        *,
        model: Any = None,
        states: Sequence[str] = VISUAL_STATES,
        input_size: int = 64,
        device: str = "cpu",
    ) -> None:
        self._torch = require("torch", "torch")
        self._cv2 = require("cv2", "vision")
        path = Path(checkpoint)
        if not path.is_file():
            raise ConfigError(f"state classifier checkpoint {str(path)!r} does not exist")
        if input_size < 8:
            raise ConfigError(f"input_size must be >= 8 pixels, got {input_size}")
        self.states = tuple(states)
        self.input_size = int(input_size)
        self.device = device
        self.model = self._load(path, model, device)
        if path.suffix != ".pt2" or model is not None:
            self.model.eval()  # exported programs are already in inference form and refuse eval()
        out = self._forward([np.zeros((self.input_size, self.input_size, 3), np.uint8)])
        if out.shape != (1, len(self.states)):
            raise ConfigError(
                f"model outputs {tuple(out.shape)} for one crop, expected (1, {len(self.states)}) for states "
                f"{list(self.states)}"
            )

    def _load(self, path: Path, model: Any, device: str) -> Any:
        torch = self._torch
        if model is not None:
            try:
                sd = torch.load(str(path), map_location=device, weights_only=True)
                if isinstance(sd, Mapping) and "state_dict" in sd:
                    sd = sd["state_dict"]
                model.load_state_dict(sd)
            except Exception as e:  # noqa: BLE001 - re-raised with the fix
                raise ConfigError(f"cannot load state_dict {path} into {type(model).__name__}: {e}") from e
            return model.to(device)
        if path.suffix == ".pt2":
            try:
                return torch.export.load(str(path)).module()
            except Exception as e:  # noqa: BLE001
                raise ConfigError(f"cannot load exported program {path}: {e}") from e
        try:
            with warnings.catch_warnings():
                # TorchScript is deprecated in torch >= 2.9 but still loads; .pt2 (torch.export) is preferred.
                warnings.simplefilter("ignore", DeprecationWarning)
                return torch.jit.load(str(path), map_location=device)
        except Exception as e:  # noqa: BLE001
            raise ConfigError(
                f"{path} is neither a torch.export program (.pt2) nor a TorchScript file "
                f"({e.__class__.__name__}); pass model=<nn.Module> to load it as a state_dict"
            ) from e

    def _forward(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        torch, cv2, s = self._torch, self._cv2, self.input_size
        batch = np.stack(
            [cv2.resize(np.ascontiguousarray(c[..., :3]), (s, s), interpolation=cv2.INTER_AREA) for c in crops]
        )
        x = torch.from_numpy(batch).to(self.device).permute(0, 3, 1, 2).float().div(255.0)
        with torch.no_grad():
            y = self.model(x)
        return torch.sigmoid(y).cpu().numpy()

    def predict(self, crop: np.ndarray, category: str | None = None) -> dict[str, float]:
        """Sigmoid of the model's logits per state; {} for an unusable crop."""
        return self.predict_batch([crop])[0]

    def predict_batch(self, crops: Sequence[np.ndarray]) -> list[dict[str, float]]:
        """Predict several crops in one forward pass; unusable crops give {}."""
        good = [i for i, c in enumerate(crops) if _usable_crop(c)]
        out: list[dict[str, float]] = [{} for _ in crops]
        if good:
            probs = self._forward([crops[i] for i in good])
            for i, p in zip(good, probs, strict=True):
                out[i] = {s: float(v) for s, v in zip(self.states, p, strict=True)}
        return out


def _usable_crop(c: Any) -> bool:
    return isinstance(c, np.ndarray) and c.ndim == 3 and c.shape[2] >= 3 and min(c.shape[:2]) >= MIN_BOX_SIDE_PX


# ---------------------------------------------------------------- the estimator
@dataclass
class VisualDetection:
    """What the frame shows about one object."""

    object_id: str
    category: str
    box: Box2D
    pixels: int
    states: dict[str, float] = field(default_factory=dict)
    volume_m3: float | None = None


def _category_of(oid: str, obs: SceneObs) -> str:
    cats = obs.extra.get("categories") if isinstance(obs.extra, Mapping) else None
    if isinstance(cats, Mapping) and isinstance(cats.get(oid), str):
        return canonical_object_name(cats[oid])
    return canonical_object_name(oid.split("|", 1)[0]) or "Unknown"


def _frame(obs: SceneObs) -> np.ndarray | None:
    rgb = obs.rgb
    if rgb is None:
        return None
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] < 3 or rgb.shape[0] == 0 or rgb.shape[1] == 0:
        log.warning("frame has shape %s, expected HxWx3; ignored", rgb.shape)
        return None
    if rgb.dtype != np.uint8:
        rgb = np.clip(rgb * (255.0 if rgb.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
    return rgb


class VisionEstimator:
    """Five variables from RGB (+ depth, instance masks): mass from size, condition and in-use from states.

    Objects come from ``obs.instance_masks`` (objectId -> HxW mask), or ``obs.extra["boxes2d"]``
    (objectId -> (x1, y1, x2, y2), e.g. from a detector). Their category is ``obs.extra["categories"][id]``
    or the AI2-THOR id prefix. Material and temperature are always unknown from frames.

    Args:
        classifier: A :class:`StateClassifier` (default :class:`OpenCVStateClassifier`).
        priors: Type priors for unknowns (default COAT's).
        min_pixels: Masks with fewer pixels count as not visible.
        fov: Vertical field of view in degrees, for depth back-projection (AI2-THOR default 90).
        gate_states: Ignore states a known type cannot have (:data:`STATE_TYPES`).
        mask_crops: Black out crop pixels outside the object's instance mask (when there is one).

    Raises:
        DependencyNotInstalled: OpenCV missing (``pip install 'coat-planner[vision]'``).
    """

    source = SOURCE

    def __init__(
        self,
        classifier: StateClassifier | None = None,
        *,
        priors: Any = None,
        min_pixels: int = 20,
        fov: float = 90.0,
        gate_states: bool = True,
        mask_crops: bool = False,
    ) -> None:
        require("cv2", "vision")
        if classifier is not None and not isinstance(classifier, StateClassifier):
            raise ConfigError(f"{classifier!r} is not a StateClassifier (needs .states and .predict(crop, category))")
        self.classifier: StateClassifier = classifier or OpenCVStateClassifier()
        self._priors = priors
        self.min_pixels = int(min_pixels)
        self.fov = float(fov)
        self.gate_states = gate_states
        self.mask_crops = mask_crops

    @property
    def priors(self) -> Any:
        """The type priors (loaded on first use)."""
        if self._priors is None:
            from .priors import default_priors

            self._priors = default_priors()
        return self._priors

    def detect(self, obs: SceneObs) -> list[VisualDetection]:
        """Visible objects with their box, visual states and (with depth) volume. Never raises on bad input."""
        rgb = _frame(obs)
        if rgb is None:
            return []
        h, w = rgb.shape[:2]
        masks = obs.instance_masks if isinstance(obs.instance_masks, Mapping) else None
        boxes = boxes_from_masks(masks, (h, w), min_pixels=self.min_pixels) if masks else {}
        if not boxes:
            boxes = self._given_boxes(obs, w, h)
        depth = None
        if obs.depth is not None:
            depth = np.asarray(obs.depth)
            if depth.shape != (h, w):
                log.warning("depth has shape %s, frame is %s; depth ignored", depth.shape, (h, w))
                depth = None
        out: list[VisualDetection] = []
        for oid, box in boxes.items():
            mask = np.asarray(masks[oid]).astype(bool) if masks and oid in masks else None
            det = VisualDetection(oid, _category_of(oid, obs), box, int(mask.sum()) if mask is not None else box.area)
            crop = rgb[box.y1 : box.y2 + 1, box.x1 : box.x2 + 1]
            if self.mask_crops and mask is not None:
                crop = np.where(mask[box.y1 : box.y2 + 1, box.x1 : box.x2 + 1, None], crop, 0).astype(np.uint8)
            if min(crop.shape[:2]) >= MIN_BOX_SIDE_PX:
                try:
                    det.states = self._gate(det.category, self.classifier.predict(crop, det.category))
                except Exception as e:  # noqa: BLE001 - a classifier bug must not crash planning
                    log.warning("state classifier failed on %s: %r", oid, e)
            if depth is not None and mask is not None:
                det.volume_m3 = volume_from_depth(mask, depth, self.fov)
            out.append(det)
        return out

    def _gate(self, category: str, states: Mapping[str, Any]) -> dict[str, float]:
        out = {}
        known = self.gate_states and self.priors.knows(category)
        for k, v in states.items():
            p = float(v)
            if not math.isfinite(p):
                continue
            if known and k in STATE_TYPES and category not in STATE_TYPES[k]:
                continue
            out[k] = min(1.0, max(0.0, p))
        return out

    @staticmethod
    def _given_boxes(obs: SceneObs, w: int, h: int) -> dict[str, Box2D]:
        raw = obs.extra.get("boxes2d") if isinstance(obs.extra, Mapping) else None
        out: dict[str, Box2D] = {}
        if not isinstance(raw, Mapping):
            return out
        for oid, b in raw.items():
            vals = (b.x1, b.y1, b.x2, b.y2) if isinstance(b, Box2D) else b
            try:
                x1, y1, x2, y2 = (int(round(float(v))) for v in vals)
            except (TypeError, ValueError):
                log.warning("box of %s is %r, expected (x1, y1, x2, y2); skipped", oid, b)
                continue
            box = Box2D(x1, y1, x2, y2).clip(w, h) if x2 >= x1 and y2 >= y1 else None
            if box is not None:
                out[str(oid)] = box
        return out

    def to_estimate(self, det: VisualDetection) -> ObjectEstimate:
        """Turn one detection into per-variable estimates."""
        oe = ObjectEstimate(det.object_id, det.category)
        s = VISION_CONFIDENCE_SCALE
        if det.volume_m3 is not None:
            material = self.priors.prior(det.category)["material"].value
            kg = kg_from_volume(det.volume_m3, material)
            oe.estimates["mass"] = VariableEstimate(
                mass_bucket(kg), 0.5 * s, SOURCE, f"volume {det.volume_m3:.2g} m3 -> {kg:.2g} kg"
            )
        else:
            oe.estimates["mass"] = VariableEstimate.unknown(SOURCE, "no depth+mask: size unknown")
        oe.estimates["material"] = VariableEstimate.unknown(SOURCE, "frames cannot tell material")
        st = det.states
        # An RGB frame cannot tell temperature; a classifier that can (thermal camera, schematic marks) may
        # report "hot"/"cold".
        if st.get("hot", 0.0) > DECISION_THRESHOLD:
            oe.estimates["temperature"] = VariableEstimate(Temperature.HOT, st["hot"] * s, SOURCE, "hot mark")
        elif st.get("cold", 0.0) > DECISION_THRESHOLD:
            oe.estimates["temperature"] = VariableEstimate(Temperature.COLD, st["cold"] * s, SOURCE, "cold mark")
        else:
            oe.estimates["temperature"] = VariableEstimate.unknown(SOURCE, "frames cannot tell temperature")
        if "broken" in st or "dirty" in st:
            pb, pd = st.get("broken", 0.0), st.get("dirty", 0.0)
            if pb > DECISION_THRESHOLD:
                oe.estimates["condition"] = VariableEstimate(Condition.BROKEN, pb * s, SOURCE, f"p(broken)={pb:.2f}")
            elif pd > DECISION_THRESHOLD:
                oe.estimates["condition"] = VariableEstimate(Condition.DIRTY, pd * s, SOURCE, f"p(dirty)={pd:.2f}")
            else:
                conf = (1 - max(pb, pd)) * s
                oe.estimates["condition"] = VariableEstimate(
                    Condition.CLEAN, conf, SOURCE, f"p(broken)={pb:.2f} p(dirty)={pd:.2f}"
                )
        else:
            oe.estimates["condition"] = VariableEstimate.unknown(SOURCE, "classifier gave no dirty/broken")
        oe.estimates["already_in_use"] = self._in_use(det)
        return oe

    @staticmethod
    def _in_use(det: VisualDetection) -> VariableEstimate:
        st = det.states
        s = VISION_CONFIDENCE_SCALE
        if st.get("in_use", 0.0) > DECISION_THRESHOLD:  # a classifier that sees someone using it
            return VariableEstimate(InUse.REVERSIBLE, st["in_use"] * s, SOURCE, "used by someone else")
        if det.category in HEAT_SOURCE_TYPES and "on" in st:
            p = st["on"]
            if p > DECISION_THRESHOLD:
                return VariableEstimate(InUse.REVERSIBLE, p * s, SOURCE, f"appliance on, p={p:.2f}")
        if det.category in CONTAINER_TYPES and "filled" in st:
            p = st["filled"]
            if p > DECISION_THRESHOLD:
                return VariableEstimate(InUse.REVERSIBLE, p * s, SOURCE, f"filled, p={p:.2f}")
        # No visible sign of use is weak evidence: frames cannot see who is about to use an object.
        return VariableEstimate.unknown(SOURCE, "no visible sign of use")

    def estimate_objects(self, obs: SceneObs) -> dict[str, ObjectEstimate]:
        """Per-variable estimates of every visible object, keyed by object id."""
        return {d.object_id: self.to_estimate(d) for d in self.detect(obs)}

    def estimate(self, obs: SceneObs) -> SceneState:
        """SceneState of the visible objects (unknowns from priors)."""
        ests = self.estimate_objects(obs)
        return SceneState(scene_id=scene_id_of(obs), objects=tuple(to_record(e, self.priors) for e in ests.values()))


__all__ = [
    "CONTAINER_TYPES",
    "HEAT_SOURCE_TYPES",
    "SHELL_COEFFICIENT",
    "VISUAL_STATES",
    "Box2D",
    "Camera",
    "OpenCVStateClassifier",
    "SchematicStateClassifier",
    "StateClassifier",
    "TorchStateClassifier",
    "VisionEstimator",
    "VisualDetection",
    "aabb_volume",
    "boxes_from_masks",
    "kg_from_volume",
    "volume_from_depth",
]
