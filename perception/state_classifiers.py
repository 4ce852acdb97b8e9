"""State classifiers: which visual states (dirty, broken, filled, open, on) an object's RGB crop shows.

A :class:`StateClassifier` returns a probability per state it can judge. Three come with the package: the
OpenCV baseline :class:`OpenCVStateClassifier` (colour and texture heuristics), :class:`TorchStateClassifier`
with a user-supplied checkpoint, and :class:`SchematicStateClassifier`, which decodes a schematic renderer's
state marks (a pipeline test, not perception).

numpy only at import; OpenCV (``require("cv2", "vision")``) when the OpenCV or torch classifier is built,
torch when a :class:`TorchStateClassifier` is.

Example:
    >>> isinstance(SchematicStateClassifier({"dirty": (120, 80, 40)}), StateClassifier)
    True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from planner._optional import require
from planner.errors import ConfigError

VISUAL_STATES: tuple[str, ...] = ("dirty", "broken", "filled", "open", "on")
"""The object states frames can show, in the order classifiers output them."""

DECISION_THRESHOLD = 0.5
"""A state is taken as present when its probability exceeds this."""

MIN_BOX_SIDE_PX = 4
"""Boxes smaller than this on either side are too small to classify."""


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


__all__ = [
    "DECISION_THRESHOLD",
    "MIN_BOX_SIDE_PX",
    "VISUAL_STATES",
    "OpenCVStateClassifier",
    "SchematicStateClassifier",
    "StateClassifier",
    "TorchStateClassifier",
]
