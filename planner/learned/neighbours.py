"""Stage-1 extra inputs: a neighbour score from the training combinations of the same utility, and cosines.

For a question (utility u, task t) and an object o, the *neighbour* inputs look only at the (u, t') training
combinations of a model (t' a task, never None, and t' != t: a combination is never its own neighbour, so
the value for a training row is leave-one-combination-out and has the distribution a held-out combination
sees):

* ``knn``: sum over t' of w(t') * [o is a context object of (u, t')], w = softmax(cos(t, t') / knn_temp)
  over u's neighbours (cosine of the MiniLM task embeddings);
* ``base``: the unweighted fraction of u's neighbours in which o is a context object;
* ``has``: 1 when u has at least one neighbour, else 0 (then ``knn`` and ``base`` are 0).

With ``cos_features`` two plain cosines are added: task . object and phrase . object (texts as
:class:`~planner.learned.model.Featurizer` embeds them). The table of neighbours (per utility: each training
task and its context objects, without any held-out object) is part of the model's manifest, so a loaded model
computes the same inputs from its own training combinations only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .features import EmbeddingCache, object_text, task_text

Table = dict[str, list[list[Any]]]
"""Per utility: [task, sorted context objects] of each training combination, sorted by task (plain lists, as
the manifest's JSON stores them)."""


def neighbour_table(examples: Iterable[Any]) -> Table:
    """The table of a model's stage-1 training examples (:class:`~planner.learned.data.SuitExample`): every
    (utility, task) with a task, and its positive objects among the rows it was trained on."""
    pos: dict[tuple[str, str], set[str]] = {}
    for ex in examples:
        u, t = ex.combo
        if t is None:
            continue
        s = pos.setdefault((u, t), set())
        if ex.label == 1.0:
            s.add(ex.obj)
    out: Table = {}
    for (u, t), objs in sorted(pos.items()):
        out.setdefault(u, []).append([t, sorted(objs)])
    return out


def n_extra(options: Mapping[str, Any]) -> int:
    """How many extra stage-1 inputs ``options`` ask for (0: the plain head)."""
    return (3 if float(options.get("knn_temp", 0.0)) > 0 else 0) + (2 if int(options.get("cos_features", 0)) else 0)


class SuitExtras:
    """The extra stage-1 inputs of one model (see the module docstring); per utility precomputed."""

    def __init__(self, table: Mapping[str, Sequence[Sequence[Any]]], cache: EmbeddingCache,
                 phrases: Mapping[str, str], options: Mapping[str, Any]) -> None:
        self.cache = cache
        self.phrases = dict(phrases)
        self.temp = float(options.get("knn_temp", 0.0))
        self.cos = bool(int(options.get("cos_features", 0)))
        self.table: Table = {u: [[str(t), list(objs)] for t, objs in rows] for u, rows in table.items()}
        self._per: dict[str, tuple[list[str], np.ndarray, dict[str, np.ndarray]]] = {}

    @property
    def width(self) -> int:
        """Number of extra columns."""
        return (3 if self.temp > 0 else 0) + (2 if self.cos else 0)

    def _utility(self, utility: str) -> tuple[list[str], np.ndarray, dict[str, np.ndarray]]:
        got = self._per.get(utility)
        if got is None:
            rows = self.table.get(utility, [])
            tasks = [t for t, _ in rows]
            emb = self.cache.embed([task_text(t) for t in tasks]) if tasks else np.zeros((0, 1), np.float32)
            member: dict[str, np.ndarray] = {}
            for i, (_, objs) in enumerate(rows):
                for o in objs:
                    member.setdefault(o, np.zeros(len(rows), np.float32))[i] = 1.0
            got = self._per[utility] = (tasks, emb, member)
        return got

    def rows(self, task: str | None, utility: str, objects: Sequence[str]) -> np.ndarray:
        """Array (len(objects), :attr:`width`)."""
        cols: list[np.ndarray] = []
        n = len(objects)
        if self.temp > 0:
            tasks, emb, member = self._utility(utility)
            keep = np.asarray([t != task for t in tasks], dtype=bool)
            knn, base = np.zeros(n, np.float32), np.zeros(n, np.float32)
            has = np.zeros(n, np.float32)
            if keep.any():
                q = self.cache.embed([task_text(task)])[0]
                sims = emb[keep] @ q / self.temp
                w = np.exp(sims - sims.max())
                w /= w.sum()
                zero = np.zeros(int(keep.sum()), np.float32)
                m = np.stack([member.get(o, np.zeros(len(tasks), np.float32))[keep] if o in member else zero
                              for o in objects])
                knn, base, has = m @ w, m.mean(axis=1), np.ones(n, np.float32)
            cols += [knn, base, has]
        if self.cos:
            e = self.cache.embed([task_text(task), self.phrases.get(utility, utility),
                                  *(object_text(o) for o in objects)])
            o = e[2:]
            cols += [o @ e[0], o @ e[1]]
        if not cols:
            return np.zeros((n, 0), np.float32)
        return np.stack(cols, axis=1).astype(np.float32)


__all__ = ["SuitExtras", "Table", "n_extra", "neighbour_table"]
