"""Property-based tests: corrupted scene, trace and COAT files only ever raise DataError naming the file.

Each example damages one file of a fresh copy (random bytes, a truncation at a random offset, a wrong-typed
value at a random key path, an unknown object type or material, a byte that is not UTF-8) and loads it. The
property: the load succeeds (some damage is harmless) or raises :class:`~planner.errors.DataError` /
:class:`~planner.errors.DataNotFoundError` whose message names the damaged file; an unknown type is always
refused; and a good file next to the bad one (or the bad one, repaired) still loads, so nothing from the bad
file was kept. The reference data is never written: every file is copied first.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import DataError, DataNotFoundError
from planner.knowledge import load_knowledge
from scenes.embedded.loader import load_scene_file
from scenes.thor.traces import read_trace

WIDER = max(1, settings.default.max_examples // 100)
"""1, or 10 under the ``explore`` profile (tests/conftest.py): the properties below run inside their tests, where the
profile's scaling of a collected test's examples does not reach them."""
FUZZ = settings(max_examples=25 * WIDER, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
WRONG_VALUES = [None, True, False, 0, -1, 2.5, float("nan"), "", "x", [], [1], ["x"], {}, {"x": 1}]
UNKNOWN = ["Lightsaber", "Adamantium", "lukewarm", "super-light"]
KINDS = ["bytes", "truncate", "retype", "unknown", "non_utf8"]


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path of a JSON document (the root excluded)."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        yield (*prefix, k)
        yield from _paths(v, (*prefix, k))


class Original:
    """One good file: its bytes, its key paths, and the paths whose value is a type (or material) name."""

    def __init__(self, path: Path, type_keys: tuple[str, ...]) -> None:
        self.name = path.name
        self.data = path.read_bytes()
        doc = json.loads(self.data)
        self.paths = list(_paths(doc))
        self.type_paths = [p for p in self.paths if _kind_of(doc, p, type_keys)]


def _kind_of(doc: Any, path: tuple[Any, ...], type_keys: tuple[str, ...]) -> bool:
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    value = parent[path[-1]]
    named = any(str(k) in type_keys for k in path[-2:])  # a key, or a list under a key ("material": [...])
    return named and isinstance(value, str)


@st.composite
def damaged(draw: st.DrawFn, original: Original) -> tuple[str, bytes]:
    """(kind of damage, the damaged bytes)."""
    data = original.data
    kind = draw(st.sampled_from(KINDS if original.type_paths else [k for k in KINDS if k != "unknown"]))
    if kind == "bytes":
        off = draw(st.integers(0, len(data) - 1))
        junk = draw(st.binary(min_size=1, max_size=12))
        return kind, data[:off] + junk + data[off + len(junk) :]
    if kind == "truncate":
        return kind, data[: draw(st.integers(0, len(data.rstrip()) - 1))]
    if kind == "non_utf8":
        off = draw(st.integers(0, len(data)))
        return kind, data[:off] + draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80abc"])) + data[off:]
    doc = json.loads(data)
    path = draw(st.sampled_from(original.paths if kind == "retype" else original.type_paths))
    value = draw(st.sampled_from(WRONG_VALUES if kind == "retype" else UNKNOWN))
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    return kind, json.dumps(doc).encode()


def _check(kind: str, bad: Path, load: Callable[[], Any]) -> None:
    """Load the damaged file: success, or a DataError / DataNotFoundError naming it; an unknown type fails."""
    try:
        load()
    except (DataError, DataNotFoundError) as e:
        # the damaged file is the one reported, or (a disagreement between files) named in the problem
        assert re.search(rf"(?<![\w-]){re.escape(bad.name)}\b", str(e)), (kind, str(e)[:300])
    else:
        assert kind not in ("unknown", "non_utf8"), f"{kind} damage to {bad.name} was accepted"


# ---------------------------------------------------------------- scenes: a real floorplan and a compact scene


@pytest.fixture(scope="module")
def scene_files(data_dir: Path) -> list[Original]:
    plans = data_dir / "ai2thor" / "floorplans"
    smallest = min(plans.glob("FloorPlan*_physics.json"), key=lambda p: p.stat().st_size)
    compact = Path(__file__).resolve().parents[2] / "scenes" / "embedded" / "scenes" / "kitchen.json"
    return [Original(smallest, ("objectType",)), Original(compact, ("type",))]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_damaged_scene_files(scene_files: list[Original], workdir: Path) -> None:
    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        original = data.draw(st.sampled_from(scene_files))
        kind, damage = data.draw(damaged(original))
        d = Path(tempfile.mkdtemp(dir=workdir))
        bad, good = d / original.name, d / f"good_{original.name}"
        bad.write_bytes(damage)
        good.write_bytes(original.data)
        _check(kind, bad, lambda: load_scene_file(bad))
        assert load_scene_file(good).objects  # the good file beside it loads
        shutil.rmtree(d)

    run()


# ---------------------------------------------------------------- a recorded trace: actions.json and an event


@pytest.fixture(scope="module")
def trace_dir(data_dir: Path, workdir: Path) -> Path:
    src = data_dir / "ai2thor" / "traces" / "open_fridge"
    dst = workdir / "open_fridge"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.png"))
    return dst


def test_damaged_trace_files(trace_dir: Path, workdir: Path) -> None:
    originals = [Original(trace_dir / n, ("objectType",)) for n in ("actions.json", "event_00.json", "event_03.json")]
    reference = read_trace(trace_dir, frames=False)

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        original = data.draw(st.sampled_from(originals))
        kind, damage = data.draw(damaged(original))
        d = Path(tempfile.mkdtemp(dir=workdir)) / "open_fridge"
        d.mkdir()
        for f in trace_dir.iterdir():  # the other files are links to the good copy
            (d / f.name).symlink_to(f)
        bad = d / original.name
        bad.unlink()
        bad.write_bytes(damage)
        _check(kind, bad, lambda: read_trace(d, frames=False))
        assert read_trace(trace_dir, frames=False).events == reference.events  # the good trace beside it loads
        shutil.rmtree(d.parent)

    run()


# ---------------------------------------------------------------- the COAT files


COAT_TYPE_KEYS = ("object_name", "material", "mass", "temperature", "already_in_use", "condition", "good", "bad")


def test_damaged_coat_files(data_dir: Path, workdir: Path) -> None:
    root = workdir / "coat_root"
    shutil.copytree(data_dir / "coat", root / "coat")
    for p in (root / "coat").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    names = ["utilities.json", "tasks.json", "objects.json", "oracle.json", "templates.json",
             "task-1/common_var_responses.json", "task-1/pouch_config_oracle.json",
             "task-2/material_preference.json", "task-2/pouch_suboptimal.json"]  # fmt: skip
    originals = {n: Original(root / "coat" / n, COAT_TYPE_KEYS) for n in names}
    n_configs = len(load_knowledge(root).configurations)

    @settings(FUZZ, max_examples=12 * WIDER)
    @given(st.sampled_from(names), st.data())
    def run(name: str, data: st.DataObject) -> None:
        original = originals[name]
        kind, damage = data.draw(damaged(original))
        bad = root / "coat" / name
        load_knowledge.cache_clear()  # a good load of this root was cached: read the damaged file
        bad.write_bytes(damage)
        try:
            _check(kind, bad, lambda: load_knowledge(root))
        finally:
            bad.write_bytes(original.data)
        assert len(load_knowledge(root).configurations) == n_configs  # repaired, it loads: no failure was kept

    run()
