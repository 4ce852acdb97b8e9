"""Downloads are bounded and checked before use: a size cap and a deadline per file, and every fetched body checked
against its pinned SHA-256 before anything parses (the generator sources) or unpickles (the trace pickles) it.

A loopback HTTP server (127.0.0.1, an ephemeral port) plays the hostile mirror: an endless body, a body larger than
it announces, a byte every 0.2 s. The property tests serve arbitrary bytes in place of each kind of source through
a ``file://`` mirror and check that nothing reads them.
"""

from __future__ import annotations

import http.server
import pickle
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner import download as dl
from planner.download import checksums, sources
from planner.errors import FetchError

FETCH = sys.modules["planner.download.fetch"]


class _Hostile(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        try:
            if self.path == "/endless":  # no length, never ends
                self.send_response(200)
                self.end_headers()
                while True:
                    self.wfile.write(b"x" * 65536)
            elif self.path == "/announced":  # says it is huge
                self.send_response(200)
                self.send_header("Content-Length", str(10**12))
                self.end_headers()
                self.wfile.write(b"x" * 100)
            elif self.path == "/drip":  # a byte every 0.2 s: no read ever times out
                self.send_response(200)
                self.send_header("Content-Length", "1000")
                self.end_headers()
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.2)
            else:
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.timeout(60)
def test_an_endless_body_is_cut_at_the_cap(hostile: str) -> None:
    t0 = time.monotonic()
    with pytest.raises(FetchError, match="more than the 1,000,000 bytes expected"):
        dl.fetch(f"{hostile}/endless", max_bytes=1_000_000, retries=0)
    assert time.monotonic() - t0 < 10


@pytest.mark.timeout(60)
def test_a_body_announced_larger_than_the_cap_is_not_read(hostile: str) -> None:
    with pytest.raises(FetchError, match="1,000,000,000,000 bytes announced, more than the 50 expected; not read"):
        dl.fetch(f"{hostile}/announced", max_bytes=50, retries=0)
    assert dl.fetch(f"{hostile}/ok", max_bytes=12) == b'{"ok": true}'


@pytest.mark.timeout(60)
def test_a_drip_feed_stops_at_the_deadline(hostile: str) -> None:
    t0 = time.monotonic()
    with pytest.raises(FetchError, match=r"not done after 1\.5 s \(the deadline per file\)"):
        dl.fetch(f"{hostile}/drip", timeout=5, deadline=1.5, retries=2, backoff=0)
    assert time.monotonic() - t0 < 8  # the deadline, plus at most one read's timeout


# --- every fetched file is pinned, and checked before it is read


def test_every_source_of_every_item_is_pinned() -> None:
    pins = checksums.load_fetched()
    table = checksums.load_checksums()
    items = dl.manifest(sources.COMPONENTS)
    keys = [k for it in items for k in it.source_keys()]
    assert sorted(keys) == sorted(pins)
    for it in items:
        if it.kind == "copy":  # the bytes fetched are the bytes written
            assert pins[it.source_keys()[0]][0] == table[it.outputs[0]][1]
    assert max(size for _, size in pins.values()) < FETCH.MAX_FETCH_BYTES


_KINDS = {"copy": "coat/tasks.json", "templates": "coat/templates.json", "trace": "ai2thor/traces/pickup_mug/"}


def _item(kind: str) -> dl.Item:
    return next(it for it in dl.manifest(sources.COMPONENTS) if it.label == _KINDS[kind])


class _Evil:
    def __reduce__(self) -> tuple[Any, ...]:
        import os

        return (os.system, ("echo owned",))


served = st.one_of(st.binary(max_size=300), st.just(pickle.dumps(_Evil())), st.just(b"import os\nos.system('x')\n"),
                   st.just(b'{"cutting": ["cut cake"]}'))


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(_KINDS)), body=served, which=st.integers(0, 5))
def test_bytes_that_are_not_the_pinned_ones_are_never_parsed_or_unpickled(monkeypatch, tmp_path_factory, kind: str,
                                                                          body: bytes, which: int) -> None:
    read: list[str] = []
    monkeypatch.setattr(FETCH, "compile_templates", lambda *a, **k: read.append("parsed") or b"")
    monkeypatch.setattr(FETCH, "convert_trace", lambda *a, **k: read.append("unpickled") or {})
    item = _item(kind)
    mirror = tmp_path_factory.mktemp("mirror")
    for i, (repo, path) in enumerate(item.sources):
        f = mirror / repo.slug / repo.commit / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(body if i == which % len(item.sources) else b"")  # no source here is the pinned file
    dest = tmp_path_factory.mktemp("dest")
    with pytest.raises(dl.DownloadError) as info:
        dl.download(dest, items=[item], mirror=mirror.as_uri(), retries=0, progress=False)
    assert read == [] and not any(dest.rglob("*.*"))
    assert "checksum mismatch" in str(info.value) or "more than the" in str(info.value)


def test_the_pinned_bytes_are_used(tmp_path: Path, data_dir: Path) -> None:
    item = _item("copy")
    (repo, path), = item.sources
    f = tmp_path / "mirror" / repo.slug / repo.commit / path
    f.parent.mkdir(parents=True)
    f.write_bytes((data_dir / item.outputs[0]).read_bytes())
    report = dl.download(tmp_path / "dest", items=[item], mirror=(tmp_path / "mirror").as_uri(), progress=False)
    assert report.fetched == [item.label]
    assert (tmp_path / "dest" / item.outputs[0]).read_bytes() == f.read_bytes()


def test_rl_thor_action_names_unpickle_to_their_names_and_nothing_else(monkeypatch) -> None:
    """Two recordings (DoHomework, prepare_going_to_bed) name actions with rl_thor's str enum: pinned and
    whitelisted as the name itself (before, those two traces could not be downloaded)."""
    import types

    from planner.errors import DataError

    class Ai2thorAction:
        def __init__(self, value: Any) -> None:
            self.value = value

        def __reduce__(self) -> tuple[Any, ...]:
            return (Ai2thorAction, (self.value,))

    mod = types.ModuleType("rl_thor.envs.actions")
    Ai2thorAction.__module__, Ai2thorAction.__qualname__ = mod.__name__, "Ai2thorAction"
    mod.Ai2thorAction = Ai2thorAction
    for name in ("rl_thor", "rl_thor.envs"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    rows = [{"action": Ai2thorAction("ToggleObjectOn"), "objectId": "Laptop|1"}]
    assert dl.safe_unpickle(pickle.dumps(rows), "a.pkl") == [{"action": "ToggleObjectOn", "objectId": "Laptop|1"}]
    with pytest.raises(DataError, match="Ai2thorAction of a list, not an action name"):
        dl.safe_unpickle(pickle.dumps([Ai2thorAction(["x"])]), "a.pkl")
