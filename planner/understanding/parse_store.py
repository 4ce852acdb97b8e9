"""The parses earlier processes made, kept on disk, so a text parsed once is never parsed again on this machine.

Importing spaCy and loading its English pipeline costs about a second, several times the rest of a first plan. A
parse is a pure function of the text, of the pipeline and of the code that reads the pipeline's output into a
:class:`~planner.understanding.parse.Parse`, so it is kept in one SQLite table in the reader cache (the folder
that also keeps the reader's embeddings: ``$COAT_READER_CACHE`` or the user cache dir / ``reader``; ``off`` keeps
nothing), under a version that hashes all three: ``parse.py`` and this module, spaCy's and thinc's ``about.py`` and the
pipeline's ``meta.json``, read from disk without importing them. Another spaCy, another pipeline or a change to
``parse.py`` starts a new version, and old entries are never read again.

A cache, never an answer: a file that is not a database is removed and rebuilt; a busy, damaged or unwritable one
costs time only (the text is parsed again), and a parse comes from here only when the same text was parsed by the
same pipeline and the same code. When spaCy or
its pipeline is not installed there is no version, and the parse raises the usual error naming the install line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sqlite3
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

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
    from ..config import current_settings

    return current_settings().reader_cache_dir()


def _encode(p: Parse) -> str:
    return json.dumps([[list(t) for t in p.tokens], [list(c) for c in p.clauses]], separators=(",", ":"))


def _decode(text: str, value: str) -> Parse:
    from .parse import Parse, Token

    tokens, clauses = json.loads(value)
    return Parse(text, tuple(Token(*t) for t in tokens), tuple(tuple(c) for c in clauses))


_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _connect(path: Path, pid: int) -> sqlite3.Connection:
    """One connection per store and process (``pid``: a forked worker opens its own), shared by its threads under
    :data:`_LOCK`; a cache needs no flush to disk on every write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=TIMEOUT, check_same_thread=False)
    try:
        db.execute("PRAGMA synchronous = OFF")
        db.execute(_SCHEMA)
    except sqlite3.Error:
        db.close()
        raise
    return db


def _open() -> tuple[sqlite3.Connection, str] | None:
    """The store and the version to read and write (None: nothing is kept, or the store cannot be opened)."""
    root, v = _root(), version()
    if root is None or v is None:
        return None
    path = root / FILE
    try:
        return _connect(path, os.getpid()), v
    except sqlite3.DatabaseError as e:
        if "not a database" not in str(e):  # busy (another process writes), or anything else: no store this time
            return None
    except OSError:
        return None
    try:  # not a database: a cache is rebuilt
        for stale in (path, path.with_name(f"{FILE}-journal")):
            stale.unlink(missing_ok=True)
        return _connect(path, os.getpid()), v
    except (sqlite3.Error, OSError):
        return None


def load(texts: Iterable[str]) -> dict[str, Parse]:
    """The kept parses of those texts that have one."""
    wanted = list(dict.fromkeys(texts))
    opened = _open() if wanted else None
    if opened is None:
        return {}
    db, v = opened
    out: dict[str, Parse] = {}
    try:
        with _LOCK:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                rows = db.execute(f"SELECT text, value FROM parses WHERE version = ? AND text IN "
                                  f"({','.join('?' * len(chunk))})", (v, *chunk)).fetchall()
                for text, value in rows:
                    try:
                        out[text] = _decode(text, value)
                    except (ValueError, TypeError):  # a damaged row is parsed again (and written over)
                        pass
    except sqlite3.Error:
        return out
    return out


def save(parses: Iterable[Parse]) -> None:
    """Keep the parses (nothing happens when the store cannot be written)."""
    rows = [p for p in parses]
    opened = _open() if rows else None
    if opened is None:
        return
    db, v = opened
    try:
        with _LOCK, db:
            db.executemany("INSERT OR REPLACE INTO parses VALUES (?, ?, ?)",
                           [(v, p.text, _encode(p)) for p in rows])
    except sqlite3.Error:
        pass


__all__ = ["FILE", "load", "save", "version"]
