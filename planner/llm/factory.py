"""``make_llm``: a model backend from a spec string; provider packages are imported only here."""

from __future__ import annotations

import os
from typing import Any

from .._optional import require
from ..errors import ConfigError
from .base import LLMBackend
from .cache import LLMCache
from .fakes import DeterministicLLM
from .langchain import LangChainBackend, StructuredMode
from .local import LOCAL_MODELS

SPEC_FORMS: tuple[str, ...] = (
    "local",
    "local:smollm2",
    "local:gemma-270m",
    "openai:<model>",
    "ollama:<model>",
    "served:<base_url>[#<model>]",
    "fake",
)
"""The valid ``make_llm`` spec forms, as shown in error messages."""


def make_llm(
    spec: str = "local",
    *,
    cache: bool | LLMCache = True,
    cache_path: str | os.PathLike[str] | None = None,
    temperature: float = 0.0,
    max_retries: int = 2,
    base_url: str | None = None,
    timeout: float = 60.0,
    transport_retries: int = 2,
    structured_mode: StructuredMode = "auto",
    **model_kwargs: Any,
) -> LLMBackend:
    """Build a model backend from a spec string; provider packages are imported only here.

    Specs: ``local`` (= ``local:smollm2``, SmolLM2-135M-Instruct in-process), ``local:gemma-270m``,
    ``openai:<model>`` (any OpenAI-compatible server via ``base_url`` or ``$OPENAI_BASE_URL``; the key
    from ``$OPENAI_API_KEY``, a placeholder when a base URL is given), ``ollama:<model>`` (``base_url`` or
    ``$OLLAMA_HOST``), ``served:<base_url>[#<model>][&template=<t>]`` (an OpenAI-compatible server that
    also scores options from completion log-probabilities: llama.cpp's server, vLLM; see
    :mod:`planner.llm.served`), ``fake`` (:class:`DeterministicLLM`, never cached).

    Args:
        spec: One of :data:`SPEC_FORMS`.
        cache: True for the on-disk cache, False for none (``--no-cache``), or an :class:`LLMCache`.
        cache_path: Cache file (default ``$COAT_LLM_CACHE`` or the user cache dir).
        temperature: Sampling temperature; 0 is greedy and reproducible.
        max_retries: Re-asks after an invalid answer.
        base_url: Server URL for ``openai:`` / ``ollama:``.
        timeout: Seconds one request to a server may take (``openai:`` / ``ollama:``); a silent server
            costs at most ``(transport_retries + 1) * timeout`` plus backoff before
            :class:`~planner.errors.ModelUnavailableError`.
        transport_retries: Retries of a request the server failed transiently (see
            :class:`LangChainBackend`).
        structured_mode: See :class:`LangChainBackend`.
        **model_kwargs: Passed to the chat model (e.g. ``n_ctx``, ``max_tokens``, ``seed`` for local).

    Returns:
        An :class:`LLMBackend`.

    Raises:
        ConfigError: unknown spec (the message lists the valid forms), or a timeout that is not > 0.
        DependencyNotInstalled: the provider's extra is not installed (the message has the pip line).
    """
    if not (timeout > 0) or timeout == float("inf"):
        raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
    kind, _, name = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "fake" and not name:
        return DeterministicLLM()

    def _cache() -> LLMCache | None:
        if isinstance(cache, LLMCache):
            return cache
        return LLMCache(cache_path) if cache else None

    common = {"max_retries": max_retries, "structured_mode": structured_mode}
    if kind == "local":
        key = name or "smollm2"
        if key not in LOCAL_MODELS:
            raise ConfigError(
                f"unknown local model {key!r} in spec {spec!r}; local models are "
                f"{sorted(LOCAL_MODELS)}. Valid specs: {', '.join(SPEC_FORMS)}"
            )
        from .local import LlamaCppChatModel  # imports llama_cpp lazily itself

        model = LlamaCppChatModel.from_name(key, temperature=temperature, **model_kwargs)
        return LangChainBackend(model, model_id=f"local:{key}", cache=_cache(), **common)
    if kind == "openai" and name:
        mod = require("langchain_openai", "openai")
        url = base_url or os.environ.get("OPENAI_BASE_URL")
        key_ = os.environ.get("OPENAI_API_KEY") or ("sk-no-key-needed" if url else None)
        if key_ is None:
            raise ConfigError(
                f"spec {spec!r} needs OPENAI_API_KEY, or a base_url / OPENAI_BASE_URL for a local "
                "OpenAI-compatible server"
            )
        model = mod.ChatOpenAI(
            model=name,
            base_url=url,
            api_key=key_,
            temperature=temperature,
            timeout=timeout,
            max_retries=0,  # retried by LangChainBackend, with backoff and a clear error at the end
            **model_kwargs,
        )
        return LangChainBackend(
            model, model_id=f"openai:{name}", cache=_cache(), endpoint=url or "https://api.openai.com/v1",
            transport_retries=transport_retries, **common,
        )
    if kind == "ollama" and name:
        mod = require("langchain_ollama", "ollama")
        url = base_url or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        model = mod.ChatOllama(
            model=name, base_url=url, temperature=temperature, client_kwargs={"timeout": timeout}, **model_kwargs
        )
        return LangChainBackend(model, model_id=f"ollama:{name}", cache=_cache(), endpoint=url,
                                transport_retries=transport_retries, **common)
    if kind == "served":  # generates and scores options (planner.llm.served)
        from .served import parse_served_spec, served_chat_model

        served = parse_served_spec(name, base_url)
        model = served_chat_model(served, temperature=temperature, timeout=timeout, retries=transport_retries,
                                  **model_kwargs)
        return LangChainBackend(model, model_id=f"served:{model.model_name}", cache=_cache(),
                                endpoint=served.base_url, transport_retries=transport_retries, **common)
    raise ConfigError(f"unknown model spec {spec!r}; valid forms are: {', '.join(SPEC_FORMS)}")


__all__ = ["SPEC_FORMS", "make_llm"]
