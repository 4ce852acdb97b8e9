"""Training data of the learned selectors, from COAT's annotations, and the split by combination folds.

A *combination* here is a (utility, task) pair COAT annotates, or (utility, None) for the utility-only
questions (Task-u). Stage 1 examples: for every combination and every COAT object, does the object suit it
(a context object of (utility, task); an object of the utility for task None). Stage 2 examples: for every
annotated combination, its ideal configurations and its moderate and bad pools, ordered by the cost model
(ideal < moderate < bad, then by total penalty).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..knowledge import CostModel, KnowledgeBase
from ..schemas import PhysicalState

Combo = tuple[str, str | None]
LABEL_RANK = {"ideal": 0, "moderate": 1, "bad": 2}


@dataclass(frozen=True)
class SuitExample:
    """Stage 1: does ``obj`` suit ``combo``."""

    combo: Combo
    obj: str
    label: float


@dataclass(frozen=True)
class RankExample:
    """Stage 2: one configuration of a combination; lower ``cost`` is better."""

    combo: Combo
    obj: str
    state: PhysicalState
    cost: float


def combinations(kb: KnowledgeBase) -> list[Combo]:
    """Every annotated (utility, task) plus (utility, None) for each utility, in a fixed order."""
    out: list[Combo] = [(c.utility, c.task) for c in kb.combinations]
    out += [(u, None) for u in kb.utilities]
    return sorted(out, key=lambda c: (c[0], c[1] or ""))


def vocabulary(kb: KnowledgeBase) -> list[str]:
    """COAT's utility objects, sorted."""
    return sorted({o for u in kb.utilities for o in kb.utility_objects(u)})


def suit_examples(kb: KnowledgeBase, combos: Iterable[Combo]) -> list[SuitExample]:
    """Every (combination, object) pair with its 0/1 label."""
    objs = vocabulary(kb)
    out = []
    for u, t in combos:
        pos = set(kb.utility_objects(u) if t is None else kb.context_objects(u, t))
        out += [SuitExample((u, t), o, 1.0 if o in pos else 0.0) for o in objs]
    return out


def rank_examples(kb: KnowledgeBase, combos: Iterable[Combo], cost: CostModel | None = None) -> list[RankExample]:
    """Ideal, moderate and bad configurations of each annotated combination, costed by the cost model."""
    cost = cost or CostModel(kb)
    out = []
    for u, t in combos:
        if t is None:
            continue
        configs = list(kb.ideal(u, t)) + [e.config for e in (*kb.moderate(u, t), *kb.bad(u, t))]
        seen = set()
        for c in configs:
            key = (c.object, c.state)
            if key in seen:
                continue
            seen.add(key)
            p = cost.penalty(u, t, c)
            out.append(RankExample((u, t), c.object, c.state, LABEL_RANK[p.label] * 1000.0 + p.total))
    return out


def fold_split(combos: Sequence[Combo], folds: int, seed: int) -> list[list[Combo]]:
    """Partition the combinations into ``folds`` held-out groups (a seeded shuffle, then round robin)."""
    order = sorted(combos, key=lambda c: (c[0], c[1] or ""))
    random.Random(seed).shuffle(order)
    return [sorted(order[i::folds], key=lambda c: (c[0], c[1] or "")) for i in range(folds)]


__all__ = ["LABEL_RANK", "Combo", "RankExample", "SuitExample", "combinations", "fold_split", "rank_examples",
           "suit_examples", "vocabulary"]
