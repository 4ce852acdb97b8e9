"""Estimate what frames can show: which objects are visible, where, how big, and their visual states.

A real robot has no simulator metadata; :class:`VisionEstimator` works from what a camera gives:

- **where**: 2D boxes from instance masks, or boxes supplied by a detector in ``obs.extra["boxes2d"]``
  (:mod:`perception.geometry`).
- **mass**: object volume from depth + mask, turned into kg with a per-material shell model and bucketed
  (:mod:`perception.geometry`).
- **states**: dirty / broken / filled / open / on from a :class:`~perception.state_classifiers.StateClassifier`
  (:mod:`perception.state_classifiers`), mapped here to condition and in-use.

Frames cannot tell **material** (a metal and a plastic mug look alike to these heuristics) or
**temperature** (no thermal camera), and they cannot tell whether someone else is using an object; those
stay unknown here and come from metadata (:class:`perception.FusedEstimator`) or priors.

The geometry and classifier names are importable from here too (``from perception.vision import Box2D``).
numpy only at import; OpenCV (``require("cv2", "vision")``) when a :class:`VisionEstimator` is built.
:mod:`perception.geometry` has a runnable example of boxes from masks.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from planner._optional import require
from planner.errors import ConfigError
from planner.schemas import Condition, InUse, SceneState, Temperature, canonical_object_name
from scenes.base import SceneObs

from .base import ObjectEstimate, VariableEstimate, scene_id_of, to_record
from .geometry import (
    DEFAULT_SHELL_COEFFICIENT,
    MASS_VOLUME_EXPONENT,
    SHELL_COEFFICIENT,
    Box2D,
    Camera,
    aabb_volume,
    boxes_from_masks,
    kg_from_volume,
    volume_from_depth,
)
from .metadata import mass_bucket
from .priors import default_priors
from .state_classifiers import (
    DECISION_THRESHOLD,
    MIN_BOX_SIDE_PX,
    VISUAL_STATES,
    OpenCVStateClassifier,
    SchematicStateClassifier,
    StateClassifier,
    TorchStateClassifier,
)

log = logging.getLogger(__name__)

SOURCE = "vision"


# AI2-THOR type facts (the data directory's ai2thor/object_types.json): what "on" and "filled" mean for the
# in-use variable.
HEAT_SOURCE_TYPES: frozenset[str] = frozenset({"CoffeeMachine", "Microwave", "StoveBurner", "Toaster"})
CONTAINER_TYPES: frozenset[str] = frozenset({"Bowl", "Cup", "Mug", "Pot", "Pan", "Kettle", "Plate"})

STATE_TYPES: dict[str, frozenset[str]] = {
    # Which AI2-THOR types can be in each visual state (capability flags of the real 5.0.0 scene dump, the
    # data directory's ai2thor/floorplans/; StoveBurner is switched through its knob). VisionEstimator ignores a
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
    "DECISION_THRESHOLD",
    "DEFAULT_SHELL_COEFFICIENT",
    "HEAT_SOURCE_TYPES",
    "MASS_VOLUME_EXPONENT",
    "MIN_BOX_SIDE_PX",
    "SHELL_COEFFICIENT",
    "STATE_TYPES",
    "VISION_CONFIDENCE_SCALE",
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
