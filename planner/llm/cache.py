"""On-disk cache of model calls: one SQLite table, keyed by a hash of everything that shapes the answer.

Every call the LLM adapter makes (a generated reply or a list of option scores) is stored under
``sha256(model id, method, input, parameters)``. Each write is committed on its own, so a run that is
interrupted resumes where it stopped; WAL mode lets several processes read while one writes.

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError

log = logging.getLogger(__name__)

ENV_VAR = "COAT_LLM_CACHE"
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
    """Return the cache file: ``$COAT_LLM_CACHE`` if set, else the user cache dir / ``llm-cache.sqlite``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    import platformdirs  # light, a core dependency; imported here to keep `import planner` minimal

    return Path(platformdirs.user_cache_dir("coat-planner")) / "llm-cache.sqlite"


class LLMCache:
    """A persistent key -> JSON value store for model calls.

    Args:
        path: SQLite file; defaults to :func:`default_cache_path`. Parent directories are created.

    Raises:
        DataError: when ``path`` exists but is not a readable SQLite cache. The file is left untouched
            (it might be something else the user pointed at by mistake); delete it to start afresh, or
            run without the cache (``--no-cache``).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by threads, guarded by a lock: sqlite3 connections are not thread-safe.
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            self._conn.execute("SELECT key, model_id, method, value, created FROM calls LIMIT 1").fetchall()
            self._conn.commit()
        except sqlite3.DatabaseError as exc:
            raise DataError(
                self.path,
                "",
                f"not a usable LLM cache ({exc}). Delete the file to start a fresh cache, point "
                f"${ENV_VAR} elsewhere, or run with --no-cache",
            ) from exc

    @staticmethod
    def make_key(model_id: str, method: str, payload: Any, params: Mapping[str, Any] | None = None) -> str:
        """Hash everything that determines a model's answer into a cache key.

        Args:
            model_id: Stable model identifier, e.g. ``"local:smollm2"``.
            method: ``"generate"``, ``"structured"`` or ``"score"``: the same input asked differently
                must not share an entry.
            payload: The input (messages, prompt and options); must be JSON-serialisable.
            params: Generation parameters (temperature, max tokens, seed, schema...).

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
        """Return the stored value for ``key``, or None on a miss."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any, *, model_id: str, method: str) -> None:
        """Store ``value`` (JSON-serialisable) under ``key`` and commit immediately."""
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO calls (key, model_id, method, value, created) VALUES (?, ?, ?, ?, ?)",
                (key, model_id, method, blob, time.time()),
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def clear(self) -> None:
        """Delete every entry."""
        with self._lock:
            self._conn.execute("DELETE FROM calls")
            self._conn.commit()

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
