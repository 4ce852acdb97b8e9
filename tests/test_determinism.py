"""The default test run is reproducible: hypothesis is derandomized, and no test draws from an unseeded generator.

Two checks: the loaded profile draws the same examples twice (and nothing timed can fail a property), and a scan
of every test file for what would make a run differ from the last: a ``settings(...)`` that turns derandomizing
off, sets a deadline or drops the too_slow suppression, and ``random`` / ``numpy.random`` / ``torch`` used
without a seed.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TESTS = Path(__file__).resolve().parent
TEST_FILES = sorted(TESTS.rglob("*.py"))

_exploring = os.environ.get("COAT_HYPOTHESIS_PROFILE", "coat") != "coat" or not settings.default.derandomize


@pytest.mark.skipif(_exploring, reason="the explore profile draws new examples on purpose")
def test_the_default_profile_is_derandomized_and_untimed() -> None:
    s = settings.default
    assert s.derandomize and s.database is None and s.deadline is None
    assert HealthCheck.too_slow in s.suppress_health_check


@pytest.mark.skipif(_exploring, reason="the explore profile draws new examples on purpose")
def test_a_property_draws_the_same_examples_every_run() -> None:
    def draws() -> list[object]:
        seen: list[object] = []

        @settings(max_examples=30)  # a test's own settings inherit the profile's derandomize
        @given(st.tuples(st.integers(), st.text(max_size=8), st.floats(allow_nan=True)))
        def prop(x: object) -> None:
            seen.append(repr(x))

        prop()
        return seen

    assert draws() == draws()


# ---------------------------------------------------------------- every test file, scanned

_UNSEEDED_RANDOM = {"random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "gauss",
                    "normalvariate", "getrandbits", "randbytes"}
"""Functions of the ``random`` module that draw from its shared, unseeded generator."""
_NUMPY_LEGACY = {"rand", "randn", "randint", "random", "choice", "shuffle", "permutation", "normal", "uniform",
                 "random_sample", "integers"}
"""``numpy.random.<f>`` calls on the global generator."""


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _problems(path: Path, root: Path = TESTS.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        where = f"{path.relative_to(root)}:{node.lineno}"
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if name.split(".")[-1] == "settings" and name in ("settings", "hypothesis.settings"):
            if "derandomize" in kw and not (isinstance(kw["derandomize"], ast.Constant) and kw["derandomize"].value):
                out.append(f"{where}: settings(derandomize=...) other than True")
            if "deadline" in kw and not (isinstance(kw["deadline"], ast.Constant) and kw["deadline"].value is None):
                out.append(f"{where}: a deadline fails on a busy machine; deadline=None")
            if "suppress_health_check" in kw and "too_slow" not in ast.unparse(kw["suppress_health_check"]):
                out.append(f"{where}: suppress_health_check replaces the profile's list: keep HealthCheck.too_slow")
        elif name in (f"random.{f}" for f in _UNSEEDED_RANDOM):
            out.append(f"{where}: {name}() draws from the unseeded shared generator; use random.Random(seed)")
        elif name in ("random.Random", "Random", "np.random.default_rng", "numpy.random.default_rng",
                      "default_rng", "np.random.RandomState", "torch.Generator") and not node.args and not kw:
            out.append(f"{where}: {name}() without a seed")
        elif name.startswith(("np.random.", "numpy.random.")) and name.split(".")[-1] in _NUMPY_LEGACY:
            out.append(f"{where}: {name}() uses numpy's global generator; use np.random.default_rng(seed)")
        elif name in ("torch.rand", "torch.randn", "torch.randint", "torch.randperm") and "generator" not in kw:
            out.append(f"{where}: {name}() without generator=; seed one")
    return out


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_draws_at_random(path: Path) -> None:
    assert _problems(path) == []


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("import random\nimport numpy as np\nfrom hypothesis import settings, HealthCheck\n"
                   "S = settings(derandomize=False, deadline=200, suppress_health_check=[HealthCheck.data_too_large])\n"
                   "random.shuffle([1])\nrandom.Random()\nnp.random.default_rng()\nnp.random.rand(3)\n"
                   "ok = random.Random(0), np.random.default_rng(1)\n", encoding="utf-8")
    found = _problems(bad, tmp_path)
    assert len(found) == 7, found
