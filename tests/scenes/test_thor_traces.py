"""Recorded AI2-THOR traces load into Actions, metadata dicts, frames and genuine ai2thor Events."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from planner.download.sources import TRACES as DOWNLOAD_TRACES
from planner.errors import DataError, UnknownIdError
from scenes.base import Action
from scenes.thor import traces as tr
from scenes.thor.traces import load_trace, trace_names

pytest.importorskip("ai2thor.server")

# The recordings `coat data download --only traces` pins; the data directory must hold exactly these.
TRACES = sorted(DOWNLOAD_TRACES)


def test_trace_names_lists_the_recordings(data_dir: Path) -> None:
    assert trace_names(data_dir) == TRACES


@pytest.mark.parametrize("name", TRACES)
def test_load_trace_aligns_actions_events_frames(data_dir: Path, name: str) -> None:
    t = load_trace(name, data_dir)
    assert len(t.actions) == len(t.events) == len(t.frames) == len(t) > 0
    for a, md in zip(t.actions, t.events, strict=True):
        assert isinstance(a, Action)
        assert "sequenceId" not in a.args
        assert md["lastAction"] == a.name  # event NN is the answer to action NN
        assert len(md["objects"]) > 0 and all(len(o) == 42 for o in md["objects"])
    for f in t.frames:
        assert f is not None and f.shape == (300, 300, 3) and f.dtype == np.uint8
    assert t.scene.startswith("FloorPlan") and t.scene.endswith("_physics")


def test_event_is_a_genuine_ai2thor_event_and_does_not_alias_the_trace(data_dir: Path) -> None:
    from ai2thor.server import Event

    t = load_trace("pickup_mug", data_dir)
    ev = t.event(3)
    assert isinstance(ev, Event)
    assert bool(ev) is True and ev.metadata["lastAction"] == "PickupObject"
    assert ev.metadata["actionReturn"] == t.actions[3].object_id
    assert ev.frame is t.frames[3]
    mug = ev.get_object(t.actions[3].object_id)
    assert mug["isPickedUp"] is True
    mug["isPickedUp"] = False  # mutating the event must not change the recording
    assert t.event(3).get_object(t.actions[3].object_id)["isPickedUp"] is True


def test_frames_can_be_skipped(data_dir: Path) -> None:
    t = load_trace("open_fridge", data_dir, frames=False)
    assert t.frames == [None] * len(t)
    assert t.event(0).frame is None


def test_unknown_trace_lists_available(data_dir: Path) -> None:
    with pytest.raises(UnknownIdError, match="pickup_mug"):
        load_trace("no_such_trace", data_dir)


def _copy_trace(data_dir: Path, tmp_path: Path, name: str = "open_fridge") -> Path:
    dst = tmp_path / "ai2thor" / "traces" / name
    shutil.copytree(data_dir / "ai2thor" / "traces" / name, dst)
    return dst


def test_corrupt_event_file_names_the_file(data_dir: Path, tmp_path: Path) -> None:
    d = _copy_trace(data_dir, tmp_path)
    (d / "event_02.json").write_text("{not json")
    with pytest.raises(DataError, match="event_02.json"):
        load_trace("open_fridge", tmp_path)


def test_event_missing_required_key_is_a_data_error(data_dir: Path, tmp_path: Path) -> None:
    d = _copy_trace(data_dir, tmp_path)
    md = json.loads((d / "event_01.json").read_text())
    del md["objects"]
    (d / "event_01.json").write_text(json.dumps(md))
    with pytest.raises(DataError, match=r"event_01.json: at objects"):
        load_trace("open_fridge", tmp_path)


def test_event_count_must_match_actions(data_dir: Path, tmp_path: Path) -> None:
    d = _copy_trace(data_dir, tmp_path)
    (d / "event_04.json").unlink()
    with pytest.raises(DataError, match="4 events for 5 actions"):
        load_trace("open_fridge", tmp_path)


def test_builtin_png_reader_matches_opencv(data_dir: Path) -> None:
    pytest.importorskip("cv2")
    png = data_dir / "ai2thor" / "traces" / "pickup_mug" / "event_00.png"
    ours = tr._decode_png(png)
    assert np.array_equal(ours, tr.read_png(png))  # read_png uses OpenCV when present
    assert ours.shape == (300, 300, 3)


def test_png_reader_rejects_non_png(tmp_path: Path) -> None:
    p = tmp_path / "x.png"
    p.write_bytes(b"not a png")
    with pytest.raises(DataError, match="not a PNG"):
        tr._decode_png(p)


def test_read_trace_and_load_traces_give_the_same_traces_as_load_trace(data_dir: Path) -> None:
    every = tr.load_traces(data_dir, frames=False)
    assert [t.name for t in every] == TRACES
    d = data_dir / "ai2thor" / "traces" / "open_fridge"
    t = tr.read_trace(d, frames=False)
    by_name = load_trace("open_fridge", data_dir, frames=False)
    assert t.path == by_name.path == d
    assert t.name == "open_fridge" and t.actions == by_name.actions and t.events == by_name.events
    assert tr.Trace("in-memory", [], [], []).path is None  # built without a directory, as before


def test_corrupt_event_is_reported_before_a_count_mismatch(tmp_path: Path) -> None:
    (tmp_path / "actions.json").write_text(json.dumps([{"action": "Initialize"}, {"action": "Pass"}]))
    (tmp_path / "event_00.json").write_text("{not json")
    with pytest.raises(DataError, match="event_00.json"):
        tr.read_trace(tmp_path)
