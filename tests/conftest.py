"""Shared fixtures. Tests read reference data from ``COAT_DATA_DIR`` (CI: the reference data beside the checkout)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# The default suite reads free text by word overlap: loading MiniLM (torch) belongs to the marked tests, which
# pass the encoder to the reader themselves.
os.environ.setdefault("COAT_READER", "lexical")
_DEFAULT_SHARED = REPO.parent / "shared"


def _data_root() -> Path | None:
    env = os.environ.get("COAT_DATA_DIR")
    if env:
        return Path(env)
    if (_DEFAULT_SHARED / "coat").is_dir():
        return _DEFAULT_SHARED
    return None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The data root holding coat/ and ai2thor/ (skips when absent)."""
    root = _data_root()
    if root is None or not (root / "coat").is_dir():
        pytest.skip("COAT data not found: set COAT_DATA_DIR (CI points it at the reference data beside the checkout)")
    return root


@pytest.fixture(scope="session", autouse=True)
def _data_env() -> None:
    # Make library code that resolves the data directory find the reference data without options.
    root = _data_root()
    if root is not None and "COAT_DATA_DIR" not in os.environ:
        os.environ["COAT_DATA_DIR"] = str(root)
