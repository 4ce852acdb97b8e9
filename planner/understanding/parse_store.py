"""The parses earlier processes made, kept on disk, so a text parsed once is never parsed again on this machine.

Importing spaCy and loading its English pipeline costs about a second, several times the rest of a first plan. A
parse is a pure function of the text, of the pipeline and of the code that reads the pipeline's output into a
:class:`~planner.understanding.parse.Parse`, so it is kept in one SQLite table in the reader cache (the folder
that also keeps the reader's embeddings: ``$COAT_READER_CACHE`` or the user cache dir / ``reader``; ``off`` keeps
nothing), under a version that hashes all three: ``parse.py`` and this module, spaCy's and thinc's ``about.py`` and the
pipeline's ``meta.json``, read from disk without importing them. Another spaCy, another pipeline or a change to
``parse.py`` starts a new version: the first process of a version deletes the parses of the others, so the file does
not grow with each upgrade.

A cache, never an answer: a file that is not the store (damaged before it was opened or while it is open) is removed
and rebuilt; a busy or unwritable one costs time only (the text is parsed again), and a parse comes from here only
when the same text was parsed by the same pipeline and the same code. A forked child opens connections of its own.
When spaCy or its pipeline is not installed there is no version, and the parse raises the usual error naming the
install line.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .parse import Parse

FILE = "parses.sqlite"
TIMEOUT = 5.0
"""Seconds to wait for a store another process is writing before parsing without it."""
_SCHEMA = "CREATE TABLE IF NOT EXISTS parses (version TEXT, text TEXT, value TEXT, PRIMARY KEY (version, text))"


def _package_file(package: str, name: str) -> bytes | None:
    """A file of an installed package, read without importing it (None: not installed)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or ()) if spec else []
    for place in places:
        path = Path(place) / name
        if path.is_file():
            return path.read_bytes()
    return None


@lru_cache(maxsize=1)
def version() -> str | None:
    """The hash of what a parse depends on besides its text (None: spaCy or the pipeline is not installed)."""
    from .parse import MODEL

    parts = [Path(__file__).with_name("parse.py").read_bytes(), Path(__file__).read_bytes(),
             _package_file("spacy", "about.py"),
             _package_file("thinc", "about.py"), _package_file(MODEL, "meta.json")]
    if any(p is None for p in parts):
        return None
    digest = hashlib.sha256()
    for p in parts:
        digest.update(hashlib.sha256(p or b"").digest())
    return digest.hexdigest()[:32]


def _root() -> Path | None:
    from ..config import reader_cache_dir

    return reader_cache_dir()


def _encode(p: Parse) -> str:
    return json.dumps([[list(t) for t in p.tokens], [list(c) for c in p.clauses]], separators=(",", ":"))


def _decode(text: str, value: str) -> Parse:
    from .parse import Parse, Token

    tokens, clauses = json.loads(value)
    return Parse(text, tuple(Token(*t) for t in tokens), tuple(tuple(c) for c in clauses))


_DAMAGE = ("not a database", "malformed", "no such table")
"""What SQLite says of a file that is not (or no longer) the store: it is removed and rebuilt."""
_LOCK = threading.Lock()
_DBS: dict[Path, sqlite3.Connection] = {}
"""One connection per store, shared by the process's threads under :data:`_LOCK`."""
_INHERITED: list[sqlite3.Connection] = []
"""A forked child's copies of its parent's connections: never used, and kept from being closed (SQLite's rule)."""


def _after_fork() -> None:
    """In a forked child: a new lock (the parent's may have been held by another thread) and connections of its own."""
    global _LOCK
    _LOCK = threading.Lock()
    _INHERITED.extend(_DBS.values())
    _DBS.clear()


os.register_at_fork(after_in_child=_after_fork)


def _connect(path: Path, v: str) -> sqlite3.Connection:
    """The store's connection (a cache needs no flush to disk on every write); the first one of a process deletes
    the parses of other versions, which are never read again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=TIMEOUT, check_same_thread=False)
    try:
        db.execute("PRAGMA synchronous = OFF")
        db.execute(_SCHEMA)
        if db.execute("SELECT 1 FROM parses WHERE version != ? LIMIT 1", (v,)).fetchone():
            with db:
                db.execute("DELETE FROM parses WHERE version != ?", (v,))
    except sqlite3.Error:
        db.close()
        raise
    return db


def _drop(path: Path) -> None:
    """Close the damaged store at ``path`` and remove it, to be rebuilt."""
    db = _DBS.pop(path, None)
    if db is not None:
        with contextlib.suppress(sqlite3.Error):
            db.close()
    for stale in (path, path.with_name(f"{FILE}-journal")):
        stale.unlink(missing_ok=True)


_T = TypeVar("_T")


def _use(work: Callable[[sqlite3.Connection, str], _T], default: _T) -> _T:
    """``work(store, version)`` under :data:`_LOCK`, or ``default`` when nothing is kept or the store cannot be
    used (busy, unwritable). A store found damaged, when opened or any time later, is removed and rebuilt once."""
    root, v = _root(), version()
    if root is None or v is None:
        return default
    path = root / FILE
    for attempt in range(2):
        try:
            with _LOCK:
                db = _DBS.get(path)
                if db is None:
                    db = _DBS[path] = _connect(path, v)
                return work(db, v)
        except sqlite3.Error as e:
            if attempt or not any(d in str(e) for d in _DAMAGE):
                return default
            try:
                with _LOCK:
                    _drop(path)
            except OSError:
                return default
        except OSError:
            return default
    return default


def load(texts: Iterable[str]) -> dict[str, Parse]:
    """The kept parses of those texts that have one."""
    wanted = list(dict.fromkeys(texts))

    def read(db: sqlite3.Connection, v: str) -> dict[str, Parse]:
        out: dict[str, Parse] = {}
        for i in range(0, len(wanted), 500):
            chunk = wanted[i:i + 500]
            rows = db.execute(f"SELECT text, value FROM parses WHERE version = ? AND text IN "
                              f"({','.join('?' * len(chunk))})", (v, *chunk)).fetchall()
            for text, value in rows:
                try:
                    out[text] = _decode(text, value)
                except (ValueError, TypeError):  # a damaged row is parsed again (and written over)
                    pass
        return out

    return _use(read, {}) if wanted else {}


def save(parses: Iterable[Parse]) -> None:
    """Keep the parses (nothing happens when the store cannot be written)."""
    rows = list(parses)

    def write(db: sqlite3.Connection, v: str) -> None:
        with db:
            db.executemany("INSERT OR REPLACE INTO parses VALUES (?, ?, ?)", [(v, p.text, _encode(p)) for p in rows])

    if rows:
        _use(write, None)


__all__ = ["FILE", "load", "save", "version"]
