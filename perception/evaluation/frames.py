"""Benchmark of the vision estimator on recorded AI2-THOR frames (the data directory's ``ai2thor/traces/``).

The recorded traces carry metadata and RGB frames but no masks or depth: objects are located by projecting
their metadata 3D boxes into the frame (:func:`projected_boxes`), and their metadata record is the truth.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from planner.schemas import VARIABLES
from scenes.base import SceneObs
from scenes.thor.traces import load_trace, trace_names

from ..base import ObjectEstimate, to_record
from ..geometry import Camera
from ..metadata import MetadataEstimator
from ..priors import TypePriors, default_priors
from ..state_classifiers import DECISION_THRESHOLD
from ..vision import VisionEstimator

STATE_FLAGS: dict[str, tuple[str, str]] = {
    # visual state -> (capability flag, state flag) in AI2-THOR metadata
    "dirty": ("dirtyable", "isDirty"),
    "broken": ("breakable", "isBroken"),
    "filled": ("canFillWithLiquid", "isFilledWithLiquid"),
    "open": ("openable", "isOpen"),
    "on": ("toggleable", "isToggled"),
}


def iter_trace_frames(data_dir: str | os.PathLike[str] | None = None) -> Iterable[tuple[str, dict[str, Any], Any]]:
    """Yield (``trace/event_NN``, metadata, RGB frame) for every recorded event that has a frame.

    The traces are read with :mod:`scenes.thor.traces`, the project's one reader of recorded episodes.

    Args:
        data_dir: Data root holding ``ai2thor/traces/``; None resolves it as usual.

    Raises:
        DataNotFoundError: the data directory or its traces are not found.
        DataError: a trace file is missing or corrupt.
    """
    for name in trace_names(data_dir):
        trace = load_trace(name, data_dir)
        for i, (meta, rgb) in enumerate(zip(trace.events, trace.frames, strict=True)):
            if rgb is not None:
                yield f"{name}/event_{i:02d}", meta, rgb


def projected_boxes(meta: dict[str, Any], *, visible_only: bool = True) -> dict[str, Any]:
    """objectId -> Box2D of the metadata objects' 3D boxes projected into the frame (no masks were recorded)."""
    cam = Camera.from_metadata(meta)
    out: dict[str, Any] = {}
    if cam is None:
        return out
    for o in meta.get("objects") or ():
        if visible_only and not o.get("visible"):
            continue
        box = cam.project_box(o)
        if box is not None:
            out[o["objectId"]] = box
    return out


def frames_eval(
    data_dir: str | os.PathLike[str] | None = None, *, classifier: Any = None, priors: TypePriors | None = None
) -> dict[str, Any]:
    """Evaluate the vision estimator on recorded AI2-THOR frames against their metadata.

    The frames are the data directory's ``ai2thor/traces/`` (see :func:`iter_trace_frames`).

    Objects are located by projecting their metadata 3D boxes (the traces have no masks or depth), so this
    measures the state classifier and the fused variables, not detection.

    Returns:
        ``{"frames", "objects", "states": {state: {...}}, "variables": {var: {...}}, "seconds_per_object"}``.
        Per state: objects with the capability, positives, classifier accuracy at 0.5, and the accuracy of
        always answering the majority label. Per variable: agreement of the vision record (vision + priors)
        with the metadata record, how many values vision itself decided, and the agreement of the type
        prior alone (the baseline vision has to beat).
    """
    priors = priors or default_priors()
    vis = VisionEstimator(classifier, priors=priors)
    meta_est = MetadataEstimator(priors=priors)
    states: dict[str, list[tuple[bool, float]]] = defaultdict(list)
    var_stats: dict[str, list[int]] = {v: [0, 0, 0, 0] for v in VARIABLES}  # agree, n, by vision, prior agrees
    n_frames = n_obj = 0
    seconds = 0.0
    for _, meta, rgb in iter_trace_frames(data_dir):
        n_frames += 1
        boxes = projected_boxes(meta)
        obs = SceneObs(objects=tuple(meta["objects"]), rgb=rgb, extra={"boxes2d": boxes})
        t0 = time.perf_counter()
        dets = vis.detect(obs)
        recs = {d.object_id: to_record(vis.to_estimate(d), priors) for d in dets}
        seconds += time.perf_counter() - t0
        truth = {r.object_id: r for r in meta_est.estimate(obs).objects}
        by_id = {o["objectId"]: o for o in meta["objects"]}
        for d in dets:
            n_obj += 1
            o = by_id[d.object_id]
            for st, (cap, flag) in STATE_FLAGS.items():
                if (o.get(cap) or (st == "on" and o.get("objectType") == "StoveBurner")) and st in d.states:
                    states[st].append((bool(o.get(flag)), d.states[st]))
            rec, gt = recs[d.object_id], truth[d.object_id]
            prior_only = to_record(ObjectEstimate(d.object_id, d.category), priors)
            for var in VARIABLES:
                s = var_stats[var]
                s[0] += getattr(rec.state, var) == getattr(gt.state, var)
                s[1] += 1
                s[2] += var not in rec.unknown
                s[3] += getattr(prior_only.state, var) == getattr(gt.state, var)
    state_rows = {}
    for st in STATE_FLAGS:
        rows = states.get(st, [])
        pos = sum(t for t, _ in rows)
        n = len(rows)
        correct = sum((p > DECISION_THRESHOLD) == t for t, p in rows)
        state_rows[st] = {
            "n": n,
            "positives": pos,
            "accuracy": round(correct / n, 4) if n else None,
            "majority_baseline": round(max(pos, n - pos) / n, 4) if n else None,
            "true_positives": sum(t and p > DECISION_THRESHOLD for t, p in rows),
        }
    return {
        "frames": n_frames,
        "objects": n_obj,
        "states": state_rows,
        "variables": {
            v: {
                "agree": a,
                "n": n,
                "rate": round(a / n, 4) if n else None,
                "decided_by_vision": d,
                "prior_only_rate": round(p / n, 4) if n else None,
            }
            for v, (a, n, d, p) in var_stats.items()
        },
        "seconds_per_object": seconds / n_obj if n_obj else None,
    }


__all__ = ["STATE_FLAGS", "frames_eval", "iter_trace_frames", "projected_boxes"]
