"""What the wheel ships: the package data pyproject.toml declares holds no labelled evaluation set.

The reader's worked examples (the ``dev`` requests) ship, since the reader reads them whenever it plans; the
``test`` requests and the ALFRED directives are evaluation-only and live in ``data/requests/`` of the checkout. The
file list comes from setuptools' own ``build_py`` on this pyproject.toml, offline: nothing is built or downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner.errors import DataNotFoundError
from planner.understanding import examples

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("planner", "perception", "skills", "scenes", "checker")
LABELLED = ("test.jsonl", "directives-dev.jsonl", "directives-test.jsonl", "directives-casual.jsonl",
            "safety-train.jsonl", "safety-dev.jsonl", "safety-extra.jsonl", "safety-test.jsonl", "fresh-1206.jsonl",
            "fresh-1207.jsonl", "fresh-1208.jsonl", "fresh-1209.jsonl", "dev-goals.jsonl")


def _package_data() -> list[str]:
    """The data files setuptools puts in the wheel, as paths relative to the checkout."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    here = os.getcwd()
    os.chdir(ROOT)  # setuptools reads pyproject.toml and globs the patterns relative to the working directory
    try:
        dist = Distribution()
        apply_configuration(dist, "pyproject.toml")
        dist.include_package_data = False  # the manifest route would run egg_info, which writes into the tree
        cmd = dist.get_command_obj("build_py")
        cmd.ensure_finalized()
        return sorted(os.path.join(src, f) for _pkg, src, _build, names in cmd.data_files for f in names)
    finally:
        os.chdir(here)


def test_the_wheel_ships_the_worked_examples_and_no_labelled_evaluation_set() -> None:
    files = _package_data()
    assert "planner/understanding/requests/dev.jsonl" in files  # the reader needs it at run time
    assert "planner/understanding/calibration.json" in files
    assert not [f for f in files if Path(f).name in LABELLED], files


def test_no_labelled_evaluation_set_sits_inside_a_package() -> None:
    # so no package-data pattern or manifest rule can ship one by accident
    inside = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.jsonl") if p.name in LABELLED]
    assert not inside
    assert sorted(p.name for p in (ROOT / "data" / "requests").glob("*.jsonl")) == sorted(LABELLED)
    assert examples.LABELLED_DIR == ROOT / "data" / "requests"


def test_without_the_checkout_the_labelled_sets_name_their_path_and_the_fix(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(examples, "LABELLED_DIR", tmp_path / "data" / "requests")  # as from an installed wheel
    for load in (lambda: examples.load_requests("test"), lambda: examples.load_directives("dev")):
        with pytest.raises(DataNotFoundError, match=r"data/requests.*not shipped.*--requests FILE"):
            load()
    dev = examples.load_requests("dev")
    assert len(dev) > 100  # the worked examples ship: the reader still plans
    assert not any(r.goal is not None or r.why or r.unobservable for r in dev)  # their evaluation labels do not


def test_the_shipped_worked_examples_carry_no_evaluation_label() -> None:
    import json

    keys = {k for line in (ROOT / "planner" / "understanding" / "requests" / "dev.jsonl").read_text().splitlines()
            for k in json.loads(line)}
    assert not keys & {"why", "goal", "proxy", "unobservable"}, keys
    labelled = [r for r in examples.load_requests("dev") if r.goal is not None or r.unobservable]
    assert len(labelled) >= 1000  # joined in a checkout
