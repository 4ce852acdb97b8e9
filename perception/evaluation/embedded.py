"""Benchmark of the vision estimators on the embedded simulator's frames, with its metadata as the truth.

The frames come with instance masks, so this runs the whole frame pipeline (masks -> boxes -> crops ->
states -> variables). The simulator (``scenes.embedded``) is imported when the frames are generated.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from planner.schemas import VARIABLES, ObjectRecord
from scenes import EMBEDDED_SCENES
from scenes.base import SceneObs

from ..base import ObjectEstimate, to_record
from ..metadata import MetadataEstimator
from ..priors import TypePriors, default_priors
from ..state_classifiers import DECISION_THRESHOLD, OpenCVStateClassifier, SchematicStateClassifier
from ..vision import VisionEstimator
from .frames import STATE_FLAGS

# (capability flag, action, extra params) used to put objects into visible states
_PERTURB: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("toggleable", "ToggleObjectOn", {}),
    ("openable", "OpenObject", {}),
    ("dirtyable", "DirtyObject", {}),
    ("breakable", "BreakObject", {}),
    ("canFillWithLiquid", "FillObjectWithLiquid", {"fillLiquid": "water"}),
    ("pickupable", "UseObject", {"seconds": 600.0}),
    ("pickupable", "UseObject", {"irreversible": True}),
)


def embedded_frames(
    scenes: Iterable[str] = EMBEDDED_SCENES, *, seeds: int = 5, perturbations: int = 12
) -> Iterable[tuple[str, SceneObs]]:
    """Yield (label, observation with frame and masks) from the embedded simulator, with random state changes.

    Each (scene, seed) starts from the scene's initial state plus a seeded COAT scenario, then applies
    ``perturbations`` seeded actions (switch on, open, dirty, break, fill, someone-else-uses) to random
    objects that support them.
    """
    import random

    from scenes.base import Action
    from scenes.embedded import EmbeddedEnv

    for scene in scenes:
        env = EmbeddedEnv(scene)
        try:
            for seed in range(seeds):
                rng = random.Random(seed)
                obs, _ = env.reset(seed=seed, options={"scenario": "random"})
                for _ in range(perturbations):
                    cap, act, params = rng.choice(_PERTURB)
                    cands = [o["objectId"] for o in obs.objects if o.get(cap)]
                    if not cands:
                        continue
                    args = {"forceAction": True, **params}
                    obs, *_ = env.step(Action(name=act, object_id=rng.choice(cands), args=args))
                yield f"{scene}/seed{seed}", obs
        finally:
            env.close()


def _state_summary(rows: list[tuple[bool, float]]) -> dict[str, Any]:
    """Accuracy, majority baseline, recall and precision of (truth, probability) pairs at the threshold."""
    n, pos = len(rows), sum(t for t, _ in rows)
    tp = sum(t and p > DECISION_THRESHOLD for t, p in rows)
    fp = sum((not t) and p > DECISION_THRESHOLD for t, p in rows)
    return {
        "n": n,
        "positives": pos,
        "accuracy": round(sum((p > DECISION_THRESHOLD) == t for t, p in rows) / n, 4) if n else None,
        "majority_baseline": round(max(pos, n - pos) / n, 4) if n else None,
        "recall": round(tp / pos, 4) if pos else None,
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
    }


class _VisionScores:
    """What :func:`embedded_eval` counts for one estimator."""

    def __init__(self) -> None:
        self.variables: dict[str, list[int]] = {v: [0, 0, 0, 0] for v in VARIABLES}  # agree, n, by vision, prior
        self.states: dict[str, list[tuple[bool, float]]] = defaultdict(list)
        self.objects = 0
        self.seconds = 0.0

    def add_frame(
        self,
        est: VisionEstimator,
        obs: SceneObs,
        truth: Mapping[str, ObjectRecord],
        priors: TypePriors,
    ) -> None:
        """Run ``est`` on one frame and score its detections against the metadata records ``truth``."""
        by_id = {o["objectId"]: o for o in obs.objects}
        t0 = time.perf_counter()
        dets = est.detect(obs)
        recs = {d.object_id: to_record(est.to_estimate(d), priors) for d in dets}
        self.seconds += time.perf_counter() - t0
        for d in dets:
            gt, o = truth.get(d.object_id), by_id.get(d.object_id)
            if gt is None or o is None:
                continue
            self.objects += 1
            rec = recs[d.object_id]
            prior_only = to_record(ObjectEstimate(d.object_id, d.category), priors)
            for var in VARIABLES:
                s = self.variables[var]
                s[0] += getattr(rec.state, var) == getattr(gt.state, var)
                s[1] += 1
                s[2] += var not in rec.unknown
                s[3] += getattr(prior_only.state, var) == getattr(gt.state, var)
            for st, (cap, flag) in STATE_FLAGS.items():
                if o.get(cap) and st in d.states:
                    self.states[st].append((bool(o.get(flag)), d.states[st]))

    def summary(self) -> dict[str, Any]:
        """This estimator's entry in :func:`embedded_eval`'s result."""
        return {
            "objects": self.objects,
            "variables": {
                v: {
                    "rate": round(a / n, 4) if n else None,
                    "n": n,
                    "decided_by_vision": d,
                    "prior_only_rate": round(p / n, 4) if n else None,
                }
                for v, (a, n, d, p) in self.variables.items()
            },
            "states": {st: _state_summary(rows) for st, rows in sorted(self.states.items())},
            "seconds_per_object": self.seconds / self.objects if self.objects else None,
        }


def embedded_eval(
    scenes: Iterable[str] = EMBEDDED_SCENES,
    *,
    seeds: int = 5,
    perturbations: int = 12,
    priors: TypePriors | None = None,
) -> dict[str, Any]:
    """Vision estimators on the embedded simulator's frames vs its metadata (+ in-use state).

    Two classifiers go through the same pipeline (instance masks -> boxes -> crops -> states -> variables):
    the OpenCV photo heuristics (out of domain on schematic top-down frames) and a decoder of the renderer's
    state legend (which measures the pipeline, not perception). Truth is the MetadataEstimator's record,
    which includes the simulator's in-use report.
    """
    from scenes.embedded.render import STATE_COLOURS

    priors = priors or default_priors()
    truth_est = MetadataEstimator(priors=priors)
    estimators = {
        "opencv": VisionEstimator(OpenCVStateClassifier(), priors=priors),
        "legend": VisionEstimator(SchematicStateClassifier(STATE_COLOURS), priors=priors, mask_crops=True),
    }
    scores = {name: _VisionScores() for name in estimators}
    n_frames = 0
    for _, obs in embedded_frames(scenes, seeds=seeds, perturbations=perturbations):
        n_frames += 1
        truth = {r.object_id: r for r in truth_est.estimate(obs).objects}
        for name, est in estimators.items():
            scores[name].add_frame(est, obs, truth, priors)
    return {"frames": n_frames, "estimators": {name: s.summary() for name, s in scores.items()}}


__all__ = ["EMBEDDED_SCENES", "embedded_eval", "embedded_frames"]
