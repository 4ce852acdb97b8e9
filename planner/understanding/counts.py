"""How many things a request asks for: "two eggs", "a couple of slices of bread", "both lamps", "all the lights".

The count words are data (``lexicon.json``, table ``counts``). A count word counts the thing named after it when
only articles, possessives, "of", a portion word ("slices of") and at most one describing word stand between them.
The reader marks the targets (:attr:`planner.schemas.Target.count`, :attr:`~planner.schemas.Target.every`); the
planner makes the copies once it sees the scene (:mod:`planner.multiples`).

Example:
    >>> from planner.understanding.vocabulary import Vocabulary
    >>> counts_in("two slices of bread", Vocabulary(["Bread"]).mentions("two slices of bread"))
    {('Bread',): 2}
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..schemas import Target
from .lexicon import table
from .vocabulary import Mention

_PIECES = frozenset({"slice", "slices", "piece", "pieces", "round", "rounds"})
_BETWEEN = frozenset("""a the my your our his her their these those of slice slices piece pieces round rounds bit bits
lot lots""".split())
"""Words that may stand between a count word and what it counts."""


def counts_in(phrase: str, mentions: Iterable[Mention]) -> dict[tuple[str, ...], int | str]:
    """The types a count word in ``phrase`` counts -> the count (an int, or ``"every"``); ``()`` for pieces of
    something not named ("two slices").

    ``mentions`` are the type mentions of ``phrase`` (their word indices are into its words).
    """
    words = re.findall(r"[a-z]+", phrase.lower())
    counts = table("counts")
    out: dict[tuple[str, ...], int | str] = {}
    for j, w in enumerate(words[:-1]):  # "toast, two slices": pieces of what the request acts on, named or not
        if w in counts and words[j + 1] in _PIECES and words[j + 2:j + 3] != ["of"]:
            out[()] = counts[w][0]
    for m in mentions:
        if m.liquid:
            continue
        other = 0
        for j in range(m.start - 1, max(-1, m.start - 6), -1):
            w = words[j]
            if w in counts:
                out[m.types] = counts[w][0]
                break
            if w not in _BETWEEN:
                other += 1
                if other > 1:
                    break
    return out


def with_counts(targets: list[Target], counts: dict[tuple[str, ...], int | str]) -> list[Target]:
    """The targets with the counts read for their types; a count of pieces with no type ("two slices") counts the
    sliced target."""
    out = []
    for t in targets:
        n = counts.get(t.types, counts.get(()) if t.name == "target" and t.sliced else None)
        if n == "every":
            t = t.model_copy(update={"every": True})
        elif isinstance(n, int) and n > 1:
            t = t.model_copy(update={"count": n})
        out.append(t)
    return out
