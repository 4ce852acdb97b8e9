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
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError

from ..errors import DataError
from ..schemas.tasks import MAX_COUNT

PATH = Path(__file__).with_name("lexicon.json")
TABLES = ("frames", "states", "dishes", "dish_prefers", "word_prefers", "verb_prefers", "verb_requires", "phrasal",
          "state_verbs", "hung_on", "counts")
"""The tables of :data:`PATH`; ``phrasal`` maps a phrase to a phrase, ``state_verbs`` a verb to a state property and
its value, ``counts`` a word to a count (or ``"every"``), every other table a word to a tuple of names (COAT
utilities or AI2-THOR types)."""

_T = TypeVar("_T")
_Word = Annotated[StrictStr, Field(min_length=1)]
_Words = Annotated[list[_Word], Field(min_length=1)]


class _Group(BaseModel, Generic[_T]):
    model_config = ConfigDict(extra="forbid")
    words: _Words
    to: _T
    example: StrictStr = Field("", alias="e.g.")


class _Table(BaseModel, Generic[_T]):
    model_config = ConfigDict(extra="forbid")
    about: StrictStr = ""
    groups: Annotated[list[_Group[_T]], Field(min_length=1)]


_STATE = tuple[Literal["isToggled", "isOpen"], StrictBool]
_SCHEMAS: dict[str, tuple[type[_Table[Any]], str]] = {
    "phrasal": (_Table[_Word], "a phrase"),
    "state_verbs": (_Table[_STATE], "[a state property, 'isToggled' or 'isOpen', and true or false]"),
    "counts": (_Table[tuple[Annotated[int, Field(ge=2, le=MAX_COUNT)] | Literal["every"]]],
               f"[a count from 2 to {MAX_COUNT}, or 'every']"),
}
_NAMES = (_Table[_Words], "a list of names")
"""What each table's ``to`` is (:data:`_SCHEMAS`, else :data:`_NAMES`), as checked and as said in an error."""


def _refuse_duplicates(path: Path) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise DataError(path, key, f"the key {key!r} appears twice in one object (JSON keeps only the last)")
            out[key] = value
        return out
    return pairs


@lru_cache(maxsize=1)
def _file(path: Path = PATH) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_refuse_duplicates(path))
    except DataError:
        raise
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"the reader's lexicon cannot be read ({e})") from e
    if not isinstance(data, dict):
        raise DataError(path, "", f"expected an object of tables, got {type(data).__name__}")
    return data


def _checked(path: Path, name: str, raw: Any) -> _Table[Any]:
    """The table ``name`` of the file, its groups' types checked (the error names the group, the key and what is
    expected there)."""
    schema, expected = _SCHEMAS.get(name, _NAMES)
    try:
        return schema.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = err["loc"]
        where = name + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in loc)
        group = raw["groups"][loc[1]] if len(loc) > 1 and loc[0] == "groups" and isinstance(loc[1], int) else None
        words = group.get("words") if isinstance(group, dict) else None
        of = f" (the group of {words[0]!r})" if isinstance(words, list) and words else ""
        raise DataError(path, where, f"{err['msg']}{of}; a group is 'words' (a list of words), 'to' ({expected}) "
                        f"and an optional 'e.g.', got {json.dumps(err['input'])[:200]}") from None


@cache
def table(name: str, path: Path = PATH) -> dict[str, Any]:
    """One table of the lexicon as a dict, in the file's order (``phrasal``'s order is the order its phrases are
    applied in).

    Raises:
        DataError: the file is unreadable or has a key twice in one object, or the table or one of its groups is
            malformed (naming the file, the group and the key, and what is expected).
        KeyError: ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise KeyError(f"unknown lexicon table {name!r}; valid: {', '.join(TABLES)}")
    if name not in _file(path):
        raise DataError(path, name, "missing")
    out: dict[str, Any] = {}
    for i, g in enumerate(_checked(path, name, _file(path)[name]).groups):
        for w in g.words:
            if w in out:
                raise DataError(path, f"{name}.groups[{i}]", f"{w!r} is in an earlier group too")
            out[w] = g.to if isinstance(g.to, str) else tuple(g.to)
    return out


__all__ = ["PATH", "TABLES", "table"]
