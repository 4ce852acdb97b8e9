"""The on-disk LLM cache: hits, misses, persistence, concurrency-safe settings, corrupt files."""

from __future__ import annotations

import sqlite3

import pytest

from planner.errors import DataError
from planner.llm.cache import LLMCache, default_cache_path

MSGS = [["system", "You pick objects."], ["human", "cut a cake"]]


def test_hit_and_miss(tmp_path) -> None:
    c = LLMCache(tmp_path / "c.sqlite")
    k = LLMCache.make_key("local:smollm2", "generate", MSGS, {"temperature": 0.0})
    assert c.get(k) is None
    c.put(k, {"text": "knife"}, model_id="local:smollm2", method="generate")
    assert c.get(k) == {"text": "knife"}
    assert len(c) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"model_id": "local:gemma-270m"},
        {"method": "score"},
        {"payload": [["human", "cut a cake"]]},
        {"params": {"temperature": 0.7}},
        {"params": {"temperature": 0.0, "seed": 1}},
    ],
)
def test_any_change_misses(change: dict) -> None:
    base = {"model_id": "local:smollm2", "method": "generate", "payload": MSGS, "params": {"temperature": 0.0}}
    assert LLMCache.make_key(**base) != LLMCache.make_key(**{**base, **change})


def test_key_ignores_param_order() -> None:
    a = LLMCache.make_key("m", "generate", MSGS, {"a": 1, "b": 2})
    assert a == LLMCache.make_key("m", "generate", MSGS, {"b": 2, "a": 1})


def test_persists_across_instances_and_commits_each_write(tmp_path) -> None:
    path = tmp_path / "sub" / "c.sqlite"
    first = LLMCache(path)
    first.put("k1", {"scores": [1.5, -2.0]}, model_id="m", method="score")
    # no close(): an interrupted run must still find what was written (committed per call)
    second = LLMCache(path)
    assert second.get("k1") == {"scores": [1.5, -2.0]}
    first.close()
    first.close()  # idempotent
    second.close()


def test_wal_mode_for_concurrent_readers(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    LLMCache(path).put("k", {"text": "x"}, model_id="m", method="generate")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_corrupt_file_is_a_clear_error_and_left_untouched(tmp_path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_bytes(b"this is not a database, it is someone's notes\n" * 100)
    before = path.read_bytes()
    with pytest.raises(DataError) as ei:
        LLMCache(path)
    msg = str(ei.value)
    assert str(path) in msg and "--no-cache" in msg and "Delete" in msg
    assert path.read_bytes() == before


def test_foreign_sqlite_db_with_other_calls_table_is_rejected(tmp_path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE calls (x INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="other.sqlite"):
        LLMCache(path)


def test_default_path_env_override(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COAT_LLM_CACHE", str(tmp_path / "x.sqlite"))
    assert default_cache_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("COAT_LLM_CACHE")
    assert default_cache_path().name == "llm-cache.sqlite"


def test_clear(tmp_path) -> None:
    c = LLMCache(tmp_path / "c.sqlite")
    c.put("k", 1, model_id="m", method="generate")
    c.clear()
    assert len(c) == 0 and c.get("k") is None
