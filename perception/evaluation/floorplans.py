"""Benchmarks on the AI2-THOR floorplan dumps: agreement with COAT's common values, and mass from size.

The floorplans are the data directory's ``ai2thor/floorplans/`` (real AI2-THOR 5.0.0 metadata of all 120
iTHOR scenes after reset).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from planner.schemas import VARIABLES
from scenes.base import SceneObs

from ..base import CompositeEstimator, to_record
from ..geometry import DEFAULT_SHELL_COEFFICIENT, MASS_VOLUME_EXPONENT, aabb_volume, kg_from_volume
from ..metadata import THOR_TO_COAT_MATERIAL, MetadataEstimator, mass_bucket
from ..priors import TypePriors, default_priors


def load_floorplans(floorplans_dir: Path) -> Iterable[tuple[str, list[dict[str, Any]]]]:
    """Yield (scene name, object metadata list) for every ``FloorPlan<N>_physics.json`` in the directory.

    Each file is read by the validated scene loader: a damaged one is a DataError naming the file and the key.
    """
    from scenes.embedded.loader import load_scene_file

    files = [p for p in floorplans_dir.glob("FloorPlan*_physics.json") if p.stem[9:].split("_")[0].isdigit()]
    for f in sorted(files, key=lambda p: int(p.stem[9:].split("_")[0])):
        yield f.stem, load_scene_file(f).objects


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



# ---------------------------------------------------------------- size -> mass
def _size_rows(floorplans_dir: Path) -> list[tuple[int, str, str, float, float]]:
    """(floorplan number, type, first material, kg, AABB volume) of every pickupable/moveable object."""
    rows = []
    for scene, objs in load_floorplans(floorplans_dir):
        n = int(scene[9:].split("_")[0])
        for o in objs:
            mats = o.get("salientMaterials") or []
            kg = o.get("mass")
            vol = aabb_volume(o)
            mat = THOR_TO_COAT_MATERIAL.get(mats[0]) if mats else None
            if (o.get("pickupable") or o.get("moveable")) and kg and vol and mat is not None:
                rows.append((n, str(o.get("objectType")), mat.value, float(kg), vol))
    return rows


def calibrate_shell_coefficients(floorplans_dir: Path, *, split: str = "even") -> dict[str, Any]:
    """Fit kg = c_material * volume^(2/3) on the ``split`` floorplans (median of kg / volume^(2/3)).

    Returns:
        ``{"exponent_fit", "per_material": {material: (coefficient, n)}, "all": coefficient}``; the slope of
        log kg on log volume is reported as ``exponent_fit``.
    """
    import numpy as np

    rows = [r for r in _size_rows(floorplans_dir) if (r[0] % 2 == 0) == (split == "even")]
    by: dict[str, list[float]] = defaultdict(list)
    for _, _, mat, kg, vol in rows:
        by[mat].append(kg / vol**MASS_VOLUME_EXPONENT)
    slope = float(np.polyfit(np.log([r[4] for r in rows]), np.log([r[3] for r in rows]), 1)[0])
    allc = [kg / vol**MASS_VOLUME_EXPONENT for *_, kg, vol in rows]
    return {
        "split": split,
        "objects": len(rows),
        "exponent_fit": round(slope, 3),
        "per_material": {m: (round(float(np.median(v)), 1), len(v)) for m, v in sorted(by.items())},
        "all": round(float(np.median(allc)), 1),
    }


def mass_from_size(floorplans_dir: Path, *, split: str = "odd") -> dict[str, Any]:
    """Mass bucket from AABB volume (shell model) vs the bucket of AI2-THOR's kg, on the ``split`` floorplans.

    Compares the per-material coefficients, the single coefficient, and predicting the majority bucket.
    """
    rows = [r for r in _size_rows(floorplans_dir) if (r[0] % 2 == 0) == (split == "even")]
    truth = [mass_bucket(kg) for *_, kg, _ in rows]
    per_mat = [mass_bucket(kg_from_volume(vol, mat)) for _, _, mat, _, vol in rows]
    single = [mass_bucket(DEFAULT_SHELL_COEFFICIENT * vol**MASS_VOLUME_EXPONENT) for *_, vol in rows]
    majority = Counter(truth).most_common(1)[0][0]
    n = len(rows)
    t0 = time.perf_counter()
    for _, _, mat, _, vol in rows:
        mass_bucket(kg_from_volume(vol, mat))
    dt = (time.perf_counter() - t0) / max(n, 1)
    return {
        "split": split,
        "objects": n,
        "per_material": round(sum(a == b for a, b in zip(per_mat, truth, strict=True)) / n, 4),
        "single_coefficient": round(sum(a == b for a, b in zip(single, truth, strict=True)) / n, 4),
        "majority_bucket": majority.value,
        "majority_baseline": round(sum(t == majority for t in truth) / n, 4),
        "seconds_per_object": dt,
    }


__all__ = ["agreement", "calibrate_shell_coefficients", "load_floorplans", "mass_from_size", "time_estimator"]
