"""Where the COAT annotations and AI2-THOR reference data live.

The project never ships this data. It is found, in order, at:

1. the ``--data-dir`` option (``data_dir=`` argument), or the data directory of the running command or API call
   (:func:`use_data_dir`: a reader given no directory of its own),
2. the ``COAT_DATA_DIR`` environment variable,
3. the user cache directory (``coat data download`` fills it).

A data directory has ``coat/`` (the COAT annotations) and, for scenes and perception, ``ai2thor/``.

One run reads one data directory: ``coat ... --data-dir D`` and ``plan(..., data_dir=D)`` (or a knowledge base
loaded from ``D``) make ``D`` the directory of every reader inside, the scene files and the checker's replays
included, whatever ``COAT_DATA_DIR`` says; a reader asked for another directory inside that run is refused.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import TypeAdapter, ValidationError

from .errors import ConfigError, DataError, DataNotFoundError

ENV_VAR = "COAT_DATA_DIR"

COAT_FILES: tuple[str, ...] = (
    "utilities.json",
    "tasks.json",
    "objects.json",
    "oracle.json",
    "templates.json",
    "task-1/common_var_responses.json",
    "task-1/possible_configurations_v1.json",
    "task-1/pouch_config_oracle.json",
    "task-2/pouch_suboptimal.json",
    "task-2/material_preference.json",
)
"""Files under ``coat/`` that the knowledge base needs."""


def user_cache_dir() -> Path:
    """The per-user cache directory of coat-planner (data, models, model replies, reader embeddings)."""
    import platformdirs  # light, a core dependency; imported here to keep `import planner` minimal

    return Path(platformdirs.user_cache_dir("coat-planner"))


def cache_data_dir() -> Path:
    """The per-user cache directory that ``coat data download`` writes to."""
    return user_cache_dir() / "data"


def expand_user(path: str | os.PathLike[str], what: str = "path") -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded.

    Raises:
        ConfigError: naming ``what`` and the path when ``~user`` names no user (or ``~`` has no home directory),
            instead of the RuntimeError pathlib raises.
    """
    p = Path(path)
    try:
        return p.expanduser()
    except RuntimeError:
        head = p.parts[0] if p.parts else str(p)
        raise ConfigError(f"{what} {str(p)!r}: {head!r} names no user with a home directory here; "
                          "give the full path") from None


_RUN_DATA_DIR: contextvars.ContextVar[Path | None] = contextvars.ContextVar("coat_run_data_dir", default=None)
"""The data directory of the running command or API call (:func:`use_data_dir`); None outside one."""
RUN_ORIGIN = "data directory of this run"
"""How :func:`candidate_dirs` names the run's directory (``--data-dir`` or ``data_dir=`` of the call)."""


def run_data_dir() -> Path | None:
    """The data directory of the running command or API call (:func:`use_data_dir`), None outside one."""
    return _RUN_DATA_DIR.get()


def same_dir(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when ``a`` and ``b`` name one directory (``~`` expanded, symlinks and relative parts resolved)."""
    pa, pb = os.path.abspath(expand_user(a)), os.path.abspath(expand_user(b))
    if pa == pb:
        return True
    try:
        return os.path.realpath(pa) == os.path.realpath(pb)
    except (OSError, ValueError):  # a name the system cannot encode (a lone surrogate): only the text can tell
        return False


@contextlib.contextmanager
def use_data_dir(data_dir: str | os.PathLike[str] | None) -> Iterator[Path | None]:
    """Make ``data_dir`` the one data directory of everything run inside the block.

    Every reader given no directory of its own (``resolve_data_dir(None)``: the knowledge base, the FloorPlan scene
    files, the checker's replays, perception's priors) resolves to it, before ``COAT_DATA_DIR`` and the user
    cache; a reader given another directory is refused. The command line enters it once per command with
    ``--data-dir``, the API once per call with ``data_dir=`` (or the knowledge base's directory). It is a context
    variable: a thread started inside sees it only when run in a copy of the context
    (``contextvars.copy_context().run``).

    Args:
        data_dir: The run's data root; None keeps the current one (or none).

    Yields:
        The run's data directory (None when there is none).

    Raises:
        ConfigError: ``data_dir`` differs from the directory the enclosing run already reads (two data
            directories in one run would mix their data); ``~user`` that names no user.

    Example:
        >>> with use_data_dir("/data/coat-data"):                       # doctest: +SKIP
        ...     kb = load_knowledge()          # /data/coat-data/coat, whatever $COAT_DATA_DIR says
    """
    active = _RUN_DATA_DIR.get()
    if data_dir is None:
        yield active
        return
    path = expand_user(data_dir, "--data-dir").absolute()
    if active is not None:
        _check_run_dir(path)
        yield active
        return
    token = _RUN_DATA_DIR.set(path)
    try:
        yield path
    finally:
        _RUN_DATA_DIR.reset(token)


def _check_run_dir(path: Path) -> None:
    """Refuse a directory other than the run's (ConfigError naming both)."""
    active = _RUN_DATA_DIR.get()
    if active is not None and not same_dir(active, path):
        raise ConfigError(f"this run reads its data from {active} (--data-dir / data_dir=), not {path}: one run "
                          "reads one data directory. Pass the same directory, or run the two apart")


def candidate_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """Return the (origin, path) pairs searched, in resolution order.

    Raises:
        ConfigError: ``data_dir`` differs from the data directory of the running command (:func:`use_data_dir`).
    """
    out: list[tuple[str, Path]] = []
    run = _RUN_DATA_DIR.get()
    if data_dir is not None:
        path = expand_user(data_dir, "--data-dir")
        _check_run_dir(path)
        out.append(("--data-dir", path))
    elif run is not None:
        out.append((RUN_ORIGIN, run))
    env = os.environ.get(ENV_VAR)
    if env:
        out.append((ENV_VAR, expand_user(env, ENV_VAR)))
    out.append(("user cache", cache_data_dir()))
    return out


def _missing(root: Path, sub: str, files: tuple[str, ...]) -> list[str]:
    return [f for f in files if not (root / sub / f).is_file()]


def resolve_data_dir(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    need: str = "coat",
    files: tuple[str, ...] | None = None,
) -> Path:
    """Return the first data directory that has everything ``need`` requires.

    An explicit ``data_dir`` is authoritative: when it is given but incomplete, the environment variable
    and the cache are not tried, so a typo never silently falls back to other data. So is the data directory of
    the running command or API call (:func:`use_data_dir`) when ``data_dir`` is None.

    Args:
        data_dir: Explicit directory (the ``--data-dir`` option), or None (the run's, else the environment
            variable's, else the cache).
        need: Sub-directory that must be present: ``"coat"`` or ``"ai2thor"``.
        files: Files that must exist under ``<root>/<need>/``; defaults to COAT_FILES for ``"coat"``.

    Returns:
        The data root (the directory that contains ``coat/`` and ``ai2thor/``).

    Raises:
        DataNotFoundError: naming every directory searched, what was missing, and the fix.
        ConfigError: ``data_dir`` differs from the data directory of the running command or call.
    """
    required = files if files is not None else (COAT_FILES if need == "coat" else ())
    searched: list[str] = []
    cands = candidate_dirs(data_dir)
    if cands[0][0] in ("--data-dir", RUN_ORIGIN):
        cands = cands[:1]
    for origin, root in cands:
        if not (root / need).is_dir():
            searched.append(f"  {root} ({origin}): no {need}/ directory")
            continue
        missing = _missing(root, need, required)
        if not missing:
            return root
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        searched.append(f"  {root} ({origin}): {need}/ is incomplete, missing {shown}")
    raise DataNotFoundError(
        f"COAT planner data ({need}/) not found. Searched:\n"
        + "\n".join(searched)
        + f"\nFix: run `coat data download`, or point --data-dir / {ENV_VAR} at a directory holding {need}/."
    )


# ---------------------------------------------------------------- reading the data files


def _json_path_at(text: str, pos: int) -> str:
    """Return the key path (``a/b/3``) of the JSON value being read at character ``pos``.

    Used to name where a truncated or malformed file breaks; it scans the text once, tracking the
    open objects/arrays, the last key read in each object and the element index in each array.
    """
    stack: list[list[Any]] = []  # [kind, key_or_index, expecting_key]
    i, n = 0, min(pos, len(text))
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if stack and stack[-1][0] == "{" and stack[-1][2]:
                try:
                    stack[-1][1] = json.loads(text[i : j + 1])
                except ValueError:
                    stack[-1][1] = text[i + 1 : j]
                stack[-1][2] = False
            i = j + 1
            continue
        if ch == "{":
            stack.append(["{", None, True])
        elif ch == "[":
            stack.append(["[", 0, False])
        elif ch in "}]":
            if stack:
                stack.pop()
        elif ch == "," and stack:
            if stack[-1][0] == "[":
                stack[-1][1] += 1
            else:
                stack[-1][2] = True
        i += 1
    return "/".join(str(f[1]) for f in stack if f[1] is not None)


_HUGE_NUMBER = re.compile(r"[eE]\+?\d{3,}|\d{300,}")
"""Text that may hold a number beyond a float's range (1.8e308), which parses as infinity."""
_ZERO_DIGITS = bytes.maketrans(b"123456789E", b"000000000e")


def _may_hold_huge_number(raw: bytes) -> bool:
    """Whether JSON bytes may hold a number beyond a float's range: :data:`_HUGE_NUMBER` for the ASCII digits JSON
    numbers are written in, as byte searches (a 2 MB file: 2 ms instead of 180 ms)."""
    t = raw.translate(_ZERO_DIGITS)
    return b"e000" in t or b"e+000" in t or b"0" * 300 in t


class _NonFinite(ValueError):
    """NaN or Infinity in JSON text (Python's json reads them; they are not JSON)."""


def _no_constant(name: str) -> Any:
    raise _NonFinite(name)


def _non_finite_at(doc: Any) -> list[Any] | None:
    """The key path of the first infinite or NaN float in a parsed document, None when every number is finite."""
    stack: list[tuple[list[Any], Any]] = [([], doc)]
    while stack:
        where, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return where
        if isinstance(v, dict):
            stack += [([*where, k], x) for k, x in v.items()]
        elif isinstance(v, list):
            stack += [([*where, i], x) for i, x in enumerate(v)]
    return None


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Name ``path`` in an OSError raised inside (a full disk, ``ulimit -f``: the system names no file), so the
    command line reports it as a one-line error naming the file."""
    try:
        yield
    except OSError as e:
        if e.filename is None:
            e.filename = str(path)
        raise


MAX_DATA_BYTES = 256 * 2**20
"""Largest data file read (a floorplan is about 1 MB, a trace event a few MB)."""
MAX_ROWS_BYTES = 2**30
"""Largest results or requests file read (an evaluation of every question is tens of MB)."""

_KINDS = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO (named pipe)",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def read_bounded(path: str | os.PathLike[str], *, limit: int = MAX_DATA_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    A device (``/dev/zero`` would be read forever), a FIFO (a read would wait for a writer), a socket or a
    directory is refused before anything is read; the file is opened without blocking, so a FIFO is seen as one.

    Raises:
        ConfigError: not a regular file, or larger than ``limit``; the message names the path.
        OSError: the file cannot be opened (with its name: the CLI's one-line error).
    """
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise ConfigError(f"{p}: is {kind}, not a regular file; give a file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"{p}: larger than {limit:,} bytes; that is more than a file of this kind holds")
    return data


def read_lines(path: str | os.PathLike[str], *, limit: int = MAX_ROWS_BYTES) -> list[tuple[int, str]]:
    """``(line number, text)`` of every non-blank line of a UTF-8 text file read with :func:`read_bounded`.

    Raises:
        DataError: a line that is not UTF-8, naming the file and the line.
        ConfigError: a device, FIFO or a file over ``limit``.
    """
    out: list[tuple[int, str]] = []
    for i, raw in enumerate(read_bounded(path, limit=limit).split(b"\n"), 1):
        if raw.strip():
            try:
                out.append((i, raw.decode("utf-8")))
            except UnicodeDecodeError as e:
                raise DataError(path, f"line {i}", f"not UTF-8 text (byte {e.start + 1} of the line)") from None
    return out


@dataclasses.dataclass(frozen=True)
class JsonLines:
    """What :func:`scan_json_lines` found in the bytes of a JSONL file."""

    rows: list[tuple[int, dict[str, Any]]]
    """``(line number, object)`` of every complete row, in file order."""
    end: int
    """Bytes of the file that hold those rows: a torn last line starts here."""
    torn: int | None = None
    """The line number of a torn last line (not kept), None when there is none."""
    unterminated: bool = False
    """The last row is complete but has no line break after it (one must be written before appending)."""


def scan_json_lines(data: bytes, path: str | os.PathLike[str], *, what: str = "row",
                    torn_last: bool = False) -> JsonLines:
    """The rows of a JSONL file's bytes: one JSON object per non-blank line.

    Only the last line can be torn (a run stopped while writing it), and only when no line break follows it: with
    ``torn_last``, such a line cut short, inside a character or inside a JSON object (it starts with ``{`` and does
    not parse), is left out (:attr:`JsonLines.torn`); a complete row there is kept (:attr:`JsonLines.unterminated`).
    Anything else there is refused like any other line: no row was ever written that way.

    Raises:
        DataError: any other line that is not UTF-8, not JSON or not a JSON object (``[]``, ``null``, a number),
            naming the file and the line.
    """
    lines = data.split(b"\n")
    rows: list[tuple[int, dict[str, Any]]] = []
    start = 0
    for i, raw in enumerate(lines, 1):
        last = i == len(lines)  # the bytes after the last line break: a line still being written when cut
        if raw.strip():
            try:
                value = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                if last and torn_last and e.reason == "unexpected end of data":  # cut inside a multi-byte character
                    return JsonLines(rows, start, torn=i)
                raise DataError(path, f"line {i}", f"not UTF-8 text (byte {e.start + 1} of the line)") from None
            except json.JSONDecodeError as e:
                if last and torn_last and raw.lstrip().startswith(b"{"):  # a row cut short
                    return JsonLines(rows, start, torn=i)
                raise DataError(path, f"line {i}", f"not valid JSON ({e.msg} at column {e.colno})") from None
            if not isinstance(value, dict):
                raise DataError(path, f"line {i}", f"expected a JSON object (one {what}), got "
                                f"{type(value).__name__} {json.dumps(value)[:40]}")
            rows.append((i, value))
        start += len(raw) + (0 if last else 1)
    return JsonLines(rows, len(data), unterminated=bool(lines[-1].strip()))


def read_json_lines(path: str | os.PathLike[str], *, what: str = "row", torn_last: bool = False,
                    limit: int = MAX_ROWS_BYTES) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of every non-blank line of a JSONL file (results, requests).

    Args:
        path: The file (read with :func:`read_bounded`).
        what: What one line holds, for messages ("result row", "request").
        torn_last: Skip a last line cut short (not UTF-8 or not JSON, with no line break after it: a run
            interrupted while writing it) instead of refusing; see :func:`scan_json_lines`.
        limit: Largest file read.

    Raises:
        DataError: a line that is not UTF-8, not JSON or not a JSON object (``[]``, ``null``, a number), naming
            the file and the line.
        ConfigError: a device, FIFO or a file over ``limit`` (see :func:`read_bounded`).
    """
    return scan_json_lines(read_bounded(path, limit=limit), path, what=what, torn_last=torn_last).rows


def read_json(path: Path, *, missing: str = "file is missing (run `coat data download`)") -> Any:
    """Parse a data file's JSON; an unreadable, non-UTF-8, malformed or truncated file is a DataError naming the
    file and, for malformed JSON, the key path where it breaks.

    The parser is pydantic-core's (the same values as :func:`json.loads`, about twice as fast, and it refuses
    nesting deeper than a limit instead of overflowing the stack). ``NaN``, ``Infinity`` and numbers too large
    for a float are refused too: no data file holds them, and they would pass every range check unnoticed.
    """
    try:
        raw = read_bounded(path)
        text = raw.decode("utf-8")
    except FileNotFoundError as e:
        raise DataError(path, "", missing) from e
    except ConfigError as e:  # a device, a FIFO, a file too large
        raise DataError(path, "", str(e).removeprefix(f"{path}: ")) from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(path, "", f"cannot read the file as UTF-8 text: {e}") from e
    try:
        doc = pydantic_core.from_json(text, allow_inf_nan=False)  # NaN and Infinity are not JSON numbers
    except ValueError as e:
        msg = str(e)
    else:
        if _may_hold_huge_number(raw):  # 1e400 parses as inf: no number in a data file may be infinite
            where = _non_finite_at(doc)
            if where is not None:
                raise DataError(path, "/".join(map(str, where)), "a number too large to hold (it reads as infinity)")
        return doc
    try:  # where it breaks, as a key path: json's decoder reports the position
        json.loads(text, parse_constant=_no_constant)
    except _NonFinite as e:
        raise DataError(path, "", f"{e} is not a number a data file may hold ({msg})") from None
    except json.JSONDecodeError as e:
        truncated = " (the file looks truncated)" if e.pos >= len(text.rstrip()) else ""
        raise DataError(path, _json_path_at(text, e.pos),
                        f"invalid JSON{truncated}: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        pass
    raise DataError(path, "", f"invalid JSON: {msg}")


@functools.cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def validate(path: Path, tp: Any, raw: Any, prefix: tuple[Any, ...] = ()) -> Any:
    """Validate ``raw`` against ``tp``; the first error becomes a DataError with the file and the key path."""
    try:
        return _adapter(tp).validate_python(raw)
    except ValidationError as e:
        errs = e.errors(include_url=False)
        first = errs[0]
        problem = first["msg"].removeprefix("Value error, ")
        if first["type"] not in ("missing", "extra_forbidden", "value_error") and "input" in first:
            shown = repr(first["input"])  # the value, except where the message already says it
            problem += f" (got {shown[:80]}{'...' if len(shown) > 80 else ''})"
        if len(errs) > 1:
            problem += f" [and {len(errs) - 1} more error(s) in this file]"
        loc = [str(p) for p in (*prefix, *first["loc"]) if p != "[key]"]  # a dict key's error is at the key
        raise DataError(path, "/".join(loc), problem) from None


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def data_checksums(data_dir: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """SHA-256 of every COAT file the planner reads, keyed by path under ``coat/`` (what a trained model or a
    question set was made from)."""
    root = resolve_data_dir(data_dir) / "coat"
    return {name: file_sha256(root / name) for name in COAT_FILES}
