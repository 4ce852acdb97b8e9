"""The one adapter between the planner and language models: any langchain ``BaseChatModel``."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from ..errors import ConfigError, ModelUnavailableError, SelectionError
from .base import LLMStats, M, check_options
from .cache import LLMCache
from .parsing import JSON_INSTRUCTIONS, REASK_TEMPLATE, format_validation_error, parse_reply

log = logging.getLogger(__name__)

StructuredMode = Literal["auto", "tools", "text"]


def _message_payload(messages: Sequence[BaseMessage]) -> list[list[Any]]:
    """A JSON-able, order-preserving form of messages for cache keys."""
    out: list[list[Any]] = []
    for m in messages:
        item: list[Any] = [m.type, m.content]
        if isinstance(m, AIMessage) and m.tool_calls:
            item.append([[c["name"], c["args"]] for c in m.tool_calls])
        out.append(item)
    return out


def _with_json_instructions(messages: Sequence[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    """Append the schema to the last human message (JSON-in-text mode)."""
    msgs = list(messages)
    text = JSON_INSTRUCTIONS.format(schema=json.dumps(schema.model_json_schema(), separators=(",", ":")))
    for i in range(len(msgs) - 1, -1, -1):
        if isinstance(msgs[i], HumanMessage) and isinstance(msgs[i].content, str):
            msgs[i] = HumanMessage(str(msgs[i].content) + text)
            return msgs
    return [*msgs, HumanMessage(text.strip())]


def _supports_tools(model: BaseChatModel) -> bool:
    # BaseChatModel.bind_tools raises NotImplementedError; providers with tool calling override it.
    return type(model).bind_tools is not BaseChatModel.bind_tools


def _is_connection_error(exc: BaseException) -> bool:
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        name = type(e).__name__
        if isinstance(e, (ConnectionError, TimeoutError)) or "Connect" in name or "Timeout" in name:
            return True
        e = e.__cause__ or e.__context__
    return False


class LangChainBackend:
    """The single adapter from any langchain-core ``BaseChatModel`` to :class:`LLMBackend`.

    Args:
        model: Any chat model (ChatOpenAI, ChatOllama, :class:`planner.llm.local.LlamaCppChatModel`...).
        model_id: Stable id used in logs and cache keys; defaults to ``<_llm_type>:<model name>``.
        max_retries: Re-asks after an invalid reply (so up to ``max_retries + 1`` attempts).
        cache: An :class:`LLMCache` to store every call in, or None.
        structured_mode: ``"tools"`` uses ``with_structured_output(schema, include_raw=True)``;
            ``"text"`` puts the JSON schema in the prompt and parses the reply; ``"auto"`` picks tools
            when the model implements tool calling.
        endpoint: Server URL, named in the error when the server cannot be reached.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        model_id: str | None = None,
        max_retries: int = 2,
        cache: LLMCache | None = None,
        structured_mode: StructuredMode = "auto",
        endpoint: str | None = None,
    ) -> None:
        if max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0, got {max_retries}")
        if structured_mode not in ("auto", "tools", "text"):
            raise ConfigError(f"structured_mode must be one of 'auto', 'tools', 'text'; got {structured_mode!r}")
        self.model = model
        self.model_id = model_id or f"{model._llm_type}:{_model_name(model)}"
        self.max_retries = max_retries
        self.cache = cache
        self.endpoint = endpoint
        self.use_tools = structured_mode == "tools" or (structured_mode == "auto" and _supports_tools(model))
        self.stats = LLMStats()
        self._runnables: dict[type[BaseModel], Any] = {}

    def __repr__(self) -> str:
        return f"LangChainBackend({self.model_id!r}, tools={self.use_tools}, cache={self.cache!r})"

    # -- stats

    def reset_stats(self) -> None:
        """Zero the counters."""
        self.stats = LLMStats()

    # -- structured answers

    def structured(
        self,
        messages: Sequence[BaseMessage],
        schema: type[M],
        *,
        context: Mapping[str, Any] | None = None,
    ) -> M:
        """Ask and validate into ``schema``; re-ask with the validation error; raise after the limit.

        Args:
            messages: The conversation (system + human messages) built by a stage.
            schema: Pydantic model the answer must validate into.
            context: Validation context, e.g. ``{"candidate_ids": [...]}`` for ObjectChoice.

        Returns:
            The validated answer.

        Raises:
            SelectionError: every attempt was invalid (``attempts``, ``last_raw``, ``errors``).
            ModelUnavailableError: the model server could not be reached.
        """
        msgs = list(messages) if self.use_tools else _with_json_instructions(messages, schema)
        errors: list[str] = []
        raw = ""
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            raw = self._ask(msgs, schema)
            try:
                return parse_reply(raw, schema, context)
            except (ValidationError, ValueError) as exc:
                err = format_validation_error(exc)
                errors.append(err)
                log.debug(
                    "%s: invalid %s reply (attempt %d/%d): %s", self.model_id, schema.__name__, attempt, attempts, err
                )
                if attempt < attempts:
                    self.stats.retries += 1
                    msgs = [*msgs, AIMessage(raw), HumanMessage(REASK_TEMPLATE.format(error=err))]
        raise SelectionError(
            f"{self.model_id} gave no valid {schema.__name__}",
            attempts=attempts,
            last_raw=raw,
            errors=errors,
        )

    def generate(self, messages: Sequence[BaseMessage]) -> str:
        """Return the model's plain text reply (cached like every call)."""
        return self._ask(list(messages), None)

    def _params(self, schema: type[BaseModel] | None) -> dict[str, Any]:
        try:
            params = dict(self.model._identifying_params)
        except Exception:  # a provider whose params cannot be listed: key on the id alone
            params = {}
        params.pop("messages", None)  # fake models list their script here
        if self.use_tools and schema is not None:
            params["tool_schema"] = schema.model_json_schema()
        return params

    def _ask(self, msgs: list[BaseMessage], schema: type[BaseModel] | None) -> str:
        method = "structured" if (self.use_tools and schema is not None) else "generate"
        key = None
        if self.cache is not None:
            key = LLMCache.make_key(self.model_id, method, _message_payload(msgs), self._params(schema))
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return str(hit["text"])
        t0 = time.perf_counter()
        try:
            if method == "structured":
                text, usage = self._invoke_tools(msgs, schema)  # type: ignore[arg-type]
            else:
                reply = self.model.invoke(msgs)
                text, usage = _text_of(reply), getattr(reply, "usage_metadata", None) or {}
        except Exception as exc:
            if _is_connection_error(exc):
                where = self.endpoint or "its default URL"
                raise ModelUnavailableError(
                    f"cannot reach the model server for {self.model_id} at {where}: {exc}. Start the server "
                    "or fix the base URL (--llm, OPENAI_BASE_URL / OLLAMA_HOST); cached answers are kept."
                ) from exc
            raise
        dt = time.perf_counter() - t0
        self.stats.calls += 1
        self.stats.seconds += dt
        self.stats.prompt_tokens += int(usage.get("input_tokens", 0) or 0)
        self.stats.completion_tokens += int(usage.get("output_tokens", 0) or 0)
        if self.cache is not None and key is not None:
            self.cache.put(key, {"text": text, "usage": dict(usage)}, model_id=self.model_id, method=method)
        return text

    def _invoke_tools(self, msgs: list[BaseMessage], schema: type[BaseModel]) -> tuple[str, dict[str, Any]]:
        runnable = self._runnables.get(schema)
        if runnable is None:
            try:
                runnable = self.model.with_structured_output(schema, include_raw=True, method="function_calling")
            except (TypeError, ValueError):  # providers without a `method` argument
                runnable = self.model.with_structured_output(schema, include_raw=True)
            self._runnables[schema] = runnable
        out = runnable.invoke(msgs)
        raw = out["raw"] if isinstance(out, dict) else out
        usage = getattr(raw, "usage_metadata", None) or {}
        # Validate ourselves (with the context) from the raw tool arguments; fall back to the text.
        calls = getattr(raw, "tool_calls", None) or []
        if calls:
            return json.dumps(calls[0]["args"], ensure_ascii=False), usage
        return _text_of(raw), usage

    # -- scoring

    @property
    def supports_scoring(self) -> bool:
        """True when the wrapped model has ``score_options`` (the embedded llama.cpp model does)."""
        return callable(getattr(self.model, "score_options", None)) and bool(getattr(self.model, "can_score", True))

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        """Calibrated log-likelihood of each option (see :class:`LLMBackend`); cached.

        Raises:
            NotImplementedError: the wrapped model cannot score.
            ConfigError: no options, or duplicate options.
        """
        if not self.supports_scoring:
            raise NotImplementedError(
                f"{self.model_id} cannot score options (only the embedded llama.cpp models can); "
                "use structured() instead"
            )
        options = list(options)
        check_options(options)
        key = None
        if self.cache is not None:
            payload = {"prompt": prompt, "options": options, "neutral_prompt": neutral_prompt}
            key = LLMCache.make_key(self.model_id, "score", payload, self._params(None))
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return [float(x) for x in hit["scores"]]
        t0 = time.perf_counter()
        scores = [float(s) for s in self.model.score_options(prompt, options, neutral_prompt=neutral_prompt)]  # type: ignore[attr-defined]
        self.stats.calls += 1
        self.stats.seconds += time.perf_counter() - t0
        usage = getattr(self.model, "last_score_usage", None) or {}
        self.stats.prompt_tokens += int(usage.get("prompt_tokens", 0))
        self.stats.completion_tokens += int(usage.get("completion_tokens", 0))
        if self.cache is not None and key is not None:
            self.cache.put(key, {"scores": scores}, model_id=self.model_id, method="score")
        return scores


def _model_name(model: BaseChatModel) -> str:
    for attr in ("model_name", "model", "model_id"):
        v = getattr(model, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(model).__name__


def _text_of(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
    return str(content)


__all__ = ["LangChainBackend", "StructuredMode"]
