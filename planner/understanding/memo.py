"""What the reader works out again for every request from texts that never change, worked out once per process.

A reading compares the request with COAT's 75 task names and the 1,541 worked examples. The verb frames of a task
name and the case-folded words of an example are the same for every request, so they are kept here (both are pure
functions of the text): a warm reading takes a few milliseconds instead of ~150. A reading runs numpy's BLAS on
one thread (:func:`~planner.llm.minilm.one_blas_thread`): its products are small, and two threads contending for
busy cores make them a hundred times slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..llm.minilm import one_blas_thread
from .frames import FRAMES, clauses


@lru_cache(maxsize=1024)
def task_frames(task: str) -> frozenset[str]:
    """The utilities the verbs of a COAT task's name call for ("cooking & serving toast": heating, carrying)."""
    return frozenset(u for c in clauses(task) for u in FRAMES.get(c.purpose or c.verb, ()))


@lru_cache(maxsize=8192)
def folded(text: str) -> tuple[str, ...]:
    """The text's words, case-folded (two texts with the same words are the same request)."""
    return tuple(text.casefold().split())


def same_requests(examples: Sequence[Any], text: str) -> frozenset[int]:
    """The positions of the worked examples whose request is ``text`` (the same words, case-folded)."""
    return frozenset(_by_words(tuple(e.request for e in examples)).get(folded(text), ()))


@lru_cache(maxsize=8)
def _by_words(requests: tuple[str, ...]) -> dict[tuple[str, ...], tuple[int, ...]]:
    out: dict[tuple[str, ...], list[int]] = {}
    for i, r in enumerate(requests):
        out.setdefault(tuple(r.casefold().split()), []).append(i)
    return {k: tuple(v) for k, v in out.items()}


__all__ = ["folded", "one_blas_thread", "same_requests", "task_frames"]
