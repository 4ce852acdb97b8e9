"""What a :class:`~planner.planning.Planner` is built from, and the one place environment variables are read.

Two frozen models:

- :class:`Settings`: the process settings users give as ``COAT_*`` environment variables (how the reader reads,
  where its caches live, which runtime runs MiniLM, the model-call cache, the llama.cpp threads and model files).
  :meth:`Settings.from_env` and :func:`current_setting` (one field) are the only readers of those variables. The
  composition roots call it (``coat`` once per command, :func:`planner.api.plan` per call) and hand the values down:
  core modules ask :func:`current_setting` for the one field they use, never ``os.environ``, so a bad value of a
  variable they do not use cannot stop them.
- :class:`PlannerConfig`: everything a planner keeps from one task to the next (pipeline, strategy, how free
  text is decided, the model spec, the data directory, the learned model's directory) and the settings.
  What changes per call (the task, the scene, excluded or fixed objects, goals already met) is an argument of
  :meth:`~planner.planning.Planner.plan` instead.

A bad value raises :class:`~planner.errors.ConfigError` naming the valid ones.

Example:
    >>> cfg = PlannerConfig(strategy="knowledge", settings=Settings(reader="lexical"))
    >>> cfg.settings.reader, cfg.interpret
    ('lexical', 'nearest')
    >>> PlannerConfig(strategy="magic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    planner.errors.ConfigError: strategy must be one of 'hybrid', 'llm', 'knowledge', 'learned', got 'magic'
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import ConfigError
from .paths import expand_user

READER_ENV = "COAT_READER"
"""``lexical``: the reader matches by word overlap even with MiniLM installed (no encoder load)."""
READER_CACHE_ENV = "COAT_READER_CACHE"
"""Directory of the reader's caches (embeddings of its known texts, parses, word indexes); ``off`` keeps none."""
ENCODER_RUNTIME_ENV = "COAT_ENCODER_RUNTIME"
"""``numpy`` or ``torch``: which runtime runs MiniLM (default numpy when ``tokenizers`` is installed)."""
LLM_CACHE_ENV = "COAT_LLM_CACHE"
"""The model-call cache file (default the user cache dir / ``llm-cache.sqlite``)."""
LLM_THREADS_ENV = "COAT_LLM_THREADS"
"""llama.cpp threads of the embedded models (default half the cores, at most 4)."""
MODEL_DIR_ENV = "COAT_MODEL_DIR"
"""Where assembled model files (the Gemma GGUF) are kept (default the user cache dir / ``models``)."""

ENV_VARS: tuple[str, ...] = (READER_ENV, READER_CACHE_ENV, ENCODER_RUNTIME_ENV, LLM_CACHE_ENV, LLM_THREADS_ENV,
                             MODEL_DIR_ENV)
"""The variables :meth:`Settings.from_env` reads (``docs/architecture.md`` lists every variable and its reader)."""

ReaderMethod = Literal["auto", "lexical"]
"""``auto``: MiniLM when the ``embed`` extra is installed, else word overlap; ``lexical``: word overlap."""
EncoderRuntime = Literal["numpy", "torch"]
READER_METHODS: tuple[str, ...] = ReaderMethod.__args__  # type: ignore[attr-defined]
ENCODER_RUNTIMES: tuple[str, ...] = EncoderRuntime.__args__  # type: ignore[attr-defined]


class _Config(BaseModel):
    """Frozen, unknown fields refused, and pydantic's errors raised as one ConfigError naming the fix."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise _config_error(type(self).__name__, e) from None


def _config_error(model: str, e: ValidationError) -> Exception:
    """The first error of ``e``: the ConfigError (or TypeError) a validator raised, else one naming the field."""
    err = e.errors()[0]
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, (ConfigError, TypeError)):
        return cause
    field = ".".join(str(p) for p in err.get("loc", ())) or "config"
    if err.get("type") == "extra_forbidden":
        fields = ", ".join(sorted(_FIELDS.get(model, ())))
        return ConfigError(f"{model} has no field {field!r}; its fields are {fields}")
    return ConfigError(f"{model}.{field}: {err.get('msg', e)}, got {err.get('input')!r}")


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> Any:
    """``value`` when it is one of ``allowed``; else ConfigError naming them (``check_choice``'s wording)."""
    if isinstance(value, str) and value in allowed:
        return value
    valid = ", ".join(repr(a) for a in allowed)
    raise ConfigError(f"{name} must be one of {valid}, got {value!r}")


class Settings(_Config):
    """The process settings of ``COAT_*`` environment variables, as values (:meth:`from_env` reads them).

    Attributes:
        reader: ``auto`` or ``lexical`` (``$COAT_READER``).
        reader_cache: The reader's cache directory, ``"off"`` for none, or None for the user cache dir /
            ``reader`` (``$COAT_READER_CACHE``); see :meth:`reader_cache_dir`.
        encoder_runtime: ``numpy`` or ``torch``, or None to choose by what is installed (``$COAT_ENCODER_RUNTIME``).
        llm_cache: The model-call cache file, or None for the default (``$COAT_LLM_CACHE``).
        llm_threads: llama.cpp threads (at least 1), or None for half the cores, at most 4 (``$COAT_LLM_THREADS``).
        model_dir: Assembled model files, or None for the user cache dir / ``models`` (``$COAT_MODEL_DIR``).
    """

    reader: ReaderMethod = "auto"
    reader_cache: Path | Literal["off"] | None = None
    encoder_runtime: EncoderRuntime | None = None
    llm_cache: Path | None = None
    llm_threads: int | None = Field(default=None, ge=1)
    model_dir: Path | None = None

    @field_validator("reader", mode="before")
    @classmethod
    def _known_reader(cls, v: Any) -> Any:
        return _choice("reader", v, READER_METHODS)

    @field_validator("encoder_runtime", mode="before")
    @classmethod
    def _known_runtime(cls, v: Any) -> Any:
        return v if v is None else _choice("encoder_runtime", v, ENCODER_RUNTIMES)

    def reader_cache_dir(self) -> Path | None:
        """Where the reader keeps its caches: :attr:`reader_cache`, the user cache dir / ``reader`` when that is
        None, or None (nothing kept) when it is ``"off"``."""
        return _cache_dir(self.reader_cache)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment gives (``os.environ``, or ``environ``); unset variables keep the defaults.

        Values are read as they always were: ``COAT_READER`` is ``lexical`` (any case, spaces around it) or
        else means ``auto``; ``COAT_READER_CACHE=off`` keeps nothing; ``~`` is expanded in ``COAT_LLM_CACHE`` and
        ``COAT_MODEL_DIR``; ``COAT_LLM_THREADS`` below 1 means 1.

        Raises:
            ConfigError: ``COAT_ENCODER_RUNTIME`` not one of numpy, torch, ``COAT_LLM_THREADS`` not an integer,
                or a ``~user`` naming no user (each message names the variable and what is accepted).
        """
        env = os.environ if environ is None else environ
        return _from_env(tuple(env.get(variable) for variable, _ in _FROM_ENV.values()))


def _cache_dir(reader_cache: Path | str | None) -> Path | None:
    if reader_cache == "off":
        return None
    if reader_cache is None:
        from .paths import user_cache_dir

        return user_cache_dir() / "reader"
    return Path(reader_cache)


@functools.lru_cache(maxsize=16)
def _from_env(raw: tuple[str | None, ...]) -> Settings:
    """:meth:`Settings.from_env` of the variables' raw values (made once per distinct environment)."""
    return Settings(**{field: read(value) for (field, (_, read)), value in zip(_FROM_ENV.items(), raw, strict=True)})


def _reader(raw: str | None) -> str:
    return "lexical" if (raw or "").strip().lower() == "lexical" else "auto"


def _reader_cache(raw: str | None) -> Path | str | None:
    return "off" if raw == "off" else Path(raw) if raw else None


def _runtime(raw: str | None) -> str | None:
    chosen = (raw or "").strip().lower()
    if chosen and chosen not in ENCODER_RUNTIMES:
        raise ConfigError(f"{ENCODER_RUNTIME_ENV}={chosen!r}: expected one of {', '.join(ENCODER_RUNTIMES)}")
    return chosen or None


def _threads(raw: str | None) -> int | None:
    if not raw:
        return None
    try:
        return max(1, int(raw))
    except ValueError as exc:
        raise ConfigError(f"${LLM_THREADS_ENV} must be a positive integer, got {raw!r}") from exc


def _path(variable: str) -> Callable[[str | None], Path | None]:
    return lambda raw: expand_user(raw, variable) if raw else None


_FROM_ENV: dict[str, tuple[str, Callable[[str | None], Any]]] = {
    "reader": (READER_ENV, _reader), "reader_cache": (READER_CACHE_ENV, _reader_cache),
    "encoder_runtime": (ENCODER_RUNTIME_ENV, _runtime), "llm_cache": (LLM_CACHE_ENV, _path(LLM_CACHE_ENV)),
    "llm_threads": (LLM_THREADS_ENV, _threads), "model_dir": (MODEL_DIR_ENV, _path(MODEL_DIR_ENV)),
}
"""Each Settings field: its variable and how its raw value is read (unset: None)."""

_ACTIVE: contextvars.ContextVar[Settings | None] = contextvars.ContextVar("coat_settings", default=None)


def current_settings() -> Settings:
    """The settings core modules act on: those of the enclosing :func:`use_settings` block (a planner's, the
    running command's), else the environment's (:meth:`Settings.from_env`, for a core function called on its
    own).

    Raises:
        ConfigError: outside a block, an environment variable with a value that is not accepted.
    """
    active = _ACTIVE.get()
    return active if active is not None else Settings.from_env()


def current_setting(field: str) -> Any:
    """One field of :func:`current_settings`: the enclosing block's, else read from its own variable alone, so a bad
    value of another variable does not matter to the code that reads this one.

    Raises:
        ConfigError: ``field`` is not a Settings field, or (outside a block) its variable has a value that is not
            accepted.
    """
    active = _ACTIVE.get()
    if field not in _FROM_ENV:
        raise ConfigError(f"Settings has no field {field!r}; its fields are {', '.join(_FROM_ENV)}")
    if active is not None:
        return getattr(active, field)
    variable, read = _FROM_ENV[field]
    return read(os.environ.get(variable))


def reader_cache_dir() -> Path | None:
    """:meth:`Settings.reader_cache_dir` of the current reader cache setting (:func:`current_setting`)."""
    return _cache_dir(current_setting("reader_cache"))


@contextlib.contextmanager
def use_settings(settings: Settings) -> Iterator[Settings]:
    """Make ``settings`` what :func:`current_settings` returns inside the block (nested blocks win).

    A context variable, like :func:`planner.paths.use_data_dir`: a thread started inside sees it only when run in
    a copy of the context (``contextvars.copy_context().run``).

    Raises:
        TypeError: ``settings`` is not a :class:`Settings`.
    """
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a planner.config.Settings, got {type(settings).__name__}")
    token = _ACTIVE.set(settings)
    try:
        yield settings
    finally:
        _ACTIVE.reset(token)


Strategy = Literal["hybrid", "llm", "knowledge", "learned"]
Interpret = Literal["exact", "nearest", "model"]
"""How a task that is not a COAT task is decided once it is read (:mod:`planner.understanding`): ``nearest``
(each role borrows the annotations of the closest COAT task of its utility, the default) or ``exact`` (the
request's own words go to the model or learned strategy; COAT is silent on them). ``model``: the generating
model ``llm`` parses the text into roles and targets (structured output, re-asked on validation errors), and
the roles borrow as with ``nearest``."""


class PlannerConfig(_Config):
    """Everything a :class:`~planner.planning.Planner` keeps between tasks, as frozen values.

    Attributes:
        planner: The decision pipeline: ``two-stage`` (COAT's) or ``single`` (one prompt, for ablations).
        strategy: ``hybrid`` (COAT's annotations where the task is annotated, the model otherwise), ``llm``,
            ``knowledge`` or ``learned``.
        interpret: How free text is decided (:data:`Interpret`).
        llm: A model spec (``local``, ``openai:<model>``, ``fake``...) or None (COAT's annotations alone). A model
            object (a langchain chat model, a backend) is given to the Planner itself, not kept here.
        data_dir: The data directory of the knowledge base (None: the running command's, ``$COAT_DATA_DIR`` or
            the user cache, as :func:`planner.paths.resolve_data_dir` finds it).
        learned: With ``strategy="learned"``: the trained model's directory (None: where ``coat train`` writes,
            trained there on first use).
        settings: The process settings (:class:`Settings`).
    """

    planner: str = "two-stage"
    strategy: Strategy = "hybrid"
    interpret: Interpret = "nearest"
    llm: str | None = None
    data_dir: Path | None = None
    learned: Path | None = None
    settings: Settings = Field(default_factory=Settings)

    @field_validator("planner", mode="before")
    @classmethod
    def _known_planner(cls, v: Any) -> Any:
        from .pipeline import PIPELINES

        return _choice("planner", v, tuple(PIPELINES))

    @field_validator("strategy", mode="before")
    @classmethod
    def _known_strategy(cls, v: Any) -> Any:
        return _choice("strategy", v, Strategy.__args__)  # type: ignore[attr-defined]

    @field_validator("interpret", mode="before")
    @classmethod
    def _known_interpret(cls, v: Any) -> Any:
        return _choice("interpret", v, Interpret.__args__)  # type: ignore[attr-defined]

    @field_validator("data_dir", "learned")
    @classmethod
    def _no_nul(cls, v: Path | None) -> Path | None:
        if v is not None and "\x00" in str(v):
            raise ConfigError(f"{v!r} contains a NUL character; no path can")
        return v

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **fields: Any) -> PlannerConfig:
        """A config of ``fields`` with the environment's :class:`Settings` (:meth:`Settings.from_env`).

        Raises:
            ConfigError: a bad field or environment variable (the message names the valid values).
        """
        return cls(settings=Settings.from_env(environ), **fields)


_FIELDS = {"Settings": tuple(Settings.model_fields), "PlannerConfig": tuple(PlannerConfig.model_fields)}

__all__ = [
    "ENCODER_RUNTIMES", "ENCODER_RUNTIME_ENV", "ENV_VARS", "EncoderRuntime", "Interpret", "LLM_CACHE_ENV",
    "LLM_THREADS_ENV", "MODEL_DIR_ENV", "PlannerConfig", "READER_CACHE_ENV", "READER_ENV", "READER_METHODS",
    "ReaderMethod", "Settings", "Strategy", "current_setting", "current_settings", "reader_cache_dir", "use_settings",
]
