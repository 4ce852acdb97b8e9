"""Long jobs: a bar on a terminal, plain lines in a pipe or a log; ``coat --version``."""

from __future__ import annotations

import io
import subprocess
import sys
from importlib.metadata import version

import pytest

from planner import __version__
from planner.progress import Lines, progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_pipe_gets_a_line_per_tenth_and_no_carriage_return() -> None:
    out = io.StringIO()
    bar = progress(total=50, desc="episodes", unit="ep", file=out)
    assert isinstance(bar, Lines)
    for i in range(50):
        bar.set_postfix_str(f"episode {i}")
        bar.update(1)
    bar.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines[0].startswith("episodes: 0/50 ep (0%)") and "started" in lines[0]
    assert [ln.split()[1] for ln in lines[1:-1]] == [f"{5 * k}/50" for k in range(1, 11)]
    assert lines[-1].startswith("episodes: 50/50 ep (100%)") and lines[-1].endswith("done; episode 49")


def test_iterating_counts_and_closes_and_disable_prints_nothing() -> None:
    out = io.StringIO()
    assert list(progress(range(3), desc="q", file=out)) == [0, 1, 2]
    assert out.getvalue().splitlines()[-1].startswith("q: 3/3 it (100%)")
    quiet = io.StringIO()
    with progress(total=3, file=quiet, disable=True) as bar:
        bar.update(3)
    assert quiet.getvalue() == ""


def test_a_terminal_gets_tqdm() -> None:
    from tqdm import tqdm

    bar = progress(total=2, desc="x", file=_Tty())
    assert isinstance(bar, tqdm)
    bar.close()


def test_status_text_is_escaped() -> None:
    out = io.StringIO()
    bar = progress(total=1, desc="d", file=out)
    bar.set_postfix_str("\x1b[2Jgone")
    bar.close()
    assert "\x1b" not in out.getvalue() and "\\x1b" in out.getvalue()


def test_coat_version_names_the_installed_release() -> None:
    r = subprocess.run([sys.executable, "-m", "planner.cli", "--version"], capture_output=True, text=True,
                       check=True)
    try:
        expected = version("coat-planner")
    except Exception:  # not installed: the source tree's
        expected = __version__
    assert r.stdout.strip() == f"coat-planner {expected}"
    assert expected == __version__, "planner.__version__ and pyproject.toml's version differ"


@pytest.mark.parametrize("total", [None, 0])
def test_an_unknown_or_empty_total_still_counts(total: int | None) -> None:
    out = io.StringIO()
    bar = Lines(total=total, desc="d", file=out)
    bar.update(2)
    bar.close()
    assert out.getvalue().splitlines()[-1].startswith("d: 2 it")

