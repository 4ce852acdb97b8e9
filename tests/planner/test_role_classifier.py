"""The role classifier: a ridge regression from embeddings to COAT utilities, fitted in closed form, that never
scores a text with its own row in the fit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.understanding.classifier import RoleClassifier

UTILITIES = ("cutting", "cleaning", "storage")


def _data(seed: int, n: int = 12, d: int = 5):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    labels = [tuple(u for j, u in enumerate(UTILITIES) if (i + j) % 3 == 0) for i in range(n)]
    return x, labels


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), left=st.sets(st.integers(0, 11), min_size=1, max_size=3))
def test_leaving_rows_out_equals_fitting_without_them(seed, left) -> None:
    x, labels = _data(seed)
    full = RoleClassifier(x, labels, UTILITIES)
    keep = [i for i in range(len(x)) if i not in left]
    refit = RoleClassifier(x[keep], [labels[i] for i in keep], UTILITIES)
    q = x[min(left)]
    got, want = full.scores(q, leave_out=left), refit.scores(q)
    assert got.keys() == want.keys() and all(abs(got[u] - want[u]) < 1e-8 for u in UTILITIES)


def test_a_separable_set_scores_its_own_labels_high_and_others_low() -> None:
    x = np.eye(3)
    clf = RoleClassifier(x, [("cutting",), ("cleaning",), ()], UTILITIES, l2=1e-6)
    s = clf.scores(x[0])
    assert s["cutting"] > 0.99 and s["cleaning"] < 0.01 and s["storage"] < 0.01
    assert clf.scores(x[2])["cutting"] < 0.01  # a row that needs no utility (nonsense) scores low on every one
    assert clf.scores(x[0], leave_out=[0])["cutting"] < 0.5  # without its own row nothing says cutting


def test_unknown_utilities_are_ignored_and_a_bad_matrix_raises() -> None:
    clf = RoleClassifier(np.eye(2), [("cutting", "flying"), ()], UTILITIES)
    assert set(clf.scores([1.0, 0.0])) == set(UTILITIES)
    with pytest.raises(ValueError, match="one row per label"):
        RoleClassifier(np.eye(3), [()], UTILITIES)
