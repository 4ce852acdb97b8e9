"""The reader's calibrated confidence: the evidence features, the logistic model over them, and its shipped
coefficients (:data:`CALIBRATION_FILE`, fitted by ``scripts/calibrate_reader.py``)."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..errors import DataError

CALIBRATION_FILE = "calibration.json"
"""Logistic coefficients of the confidence per similarity method (``embedding``, ``lexical``) over the features
of :func:`features`, fitted by ``scripts/calibrate_reader.py`` (shipped beside this module)."""
THRESHOLD = 0.5
"""Confidence below which a request is not understood."""


def features(task_sim: float, utility_sim: float, frame: bool, named: bool, request: bool,
             question: bool, example_margin: float, salad: bool = False, state: bool = False,
             role_score: float = 0.0) -> dict[str, float]:
    """The evidence the confidence is computed from: the nearest COAT task's and utility's similarity, whether
    a verb frame (or a state such as "dirty") fired, whether an object type or liquid was named, whether the text
    is worded as a request, whether it opens as a question ("what is the capital of France"), and how much nearer
    it is to the nearest sensible worked example than to the nearest nonsense one, and whether four or more words
    come with no function word at all ("mop broccoli telescope window thursday": a word salad), and whether a
    state named the need ("I'm bored": a request worded as a statement), and the role classifier's top score."""
    return {"task_sim": task_sim, "utility_sim": utility_sim, "frame": float(frame), "named": float(named),
            "request": float(request), "question": float(question), "example_margin": example_margin,
            "salad": float(salad), "state": float(state), "role_score": role_score}


def confidence(feats: dict[str, float], coef: dict[str, float]) -> float:
    """The calibrated probability that a request was understood (logistic over :func:`features`)."""
    z = coef["bias"] + sum(coef[k] * v for k, v in feats.items())
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


@lru_cache(maxsize=1)
def load_calibration() -> dict[str, dict[str, float]]:
    """The shipped confidence coefficients (:data:`CALIBRATION_FILE`).

    Raises:
        DataError: the file is missing a method or a coefficient (the message names the file and key).
    """
    path = Path(str(resources.files("planner.understanding") / CALIBRATION_FILE))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"unreadable ({e}); run scripts/calibrate_reader.py") from e
    keys = ("bias", *features(0, 0, False, False, False, False, 0.0))
    for method in ("embedding", "lexical"):
        for k in keys:
            if not isinstance(data.get(method, {}).get(k), (int, float)):
                raise DataError(path, f"{method}.{k}", "missing or not a number; run scripts/calibrate_reader.py")
    return {m: {k: float(data[m][k]) for k in keys} for m in ("embedding", "lexical")}


__all__ = ["CALIBRATION_FILE", "THRESHOLD", "confidence", "features", "load_calibration"]
