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

from .base import CompositeEstimator, ObjectEstimate, to_record
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


# ---------------------------------------------------------------- size -> mass
def _size_rows(floorplans_dir: Path) -> list[tuple[int, str, str, float, float]]:
    """(floorplan number, type, first material, kg, AABB volume) of every pickupable/moveable object."""
    from .metadata import THOR_TO_COAT_MATERIAL
    from .vision import aabb_volume

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

    from .vision import MASS_VOLUME_EXPONENT

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
    from .metadata import mass_bucket
    from .vision import DEFAULT_SHELL_COEFFICIENT, MASS_VOLUME_EXPONENT, kg_from_volume

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


# ---------------------------------------------------------------- frames
STATE_FLAGS: dict[str, tuple[str, str]] = {
    # visual state -> (capability flag, state flag) in AI2-THOR metadata
    "dirty": ("dirtyable", "isDirty"),
    "broken": ("breakable", "isBroken"),
    "filled": ("canFillWithLiquid", "isFilledWithLiquid"),
    "open": ("openable", "isOpen"),
    "on": ("toggleable", "isToggled"),
}


def iter_trace_frames(traces_dir: Path) -> Iterable[tuple[str, dict[str, Any], Any]]:
    """Yield (``trace/event_NN``, metadata, RGB frame) for every recorded event that has a PNG."""
    from planner._optional import require

    cv2 = require("cv2", "vision")
    for f in sorted(traces_dir.glob("*/event_*.json")):
        png = f.with_suffix(".png")
        if not png.is_file():
            continue
        bgr = cv2.imread(str(png), cv2.IMREAD_COLOR)
        if bgr is None:
            continue
        yield f"{f.parent.name}/{f.stem}", json.loads(f.read_text()), cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def projected_boxes(meta: dict[str, Any], *, visible_only: bool = True) -> dict[str, Any]:
    """objectId -> Box2D of the metadata objects' 3D boxes projected into the frame (no masks were recorded)."""
    from .vision import Camera

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


def frames_eval(traces_dir: Path, *, classifier: Any = None, priors: TypePriors | None = None) -> dict[str, Any]:
    """Evaluate the vision estimator on recorded AI2-THOR frames against their metadata.

    Objects are located by projecting their metadata 3D boxes (the traces have no masks or depth), so this
    measures the state classifier and the fused variables, not detection.

    Returns:
        ``{"frames", "objects", "states": {state: {...}}, "variables": {var: {...}}, "seconds_per_object"}``.
        Per state: objects with the capability, positives, classifier accuracy at 0.5, and the accuracy of
        always answering the majority label. Per variable: agreement of the vision record (vision + priors)
        with the metadata record, how many values vision itself decided, and the agreement of the type
        prior alone (the baseline vision has to beat).
    """
    from .vision import DECISION_THRESHOLD, VisionEstimator

    priors = priors or default_priors()
    vis = VisionEstimator(classifier, priors=priors)
    meta_est = MetadataEstimator(priors=priors)
    states: dict[str, list[tuple[bool, float]]] = defaultdict(list)
    var_stats: dict[str, list[int]] = {v: [0, 0, 0, 0] for v in VARIABLES}  # agree, n, by vision, prior agrees
    n_frames = n_obj = 0
    seconds = 0.0
    for _, meta, rgb in iter_trace_frames(traces_dir):
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


# ---------------------------------------------------------------- ScienceWorld text
SCIWORLD_TASKS: tuple[str, ...] = (
    "boil",
    "melt",
    "freeze",
    "change-the-state-of-matter-of",
    "use-thermometer",
    "measure-melting-point-known-substance",
    "find-living-thing",
    "chemistry-mix",
)
"""Tasks sampled by :func:`text_eval` (the state-of-matter family has broken stoves on odd variations)."""


def _state_prefix(name: str) -> str:
    low = name.lower().strip()
    for p in ("liquid ", "gaseous ", "solid "):
        if low.startswith(p):
            return low[len(p) :]
    return low


def sciworld_ground_truth(tree: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
    """(room of the agent, flat list of its objects and the agent's inventory) from ``env.getObjectTree()``.

    Each entry: ``name``, ``parent`` (container name, the room name for top-level things, ``"inventory"``),
    ``temperatureC``, ``substanceName`` (None without a material), ``isBroken`` (None when not a device).
    """
    room = None
    for r in (tree.get("contents") or {}).values():
        if any(c.get("name") == "agent" for c in (r.get("contents") or {}).values()):
            room = r
            break
    if room is None:
        return None, []
    out: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], parent: str) -> None:
        for c in (node.get("contents") or {}).values():
            name = c.get("name", "")
            if name.startswith("terminal ") or name == "air":
                continue
            if name == "agent":
                inv = next((x for x in (c.get("contents") or {}).values() if x.get("name") == "inventory"), None)
                if inv is not None:
                    walk(inv, "inventory")
                continue
            pm, pd = c.get("propMaterial") or {}, c.get("propDevice") or None
            out.append(
                {
                    "name": name,
                    "parent": parent,
                    "temperatureC": pm.get("temperatureC"),
                    "substanceName": pm.get("substanceName"),
                    "isBroken": pd.get("isBroken") if isinstance(pd, dict) else None,
                }
            )
            walk(c, name)

    walk(room, room.get("name", ""))
    return room.get("name"), out


def match_ground_truth(parsed: list[tuple[str, Any]], truth: list[dict[str, Any]], room: str | None) -> dict[str, dict]:
    """Pair parsed text objects with object-tree entries by name (``red apple`` ~ ``apple``) and parent."""

    def same(text_name: str | None, gt_name: str | None) -> bool:
        if text_name is None or gt_name is None:
            return False
        a, b = _state_prefix(text_name), _state_prefix(gt_name)
        return a == b or a.endswith(" " + b)

    used: set[int] = set()
    out: dict[str, dict] = {}
    for oid, o in parsed:
        parent = o.parent if o.parent is not None else (room or o.room)
        for strict in (True, False):
            hit = next(
                (
                    i
                    for i, g in enumerate(truth)
                    if i not in used and same(o.name, g["name"]) and (not strict or same(parent, g["parent"]))
                ),
                None,
            )
            if hit is not None:
                used.add(hit)
                out[oid] = truth[hit]
                break
    return out


def text_eval(
    tasks: Iterable[str] = SCIWORLD_TASKS,
    *,
    per_task: int = 3,
    every: int = 5,
    step_limit: int = 400,
) -> dict[str, Any]:
    """Score the text estimator against ScienceWorld's object tree along gold paths (starts a JVM).

    For the first ``per_task`` test variations of each task, the gold action sequence is replayed; every
    reply goes to the estimator, and every ``every`` steps (and at the end) its scene - built from the reply
    and a free ``look``/``inventory`` - is scored against ``env.getObjectTree()``: temperature (Cold <= 5 C <
    RoomTemp < 40 C <= Hot), material (substance name mapped to COAT; water, air, paints are not scored) and
    isBroken of devices.

    Returns:
        Per variable: accuracy, how often the value came from the text (not the prior), the always-RoomTemp /
        never-broken baselines; broken devices found; seconds per object; episodes and snapshots scored.
    """
    import os

    from planner._optional import require

    from .text import SUBSTANCE_TO_COAT, TextEstimator, temperature_category

    os.environ.setdefault("JAVA_TOOL_OPTIONS", "-Xmx512m")
    sw = require("scienceworld", "sciworld")
    env = sw.ScienceWorldEnv("", envStepLimit=step_limit)
    est = TextEstimator()
    t_stats = Counter()
    m_stats = Counter()
    b_stats = Counter()
    unscored_substances: Counter[str] = Counter()
    material_errors: Counter[str] = Counter()
    episodes, snapshots, n_objects, seconds = [], 0, 0, 0.0
    try:
        for task in tasks:
            env.load(task, 0)
            variations = list(env.get_variations_test())[:per_task]
            for var in variations:
                env.load(task, var, "", generateGoldPath=True)
                obs, _ = env.reset()
                gold = list(env.get_gold_action_sequence())
                est.reset()
                episodes.append(f"{task}/{var}")
                steps = [(None, obs)]
                for i, action in enumerate(gold + [None]):
                    if action is not None:
                        reply = env.server.step(action)
                        steps.append((action, reply))
                    last = action is None
                    if not last and (i % every != 0):
                        est.observe(reply, action)
                        continue
                    act, reply = steps[-1]
                    sobs = SceneObs(text=reply, extra={"action": act, "look": env.look(), "inventory": env.inventory()})
                    t0 = time.perf_counter()
                    scene = est.estimate(sobs)
                    seconds += time.perf_counter() - t0
                    n_objects += len(scene.objects)
                    room, truth = sciworld_ground_truth(env.getObjectTree())
                    pairs = match_ground_truth(est.parsed_objects(), truth, room)
                    snapshots += 1
                    for oid, g in pairs.items():
                        rec = scene.by_id(oid)
                        if g["temperatureC"] is not None:
                            gt_t = temperature_category(float(g["temperatureC"]))
                            ok = rec.state.temperature == gt_t
                            src = "prior" if "temperature" in rec.unknown else "text"
                            t_stats[("all", ok)] += 1
                            t_stats[(src, ok)] += 1
                            t_stats[("gt_" + gt_t.value, ok)] += 1
                            t_stats[("baseline", gt_t.value == "RoomTemp")] += 1
                        sub = g["substanceName"]
                        if sub is not None:
                            mat = SUBSTANCE_TO_COAT.get(sub)
                            if mat is None:
                                unscored_substances[sub] += 1
                            else:
                                ok = rec.state.material == mat
                                src = "prior" if "material" in rec.unknown else "text"
                                if not ok:
                                    material_errors[f"{g['name']}: {rec.state.material.value} ({src}) vs {sub}"] += 1
                                m_stats[("all", ok)] += 1
                                m_stats[(src, ok)] += 1
                        if g["isBroken"] is not None:
                            pred = rec.state.condition.value == "broken"
                            b_stats[(bool(g["isBroken"]), pred)] += 1
    finally:
        env.close()

    def rate(c: Counter, key: str) -> dict[str, Any]:
        a, n = c[(key, True)], c[(key, True)] + c[(key, False)]
        return {"agree": a, "n": n, "rate": round(a / n, 4) if n else None}

    return {
        "episodes": episodes,
        "snapshots": snapshots,
        "temperature": {k: rate(t_stats, k) for k in ("all", "text", "prior", "gt_Hot", "gt_Cold", "gt_RoomTemp")}
        | {"always_roomtemp": rate(t_stats, "baseline")},
        "material": {k: rate(m_stats, k) for k in ("all", "text", "prior")},
        "material_not_scored": dict(unscored_substances.most_common()),
        "material_errors": dict(material_errors.most_common(20)),
        "broken": {
            "devices": sum(b_stats.values()),
            "broken_devices": b_stats[(True, True)] + b_stats[(True, False)],
            "true_positive": b_stats[(True, True)],
            "false_positive": b_stats[(False, True)],
            "false_negative": b_stats[(True, False)],
            "accuracy": round((b_stats[(True, True)] + b_stats[(False, False)]) / max(1, sum(b_stats.values())), 4),
        },
        "mass": "not scored: ScienceWorld has no mass (always unknown, confidence 0)",
        "seconds_per_object": seconds / n_objects if n_objects else None,
    }


# ---------------------------------------------------------------- embedded simulator frames
EMBEDDED_SCENES: tuple[str, ...] = ("kitchen", "living-room", "bedroom", "bathroom")

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

    from .vision import OpenCVStateClassifier, SchematicStateClassifier, VisionEstimator

    priors = priors or default_priors()
    truth_est = MetadataEstimator(priors=priors)
    estimators = {
        "opencv": VisionEstimator(OpenCVStateClassifier(), priors=priors),
        "legend": VisionEstimator(SchematicStateClassifier(STATE_COLOURS), priors=priors, mask_crops=True),
    }
    stats: dict[str, dict[str, list[int]]] = {k: {v: [0, 0, 0, 0] for v in VARIABLES} for k in estimators}
    state_rows: dict[str, dict[str, list[tuple[bool, float]]]] = {k: defaultdict(list) for k in estimators}
    seconds: dict[str, float] = dict.fromkeys(estimators, 0.0)
    n_frames = 0
    n_obj: dict[str, int] = dict.fromkeys(estimators, 0)
    for _, obs in embedded_frames(scenes, seeds=seeds, perturbations=perturbations):
        n_frames += 1
        truth = {r.object_id: r for r in truth_est.estimate(obs).objects}
        by_id = {o["objectId"]: o for o in obs.objects}
        for name, est in estimators.items():
            t0 = time.perf_counter()
            dets = est.detect(obs)
            recs = {d.object_id: to_record(est.to_estimate(d), priors) for d in dets}
            seconds[name] += time.perf_counter() - t0
            for d in dets:
                gt, o = truth.get(d.object_id), by_id.get(d.object_id)
                if gt is None or o is None:
                    continue
                n_obj[name] += 1
                rec = recs[d.object_id]
                prior_only = to_record(ObjectEstimate(d.object_id, d.category), priors)
                for var in VARIABLES:
                    s = stats[name][var]
                    s[0] += getattr(rec.state, var) == getattr(gt.state, var)
                    s[1] += 1
                    s[2] += var not in rec.unknown
                    s[3] += getattr(prior_only.state, var) == getattr(gt.state, var)
                for st, (cap, flag) in STATE_FLAGS.items():
                    if o.get(cap) and st in d.states:
                        state_rows[name][st].append((bool(o.get(flag)), d.states[st]))
    from .vision import DECISION_THRESHOLD

    def summarise(rows: list[tuple[bool, float]]) -> dict[str, Any]:
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

    return {
        "frames": n_frames,
        "estimators": {
            name: {
                "objects": n_obj[name],
                "variables": {
                    v: {
                        "rate": round(a / n, 4) if n else None,
                        "n": n,
                        "decided_by_vision": d,
                        "prior_only_rate": round(p / n, 4) if n else None,
                    }
                    for v, (a, n, d, p) in stats[name].items()
                },
                "states": {st: summarise(rows) for st, rows in sorted(state_rows[name].items())},
                "seconds_per_object": seconds[name] / n_obj[name] if n_obj[name] else None,
            }
            for name in estimators
        },
    }
