"""The ``coat`` command line.

Usage:
    coat plan "cut cake"                          # plan in the embedded kitchen with the embedded model
    coat data download                            # fetch COAT + AI2-THOR reference data into the cache
    coat datasets build --seed 0 --out data/qs    # regenerate the COAT question sets
    coat datasets stats --out data/qs
    coat eval --set task2 --pipeline two-stage --strategy knowledge --limit 100
    coat ablate --llm local --limit 300
    coat bench tasks --episodes 140 --seed 0      # household task episodes: planner vs baseline

Each subcommand lives in its own module (``planner/cli/<name>.py``) exposing ``register(subparsers)``;
the modules import heavy dependencies only inside their handlers, so ``coat --help`` stays fast.

Exit codes: 0 done; 1 a known error (``coat: error: ...`` on one line: bad input, missing data, a path that
cannot be used, a model that cannot be reached), or a check that failed; 2 usage errors (argparse) and
internal errors (one line naming the log file that holds the traceback); 3 no feasible plan; 4 a plan
carried out without reaching its goal; 5 a task that was not understood (nothing decided); 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import errno
import importlib
import logging
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from ..arguments import COUNT, PLOT_SUFFIXES, POSITIVE_COUNT, SEED, Range
from ..config import Settings, use_settings
from ..errors import ConfigError, PlannerError
from ..paths import expand_user, use_data_dir
from ..terminal import SafeFormatter, echo, one_line, safe_text

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "add_ray_args", "build_parser", "check_out_path", "check_plot_path",
           "check_ray", "echo", "main", "number", "one_line", "ray_pool", "safe_text"]

EXIT_ERROR = 1
"""A known error: bad input, missing data, an unusable path."""
EXIT_INTERNAL = 2
"""An unexpected exception (its traceback is in a log file); argparse's usage errors exit 2 too."""
EXIT_INTERRUPTED = 130

# subcommand modules, in the order they appear in --help; a module that is missing is skipped
_COMMAND_MODULES: tuple[str, ...] = (
    "planner.cli.plan",
    "planner.cli.data",
    "planner.cli.datasets",
    "planner.cli.eval",
    "planner.cli.train",
    "planner.cli.sciworld",
    "planner.cli.scenes",
    "planner.cli.perception",
    "planner.cli.bench",
)


def number(accepted: Range) -> Callable[[str], int | float]:
    """An argparse ``type=`` for a numeric flag: the value parsed and checked against ``accepted`` (finite, in
    range) while the arguments are read, before any work; a bad one is a usage error naming the flag, the value
    and the accepted range (``argument --margin: must be a finite number >= 0, got 'nan'``)."""

    def parse(text: str) -> int | float:
        try:
            return accepted.parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.accepted = accepted  # type: ignore[attr-defined]  # read by the tests that walk every flag
    parse.__name__ = accepted.describe()
    return parse


SEED_ARG = number(SEED)
COUNT_ARG = number(COUNT)
POSITIVE_ARG = number(POSITIVE_COUNT)


def check_out_path(
    path: str | os.PathLike[str], *, kind: Literal["file", "dir"], flag: str = "--out", makes_parents: bool = True
) -> Path:
    """Check, before the work starts, that a command can write ``path`` (a ``kind``) given with ``flag``.

    Args:
        path: The path the user gave.
        kind: ``file`` (written or replaced) or ``dir`` (created when missing, files written into it).
        flag: The option, for the message.
        makes_parents: Whether the command creates missing parent directories itself.

    Returns:
        The path, with ``~`` expanded.

    Raises:
        ConfigError: the path is a directory where a file is wanted (or a file where a directory is), a device,
            FIFO or socket, its parent directory is missing, or it cannot be written; the message names the path.
    """
    p = expand_user(path, flag)
    _OUTPUTS.append(p)
    where = f"{flag} {safe_text(p)}"
    if kind == "file" and p.is_dir():
        raise ConfigError(f"{where}: is a directory; give a file path inside it, e.g. {safe_text(p / 'out')}")
    if kind == "file" and p.exists() and not p.is_file():  # /dev/zero would be read forever, /dev/full never hold
        raise ConfigError(f"{where}: is a device, FIFO or socket, not a regular file; give a file path")
    if kind == "dir" and p.exists() and not p.is_dir():
        raise ConfigError(f"{where}: is a file, not a directory; give a directory (it is created when missing)")
    if p.exists():
        if not (_can_write_in(p) if kind == "dir" else os.access(p, os.W_OK)):
            raise ConfigError(f"{where}: is not writable; give a path you can write")
        return p
    parent = p.parent
    if not makes_parents and not parent.is_dir():
        raise ConfigError(f"{where}: its parent directory {safe_text(parent)} does not exist; create it first")
    anc = next((a for a in (parent, *parent.parents) if a.exists()), None)
    if anc is None or not anc.is_dir():
        raise ConfigError(f"{where}: cannot be created: {safe_text(anc)} is not a directory")
    if not _can_write_in(anc):
        raise ConfigError(f"{where}: cannot be created: directory {safe_text(anc)} is not writable")
    return p


def _can_write_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (tried: permission bits mislead for root, special file systems)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def check_plot_path(path: str | os.PathLike[str], *, flag: str = "--plot") -> Path:
    """Check a plot's path before the work starts: writable (:func:`check_out_path`) and ending in one of
    :data:`PLOT_SUFFIXES`, so a plot is never written beside it under another name (``--plot /tmp`` as
    ``/tmp.png``) nor refused after the run.

    Raises:
        ConfigError: naming the path and what is accepted.
    """
    p = check_out_path(path, kind="file", flag=flag)
    if p.suffix.lower() not in PLOT_SUFFIXES:
        raise ConfigError(f"{flag} {safe_text(p)}: give a picture file ending in {', '.join(PLOT_SUFFIXES)} "
                          "(the suffix sets the format)")
    return p


def add_ray_args(p: argparse.ArgumentParser, unit: str) -> None:
    """``--ray [ADDRESS]`` and ``--ray-actors N`` of a command whose ``unit`` (questions, episodes...) Ray spreads."""
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help=f"spread the {unit} over Ray actors (the `ray` extra): alone, a Ray started on this machine; "
                        "ADDRESS, an existing cluster (HOST:PORT of its head, ray://HOST:PORT, auto). Rows and "
                        "resuming are the serial run's")
    p.add_argument("--ray-actors", type=POSITIVE_ARG, default=None, metavar="N",
                   help="with --ray: actors at once, one environment or model client each (default: the cluster's "
                        "CPUs)")


def check_ray(args: argparse.Namespace) -> Any:
    """The :class:`~planner.bench.scale.RayConfig` of ``--ray`` (None without it), checked before anything runs.

    Raises:
        ConfigError: a bad address or flag combination, naming the value and the accepted ones.
        DependencyNotInstalled: ``--ray`` without Ray installed (said before anything loads; not imported here).
    """
    from .._optional import install_hint, is_available
    from ..bench.scale import ray_config
    from ..errors import DependencyNotInstalled

    config = ray_config(args.ray, args.ray_actors, concurrency=getattr(args, "concurrency", 1))
    if config is not None and not is_available("ray"):
        raise DependencyNotInstalled(f"--ray needs Ray, which is not installed. Install it with: {install_hint('ray')}")
    return config


@contextlib.contextmanager
def ray_pool(config: Any, data_dir: str | os.PathLike[str] | None) -> Iterator[Any]:
    """The Ray actors of a command (a :class:`~planner.bench.scale.RayPool`), or None for a serial run."""
    if config is None:
        yield None
        return
    from ..bench.scale import RayPool

    with RayPool(config, data_dir=data_dir) as pool:
        yield pool


class _Parser(argparse.ArgumentParser):
    """argparse, with user text in its error messages made safe for the terminal."""

    def error(self, message: str) -> None:  # type: ignore[override]
        super().error(safe_text(message))


def _version() -> str:
    """The installed distribution's version (the source tree's ``planner.__version__`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coat-planner")
    except PackageNotFoundError:
        from .. import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available subcommand."""
    parser = _Parser(prog="coat", description="COAT physical-commonsense planner.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    parser.add_argument("--version", action="version", version=f"coat-planner {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``coat``; returns the process exit code (see the module docstring).

    Known errors print one line ``coat: error: ...`` on stderr; anything unexpected prints one line naming the
    log file that holds its traceback. argparse's usage errors and ``--help`` raise SystemExit as usual.
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        _say("coat: interrupted")
        return EXIT_INTERRUPTED
    except PlannerError as e:
        _say(f"coat: error: {one_line(e)}")
        return EXIT_ERROR
    except BrokenPipeError:  # the reader went away (`coat ... | head`): nothing left to tell it
        _quiet_stdout()
        return EXIT_ERROR
    except OSError as e:
        if e.filename is None and e.errno in _DISK_ERRNOS:  # ENOSPC, EFBIG... name the output paths given
            e.filename = ", ".join(str(p) for p in _OUTPUTS) or "(the output; the system did not say which file)"
        if e.filename is None:
            return _internal(e, argv)
        _say(f"coat: error: {_os_message(e)}")
        return EXIT_ERROR
    except Exception as e:  # the last resort: one line, the traceback in a file
        return _internal(e, argv)


def _main(argv: list[str] | None) -> int:
    _OUTPUTS.clear()
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING
    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))  # paths in warnings are user text
    logging.basicConfig(level=level, handlers=[handler])
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if getattr(args, "data_dir", None) is not None:  # every command that takes it: '~nosuchuser/x' is named here
        args.data_dir = str(expand_user(args.data_dir, "--data-dir"))
    # one data directory for the whole command: every reader it reaches (scene files, the checker's replays,
    # perception's priors), not only those handed args.data_dir, uses --data-dir over $COAT_DATA_DIR; and the
    # COAT_* settings read from the environment once, here, for everything the command runs
    with use_data_dir(getattr(args, "data_dir", None)), use_settings(Settings.from_env()):
        return int(args.func(args) or 0)


def _say(line: str) -> None:
    try:
        echo(line, file=sys.stderr)
    except (OSError, ValueError):  # stderr closed: the exit code still tells
        pass


def _quiet_stdout() -> None:
    """Point stdout at devnull so the interpreter's final flush does not fail on the closed pipe again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


_DISK_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EFBIG", "EDQUOT", "EROFS", "EIO") if hasattr(errno, n))
"""Errors of a disk that would not take what was written: no space, past the file-size limit (``ulimit -f``; Python
ignores SIGXFSZ, so the write fails instead), over quota, read-only, an I/O error."""
_OUTPUTS: list[Path] = []
"""The output paths of the running command (:func:`check_out_path` records them), named when a write fails
without saying where."""


def _os_message(e: OSError) -> str:
    what = {
        FileNotFoundError: "does not exist (or a parent directory is missing)",
        IsADirectoryError: "is a directory, not a file",
        NotADirectoryError: "a part of it is not a directory",
        PermissionError: "permission denied",
        FileExistsError: "already exists",
    }.get(type(e), e.strerror or type(e).__name__)
    paths = " -> ".join(safe_text(f) for f in (e.filename, e.filename2) if f is not None)
    hint = {errno.ENOSPC: "; free some space and run again (what was written is kept)",
            errno.EFBIG: "; the file-size limit (ulimit -f) stops it: raise the limit or write elsewhere",
            }.get(e.errno or 0, "")
    return f"{paths}: {what}{hint}"


def log_dir() -> Path:
    """Where ``coat`` writes the traceback of an unexpected error (the user log directory)."""
    import platformdirs

    return Path(platformdirs.user_log_dir("coat-planner"))


def _internal(e: BaseException, argv: list[str] | None) -> int:
    """Write the traceback to a log file and say so in one line."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = (f"coat {' '.join(map(repr, sys.argv[1:] if argv is None else argv))}\n"
            + "".join(traceback.format_exception(type(e), e, e.__traceback__)))
    where = "(the traceback could not be written)"
    for d in (log_dir, lambda: Path(tempfile.gettempdir())):
        try:
            folder = d()
            folder.mkdir(parents=True, exist_ok=True)
            f = folder / f"coat-{stamp}-{os.getpid()}.log"
            f.write_text(text, encoding="utf-8", errors="backslashreplace")
            where = f"(traceback in {safe_text(f)})"
            break
        except (OSError, ImportError):
            continue
    _say(f"coat: internal error: {type(e).__name__}: {one_line(e, 200)} {where}; please report it")
    return EXIT_INTERNAL

