"""The planner's one boundary to language models: a small protocol, one langchain adapter, ``make_llm``.

- :mod:`.base`: :class:`LLMBackend`, the protocol the stages use, and :class:`LLMStats`;
- :mod:`.parsing`: a raw reply into a validated pydantic answer;
- :mod:`.langchain`: :class:`LangChainBackend`, the adapter over any langchain chat model (re-ask, cache);
- :mod:`.transport`: which provider errors are retried (with backoff) and what the rest become;
- :mod:`.factory`: :func:`make_llm` from a spec string (``local``, ``openai:<model>``, ``ollama:<model>``, ``fake``);
- :mod:`.served`: ``served:<base_url>``, a model behind an OpenAI-compatible server that also scores options;
- :mod:`.local`: the embedded llama.cpp models (:mod:`.shipped_scores`: their log-likelihoods of fixed prompts,
  shipped); :mod:`.cache`: the on-disk call cache;
  :mod:`.embedding`: the MiniLM sentence encoder; :mod:`.fakes`: fake models for tests and demos.

Example:
    >>> from planner.schemas import ObjectChoice
    >>> llm = FakeLLM(['{"object_id": "knife_1", "rationale": "sharp"}'])
    >>> llm.structured([HumanMessage("Which object cuts a cake?")], ObjectChoice,
    ...                context={"candidate_ids": ["knife_1", "pillow_2"]}).object_id
    'knife_1'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import ModelUnavailableError

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

    from .base import LLMBackend, LLMStats
    from .factory import SPEC_FORMS, make_llm
    from .fakes import DeterministicLLM, FakeLLM, ScriptedChatModel
    from .langchain import LangChainBackend
    from .parsing import format_validation_error, parse_reply

# The names are imported on first use: importing langchain takes seconds, and a submodule such as
# .embedding (the sentence encoder the reader uses) must not pay for it.
_LAZY: dict[str, str] = {
    "AIMessage": "langchain_core.messages", "BaseMessage": "langchain_core.messages",
    "HumanMessage": "langchain_core.messages", "SystemMessage": "langchain_core.messages",
    "LLMBackend": ".base", "LLMStats": ".base", "SPEC_FORMS": ".factory", "make_llm": ".factory",
    "DeterministicLLM": ".fakes", "FakeLLM": ".fakes", "ScriptedChatModel": ".fakes",
    "LangChainBackend": ".langchain", "format_validation_error": ".parsing", "parse_reply": ".parsing",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "SPEC_FORMS",
    "AIMessage",
    "BaseMessage",
    "DeterministicLLM",
    "FakeLLM",
    "HumanMessage",
    "LLMBackend",
    "LLMStats",
    "LangChainBackend",
    "ModelUnavailableError",
    "ScriptedChatModel",
    "SystemMessage",
    "format_validation_error",
    "make_llm",
    "parse_reply",
]
