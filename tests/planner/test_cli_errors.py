"""The ``coat`` command line: one-line errors and exit codes, paths checked before the work, user text escaped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import planner.cli
import planner.cli.plan
from planner.cli import check_out_path, main, safe_text
from planner.errors import ConfigError, DataNotFoundError

_NASTY = "cut the \x1b[2J[bold red]apple[/bold red]\u202e\r"
"""A task with a terminal escape (clear screen), rich markup, a bidi override and a carriage return."""


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _raises(exc: BaseException):
    def handler(args) -> int:
        raise exc

    return handler


# --- exit codes and one-line messages


@pytest.mark.parametrize(("exc", "code", "expected"), [
    (ConfigError("bad value\nsecond line"), 1, "coat: error: bad value; second line"),
    (DataNotFoundError("no coat/ data"), 1, "coat: error: no coat/ data"),
    (FileNotFoundError(2, "No such file or directory", "/proc/none/c.sqlite"), 1,
     "coat: error: /proc/none/c.sqlite: does not exist (or a parent directory is missing)"),
    (IsADirectoryError(21, "Is a directory", "/tmp"), 1, "coat: error: /tmp: is a directory, not a file"),
    (PermissionError(13, "Permission denied", "/root/x"), 1, "coat: error: /root/x: permission denied"),
    (KeyboardInterrupt(), 130, "coat: interrupted"),
])
def test_known_errors_are_one_line(monkeypatch, capsys, exc, code, expected) -> None:
    monkeypatch.setattr(planner.cli.plan, "_tasks", _raises(exc))
    assert main(["tasks"]) == code
    assert _one_error_line(capsys.readouterr().err) == expected


def test_an_unexpected_error_names_the_log_file_with_its_traceback(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(planner.cli, "log_dir", lambda: tmp_path / "logs")
    monkeypatch.setattr(planner.cli.plan, "_tasks", _raises(ZeroDivisionError("boom \x1b[2J")))
    assert main(["tasks", "--utility", "cutting"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("coat: internal error: ZeroDivisionError: boom \\x1b[2J (traceback in ")
    logs = list((tmp_path / "logs").glob("coat-*.log"))
    assert len(logs) == 1 and str(logs[0]) in line
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError" in text and "'--utility'" in text


def test_the_log_falls_back_to_the_temp_dir(monkeypatch, capsys, tmp_path) -> None:
    def no_log_dir() -> Path:
        raise PermissionError(13, "Permission denied", "/nowhere")

    monkeypatch.setattr(planner.cli, "log_dir", no_log_dir)
    monkeypatch.setattr(planner.cli.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(planner.cli.plan, "_tasks", _raises(RuntimeError("x")))
    assert main(["tasks"]) == 2
    assert str(tmp_path) in _one_error_line(capsys.readouterr().err)


def test_an_oserror_without_a_path_is_unexpected(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(planner.cli, "log_dir", lambda: tmp_path)
    monkeypatch.setattr(planner.cli.plan, "_tasks", _raises(ConnectionResetError(104, "reset")))
    assert main(["tasks"]) == 2
    assert "internal error: ConnectionResetError" in _one_error_line(capsys.readouterr().err)


def test_a_closed_pipe_is_quiet(monkeypatch, capsys) -> None:
    monkeypatch.setattr(planner.cli.plan, "_tasks", _raises(BrokenPipeError(32, "Broken pipe")))
    assert main(["tasks"]) == 1
    assert capsys.readouterr().err == ""


def test_usage_errors_stay_argparse_and_are_escaped(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plan", "cut apple", "\x1b[2Jextra"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "unrecognized arguments: \\x1b[2Jextra" in err
    with pytest.raises(SystemExit):
        main(["sciworld", "--variations", "a,b"])
    assert "variations are comma-separated numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["sciworld", "--simplification", "openDoors,doorsOpen"])
    err = capsys.readouterr().err
    assert "unknown ScienceWorld simplification 'doorsOpen'" in err and "teleportAction" in err


def test_python_dash_m_entry_point_gives_the_same_line(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "planner.cli", "plan", "  ", "--llm", "none"], capture_output=True,
                          text=True, timeout=120, cwd=Path(planner.__file__).parents[1])
    assert proc.returncode == 1, proc.stderr
    assert _one_error_line(proc.stderr).startswith("coat: error: empty task '  '")


def test_an_unusable_llm_cache_is_one_line(monkeypatch, capsys) -> None:
    monkeypatch.setenv("COAT_LLM_CACHE", "/proc/none/c.sqlite")
    code = main(["plan", "slice bread please", "--llm", "local"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 1 and line.startswith("coat: error: "), line
    assert "/proc/none" in line or "pip install" in line  # the cache path, or the missing local-llm extra


# --- paths given with --out / --json / --frame are checked before the work starts


@pytest.mark.parametrize(("argv", "expected"), [
    (["datasets", "build", "--out", "/proc/none/qs"], "--out /proc/none/qs: cannot be created: directory /proc "
                                                      "is not writable"),
    (["sciworld", "--tasks", "boil", "--out", "/proc/none/run"], "--out /proc/none/run: cannot be created"),
    (["scenes", "bench", "--actions", "5", "--repeats", "1", "--out", "{tmp}"], "--out {tmp}: is a directory"),
    (["scenes", "fidelity", "--out", "/proc/none/x.md"], "--out /proc/none/x.md: cannot be created"),
    (["perception", "agreement", "--json", "/proc/none/x.json"],
     "--json /proc/none/x.json: its parent directory /proc/none does not exist"),
    (["perception", "mass-size", "--json", "{tmp}"], "--json {tmp}: is a directory"),
    (["plan", "cut apple", "--llm", "none", "--frame", "{tmp}"], "--frame {tmp}: is a directory"),
    (["plan", "cut apple", "--llm", "none", "--frame", "{tmp}/x.txt"], "--frame {tmp}/x.txt: give a picture file"),
    (["datasets", "build", "--out", "{tmp}/file"], "--out {tmp}/file: is a file, not a directory"),
])
def test_out_paths_are_checked_first(capsys, tmp_path, argv, expected) -> None:
    (tmp_path / "file").write_text("x")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 1
    assert _one_error_line(capsys.readouterr().err).startswith("coat: error: " + expected.replace("{tmp}",
                                                                                                   str(tmp_path)))


def test_check_out_path_accepts_what_can_be_written(tmp_path) -> None:
    assert check_out_path(tmp_path / "new" / "deeper", kind="dir") == tmp_path / "new" / "deeper"
    assert check_out_path(tmp_path / "r.jsonl", kind="file", makes_parents=False) == tmp_path / "r.jsonl"
    assert check_out_path(tmp_path, kind="dir") == tmp_path
    with pytest.raises(ConfigError, match="parent directory .* does not exist"):
        check_out_path(tmp_path / "a" / "r.json", kind="file", makes_parents=False)


# --- user text is escaped wherever it is echoed


def test_safe_text_escapes_what_would_act_on_the_terminal() -> None:
    assert safe_text("plain é 日本 😀") == "plain é 日本 😀"
    assert safe_text(_NASTY) == "cut the \\x1b[2J[bold red]apple[/bold red]\\u202e\\r"
    assert safe_text("a\x00b\tc\nd\u2066\ud800") == "a\\x00b\\tc\\nd\\u2066\\ud800"


@pytest.mark.parametrize("rich", [True, False])
def test_coat_plan_prints_the_task_escaped(monkeypatch, capsys, rich) -> None:
    if rich:
        pytest.importorskip("rich")
    else:
        import planner._optional

        real = planner._optional.is_available
        monkeypatch.setattr(planner._optional, "is_available", lambda name: False if name == "rich" else real(name))
    assert main(["plan", _NASTY, "--llm", "none", "--interpret", "nearest"]) == 0
    out = capsys.readouterr().out
    for raw in ("\x1b", "\r", "\u202e"):
        assert raw not in out
    assert "Task: cut the \\x1b[2J[bold red]apple[/bold red]\\u202e\\r" in out  # markup shown, not interpreted


def test_coat_data_where_echoes_the_path_escaped(capsys) -> None:
    assert main(["data", "where", "--data-dir", "\x1b[2J\ud800"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2J\\ud800" in out
