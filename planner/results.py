"""Results on disk: the one writer every command's results go through, append-only and locked.

``coat eval`` and ``coat ablate`` (a row per question), ``coat bench tasks`` / ``understanding`` / ``directives``
(a row per episode, request or directive) and ``coat sciworld`` (a row per episode) append rows to a JSONL file
through :class:`ResultsFile`; ``coat train`` and ``coat datasets build``, which write whole files into a
directory, go through :class:`ResultsDir`. For both:

- **one run at a time**: the output is locked for the run (``fcntl.flock`` on the rows file, or on the directory);
  a second run on it is refused at once, naming the path;
- **one run per output**: the run's identity (:class:`RunIdentity`: a hash of the settings that decide the
  results, and a fingerprint of the question set, requests or data they are of) is recorded in a sidecar
  manifest, ``<rows file>.run.json`` beside a rows file, ``<directory>/results.run.json`` in a directory. A run with
  another identity is refused, naming both, and never mixes its results with the earlier ones;
- **nothing overwritten, nothing lost**: rows are only appended (a run that may not resume is refused rather than
  starting over). A last row that is complete without its line break is kept (the break is written before the
  next row); a torn last row, cut while being written, is dropped with a warning and redone; any other line that
  is not UTF-8, not JSON or not a JSON object is a :class:`~planner.errors.DataError` naming the file and line.

Example::

    ident = RunIdentity({"results": "my sweep", "seed": 0}, fingerprint=fingerprint(questions), of="question set")
    with ResultsFile("runs/sweep.jsonl", ident) as out:
        done = {r["id"] for r in out.rows}
        for q in questions:
            if q.id not in done:
                out.append({"id": q.id, "answer": answer(q)})
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import logging
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no advisory locks, one run per output is up to the user
    fcntl = None  # type: ignore[assignment]

from .errors import ConfigError, DataError
from .paths import MAX_ROWS_BYTES, read_json, scan_json_lines, writing

log = logging.getLogger(__name__)

RECORD_SUFFIX = ".run.json"
"""The sidecar of a rows file ``F`` is ``F.run.json``."""
DIR_RECORD = "results.run.json"
"""The sidecar of a results directory ``D`` is ``D/results.run.json``."""
RECORD_FORMAT = 1


def fingerprint(value: Any) -> str:
    """A short SHA-256 of a JSON-able value (sorted keys), e.g. of a question set or the data files' checksums."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def data_fingerprint(data_dir: str | os.PathLike[str] | None = None) -> str:
    """The fingerprint of the COAT files the planner reads (:func:`planner.paths.data_checksums`)."""
    from .paths import data_checksums

    return fingerprint(data_checksums(data_dir))


@dataclasses.dataclass(frozen=True)
class RunIdentity:
    """What a run's results are of: the settings that decide them, and the question set or data they answer.

    Two runs with the same identity make the same rows (up to timing), so one may resume the other.
    """

    config: Mapping[str, Any]
    """Every setting that changes a row (JSON-able); hashed into :attr:`config_hash`."""
    fingerprint: str | None = None
    """A fingerprint of the question set, requests or data (:func:`fingerprint`), when there is one."""
    of: str = "data"
    """What :attr:`fingerprint` is of, for messages: ``question set``, ``requests``, ``data``."""

    @property
    def config_hash(self) -> str:
        return fingerprint(dict(self.config))[:12]

    def record(self) -> dict[str, Any]:
        """The sidecar manifest's content."""
        return {"format": RECORD_FORMAT, "config_hash": self.config_hash, "fingerprint": self.fingerprint,
                "of": self.of, "config": json.loads(json.dumps(dict(self.config), sort_keys=True, default=str))}

    def matches(self, record: Mapping[str, Any]) -> bool:
        return record.get("config_hash") == self.config_hash and record.get("fingerprint") == self.fingerprint

    def describe(self) -> str:
        return f"config {self.config_hash}" + (f", {self.of} {self.fingerprint}" if self.fingerprint else "")


def _describe(record: Mapping[str, Any]) -> str:
    fp = record.get("fingerprint")
    return f"config {record.get('config_hash')}" + (f", {record.get('of', 'data')} {fp}" if fp else "")


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _differences(theirs: Mapping[str, Any], mine: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``key <theirs> there, <mine> here`` for every setting that differs (nested settings by their dotted key)."""
    out: list[str] = []
    for k in sorted(set(theirs) | set(mine)):
        a, b = theirs.get(k), mine.get(k)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{k}.")
        else:
            out.append(f"{prefix}{k} {_shown(a)} there, {_shown(b)} here")
    return out


def _mismatch(path: Path, record: Mapping[str, Any], ours: RunIdentity) -> ConfigError:
    """The refusal of a run whose identity is not the one recorded, naming both and what differs."""
    theirs = record.get("config") if isinstance(record.get("config"), dict) else {}
    mine = ours.record()["config"]
    diff = _differences(theirs, mine)
    if record.get("fingerprint") != ours.fingerprint:
        diff.append(f"another {ours.of}")
    shown = f" ({'; '.join(diff)})" if diff else ""
    return ConfigError(f"{path} holds the results of another run ({_describe(record)}); this run is "
                       f"{ours.describe()}{shown}. Resume only with the same settings and {ours.of}, or give "
                       "another --out")


def _read_record(path: Path) -> dict[str, Any] | None:
    """A sidecar manifest, or None when there is none."""
    if not path.exists():
        return None
    record = read_json(path)
    if not isinstance(record, dict) or not isinstance(record.get("config_hash"), str):
        raise DataError(path, "config_hash", "not the record of a run (a JSON object with a config_hash); move it "
                        "away, with the results beside it, or give another --out")
    return record


def _write_record(path: Path, identity: RunIdentity) -> None:
    """Write a sidecar manifest whole (a temporary file renamed over it)."""
    tmp = path.with_name(path.name + ".tmp")
    with writing(tmp):
        tmp.write_text(json.dumps(identity.record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _lock(fd: int, path: Path) -> None:
    """Take the exclusive lock on an open output, or refuse at once: a second writer would duplicate results."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise ConfigError(f"{path}: another run holds it (it is locked while that run writes); wait for that "
                              "run to finish, or give this one another --out") from None
        raise ConfigError(f"{path}: cannot be locked ({e.strerror}); give an --out on a local disk") from None


def _read_fd(fd: int, path: Path, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    os.lseek(fd, 0, os.SEEK_SET)
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise ConfigError(f"{path}: larger than {limit:,} bytes; that is more than a results file holds")
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_KINDS = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO (named pipe)",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


class ResultsFile:
    """A JSONL rows file, appended to under a lock by the run of one :class:`RunIdentity`.

    Use it as a context manager: entering locks the file, checks the identity, repairs the end of the file and reads
    the earlier rows (:attr:`rows`); :meth:`append` writes a row at once (a run stopped later keeps it); leaving
    releases the lock. A command that learns its identity only after loading (a question set) calls :meth:`lock`
    first and :meth:`open` with the identity later.

    Args:
        path: The rows file (created with its parent directories when missing).
        identity: This run's identity, recorded in ``<path>.run.json`` (or given to :meth:`open`).
        resume: Whether the run may add to rows already there (of the same identity); False refuses them.
        what: What one row is, for messages ("question row", "episode row").
        refuse_hint: What to do instead, said when ``resume`` is False and the file has rows.
        sort_keys: Write a mapping row with sorted keys.
        limit: The largest file read.

    Raises (on entering):
        ConfigError: another run holds the file; it holds rows of another identity, or rows without a record of
            their run, or rows while ``resume`` is False; it is a device, FIFO or socket, or too large.
        DataError: a line that is not UTF-8, not JSON or not a JSON object (naming the file and line), or a
            sidecar that is not a run's record.
    """

    def __init__(self, path: str | os.PathLike[str], identity: RunIdentity | None = None, *, resume: bool = True,
                 what: str = "row", refuse_hint: str = "pass --resume to add only the missing ones",
                 sort_keys: bool = False, limit: int = MAX_ROWS_BYTES) -> None:
        self.path = Path(path)
        self.record_path = self.path.with_name(self.path.name + RECORD_SUFFIX)
        self.identity = identity
        self.resume = resume
        self.what = what
        self.refuse_hint = refuse_hint
        self.sort_keys = sort_keys
        self.limit = limit
        self.rows: list[dict[str, Any]] = []
        """The rows already in the file when it was opened, in file order (a torn last row left out)."""
        self.line_numbers: list[int] = []
        """The line of each of :attr:`rows` in the file, for messages."""
        self.dropped: int | None = None
        """The line number of a torn last row that was dropped, None when there was none."""
        self.appended = 0
        self._fd: int | None = None
        self._opened = False

    def __enter__(self) -> ResultsFile:
        if self.identity is not None:
            self.open()
        else:
            self.lock()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def lock(self) -> ResultsFile:
        """Take the file's lock (creating it when missing) without reading it yet: a command locks its output
        before loading anything, so a second run on it is refused at once. :meth:`open` does the rest."""
        if self._fd is not None:
            return self
        p = self.path
        if p.is_dir():
            raise ConfigError(f"{p}: is a directory, not a regular file; give a file for the results")
        with writing(p):
            p.parent.mkdir(parents=True, exist_ok=True)
            # without blocking: a FIFO opens and is refused below, instead of waiting for a reader
            fd = os.open(p, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
                raise ConfigError(f"{p}: is {kind}, not a regular file; give a file for the results")
            _lock(fd, p)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def open(self, identity: RunIdentity | None = None) -> list[dict[str, Any]]:
        """Lock the file, check the identity (``identity``, or the one given when made), repair its end; the
        earlier rows (see the class)."""
        if self._opened:
            return self.rows
        self.identity = identity or self.identity
        if self.identity is None:
            raise TypeError("ResultsFile.open needs the run's identity")
        fd = self.lock()._fd
        assert fd is not None
        p = self.path
        try:
            found = scan_json_lines(_read_fd(fd, p, self.limit), p, what=self.what, torn_last=True)
            self._check(len(found.rows))
            with writing(p):
                if found.torn is not None:  # stopped while writing it: the row is redone
                    log.warning("%s: line %d is a row cut short (the run was stopped while writing it); dropped, "
                                "it is done again", p, found.torn)
                    os.ftruncate(fd, found.end)
                elif found.unterminated:  # a complete row without its line break: kept, the next row on its own
                    _write_all(fd, b"\n")
        except BaseException:
            self.close()
            raise
        self._opened = True
        self.rows = [row for _, row in found.rows]
        self.line_numbers = [n for n, _ in found.rows]
        self.dropped = found.torn
        return self.rows

    def _check(self, n_rows: int) -> None:
        """Refuse a run that would mix or overwrite results; record this run's identity where none is due."""
        assert self.identity is not None
        record = _read_record(self.record_path)
        if n_rows:
            if record is None:
                raise ConfigError(f"{self.path} holds {n_rows} rows but no record of the run that wrote them "
                                  f"({self.record_path.name} is missing: an older coat wrote them, or they were "
                                  "copied without it); move the file away or give another --out")
            if not self.identity.matches(record):
                raise _mismatch(self.path, record, self.identity)
            if not self.resume:
                raise ConfigError(f"{self.path} already holds {n_rows} rows of this run; refusing to overwrite them: "
                                  f"{self.refuse_hint}, or give another --out")
        if record is None or not self.identity.matches(record):  # nothing to mix: this run's record
            _write_record(self.record_path, self.identity)

    def append(self, row: Any) -> None:
        """Write one row (a mapping, or a pydantic model) as a JSON line, at once."""
        if not self._opened or self._fd is None:
            raise RuntimeError("ResultsFile.append before open(); use it as a context manager")
        if hasattr(row, "model_dump_json"):
            line = row.model_dump_json()
        elif isinstance(row, Mapping):
            line = json.dumps(row, sort_keys=self.sort_keys)
        else:
            raise TypeError(f"a results row is a mapping or a pydantic model, not {type(row).__name__}")
        with writing(self.path):
            _write_all(self._fd, (line + "\n").encode("utf-8", "surrogateescape"))
        self.appended += 1

    def close(self) -> None:
        """Release the lock (closing the file)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._opened = False


def _lock_dir(path: Path) -> int:
    """Create ``path`` when missing and lock it; the open descriptor (closing it releases the lock)."""
    with writing(path):
        path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        _lock(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def locked_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the lock on an output directory (created when missing) for a run that writes several rows files into
    it (``coat ablate``), or before loading what a :class:`ResultsDir` in it needs (``coat train``), so a second run
    on it is refused at once.

    Raises:
        ConfigError: another run holds it.
    """
    p = Path(path)
    fd = _lock_dir(p)
    key = p.resolve()
    _HELD[key] = fd
    try:
        yield p
    finally:
        del _HELD[key]
        os.close(fd)


_HELD: dict[Path, int] = {}
"""Directories this process holds through :func:`locked_dir`: a :class:`ResultsDir` entered inside shares that
lock (a command locks its output before loading the data the run's identity needs)."""


def _held_or_lock(path: Path) -> int:
    """A descriptor holding ``path``'s lock: a duplicate of this process's own when it holds it already (the lock
    stays until every duplicate is closed), else a new lock."""
    held = _HELD.get(path.resolve()) if path.exists() else None
    return os.dup(held) if held is not None else _lock_dir(path)


class ResultsDir:
    """A directory of results written whole (trained models, question files), locked for the run of one identity.

    Entering locks the directory (created when missing), then asks ``survey(path)`` what it holds: whether it has
    results, and the identity they were made with when it can be read from them (an older run's manifest; None when
    not known). The identity recorded in ``<dir>/results.run.json`` comes first. A directory holding results of
    another identity, or of none known, is refused, naming both; one of the same identity is resumed
    (:attr:`resumed`: the caller keeps what is there and writes only what is missing).

    Raises (on entering):
        ConfigError: another run holds the directory, or it holds results of another identity (or of none known).
    """

    def __init__(self, path: str | os.PathLike[str], identity: RunIdentity, *,
                 survey: Callable[[Path], tuple[bool, RunIdentity | None]] | None = None) -> None:
        self.path = Path(path)
        self.record_path = self.path / DIR_RECORD
        self.identity = identity
        self.survey = survey
        self.resumed = False
        self._fd: int | None = None

    def __enter__(self) -> ResultsDir:
        p = self.path
        fd = _held_or_lock(p)
        try:
            has_results, earlier = self.survey(p) if self.survey is not None else (False, None)
            record = _read_record(self.record_path)
            if has_results:
                if record is None and earlier is None:
                    raise ConfigError(f"{p} holds results but no record of the run that wrote them ({DIR_RECORD} is "
                                      "missing); move them away or give another --out")
                known = record if record is not None else earlier.record()  # type: ignore[union-attr]
                if not self.identity.matches(known):
                    raise _mismatch(p, known, self.identity)
            self.resumed = has_results
            if record is None or not self.identity.matches(record):  # nothing to mix: this run's record
                _write_record(self.record_path, self.identity)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def read_results(path: str | os.PathLike[str], *, what: str = "row") -> list[dict[str, Any]]:
    """The rows of a results file, read without writing ([] when it does not exist); a torn last row is left out.

    Raises:
        DataError: a line that is not UTF-8, not JSON or not a JSON object, naming the file and the line.
        ConfigError: a device, FIFO or a file too large.
    """
    return [row for _, row in read_numbered(path, what=what)]


def read_numbered(path: str | os.PathLike[str], *, what: str = "row") -> list[tuple[int, dict[str, Any]]]:
    """:func:`read_results` with each row's line number."""
    from .paths import read_json_lines

    p = Path(path)
    if not p.exists():
        return []
    return read_json_lines(p, what=what, torn_last=True)


__all__ = ["DIR_RECORD", "RECORD_SUFFIX", "ResultsDir", "ResultsFile", "RunIdentity", "data_fingerprint",
           "fingerprint", "locked_dir", "read_numbered", "read_results"]
