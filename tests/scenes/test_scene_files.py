"""Scene and trace files are validated: wrong types, unknown object types, non-UTF-8 bytes raise a DataError
naming the file and the key path, and nothing is half loaded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from planner.errors import DataError
from scenes.embedded.loader import load_scene, load_scene_file, scene_from_event
from scenes.thor.traces import load_trace

APPLE = "Apple|-00.47|+01.15|+00.48"


def _floorplan(data_dir: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    src = data_dir / "ai2thor" / "floorplans" / "FloorPlan1_physics.json"
    return tmp_path / src.name, json.loads(src.read_text())


def _expect(path: Path, key: str) -> DataError:
    with pytest.raises(DataError) as exc:
        load_scene_file(path)
    err = exc.value
    assert err.path == str(path) and err.key == key, err
    assert f"{path.name}: at {key or '<root>'}: " in str(err)
    return err


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("mass", "heavy", "Input should be a valid number (got 'heavy')"),
        ("isDirty", "no", "Input should be a valid boolean (got 'no')"),
        ("openness", True, "Input should be a valid number (got True)"),
        ("objectType", "Lightsaber", "unknown object type 'Lightsaber'"),
        ("temperature", "Warm", "'RoomTemp', 'Hot' or 'Cold'"),
        ("parentReceptacles", "CounterTop|-00.08|+01.15|00.00", "Input should be a valid list"),
        ("salientMaterials", ["Adamantium"], "Input should be"),
        ("position", [0, 1, 0], "Input should be a valid dictionary"),
    ],
)
def test_floorplan_with_a_wrong_value(data_dir: Path, tmp_path: Path, field: str, value: Any, problem: str) -> None:
    path, dump = _floorplan(data_dir, tmp_path)
    dump[APPLE][field] = value
    path.write_text(json.dumps(dump))
    err = _expect(path, f"objects/{APPLE}/{field}" + ("/0" if field == "salientMaterials" else ""))
    assert problem in err.problem


def test_floorplan_nested_keys_and_ids(data_dir: Path, tmp_path: Path) -> None:
    path, dump = _floorplan(data_dir, tmp_path)
    good = json.dumps(dump)
    dump[APPLE]["axisAlignedBoundingBox"]["center"]["y"] = None
    path.write_text(json.dumps(dump))
    _expect(path, f"objects/{APPLE}/axisAlignedBoundingBox/center/y")
    dump = json.loads(good)
    dump[APPLE]["receptacleObjectIds"] = [""]
    path.write_text(json.dumps(dump))
    _expect(path, f"objects/{APPLE}/receptacleObjectIds/0")
    dump = json.loads(good)
    dump[APPLE]["objectId"] = "Apple|+09.00|+01.15|+00.48"
    path.write_text(json.dumps(dump))
    assert "not the key it is filed under" in _expect(path, f"objects/{APPLE}/objectId").problem
    del dump[APPLE]["mass"], dump[APPLE]["isDirty"]
    path.write_text(json.dumps(dump))
    assert "missing AI2-THOR metadata keys ['isDirty', 'mass']" in _expect(path, f"objects/{APPLE}").problem
    path.write_text(good)  # the good file next to the bad ones loads
    assert len(load_scene_file(path).objects) == len(dump)


def test_non_utf8_floorplan_and_trace_event(data_dir: Path, tmp_path: Path) -> None:
    path, dump = _floorplan(data_dir, tmp_path)
    path.write_bytes(json.dumps(dump).replace("Apple_1", "Apple_\xe9").encode("latin-1"))
    assert "UTF-8" in _expect(path, "").problem
    trace = tmp_path / "ai2thor" / "traces" / "open_fridge"
    shutil.copytree(data_dir / "ai2thor" / "traces" / "open_fridge", trace)
    (trace / "event_01.json").write_bytes(b'{"sceneName": "\xff\xfe"}')
    with pytest.raises(DataError, match=r"event_01.json: at <root>: cannot read the file as UTF-8"):
        load_trace("open_fridge", tmp_path)


@pytest.mark.parametrize(
    ("mutate", "key", "problem"),
    [
        (lambda m: m.update(objects="x"), "objects", "Input should be a valid list"),
        (lambda m: m["objects"][3].update(isOpen="yes"), "objects/3/isOpen", "valid boolean"),
        (lambda m: m["objects"][0].update(objectType="Lightsaber"), "objects/0/objectType", "unknown object type"),
        (lambda m: m.update(screenWidth="300"), "screenWidth", "valid integer"),
        (lambda m: m.update(lastActionSuccess=1), "lastActionSuccess", "valid boolean"),
        (lambda m: m["agent"].update(cameraHorizon="0"), "agent/cameraHorizon", "valid number"),
    ],
)
def test_trace_event_with_a_wrong_value(data_dir: Path, tmp_path: Path, mutate: Any, key: str, problem: str) -> None:
    trace = tmp_path / "ai2thor" / "traces" / "open_fridge"
    shutil.copytree(data_dir / "ai2thor" / "traces" / "open_fridge", trace)
    meta = json.loads((trace / "event_02.json").read_text())
    mutate(meta)
    (trace / "event_02.json").write_text(json.dumps(meta))
    with pytest.raises(DataError) as exc:
        load_trace("open_fridge", tmp_path)
    assert exc.value.path.endswith("event_02.json") and exc.value.key == key, exc.value
    assert problem in exc.value.problem


def test_trace_actions_are_checked(data_dir: Path, tmp_path: Path) -> None:
    trace = tmp_path / "ai2thor" / "traces" / "open_fridge"
    shutil.copytree(data_dir / "ai2thor" / "traces" / "open_fridge", trace)
    actions = json.loads((trace / "actions.json").read_text())
    actions[1]["objectId"] = 7
    (trace / "actions.json").write_text(json.dumps(actions))
    with pytest.raises(DataError, match=r"actions.json: at 1/objectId: Input should be a valid string"):
        load_trace("open_fridge", tmp_path)


def test_a_scene_from_an_event_shares_nothing_with_the_event(data_dir: Path) -> None:
    meta = json.loads((data_dir / "ai2thor" / "traces" / "pickup_mug" / "event_01.json").read_text())
    scene = scene_from_event(meta)
    assert scene.objects == meta["objects"] and scene.held == meta["inventoryObjects"][0]["objectId"]
    scene.objects[0]["position"]["x"] = 99.0
    scene.objects[0]["axisAlignedBoundingBox"]["cornerPoints"][0][0] = 99.0
    assert meta["objects"][0]["position"]["x"] != 99.0
    assert meta["objects"][0]["axisAlignedBoundingBox"]["cornerPoints"][0][0] != 99.0


@pytest.mark.parametrize(
    ("entry", "key", "problem"),
    [
        ({"center": [0, "1", 0]}, "objects/1/center/1", "valid number"),
        ({"mass": True}, "objects/1/mass", "valid number"),
        ({"flags": {"dirtyable": "yes"}}, "objects/1/flags/dirtyable", "valid boolean"),
        ({"flags": {"edible": True}}, "objects/1/flags/edible", "Input should be"),
        ({"state": {"isDirty": 1}}, "objects/1/state/isDirty", "valid boolean"),
        ({"state": {"fillLiquid": "milk"}}, "objects/1/state/fillLiquid", "'water', 'coffee' or 'wine'"),
        ({"in": ["Table_1", 3]}, "objects/1/in/1", "valid string"),
        ({"size": [0.1, 0, 0.1]}, "objects/1/size/1", "greater than 0"),
        ({"centre": [0, 1, 0]}, "objects/1/centre", "Extra inputs are not permitted"),
        ({"type": "Lightsaber"}, "objects/1/type", "unknown object type 'Lightsaber'"),
        ({"in": ["Nowhere_1"]}, "objects/1/in/0", "unknown receptacle name 'Nowhere_1'"),
    ],
)
def test_compact_scene_with_a_wrong_value(tmp_path: Path, entry: dict[str, Any], key: str, problem: str) -> None:
    table = {"name": "Table_1", "type": "DiningTable", "center": [0, 0.4, 0]}
    knife = {"name": "Knife_1", "type": "Knife", "center": [0, 0.8, 0], "in": "Table_1", **entry}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps({"objects": [table, knife]}))
    assert problem in _expect(path, key).problem


def test_compact_scene_top_level(tmp_path: Path) -> None:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps({"objects": []}))
    assert "at least 1 item" in _expect(path, "objects").problem
    path.write_text(json.dumps({"objects": [{"type": "Apple", "center": [0, 1, 0]}], "agent": {"position": [1]}}))
    _expect(path, "agent/position")
    path.write_text(json.dumps({"objects": [{"type": "Apple", "center": [0, 1, 0]}], "agent": {"position": [1, 2]}}))
    scene = load_scene(path)
    assert scene.agent is not None and scene.agent["position"] == {"x": 1.0, "y": None, "z": 2.0}
