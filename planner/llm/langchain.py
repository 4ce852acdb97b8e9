"""The one adapter between the planner and language models: any langchain ``BaseChatModel``."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from ..errors import ConfigError, ModelUnavailableError, SelectionError
from . import transport
from .base import LLMStats, M, check_options, check_scores
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
    return _appended(messages, JSON_INSTRUCTIONS.format(schema=json.dumps(schema.model_json_schema(),
                                                                          separators=(",", ":"))))


def _appended(messages: Sequence[BaseMessage], text: str) -> list[BaseMessage]:
    """The messages with ``text`` appended to the last human message (or as a new one)."""
    msgs = list(messages)
    for i in range(len(msgs) - 1, -1, -1):
        if isinstance(msgs[i], HumanMessage) and isinstance(msgs[i].content, str):
            msgs[i] = HumanMessage(str(msgs[i].content) + text)
            return msgs
    return [*msgs, HumanMessage(text.strip())]


def _supports_tools(model: BaseChatModel) -> bool:
    # BaseChatModel.bind_tools raises NotImplementedError; providers with tool calling override it.
    return type(model).bind_tools is not BaseChatModel.bind_tools


ANSWER_PARAMS: tuple[str, ...] = (
    "temperature", "max_tokens", "max_completion_tokens", "num_predict", "num_ctx", "seed", "top_p", "top_k",
    "min_p", "stop", "n", "presence_penalty", "frequency_penalty", "repeat_penalty", "format", "reasoning_effort",
)
"""Model attributes that change an answer, added to the cache key when a provider's ``_identifying_params``
leaves them out (ChatOllama lists none; ChatOpenAI omits the server URL, which the key also holds)."""


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
        endpoint: Server URL: part of every cache key (two servers with one model name give different
            answers) and named in the error when the server cannot be reached.
        transport_retries: Retries of a call the server failed transiently (unreachable, timed out,
            HTTP 429/5xx, a body that is not JSON), with backoff from 0.5 s doubling; then
            :class:`~planner.errors.ModelUnavailableError`.

    ``stats`` counts the calling thread's work, so concurrent decisions (``coat eval --concurrency``)
    each account for their own calls.
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
        transport_retries: int = 2,
    ) -> None:
        if max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0, got {max_retries}")
        if transport_retries < 0:
            raise ConfigError(f"transport_retries must be >= 0, got {transport_retries}")
        if structured_mode not in ("auto", "tools", "text"):
            raise ConfigError(f"structured_mode must be one of 'auto', 'tools', 'text'; got {structured_mode!r}")
        self.model = model
        self.model_id = model_id or f"{model._llm_type}:{_model_name(model)}"
        self.max_retries = max_retries
        self.cache = cache
        self.endpoint = endpoint
        self.transport_retries = transport_retries
        self.use_tools = structured_mode == "tools" or (structured_mode == "auto" and _supports_tools(model))
        self._tls = threading.local()
        self._runnables: dict[type[BaseModel], Any] = {}
        self._runnables_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LangChainBackend({self.model_id!r}, tools={self.use_tools}, cache={self.cache!r})"

    # -- stats

    @property
    def stats(self) -> LLMStats:
        """The calling thread's counters."""
        st = getattr(self._tls, "stats", None)
        if st is None:
            st = self._tls.stats = LLMStats()
        return st

    @stats.setter
    def stats(self, value: LLMStats) -> None:
        self._tls.stats = value

    @property
    def concurrent(self) -> bool:
        """True when calls may run in parallel threads: a model behind a server (an ``endpoint``)."""
        return self.endpoint is not None

    def reset_stats(self) -> None:
        """Zero the calling thread's counters."""
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
            if raw is None:  # the server refused this request: asking again the same way cannot help
                errors.append("the server refused the request")
                raw = ""
                break
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

    def constrained(self, messages: Sequence[BaseMessage], json_schema: Mapping[str, Any]) -> tuple[str | None, str]:
        """One reply whose decoding is constrained to ``json_schema`` where the model allows it (a grammar for the
        embedded models, the server's structured output for ``served:`` / ``openai:``; :mod:`.constrained`), else
        with the schema in the prompt. Cached like every call, the schema part of the key; not validated here.

        Returns:
            The reply text (None when the server refused the request) and the decoding used.

        Raises:
            ModelUnavailableError: the model server could not be reached.
        """
        from .constrained import decoding_of, invoke_kwargs

        decoding = decoding_of(self.model)
        if decoding == "prompt":
            text = JSON_INSTRUCTIONS.format(schema=json.dumps(json_schema, separators=(",", ":")))
            return self._ask(_appended(messages, text), None), decoding
        return self._ask(list(messages), None, (decoding, json_schema, invoke_kwargs(decoding, json_schema))), decoding

    def generate(self, messages: Sequence[BaseMessage]) -> str:
        """Return the model's plain text reply (cached like every call).

        Raises:
            ModelUnavailableError: the server could not answer, or refused the request.
        """
        text = self._ask(list(messages), None)
        if text is None:
            raise ModelUnavailableError(f"the model server for {self.model_id} at {self.endpoint} refused the request")
        return text

    def _params(self, schema: type[BaseModel] | None) -> dict[str, Any]:
        try:
            params = dict(self.model._identifying_params)
        except Exception:  # a provider whose params cannot be listed: key on the id alone
            params = {}
        params.pop("messages", None)  # fake models list their script here
        params.pop("scores", None)
        for name in ANSWER_PARAMS:
            value = getattr(self.model, name, None)
            if name not in params and value is not None and not callable(value):
                params[name] = value
        if self.endpoint is not None:
            params["endpoint"] = self.endpoint
        if self.use_tools and schema is not None:
            params["tool_schema"] = schema.model_json_schema()
        return params

    def _cached(self, key: str, field: str) -> Any | None:
        """A cached value's ``field``, or None (a miss) when absent or of the wrong shape."""
        assert self.cache is not None
        hit = self.cache.get(key)
        if hit is None:
            return None
        value = hit.get(field) if isinstance(hit, dict) else None
        if field == "text" and not isinstance(value, str):
            log.warning("%s: cache entry %s has no text (%r); treating it as a miss", self.cache.path, key[:12], hit)
            return None
        return value

    def _call(self, what: str, call: Any) -> Any:
        """Run one model call with transport retries; map provider failures (see :mod:`.transport`)."""
        try:
            return transport.with_retries(call, retries=self.transport_retries, what=f"{self.model_id} {what}")
        except Exception as exc:
            kind = transport.classify(exc)
            if kind == "refused":
                log.warning("%s: the server refused a %s request: %s", self.model_id, what, transport.describe(exc))
                return None
            if kind in ("transient", "fatal"):
                where = self.endpoint or "its default URL"
                tries = self.transport_retries + 1 if kind == "transient" else 1
                raise ModelUnavailableError(
                    f"the model server for {self.model_id} at {where} failed ({transport.describe(exc)}) after "
                    f"{tries} tries. Start or fix the server, or the base URL (--llm, OPENAI_BASE_URL / "
                    "OLLAMA_HOST), or raise --timeout; cached answers and written rows are kept."
                ) from exc
            raise

    def _ask(self, msgs: list[BaseMessage], schema: type[BaseModel] | None,
             constraint: tuple[str, Mapping[str, Any], dict[str, Any]] | None = None) -> str | None:
        """The reply text (from the cache or the model), or None when the server refused the request.
        ``constraint``: the decoding, the JSON schema and the invoke arguments of a constrained reply."""
        method = "structured" if (self.use_tools and schema is not None) else "generate"
        if constraint is not None:
            method = f"constrained:{constraint[0]}"
        key = None
        if self.cache is not None:
            params = self._params(schema)
            if constraint is not None:
                params["json_schema"] = constraint[1]
            key = LLMCache.make_key(self.model_id, method, _message_payload(msgs), params)
            hit = self._cached(key, "text")
            if hit is not None:
                self.stats.cache_hits += 1
                return str(hit)
        t0 = time.perf_counter()
        if method == "structured":
            out = self._call(method, lambda: self._invoke_tools(msgs, schema))  # type: ignore[arg-type]
        else:
            extra = constraint[2] if constraint is not None else {}
            reply = self._call(method, lambda: self.model.invoke(msgs, **extra))
            out = None if reply is None else (_text_of(reply), getattr(reply, "usage_metadata", None) or {})
        if out is None:
            return None
        text, usage = out
        dt = time.perf_counter() - t0
        self.stats.calls += 1
        self.stats.seconds += dt
        self.stats.prompt_tokens += int(usage.get("input_tokens", 0) or 0)
        self.stats.completion_tokens += int(usage.get("output_tokens", 0) or 0)
        if self.cache is not None and key is not None:
            self.cache.put(key, {"text": text, "usage": dict(usage)}, model_id=self.model_id, method=method)
        return text

    def _invoke_tools(self, msgs: list[BaseMessage], schema: type[BaseModel]) -> tuple[str, dict[str, Any]]:
        with self._runnables_lock:
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
            try:
                return json.dumps(calls[0]["args"], ensure_ascii=False), usage
            except (RecursionError, TypeError, ValueError):  # arguments nested past any answer: unusable
                return "", usage
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
            SelectionError: the model's scores are unusable (NaN, infinite, not numbers, the wrong count;
                see :func:`~planner.llm.base.check_scores`): the stages count the answer as unparsed.
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
            hit = self._cached(key, "scores")
            if hit is not None:
                try:
                    scores = check_scores(hit, options, self.model_id)
                except SelectionError:
                    log.warning("%s: cache entry %s holds unusable scores %r; treating it as a miss",
                                self.cache.path, key[:12], hit)
                else:
                    self.stats.cache_hits += 1
                    return scores
        t0 = time.perf_counter()
        raw = self.model.score_options(prompt, options, neutral_prompt=neutral_prompt)  # type: ignore[attr-defined]
        self.stats.calls += 1
        self.stats.seconds += time.perf_counter() - t0
        usage = getattr(self.model, "last_score_usage", None) or {}
        self.stats.prompt_tokens += int(usage.get("prompt_tokens", 0))
        self.stats.completion_tokens += int(usage.get("completion_tokens", 0))
        scores = check_scores(raw, options, self.model_id)  # unusable scores are never cached
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
