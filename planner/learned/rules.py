"""Stage 2 by borrowed cost rules (training option ``stage2=rules``): price a configuration with the cost rules of
the most similar training (combination, object) pairs.

COAT prices a configuration of a context object by a fixed rule (:mod:`planner.knowledge.cost`) whose parts are
annotations of the (combination, object): its ideal configurations, its reference temperature and its material
penalties. A held-out combination's annotations are unknown, so this ranker takes them from the training pairs
that look most like it: for a query (utility u, task t, object o) every training rule r = (u', t', o') gets

    s(r) = cos(t, t') + cos(o, o') + utility_bonus * [u' == u]

over MiniLM embeddings of the task and object texts (:func:`~planner.learned.features.task_text`,
:func:`~planner.learned.features.object_text`); the ``k`` highest get softmax(s / temp) weights, and the
configuration's expected cost is the weighted sum of its cost under each borrowed rule: 0 for ideal, 1000 +
total penalty for moderate, 2000 + total for bad (the order ``coat train`` ranks by). A material that a borrowed
rule does not list (another object's rule) is priced by the same kind of weighted mean over the ``k`` most
similar rules that list it (COAT's unlisted-material penalty when none does). The score is minus the expected
cost in hundreds of penalty points, so higher is better, and a moderate-vs-bad gap is about 10 (a stage-1 logit's
scale, for the single prompt's sum).

The rules come from the training combinations only, without any held-out object (the object split), and are
stored in the model's manifest (``rules``), so a fold model never borrows from what it holds out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..knowledge import CostModel, KnowledgeBase, ObjectRule
from ..knowledge.cost import UNLISTED_MATERIAL_PENALTY
from ..schemas import PhysicalState
from .data import LABEL_RANK, Combo
from .features import EmbeddingCache, object_text, task_text

SCALE = 100.0
"""Penalty points per unit of score."""
UNKNOWN_STATE_COST = 1000.0
"""Cost of a candidate without a state: a moderate configuration with no penalty (above every known moderate one,
below every ideal one)."""


def rule_table(kb: KnowledgeBase, combos: Iterable[Combo], exclude_objects: Iterable[str] = (),
               cost: CostModel | None = None) -> list[dict[str, Any]]:
    """The rules of every context object of ``combos`` (tasks only), except excluded objects, as plain JSON:
    ``{"utility", "task", "object", "rule"}`` sorted by (utility, task, object)."""
    cost = cost or CostModel(kb)
    drop = set(exclude_objects)
    out = []
    for u, t in sorted((c for c in combos if c[1] is not None), key=lambda c: (c[0], c[1] or "")):
        assert t is not None
        for o in sorted(kb.context_objects(u, t)):
            if o not in drop:
                out.append({"utility": u, "task": t, "object": o, "rule": cost.object_rule(u, t, o).to_json()})
    return out


def _cost(rule: ObjectRule, state: PhysicalState, material_penalty: float) -> float:
    p = rule.penalty(state, material_penalty=material_penalty)
    return LABEL_RANK[p.label] * 1000.0 + p.total


class RuleRanker:
    """Stage-2 scores from borrowed rules (see the module docstring).

    Args:
        table: :func:`rule_table` rows.
        cache: Embeddings of the task and object texts.
        k: How many rules are borrowed per configuration.
        temp: Softmax temperature over the similarities.
        utility_bonus: Added to the similarity of a rule of the same utility.
    """

    def __init__(self, table: Sequence[Mapping[str, Any]], cache: EmbeddingCache, *, k: int, temp: float,
                 utility_bonus: float) -> None:
        if not table:
            raise ValueError("a rule ranker needs at least one training rule")
        if k < 1 or temp <= 0:
            raise ValueError(f"rules_k must be >= 1 and rules_temp > 0, got {k} and {temp}")
        self.k, self.temp, self.utility_bonus = int(k), float(temp), float(utility_bonus)
        self.utilities = np.asarray([r["utility"] for r in table])
        self.objects = [str(r["object"]) for r in table]
        self.rules = [ObjectRule.from_json(r["rule"]) for r in table]
        self.cache = cache
        self._tasks = [task_text(str(r["task"])) for r in table]
        self._emb: tuple[np.ndarray, np.ndarray] | None = None
        listing: dict[Any, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for m in rule.materials:
                listing.setdefault(m, []).append(i)
        self._listing = {m: np.asarray(ix, dtype=int) for m, ix in listing.items()}
        """material -> the rules that list it."""

    def _embeddings(self) -> tuple[np.ndarray, np.ndarray]:
        if self._emb is None:
            self._emb = (self.cache.embed(self._tasks), self.cache.embed([object_text(o) for o in self.objects]))
        return self._emb

    def _top(self, s: np.ndarray, among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        idx = np.arange(len(s)) if among is None else among
        order = idx[np.argsort(-s[idx], kind="stable")[: self.k]]
        w = np.exp((s[order] - s[order].max()) / self.temp)
        return order, w / w.sum()

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> list[float]:
        """Score of each (object, state), higher is better; a pair without a state scores as
        :data:`UNKNOWN_STATE_COST`."""
        tasks, objs = self._embeddings()
        q = self.cache.embed([task_text(task), *(object_text(o) for o, _ in pairs)])
        base = tasks @ q[0] + self.utility_bonus * (self.utilities == utility)
        out = []
        for (_, state), e in zip(pairs, q[1:], strict=True):
            if state is None:  # unknown state: a moderate configuration with no penalty beyond its class
                out.append(-UNKNOWN_STATE_COST / SCALE)
                continue
            s = base + objs @ e
            listing = self._listing.get(state.material)
            if listing is not None:
                order, w = self._top(s, listing)
                mat = float(sum(wi * self.rules[i].materials[state.material] for wi, i in zip(w, order, strict=True)))
            else:
                mat = float(UNLISTED_MATERIAL_PENALTY)
            order, w = self._top(s)
            expected = sum(wi * _cost(self.rules[i], state, mat) for wi, i in zip(w, order, strict=True))
            out.append(-float(expected) / SCALE)
        return out

    def explain(self, task: str | None, utility: str, obj: str) -> list[tuple[str, str, str, float]]:
        """The (utility, task, object, weight) rules borrowed for ``obj`` (material prior aside), best first."""
        tasks, objs = self._embeddings()
        q = self.cache.embed([task_text(task), object_text(obj)])
        s = tasks @ q[0] + self.utility_bonus * (self.utilities == utility) + objs @ q[1]
        order, w = self._top(s)
        return [(str(self.utilities[i]), self._tasks[i], self.objects[i], float(wi))
                for i, wi in zip(order, w, strict=True)]


__all__ = ["SCALE", "UNKNOWN_STATE_COST", "RuleRanker", "rule_table"]
