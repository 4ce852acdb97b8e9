"""Models behind a server, against a tiny OpenAI-compatible stub on 127.0.0.1: HTTP errors, bodies that are
not JSON, a silent server, --timeout, one writer per --out, and --concurrency giving the sequential rows."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from planner._optional import is_available

pytestmark = pytest.mark.skipif(not is_available("langchain_openai"), reason="needs the openai extra")


def _letter_answer(body: dict[str, Any]) -> str:
    """A deterministic 'model': the option letter is a hash of the prompt (so any order gives the same rows)."""
    prompt = body["messages"][-1]["content"]
    letters = [c for c in "ABCDE" if f"\n{c}." in prompt or f"\n{c})" in prompt or f"({c})" in prompt] or ["A", "B"]
    return json.dumps({"letter": letters[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(letters)]})


class _Handler(BaseHTTPRequestHandler):
    server: _Stub

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.lock:
            self.server.requests += 1
            self.server.inflight += 1
            self.server.peak = max(self.server.peak, self.server.inflight)
            mode = self.server.script.pop(0) if self.server.script else self.server.mode
        try:
            self._reply(body, mode)
        finally:
            with self.server.lock:
                self.server.inflight -= 1

    def _reply(self, body: dict[str, Any], mode: str) -> None:
        if self.server.delay:
            time.sleep(self.server.delay)
        if mode == "sleep":
            time.sleep(30)
            return
        if mode.isdigit():
            return self._send(int(mode), json.dumps({"error": {"message": f"stub says {mode}"}}).encode())
        if mode == "garbage":
            return self._send(200, b"\xff\xfe<html>\x00 not json")
        if mode == "html":
            return self._send(200, b"<html>502 Bad Gateway</html>")
        content = self.server.answer(body)
        reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
        self._send(200, json.dumps(reply).encode())


class _Stub(ThreadingHTTPServer):
    daemon_threads = True
    mode = "ok"
    script: list[str]
    requests = 0
    inflight = 0
    peak = 0
    """The most requests the stub has been answering at once."""
    delay = 0.0
    answer: Callable[[dict[str, Any]], str] = staticmethod(lambda body: '{"object_id": "knife_1"}')

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def stub() -> Iterator[_Stub]:
    srv = _Stub(("127.0.0.1", 0), _Handler)
    srv.script = []
    srv.lock = threading.Lock()  # type: ignore[attr-defined]
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch) -> None:
    from planner.llm import transport

    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


def _llm(stub: _Stub, **kw: Any) -> Any:
    from planner.llm import make_llm

    kw.setdefault("cache", False)
    return make_llm("openai:stub", base_url=stub.url, structured_mode="text", **kw)


def _ask(llm: Any) -> Any:
    from planner.llm import HumanMessage
    from planner.schemas import ObjectChoice

    return llm.structured([HumanMessage("cut a cake")], ObjectChoice, context={"candidate_ids": ["knife_1", "pig"]})


# ---------------------------------------------------------------- provider failures


@pytest.mark.parametrize("mode", ["500", "503", "429", "garbage", "html"])
def test_a_failing_server_is_retried_then_model_unavailable(stub: _Stub, mode: str) -> None:
    from planner.errors import ModelUnavailableError

    stub.mode = mode
    with pytest.raises(ModelUnavailableError) as ei:
        _ask(_llm(stub, transport_retries=2))
    assert stub.requests == 3  # bounded: 1 + 2 retries
    msg = str(ei.value)
    assert stub.url in msg and "3 tries" in msg
    assert ("not JSON" in msg) if mode in ("garbage", "html") else (f"HTTP {mode}" in msg)


def test_a_transient_failure_then_an_answer_succeeds(stub: _Stub) -> None:
    stub.script = ["500", "garbage"]
    llm = _llm(stub, transport_retries=2)
    assert _ask(llm).object_id == "knife_1" and stub.requests == 3 and llm.stats.calls == 1


def test_a_refused_request_is_a_counted_failure_not_retried(stub: _Stub) -> None:
    from planner.errors import SelectionError

    stub.mode = "400"
    with pytest.raises(SelectionError) as ei:  # the stages turn this into an unparsed answer
        _ask(_llm(stub))
    assert stub.requests == 1 and "refused" in " ".join(ei.value.errors)


def test_a_wrong_url_path_is_not_retried(stub: _Stub) -> None:
    from planner.errors import ModelUnavailableError

    stub.mode = "404"
    with pytest.raises(ModelUnavailableError, match="HTTP 404"):
        _ask(_llm(stub))
    assert stub.requests == 1


def test_a_silent_server_costs_the_timeout_per_try(stub: _Stub) -> None:
    from planner.errors import ModelUnavailableError

    stub.mode = "sleep"
    t0 = time.monotonic()
    with pytest.raises(ModelUnavailableError, match="Timeout|timed out"):
        _ask(_llm(stub, timeout=0.4, transport_retries=1))
    assert time.monotonic() - t0 < 3.0 and stub.requests == 2


def test_timeout_must_be_positive() -> None:
    from planner.errors import ConfigError
    from planner.llm import make_llm

    for bad in (0, -1, float("nan")):
        with pytest.raises(ConfigError, match="timeout"):
            make_llm("openai:x", base_url="http://127.0.0.1:9/v1", timeout=bad)


# ---------------------------------------------------------------- coat eval against the stub


def _eval(stub: _Stub, out: Any, *extra: str) -> int:
    from planner import cli

    args = ["eval", "--set", "task_u", "--pipeline", "single", "--llm", "openai:stub", "--limit", "12",
            "--no-progress", "--out", str(out), *extra]
    import os

    old = os.environ.get("OPENAI_BASE_URL")
    os.environ["OPENAI_BASE_URL"] = stub.url
    try:
        return cli.main(args)
    finally:
        if old is None:
            os.environ.pop("OPENAI_BASE_URL", None)
        else:
            os.environ["OPENAI_BASE_URL"] = old


def _rows(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_eval_against_a_silent_server_stops_after_timeout_with_a_clear_error(
    stub: _Stub, tmp_path, data_dir, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("COAT_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    stub.answer = _letter_answer  # type: ignore[assignment]
    stub.script = ["ok"] * 3
    stub.mode = "sleep"
    t0 = time.monotonic()
    assert _eval(stub, tmp_path / "r.jsonl", "--timeout", "0.3") == 1
    assert time.monotonic() - t0 < 10
    err = capsys.readouterr().err
    assert "coat: error:" in err and stub.url in err and "Traceback" not in err
    assert len(_rows(tmp_path / "r.jsonl")) == 3  # the rows answered before the failure are kept


@pytest.fixture(scope="module")
def kb_and_questions(data_dir) -> Any:
    from planner.bench.evaluate import load_set, sample_questions
    from planner.knowledge import load_knowledge

    kb = load_knowledge(data_dir)
    return kb, sample_questions(load_set(kb, "task_u", seed=0), 12, seed=0)


RUN = {"set": "task_u", "pipeline": "single", "strategy": "llm", "llm": "openai:stub", "seed": 0, "stage1": None}


def _server_eval(stub: _Stub, kb_and_questions: Any, out: Any, cache: Any, concurrency: int) -> list[dict[str, Any]]:
    from planner.bench.evaluate import run_eval
    from planner.pipeline import make_pipeline

    kb, qs = kb_and_questions
    llm = _llm(stub, cache=True, cache_path=cache)
    return run_eval(qs, make_pipeline("single", "llm", llm, kb), run=RUN, out=out, progress=False,
                    concurrency=concurrency)


def _entries(cache: Any) -> list[tuple[str, str]]:
    import sqlite3

    with sqlite3.connect(cache) as c:
        return sorted(c.execute("SELECT key, value FROM calls").fetchall())


def _same(rows: list[dict[str, Any]], drop: tuple[str, ...] = ("latency",)) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in drop} for r in rows]


def test_concurrent_eval_writes_the_sequential_rows_and_cache(stub: _Stub, tmp_path, kb_and_questions) -> None:
    stub.answer = _letter_answer  # type: ignore[assignment]
    stub.delay = 0.05
    peak = {}
    for n in (1, 4):
        stub.peak = 0
        _server_eval(stub, kb_and_questions, tmp_path / f"r{n}.jsonl", tmp_path / f"c{n}.sqlite", n)
        peak[n] = stub.peak
    seq, par = _rows(tmp_path / "r1.jsonl"), _rows(tmp_path / "r4.jsonl")
    assert len(seq) == 12 and _same(par) == _same(seq)
    assert _entries(tmp_path / "c4.sqlite") == _entries(tmp_path / "c1.sqlite")
    # the server saw the requests overlap (counted, not timed: a wall-clock race fails at random on a busy machine)
    assert peak[1] == 1 and peak[4] >= 2, peak


def test_concurrent_eval_resumes_a_stopped_run(stub: _Stub, tmp_path, kb_and_questions) -> None:
    stub.answer = _letter_answer  # type: ignore[assignment]
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    _server_eval(stub, kb_and_questions, full, tmp_path / "c1.sqlite", 1)
    part.write_text("\n".join(full.read_text().splitlines()[:5]) + "\n" + '{"question_id": "torn')
    shutil.copy(f"{full}.run.json", f"{part}.run.json")  # the stopped run's record, beside its rows
    _server_eval(stub, kb_and_questions, part, tmp_path / "c2.sqlite", 3)
    assert _same(_rows(part)) == _same(_rows(full))


def test_concurrency_needs_a_server_model(kb_and_questions) -> None:
    from planner.bench.evaluate import run_eval
    from planner.errors import ConfigError
    from planner.llm import FakeLLM
    from planner.pipeline import make_pipeline

    kb, qs = kb_and_questions
    pipe = make_pipeline("single", "llm", FakeLLM(['{"letter": "A"}'] * 10), kb)
    with pytest.raises(ConfigError, match="server"):
        run_eval(qs, pipe, run=RUN, progress=False, concurrency=2)
    with pytest.raises(ConfigError, match="concurrency"):
        run_eval(qs, pipe, run=RUN, progress=False, concurrency=0)


def test_a_second_writer_on_one_out_is_refused(kb_and_questions, tmp_path) -> None:
    from planner.bench.evaluate import run_eval
    from planner.errors import ConfigError
    from planner.pipeline import make_pipeline

    kb, qs = kb_and_questions
    out = tmp_path / "r.jsonl"
    run = {**RUN, "strategy": "knowledge", "llm": None}
    first = make_pipeline("single", "knowledge", None, kb)
    refused: list[Exception] = []

    class Nested:  # decides like the first pipeline, but starts a second run on the same file mid-way
        strategy = "knowledge"
        llm = None

        def decide(self, q: Any) -> Any:
            if not refused:
                try:
                    run_eval(qs, first, run=run, out=out, progress=False)
                except ConfigError as e:
                    refused.append(e)
            return first.decide(q)

    rows = run_eval(qs, Nested(), run=run, out=out, progress=False)  # type: ignore[arg-type]
    assert refused and str(out) in str(refused[0]) and "another run" in str(refused[0])
    assert len(_rows(out)) == len(qs) == len(rows)  # no duplicate rows
    assert len(run_eval(qs, first, run=run, out=out, progress=False)) == len(qs)  # lock released
    assert len(_rows(out)) == len(qs)
