"""Benchmark of the text estimator against ScienceWorld's object tree, along gold action sequences.

:func:`text_eval` starts a JVM (the ``sciworld`` extra); :func:`sciworld_ground_truth` and
:func:`match_ground_truth` work on a recorded object tree and need nothing.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from planner._optional import require
from scenes.base import SceneObs

from ..text import SUBSTANCE_TO_COAT, TextEstimator, temperature_category

TEXT_EVAL_TASKS: tuple[str, ...] = (
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


def _gold_snapshots(env: Any, task: str, variation: int, est: TextEstimator, every: int) -> Iterator[SceneObs]:
    """Replay one variation's gold path; feed every reply to ``est`` and yield the observations to score.

    Every ``every`` steps (and after the last) the observation is the last reply plus a free ``look`` and
    ``inventory``; the caller scores it before the replay goes on.
    """
    env.load(task, variation, "", generateGoldPath=True)
    obs, _ = env.reset()
    gold = list(env.get_gold_action_sequence())
    est.reset()
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
        yield SceneObs(text=reply, extra={"action": act, "look": env.look(), "inventory": env.inventory()})


class _TextScores:
    """The counters of :func:`text_eval`: temperature, material and broken devices, per source."""

    def __init__(self) -> None:
        self.temperature: Counter[tuple[str, bool]] = Counter()
        self.material: Counter[tuple[str, bool]] = Counter()
        self.broken: Counter[tuple[bool, bool]] = Counter()
        self.unscored_substances: Counter[str] = Counter()
        self.material_errors: Counter[str] = Counter()

    def add(self, scene: Any, pairs: dict[str, dict[str, Any]]) -> None:
        """Score one snapshot: each parsed object paired with its object-tree entry."""
        for oid, g in pairs.items():
            rec = scene.by_id(oid)
            if g["temperatureC"] is not None:
                self._temperature(rec, float(g["temperatureC"]))
            if g["substanceName"] is not None:
                self._material(rec, g["name"], g["substanceName"])
            if g["isBroken"] is not None:
                pred = rec.state.condition.value == "broken"
                self.broken[(bool(g["isBroken"]), pred)] += 1

    def _temperature(self, rec: Any, celsius: float) -> None:
        gt_t = temperature_category(celsius)
        ok = rec.state.temperature == gt_t
        src = "prior" if "temperature" in rec.unknown else "text"
        self.temperature[("all", ok)] += 1
        self.temperature[(src, ok)] += 1
        self.temperature[("gt_" + gt_t.value, ok)] += 1
        self.temperature[("baseline", gt_t.value == "RoomTemp")] += 1

    def _material(self, rec: Any, name: str, sub: str) -> None:
        mat = SUBSTANCE_TO_COAT.get(sub)
        if mat is None:
            self.unscored_substances[sub] += 1
            return
        ok = rec.state.material == mat
        src = "prior" if "material" in rec.unknown else "text"
        if not ok:
            self.material_errors[f"{name}: {rec.state.material.value} ({src}) vs {sub}"] += 1
        self.material[("all", ok)] += 1
        self.material[(src, ok)] += 1

    def summary(self) -> dict[str, Any]:
        """The per-variable part of :func:`text_eval`'s result."""

        def rate(c: Counter, key: str) -> dict[str, Any]:
            a, n = c[(key, True)], c[(key, True)] + c[(key, False)]
            return {"agree": a, "n": n, "rate": round(a / n, 4) if n else None}

        t, b = self.temperature, self.broken
        return {
            "temperature": {k: rate(t, k) for k in ("all", "text", "prior", "gt_Hot", "gt_Cold", "gt_RoomTemp")}
            | {"always_roomtemp": rate(t, "baseline")},
            "material": {k: rate(self.material, k) for k in ("all", "text", "prior")},
            "material_not_scored": dict(self.unscored_substances.most_common()),
            "material_errors": dict(self.material_errors.most_common(20)),
            "broken": {
                "devices": sum(b.values()),
                "broken_devices": b[(True, True)] + b[(True, False)],
                "true_positive": b[(True, True)],
                "false_positive": b[(False, True)],
                "false_negative": b[(True, False)],
                "accuracy": round((b[(True, True)] + b[(False, False)]) / max(1, sum(b.values())), 4),
            },
        }


def text_eval(
    tasks: Iterable[str] = TEXT_EVAL_TASKS,
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
    os.environ.setdefault("JAVA_TOOL_OPTIONS", "-Xmx512m")
    sw = require("scienceworld", "sciworld")
    env = sw.ScienceWorldEnv("", envStepLimit=step_limit)
    est = TextEstimator()
    scores = _TextScores()
    episodes, snapshots, n_objects, seconds = [], 0, 0, 0.0
    try:
        for task in tasks:
            env.load(task, 0)
            for var in list(env.get_variations_test())[:per_task]:
                episodes.append(f"{task}/{var}")
                for sobs in _gold_snapshots(env, task, var, est, every):
                    t0 = time.perf_counter()
                    scene = est.estimate(sobs)
                    seconds += time.perf_counter() - t0
                    n_objects += len(scene.objects)
                    room, truth = sciworld_ground_truth(env.getObjectTree())
                    scores.add(scene, match_ground_truth(est.parsed_objects(), truth, room))
                    snapshots += 1
    finally:
        env.close()
    return {
        "episodes": episodes,
        "snapshots": snapshots,
        **scores.summary(),
        "mass": "not scored: ScienceWorld has no mass (always unknown, confidence 0)",
        "seconds_per_object": seconds / n_objects if n_objects else None,
    }


__all__ = ["TEXT_EVAL_TASKS", "match_ground_truth", "sciworld_ground_truth", "text_eval"]
