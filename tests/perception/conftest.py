"""Fixtures for perception tests: AI2-THOR reference data, priors, and a metadata-dict builder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perception.priors import TypePriors

ASSETS = Path(__file__).parent / "assets"

# AI2-THOR 5.0.0 object dict defaults (the flags a real object reports); tests override what they need.
_BASE: dict[str, Any] = {
    "visible": True,
    "pickupable": False,
    "moveable": False,
    "receptacle": False,
    "receptacleObjectIds": None,
    "toggleable": False,
    "isToggled": False,
    "breakable": False,
    "isBroken": False,
    "dirtyable": False,
    "isDirty": False,
    "canFillWithLiquid": False,
    "isFilledWithLiquid": False,
    "fillLiquid": None,
    "canBeUsedUp": False,
    "isUsedUp": False,
    "cookable": False,
    "isCooked": False,
    "sliceable": False,
    "isSliced": False,
    "isPickedUp": False,
    "isHeatSource": False,
    "isColdSource": False,
    "openable": False,
    "isOpen": False,
    "temperature": "RoomTemp",
    "mass": 0.0,
    "salientMaterials": None,
}


def thor_obj(object_type: str, n: int = 1, **fields: Any) -> dict[str, Any]:
    """A plausible AI2-THOR object dict of ``object_type`` with ``fields`` overriding the defaults."""
    d = dict(_BASE)
    d.update(objectType=object_type, objectId=f"{object_type}|+0{n}.00|+00.90|+00.00")
    d.update(fields)
    return d


@pytest.fixture(scope="session")
def priors(data_dir: Path) -> TypePriors:
    """COAT priors built the way the composition root builds them: common values passed in from the knowledge base."""
    from planner.knowledge import load_knowledge

    kb = load_knowledge(data_dir)
    return TypePriors.from_common_values({o: kb.common_values(o) for o in kb.objects})


@pytest.fixture(scope="session")
def floorplans_dir(data_dir: Path) -> Path:
    """The 120 AI2-THOR 5.0.0 floorplan dumps."""
    p = data_dir / "ai2thor" / "floorplans"
    if not p.is_dir():
        pytest.skip("ai2thor/floorplans not in the data directory")
    return p


@pytest.fixture(scope="session")
def traces_dir(data_dir: Path) -> Path:
    """The recorded AI2-THOR traces (metadata JSON + RGB PNG per step)."""
    p = data_dir / "ai2thor" / "traces"
    if not p.is_dir():
        pytest.skip("ai2thor/traces not in the data directory")
    return p


def load_event(traces_dir: Path, trace: str, i: int) -> dict[str, Any]:
    """The metadata of event ``i`` of a recorded trace."""
    return json.loads((traces_dir / trace / f"event_{i:02d}.json").read_text())


@pytest.fixture
def make_obj() -> Any:
    """Factory fixture: ``make_obj("Mug", mass=1.0, ...)`` -> AI2-THOR object dict."""
    return thor_obj


@pytest.fixture
def event_of(traces_dir: Path) -> Any:
    """Factory fixture: ``event_of("pickup_mug", 3)`` -> recorded event metadata."""
    return lambda trace, i: load_event(traces_dir, trace, i)
