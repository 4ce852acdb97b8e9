"""Cross-validate the reader's role classifier (planner/understanding/classifier.py) on the ``dev`` requests.

Ten folds over ``dev`` (seeded); each fold's classifier is fitted on COAT's annotated task strings and the other
folds' requests, then scores the held-out requests. For each ridge penalty and score threshold the script prints
role precision and recall over the task and infeasible requests, and how many nonsense requests get a role.
This is how the penalty (``L2``) and the reader's threshold (``ROLE_SCORE``) were chosen.

    COAT_DATA_DIR=<data root> python scripts/role_classifier_cv.py [--seed 0] [--folds 10]
"""

from __future__ import annotations

import numpy as np
from _dev_folds import dev_folds

from planner.understanding.classifier import RoleClassifier


def main() -> None:
    d = dev_folds(__doc__, "role classifier")
    reader, dev, x, tasks, xt, folds = d.reader, d.dev, d.x, d.tasks, d.xt, d.folds
    utilities = list(reader.kb.utilities)
    y = np.array([[u in r.roles for u in utilities] for r in dev])
    nonsense = np.array([r.kind == "nonsense" for r in dev])
    print(f"{len(dev)} dev requests, {len(tasks)} COAT tasks, {d.n_folds} folds")
    print(f"{'l2':>5} {'threshold':>9} {'precision %':>11} {'recall %':>8} {'nonsense with a role':>20}")
    for l2 in (0.1, 0.3, 1.0, 3.0):
        scores = np.zeros(y.shape)
        for f in range(d.n_folds):
            held = folds == f
            labels = [*(reader.task_utilities[t] for t in tasks), *(dev[i].roles for i in np.flatnonzero(~held))]
            clf = RoleClassifier(np.vstack([xt, x[~held]]), labels, utilities, l2=l2)
            for i in np.flatnonzero(held):
                s = clf.scores(x[i])
                scores[i] = [s[u] for u in utilities]
        for threshold in (0.4, 0.5, 0.6):
            pred = scores >= threshold
            tp = (pred & y).sum()
            print(f"{l2:5} {threshold:9} {100 * tp / max(1, pred.sum()):11.1f} {100 * tp / max(1, y.sum()):8.1f} "
                  f"{int(pred[nonsense].any(axis=1).sum()):>12} of {int(nonsense.sum())}")


if __name__ == "__main__":
    main()
