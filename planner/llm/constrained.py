"""Decoding constrained to a JSON schema: how each kind of chat model is told to produce only valid JSON.

A reply whose tokens are drawn under a grammar cannot leave the schema (an enum value, an array's length, the
fields in order), so a small model's answer is well-formed by construction and only what a schema cannot say is
left to validation. The kind of model decides how:

- ``grammar``: the embedded llama.cpp models (:class:`~planner.llm.local.LlamaCppChatModel`) decode under
  llama-cpp-python's GBNF grammar made from the schema (``LlamaGrammar.from_json_schema``);
- ``json_object``: ``served:`` models (llama.cpp's servers, ``python -m llama_cpp.server`` and ``llama-server``) get
  ``response_format={"type": "json_object", "schema": ...}``, which the server turns into the same grammar;
- ``json_schema``: ``openai:`` models (OpenAI and compatible servers: vLLM, ``llama-server``) get OpenAI's
  structured output, ``response_format={"type": "json_schema", "json_schema": {...}}``;
- ``prompt``: any other chat model (the fakes, ollama) gets the schema written into the prompt, and its reply is
  only validated.

The response format goes in the request body (``extra_body``), so langchain-openai sends it as it is and reads the
reply as plain text.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Literal

from .._optional import require

Decoding = Literal["grammar", "json_object", "json_schema", "prompt"]

SCHEMA_NAME = "reply"
"""The schema's name in an OpenAI ``json_schema`` response format."""

_GRAMMARS: dict[str, Any] = {}
_GRAMMAR_LOCK = threading.Lock()
MAX_GRAMMARS = 256
"""Compiled grammars kept (one per distinct schema; a request's schema lists the types it names)."""


def decoding_of(model: Any) -> Decoding:
    """How replies of a langchain chat model are constrained to a schema (see the module table)."""
    from .local import LlamaCppChatModel

    if isinstance(model, LlamaCppChatModel):
        return "grammar"
    names = {c.__name__ for c in type(model).__mro__}
    if "ServedChatModel" in names:
        return "json_object"
    if "ChatOpenAI" in names:
        return "json_schema"
    return "prompt"


def grammar(schema: Mapping[str, Any]) -> Any:
    """llama-cpp-python's grammar for a JSON schema (compiled once per schema).

    Raises:
        DependencyNotInstalled: llama-cpp-python (the ``local-llm`` extra) is missing.
        ValueError: a schema llama.cpp cannot turn into a grammar (a programmer error: the schemas are ours).
    """
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    with _GRAMMAR_LOCK:
        got = _GRAMMARS.get(text)
    if got is None:
        llama_cpp = require("llama_cpp", "local-llm")
        got = llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        with _GRAMMAR_LOCK:
            if len(_GRAMMARS) >= MAX_GRAMMARS:
                _GRAMMARS.pop(next(iter(_GRAMMARS)))
            _GRAMMARS[text] = got
    return got


def invoke_kwargs(decoding: Decoding, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``model.invoke(messages, **kwargs)`` that constrain its reply to ``schema``."""
    if decoding == "grammar":
        return {"grammar": grammar(schema)}
    if decoding == "json_object":
        return {"extra_body": {"response_format": {"type": "json_object", "schema": dict(schema)}}}
    if decoding == "json_schema":
        fmt = {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": dict(schema), "strict": False}}
        return {"extra_body": {"response_format": fmt}}
    return {}


__all__ = ["MAX_GRAMMARS", "SCHEMA_NAME", "Decoding", "decoding_of", "grammar", "invoke_kwargs"]
