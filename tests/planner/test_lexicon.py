"""The reader's lexicon as data (planner/understanding/lexicon.json): each group's example is read by a word of the
group, and a damaged file names the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import DataError
from planner.understanding import lexicon
from planner.understanding.frames import FRAMES, PHRASAL, clauses, dish

DATA = json.loads(lexicon.PATH.read_text())


@pytest.mark.parametrize("name", ["frames", "states", "dishes", "state_verbs", "verb_prefers"])
def test_each_groups_example_is_read_by_a_word_of_the_group(name: str) -> None:
    for g in DATA[name]["groups"]:
        text, words = g["e.g."], set(g["words"])
        verbs = {c.purpose or c.verb for c in clauses(text)}
        said = set(text.lower().replace("'", " ").split())
        assert verbs & words or dish(text) in words or (name == "states" and said & words), (name, text, verbs)


def test_every_table_loads_in_the_files_order() -> None:
    assert list(FRAMES)[:3] == DATA["frames"]["groups"][0]["words"][:3]
    assert list(PHRASAL) == [w for g in DATA["phrasal"]["groups"] for w in g["words"]]  # applied in this order
    assert all(lexicon.table(t) for t in lexicon.TABLES)
    with pytest.raises(KeyError, match="unknown lexicon table 'verbs'; valid: frames, states"):
        lexicon.table("verbs")


@pytest.mark.parametrize(("groups", "error"), [
    ([{"words": ["cut"], "to": "cutting"}], r"at frames\.groups\[0\]: needs 'words'"),
    ([{"words": ["cut"], "to": ["cutting"]}, {"words": ["cut"], "to": ["breaking"]}],
     r"at frames\.groups\[1\]: 'cut' is in an earlier group too"),
    ([], r"at frames\.groups: missing or empty"),
])
def test_a_malformed_table_names_the_file_and_the_key(tmp_path: Path, groups: list, error: str) -> None:
    path = tmp_path / "lexicon.json"
    path.write_text(json.dumps({"frames": {"groups": groups}}))
    with pytest.raises(DataError, match=rf"lexicon\.json: {error}"):
        lexicon.table("frames", path)
    path.write_text("{not json")
    lexicon._file.cache_clear()
    with pytest.raises(DataError, match="lexicon.json: at <root>: the reader's lexicon cannot be read"):
        lexicon._file(path)
