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
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from planner.errors import DataError, UnknownIdError

from .extensions import ALL_TYPES as TYPES
from .extensions import is_extension
from .metadata import FLAG_KEYS, OBJECT_KEYS, aabb, make_object_id, oobb, vec
from .validation import CompactScene, EventScene, ObjectMeta, read_json, validate

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


def _is_event(raw: dict[str, Any]) -> bool:
    objs = raw.get("objects")
    if "screenWidth" in raw or "lastActionSuccess" in raw:
        return True
    return isinstance(objs, list) and any(isinstance(o, dict) and "objectId" in o for o in objs)


def load_scene_file(path: Path, *, source: str | None = None) -> SceneData:
    """Load a compact scene file, an iTHOR scene dump (objectId -> metadata) or an event metadata file.

    Key paths in errors: ``objects/<i>/...`` (compact scene, event), ``objects/<objectId>/...`` (dump).
    """
    raw = read_json(path)
    src = source or str(path)
    if isinstance(raw, dict) and _is_event(raw):
        return scene_from_event(raw, source=src, path=path)
    if isinstance(raw, dict) and "objects" in raw:
        return _from_compact(raw, path, src)
    if isinstance(raw, dict) and any(isinstance(v, dict) and "objectId" in v for v in raw.values()):
        return _from_dump(raw, path, src)
    raise DataError(
        path,
        "",
        "not a scene: expected a compact scene {'objects': [...]}, an iTHOR dump {objectId: metadata} "
        "or an event metadata {'objects': [{objectId...}]}",
    )


def _validate_objects(path: Path, tp: Any, raw: Any, objects: Any) -> Any:
    """``validate``, with a missing metadata key reported as the object's list of missing keys."""
    try:
        return validate(path, tp, raw, prefix=() if tp is EventScene else ("objects",))
    except DataError as e:
        parts = e.key.split("/")
        if e.problem.startswith("Field required") and len(parts) == 3 and parts[0] == "objects":
            o = objects[int(parts[1])] if isinstance(objects, list) else objects[parts[1]]
            missing = [k for k in OBJECT_KEYS if k not in o]
            more = "..." if len(missing) > 5 else ""
            raise DataError(path, "/".join(parts[:2]), f"missing AI2-THOR metadata keys {missing[:5]}{more}") from None
        raise


def _from_dump(raw: dict[str, Any], path: Path, src: str) -> SceneData:
    checked: dict[str, dict[str, Any]] = _validate_objects(path, dict[str, ObjectMeta], raw, raw)
    for oid, o in checked.items():
        if o["objectId"] != oid:
            raise DataError(path, f"objects/{oid}/objectId", f"{o['objectId']!r} is not the key it is filed under")
        if is_extension(o["objectType"]):
            # a real iTHOR scene never has the simulator's extension types (Cake...): such a file is not a dump
            raise DataError(
                path,
                f"objects/{oid}/objectType",
                "extension object types (scenes.embedded.extensions) "
                "are not AI2-THOR's; real iTHOR scene dumps cannot contain them",
            )
    stem = path.stem
    name = stem if stem.endswith("_physics") else f"{stem}_physics"
    base = name.removesuffix("_physics")
    agent = None
    if base in KNOWN_STARTS:
        x, y, z, yaw = KNOWN_STARTS[base]
        agent = {"position": vec(x, y, z), "rotation": yaw, "horizon": 0.0, "standing": True}
    return SceneData(name=name, objects=list(checked.values()), agent=agent, source=src)


def scene_from_event(meta: dict[str, Any], *, source: str = "event", path: Path | None = None) -> SceneData:
    """Build a SceneData from a recorded ``event.metadata`` dict (objects, agent pose, held object).

    Raises:
        DataError: the metadata does not match :class:`~scenes.embedded.validation.EventScene`.
    """
    p = path or Path(source)
    checked = _validate_objects(p, EventScene, meta, meta.get("objects") if isinstance(meta, dict) else None)
    ag = checked.get("agent") or {}
    agent = None
    if ag.get("position"):
        agent = {
            "position": ag["position"],
            "rotation": float((ag.get("rotation") or {}).get("y", 0.0)),
            "horizon": float(ag.get("cameraHorizon", 0.0)),
            "standing": bool(ag.get("isStanding", True)),
        }
    inv = checked.get("inventoryObjects") or []
    held = inv[0]["objectId"] if inv else None
    return SceneData(
        name=str(checked.get("sceneName") or "EventScene"),
        objects=checked["objects"],
        agent=agent,
        held=held,
        source=source,
        scene_bounds=copy.deepcopy(meta.get("sceneBounds")),
    )


def _from_compact(raw: dict[str, Any], path: Path, src: str) -> SceneData:
    scene = validate(path, CompactScene, raw)
    items = scene["objects"]
    ids: dict[str, str] = {}
    metas: list[dict[str, Any]] = []
    for i, it in enumerate(items):
        name, m = _compact_object(it, i, path, ids)
        ids[name] = m["objectId"]
        metas.append(m)
    _link(items, metas, ids, path)
    return SceneData(name=scene.get("sceneName") or path.stem, objects=metas, agent=_compact_agent(scene), source=src)


def _compact_object(it: dict[str, Any], i: int, path: Path, ids: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """One validated compact object entry as AI2-THOR metadata (its name, and the record).

    ``ids`` maps the names of the entries before it to their objectIds.
    """
    key = f"objects/{i}"
    t = it["type"]
    name = it.get("name") or f"{t}_{i}"
    if name in ids:
        raise DataError(path, f"{key}/name", f"duplicate name {name!r}")
    info = TYPES[t]
    center = tuple(it["center"])
    size = tuple(it["size"]) if "size" in it else info.size
    pos = (center[0], center[1] - size[1] / 2, center[2])
    if "part_of" in it:
        parent = it["part_of"]
        if parent not in ids:
            raise DataError(path, f"{key}/part_of", f"{parent!r} must be defined before {name!r}")
        oid = f"{ids[parent]}|{t}"
    else:
        oid = make_object_id(t, *pos)
    if oid in ids.values():
        raise DataError(path, key, f"two objects get the id {oid!r}; move one of them")
    flags = {k: (k in info.flags) for k in FLAG_KEYS}
    flags.update(it.get("flags") or {})
    m = _compact_metadata(it, name, oid, flags, center, size)
    for k, v in it.get("state", {}).items():
        _apply_state(m, k, v)
    return name, m


def _compact_metadata(
    it: dict[str, Any],
    name: str,
    oid: str,
    flags: dict[str, bool],
    center: tuple[float, ...],
    size: tuple[float, ...],
) -> dict[str, Any]:
    """The 42-key record of a compact entry, in its initial state."""
    t = it["type"]
    info = TYPES[t]
    pos = (center[0], center[1] - size[1] / 2, center[2])
    movable = flags["pickupable"] or flags["moveable"]
    mass = float(it.get("mass", info.mass if movable or t == "Floor" else 0.0))
    mats = it.get("materials", list(info.materials) if (info.materials and (movable or t == "Floor")) else None)
    return {
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


def _link(items: list[Any], metas: list[dict[str, Any]], ids: dict[str, str], path: Path) -> None:
    """Second pass, once every id is known: containment, knob-to-burner links, lit burners."""
    by_id = {m["objectId"]: m for m in metas}
    for i, (it, m) in enumerate(zip(items, metas, strict=True)):
        key = f"objects/{i}"
        pids = []
        for j, p in enumerate(it.get("in", [])):
            if p not in ids:
                raise DataError(path, f"{key}/in/{j}", f"unknown receptacle name {p!r}")
            r = by_id[ids[p]]
            if not r["receptacle"]:
                raise DataError(path, f"{key}/in/{j}", f"{p!r} ({r['objectType']}) is not a receptacle")
            pids.append(r["objectId"])
            r["receptacleObjectIds"].append(m["objectId"])
        m["parentReceptacles"] = pids or None
        if "controls" in it:
            ctl = []
            for j, c in enumerate(it["controls"]):
                if c not in ids:
                    raise DataError(path, f"{key}/controls/{j}", f"unknown object name {c!r}")
                ctl.append(ids[c])
            m["controlledObjects"] = ctl
    # a knob that is on lights its burners (AI2-THOR reports the burner's isToggled)
    for m in metas:
        if m["controlledObjects"] and m["isToggled"]:
            for c in m["controlledObjects"]:
                by_id[c]["isToggled"] = True


def _compact_agent(scene: dict[str, Any]) -> dict[str, Any] | None:
    ag = scene.get("agent")
    if not ag or "position" not in ag:
        return None
    p = ag["position"]
    return {
        "position": {"x": p[0], "y": p[1] if len(p) == 3 else None, "z": p[-1]},
        "rotation": ag.get("rotation", 0.0),
        "horizon": ag.get("horizon", 0.0),
        "standing": True,
    }


def _apply_state(m: dict[str, Any], k: str, v: Any) -> None:
    """Set one validated ``state`` entry, with what goes with it (openness, isFilledWithLiquid)."""
    m[k] = v
    if k == "isOpen":
        m["openness"] = 1.0 if v else 0.0
    elif k == "fillLiquid":
        m["isFilledWithLiquid"] = v is not None


__all__ = ["KNOWN_STARTS", "SceneData", "load_scene", "load_scene_file", "packaged_scene_names", "scene_from_event"]
