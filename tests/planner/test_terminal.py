"""Everything printed from data or arguments is escaped: one helper (:mod:`planner.terminal`) used by every printer.

Properties: :func:`safe_text` never lets a control character through and leaves printable text as it is; no module
of the project prints except through it (a scan); and ``coat eval`` / ``coat ablate`` (their ``--out`` path) and
``coat perception estimate`` (object ids from a data file), given arbitrary control characters, print none.
"""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from planner.cli import main
from planner.terminal import SafeFormatter, echo, one_line, safe_lines, safe_text

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("planner", "perception", "scenes", "skills")

ESCAPES = ["\x1b[2J", "\x1b]0;owned\x07", "\x9b31m", "\r", "\b", "\x7f", "\u202e", "\u2066", "\u200b", "\u2028",
           "\x1bP+q\x1b\\", "[bold red]x[/bold red]", "\t", "\x00"]
nasty = st.lists(st.one_of(st.sampled_from(ESCAPES), st.characters(), st.text(max_size=3)), max_size=6).map("".join)


def _quiet(text: str) -> bool:
    """Nothing in ``text`` acts on a terminal: every character printable, or a line break."""
    return all(c.isprintable() or c == "\n" for c in text)


@given(nasty)
@example("cut the \x1b[2J\u202e\r")
def test_safe_text_lets_no_control_character_through_and_keeps_printable_text(text: str) -> None:
    out = safe_text(text)
    assert out.isprintable()
    assert (out == text) == text.isprintable()
    assert safe_text(out) == out  # escaping twice changes nothing: printers may layer it
    assert _quiet(safe_lines(text)) and safe_lines(text).count("\n") == text.count("\n")
    assert "\n" not in one_line(text) and one_line(text).isprintable()


@given(nasty)
def test_log_records_are_made_safe(text: str) -> None:
    record = logging.LogRecord("coat", logging.WARNING, __file__, 1, "%s: ignoring a truncated last line", (text,),
                               None)
    assert _quiet(SafeFormatter("%(levelname)s %(message)s").format(record))


def test_echo_prints_every_line_safe(capsys) -> None:
    echo("a\x1b[2J\nb\u202e", file=None)
    assert capsys.readouterr().out == "a\\x1b[2J\nb\\u202e\n"


# --- nothing prints except through the helper


def _printing_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "print":
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: print()")
        elif isinstance(f, ast.Attribute) and f.attr in ("write", "writelines") and ast.unparse(f.value) in (
                "sys.stdout", "sys.stderr", "out", "file"):
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(f)}()")
    return found


def test_nothing_prints_but_through_planner_terminal() -> None:
    found = [c for pkg in PACKAGES for f in sorted((REPO / pkg).rglob("*.py")) if f.name != "terminal.py"
             for c in _printing_calls(f)]
    assert found == [], "print through planner.terminal.echo (or rich_text for rich)"


# --- the commands the issue names, with arbitrary control characters in their data and arguments


def _name(text: str) -> str:
    """``text`` usable as a file name given on a POSIX command line (no '/', no NUL; surrogates only as argv
    decodes undecodable bytes)."""
    return "".join(c for c in text if c not in "/\x00" and not ("\ud800" <= c <= "\udc7f" or "\udd00" <= c <= "\udfff"))


names = nasty.map(_name).filter(lambda s: s.strip(". ") != "")
CLI = settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


_SAMPLES: dict[tuple[str, int | None], list] = {}


@CLI
@given(name=names)
@example(name="\x1b[2J\x1b]0;owned\x07\udc9b")
def test_coat_eval_and_ablate_print_their_out_path_escaped(capsys, monkeypatch, tmp_path_factory, name: str) -> None:
    import planner.bench.ablation

    # matplotlib is not what is tested
    monkeypatch.setattr(planner.bench.ablation, "plot_comparison", lambda *a, **k: False)
    real = planner.cli.eval._sample

    def sample(args, kb, set_name, variation=None):  # building the question set once is enough
        key = (set_name, variation)
        if key not in _SAMPLES:
            _SAMPLES[key] = real(args, kb, set_name, variation)
        return _SAMPLES[key]

    monkeypatch.setattr(planner.cli.eval, "_sample", sample)
    d = tmp_path_factory.mktemp("out")
    assert main(["eval", "--set", "task2", "--strategy", "knowledge", "--limit", "1", "--no-progress",
                 "--out", str(d / f"{name}.jsonl")]) == 0
    assert main(["ablate", "--sets", "task2", "--strategy", "knowledge", "--limit", "1", "--no-progress",
                 "--out", str(d / name)]) == 0
    out, err = capsys.readouterr()
    assert _quiet(out) and _quiet(err)
    assert f"rows: {safe_text(d / name)}.jsonl" in out and f"report: {safe_text(d / name)}/report.md" in out


@pytest.fixture(scope="module")
def floorplan_root(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    (root / "coat").symlink_to(data_dir / "coat")
    (root / "ai2thor" / "floorplans").mkdir(parents=True)
    return root


@CLI
@given(ids=st.lists(nasty, min_size=1, max_size=4, unique=True))
@example(ids=["Knife|\x1b[2J|1", "Apple\u202e|x", "[red]Mug[/red]"])
def test_coat_perception_estimate_prints_object_ids_escaped(capsys, data_dir: Path, floorplan_root: Path,
                                                            ids: list[str]) -> None:
    source = json.loads((data_dir / "ai2thor" / "floorplans" / "FloorPlan1_physics.json").read_text())
    objs = list(source.values())[: len(ids)]
    doc = {i: {**o, "objectId": i} for i, o in zip(ids, objs, strict=False)}
    (floorplan_root / "ai2thor" / "floorplans" / "FloorPlan1_physics.json").write_text(json.dumps(doc))
    code = main(["perception", "--data-dir", str(floorplan_root), "estimate", "FloorPlan1"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err  # a data file the loader refuses is a one-line error, escaped too
    assert _quiet(out) and _quiet(err)
    if code == 0:
        assert all(safe_text(i) in out for i in ids)
