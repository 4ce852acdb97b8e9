"""Text for the terminal: everything a command prints from data or arguments goes through :func:`safe_text`.

A path, an object id, a request file's name or a model's reason can hold control characters: an escape sequence
that clears the screen or retitles the window, a carriage return that hides what came before, a bidi override that
reverses what follows. :func:`safe_text` shows each as a Python escape (``\\x1b``, ``\\u202e``) instead; :func:`echo`
prints with every line made safe; :func:`rich_text` gives rich a ``Text`` (markup in it is shown, not read);
:class:`SafeFormatter` does the same for log records. Standard library only.
"""

from __future__ import annotations

import logging
import sys
from typing import IO, Any

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def safe_text(text: object) -> str:
    """``text`` fit for a terminal: control characters, escape sequences, bidi overrides, lone surrogates and
    other invisible characters are shown as Python escapes (``\\x1b``, ``\\u202e``) instead of acting."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else _escape(c) for c in s)


def _escape(c: str) -> str:
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def safe_lines(text: object) -> str:
    """``text`` with every line made safe (:func:`safe_text`), the line breaks kept."""
    return "\n".join(safe_text(line) for line in str(text).split("\n"))


def echo(text: object = "", *, file: IO[str] | None = None) -> None:
    """Print ``text`` with every line made safe (:func:`safe_lines`) on ``file`` (default stdout)."""
    print(safe_lines(text), file=file if file is not None else sys.stdout)


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` as one safe line (lines joined with "; "), shortened to ``limit`` characters."""
    s = "; ".join(part.strip() for part in str(text).splitlines() if part.strip())
    s = safe_text(s)
    return s if limit is None or len(s) <= limit else f"{s[: limit - 3]}..."


def rich_text(text: object, style: str = "") -> Any:
    """A rich ``Text`` of ``text`` made safe: rich prints it as it is (no markup read, no escape passed on)."""
    from rich.text import Text

    return Text(safe_lines(text), style=style)


class SafeFormatter(logging.Formatter):
    """A log formatter whose records are made safe line by line (a path in a warning cannot act either)."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_lines(super().format(record))


__all__ = ["SafeFormatter", "echo", "one_line", "rich_text", "safe_lines", "safe_text"]
