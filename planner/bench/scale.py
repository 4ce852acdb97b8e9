"""Spreading a benchmark's work over a Ray cluster: the ``--ray [ADDRESS]`` of ``coat eval``, ``coat ablate``,
``coat bench tasks|understanding|directives`` and ``coat sciworld``.

The driver (the ``coat`` process) keeps everything that decides what runs and what is written: it draws the work,
skips what its rows file already holds, and appends every row through the results writer
(:mod:`planner.results`), so the rows, their identity and their resumption are the serial run's. Only the work
itself (a question decided, an episode played, a request planned) runs in the actors, one per environment or model
client: each builds its worker once (``make_worker()``: the knowledge base loaded, the model client made, a JVM
started on first use) and is handed items one at a time. Results come back as they complete, so rows are appended
in completion order; every command resumes by the row's key (question id, episode key, request id), never by its
place in the file.

The actors run the driver's own code (its packages are shipped as the job's ``py_modules``) and get the data
directory and the ``COAT_*`` settings of the driver's environment explicitly (``env_vars``): workers on a cluster
do not inherit the driver's shell. Secrets (``OPENAI_API_KEY``) are not shipped: set them on the nodes.

A worker's own error (bad data, a model that cannot be reached) stops the run as it would in this process. An
actor that dies (killed, out of memory, a crashed simulator) is replaced; the item it was working on is tried once
more on the new actor, and when that one dies too the item comes back as :class:`Lost` with the reason: the
command counts it as a failed row (``coat sciworld``) or, after writing every other row, raises
:class:`~planner.errors.WorkerLostError` naming it (a rerun adds it).

Example::

    with RayPool(RayConfig(address="local", actors=2), data_dir=kb.root) as pool:
        for out in pool.map(functools.partial(make_worker, settings), items):
            if isinstance(out, Done):
                write(items[out.index], out.value)

Requires: the ``ray`` extra (``pip install 'coat-planner[ray]'``); Ray is imported only when a pool opens.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import os
import re
import socket
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from pydantic import Field

from ..errors import ConfigError, PlannerError, WorkerLostError
from ..schemas import Contract

log = logging.getLogger(__name__)

LOCAL = "local"
"""``--ray`` without an address: start Ray on this machine for the run (and stop it after)."""
ADDRESS_FORMS = "local, auto, HOST:PORT (a head's GCS, e.g. 127.0.0.1:6379) or ray://HOST:PORT (Ray Client)"
_ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")
PROBE_TIMEOUT_S = 3.0
"""How long a ``HOST:PORT`` address gets to accept a TCP connection before ``ray.init`` is tried (Ray itself
retries a silent GCS for minutes)."""
PACKAGES: tuple[str, ...] = ("planner", "scenes", "perception", "skills", "checker")
"""The project's packages, shipped to the actors so they run the driver's code."""
FORWARDED: tuple[str, ...] = ("OPENAI_BASE_URL", "OLLAMA_HOST", "JAVA_TOOL_OPTIONS")
"""Settings outside ``COAT_*`` that the actors get from the driver's environment (endpoints, not secrets)."""
IN_FLIGHT = 2
"""Items queued per actor: one running, one waiting, so an actor never idles while the driver writes a row."""
RETRIES = 1
"""Times an item is tried again after the actor running it died."""


class RayConfig(Contract):
    """Where the work runs: a Ray started here for the run, or an existing cluster, and with how many actors."""

    address: str = LOCAL
    """:data:`LOCAL`, ``auto`` (the cluster this machine is part of), ``HOST:PORT`` or ``ray://HOST:PORT``."""
    actors: int | None = Field(default=None, ge=1)
    """Actors (environments or model clients) at once; None: one per CPU of the cluster."""
    object_store_mb: int = Field(default=256, ge=80)
    """The object store of a local Ray (results are small rows; Ray's default takes 30 % of the memory)."""


TIMING: tuple[str, ...] = ("latency", "wall_ms", "seconds")
"""Row fields that measure time: the only ones a Ray run writes differently from the serial run (and, in a
summary, their aggregates: ``median_wall_ms``)."""


def untimed(value: Any) -> Any:
    """A row (or summary, or any JSON value) without its :data:`TIMING` fields, at every depth: what a Ray run and
    the serial run write alike."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not k.endswith(TIMING)}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def ray_config(address: str | None, actors: int | None = None, *, concurrency: int = 1) -> RayConfig | None:
    """The config of ``--ray [ADDRESS]`` and ``--ray-actors N`` (None when ``--ray`` is not given).

    Raises:
        ConfigError: an address of no known form, ``--ray-actors`` without ``--ray``, a count below 1, or
            ``--concurrency`` above 1 with ``--ray`` (each naming the value and what is accepted).
    """
    if address is None:
        if actors is not None:
            raise ConfigError(f"--ray-actors {actors} needs --ray [ADDRESS]: the actors are Ray's; without --ray the "
                              "run is serial")
        return None
    text = address.strip()
    if text not in (LOCAL, "auto") and not _ADDRESS.match(text):
        raise ConfigError(f"--ray {address!r}: not a Ray address; give {ADDRESS_FORMS}, or --ray alone for a local Ray")
    if actors is not None and (not isinstance(actors, int) or actors < 1):
        raise ConfigError(f"--ray-actors must be an integer >= 1, got {actors!r}")
    if concurrency != 1:
        raise ConfigError(f"--concurrency {concurrency} with --ray: the actors decide one question each at a time; "
                          "use --concurrency 1 (the default) and --ray-actors N for N at once")
    return RayConfig(address=text, actors=actors)


@dataclasses.dataclass(frozen=True)
class Done:
    """An item's result: ``value`` is what the worker returned for ``items[index]``."""

    index: int
    value: Any


@dataclasses.dataclass(frozen=True)
class Lost:
    """An item whose actor died on every try; ``reason`` says how the last one died."""

    index: int
    reason: str


def lost_error(lost: Sequence[Lost], name: Callable[[int], str], what: str, rerun: str) -> WorkerLostError:
    """The error of a run that lost items: which, why, and that a rerun adds them."""
    shown = "; ".join(f"{name(x.index)} ({x.reason[:160]})" for x in lost[:3])
    more = f" and {len(lost) - 3} more" if len(lost) > 3 else ""
    return WorkerLostError(f"{len(lost)} {what} not done: the Ray actors running them died twice each: {shown}{more}. "
                           f"Every other row is written; {rerun} to add them")


def actor_env(data_dir: str | os.PathLike[str] | None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the actors get: the driver's ``COAT_*`` and :data:`FORWARDED` settings, and the data
    directory as ``COAT_DATA_DIR`` (absolute)."""
    env = os.environ if environ is None else environ
    out = {k: v for k, v in env.items() if k.startswith("COAT_") or k in FORWARDED}
    if data_dir is not None:
        out["COAT_DATA_DIR"] = str(Path(data_dir).absolute())
    return out


def package_dirs() -> list[str]:
    """The directories of the project's packages as this process imports them (shipped as ``py_modules``)."""
    out = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            out.append(str(list(spec.submodule_search_locations)[0]))
    return out


# ---------------------------------------------------------------- mapping items over actors


class ActorDied(Exception):
    """An actor's process is gone (raised by a :class:`Backend`'s ``result``); the message says why."""


class Backend(Protocol):
    """What :func:`spread` needs of Ray: actors that hold a worker, calls that complete in any order."""

    def start(self) -> Any:
        """A new actor (no worker yet)."""

    def install(self, actor: Any, make_worker: Callable[[], Any]) -> Any:
        """Have ``actor`` build its worker (closing the one before); a future of None."""

    def submit(self, actor: Any, item: Any) -> Any:
        """A future of ``worker(item)`` on ``actor``; calls to one actor run one at a time, in order."""

    def wait(self, futures: Sequence[Any]) -> Any:
        """One future of ``futures`` that is done (blocking until one is)."""

    def result(self, future: Any) -> Any:
        """The value of a done future; raises the worker's own exception, or :class:`ActorDied`."""

    def stop(self, actor: Any, *, graceful: bool = True) -> None:
        """End the actor: its worker closed first when ``graceful``, else at once (it is busy or dead)."""


def spread(backend: Backend, slots: list[Any], make_worker: Callable[[], Any], items: Sequence[Any], *,
           groups: Sequence[Hashable] | None = None, in_flight: int = IN_FLIGHT,
           retries: int = RETRIES) -> Iterator[Done | Lost]:
    """Run ``make_worker()(item)`` for every item on the actors in ``slots``, yielding each result as it completes.

    Every actor first builds its worker (an error there is raised at once). Items of one group (``groups[i]``,
    each item its own group when None) go to one actor, in their order, one after the other: a worker that keeps
    state between items (a simulator whose history shapes the next episode) sees the sequence a serial run gives
    it. An actor that dies is replaced in its slot and its unfinished calls, with the rest of its group, go back to
    the front of the queue. When it died with one call unfinished, that call counts a try; with several, which one
    killed it is not known (Ray reports a call that finished as failed when its reply was not back before the
    death), so none counts a try and each of them runs alone on its actor from then on, until a death names it. An
    item tried ``1 + retries`` times comes back as :class:`Lost`. When the caller stops early (an error, an
    interrupt), the busy actors are ended.

    Raises:
        WorkerLostError: an actor died while building its worker, twice in one slot.
        Exception: a worker's own error, as the worker raised it.
    """
    def key(i: int) -> Hashable:
        return groups[i] if groups is not None else i

    if not items:  # nothing left (a resumed run): no worker is built
        return
    _install_all(backend, slots, make_worker)
    todo = deque(_grouped([(i, 0) for i in range(len(items))], key))  # groups of (index, tries so far)
    mine: list[deque[tuple[int, int]]] = [deque() for _ in slots]  # the rest of each slot's group, not sent yet
    queued: list[deque[tuple[Any, int, int]]] = [deque() for _ in slots]  # per slot: (future, index, tries)
    owner: dict[Any, int] = {}
    alone: set[int] = set()  # items among several unfinished calls of an actor that died: each runs by itself
    complete = False
    try:
        while todo or owner or any(mine):
            for s in range(len(slots)):
                while len(queued[s]) < in_flight and (mine[s] or todo):
                    if not mine[s]:
                        mine[s] = todo.popleft()
                    if queued[s] and (mine[s][0][0] in alone or any(q[1] in alone for q in queued[s])):
                        break  # a suspect runs with nothing beside it
                    i, tries = mine[s].popleft()
                    f = backend.submit(slots[s], items[i])
                    queued[s].append((f, i, tries))
                    owner[f] = s
            f = backend.wait(list(owner))
            s = owner.pop(f)
            pos = next(k for k, q in enumerate(queued[s]) if q[0] == f)  # == : Ray Client hands back equal copies
            _, i, tries = queued[s][pos]
            try:
                value = backend.result(f)
            except ActorDied as e:
                # the slot's unfinished calls all fail with it; a call whose value came back is done (its future
                # may come back later than the failed one's). One left unfinished is blamed; of several, none is
                dead = list(queued[s])
                queued[s].clear()
                for g, *_ in dead:
                    owner.pop(g, None)
                finished, dead = _finished(backend, dead, f)
                for j, value in finished:
                    yield Done(j, value)
                blamed = dead[0][1:] if len(dead) == 1 else None
                if blamed is None:
                    alone.update(j for _, j, _ in dead)
                    back = [(j, t) for _, j, t in dead]
                else:
                    back = [(blamed[0], blamed[1] + 1)] if blamed[1] < retries else []
                back += list(mine[s])
                mine[s] = deque()
                todo.extendleft(reversed(_grouped(back, key)))
                log.warning("a Ray actor died (%s); starting another", e)
                slots[s] = _replace(backend, slots[s], make_worker)
                if blamed is not None and blamed[1] >= retries:
                    yield Lost(blamed[0], str(e))
                continue
            del queued[s][pos]
            yield Done(i, value)
        complete = True
    finally:
        if not complete:  # stopped early: end the busy actors so no call of this map runs on (a next map
            for s, q in enumerate(queued):  # starts new ones in their slots)
                if q:
                    backend.stop(slots[s], graceful=False)
                    slots[s] = None


def _finished(backend: Backend, calls: list[tuple[Any, int, int]],
              failed: Any) -> tuple[list[tuple[int, Any]], list[tuple[Any, int, int]]]:
    """Of a dead actor's calls (oldest first), the leading ones that finished before it died, as ``(index, value)``,
    and the rest, from the first that did not (``failed`` did not). A worker's own error is raised as itself."""
    done: list[tuple[int, Any]] = []
    for k, (g, j, _t) in enumerate(calls):
        if g == failed:  # == : Ray Client hands back equal copies
            return done, calls[k:]
        try:
            done.append((j, backend.result(g)))
        except ActorDied:
            return done, calls[k:]
    raise AssertionError("the failed call is not among its actor's calls")  # pragma: no cover - a spread bug


def _grouped(pairs: Sequence[tuple[int, int]], key: Callable[[int], Hashable]) -> list[deque[tuple[int, int]]]:
    """``(index, tries)`` pairs by group, groups in the order of their first item, items in their order."""
    out: dict[Hashable, deque[tuple[int, int]]] = {}
    for i, t in pairs:
        out.setdefault(key(i), deque()).append((i, t))
    return list(out.values())


def _install_all(backend: Backend, slots: list[Any], make_worker: Callable[[], Any]) -> None:
    """Every actor builds its worker (a slot left empty by an earlier map gets a new actor first)."""
    for s, a in enumerate(slots):
        if a is None:
            slots[s] = backend.start()
    futures = {backend.install(a, make_worker): s for s, a in enumerate(slots)}
    for f, s in futures.items():
        try:
            backend.result(f)
        except ActorDied:
            slots[s] = _replace(backend, slots[s], make_worker)


def _replace(backend: Backend, dead: Any, make_worker: Callable[[], Any]) -> Any:
    """A new actor with its worker built, for one that died (ended, in case it lingers)."""
    try:
        backend.stop(dead, graceful=False)
    except Exception:  # noqa: BLE001 - it is dead already
        log.debug("ending a dead actor failed", exc_info=True)
    actor = backend.start()
    try:
        backend.result(backend.install(actor, make_worker))
    except ActorDied as e:
        raise WorkerLostError(f"a Ray actor died while building its worker, twice: {e}") from None
    return actor


# ---------------------------------------------------------------- Ray


class _Actor:
    """The actor class: holds one worker, runs its calls in the run's data directory."""

    def __init__(self, data_dir: str | None) -> None:
        self.data_dir = data_dir
        self.worker: Any = None

    def install(self, make_worker: Callable[[], Any]) -> None:
        from ..paths import use_data_dir

        self.close()
        with use_data_dir(self.data_dir):
            self.worker = make_worker()

    def run(self, item: Any) -> Any:
        from ..paths import use_data_dir

        with use_data_dir(self.data_dir):
            return self.worker(item)

    def close(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None and hasattr(worker, "close"):
            worker.close()


class _RayBackend:
    """:class:`Backend` on Ray actors (``max_restarts=0``: a dead actor is replaced by :func:`spread`)."""

    def __init__(self, ray: Any, cpus_per_actor: float, data_dir: str | None) -> None:
        self.ray = ray
        self.data_dir = data_dir
        self.actor_class = ray.remote(num_cpus=cpus_per_actor, max_restarts=0)(_Actor)
        ex = ray.exceptions
        self.died = (ex.RayActorError, ex.WorkerCrashedError, ex.NodeDiedError, ex.ObjectLostError,
                     ex.OutOfMemoryError, ex.LocalRayletDiedError)

    def start(self) -> Any:
        return self.actor_class.remote(self.data_dir)

    def install(self, actor: Any, make_worker: Callable[[], Any]) -> Any:
        return actor.install.remote(make_worker)

    def submit(self, actor: Any, item: Any) -> Any:
        return actor.run.remote(item)

    def wait(self, futures: Sequence[Any]) -> Any:
        done, _ = self.ray.wait(list(futures), num_returns=1)
        return done[0]

    def result(self, future: Any) -> Any:
        ex = self.ray.exceptions
        try:
            return self.ray.get(future)
        except self.died as e:
            raise ActorDied(_first_line(e)) from None
        except ex.RayTaskError as e:  # the worker's own error: raised as itself (planner errors pickle whole)
            cause = getattr(e, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise PlannerError(f"a Ray worker failed: {_first_line(e)}") from None
        except ex.RayError as e:  # an error the worker's exception became on the way (it did not pickle)
            raise PlannerError(f"a Ray worker failed: {_first_line(e)}") from None

    def stop(self, actor: Any, *, graceful: bool = True) -> None:
        if graceful:
            try:  # its worker closed first (a simulator's JVM also ends when its parent dies)
                self.ray.get(actor.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - dead or stuck: killed below either way
                log.debug("closing an actor's worker failed", exc_info=True)
        self.ray.kill(actor)


def _auth_refused(e: BaseException) -> bool:
    """Whether a failed connection was refused for want of the cluster's token (anywhere in its chain)."""
    seen: BaseException | None = e
    while seen is not None:
        if type(seen).__name__ == "AuthenticationError" or "InvalidAuthToken" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _answers(address: str, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """None when something accepts a TCP connection at ``HOST:PORT`` (``[v6]:PORT`` too) within ``timeout`` seconds;
    else why not (refused, timed out, unknown host)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return None
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as e:
        return e.strerror or type(e).__name__


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:300] or type(e).__name__


class RayPool:
    """Actors on a Ray cluster for one command; :meth:`map` spreads items over them.

    Entering connects (``address`` :data:`LOCAL` starts a small Ray here: no dashboard, a
    ``object_store_mb`` store, one CPU per core) with the job's runtime environment (the project's packages, the
    data directory, the ``COAT_*`` settings) and starts the actors; leaving ends them and disconnects (stopping a
    Ray it started). A Ray this process had already connected is used as it is and left connected.

    Args:
        config: Where and how many (:class:`RayConfig`).
        data_dir: The run's data directory, given to every actor (and as their ``COAT_DATA_DIR``).

    Raises (on entering):
        DependencyNotInstalled: Ray is not installed (the message has the install line).
        ConfigError: the cluster cannot be reached (naming the address); a ``HOST:PORT`` that does not accept a
            connection within :data:`PROBE_TIMEOUT_S` is refused before Ray tries it.
    """

    def __init__(self, config: RayConfig, *, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.config = config
        self.data_dir = str(Path(data_dir).absolute()) if data_dir is not None else None
        self.slots: list[Any] = []
        self._backend: _RayBackend | None = None
        self._ray: Any = None
        self._connected_here = False
        self._environ: dict[str, str] | None = None

    @property
    def actors(self) -> int:
        """The number of actors (known once entered)."""
        return len(self.slots)

    def __enter__(self) -> RayPool:
        from .._optional import require

        ray = require("ray", "ray")
        self._ray = ray
        try:
            if not ray.is_initialized():
                self._connect(ray)
            cpus = max(1.0, float(ray.cluster_resources().get("CPU", 1.0)))
            n = self.config.actors or int(cpus)
            backend = _RayBackend(ray, min(1.0, round(cpus / n, 4)), self.data_dir)
            self._backend = backend
            self.slots = [backend.start() for _ in range(n)]
        except BaseException:
            self.close()
            raise
        log.info("ray: %d actors on %s (%g CPUs)", n, self.config.address, cpus)
        return self

    def _connect(self, ray: Any) -> None:
        # ray.init leaves settings in this process's environment (after a local Ray, RAY_AUTH_MODE=token), which
        # the processes it starts later would inherit: put back as they were in close()
        self._environ = dict(os.environ)
        env = {"py_modules": package_dirs(), "env_vars": actor_env(self.data_dir)}
        quiet = {"logging_level": logging.WARNING, "include_dashboard": False}
        address = self.config.address
        if address == LOCAL:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a run here sends no usage report
            kw: dict[str, Any] = {"address": "local", "num_cpus": os.cpu_count() or 1,
                                  "object_store_memory": self.config.object_store_mb * 1024 * 1024}
        else:
            if address != "auto" and not address.startswith("ray://"):
                # a head's GCS that does not answer: Ray would retry it for minutes, printing its own warnings
                why = _answers(address)
                if why is not None:
                    raise ConfigError(f"--ray {address}: no Ray head answers there ({why}); start one with "
                                      "`ray start --head` and give the address it prints, or omit --ray to run "
                                      "here without Ray")
            kw = {"address": address}
            del quiet["include_dashboard"]  # the cluster's own setting
        try:
            ray.init(runtime_env=env, **kw, **quiet)
        except (ConnectionError, TimeoutError, ray.exceptions.RayError) as e:
            # a failed init can leave a half-made connection behind (Ray Client's, after a server that did not
            # start in time), and the next ray.init in this process would trip on it: close() shuts it down
            self._connected_here = True
            if _auth_refused(e):
                raise ConfigError(f"--ray {address}: the cluster uses token authentication and refused this "
                                  "process; run with RAY_AUTH_MODE=token and the head's token (its "
                                  "~/.ray/auth_token copied here, or RAY_AUTH_TOKEN)") from None
            raise ConfigError(f"--ray {address}: cannot connect to the Ray cluster there ({_first_line(e)}); give "
                              f"the head's address ({ADDRESS_FORMS}), or --ray alone for a local Ray") from None
        self._connected_here = True

    def map(self, make_worker: Callable[[], Callable[[Any], Any]], items: Sequence[Any], *,
            groups: Sequence[Hashable] | None = None) -> Iterator[Done | Lost]:
        """Every item through ``make_worker()`` (built once per actor, in the actor), as results complete; the items
        of one of ``groups`` on one actor, in order (:func:`spread`).

        ``make_worker`` is pickled to the actors: a module-level function, or a ``functools.partial`` of one with
        plain settings (no open model, no simulator). Its result may have a ``close()``, called when the actor
        ends or gets another worker. See :func:`spread` for failures.
        """
        if self._backend is None:
            raise RuntimeError("RayPool.map outside its with-block")
        return spread(self._backend, self.slots, make_worker, items, groups=groups)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """End the actors; disconnect from (and stop) a Ray this pool started or connected."""
        backend, self._backend = self._backend, None
        slots, self.slots = self.slots, []
        if backend is not None:
            for a in slots:
                if a is not None:
                    backend.stop(a)
        if self._connected_here and self._ray is not None:
            self._ray.shutdown()
            self._connected_here = False
        if self._environ is not None:
            before, self._environ = self._environ, None
            for k in [k for k in os.environ if k not in before]:
                del os.environ[k]
            os.environ.update({k: v for k, v in before.items() if os.environ.get(k) != v})


__all__ = ["ADDRESS_FORMS", "LOCAL", "TIMING", "ActorDied", "Backend", "Done", "Lost", "RayConfig", "RayPool",
           "actor_env", "lost_error", "package_dirs", "ray_config", "spread", "untimed"]
