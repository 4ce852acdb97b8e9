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


# ---------------------------------------------------------------- damaged files, bad rows, lock contention


def _filled(path, n: int = 3000) -> list[str]:
    c = LLMCache(path)
    keys = [LLMCache.make_key("m", "generate", [["human", f"q{i}"]]) for i in range(n)]
    for i, k in enumerate(keys):
        c.put(k, {"text": f"answer {i} " + "x" * 200}, model_id="m", method="generate")
    c.close()  # checkpoints the WAL into the main file
    return keys


def test_garbage_in_middle_pages_is_a_data_error_naming_the_file(tmp_path) -> None:
    import random

    path = tmp_path / "c.sqlite"
    keys = _filled(path)
    data = bytearray(path.read_bytes())
    assert len(data) > 40 * 4096
    rng = random.Random(0)
    for off in range(8 * 4096, len(data) - 8 * 4096):
        data[off] = rng.randrange(256)
    path.write_bytes(bytes(data))
    with pytest.raises(DataError) as ei:
        c = LLMCache(path)
        for k in keys:
            c.get(k)
        c.put("new", {"text": "x"}, model_id="m", method="generate")
    msg = str(ei.value)
    assert str(path) in msg and "Delete" in msg and "--no-cache" in msg


@pytest.mark.parametrize("blob", ["not json {", "", "\x00\xff"])
def test_a_row_that_is_not_json_is_a_miss(tmp_path, blob: str, caplog) -> None:
    path = tmp_path / "c.sqlite"
    c = LLMCache(path)
    c.put("k", {"text": "fine"}, model_id="m", method="generate")
    c.put("bad", {"text": "x"}, model_id="m", method="generate")
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE calls SET value = ? WHERE key = 'bad'", (blob,))
    assert c.get("bad") is None and "not JSON" in caplog.text
    assert c.get("k") == {"text": "fine"}  # the rest is still there


@pytest.mark.parametrize("value", [{"text": None}, {"text": 3}, [1, 2], "text", {"usage": {}}, None])
def test_a_row_of_the_wrong_shape_is_a_miss_and_the_model_is_asked(tmp_path, value) -> None:
    from planner.llm import FakeLLM, HumanMessage

    cache = LLMCache(tmp_path / "c.sqlite")
    first = FakeLLM(["hello"], cache=cache)
    msgs = [HumanMessage("hi")]
    assert first.generate(msgs) == "hello"
    (key,) = [r[0] for r in cache._conn.execute("SELECT key FROM calls")]
    cache.put(key, value, model_id="fake:scripted", method="generate")
    again = FakeLLM(["asked again"], cache=cache)
    assert again.generate(msgs) == "asked again"  # never "None" or a crash
    assert again.stats.calls == 1 and again.stats.cache_hits == 0
    assert cache.get(key)["text"] == "asked again"  # the bad row was replaced


def test_unusable_cached_scores_are_a_miss(tmp_path) -> None:
    from planner.llm import FakeLLM

    cache = LLMCache(tmp_path / "c.sqlite")
    llm = FakeLLM(scores=[[1.0, 2.0]], cache=cache)
    assert llm.score("p", ["a", "b"]) == [1.0, 2.0]
    (key,) = [r[0] for r in cache._conn.execute("SELECT key FROM calls")]
    cache.put(key, {"scores": [float("nan"), "x"]}, model_id="fake:scripted", method="score")
    again = FakeLLM(scores=[[3.0, 4.0]], cache=cache)
    assert again.score("p", ["a", "b"]) == [3.0, 4.0] and again.stats.cache_hits == 0


_HOLD = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("INSERT OR REPLACE INTO calls VALUES ('held', 'm', 'generate', '{}', 0)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
"""


def _hold_lock(path, seconds: float):
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_writer_waits_for_another_writers_lock_with_backoff(tmp_path) -> None:
    import time

    path = tmp_path / "c.sqlite"
    c = LLMCache(path, lock_timeout=20)
    proc = _hold_lock(path, 1.5)
    t0 = time.monotonic()
    c.put("k", {"text": "x"}, model_id="m", method="generate")
    assert time.monotonic() - t0 > 0.5  # it waited instead of failing
    assert proc.wait(timeout=20) == 0
    assert c.get("k") == {"text": "x"} and c.get("held") == {}


def test_a_lock_held_too_long_names_the_holder(tmp_path) -> None:
    from planner.errors import ConfigError

    path = tmp_path / "c.sqlite"
    c = LLMCache(path, lock_timeout=0.3)
    proc = _hold_lock(path, 5)
    try:
        with pytest.raises(ConfigError) as ei:
            c.put("k", {"text": "x"}, model_id="m", method="generate")
    finally:
        proc.kill()
        proc.wait(timeout=10)
    msg = str(ei.value)
    assert str(path) in msg and "locked" in msg and "--no-cache" in msg
    assert f"pid {proc.pid}" in msg
    assert c.get("k") is None  # nothing half-written; the cache still works
    c.put("k", {"text": "x"}, model_id="m", method="generate")
    assert c.get("k") == {"text": "x"}


# ---------------------------------------------------------------- what the key holds


def _backend(endpoint, cache, reply: str = "from the server", **model_kw):
    from planner.llm import LangChainBackend, ScriptedChatModel

    model = ScriptedChatModel(messages=iter([reply]), requests=[], score_requests=[], **model_kw)
    return LangChainBackend(model, model_id="openai:smollm2", cache=cache, structured_mode="text", endpoint=endpoint)


def test_two_servers_with_one_model_name_do_not_share_answers(tmp_path) -> None:
    from planner.llm import HumanMessage

    cache = LLMCache(tmp_path / "c.sqlite")
    msgs = [HumanMessage("cut a cake")]
    assert _backend("http://a:8000/v1", cache, "answer of a").generate(msgs) == "answer of a"
    assert _backend("http://b:8000/v1", cache, "answer of b").generate(msgs) == "answer of b"
    hit = _backend("http://a:8000/v1", cache, "unused")
    assert hit.generate(msgs) == "answer of a" and hit.stats.cache_hits == 1
    assert len(cache) == 2


def test_key_holds_answer_shaping_params_the_provider_does_not_list(tmp_path) -> None:
    b = _backend("http://a/v1", None)
    object.__setattr__(b.model, "temperature", 0.7)  # e.g. ChatOllama lists no params at all
    object.__setattr__(b.model, "seed", 3)
    params = b._params(None)
    assert params["temperature"] == 0.7 and params["seed"] == 3 and params["endpoint"] == "http://a/v1"


def test_key_of_a_model_without_endpoint_is_unchanged() -> None:
    # the embedded models list every answer-shaping parameter themselves: their old entries stay readable
    b = _backend(None, None)
    expected = {k: v for k, v in b.model._identifying_params.items() if k not in ("messages", "scores")}
    assert b._params(None) == expected
