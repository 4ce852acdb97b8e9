"""On-disk cache of model calls: one SQLite table, keyed by a hash of everything that shapes the answer.

Every call the LLM adapter makes (a generated reply or a list of option scores) is stored under
``sha256(model id, method, input, parameters)``. Each write is committed on its own, so a run that is
interrupted resumes where it stopped; WAL mode lets several processes read while one writes.

The parameters include the server's URL for models behind a server, so two OpenAI-compatible servers
serving one model name never share answers (entries written before the URL was keyed are not found
again for those models: they may hold another server's answers; the embedded models' keys are unchanged).

Example:
    >>> import tempfile, pathlib
    >>> c = LLMCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> k = LLMCache.make_key("fake", "generate", [["human", "hi"]], {"temperature": 0.0})
    >>> c.get(k) is None
    True
    >>> c.put(k, {"text": "hello"}, model_id="fake", method="generate")
    >>> c.get(k)
    {'text': 'hello'}
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ..config import LLM_CACHE_ENV, current_setting
from ..errors import ConfigError, DataError
from ..paths import expand_user

log = logging.getLogger(__name__)

T = TypeVar("T")

ENV_VAR = LLM_CACHE_ENV
"""Environment variable that overrides the cache file location."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key      TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    method   TEXT NOT NULL,
    value    TEXT NOT NULL,
    created  REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """Return the cache file: the settings' (``$COAT_LLM_CACHE``, read by :meth:`planner.config.Settings.from_env`)
    if set, else the user cache dir / ``llm-cache.sqlite``."""
    chosen = current_setting("llm_cache")
    if chosen is not None:
        return chosen
    from ..paths import user_cache_dir

    return user_cache_dir() / "llm-cache.sqlite"


def _is_locked(exc: sqlite3.Error) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in msg or "busy" in msg)


def _holders(path: Path) -> list[str]:
    """Other processes that have the cache file open (Linux ``/proc``; [] elsewhere or when unreadable)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    targets = {str(path.resolve()), f"{path.resolve()}-wal"}
    out: list[str] = []
    for d in proc.iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if any(os.readlink(fd) in targets for fd in (d / "fd").iterdir()):
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                out.append(f"pid {d.name} ({cmd[:80]})")
        except OSError:  # gone, or not ours to read
            continue
    return out


class LLMCache:
    """A persistent key -> JSON value store for model calls.

    A row that is not JSON reads as a miss (logged), and is replaced by the next answer; callers check
    the value's shape the same way. While another process holds the write lock, calls wait with backoff
    up to ``lock_timeout`` seconds.

    Args:
        path: SQLite file; defaults to :func:`default_cache_path`. Parent directories are created.
        lock_timeout: Seconds to wait for another writer's lock before giving up.

    Raises:
        DataError: when ``path`` is not a readable SQLite cache, here or on a later read or write (a
            file damaged mid-way). The file is left untouched (it might be something else the user
            pointed at by mistake); delete it to start afresh, or run without the cache (``--no-cache``).
        ConfigError: when another process kept the file locked for over ``lock_timeout`` seconds; names
            the processes that have it open.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, lock_timeout: float = 60.0) -> None:
        if lock_timeout < 0:
            raise ConfigError(f"lock_timeout must be >= 0 seconds, got {lock_timeout}")
        self.path = expand_user(path, "cache path") if path is not None else default_cache_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"cannot create the model-call cache at {self.path} ({e.strerror or e}); set "
                              f"{ENV_VAR} to a writable file, or run with --no-cache") from e
        self.lock_timeout = lock_timeout
        # One connection shared by threads, guarded by a lock: sqlite3 connections are not thread-safe.
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=min(1.0, lock_timeout), check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._broken(exc) from exc
        try:
            self._run(self._setup)
        except Exception:
            self._conn.close()
            raise

    @staticmethod
    def _setup(conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(_SCHEMA)
        conn.execute("SELECT key, model_id, method, value, created FROM calls LIMIT 1").fetchall()
        conn.commit()

    def _broken(self, exc: Exception) -> DataError:
        return DataError(
            self.path,
            "",
            f"not a usable LLM cache ({exc}). Delete the file to start a fresh cache, point "
            f"${ENV_VAR} elsewhere, or run with --no-cache",
        )

    def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the connection; wait out another writer's lock with backoff; map sqlite errors."""
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.05
        while True:
            try:
                with self._lock:
                    try:
                        return fn(self._conn)
                    except (sqlite3.Error, UnicodeDecodeError):
                        if self._conn.in_transaction:
                            self._conn.rollback()
                        raise
            except UnicodeDecodeError as exc:  # a damaged file sqlite reads as text (its schema, a value)
                raise self._broken(exc) from exc
            except sqlite3.Error as exc:
                if not _is_locked(exc):
                    raise self._broken(exc) from exc
                left = deadline - time.monotonic()
                if left <= 0:
                    who = "; ".join(_holders(self.path)) or "no other process found with it open"
                    raise ConfigError(
                        f"{self.path} stayed locked by another writer for over {self.lock_timeout:g} s ({who}). "
                        f"Wait for that process or stop it, point ${ENV_VAR} at another file, or run with "
                        "--no-cache"
                    ) from exc
                log.debug("%s is locked; retrying in %.2f s", self.path, delay)
                time.sleep(min(delay, left))
                delay = min(delay * 2, 1.0)

    @staticmethod
    def make_key(model_id: str, method: str, payload: Any, params: Mapping[str, Any] | None = None) -> str:
        """Hash everything that determines a model's answer into a cache key.

        Args:
            model_id: Stable model identifier, e.g. ``"local:smollm2"``.
            method: ``"generate"``, ``"structured"`` or ``"score"``: the same input asked differently
                must not share an entry.
            payload: The input (messages, prompt and options); must be JSON-serialisable.
            params: Generation parameters (temperature, max tokens, seed, schema, server URL...).

        Returns:
            A 64-character hex sha256 digest.
        """
        blob = json.dumps(
            {"model": model_id, "method": method, "input": payload, "params": dict(params or {})},
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Any | None:
        """Return the stored value for ``key``, or None on a miss (also for a row that is not JSON).

        Raises:
            DataError: the file is damaged (see the class).
            ConfigError: another writer kept it locked (see the class).
        """
        row = self._run(lambda c: c.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone())
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (TypeError, ValueError, RecursionError) as exc:
            log.warning("%s: cache entry %s is not JSON (%s); treating it as a miss", self.path, key[:12], exc)
            return None

    def put(self, key: str, value: Any, *, model_id: str, method: str) -> None:
        """Store ``value`` (JSON-serialisable) under ``key`` and commit immediately.

        Raises:
            DataError: the file is damaged (see the class).
            ConfigError: another writer kept it locked (see the class).
        """
        blob = json.dumps(value, ensure_ascii=False)

        def write(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT OR REPLACE INTO calls (key, model_id, method, value, created) VALUES (?, ?, ?, ?, ?)",
                (key, model_id, method, blob, time.time()),
            )
            c.commit()

        self._run(write)

    def __len__(self) -> int:
        return int(self._run(lambda c: c.execute("SELECT COUNT(*) FROM calls").fetchone()[0]))

    def clear(self) -> None:
        """Delete every entry."""

        def wipe(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM calls")
            c.commit()

        self._run(wipe)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.ProgrammingError:  # already closed
                pass

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LLMCache({str(self.path)!r})"


__all__ = ["ENV_VAR", "LLMCache", "default_cache_path"]
