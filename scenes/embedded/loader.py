"""Scene loading for the embedded simulator: hand-written scenes, real iTHOR scene dumps, recorded events.

Three sources give one :class:`SceneData`:

- a hand-written scene shipped in ``scenes/embedded/scenes/<name>.json`` (compact format below);
- a real iTHOR scene, ``FloorPlanN``, read from ``<data root>/ai2thor/floorplans/FloorPlanN_physics.json``
  (objectId -> the object's 42-key metadata right after ``controller.reset``);
- a recorded event's metadata (``event_NN.json`` of a trace), used to replay recordings.

Compact scene format (every key but ``objects`` optional)::

    {"sceneName": "EmbeddedKitchen",
     "agent": {"position": [x, z], "rotation": 270, "horizon": 0},
     "objects": [
        {"name": "CounterTop_1", "type": "CounterTop", "center": [x, y, z], "size": [sx, sy, sz]},
        {"name": "Knife_1", "type": "Knife", "center": [x, y, z], "in": ["CounterTop_1"],
         "state": {"isDirty": false}, "flags": {"dirtyable": true}, "mass": 0.18, "materials": ["Metal"]},
        {"name": "SinkBasin_1", "type": "SinkBasin", "part_of": "Sink_1", "center": [...]},
        {"name": "StoveKnob_1", "type": "StoveKnob", "controls": ["StoveBurner_1"], "center": [...]}]}

``center``/``size`` are the axis-aligned box (size defaults to the type's median size in the real scenes);
``in`` lists the receptacles the object rests in (AI2-THOR's ``parentReceptacles``); ``part_of`` builds a child id
like ``Sink|...|SinkBasin``. Everything else comes from the per-type table (:mod:`scenes.embedded._types`).
"""

from __future__ import annotations

import copy
import json
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from planner.errors import DataError, UnknownIdError

from .extensions import ALL_TYPES as TYPES
from .extensions import is_extension
from .metadata import FLAG_KEYS, LIQUIDS, OBJECT_KEYS, TEMPERATURES, aabb, make_object_id, oobb, vec

log = logging.getLogger(__name__)

# Agent start poses of the four scenes that have real recordings (the data directory's
# ai2thor/traces/*/event_00.json); other iTHOR scenes start at the reachable position closest to the middle of
# the floor.
KNOWN_STARTS: dict[str, tuple[float, float, float, float]] = {
    "FloorPlan1": (-1.0, 0.900999128818512, 1.0, 270.0),
    "FloorPlan201": (-4.0, 0.9026566743850708, 1.5, 0.0),
    "FloorPlan301": (2.25, 0.910415768623352, 1.0, 270.0),
    "FloorPlan401": (-2.25, 0.9016162753105164, 1.5, 0.0),
}


@dataclass
class SceneData:
    """A scene's initial state, in AI2-THOR's metadata schema.

    Attributes:
        name: ``sceneName`` as AI2-THOR reports it (``FloorPlan1_physics``).
        objects: Object metadata dicts with the 42 keys, in scene order.
        agent: Start pose: ``position`` {x,y,z} (y may be None), ``rotation`` (yaw degrees), ``horizon``,
            ``standing``; None means "pick a reachable position".
        held: objectId in the agent's hand at the start, or None.
        source: Where the scene came from (a path or ``package:<name>``).
        scene_bounds: AI2-THOR ``sceneBounds`` when known.
    """

    name: str
    objects: list[dict[str, Any]]
    agent: dict[str, Any] | None = None
    held: str | None = None
    source: str = ""
    scene_bounds: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def packaged_scene_names() -> list[str]:
    """Names of the hand-written scenes shipped with the project."""
    root = resources.files("scenes.embedded") / "scenes"
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".json") and not p.name.startswith("_"))


def load_scene(scene: str | Path, *, data_dir: str | Path | None = None) -> SceneData:
    """Load a scene by name (``kitchen``, ``FloorPlan1``) or from a ``.json`` path.

    Args:
        scene: A packaged scene name, ``FloorPlanN``, or a path to a compact scene / iTHOR dump file.
        data_dir: Data root for ``FloorPlanN`` (default: ``planner.paths.resolve_data_dir``).

    Returns:
        The scene's initial state.

    Raises:
        UnknownIdError: unknown scene name (lists the valid ones).
        DataNotFoundError: ``FloorPlanN`` requested but the ai2thor/ data is missing.
        DataError: the scene file is corrupt (names the file and the key).
    """
    s = str(scene)
    if s.endswith(".json") or "/" in s or "\\" in s:
        return load_scene_file(Path(s))
    if s.startswith("FloorPlan"):
        num = s[len("FloorPlan") :].removesuffix("_physics")
        if not num.isdigit():
            raise UnknownIdError(f"unknown scene {scene!r}: use FloorPlanN with N in 1-30, 201-230, 301-330, 401-430")
        from planner.paths import resolve_data_dir

        root = resolve_data_dir(data_dir, need="ai2thor")
        path = root / "ai2thor" / "floorplans" / f"FloorPlan{num}_physics.json"
        if not path.is_file():
            raise UnknownIdError(
                f"unknown scene {scene!r}: no {path.name} in {path.parent} "
                "(iTHOR scenes are FloorPlan1-30, 201-230, 301-330, 401-430)"
            )
        return load_scene_file(path)
    names = packaged_scene_names()
    if s not in names:
        raise UnknownIdError(
            f"unknown scene {scene!r}; packaged scenes: {', '.join(names)}; or FloorPlanN, or a .json path"
        )
    ref = resources.files("scenes.embedded") / "scenes" / f"{s}.json"
    with resources.as_file(ref) as p:
        return load_scene_file(Path(p), source=f"package:{s}")


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(path, "", f"cannot read the file: {e}") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(path, f"line {e.lineno} column {e.colno}", f"invalid JSON: {e.msg}") from e


def load_scene_file(path: Path, *, source: str | None = None) -> SceneData:
    """Load a compact scene file, an iTHOR scene dump (objectId -> metadata) or an event metadata file."""
    raw = _read_json(path)
    src = source or str(path)
    if (
        isinstance(raw, dict)
        and isinstance(raw.get("objects"), list)
        and raw["objects"]
        and "objectId" in raw["objects"][0]
    ):
        return scene_from_event(raw, source=src, path=path)
    if isinstance(raw, dict) and "objects" in raw:
        return _from_compact(raw, path, src)
    if isinstance(raw, dict) and raw and all(isinstance(v, dict) and "objectId" in v for v in raw.values()):
        return _from_dump(raw, path, src)
    raise DataError(
        path,
        "",
        "not a scene: expected a compact scene {'objects': [...]}, an iTHOR dump {objectId: metadata} "
        "or an event metadata {'objects': [{objectId...}]}",
    )


def _check_object(o: Any, path: Path, key: str) -> dict[str, Any]:
    if not isinstance(o, dict):
        raise DataError(path, key, f"expected an object metadata dict, got {type(o).__name__}")
    missing = [k for k in OBJECT_KEYS if k not in o]
    if missing:
        raise DataError(path, key, f"missing AI2-THOR metadata keys {missing[:5]}{'...' if len(missing) > 5 else ''}")
    if o["temperature"] not in TEMPERATURES:
        raise DataError(path, f"{key}.temperature", f"{o['temperature']!r} is not one of {list(TEMPERATURES)}")
    for k in ("position", "axisAlignedBoundingBox"):
        if not isinstance(o[k], dict):
            raise DataError(path, f"{key}.{k}", "expected a dict")
    return {k: o[k] for k in OBJECT_KEYS}


def _from_dump(raw: dict[str, Any], path: Path, src: str) -> SceneData:
    objs = [_check_object(copy.deepcopy(o), path, oid) for oid, o in raw.items()]
    ext = [o["objectId"] for o in objs if is_extension(o["objectType"])]
    if ext:
        # a real iTHOR scene never has the simulator's extension types (Cake...): such a file is not a dump
        raise DataError(path, ext[0], "extension object types (scenes.embedded.extensions) are not AI2-THOR's; "
                        "real iTHOR scene dumps cannot contain them")
    stem = path.stem
    name = stem if stem.endswith("_physics") else f"{stem}_physics"
    base = name.removesuffix("_physics")
    agent = None
    if base in KNOWN_STARTS:
        x, y, z, yaw = KNOWN_STARTS[base]
        agent = {"position": vec(x, y, z), "rotation": yaw, "horizon": 0.0, "standing": True}
    return SceneData(name=name, objects=objs, agent=agent, source=src)


def scene_from_event(meta: dict[str, Any], *, source: str = "event", path: Path | None = None) -> SceneData:
    """Build a SceneData from a recorded ``event.metadata`` dict (objects, agent pose, held object)."""
    p = path or Path(source)
    objs = [_check_object(copy.deepcopy(o), p, f"objects[{i}]") for i, o in enumerate(meta["objects"])]
    ag = meta.get("agent") or {}
    agent = None
    if ag.get("position"):
        agent = {
            "position": dict(ag["position"]),
            "rotation": float((ag.get("rotation") or {}).get("y", 0.0)),
            "horizon": float(ag.get("cameraHorizon", 0.0)),
            "standing": bool(ag.get("isStanding", True)),
        }
    inv = meta.get("inventoryObjects") or []
    held = inv[0]["objectId"] if inv else None
    return SceneData(
        name=str(meta.get("sceneName") or "EventScene"),
        objects=objs,
        agent=agent,
        held=held,
        source=source,
        scene_bounds=copy.deepcopy(meta.get("sceneBounds")),
    )


def _vec3(v: Any, path: Path, key: str) -> tuple[float, float, float]:
    if not isinstance(v, (list, tuple)) or len(v) != 3 or not all(isinstance(a, (int, float)) for a in v):
        raise DataError(path, key, f"expected [x, y, z] numbers, got {v!r}")
    return float(v[0]), float(v[1]), float(v[2])


def _from_compact(raw: dict[str, Any], path: Path, src: str) -> SceneData:
    items = raw.get("objects")
    if not isinstance(items, list) or not items:
        raise DataError(path, "objects", "expected a non-empty list of objects")
    ids: dict[str, str] = {}
    metas: list[dict[str, Any]] = []
    for i, it in enumerate(items):
        name, m = _compact_object(it, i, path, ids)
        ids[name] = m["objectId"]
        metas.append(m)
    _link(items, metas, ids, path)
    return SceneData(name=str(raw.get("sceneName") or path.stem), objects=metas, agent=_compact_agent(raw, path),
                     source=src)


def _compact_object(it: Any, i: int, path: Path, ids: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """One compact object entry as AI2-THOR metadata (its name, and the record); ``ids`` holds those before it."""
    key = f"objects[{i}]"
    if not isinstance(it, dict):
        raise DataError(path, key, "expected an object")
    t = it.get("type")
    if t not in TYPES:
        raise DataError(path, f"{key}.type", f"unknown object type {t!r} (AI2-THOR types and the extension types)")
    name = it.get("name") or f"{t}_{i}"
    if name in ids:
        raise DataError(path, f"{key}.name", f"duplicate name {name!r}")
    info = TYPES[t]
    center = _vec3(it.get("center"), path, f"{key}.center")
    size = _vec3(it["size"], path, f"{key}.size") if "size" in it else info.size
    pos = (center[0], center[1] - size[1] / 2, center[2])
    if "part_of" in it:
        parent = it["part_of"]
        if parent not in ids:
            raise DataError(path, f"{key}.part_of", f"{parent!r} must be defined before {name!r}")
        oid = f"{ids[parent]}|{t}"
    else:
        oid = make_object_id(t, *pos)
    if oid in ids.values():
        raise DataError(path, key, f"two objects get the id {oid!r}; move one of them")
    flags = {k: (k in info.flags) for k in FLAG_KEYS}
    over = it.get("flags") or {}
    for k, v in over.items():
        if k not in flags or not isinstance(v, bool):
            raise DataError(
                path, f"{key}.flags.{k}", f"unknown flag or non-bool value; flags are {list(FLAG_KEYS)}"
            )
        flags[k] = v
    movable = flags["pickupable"] or flags["moveable"]
    mass = float(it.get("mass", info.mass if movable or t == "Floor" else 0.0))
    mats = it.get("materials", list(info.materials) if (info.materials and (movable or t == "Floor")) else None)
    m: dict[str, Any] = {
        "name": name,
        "position": vec(*pos),
        "rotation": vec(0.0, float(it.get("yaw", 0.0)), 0.0),
        "visible": False,
        "isInteractable": False,
        "receptacle": flags["receptacle"],
        "toggleable": flags["toggleable"],
        "isToggled": False,
        "breakable": flags["breakable"],
        "isBroken": False,
        "canFillWithLiquid": flags["canFillWithLiquid"],
        "isFilledWithLiquid": False,
        "fillLiquid": None,
        "dirtyable": flags["dirtyable"],
        "isDirty": False,
        "canBeUsedUp": flags["canBeUsedUp"],
        "isUsedUp": False,
        "cookable": flags["cookable"],
        "isCooked": False,
        "temperature": "RoomTemp",
        "isHeatSource": flags["isHeatSource"],
        "isColdSource": flags["isColdSource"],
        "sliceable": flags["sliceable"],
        "isSliced": False,
        "openable": flags["openable"],
        "isOpen": False,
        "openness": 0.0,
        "pickupable": flags["pickupable"],
        "isPickedUp": False,
        "moveable": flags["moveable"],
        "mass": mass,
        "salientMaterials": list(mats) if mats else None,
        "receptacleObjectIds": [] if flags["receptacle"] else None,
        "distance": 0.0,
        "objectType": t,
        "objectId": oid,
        "assetId": it.get("assetId", f"{t}_1"),
        "parentReceptacles": None,
        "controlledObjects": None,
        "isMoving": False,
        "axisAlignedBoundingBox": aabb(center, size),
        "objectOrientedBoundingBox": oobb(center, size) if flags["pickupable"] else None,
    }
    for k, v in (it.get("state") or {}).items():
        _apply_state(m, k, v, path, f"{key}.state.{k}")
    return name, m


def _link(items: list[Any], metas: list[dict[str, Any]], ids: dict[str, str], path: Path) -> None:
    """Second pass, once every id is known: containment, knob-to-burner links, lit burners."""
    by_id = {m["objectId"]: m for m in metas}
    for i, (it, m) in enumerate(zip(items, metas, strict=True)):
        key = f"objects[{i}]"
        parents = it.get("in") or []
        if isinstance(parents, str):
            parents = [parents]
        pids = []
        for p in parents:
            if p not in ids:
                raise DataError(path, f"{key}.in", f"unknown receptacle name {p!r}")
            r = by_id[ids[p]]
            if not r["receptacle"]:
                raise DataError(path, f"{key}.in", f"{p!r} ({r['objectType']}) is not a receptacle")
            pids.append(r["objectId"])
            r["receptacleObjectIds"].append(m["objectId"])
        m["parentReceptacles"] = pids or None
        if "controls" in it:
            ctl = []
            for c in it["controls"]:
                if c not in ids:
                    raise DataError(path, f"{key}.controls", f"unknown object name {c!r}")
                ctl.append(ids[c])
            m["controlledObjects"] = ctl
    # a knob that is on lights its burners (AI2-THOR reports the burner's isToggled)
    for m in metas:
        if m["controlledObjects"] and m["isToggled"]:
            for c in m["controlledObjects"]:
                by_id[c]["isToggled"] = True


def _compact_agent(raw: dict[str, Any], path: Path) -> dict[str, Any] | None:
    ag = raw.get("agent")
    if not ag:
        return None
    p = ag.get("position")
    if not isinstance(p, (list, tuple)) or len(p) not in (2, 3):
        raise DataError(path, "agent.position", "expected [x, z] or [x, y, z]")
    x, z = float(p[0]), float(p[-1])
    y = float(p[1]) if len(p) == 3 else None
    return {
        "position": {"x": x, "y": y, "z": z},
        "rotation": float(ag.get("rotation", 0.0)),
        "horizon": float(ag.get("horizon", 0.0)),
        "standing": True,
    }


def _apply_state(m: dict[str, Any], k: str, v: Any, path: Path, key: str) -> None:
    bool_keys = ("isOpen", "isToggled", "isDirty", "isBroken", "isSliced", "isCooked", "isUsedUp", "isFilledWithLiquid")
    if k in bool_keys:
        if not isinstance(v, bool):
            raise DataError(path, key, f"expected true/false, got {v!r}")
        m[k] = v
        if k == "isOpen":
            m["openness"] = 1.0 if v else 0.0
    elif k == "temperature":
        if v not in TEMPERATURES:
            raise DataError(path, key, f"{v!r} is not one of {list(TEMPERATURES)}")
        m[k] = v
    elif k == "fillLiquid":
        if v is not None and v not in LIQUIDS:
            raise DataError(path, key, f"{v!r} is not one of {list(LIQUIDS)}")
        m[k] = v
        m["isFilledWithLiquid"] = v is not None
    else:
        raise DataError(
            path,
            key,
            "unknown state key; use isOpen, isToggled, isDirty, isBroken, isSliced, isCooked, "
            "isUsedUp, isFilledWithLiquid, fillLiquid, temperature",
        )


__all__ = ["KNOWN_STARTS", "SceneData", "load_scene", "load_scene_file", "packaged_scene_names", "scene_from_event"]
