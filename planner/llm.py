"""The planner's one boundary to language models: a small protocol, one langchain adapter, ``make_llm``.

Stages only ever call :meth:`LLMBackend.structured` (answer parsed into a pydantic model, re-asked with
the validation error, then :class:`~planner.errors.SelectionError`) and, when
:attr:`LLMBackend.supports_scoring` is true, :meth:`LLMBackend.score` (calibrated log-likelihood of each
option). Models this small pick answer letters at chance but rank options well by likelihood, so the
stages prefer scoring when it is available.

Example:
    >>> from planner.schemas import ObjectChoice
    >>> llm = FakeLLM(['{"object_id": "knife_1", "rationale": "sharp"}'])
    >>> llm.structured([HumanMessage("Which object cuts a cake?")], ObjectChoice,
    ...                context={"candidate_ids": ["knife_1", "pillow_2"]}).object_id
    'knife_1'
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from ._optional import require
from .cache import LLMCache
from .errors import ConfigError, PlannerError, SelectionError

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

StructuredMode = Literal["auto", "tools", "text"]

SPEC_FORMS: tuple[str, ...] = (
    "local",
    "local:smollm2",
    "local:gemma-270m",
    "openai:<model>",
    "ollama:<model>",
    "fake",
)
"""The valid ``make_llm`` spec forms, as shown in error messages."""
LOCAL_MODELS: tuple[str, ...] = ("smollm2", "gemma-270m")
"""Names accepted after ``local:``."""

REASK_TEMPLATE = (
    "Your previous reply could not be used: {error}\nAnswer again. Reply with only the JSON object, no other text."
)
JSON_INSTRUCTIONS = (
    "\n\nReply with only a JSON object (no prose, no code fence) that matches this JSON schema:\n{schema}"
)


class ModelUnavailableError(PlannerError, ConnectionError):
    """Raised when a model server cannot be reached (or timed out); the message names the URL."""


# ---------------------------------------------------------------- protocol and stats


@dataclass
class LLMStats:
    """Mutable counters of one backend's work since the last :meth:`LLMBackend.reset_stats`."""

    calls: int = 0
    """Model invocations actually run (cache hits not included)."""
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    """Wall time spent inside the model (cache hits cost ~0)."""
    retries: int = 0
    """Re-asks after an invalid reply."""

    def as_dict(self) -> dict[str, Any]:
        """Return the counters as a plain dict (for JSONL logs)."""
        return asdict(self)


@runtime_checkable
class LLMBackend(Protocol):
    """What a planner stage needs from a language model."""

    model_id: str
    stats: LLMStats

    @property
    def supports_scoring(self) -> bool:
        """True when :meth:`score` works for this model."""
        ...

    def structured(
        self,
        messages: Sequence[BaseMessage],
        schema: type[M],
        *,
        context: Mapping[str, Any] | None = None,
    ) -> M:
        """Ask the model and return its answer validated into ``schema`` (with ``context``).

        Raises:
            SelectionError: when every attempt gave an invalid answer; keeps the last raw reply.
        """
        ...

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        """Return logL(option | prompt) - logL(option | neutral prompt) for each option.

        Raises:
            NotImplementedError: when the model cannot score (see :attr:`supports_scoring`).
        """
        ...

    def reset_stats(self) -> None:
        """Zero :attr:`stats`."""
        ...


# ---------------------------------------------------------------- reply parsing


def format_validation_error(exc: Exception) -> str:
    """Render a validation error compactly, one ``field: problem`` per line, for re-asking the model."""
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors(include_url=False):
            loc = ".".join(str(p) for p in e.get("loc", ())) or "<root>"
            parts.append(f"{loc}: {e.get('msg', '')}")
        return "; ".join(parts)
    return str(exc)


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _json_objects(text: str) -> Iterable[Any]:
    """Yield JSON objects found in ``text``: fenced blocks first, then balanced ``{...}`` spans."""
    for m in _FENCE.finditer(text):
        try:
            yield json.loads(m.group(1))
        except json.JSONDecodeError:
            pass
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, _end = decoder.raw_decode(text, i)
            yield obj
        except json.JSONDecodeError:
            pass
        i = text.find("{", i + 1)


def _single_field(schema: type[BaseModel]) -> str | None:
    """The field to fill from a bare answer: the only field, or the only required one."""
    fields = schema.model_fields
    if len(fields) == 1:
        return next(iter(fields))
    required = [n for n, f in fields.items() if f.is_required()]
    return required[0] if len(required) == 1 else None


def _choices_for(schema: type[BaseModel], name: str, context: Mapping[str, Any] | None) -> list[str]:
    """Values a field may take: its enum/Literal values, or the context's candidate ids."""
    prop = schema.model_json_schema().get("properties", {}).get(name, {})
    enum = prop.get("enum")
    if enum is None and "$ref" in prop:
        ref = prop["$ref"].rsplit("/", 1)[-1]
        enum = schema.model_json_schema().get("$defs", {}).get(ref, {}).get("enum")
    if enum:
        return [str(v) for v in enum]
    if context and context.get("candidate_ids") is not None:
        return [str(c) for c in context["candidate_ids"]]
    return []


def _bare_value(text: str, choices: Sequence[str]) -> str:
    """Pull an answer out of a short free-text reply (``"B"``, ``"Answer: knife_1."``)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = re.sub(r"^\s*(?:answer|choice|option)\s*[:\-]?\s*", "", line, flags=re.IGNORECASE)
    value = line.strip().strip("\"'`*").rstrip(".").strip()
    if not choices:
        # Without a closed set of answers only a single bare token counts; prose is not an answer.
        if not value or re.search(r"\s", value):
            raise ValueError("the reply is neither a JSON object nor a bare answer; reply with a JSON object")
        return value
    if value in choices:
        return value
    # The reply mentions exactly one allowed value as a whole word: take it. Two or more: ambiguous, keep
    # the text so validation fails and the model is re-asked.
    hits = [c for c in choices if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", text)]
    return hits[0] if len(hits) == 1 else value


def parse_reply(raw: str, schema: type[M], context: Mapping[str, Any] | None = None) -> M:
    """Validate a raw model reply into ``schema``, tolerating prose and code fences around the JSON.

    Order: the whole reply as JSON; the first JSON object inside it; for a schema with a single
    (required) field, the bare answer (a letter, an id, an enum value) put into that field.

    Raises:
        ValidationError: the reply had usable JSON (or a bare answer) that does not validate.
        ValueError: nothing usable in the reply.
    """
    text = raw.strip()
    try:
        return schema.model_validate_json(text, context=context)
    except ValidationError as exc:
        if not any(e["type"] == "json_invalid" for e in exc.errors()):
            raise
    for obj in _json_objects(text):
        if isinstance(obj, dict):
            return schema.model_validate(obj, context=context)
    name = _single_field(schema)
    if name is not None and text:
        value = _bare_value(text, _choices_for(schema, name, context))
        return schema.model_validate({name: value}, context=context)
    raise ValueError("the reply contains no JSON object; reply with a JSON object matching the schema")


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


# ---------------------------------------------------------------- the adapter


class LangChainBackend:
    """The single adapter from any langchain-core ``BaseChatModel`` to :class:`LLMBackend`.

    Args:
        model: Any chat model (ChatOpenAI, ChatOllama, :class:`planner.local_llm.LlamaCppChatModel`...).
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
        _check_options(options)
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


def _check_options(options: Sequence[str]) -> None:
    if not options:
        raise ConfigError("score() needs at least one option, got none")
    dupes = sorted({o for o in options if options.count(o) > 1})
    if dupes:
        raise ConfigError(f"score() got duplicate options {dupes}; options must be distinct")


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


# ---------------------------------------------------------------- fakes for tests and demos


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that records what it was asked and can return scripted option scores.

    ``messages`` is the reply script (an iterator of str or AIMessage); ``scores`` a list of score lists
    returned in order by :meth:`score_options` (leave empty for a model that cannot score).
    """

    requests: list[list[BaseMessage]] = []
    scores: list[list[float]] | None = None
    score_requests: list[tuple[str, list[str], str | None]] = []

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.requests.append(list(messages))
        try:
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        except StopIteration:
            n = len(self.requests) - 1
            raise RuntimeError(f"ScriptedChatModel ran out of scripted replies after {n}") from None

    @property
    def can_score(self) -> bool:
        """True only when scores were scripted, so ``supports_scoring`` follows the script."""
        return self.scores is not None

    def score_options(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        self.score_requests.append((prompt, list(options), neutral_prompt))
        if not self.scores:
            raise RuntimeError("ScriptedChatModel ran out of scripted scores")
        s = self.scores.pop(0)
        if len(s) != len(options):
            raise RuntimeError(f"scripted scores {s} do not match {len(options)} options")
        return list(s)


class FakeLLM(LangChainBackend):
    """A :class:`LangChainBackend` over a scripted fake chat model, for offline tests.

    Args:
        replies: Raw replies returned in order, one per model call (including re-asks).
        scores: Optional score lists returned in order by :meth:`score`; without them
            ``supports_scoring`` is False.
        max_retries: As for :class:`LangChainBackend`.
        model_id: Id reported in logs and errors.
        cache: Optional :class:`LLMCache`.

    Example:
        >>> llm = FakeLLM(["not json", '{"object_id": "a"}'])
        >>> from planner.schemas import ObjectChoice
        >>> llm.structured([HumanMessage("pick")], ObjectChoice).object_id
        'a'
        >>> llm.stats.retries, len(llm.requests)
        (1, 2)
    """

    def __init__(
        self,
        replies: Iterable[str | AIMessage] = (),
        *,
        scores: Iterable[Sequence[float]] | None = None,
        max_retries: int = 2,
        model_id: str = "fake:scripted",
        cache: LLMCache | None = None,
    ) -> None:
        model = ScriptedChatModel(
            messages=iter(list(replies)),
            requests=[],
            scores=None if scores is None else [list(s) for s in scores],
            score_requests=[],
        )
        super().__init__(model, model_id=model_id, max_retries=max_retries, cache=cache, structured_mode="text")

    @property
    def requests(self) -> list[list[BaseMessage]]:
        """The message lists the model received, one per call."""
        return self.model.requests  # type: ignore[attr-defined,no-any-return]

    @property
    def score_requests(self) -> list[tuple[str, list[str], str | None]]:
        """``(prompt, options, neutral_prompt)`` of every uncached score call."""
        return self.model.score_requests  # type: ignore[attr-defined,no-any-return]


_WORD = re.compile(r"[a-z]+")


def _words(text: str) -> set[str]:
    # Crude singular form so "knives"/"knife" do not matter much; enough for a deterministic demo model.
    out = set()
    for w in _WORD.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()):
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


class DeterministicLLM:
    """The ``fake`` spec: a deterministic, offline stand-in model for demos and tests (no model call).

    What it answers:

    * :meth:`score`: the number of words an option shares with the prompt, minus a tiny tie-breaker
      (``0.001 * index``) so that, on a tie, the earlier option wins. The neutral prompt is ignored.
    * :meth:`structured`: the simplest instance of the schema that validates: fields named like an id or
      an object (``object_id``, ``object``...) take the first of ``context["candidate_ids"]``; list
      fields take all candidate ids (or ``[]``); enum/Literal fields their first value; other strings
      ``"deterministic fake answer"``, numbers 0, booleans False, optional fields their default.
      If that does not validate it raises SelectionError, like a real model that never complies.
    """

    model_id = "fake:deterministic"

    def __init__(self) -> None:
        self.stats = LLMStats()

    def __repr__(self) -> str:
        return "DeterministicLLM()"

    @property
    def supports_scoring(self) -> bool:
        """Always True."""
        return True

    def reset_stats(self) -> None:
        """Zero the counters."""
        self.stats = LLMStats()

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        """Word overlap between each option and the prompt (see the class docstring)."""
        options = list(options)
        _check_options(options)
        self.stats.calls += 1
        pw = _words(prompt)
        return [float(len(_words(o) & pw)) - 0.001 * i for i, o in enumerate(options)]

    def structured(
        self,
        messages: Sequence[BaseMessage],
        schema: type[M],
        *,
        context: Mapping[str, Any] | None = None,
    ) -> M:
        """The simplest valid instance of ``schema`` (see the class docstring)."""
        self.stats.calls += 1
        cands = [str(c) for c in (context or {}).get("candidate_ids") or []]
        js = schema.model_json_schema()
        data: dict[str, Any] = {}
        for name, f in schema.model_fields.items():
            if not f.is_required():
                continue
            data[name] = _fake_value(name, js.get("properties", {}).get(name, {}), js, cands)
        raw = json.dumps(data)
        try:
            return schema.model_validate(data, context=context)
        except ValidationError as exc:
            raise SelectionError(
                f"{self.model_id} gave no valid {schema.__name__}",
                attempts=1,
                last_raw=raw,
                errors=[format_validation_error(exc)],
            ) from exc


def _fake_value(name: str, prop: Mapping[str, Any], root: Mapping[str, Any], cands: list[str]) -> Any:
    if "$ref" in prop:
        prop = root.get("$defs", {}).get(prop["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in prop:
        prop = next((p for p in prop["anyOf"] if p.get("type") != "null"), prop["anyOf"][0])
    if prop.get("enum"):
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    if kind == "array":
        return list(cands)
    if kind == "integer" or kind == "number":
        return 0
    if kind == "boolean":
        return False
    if kind == "object":
        return {}
    low = name.lower()
    if cands and (low.endswith("id") or low.startswith("object") or low in ("choice", "answer", "option")):
        return cands[0]
    return "deterministic fake answer"


# ---------------------------------------------------------------- make_llm


def make_llm(
    spec: str = "local",
    *,
    cache: bool | LLMCache = True,
    cache_path: str | os.PathLike[str] | None = None,
    temperature: float = 0.0,
    max_retries: int = 2,
    base_url: str | None = None,
    timeout: float = 60.0,
    structured_mode: StructuredMode = "auto",
    **model_kwargs: Any,
) -> LLMBackend:
    """Build a model backend from a spec string; provider packages are imported only here.

    Specs: ``local`` (= ``local:smollm2``, SmolLM2-135M-Instruct in-process), ``local:gemma-270m``,
    ``openai:<model>`` (any OpenAI-compatible server via ``base_url`` or ``$OPENAI_BASE_URL``; the key
    from ``$OPENAI_API_KEY``, a placeholder when a base URL is given), ``ollama:<model>`` (``base_url`` or
    ``$OLLAMA_HOST``), ``fake`` (:class:`DeterministicLLM`, never cached).

    Args:
        spec: One of :data:`SPEC_FORMS`.
        cache: True for the on-disk cache, False for none (``--no-cache``), or an :class:`LLMCache`.
        cache_path: Cache file (default ``$COAT_LLM_CACHE`` or the user cache dir).
        temperature: Sampling temperature; 0 is greedy and reproducible.
        max_retries: Re-asks after an invalid answer.
        base_url: Server URL for ``openai:`` / ``ollama:``.
        timeout: Seconds before an unreachable or silent server is an error.
        structured_mode: See :class:`LangChainBackend`.
        **model_kwargs: Passed to the chat model (e.g. ``n_ctx``, ``max_tokens``, ``seed`` for local).

    Returns:
        An :class:`LLMBackend`.

    Raises:
        ConfigError: unknown spec (the message lists the valid forms).
        DependencyNotInstalled: the provider's extra is not installed (the message has the pip line).
    """
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
                f"{list(LOCAL_MODELS)}. Valid specs: {', '.join(SPEC_FORMS)}"
            )
        from . import local_llm  # imports llama_cpp lazily itself

        model = local_llm.LlamaCppChatModel.from_name(key, temperature=temperature, **model_kwargs)
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
            max_retries=1,
            **model_kwargs,
        )
        return LangChainBackend(
            model, model_id=f"openai:{name}", cache=_cache(), endpoint=url or "https://api.openai.com/v1", **common
        )
    if kind == "ollama" and name:
        mod = require("langchain_ollama", "ollama")
        url = base_url or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        model = mod.ChatOllama(
            model=name, base_url=url, temperature=temperature, client_kwargs={"timeout": timeout}, **model_kwargs
        )
        return LangChainBackend(model, model_id=f"ollama:{name}", cache=_cache(), endpoint=url, **common)
    raise ConfigError(f"unknown model spec {spec!r}; valid forms are: {', '.join(SPEC_FORMS)}")


__all__ = [
    "SPEC_FORMS",
    "DeterministicLLM",
    "FakeLLM",
    "LLMBackend",
    "LLMStats",
    "LangChainBackend",
    "ModelUnavailableError",
    "ScriptedChatModel",
    "format_validation_error",
    "make_llm",
    "parse_reply",
    "AIMessage",
    "BaseMessage",
    "HumanMessage",
    "SystemMessage",
]
