"""PlannerConfig and Settings: frozen, validated, read from the environment in one place, handed to the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from planner.config import ENV_VARS, PlannerConfig, Settings, current_setting, current_settings, use_settings
from planner.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def test_the_configs_are_frozen() -> None:
    cfg = PlannerConfig()
    with pytest.raises(ValidationError, match="frozen"):
        cfg.strategy = "llm"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        cfg.settings.reader = "lexical"  # type: ignore[misc]
    assert hash(cfg) == hash(PlannerConfig())  # a frozen config is a value: it keys a cache
    assert cfg.model_copy(update={"strategy": "knowledge"}).strategy == "knowledge" and cfg.strategy == "hybrid"


@pytest.mark.parametrize(("model", "fields", "named"), [
    (PlannerConfig, {"strategy": "magic"}, "strategy must be one of 'hybrid', 'llm', 'knowledge', 'learned', "
                                           "got 'magic'"),
    (PlannerConfig, {"planner": "three-stage"}, "planner must be one of 'two-stage', 'single', got 'three-stage'"),
    (PlannerConfig, {"interpret": "loosely"}, "interpret must be one of 'exact', 'nearest', 'model', got 'loosely'"),
    (PlannerConfig, {"strategy": 3}, "strategy must be one of 'hybrid', 'llm', 'knowledge', 'learned', got 3"),
    (PlannerConfig, {"data_dir": "a\x00b"}, "contains a NUL character"),
    (PlannerConfig, {"colour": "red"}, "PlannerConfig has no field 'colour'; its fields are data_dir, interpret, "
                                       "learned, llm, planner, settings, strategy"),
    (PlannerConfig, {"llm": 5}, "PlannerConfig.llm: "),
    (Settings, {"reader": "fast"}, "reader must be one of 'auto', 'lexical', got 'fast'"),
    (Settings, {"encoder_runtime": "onnx"}, "encoder_runtime must be one of 'numpy', 'torch', got 'onnx'"),
    (Settings, {"llm_threads": 0}, "Settings.llm_threads: Input should be greater than or equal to 1, got 0"),
])
def test_a_bad_value_is_a_config_error_naming_the_valid_ones(model: type, fields: dict, named: str) -> None:
    with pytest.raises(ConfigError) as got:
        model(**fields)
    assert named in str(got.value)


def test_from_env_reads_each_variable(tmp_path: Path) -> None:
    env = {"COAT_READER": " Lexical ", "COAT_READER_CACHE": str(tmp_path / "reader"),
           "COAT_ENCODER_RUNTIME": " Torch ", "COAT_LLM_CACHE": "~/calls.sqlite", "COAT_LLM_THREADS": "3",
           "COAT_MODEL_DIR": str(tmp_path / "models")}
    assert set(env) == set(ENV_VARS)
    s = Settings.from_env(env)
    assert s == Settings(reader="lexical", reader_cache=tmp_path / "reader", encoder_runtime="torch",
                         llm_cache=Path("~/calls.sqlite").expanduser(), llm_threads=3, model_dir=tmp_path / "models")
    assert s.reader_cache_dir() == tmp_path / "reader"
    assert Settings.from_env({}) == Settings()  # unset: the defaults
    assert PlannerConfig.from_env({"COAT_READER": "lexical"}, strategy="knowledge") == PlannerConfig(
        strategy="knowledge", settings=Settings(reader="lexical"))


def test_from_env_reads_values_as_they_always_were(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COAT_READER", "embedding")  # anything but 'lexical' is the default
    monkeypatch.setenv("COAT_READER_CACHE", "off")
    monkeypatch.setenv("COAT_LLM_THREADS", "-2")  # below 1 means 1
    s = Settings.from_env()
    assert (s.reader, s.reader_cache, s.reader_cache_dir(), s.llm_threads) == ("auto", "off", None, 1)
    monkeypatch.setenv("COAT_READER_CACHE", "")
    assert Settings.from_env().reader_cache is None and Settings.from_env().reader_cache_dir().name == "reader"
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", "onnx")
    with pytest.raises(ConfigError, match="COAT_ENCODER_RUNTIME='onnx': expected one of numpy, torch"):
        Settings.from_env()
    monkeypatch.delenv("COAT_ENCODER_RUNTIME")
    monkeypatch.setenv("COAT_LLM_THREADS", "many")
    with pytest.raises(ConfigError, match=r"\$COAT_LLM_THREADS must be a positive integer, got 'many'"):
        Settings.from_env()


def test_current_settings_are_the_enclosing_block_s_else_the_environment_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COAT_READER", "lexical")
    assert current_settings() == Settings.from_env() and current_settings().reader == "lexical"
    outer, inner = Settings(reader="auto"), Settings(reader="lexical", reader_cache="off")
    with use_settings(outer):
        assert current_settings() is outer
        with use_settings(inner):
            assert current_settings() is inner
        assert current_settings() is outer
    assert current_settings().reader == "lexical"
    with pytest.raises(TypeError, match="settings must be a planner.config.Settings"):
        with use_settings({"reader": "lexical"}):  # type: ignore[arg-type]
            pass


def test_the_core_acts_on_the_settings_it_is_handed_not_on_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.llm import cache, embedding, local, threads
    from planner.understanding import parse_store, wordlists

    monkeypatch.setenv("COAT_READER_CACHE", str(tmp_path / "from-env"))
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", "torch")
    monkeypatch.setenv("COAT_LLM_THREADS", "7")
    assert wordlists.cache_root() == tmp_path / "from-env" / "wordfreq"  # a core function on its own: the env's
    given = Settings(reader_cache=tmp_path / "given", encoder_runtime="numpy", llm_cache=tmp_path / "c.sqlite",
                     llm_threads=2, model_dir=tmp_path / "m")
    with use_settings(given):
        assert wordlists.cache_root() == tmp_path / "given" / "wordfreq"
        assert parse_store._root() == tmp_path / "given"
        assert embedding.encoder_runtime() == "numpy"
        assert cache.default_cache_path() == tmp_path / "c.sqlite"
        assert threads.default_threads() == 2 and local.model_dir() == tmp_path / "m"
    with use_settings(Settings(reader_cache="off")):
        assert wordlists.cache_root() is None and parse_store._root() is None


def test_a_core_module_reads_its_own_variable_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.understanding import parse_store, wordlists

    env = {"COAT_READER": "lexical", "COAT_READER_CACHE": str(tmp_path), "COAT_LLM_THREADS": "0",
           "COAT_LLM_CACHE": "~/calls.sqlite", "COAT_MODEL_DIR": str(tmp_path / "m")}
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    whole = Settings.from_env()
    assert {f: current_setting(f) for f in Settings.model_fields} == whole.model_dump()  # read as from_env reads
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", "onnx")  # a bad value of another variable
    assert parse_store._root() == tmp_path and wordlists.cache_root() == tmp_path / "wordfreq"
    assert current_setting("reader") == "lexical"
    with pytest.raises(ConfigError, match="COAT_ENCODER_RUNTIME='onnx': expected one of numpy, torch"):
        current_setting("encoder_runtime")
    with use_settings(Settings(encoder_runtime="torch")):  # a block's settings, as current_settings()
        assert current_setting("encoder_runtime") == "torch" and current_setting("reader") == "auto"
    with pytest.raises(ConfigError, match="Settings has no field 'colour'; its fields are reader, reader_cache, "):
        current_setting("colour")


def test_the_variables_keep_their_names() -> None:
    from planner.llm import cache, embedding, local
    from planner.understanding import embeddings, wordlists

    assert (embeddings.READER_ENV, embeddings.CACHE_ENV, wordlists.CACHE_ENV, embedding.RUNTIME_ENV, cache.ENV_VAR,
            local.ENV_THREADS, local.ENV_MODEL_DIR) == ("COAT_READER", "COAT_READER_CACHE", "COAT_READER_CACHE",
                                                        "COAT_ENCODER_RUNTIME", "COAT_LLM_CACHE", "COAT_LLM_THREADS",
                                                        "COAT_MODEL_DIR")
    assert set(ENV_VARS) == {"COAT_READER", "COAT_READER_CACHE", "COAT_ENCODER_RUNTIME", "COAT_LLM_CACHE",
                             "COAT_LLM_THREADS", "COAT_MODEL_DIR"}
    doc = (REPO / "docs" / "architecture.md").read_text()
    assert all(f"`{name}`" in doc for name in ENV_VARS)  # each is documented with where it is read


ROOTS = ("planner/api.py", "planner/cli/", "planner/bench/", "planner/agents/")
READ_ELSEWHERE = {
    "planner/config.py": "the COAT_* settings (Settings.from_env)",
    "planner/paths.py": "COAT_DATA_DIR: the one resolver of the data directory, a contract leaf scenes use too",
    "planner/llm/factory.py": "OPENAI_BASE_URL, OPENAI_API_KEY, OLLAMA_HOST: the provider clients' own settings",
    "planner/llm/served.py": "OPENAI_BASE_URL, OPENAI_API_KEY of a served model's client",
    "planner/download/fetch.py": "COAT_DOWNLOAD_MIRROR: tooling for `coat data download`",
}
"""The planner modules outside the composition roots that read environment variables, and what they read."""


def _reads_environment(path: Path) -> bool:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and \
                any(a.name in ("environ", "getenv") for a in node.names):
            return True
    return False


def test_only_the_config_and_the_listed_modules_read_the_environment() -> None:
    reading = {str(p.relative_to(REPO)) for p in (REPO / "planner").rglob("*.py") if _reads_environment(p)}
    core = {p for p in reading if not p.startswith(ROOTS)}
    assert core == set(READ_ELSEWHERE), "a core module reads the environment: give it a Settings field instead"


@pytest.mark.parametrize(("cores", "load", "threads"), [
    (2, 0.3, 2), (2, 1.2, 2),  # this process alone: both cores
    (2, 2.0, 1), (2, 5.0, 1),  # another job (or several) on the cores: one thread, never 0
    (8, 1.0, 4), (8, 6.0, 3),  # at most 4; the idle cores when fewer
    (2, None, 1), (8, None, 4),  # no load average: half the cores
])
def test_llama_threads_are_the_cores_other_jobs_leave_idle(cores: int, load: float | None, threads: int) -> None:
    from planner.llm.threads import idle_threads

    assert idle_threads(cores, load) == threads


def test_llama_threads_set_by_the_variable_win_over_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.llm import threads

    monkeypatch.setattr(threads, "_load_average", lambda: 0.0)
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda _pid: set(range(8)), raising=False)
    threads._threads_by_load.cache_clear()
    try:
        with use_settings(Settings(llm_threads=1)):
            assert threads.default_threads() == 1
        assert threads.default_threads() == min(4, threads._threads_by_load())
        assert threads.default_threads() == 4  # 8 idle cores: the cap
        monkeypatch.setattr(threads, "_load_average", lambda: 50.0)
        assert threads.default_threads() == threads._threads_by_load()  # chosen once per process, not per call
        assert threads.default_threads() == 4  # the load moved to 50 after the first choice: still 4, not 1
    finally:
        threads._threads_by_load.cache_clear()
