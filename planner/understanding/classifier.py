"""Which COAT utilities a request needs (and which thing it acts on), learned from the labelled texts the reader
knows.

A ridge regression from a text's MiniLM embedding to one score per utility, fitted in closed form on COAT's
annotated task strings (each with its task's utilities) and on the worked examples (the ``dev`` requests with
their labelled roles; a nonsense request needs none). A score near 1 says a sensible reading needs that
utility. The reader uses it where its verb frames read nothing ("my toddler just threw up on the bathroom
floor" -> cleaning) and as a confidence feature (:func:`planner.understanding.calibration.features`).

A reading never learns from itself: rows named in ``leave_out`` (the worked example with the same text, the
COAT tasks a leave-one-task-out run excludes) are taken out of the fit for that call, so the ``dev`` split's
figures stay leave-one-out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..llm.minilm import one_blas_thread

L2 = 1.0
"""Ridge penalty. ``scripts/role_classifier_cv.py`` (10 folds over the 1,541 ``dev`` requests) gives, at the
reader's threshold 0.5, precision 95 % and recall 57 % with it (0.3: 94 / 65 %, 3.0: 95 / 42 %): the classifier
only adds a role where nothing else read one, so precision comes first."""


TARGET_L2 = 0.3
"""Ridge penalty of the same regression fitted to targets (a type or liquid per score: "toast pls" -> Bread), chosen
with the reader's :data:`~planner.understanding.evidence.TARGET_SCORE` by ``scripts/target_classifier_cv.py``."""


class RoleClassifier:
    """Ridge regression from embeddings to labels: utilities (the reader's roles), or target types and liquids.

    Args:
        matrix: One embedding per labelled text (rows).
        labels: The labels of each text (empty for a text with none).
        utilities: The labels scored, in order.
        l2: The ridge penalty.
    """

    def __init__(self, matrix: Any, labels: Sequence[Iterable[str]], utilities: Sequence[str], *,
                 l2: float = L2) -> None:
        x = np.asarray(matrix, dtype=np.float64)
        if x.ndim != 2 or len(x) != len(labels):
            raise ValueError(f"matrix of shape {x.shape} does not have one row per label ({len(labels)})")
        self.utilities = tuple(utilities)
        index = {u: i for i, u in enumerate(self.utilities)}
        y = np.zeros((len(labels), len(self.utilities)))
        for row, us in enumerate(labels):
            for u in us:
                if u in index:
                    y[row, index[u]] = 1.0
        self._x = np.hstack([x, np.ones((len(x), 1))])
        self._y = y
        with one_blas_thread():  # 5x faster than two threads contending for busy cores
            self._gram = self._x.T @ self._x + l2 * np.eye(self._x.shape[1])
            self._gram[-1, -1] -= l2  # the bias is not penalised
            self._xty = self._x.T @ y
            self._w = np.linalg.solve(self._gram, self._xty)

    def scores(self, vector: Any, leave_out: Iterable[int] = ()) -> dict[str, float]:
        """Each utility's score for one embedding, fitted without the rows in ``leave_out``."""
        q = np.append(np.asarray(vector, dtype=np.float64), 1.0)
        rows = sorted(set(leave_out))
        if rows:
            xs, ys = self._x[rows], self._y[rows]
            with one_blas_thread():  # a 385x385 solve: 3 ms on one thread, 200 ms on two busy ones
                w = np.linalg.solve(self._gram - xs.T @ xs, self._xty - xs.T @ ys)
        else:
            w = self._w
        return {u: float(s) for u, s in zip(self.utilities, q @ w, strict=True)}


__all__ = ["L2", "TARGET_L2", "RoleClassifier"]
