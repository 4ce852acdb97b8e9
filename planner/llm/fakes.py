"""Fake models for offline tests and demos, kept apart from the real adapter.

``FakeLLM`` replays scripted replies through the real :class:`~planner.llm.langchain.LangChainBackend`
(so re-asking and caching are exercised); ``DeterministicLLM`` is the ``fake`` spec, a model-free stand-in
whose answers follow simple word overlap.

Example:
    >>> from planner.schemas import ObjectChoice
    >>> from langchain_core.messages import HumanMessage
    >>> llm = FakeLLM(['{"object_id": "knife_1", "rationale": "sharp"}'])
    >>> llm.structured([HumanMessage("Which object cuts a cake?")], ObjectChoice,
    ...                context={"candidate_ids": ["knife_1", "pillow_2"]}).object_id
    'knife_1'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import ValidationError

from ..errors import SelectionError
from .base import LLMStats, M, check_options, check_scores
from .cache import LLMCache
from .langchain import LangChainBackend
from .parsing import format_validation_error


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that records what it was asked and can return scripted option scores.

    ``messages`` is the reply script (an iterator of str or AIMessage); ``scores`` a list of score lists
    returned in order by :meth:`score_options` (leave empty for a model that cannot score). Scores are
    returned as scripted, even when unusable (NaN, the wrong count, strings), so tests can check that the
    backend's :meth:`~planner.llm.langchain.LangChainBackend.score` refuses them.
    """

    requests: list[list[BaseMessage]] = []
    scores: list[list[Any]] | None = None
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

    def score_options(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[Any]:
        self.score_requests.append((prompt, list(options), neutral_prompt))
        if not self.scores:
            raise RuntimeError("ScriptedChatModel ran out of scripted scores")
        return list(self.scores.pop(0))


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
        scores: Iterable[Sequence[Any]] | None = None,
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
        check_options(options)
        self.stats.calls += 1
        pw = _words(prompt)
        return check_scores([float(len(_words(o) & pw)) - 0.001 * i for i, o in enumerate(options)], options,
                            self.model_id)

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


__all__ = ["DeterministicLLM", "FakeLLM", "ScriptedChatModel"]
