"""The reader's lexicon as data: ``lexicon.json`` beside this module (verb frames, states, dishes, the objects words
prefer or require, phrasal verbs, state verbs), each table a list of groups with an example request.

Example:
    >>> table("frames")["slice"]
    ('cutting',)
    >>> table("state_verbs")["off"]
    ('isToggled', False)
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from ..errors import DataError

PATH = Path(__file__).with_name("lexicon.json")
TABLES = ("frames", "states", "dishes", "dish_prefers", "word_prefers", "verb_prefers", "verb_requires", "phrasal",
          "state_verbs", "hung_on", "counts")
"""The tables of :data:`PATH`; ``phrasal`` maps a phrase to a phrase, every other table a word to a tuple."""


@lru_cache(maxsize=1)
def _file(path: Path = PATH) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"the reader's lexicon cannot be read ({e})") from e
    if not isinstance(data, dict):
        raise DataError(path, "", f"expected an object of tables, got {type(data).__name__}")
    return data


@cache
def table(name: str, path: Path = PATH) -> dict[str, Any]:
    """One table of the lexicon as a dict, in the file's order (``phrasal``'s order is the order its phrases are
    applied in).

    Raises:
        DataError: the file is unreadable, or the table or one of its groups is malformed (naming the file and
            the key).
        KeyError: ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise KeyError(f"unknown lexicon table {name!r}; valid: {', '.join(TABLES)}")
    groups = _file(path).get(name, {}).get("groups") if isinstance(_file(path).get(name), dict) else None
    if not isinstance(groups, list) or not groups:
        raise DataError(path, f"{name}.groups", "missing or empty")
    out: dict[str, Any] = {}
    for i, g in enumerate(groups):
        words, to = (g.get("words"), g.get("to")) if isinstance(g, dict) else (None, None)
        scalar = name == "phrasal"
        ok = (isinstance(words, list) and words and all(isinstance(w, str) and w for w in words)
              and (isinstance(to, str) if scalar else isinstance(to, list) and bool(to)))
        if not ok:
            raise DataError(path, f"{name}.groups[{i}]", f"needs 'words' (a list of words) and 'to' "
                            f"({'a phrase' if scalar else 'a list'}); got {json.dumps(g)[:200]}")
        for w in words:
            if w in out:
                raise DataError(path, f"{name}.groups[{i}]", f"{w!r} is in an earlier group too")
            out[w] = to if scalar else tuple(to)
    return out


__all__ = ["PATH", "TABLES", "table"]
