"""Benchmarks of the estimators: agreement with COAT, accuracy on recorded frames and ScienceWorld text.

Each function returns a plain dict (JSON-serialisable) and is wrapped by ``coat perception ...``
(:mod:`perception.cli`). Results are written up in ``benchmarks/perception.md``.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from planner.schemas import VARIABLES
from scenes.base import SceneObs

from .base import CompositeEstimator, to_record
from .metadata import MetadataEstimator
from .priors import TypePriors, default_priors

log = logging.getLogger(__name__)


def load_floorplans(floorplans_dir: Path) -> Iterable[tuple[str, list[dict[str, Any]]]]:
    """Yield (scene name, object metadata list) for every ``FloorPlan*_physics.json`` in the directory."""
    files = sorted(floorplans_dir.glob("FloorPlan*_physics.json"), key=lambda p: int(p.stem[9:].split("_")[0]))
    for f in files:
        with open(f, encoding="utf-8") as fh:
            data = json.load(fh)
        yield f.stem, list(data.values()) if isinstance(data, dict) else list(data)


def agreement(
    floorplans_dir: Path,
    *,
    material_rule: str = "first",
    priors: TypePriors | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Agreement of metadata-derived variables with COAT's common values, over every floorplan object.

    An object agrees on a variable when the estimated value is one of COAT's common values for its type.
    Objects whose type COAT does not name are counted but not scored.

    Returns:
        ``{"objects", "scored", "not_in_coat", "per_variable": {var: {...}}, "mass_confusion",
        "disagreements": {var: {type: count}}, "seconds_per_object"}``. Per variable: ``agree``/``n`` over
        all scored objects, and the same split by where the value came from (``metadata`` vs ``prior``).
    """
    priors = priors or default_priors()
    est = MetadataEstimator(material_rule=material_rule, priors=priors)
    n_obj = n_scored = 0
    not_in_coat: Counter[str] = Counter()
    stats: dict[str, dict[str, list[int]]] = {v: defaultdict(lambda: [0, 0]) for v in VARIABLES}
    disagree: dict[str, Counter[str]] = {v: Counter() for v in VARIABLES}
    mass_conf: Counter[tuple[str, str]] = Counter()
    values: dict[str, Counter[str]] = {v: Counter() for v in VARIABLES}
    seconds = 0.0
    for i, (scene, objs) in enumerate(load_floorplans(floorplans_dir)):
        if limit is not None and i >= limit:
            break
        obs = SceneObs(objects=tuple(objs), extra={"scene_id": scene})
        t0 = time.perf_counter()
        ests = est.estimate_objects(obs)
        records = [to_record(e, priors) for e in ests.values()]
        seconds += time.perf_counter() - t0
        for rec in records:
            n_obj += 1
            common = priors.coat_values(rec.category)
            if not common or not common.get("mass"):
                not_in_coat[rec.category] += 1
                continue
            n_scored += 1
            for var in VARIABLES:
                val = getattr(rec.state, var).value
                origin = "prior" if var in rec.unknown else "metadata"
                values[var][f"{origin}:{val}"] += 1
                ok = val in common[var]
                for key in ("all", origin):
                    stats[var][key][0] += ok
                    stats[var][key][1] += 1
                if not ok:
                    disagree[var][f"{rec.category}={val}"] += 1
            mass_conf[(rec.state.mass.value, "/".join(common["mass"]))] += 1
    per_var = {
        v: {k: {"agree": a, "n": n, "rate": round(a / n, 4) if n else None} for k, (a, n) in sorted(stats[v].items())}
        for v in VARIABLES
    }
    return {
        "material_rule": material_rule,
        "objects": n_obj,
        "scored": n_scored,
        "not_in_coat": dict(not_in_coat.most_common()),
        "per_variable": per_var,
        "mass_confusion": {f"{a} vs COAT {b}": c for (a, b), c in sorted(mass_conf.items())},
        "values": {v: dict(sorted(c.items())) for v, c in values.items()},
        "disagreements": {v: dict(c.most_common(15)) for v, c in disagree.items() if c},
        "seconds_per_object": seconds / n_obj if n_obj else None,
    }


def time_estimator(est: CompositeEstimator, obs: SceneObs, repeats: int = 3) -> float:
    """Mean seconds per object of ``est.estimate(obs)`` (records included), best of ``repeats``."""
    n = max(1, len(obs.objects))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        est.estimate(obs)
        best = min(best, time.perf_counter() - t0)
    return best / n


__all__ = ["agreement", "load_floorplans", "time_estimator"]
