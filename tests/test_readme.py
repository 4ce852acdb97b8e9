"""The README: at most 1,000 words, and every python snippet runs and shows what the program gives.

Each python block is run in order in one namespace, paragraph by paragraph (blank lines split a block); after a
paragraph runs, every line that is a bare expression with a Python literal as its comment
(``trace.achieved, trace.replans   # (True, 0)``) is evaluated and must equal that literal. So the values the
README shows are the program's, offline (embedded simulator, COAT's annotations, langchain's fake chat model).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
MAX_WORDS = 1000


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def _shown(line: str) -> tuple[str, Any] | None:
    """``(expression, value)`` for a line ``<expression>  # <literal>``; None for any other line."""
    code, sep, comment = line.partition("#")
    if not sep or not code.strip():
        return None
    try:
        node = ast.parse(code.strip())
        value = ast.literal_eval(comment.strip())
    except (SyntaxError, ValueError):
        return None
    if len(node.body) != 1 or not isinstance(node.body[0], ast.Expr):
        return None
    return code.strip(), value


def test_the_readme_has_at_most_a_thousand_words() -> None:
    words = len(README.read_text(encoding="utf-8").split())  # what `wc -w` counts
    assert words <= MAX_WORDS, f"README.md has {words} words; at most {MAX_WORDS}"


def test_the_readme_python_snippets_run_and_show_what_the_program_gives(data_dir: Path) -> None:
    pytest.importorskip("ai2thor")  # one snippet builds a genuine ai2thor Event from a recorded trace

    blocks = _blocks("python")
    assert len(blocks) >= 3  # plan, execute, your own scene / env / model
    namespace: dict[str, Any] = {}
    checked = 0
    for block in blocks:
        for paragraph in re.split(r"\n\s*\n", block):
            exec(compile(paragraph, str(README), "exec"), namespace)  # noqa: S102 - the README's own snippets
            for line in paragraph.splitlines():
                shown = _shown(line)
                if shown is not None:
                    expr, value = shown
                    assert eval(expr, namespace) == value, f"README shows {expr} as {value!r}"  # noqa: S307
                    checked += 1
    assert checked >= 8


def test_the_readme_commands_are_coat_subcommands() -> None:
    from planner.cli import build_parser

    parser = build_parser()
    for block in _blocks("bash"):
        for line in block.splitlines():
            code = line.split("#")[0].strip()
            if code.startswith("coat "):
                parser.parse_args(code.split()[1:])  # argparse exits on an unknown command or option
