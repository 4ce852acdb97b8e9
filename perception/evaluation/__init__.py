"""Benchmarks of the estimators, one module per benchmark; each function returns a JSON-serialisable dict.

- :mod:`~perception.evaluation.floorplans`: agreement of metadata-derived variables with COAT's common
  values over the AI2-THOR floorplan dumps, and mass from size (:func:`agreement`, :func:`mass_from_size`).
- :mod:`~perception.evaluation.frames`: the vision estimator on recorded AI2-THOR frames (:func:`frames_eval`).
- :mod:`~perception.evaluation.embedded`: vision estimators on the embedded simulator's frames
  (:func:`embedded_eval`).
- :mod:`~perception.evaluation.sciworld`: the text estimator against ScienceWorld's object tree
  (:func:`text_eval`, starts a JVM).

They are wrapped by ``coat perception ...`` (:mod:`planner.cli.perception`); results are written up in
``benchmarks/perception.md``.
"""

from __future__ import annotations

from .embedded import EMBEDDED_SCENES, embedded_eval, embedded_frames
from .floorplans import agreement, calibrate_shell_coefficients, load_floorplans, mass_from_size, time_estimator
from .frames import STATE_FLAGS, frames_eval, iter_trace_frames, projected_boxes
from .sciworld import TEXT_EVAL_TASKS, match_ground_truth, sciworld_ground_truth, text_eval

__all__ = [
    "EMBEDDED_SCENES",
    "TEXT_EVAL_TASKS",
    "STATE_FLAGS",
    "agreement",
    "calibrate_shell_coefficients",
    "embedded_eval",
    "embedded_frames",
    "frames_eval",
    "iter_trace_frames",
    "load_floorplans",
    "mass_from_size",
    "match_ground_truth",
    "projected_boxes",
    "sciworld_ground_truth",
    "text_eval",
    "time_estimator",
]
