"""A goal as items and relations, and the search for the objects that meet it.

A :class:`Goal` names items (each an object of some types, with conditions of its own) and relations between
items (the slice in *that* plate). :func:`solve` tries every assignment of distinct objects (every object or
piece the world showed at any step) to the items and returns the first that meets every condition, in id
order; when none does, the assignment that meets the most conditions, so the reasons say what is missing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .checks import LIQUID_CHECKS, Check, Finding, Inside
from .track import Track

ANY_PICKUPABLE = "*"
"""An item type that stands for any pickupable object."""
MAX_PER_ITEM = 24
"""Candidates per item kept for the search when some item has no object meeting all its own conditions."""


@dataclass(frozen=True)
class Item:
    """One object the goal needs.

    Attributes:
        name: The item's name in reasons (``x``, ``x2``, ``vessel``).
        types: Its possible object types (``*``: any pickupable object).
        checks: Conditions on that object alone.
    """

    name: str
    types: tuple[str, ...]
    checks: tuple[Check, ...] = ()


@dataclass(frozen=True)
class Goal:
    """What "done" means for one task.

    Attributes:
        text: The goal in words.
        category: ``state-change`` or ``placement`` (proxy tasks have no Goal).
        items: The objects needed (distinct objects).
        relations: Conditions between items.
    """

    text: str
    category: str
    items: tuple[Item, ...]
    relations: tuple[Inside, ...] = ()

    @property
    def liquid(self) -> bool:
        """True when some condition is about a liquid."""
        return any(isinstance(c, LIQUID_CHECKS) for i in self.items for c in i.checks)


@dataclass(frozen=True)
class Solution:
    """The reported assignment and every condition's finding on it."""

    assignment: dict[str, str]
    findings: tuple[Finding, ...]
    missing: tuple[str, ...] = field(default_factory=tuple)

    @property
    def met(self) -> bool:
        """True when every item has an object and every condition holds."""
        return not self.missing and all(f.met for f in self.findings)


def candidates(track: Track, item: Item) -> tuple[str, ...]:
    """The object ids (seen at any step) an item may be, in id order."""
    if ANY_PICKUPABLE in item.types:
        return tuple(k for k in track.ids if track.by_id[track.first_seen[k]][k].get("pickupable"))
    return track.of_types(item.types)


def _unary(track: Track, item: Item, oid: str) -> tuple[Finding, ...]:
    return tuple(c(track, oid) for c in item.checks)


def _relations(track: Track, goal: Goal, pick: dict[str, str]) -> tuple[Finding, ...]:
    return tuple(r(track, pick[r.inner], pick[r.outer]) for r in goal.relations)


def solve(goal: Goal, track: Track) -> Solution:
    """The first assignment of distinct objects meeting the goal, else the one meeting the most conditions."""
    names = [i.name for i in goal.items]
    cands = {i.name: candidates(track, i) for i in goal.items}
    missing = tuple(f"{i.name}: no {'/'.join(i.types)} in the world at any step" for i in goal.items
                    if not cands[i.name])
    if missing:
        found = {i.name: cands[i.name][0] for i in goal.items if cands[i.name]}
        findings = tuple(f for i in goal.items if i.name in found for f in _unary(track, i, found[i.name]))
        return Solution(found, findings, missing)
    unary = {i.name: {k: _unary(track, i, k) for k in cands[i.name]} for i in goal.items}
    good = {n: [k for k, fs in unary[n].items() if all(f.met for f in fs)] for n in names}
    if all(good[n] for n in names):
        for combo in itertools.product(*(good[n] for n in names)):
            if len(set(combo)) < len(combo):
                continue
            pick = dict(zip(names, combo, strict=True))
            rel = _relations(track, goal, pick)
            if all(f.met for f in rel):
                return Solution(pick, tuple(f for n in names for f in unary[n][pick[n]]) + rel)
    return _best(goal, track, names, unary)


def _best(goal: Goal, track: Track, names: list[str], unary: dict[str, dict[str, tuple[Finding, ...]]]) -> Solution:
    """The assignment of distinct objects meeting the most conditions (ties: id order)."""
    ranked = {n: sorted(unary[n], key=lambda k, n=n: (-sum(f.met for f in unary[n][k]), k))[:MAX_PER_ITEM]
              for n in names}
    best: tuple[int, Solution] | None = None
    for combo in itertools.product(*(ranked[n] for n in names)):
        if len(set(combo)) < len(combo):
            continue
        pick = dict(zip(names, combo, strict=True))
        findings = tuple(f for n in names for f in unary[n][pick[n]]) + _relations(track, goal, pick)
        score = sum(f.met for f in findings)
        if best is None or score > best[0]:
            best = (score, Solution(pick, findings))
    if best is None:  # fewer distinct objects than items
        n_needed = len(names)
        pool = sorted({k for n in names for k in unary[n]})
        return Solution({}, (), (f"the goal needs {n_needed} distinct objects; the world has only "
                                 f"{len(pool)} ({', '.join(pool)})",))
    return best[1]


__all__ = ["ANY_PICKUPABLE", "Goal", "Item", "Solution", "candidates", "solve"]
