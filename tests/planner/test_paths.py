"""Data-directory resolution: --data-dir, then $COAT_DATA_DIR, then the user cache; errors name the fix."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from planner.errors import DataNotFoundError
from planner.paths import COAT_FILES, ENV_VAR, cache_data_dir, candidate_dirs, resolve_data_dir


def _complete(root: Path, *, skip: str | None = None) -> Path:
    """A data root with every COAT file (empty: resolution only checks that they exist) and ai2thor/."""
    for f in COAT_FILES:
        if f != skip:
            (root / "coat" / f).parent.mkdir(parents=True, exist_ok=True)
            (root / "coat" / f).write_text("{}")
    (root / "ai2thor").mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the user cache at tmp_path/cache and clear $COAT_DATA_DIR; returns the cache data root."""
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *a, **k: str(tmp_path / "cache"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    return tmp_path / "cache" / "data"


def test_cache_dir_is_under_platformdirs_cache(cache: Path) -> None:
    assert cache_data_dir() == cache
    assert candidate_dirs() == [("user cache", cache)]


def test_order_option_then_env_then_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opt, env = _complete(tmp_path / "opt"), _complete(tmp_path / "env")
    _complete(cache)
    monkeypatch.setenv(ENV_VAR, str(env))
    assert [o for o, _ in candidate_dirs(opt)] == ["--data-dir", ENV_VAR, "user cache"]
    assert resolve_data_dir(opt) == opt
    assert resolve_data_dir() == env
    monkeypatch.delenv(ENV_VAR)
    assert resolve_data_dir() == cache


def test_incomplete_env_falls_back_to_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _complete(tmp_path / "env", skip="oracle.json")
    _complete(cache)
    monkeypatch.setenv(ENV_VAR, str(env))
    assert resolve_data_dir() == cache


def test_explicit_incomplete_option_does_not_fall_back(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opt = _complete(tmp_path / "opt", skip="task-2/pouch_suboptimal.json")
    monkeypatch.setenv(ENV_VAR, str(_complete(tmp_path / "env")))
    _complete(cache)
    with pytest.raises(DataNotFoundError) as e:
        resolve_data_dir(opt)
    msg = str(e.value)
    assert f"{opt} (--data-dir): coat/ is incomplete, missing task-2/pouch_suboptimal.json" in msg
    assert str(tmp_path / "env") not in msg and str(cache) not in msg  # nothing else was tried
    assert "coat data download" in msg


def test_error_names_every_directory_searched_and_the_fix(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / "env"
    (env / "coat").mkdir(parents=True)
    monkeypatch.setenv(ENV_VAR, str(env))
    with pytest.raises(DataNotFoundError) as e:
        resolve_data_dir()
    msg = str(e.value)
    assert f"{env} ({ENV_VAR}): coat/ is incomplete, missing utilities.json, tasks.json, objects.json, " in msg
    assert f"and {len(COAT_FILES) - 4} more" in msg
    assert f"{cache} (user cache): no coat/ directory" in msg
    assert "Fix: run `coat data download`" in msg and "--data-dir" in msg and ENV_VAR in msg


def test_need_ai2thor(tmp_path: Path, cache: Path) -> None:
    root = tmp_path / "root"
    (root / "coat").mkdir(parents=True)
    with pytest.raises(DataNotFoundError, match=r"(?s)\(ai2thor/\) not found.*no ai2thor/ directory"):
        resolve_data_dir(root, need="ai2thor")
    (root / "ai2thor").mkdir()
    assert resolve_data_dir(root, need="ai2thor") == root
    with pytest.raises(DataNotFoundError, match="missing object_types.json"):
        resolve_data_dir(root, need="ai2thor", files=("object_types.json",))


def test_option_and_env_expand_user(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    _complete(tmp_path / "d")
    assert resolve_data_dir("~/d") == tmp_path / "d"
    monkeypatch.setenv(ENV_VAR, "~/d")
    assert resolve_data_dir() == tmp_path / "d"


def test_reference_data_resolves(data_dir: Path) -> None:
    assert resolve_data_dir(data_dir) == data_dir
