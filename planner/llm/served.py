"""A model behind an OpenAI-compatible server that scores options from completion log-probabilities.

Spec: ``served:<base_url>[#<model>][&template=<t>]``, e.g. ``served:http://127.0.0.1:8080/v1#smollm2``. It
generates like ``openai:<model>`` (``/v1/chat/completions`` through langchain-openai, the server's own chat
template) and scores options like the embedded models, so every strategy that scores, and ``--blend``, work
with it. llama.cpp's server (``python -m llama_cpp.server``) and vLLM return what scoring needs.

How one option is scored: ``/v1/completions`` with the rendered prompt followed by the option, ``echo=true,
logprobs=1, max_tokens=1`` (a 0 would mean "no limit" to llama.cpp's server): the server returns the
log-probability of every prompt token given the ones before it. The option's tokens are the last ones of the
echoed prompt: their count is the prompt's token count with the option minus without it (``usage.prompt_tokens``
of a plain request for the prompt alone, asked once per prompt), checked against the tokens' text. Their sum is
logL(option | prompt); :meth:`ServedScorer.score_options` subtracts logL(option | neutral prompt) as the
embedded models do (:meth:`planner.llm.local.LlamaCppChatModel.score_options`).

The prompt is rendered here, as the model's chat template would (``/v1/completions`` takes plain text):
``template=chatml`` (the default: SmolLM2, Qwen and many instruct models; no default system prompt),
``template=plain`` (base models: the message, then ``Answer:``, the option after a space), ``template=local:<name>``
(the template inside an embedded model's GGUF: matches ``local:<name>``), or a file: a ``.gguf`` (its chat
template, else plain), a ``tokenizer_config.json`` (its ``chat_template``) or a Jinja template. The BOS token is
left to the server's tokenizer, which adds it when the model wants one.

A server that returns no log-probabilities is refused on the first score with a :class:`ConfigError` naming it
and the fix.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._optional import require
from ..errors import ConfigError, ModelUnavailableError, SelectionError
from . import transport

log = logging.getLogger(__name__)

SERVED_SPEC = "served:<base_url>[#<model>][&template=chatml|plain|local:<name>|<file>]"
"""The spec form, as shown in error messages."""

DEFAULT_NEUTRAL_PROMPT = "Answer:"
"""As the embedded models' (:data:`planner.llm.local.DEFAULT_NEUTRAL_PROMPT`)."""
PLAIN_ANSWER_CUE = "Answer:"
TEMPLATES = ("chatml", "plain", "local:<name>", "a .gguf, tokenizer_config.json or Jinja file")
CACHE_SIZE = 4096
"""Neutral scores and prompt token counts kept in memory (the neutral prompts repeat across questions)."""

NO_LOGPROBS_FIX = (
    "serve the model with a server that returns prompt log-probabilities for /v1/completions with echo (llama.cpp's "
    "`python -m llama_cpp.server`, whose --logits_all is on by default, or vLLM), or use openai:<model>, which "
    "generates only"
)

Complete = Callable[[dict[str, Any]], Mapping[str, Any]]
"""One ``/v1/completions`` request: the JSON body in, the JSON reply out (a provider error raised as is)."""


# ---------------------------------------------------------------- the spec


@dataclass(frozen=True)
class ServedSpec:
    """A parsed ``served:`` spec: the API's base URL, the model's name (None: the server's first) and template."""

    base_url: str
    model: str | None = None
    template: str = "chatml"


def parse_served_spec(rest: str, base_url: str | None = None) -> ServedSpec:
    """Parse what follows ``served:``; the URL may instead come from ``base_url`` or ``$OPENAI_BASE_URL``.

    Example:
        >>> parse_served_spec("http://127.0.0.1:8080/v1#smollm2&template=plain")
        ServedSpec(base_url='http://127.0.0.1:8080/v1', model='smollm2', template='plain')

    Raises:
        ConfigError: no URL, a URL that is not http(s)://host..., or an unknown key after ``#``.
    """
    url, _, fragment = rest.strip().partition("#")
    url = url.strip() or (base_url or os.environ.get("OPENAI_BASE_URL") or "").strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        got = f"got {url!r}" if url else "got none (and neither base_url nor OPENAI_BASE_URL is set)"
        raise ConfigError(f"a served model needs the server's base URL, http(s)://host:port/v1; {got}. "
                          f"Spec form: {SERVED_SPEC}")
    fields: dict[str, str] = {}
    for i, item in enumerate(x for x in fragment.split("&") if x.strip()):
        key, eq, value = item.partition("=")
        if not eq and i == 0:
            key, value = "model", key
        key = key.strip()
        if key not in ("model", "template") or not value.strip():
            raise ConfigError(f"served spec {rest!r}: {item!r} is not model=<name> or template=<t>; spec form: "
                              f"{SERVED_SPEC}")
        fields[key] = value.strip()
    return ServedSpec(url.rstrip("/"), fields.get("model"), fields.get("template", "chatml"))


# ---------------------------------------------------------------- rendering prompts


@dataclass(frozen=True)
class PromptFormat:
    """How a prompt is rendered for ``/v1/completions`` and where the answer starts.

    ``kind`` is ``chatml``, ``plain`` or ``jinja`` (``source`` holds the template, ``eos_token`` its end token).
    """

    kind: str
    source: str = ""
    eos_token: str = ""

    @property
    def identity(self) -> str:
        """What changes a rendering, for cache keys: the kind and a hash of the template."""
        digest = hashlib.sha256(f"{self.source}\x00{self.eos_token}".encode()).hexdigest()[:16]
        return self.kind if self.kind != "jinja" else f"jinja:{digest}"

    def render(self, prompt: str | Sequence[Any]) -> str:
        """The text the model sees, ending where its answer starts (a user message string, or messages)."""
        msgs = [("user", prompt)] if isinstance(prompt, str) else [(_role(m), str(m.content)) for m in prompt]
        if self.kind == "plain":  # as the embedded models render a base model's prompt
            body = "\n\n".join(text.strip() for _, text in msgs if text.strip())
            return f"{body}\n{PLAIN_ANSWER_CUE}" if body else PLAIN_ANSWER_CUE
        if self.kind == "chatml":
            turns = "".join(f"<|im_start|>{role}\n{text}<|im_end|>\n" for role, text in msgs)
            return f"{turns}<|im_start|>assistant\n"
        return _jinja(self.source).render(
            messages=[{"role": r, "content": t} for r, t in msgs], add_generation_prompt=True,
            bos_token="", eos_token=self.eos_token,  # the server's tokenizer adds BOS when the model wants one
        )

    def option_text(self, option: str) -> str:
        """The option as it follows the rendered prompt: after a space for ``plain``, at the line start else."""
        return " " + option if self.kind == "plain" else option


def _role(message: Any) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(getattr(message, "type", ""), "user")


_JINJA: dict[str, Any] = {}
_JINJA_LOCK = threading.Lock()


def _jinja(source: str) -> Any:
    """The compiled template (as llama.cpp's and transformers' chat-template renderers configure Jinja)."""
    with _JINJA_LOCK:
        if source not in _JINJA:
            jinja2 = require("jinja2", "openai")
            from jinja2.ext import loopcontrols
            from jinja2.sandbox import ImmutableSandboxedEnvironment

            def raise_exception(message: str) -> None:
                raise jinja2.TemplateError(message)

            env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
            env.filters["tojson"] = lambda x, indent=None: json.dumps(x, ensure_ascii=False, indent=indent)
            env.globals["raise_exception"] = raise_exception
            _JINJA[source] = env.from_string(source)
        return _JINJA[source]


def load_prompt_format(template: str) -> PromptFormat:
    """The :class:`PromptFormat` named by a spec's ``template=`` (see the module docstring).

    Raises:
        ConfigError: a file that does not exist or holds no template; an unknown name.
        DependencyNotInstalled: reading a ``.gguf`` needs llama-cpp-python; a Jinja template needs jinja2.
    """
    if template in ("chatml", "plain"):
        return PromptFormat(template)
    if template.startswith("local:"):
        from .local import local_model_path

        return _gguf_format(local_model_path(template.split(":", 1)[1]))
    path = Path(template).expanduser()
    if not path.is_file():
        raise ConfigError(f"template {template!r} is neither a file nor one of {', '.join(TEMPLATES)}")
    if path.suffix == ".gguf":
        return _gguf_format(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            config = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"template {template!r} is not JSON: {e}") from None
        source = config.get("chat_template") if isinstance(config, dict) else None
        if isinstance(source, list):  # named templates: the default one
            source = next((t.get("template") for t in source if isinstance(t, dict) and t.get("name") == "default"),
                          None)
        if not isinstance(source, str) or not source.strip():
            raise ConfigError(f"template {template!r} has no chat_template")
        eos = config.get("eos_token")
        eos = eos.get("content", "") if isinstance(eos, dict) else eos
        return PromptFormat("jinja", source, eos if isinstance(eos, str) else "")
    return PromptFormat("jinja", text)


def _gguf_format(path: Path) -> PromptFormat:
    """The chat template in a GGUF's metadata (plain when it has none, as the embedded models do)."""
    llama_cpp = require("llama_cpp", "local-llm")
    llama = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        source = llama.metadata.get("tokenizer.chat_template")
        eos = llama._model.token_get_text(llama.token_eos()) if llama.token_eos() != -1 else ""
    finally:
        llama.close()
    return PromptFormat("jinja", source, eos) if source else PromptFormat("plain")


# ---------------------------------------------------------------- reading a reply


class NoLogprobs(Exception):
    """The reply has no token log-probabilities (the server ignored ``logprobs``/``echo``)."""


def _tokens_text(tokens: Sequence[Any], lo: int, hi: int) -> str:
    return "".join(t if isinstance(t, str) else "" for t in tokens[lo:hi])


def option_span(logprobs: Mapping[str, Any], n_generated: int, n_option: int | None, option: str) -> tuple[int, int]:
    """Where the option's tokens are in an echoed reply's ``token_logprobs``: ``(start, end)``.

    The option ends the echoed prompt, before the ``n_generated`` generated tokens; it has ``n_option`` tokens
    (None: unknown). The tokens' text decides when the count does not match it (a server that leaves a special
    token out of the list, a token merged across the prompt's end): the shortest run of tokens before the end
    that spells the option.

    Raises:
        ValueError: no run of tokens fits the option.
    """
    values = logprobs.get("token_logprobs") or []
    tokens = logprobs.get("tokens") or []
    want = option.strip()
    ends = list(dict.fromkeys([len(values) - n_generated, len(values)]))
    if n_option is not None and n_option > 0:
        for end in ends:
            start = end - n_option
            if start >= 1 and (len(tokens) != len(values) or _tokens_text(tokens, start, end).strip() == want):
                return start, end
    if len(tokens) == len(values):
        for end in ends:
            for start in range(end - 1, 0, -1):
                text = _tokens_text(tokens, start, end)
                if len(text.strip()) >= len(want):
                    if text.strip() == want or text.endswith(want):
                        return start, end
                    break
    if n_option is not None and 1 <= ends[0] - n_option:  # token text this server spells its own way
        return ends[0] - n_option, ends[0]
    raise ValueError(f"no tokens at the end of the echoed prompt spell the option {option!r}")


def option_logprob(reply: Mapping[str, Any], option: str, n_prompt: int | None) -> tuple[float, int]:
    """logL(option | prompt) from an echoed ``/v1/completions`` reply to prompt + option, and its token count.

    Args:
        reply: The reply's JSON.
        option: The option's text as it followed the prompt.
        n_prompt: The prompt's own token count (``usage.prompt_tokens`` without the option), or None.

    Raises:
        NoLogprobs: the reply holds no token log-probabilities.
        ValueError: the option's tokens cannot be found, or one has no finite log-probability.
    """
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], Mapping) else {}
    logprobs = first.get("logprobs")
    if not isinstance(logprobs, Mapping) or not logprobs.get("token_logprobs"):
        raise NoLogprobs("no token_logprobs in the reply")
    if not isinstance(logprobs["token_logprobs"], list) or not isinstance(logprobs.get("tokens") or [], list):
        raise ValueError("token_logprobs and tokens are not lists")
    n_generated = _count(reply, "completion_tokens") or 0
    n_total = _count(reply, "prompt_tokens")
    n_option = n_total - n_prompt if n_total is not None and n_prompt is not None else None
    start, end = option_span(logprobs, n_generated, n_option, option)
    total = 0.0
    for v in logprobs["token_logprobs"][start:end]:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"an option token of {option!r} has log-probability {v!r}")
        total += float(v)
    return total, end - start


def _count(reply: Mapping[str, Any], key: str) -> int | None:
    """A token count from the reply's ``usage`` (None when absent or not a count)."""
    usage = reply.get("usage")
    n = usage.get(key) if isinstance(usage, Mapping) else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None


# ---------------------------------------------------------------- scoring over HTTP


class ServedScorer:
    """Scores options with one server's ``/v1/completions`` (thread-safe; see the module docstring).

    Args:
        complete: Sends one ``/v1/completions`` body and returns the reply's JSON.
        model: The model name sent in every request.
        fmt: How prompts are rendered.
        where: The server's URL, for error messages.
        retries: Retries of a request the server failed transiently (:mod:`.transport`).
        neutral_prompt: Default calibration prompt.
    """

    def __init__(self, complete: Complete, *, model: str, fmt: PromptFormat, where: str, retries: int = 2,
                 neutral_prompt: str = DEFAULT_NEUTRAL_PROMPT) -> None:
        self.complete = complete
        self.model = model
        self.fmt = fmt
        self.where = where
        self.retries = retries
        self.neutral_prompt = neutral_prompt
        self._lock = threading.Lock()
        self._neutral: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._counts: OrderedDict[str, int | None] = OrderedDict()
        self._tls = threading.local()

    def identity(self) -> dict[str, Any]:
        """What, besides the model and server, changes a score: for cache keys."""
        return {"prompt_format": self.fmt.identity, "neutral_prompt": self.neutral_prompt, "scoring": "echo-logprobs"}

    @property
    def last_score_usage(self) -> dict[str, int]:
        """Tokens the calling thread's last :meth:`score_options` read: ``prompt_tokens``, ``completion_tokens``."""
        return dict(getattr(self._tls, "usage", {}))

    def score_options(self, prompt: str | Sequence[Any], options: Sequence[str], *,
                      neutral_prompt: str | None = None) -> list[float]:
        """logL(option | prompt) - logL(option | neutral prompt) for each option; higher is better.

        Raises:
            ConfigError: the server returned no log-probabilities (the message names it and the fix).
            ModelUnavailableError: the server could not be reached or failed.
            SelectionError: the server refused a request or its reply cannot be read (counted as unparsed).
        """
        options = list(options)
        if not options:
            raise ConfigError("score_options() needs at least one option")
        cond, n_prompt, n_options = self._logprobs(self.fmt.render(prompt), options)
        neutral = self.fmt.render(self.neutral_prompt if neutral_prompt is None else neutral_prompt)
        with self._lock:
            base = {o: self._neutral[(neutral, o)] for o in options if (neutral, o) in self._neutral}
        missing = [o for o in options if o not in base]
        if missing:
            values, _, _ = self._logprobs(neutral, missing)
            base.update(zip(missing, values, strict=True))
            with self._lock:
                for o, v in zip(missing, values, strict=True):
                    self._neutral[(neutral, o)] = v
                while len(self._neutral) > CACHE_SIZE:
                    self._neutral.popitem(last=False)
        self._tls.usage = {"prompt_tokens": n_prompt, "completion_tokens": n_options}
        return [c - base[o] for c, o in zip(cond, options, strict=True)]

    def _logprobs(self, rendered: str, options: Sequence[str]) -> tuple[list[float], int, int]:
        """Each option's logL after ``rendered``, the prompt's token count and the options' token count."""
        n_prompt = self._prompt_tokens(rendered)
        out: list[float] = []
        n_options = 0
        for o in options:
            text = self.fmt.option_text(o)
            if not o.strip():
                raise ConfigError(f"option {o!r} has no text; options must be non-empty text")
            body = {"model": self.model, "prompt": rendered + text, "max_tokens": 1, "temperature": 0.0,
                    "echo": True, "logprobs": 1}
            reply = self._request(body, "score")
            try:
                value, n = option_logprob(reply, text, n_prompt)
            except NoLogprobs:
                raise self._no_logprobs("returned no log-probabilities") from None
            except ValueError as e:
                raise SelectionError(f"{self.model} at {self.where}: unusable scores: {e}", attempts=1,
                                     last_raw=json.dumps(reply)[:500], errors=[str(e)]) from None
            out.append(value)
            n_options += n
        return out, n_prompt or 0, n_options

    def _prompt_tokens(self, rendered: str) -> int | None:
        """The rendered prompt's token count as the server counts it (asked once per prompt; None if unsaid)."""
        with self._lock:
            if rendered in self._counts:
                self._counts.move_to_end(rendered)
                return self._counts[rendered]
        body = {"model": self.model, "prompt": rendered, "max_tokens": 1, "temperature": 0.0}
        n = _count(self._request(body, "count"), "prompt_tokens")
        with self._lock:
            self._counts[rendered] = n
            while len(self._counts) > CACHE_SIZE:
                self._counts.popitem(last=False)
        return n

    def _no_logprobs(self, what: str) -> ConfigError:
        return ConfigError(f"the server at {self.where} ({self.model}) {what} for /v1/completions with echo and "
                           f"logprobs, so it cannot score options: {NO_LOGPROBS_FIX}")

    def _request(self, body: dict[str, Any], what: str) -> Mapping[str, Any]:
        def call() -> Mapping[str, Any]:
            try:
                return self.complete(body)
            except Exception as exc:  # e.g. llama.cpp's server with --logits_all off: HTTP 500, not worth a retry
                if "logprob" not in str(exc).lower() or transport.classify(exc) == "other":
                    raise
                refusal = transport.describe(exc)
            # raised outside the handler, so the HTTP 500 it replaces is not read as a transient failure
            raise self._no_logprobs(f"refused log-probabilities ({refusal})")

        try:
            reply = transport.with_retries(call, retries=self.retries, what=f"served:{self.model} {what}")
        except Exception as exc:
            kind = transport.classify(exc)
            if kind == "refused":
                raise SelectionError(f"the server at {self.where} refused a {what} request", attempts=1,
                                     last_raw=transport.describe(exc), errors=[transport.describe(exc)]) from exc
            if kind in ("transient", "fatal"):
                tries = self.retries + 1 if kind == "transient" else 1
                raise ModelUnavailableError(
                    f"the model server for served:{self.model} at {self.where} failed ({transport.describe(exc)}) "
                    f"after {tries} tries. Start or fix the server, or the URL in --llm served:<base_url>, or raise "
                    "--timeout; cached answers and written rows are kept."
                ) from exc
            raise
        if not isinstance(reply, Mapping):
            raise SelectionError(f"the server at {self.where} sent a reply that is not a JSON object", attempts=1,
                                 last_raw=repr(reply)[:500])
        return reply


# ---------------------------------------------------------------- the chat model


_CLASS: list[type] = []


def _chat_class() -> type:
    """ChatOpenAI with :meth:`score_options` (langchain-openai is imported here, on first use)."""
    if _CLASS:
        return _CLASS[0]
    ChatOpenAI = require("langchain_openai", "openai").ChatOpenAI  # noqa: N806 - a class

    class ServedChatModel(ChatOpenAI):  # type: ignore[misc, valid-type]
        """langchain-openai's chat model for generating, with the scorer of the same server for scoring."""

        scorer: Any = None

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {**super()._identifying_params, **(self.scorer.identity() if self.scorer else {})}

        def score_options(self, prompt: Any, options: Sequence[str], *,
                          neutral_prompt: str | None = None) -> list[float]:
            """See :meth:`ServedScorer.score_options`."""
            return self.scorer.score_options(prompt, options, neutral_prompt=neutral_prompt)

        @property
        def last_score_usage(self) -> dict[str, int]:
            """See :attr:`ServedScorer.last_score_usage`."""
            return self.scorer.last_score_usage

    _CLASS.append(ServedChatModel)
    return ServedChatModel


def served_chat_model(spec: ServedSpec, *, temperature: float = 0.0, timeout: float = 60.0, retries: int = 2,
                      **model_kwargs: Any) -> Any:
    """The chat model (generation and :meth:`score_options`) for a parsed ``served:`` spec.

    Without a model name the server's first model (``GET /models``) is used; that is the only request made here.

    Raises:
        DependencyNotInstalled: langchain-openai (the ``openai`` extra) is missing.
        ConfigError: a template that cannot be read.
        ModelUnavailableError: no model was named and the server's models could not be listed.
    """
    cls = _chat_class()
    fmt = load_prompt_format(spec.template)
    key = os.environ.get("OPENAI_API_KEY") or "sk-no-key-needed"
    model = cls(model=spec.model or "served", base_url=spec.base_url, api_key=key, temperature=temperature,
                timeout=timeout, max_retries=0, **model_kwargs)
    name = spec.model or _first_model(model.root_client, spec.base_url, retries)
    model.model_name = name

    def complete(body: dict[str, Any]) -> Mapping[str, Any]:
        return model.root_client.completions.create(**body).model_dump()

    model.scorer = ServedScorer(complete, model=name, fmt=fmt, where=spec.base_url, retries=retries)
    return model


def _first_model(client: Any, where: str, retries: int) -> str:
    try:
        ids = transport.with_retries(lambda: [m.id for m in client.models.list()], retries=retries,
                                     what=f"listing the models at {where}")
    except Exception as exc:
        if transport.classify(exc) == "other":
            raise
        raise ModelUnavailableError(f"the model server at {where} did not list its models "
                                    f"({transport.describe(exc)}); start it, or name the model: served:{where}#<model>"
                                    ) from exc
    if not ids:
        raise ModelUnavailableError(f"the model server at {where} lists no models; name one: served:{where}#<model>")
    return str(ids[0])


__all__ = [
    "SERVED_SPEC",
    "NoLogprobs",
    "PromptFormat",
    "ServedScorer",
    "ServedSpec",
    "load_prompt_format",
    "option_logprob",
    "option_span",
    "parse_served_spec",
    "served_chat_model",
]
