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


@pytest.mark.parametrize(("name", "groups", "error"), [
    ("frames", [{"words": ["cut"], "to": "cutting"}],
     r"at frames\.groups\[0\]\.to: Input should be a valid list \(the group of 'cut'\); a group is 'words' \(a list "
     r"of words\), 'to' \(a list of names\) and an optional 'e\.g\.', got \"cutting\""),
    ("frames", [{"words": ["cut"], "to": ["cutting", 3]}], r"at frames\.groups\[0\]\.to\[1\]: Input should be a "
                                                          r"valid string \(the group of 'cut'\).*, got 3"),
    ("frames", [{"words": ["cut", ""], "to": ["cutting"]}], r"at frames\.groups\[0\]\.words\[1\]: String should "
                                                            r"have at least 1 character"),
    ("frames", [{"words": ["cut"], "to": ["cutting"], "eg": "cut it"}], r"at frames\.groups\[0\]\.eg: Extra inputs"),
    ("frames", [{"words": ["cut"], "to": ["cutting"]}, {"words": ["cut"], "to": ["breaking"]}],
     r"at frames\.groups\[1\]: 'cut' is in an earlier group too"),
    ("frames", [], r"at frames\.groups: List should have at least 1 item"),
    ("phrasal", [{"words": ["turn on"], "to": ["switch"]}], r"at phrasal\.groups\[0\]\.to: Input should be a valid "
                                                          r"string \(the group of 'turn on'\).*'to' \(a phrase\)"),
    ("state_verbs", [{"words": ["off"], "to": ["isToggled", "false"]}],
     r"at state_verbs\.groups\[0\]\.to\[1\]: Input should be a valid boolean \(the group of 'off'\).*'to' "
     r"\(\[a state property, 'isToggled' or 'isOpen', and true or false\]\).*got \"false\""),
    ("state_verbs", [{"words": ["off"], "to": ["isLit", False]}],
     r"at state_verbs\.groups\[0\]\.to\[0\]: Input should be 'isToggled' or 'isOpen'"),
    ("counts", [{"words": ["twenty"], "to": [20]}],  # more than a target may stand for (Target.count)
     r"at counts\.groups\[0\]\.to\[0\].*(the group of 'twenty').*\[a count from 2 to 8, or 'every'\]"),
])
def test_a_malformed_table_names_the_file_the_group_the_key_and_what_is_expected(
        tmp_path: Path, name: str, groups: list, error: str) -> None:
    path = tmp_path / "lexicon.json"
    path.write_text(json.dumps({name: {"groups": groups}}))
    with pytest.raises(DataError, match=rf"lexicon\.json: {error}"):
        lexicon.table(name, path)
    path.write_text("{not json")
    lexicon._file.cache_clear()
    with pytest.raises(DataError, match="lexicon.json: at <root>: the reader's lexicon cannot be read"):
        lexicon._file(path)


def test_a_key_twice_in_one_object_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "lexicon.json"
    path.write_text('{"frames": {"groups": [{"words": ["cut"], "to": ["cutting"], "to": ["breaking"]}]}}')
    lexicon._file.cache_clear()
    with pytest.raises(DataError, match=r"lexicon\.json: at to: the key 'to' appears twice in one object"):
        lexicon.table("frames", path)
    path.write_text('{"frames": {"groups": []}, "frames": {"groups": [{"words": ["cut"], "to": ["cutting"]}]}}')
    lexicon._file.cache_clear()
    with pytest.raises(DataError, match=r"lexicon\.json: at frames: the key 'frames' appears twice"):
        lexicon.table("frames", path)
    lexicon._file.cache_clear()
