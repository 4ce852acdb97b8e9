"""Write the COAT table of docs/checker.md from checker/coat_tasks.json (``--check``: fail when it differs).

Usage: ``python scripts/gen_checker_docs.py [--check]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "checker.md"
HEADING = "## COAT's 75 tasks"
CATEGORIES = ("state-change", "placement", "proxy")


def section() -> str:
    """The COAT section (from its heading to the end of the page)."""
    tasks = json.loads((REPO / "checker" / "coat_tasks.json").read_text(encoding="utf-8"))["tasks"]
    rows: dict[str, list[tuple[str, str]]] = {c: [] for c in CATEGORIES}
    for name, e in tasks.items():
        rows[e["category"]].append((name, e["goal"] or e["why"]))
    n = {c: len(v) for c, v in rows.items()}
    out = [HEADING, "",
           "From each task's words, in AI2-THOR terms (the data: `checker/coat_tasks.json`; this table is written by "
           "`python scripts/gen_checker_docs.py`). "
           f"{n['state-change']} state-change, {n['placement']} placement and {n['proxy']} proxy tasks. A proxy "
           "task's effect cannot be shown in AI2-THOR: its success is None (never a \"brought to the robot\" "
           "success)."]
    for c in CATEGORIES:
        out += ["", f"### {c} ({n[c]})", "", "| task | " + ("why it cannot be checked" if c == "proxy" else "goal")
                + " |", "|---|---|"]
        out += [f"| {name} | {text} |" for name, text in rows[c]]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    page = DOC.read_text(encoding="utf-8")
    head, sep, _ = page.partition(HEADING)
    if not sep:
        print(f"{DOC}: no {HEADING!r} heading", file=sys.stderr)
        return 2
    new = head + section()
    if "--check" in argv:
        if new != page:
            print(f"{DOC} is out of date: run python scripts/gen_checker_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
