"""Input a user can give never ends in "internal error": each is a one-line error naming the path or the value.

Classes: a disk that will not take a write (ENOSPC, EFBIG past ``ulimit -f``); user-given files that are devices,
FIFOs or too large (read bounded, refused before reading); ``--data-dir '~nosuchuser/x'`` in every command that
takes it (found by walking the parser); results rows that are ``[]``, ``null`` or not UTF-8; a bogus
``--mirror``; damaged floorplans read by ``coat perception``.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from planner.cli import build_parser, main
from planner.errors import ConfigError, DataError, PlannerError
from planner.paths import read_bounded, read_json_lines, writing

CAPSYS = settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


# --- --data-dir '~nosuchuser/x' in every command that takes it


def _commands_with(flag: str, parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands_with(flag, sub, (*path, name))
        elif flag in action.option_strings:
            yield path


def _argv(path: tuple[str, ...], value: str, tmp: Path) -> list[str]:
    """A command line of ``path`` with ``--data-dir value`` and its required arguments."""
    required = {("plan",): ["cut apple"], ("eval",): ["--set", "task2"], ("ablate",): ["--out", str(tmp / "a")],
                ("datasets", "build"): ["--out", str(tmp / "q")]}
    if path == ("perception",):  # the group's own flag, before an action
        return ["perception", "--data-dir", value, "estimate", "FloorPlan1"]
    return [*path, *required.get(path, []), "--data-dir", value]


DATA_DIR_COMMANDS = sorted(set(_commands_with("--data-dir", build_parser())))


def test_every_command_with_a_data_dir_is_covered() -> None:
    assert len(DATA_DIR_COMMANDS) >= 14, DATA_DIR_COMMANDS


@pytest.mark.parametrize("path", DATA_DIR_COMMANDS, ids=" ".join)
def test_a_data_dir_of_no_user_is_a_clear_error_in_every_command(capsys, tmp_path: Path, path: tuple[str, ...]) -> None:
    assert main(_argv(path, "~nosuchuser/x", tmp_path)) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("coat: error: --data-dir '~nosuchuser/x': '~nosuchuser' names no user"), line


# --- devices, FIFOs and oversized files


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return {"/dev/zero": Path("/dev/zero"), "/dev/null": Path("/dev/null"), "fifo": fifo, "dir": tmp_path}


def _open_results(path: Path) -> list[dict[str, Any]]:
    """The rows the results writer reads when it opens ``path`` to resume the run recorded beside it."""
    from planner.results import RECORD_SUFFIX, ResultsFile, RunIdentity

    ident = RunIdentity({"results": "test rows"})
    if path.is_file():
        Path(f"{path}{RECORD_SUFFIX}").write_text(json.dumps(ident.record()))
    with ResultsFile(path, ident) as f:
        return f.rows


def _readers() -> dict[str, Any]:
    from planner.agents.sciworld.bench import read_episodes
    from planner.bench.datasets import load_questions
    from planner.bench.evaluate import read_rows
    from planner.paths import read_json
    from planner.understanding.examples import load_directives, load_requests

    return {"results rows": read_rows, "results writer": _open_results,
            "requests": lambda p: load_requests(path=p), "directives": lambda p: load_directives(path=p),
            "questions": load_questions, "data file": read_json, "sciworld episodes": read_episodes}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reader", sorted(_readers()))
def test_user_files_that_are_devices_or_fifos_are_refused_before_reading(specials, reader: str) -> None:
    read = _readers()[reader]
    for name, p in specials.items():
        if name == "dir" and reader in ("questions", "results rows", "sciworld episodes"):
            continue  # a directory of question files; no rows file there yet
        with pytest.raises((ConfigError, DataError)) as info:
            read(p)
        assert str(p) in str(info.value) and ("not a regular file" in str(info.value) or name == "dir"), info.value


def test_reads_are_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"{}\n" * 100)
    assert len(read_bounded(big, limit=300)) == 300
    with pytest.raises(ConfigError, match=r"big\.jsonl: larger than 299 bytes"):
        read_bounded(big, limit=299)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("argv", [
    ["eval", "--set", "task2", "--strategy", "knowledge", "--out", "{special}"],
    ["bench", "understanding", "--requests", "{special}"],
    ["bench", "directives", "--requests", "{special}"],
    ["eval", "--set", "task2", "--strategy", "knowledge", "--questions", "{special}"],
])
def test_the_cli_refuses_devices_and_fifos_in_one_line(capsys, specials, argv: list[str]) -> None:
    for name in ("/dev/zero", "fifo"):
        assert main([a.replace("{special}", str(specials[name])) for a in argv]) == 1
        assert str(specials[name]) in _one_error_line(capsys.readouterr().err)


# --- results rows that are not objects, or not UTF-8


rows_bad = st.one_of(st.sampled_from([b"[]", b"null", b"3", b'"row"', b"true", b"\xff\xfe", b'{"a": "\xe9"}']),
                     st.binary(min_size=1, max_size=6).filter(lambda b: b"\n" not in b and b.strip()))


@settings(max_examples=60)
@given(bad=rows_bad, before=st.integers(0, 3), after=st.integers(1, 3))
@example(bad=b"[]", before=1, after=1)
@example(bad=b"null", before=0, after=1)
def test_a_row_that_is_no_json_object_is_refused_with_file_and_line(tmp_path_factory, bad: bytes, before: int,
                                                                    after: int) -> None:
    from planner.bench.evaluate import read_rows

    f = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    good = b'{"config_hash": "h", "key": "k"}'
    f.write_bytes(b"\n".join([good] * before + [bad] + [good] * after) + b"\n")
    try:
        json.loads(bad)
        is_object = isinstance(json.loads(bad), dict)
    except ValueError:
        is_object = False
    for read in (read_rows, _open_results):
        if is_object:
            read(f)
            continue
        with pytest.raises(DataError) as info:
            read(f)
        assert str(f) in str(info.value) and f"line {before + 1}" in str(info.value)


def test_a_torn_last_row_is_dropped_even_inside_a_character(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    f.write_bytes(b'{"a": 1}\n{"b": "caf\xc3')  # cut between the two bytes of an e-acute
    assert [r for _, r in read_json_lines(f, torn_last=True)] == [{"a": 1}]
    with pytest.raises(DataError, match="line 2: not UTF-8"):
        read_json_lines(f)


# --- a disk that will not take the write


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO])
def test_a_full_disk_is_one_line_naming_the_output(monkeypatch, capsys, tmp_path: Path, code: int) -> None:
    import planner.bench.datasets

    def full(*_a: Any, **_k: Any) -> Any:
        raise OSError(code, os.strerror(code))  # as the system raises it: no file name

    monkeypatch.setattr(planner.bench.datasets, "write_sets", full)
    assert main(["datasets", "build", "--out", str(tmp_path / "qs"), "--set", "task_u"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith(f"coat: error: {tmp_path / 'qs'}: {os.strerror(code)}"), line


def test_writing_names_the_file_the_system_did_not(tmp_path: Path) -> None:
    with pytest.raises(OSError) as info, writing(tmp_path / "r.jsonl"):
        raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.filename == str(tmp_path / "r.jsonl")


@pytest.mark.timeout(300)
def test_past_ulimit_f_coat_eval_stops_with_one_line_naming_its_out(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "planner.cli", "eval", "--set", "task2", "--variation", "1",
                           "--strategy", "knowledge", "--limit", "40", "--no-progress", "--out", str(out)],
                          capture_output=True, text=True, timeout=280, preexec_fn=small_files, env=env)
    assert proc.returncode == 1, proc.stderr
    line = _one_error_line(proc.stderr)
    assert line.startswith(f"coat: error: {out}: File too large; the file-size limit (ulimit -f)"), line
    assert 0 < out.stat().st_size <= 4000


# --- downloads: a mirror that is no URL


@given(url=st.one_of(st.text(max_size=20), st.sampled_from(["bogus", "ftp://x/y", "http://", "http://[", "file://",
                                                             "://x", "https://mirror.local/raw", "file:///srv"])))
def test_a_mirror_is_a_url_or_a_config_error_naming_it(url: str) -> None:
    from planner.download.fetch import check_mirror

    try:
        assert check_mirror(url) == url
    except ConfigError as e:
        assert repr(url) in str(e)


def test_coat_data_download_with_a_bogus_mirror_is_one_line(capsys, tmp_path: Path) -> None:
    assert main(["data", "download", "--mirror", "bogus", "--dest", str(tmp_path), "--quiet"]) == 1
    assert "--mirror 'bogus' is not a mirror URL" in _one_error_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


# --- damaged floorplans read by coat perception


@pytest.fixture(scope="module")
def floorplan(data_dir: Path) -> bytes:
    return (data_dir / "ai2thor" / "floorplans" / "FloorPlan1_physics.json").read_bytes()


damage = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("bytes"), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("retype"), st.sampled_from([None, [], "x", -1, {"a": 1}, 1e300, True])),
    st.tuples(st.just("whole"), st.sampled_from([b"[]", b"null", b"{}", b"\xff\xfe", b'{"x": []}'])),
)


def _damaged(original: bytes, how: tuple[str, Any], pick: int) -> bytes:
    kind, arg = how
    if kind == "truncate":
        return original[: int(arg * len(original))]
    if kind == "bytes":
        at = pick % len(original)
        return original[:at] + arg + original[at + len(arg):]
    if kind == "whole":
        return arg
    doc = json.loads(original)
    oid = sorted(doc)[pick % len(doc)]
    key = sorted(doc[oid])[pick % len(doc[oid])]
    doc[oid][key] = arg
    return json.dumps(doc).encode()


@CAPSYS
@given(how=damage, pick=st.integers(0, 10_000))
def test_a_damaged_floorplan_is_a_data_error_in_coat_perception(capsys, data_dir: Path, floorplan: bytes,
                                                               tmp_path_factory, how: tuple[str, Any],
                                                               pick: int) -> None:
    root = tmp_path_factory.mktemp("data")
    (root / "coat").symlink_to(data_dir / "coat")
    (root / "ai2thor" / "floorplans").mkdir(parents=True)
    f = root / "ai2thor" / "floorplans" / "FloorPlan1_physics.json"
    f.write_bytes(_damaged(floorplan, how, pick))
    for argv in (["estimate", "FloorPlan1"], ["agreement"]):
        code = main(["perception", "--data-dir", str(root), *argv])
        out, err = capsys.readouterr()
        if code != 0:
            assert code == 1 and str(f) in _one_error_line(err), (argv, err)


def test_perception_reads_floorplans_through_the_validated_loader(tmp_path: Path, data_dir: Path) -> None:
    from perception.evaluation.floorplans import load_floorplans

    d = tmp_path / "floorplans"
    d.mkdir()
    (d / "FloorPlan1_physics.json").write_text('{"Apple|1": {"objectId": "Apple|1", "mass": "heavy"}}')
    with pytest.raises(PlannerError, match=r"FloorPlan1_physics\.json"):
        list(load_floorplans(d))
