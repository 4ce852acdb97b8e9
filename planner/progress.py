"""Progress of long jobs: a tqdm bar on a terminal, plain lines in a pipe or a log.

tqdm redraws its bar with carriage returns, which a log file or CI output keeps as one ever-growing line. When
stderr is no terminal, :func:`progress` writes a plain line instead: at the start, at every tenth of the work (or
every :data:`LINE_SECONDS`), and at the end, each with the count, the percentage, the time so far and the last
status (``set_postfix_str``)::

    episodes: 70/700 ep (10%) 41 s, FloorPlan3 cut apple
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any

from .terminal import echo, one_line

LINE_SECONDS = 60.0
"""Longest time between two plain lines (a slow tenth still shows the job is alive)."""


def progress(iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "", unit: str = "it",
             disable: bool = False, initial: int = 0, leave: bool = True, file: IO[str] | None = None) -> Any:
    """A progress reporter with tqdm's interface (iterate it, or ``update``, ``set_postfix_str``, ``close``; a
    context manager): a tqdm bar when ``file`` (default stderr) is a terminal, :class:`Lines` otherwise."""
    out = file if file is not None else sys.stderr
    if not disable and _is_terminal(out):
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, unit=unit, initial=initial, leave=leave, file=out)
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    return Lines(iterable, total=total, desc=desc, unit=unit, disable=disable, initial=initial, file=out)


def _is_terminal(out: IO[str]) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


class Lines:
    """Plain-line progress for pipes and logs (see the module docstring)."""

    def __init__(self, iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "",
                 unit: str = "it", disable: bool = False, initial: int = 0, file: IO[str] | None = None) -> None:
        self.iterable, self.total, self.desc, self.unit = iterable, total, desc, unit
        self.disable, self.n, self.file = disable, initial, file if file is not None else sys.stderr
        self.postfix = ""
        self.start = self.last_time = time.monotonic()
        self.last_tenth = self._tenth()
        self.closed = False
        self._line("started")

    def __iter__(self) -> Iterator[Any]:
        assert self.iterable is not None, "Lines(iterable=None) is updated, not iterated"
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self) -> Lines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tenth(self) -> int:
        return int(10 * self.n / self.total) if self.total else 0

    def update(self, n: int = 1) -> None:
        self.n += n
        now, tenth = time.monotonic(), self._tenth()
        if tenth > self.last_tenth or now - self.last_time >= LINE_SECONDS:
            self.last_tenth, self.last_time = tenth, now
            self._line()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = str(s)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._line("done")

    def _line(self, note: str = "") -> None:
        if self.disable:
            return
        count = f"{self.n}/{self.total}" if self.total else str(self.n)
        pct = f" ({100 * self.n // self.total}%)" if self.total else ""
        took = f" {time.monotonic() - self.start:.0f} s"
        tail = "; ".join(x for x in (note, self.postfix) if x)
        text = f"{self.desc or 'progress'}: {count} {self.unit}{pct}{took}" + (f", {tail}" if tail else "")
        echo(one_line(text, 200), file=self.file)
        self.file.flush()


__all__ = ["LINE_SECONDS", "Lines", "progress"]
