"""Training data of the learned selectors, from COAT's annotations, and the held-out fold splits.

A *combination* here is a (utility, task) pair COAT annotates, or (utility, None) for the utility-only
questions (Task-u). Stage 1 examples: for every combination and every COAT object, does the object suit it
(a context object of (utility, task); an object of the utility for task None). Stage 2 examples: for every
annotated combination, its ideal configurations and its moderate and bad pools, ordered by the cost model
(ideal < moderate < bad, then by total penalty).

Two splits (:data:`SPLITS`) make the folds of held-out evaluation:

* ``combinations``: folds of combinations; a fold model is trained without its combinations' examples;
* ``objects``: folds of COAT's object types (:func:`vocabulary`); a fold model is trained without any stage-1
  row or stage-2 configuration whose object is one of its objects (the combinations themselves stay).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..knowledge import CostModel, KnowledgeBase
from ..schemas import PhysicalState

Combo = tuple[str, str | None]
LABEL_RANK = {"ideal": 0, "moderate": 1, "bad": 2}
SPLITS: tuple[str, ...] = ("combinations", "objects")
"""Held-out split kinds: folds of (utility, task) combinations, or folds of whole object types."""


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


def suit_examples(kb: KnowledgeBase, combos: Iterable[Combo], exclude_objects: Iterable[str] = ()) -> list[SuitExample]:
    """Every (combination, object) pair with its 0/1 label, except pairs whose object is excluded."""
    drop = set(exclude_objects)
    objs = [o for o in vocabulary(kb) if o not in drop]
    out = []
    for u, t in combos:
        pos = set(kb.utility_objects(u) if t is None else kb.context_objects(u, t))
        out += [SuitExample((u, t), o, 1.0 if o in pos else 0.0) for o in objs]
    return out


def rank_examples(kb: KnowledgeBase, combos: Iterable[Combo], cost: CostModel | None = None,
                  exclude_objects: Iterable[str] = ()) -> list[RankExample]:
    """Ideal, moderate and bad configurations of each annotated combination, costed by the cost model, except
    configurations of an excluded object."""
    cost = cost or CostModel(kb)
    drop = set(exclude_objects)
    out = []
    for u, t in combos:
        if t is None:
            continue
        configs = list(kb.ideal(u, t)) + [e.config for e in (*kb.moderate(u, t), *kb.bad(u, t))]
        seen = set()
        for c in configs:
            key = (c.object, c.state)
            if key in seen or c.object in drop:
                continue
            seen.add(key)
            p = cost.penalty(u, t, c)
            out.append(RankExample((u, t), c.object, c.state, LABEL_RANK[p.label] * 1000.0 + p.total))
    return out


def _combo_key(c: Combo) -> tuple[str, str]:
    return (c[0], c[1] or "")


def _round_robin(items: list[Any], folds: int, seed: int, key: Any, what: str) -> list[list[Any]]:
    if not isinstance(folds, int) or folds < 1 or folds > len(items):
        raise ConfigError(f"folds must be an integer from 1 to {len(items)} (the number of {what}), got {folds!r}")
    order = sorted(items, key=key)
    random.Random(seed).shuffle(order)
    return [sorted(order[i::folds], key=key) for i in range(folds)]


def fold_split(combos: Sequence[Combo], folds: int, seed: int) -> list[list[Combo]]:
    """Partition the combinations into ``folds`` held-out groups (a seeded shuffle, then round robin)."""
    return _round_robin(list(combos), folds, seed, _combo_key, "combinations")


def object_split(objects: Sequence[str], folds: int, seed: int) -> list[list[str]]:
    """Partition object types into ``folds`` held-out groups (a seeded shuffle of the sorted names, then round
    robin): deterministic for a seed, every object in exactly one fold."""
    return _round_robin(sorted(set(objects)), folds, seed, str, "object types")


def check_split(split: str) -> str:
    """``split`` if it is one of :data:`SPLITS`.

    Raises:
        ConfigError: another value (the message names it and the accepted ones).
    """
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}; accepted: {', '.join(SPLITS)}")
    return split


def make_folds(kb: KnowledgeBase, split: str, folds: int, seed: int) -> list[list[Any]]:
    """The held-out groups of ``split``: lists of combinations, or lists of object types."""
    if check_split(split) == "objects":
        return object_split(vocabulary(kb), folds, seed)
    return fold_split(combinations(kb), folds, seed)


def training_examples(kb: KnowledgeBase, held_out: Iterable[Combo] = (), held_out_objects: Iterable[str] = (),
                      cost: CostModel | None = None) -> tuple[list[SuitExample], list[RankExample]]:
    """Stage-1 and stage-2 examples a fold model trains on: every combination not in ``held_out``, without any
    example whose object is in ``held_out_objects``."""
    hold = set(held_out)
    drop = set(held_out_objects)
    train = [c for c in combinations(kb) if c not in hold]
    return (suit_examples(kb, train, exclude_objects=drop),
            rank_examples(kb, train, cost, exclude_objects=drop))


__all__ = ["LABEL_RANK", "SPLITS", "Combo", "RankExample", "SuitExample", "check_split", "combinations",
           "fold_split", "make_folds", "object_split", "rank_examples", "suit_examples", "training_examples",
           "vocabulary"]
