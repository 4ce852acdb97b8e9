"""Spreading work over actors (``planner.bench.scale``), offline: the map logic on thread actors, the flags, the
actors' environment, and a missing Ray. The same commands on a real Ray head: ``test_scale_ray.py`` (slow).

The thread backend here stands in for Ray's actors only to make deaths happen on cue: an actor is a one-thread
executor holding its worker, and "dies" when its worker raises :class:`Die` (every later call to it fails too, as
Ray's calls to a dead actor do).
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest

from planner import errors
from planner.bench.scale import ActorDied, Done, Lost, actor_env, lost_error, ray_config, spread
from planner.cli import main

REPO = Path(__file__).resolve().parents[2]


class Die(Exception):
    """Raised by a worker to kill the thread actor running it."""


class _Actor:
    def __init__(self, name: int) -> None:
        self.name = name
        self.ex = ThreadPoolExecutor(max_workers=1)
        self.worker: Any = None
        self.dead = False
        self.calls: list[Future[Any]] = []


class ThreadBackend:
    """:class:`planner.bench.scale.Backend` on threads (see the module docstring)."""

    def __init__(self) -> None:
        self.actors: list[_Actor] = []
        self.stopped: list[int] = []

    def start(self) -> _Actor:
        a = _Actor(len(self.actors))
        self.actors.append(a)
        return a

    def install(self, actor: _Actor, make_worker: Callable[[], Any]) -> Future[Any]:
        def build() -> None:
            actor.worker = make_worker()

        return actor.ex.submit(build)

    def submit(self, actor: _Actor, item: Any) -> Future[Any]:
        def call() -> Any:
            if actor.dead:
                raise Die(f"actor {actor.name} is dead")
            try:
                return actor.worker(actor.name, item)
            except Die:
                actor.dead = True
                raise

        return actor.ex.submit(call)

    def wait(self, futures: list[Future[Any]]) -> Future[Any]:
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        return next(f for f in futures if f in done)

    def result(self, future: Future[Any]) -> Any:
        try:
            return future.result()
        except Die as e:
            raise ActorDied(str(e)) from None

    def stop(self, actor: _Actor, *, graceful: bool = True) -> None:
        actor.dead = True
        actor.ex.shutdown(wait=graceful, cancel_futures=True)
        self.stopped.append(actor.name)


class Worker:
    """Doubles an item, records which actor did it; dies on the items in ``deadly`` (``times`` times each)."""

    def __init__(self, deadly: dict[int, int] | None = None, fails: int | None = None) -> None:
        self.deadly = dict(deadly or {})
        self.fails = fails
        self.seen: list[tuple[int, int]] = []
        self.lock = threading.Lock()

    def __call__(self, actor: int, item: int) -> int:
        with self.lock:
            self.seen.append((actor, item))
            if self.deadly.get(item, 0) > 0:
                self.deadly[item] -= 1
                raise Die(f"killed on item {item}")
        if item == self.fails:
            raise errors.ConfigError(f"item {item} is not allowed")
        return 2 * item


def _run(items: list[int], worker: Worker, n: int = 2, **kw: Any) -> tuple[list[Done | Lost], ThreadBackend]:
    backend = ThreadBackend()
    slots = [backend.start() for _ in range(n)]
    out = list(spread(backend, slots, lambda: worker, items, **kw))
    for a in slots:
        backend.stop(a)
    return out, backend


def test_every_item_comes_back_once_with_its_result() -> None:
    items = list(range(12))
    out, _ = _run(items, Worker())
    assert sorted(o.index for o in out) == items
    assert all(isinstance(o, Done) and o.value == 2 * items[o.index] for o in out)


def test_a_group_runs_on_one_actor_in_order() -> None:
    items = [10, 11, 12, 20, 21, 30, 31, 32, 33]
    w = Worker()
    out, _ = _run(items, w, groups=[i // 10 for i in items])
    assert len(out) == len(items)
    for g in (1, 2, 3):
        runs = [(a, i) for a, i in w.seen if i // 10 == g]
        assert len({a for a, _ in runs}) == 1, runs  # one actor
        assert [i for _, i in runs] == sorted(i for i in items if i // 10 == g)  # in order


def test_an_actor_that_dies_once_is_replaced_and_its_item_tried_again() -> None:
    w = Worker(deadly={3: 1})
    out, backend = _run(list(range(8)), w)
    assert sorted(o.index for o in out) == list(range(8))
    assert all(isinstance(o, Done) for o in out)
    assert len(backend.actors) == 3  # two, and one for the dead
    assert [a for a, i in w.seen if i == 3][0] != [a for a, i in w.seen if i == 3][1]


def test_an_item_that_kills_every_actor_is_lost_with_the_reason_and_the_rest_done() -> None:
    w = Worker(deadly={2: 99})
    out, backend = _run(list(range(6)), w, n=1)  # one actor: 3 waits behind 2 when it dies
    lost = [o for o in out if isinstance(o, Lost)]
    assert [(x.index, "killed on item 2" in x.reason) for x in lost] == [(2, True)]
    assert sorted(o.index for o in out if isinstance(o, Done)) == [0, 1, 3, 4, 5]
    # the first death, with 2 and 3 unfinished, blames neither; then 2 runs alone and is tried twice, no more
    assert [i for _, i in w.seen].count(2) == 3
    assert len(backend.actors) == 4


class LossyBackend(ThreadBackend):
    """Like Ray when a reply is not back before its actor dies: every call of a dead actor fails, also one that
    finished; the calls are handed back once every one sent has ended, a failed one first."""

    def wait(self, futures: list[Future[Any]]) -> Future[Any]:
        wait(futures)
        return next((f for f in futures if f.exception() is not None), futures[0])

    def result(self, future: Future[Any]) -> Any:
        if any(a.dead and future in a.calls for a in self.actors):
            raise ActorDied("the actor died before the reply came back")
        return super().result(future)

    def submit(self, actor: _Actor, item: Any) -> Future[Any]:
        f = super().submit(actor, item)
        actor.calls.append(f)
        return f


def test_a_finished_call_whose_reply_died_with_its_actor_is_run_again_alone_not_blamed() -> None:
    # 0 finishes, then 1 kills the actor, and 0's reply is lost with it: which one killed it is not known, so
    # neither counts a try; each runs alone after, 0 is done and 1 (no retries) is the one lost
    backend = LossyBackend()
    slots = [backend.start()]
    w = Worker(deadly={1: 99})
    out = list(spread(backend, slots, lambda: w, [0, 1, 2], retries=0))
    assert sorted((o.index, type(o).__name__) for o in out) == [(0, "Done"), (1, "Lost"), (2, "Done")]
    assert [i for _, i in w.seen].count(0) == 2 and [i for _, i in w.seen].count(1) == 2


def test_a_group_goes_on_after_its_actor_died() -> None:
    items = [10, 11, 12, 13]
    w = Worker(deadly={11: 1})
    out, _ = _run(items, w, groups=[1, 1, 1, 1])
    assert sorted(o.index for o in out if isinstance(o, Done)) == [0, 1, 2, 3]
    after = [(a, i) for a, i in w.seen][2:]  # 10 and the fatal 11 on the first actor
    assert [i for _, i in after] == [11, 12, 13] and len({a for a, _ in after}) == 1


def test_a_workers_own_error_is_raised_as_itself_and_busy_actors_end() -> None:
    backend = ThreadBackend()
    slots = [backend.start() for _ in range(2)]
    with pytest.raises(errors.ConfigError, match="item 1 is not allowed"):
        list(spread(backend, slots, lambda: Worker(fails=1), list(range(6))))
    assert backend.stopped and None in slots  # the actors still holding calls were ended, their slots emptied
    out = list(spread(backend, slots, lambda: Worker(), [4, 5]))  # the next map starts actors in empty slots
    assert sorted(o.value for o in out) == [8, 10] and None not in slots


def test_nothing_to_do_builds_no_worker() -> None:
    backend = ThreadBackend()
    built: list[int] = []

    def make_worker() -> Worker:
        built.append(1)
        return Worker()

    assert list(spread(backend, [backend.start()], make_worker, [])) == []
    assert built == []


def test_an_error_building_the_worker_is_raised_before_any_item() -> None:
    backend = ThreadBackend()

    def make_worker() -> Worker:
        raise errors.DataNotFoundError("no COAT data in /nowhere")

    with pytest.raises(errors.DataNotFoundError, match="/nowhere"):
        list(spread(backend, [backend.start()], make_worker, [1, 2]))


def test_lost_items_make_one_error_naming_them() -> None:
    e = lost_error([Lost(0, "OOM"), Lost(2, "SIGKILL")], lambda i: f"q{i}", "questions", "run again")
    assert isinstance(e, errors.WorkerLostError)
    assert "2 questions not done" in str(e) and "q0 (OOM)" in str(e) and "q2 (SIGKILL)" in str(e)
    assert "run again" in str(e)


@pytest.mark.parametrize("address", ["local", "auto", "127.0.0.1:6379", "ray://head.example:10001", "[::1]:6379"])
def test_ray_addresses_of_every_form_are_accepted(address: str) -> None:
    cfg = ray_config(address, 3)
    assert cfg is not None and (cfg.address, cfg.actors) == (address, 3)
    assert ray_config(None) is None


@pytest.mark.parametrize(
    ("address", "actors", "concurrency", "message"),
    [
        (None, 2, 1, "--ray-actors 2 needs --ray"),
        ("head", None, 1, "--ray 'head': not a Ray address; give local, auto, HOST:PORT"),
        ("http://x:1", None, 1, "not a Ray address"),
        ("local", 0, 1, "--ray-actors must be an integer >= 1, got 0"),
        ("local", None, 4, "--concurrency 4 with --ray"),
    ],
)
def test_bad_ray_settings_are_refused_naming_the_value(address: str | None, actors: int | None, concurrency: int,
                                                       message: str) -> None:
    with pytest.raises(errors.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ray_config(address, actors, concurrency=concurrency)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "--set", "task2", "--strategy", "knowledge", "--ray-actors", "2"], "--ray-actors 2 needs --ray"),
        (["eval", "--set", "task2", "--llm", "fake", "--ray", "--concurrency", "2"], "--concurrency 2 with --ray"),
        (["bench", "tasks", "--episodes", "2", "--ray", "nohost"], "--ray 'nohost': not a Ray address"),
        (["bench", "understanding", "--split", "dev", "--ray-actors", "1"], "--ray-actors 1 needs --ray"),
        (["bench", "directives", "--split", "dev", "--ray", "a:b"], "--ray 'a:b': not a Ray address"),
        (["sciworld", "--tasks", "boil", "--ray", "x"], "--ray 'x': not a Ray address"),
    ],
)
def test_every_command_refuses_bad_ray_flags_before_running(argv: list[str], message: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_ray_actors_below_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["bench", "tasks", "--ray", "--ray-actors", "0"])
    assert e.value.code == 2 and "--ray-actors" in capsys.readouterr().err


def test_actors_get_the_data_directory_and_coat_settings_not_secrets(tmp_path: Path) -> None:
    env = {"COAT_READER": "lexical", "COAT_LLM_THREADS": "1", "OLLAMA_HOST": "http://gpu:11434",
           "OPENAI_API_KEY": "sk-secret", "HOME": "/root", "COAT_DATA_DIR": "/elsewhere"}
    got = actor_env(tmp_path / "data", env)
    assert got == {"COAT_READER": "lexical", "COAT_LLM_THREADS": "1", "OLLAMA_HOST": "http://gpu:11434",
                   "COAT_DATA_DIR": str((tmp_path / "data").absolute())}
    assert actor_env(None, env)["COAT_DATA_DIR"] == "/elsewhere"


@pytest.mark.parametrize(
    "error",
    [
        errors.ConfigError("bad --limit"),
        errors.DataError("/d/coat/tasks.json", "tasks[3]", "not a string"),
        errors.DownloadError("2 files failed", [("a.json", "404"), ("b.json", "checksum")]),
        errors.SelectionError("no valid letter", attempts=3, last_raw="Z", errors=["not an option"]),
        errors.WorkerLostError("1 episodes not done"),
    ],
)
def test_errors_pickle_whole_so_a_worker_error_reaches_the_driver_as_itself(error: Exception) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error)
    assert vars(back) == vars(error)


_RUNNER = """
import importlib.abc, json, sys
from planner.cli import main

out = {{}}
out["serial"] = main({serial!r})
out["ray_loaded"] = "ray" in sys.modules

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "ray":
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Block())
for m in [m for m in sys.modules if m.split(".")[0] == "ray"]:
    del sys.modules[m]
out["with_ray"] = main({with_ray!r})
sys.stdout.flush()
print("\\n@@" + json.dumps(out))
"""


def test_ray_is_imported_only_with_ray_and_missing_says_how_to_install(data_dir: Path, tmp_path: Path) -> None:
    base = ["eval", "--set", "task2", "--strategy", "knowledge", "--limit", "4", "--no-progress",
            "--data-dir", str(data_dir)]
    code = _RUNNER.format(serial=base, with_ray=[*base, "--ray", "--out", str(tmp_path / "rows.jsonl")])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    head, _, tail = run.stdout.rpartition("\n@@")
    assert tail, run.stdout + run.stderr
    out = json.loads(tail)
    assert out == {"serial": 0, "ray_loaded": False, "with_ray": 1}
    assert "--ray needs Ray, which is not installed" in run.stderr
    assert "pip install 'coat-planner[ray]'" in run.stderr
    assert not (tmp_path / "rows.jsonl").exists()  # said before the output is touched or anything loads


def test_a_pool_without_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.bench.scale import RayConfig, RayPool

    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: find_spec refuses it
    with pytest.raises(errors.DependencyNotInstalled, match=r"pip install 'coat-planner\[ray\]'"):
        RayPool(RayConfig()).__enter__()


def test_a_cluster_that_wants_a_token_is_said_to() -> None:
    from planner.bench.scale import _auth_refused

    try:
        try:
            raise RuntimeError("RPC error: InvalidAuthToken: Authentication token is missing or incorrect")
        except RuntimeError as cause:
            raise ConnectionError("Failed to connect to Ray cluster at 192.0.2.2:6379") from cause
    except ConnectionError as e:
        assert _auth_refused(e)
    assert not _auth_refused(ConnectionError("Failed to connect to Ray cluster at 192.0.2.2:6379"))


class SettledBackend(ThreadBackend):
    """Hands back the calls only once every one sent has ended, a failed one first: a call that finished before its
    actor died comes back after the death (as Ray may return them)."""

    def wait(self, futures: list[Future[Any]]) -> Future[Any]:
        wait(futures)
        return next((f for f in futures if f.exception() is not None), futures[0])


def test_a_call_that_finished_before_its_actor_died_is_done_not_blamed() -> None:
    # one actor runs 0 then dies on 1; both calls are back before the driver looks, the death first: 0 is done,
    # and 1 (no retries) is the one lost
    backend = SettledBackend()
    slots = [backend.start()]
    out = list(spread(backend, slots, lambda: Worker(deadly={1: 1}), [0, 1, 2], retries=0))
    assert sorted((o.index, type(o).__name__) for o in out) == [(0, "Done"), (1, "Lost"), (2, "Done")]
    assert [o.value for o in out if isinstance(o, Done) and o.index == 0] == [0]


def _fake_ray(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    """A stand-in ``ray`` module whose ``init`` fails to connect, recording each call in ``calls``."""
    import importlib.machinery
    import types

    fake = types.ModuleType("ray")
    fake.__spec__ = importlib.machinery.ModuleSpec("ray", None)
    fake.exceptions = types.SimpleNamespace(RayError=RuntimeError)  # type: ignore[attr-defined]
    fake.is_initialized = lambda: False  # type: ignore[attr-defined]

    def init(**_kw: Any) -> None:
        calls.append("init")
        raise ConnectionError("Initialization failure from server")

    fake.init = init  # type: ignore[attr-defined]
    fake.shutdown = lambda: calls.append("shutdown")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", fake)


def test_a_failed_connection_is_shut_down_so_the_next_pool_can_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    # a Ray Client server that does not start in time leaves ray half-initialised in the process; the pool that
    # failed to connect shuts it down, so a later pool in the same process (a test session, a notebook) connects
    from planner.bench.scale import RayConfig, RayPool

    calls: list[str] = []
    _fake_ray(monkeypatch, calls)
    with pytest.raises(errors.ConfigError, match="cannot connect to the Ray cluster there"):
        RayPool(RayConfig(address="ray://127.0.0.1:1")).__enter__()
    assert calls == ["init", "shutdown"]


def _free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_head_address_that_does_not_answer_fails_fast_naming_it_and_the_fix_keeping_the_rows(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    # Ray would retry a silent GCS for minutes, printing its own warnings; a real TCP probe refuses it at once,
    # before ray.init, so the rows a serial run wrote stay as they were
    out = tmp_path / "run"
    few = ["--scenes", "embedded/FloorPlan1-v0", "--no-progress"]
    assert main(["bench", "tasks", "--episodes", "1", "--out", str(out), *few]) == 0
    before = (out / "episodes.jsonl").read_text()
    capsys.readouterr()
    calls: list[str] = []
    _fake_ray(monkeypatch, calls)
    address = f"127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    argv = ["bench", "tasks", "--episodes", "3", "--out", str(out), "--resume", "--ray", address, *few]
    assert main(argv) == 1
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"coat: error: --ray {address}: no Ray head answers there")
    assert "ray start --head" in err[0] and "omit --ray" in err[0]
    assert calls == []  # Ray never tried it
    assert (out / "episodes.jsonl").read_text() == before


def test_the_probe_passes_an_address_that_accepts_a_connection() -> None:
    from planner.bench.scale import _answers

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        assert _answers(f"127.0.0.1:{s.getsockname()[1]}", timeout=2) is None
    assert _answers(f"127.0.0.1:{_free_port()}", timeout=2) is not None
