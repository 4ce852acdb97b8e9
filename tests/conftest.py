"""Shared fixtures. Tests read reference data from ``COAT_DATA_DIR`` (CI: the reference data beside the checkout).

Hypothesis runs derandomized by default (profile ``coat``): every run, ``make test`` and CI included, draws the same
examples, so the default suite cannot fail at random. A bug a property finds is pinned as an ``@example`` and
fixed. ``pytest --hypothesis-profile=explore`` (or ``COAT_HYPOTHESIS_PROFILE=explore``) searches more widely:
new random examples each run, ten times as many, failures kept in ``.hypothesis/`` to replay.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]

# The default suite reads free text by word overlap: loading MiniLM (torch) belongs to the marked tests, which
# pass the encoder to the reader themselves.
os.environ.setdefault("COAT_READER", "lexical")
_DEFAULT_SHARED = REPO.parent / "shared"

# Only what is drawn decides a test's outcome: the same examples every run (derandomize), no example database
# carrying failures between runs, and nothing timed (a deadline or the too_slow health check fails on a busy
# machine). A test's own settings(...) inherit these unless it names them; tests/test_determinism.py checks that
# none does.
settings.register_profile("coat", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
EXPLORE_FACTOR = 10
"""How many times more examples each property draws under the ``explore`` profile."""
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True,
                          max_examples=100 * EXPLORE_FACTOR, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("COAT_HYPOTHESIS_PROFILE", "coat"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``explore``, a property that sets its own ``max_examples`` draws EXPLORE_FACTOR times as many."""
    if settings.default.derandomize:
        return
    for item in items:
        fn = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        own = getattr(fn, "_hypothesis_internal_use_settings", None)  # where @settings(...) is kept
        if getattr(fn, "is_hypothesis_test", False) and own is not None and own.max_examples < 100 * EXPLORE_FACTOR:
            fn._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * EXPLORE_FACTOR)


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
