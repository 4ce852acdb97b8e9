"""A generating model parses a request into roles and targets through structured output (``interpret="model"``).

The model is asked for a :class:`ParsedTask` (is it a household request; the COAT utilities it needs, with the
object types the request names for them; its targets). The reply is validated against COAT's 22 utilities and
AI2-THOR's types (validation context), and re-asked with the validation error by the LLM layer
(:meth:`planner.llm.langchain.LangChainBackend.structured`); a model that never gives a valid parse is counted
as not understood, never replaced by a guess. The parse becomes a TaskSpec the same way the offline reader's
evidence does (goals from the utilities, the steps' implied roles, each role borrowing the nearest COAT task's
annotations), so everything after reading is shared.

This needs a model that generates well (``openai:<model>``, ``ollama:<model>``); the embedded 135M / 270M
models answer such prompts near chance (``benchmarks/llm.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationInfo, field_validator

from ..errors import SelectionError
from ..schemas import Contract, Target, TaskReading
from .calibration import confidence
from .evidence import _Evidence
from .reader import TaskReader

if TYPE_CHECKING:
    from ..llm import LLMBackend


class ParsedRole(Contract):
    """One thing the request needs an object for."""

    utility: str
    types: tuple[str, ...] = ()
    """Object types the request names for this role ("the kettle"); empty when it names none."""

    @field_validator("utility")
    @classmethod
    def _known_utility(cls, v: str, info: ValidationInfo) -> str:
        valid = (info.context or {}).get("utilities")
        if valid and v not in valid:
            raise ValueError(f"unknown utility {v!r}; valid: {', '.join(valid)}")
        return v

    @field_validator("types")
    @classmethod
    def _known_types(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        valid = (info.context or {}).get("types")
        bad = [t for t in v if valid and t not in valid]
        if bad:
            raise ValueError(f"unknown object type {bad[0]!r}; use AI2-THOR type names such as Knife, Fridge, Mug")
        return v


class ParsedTarget(Contract):
    """What the request acts on: an AI2-THOR object type, or a liquid (water, coffee, wine)."""

    type: str
    liquid: bool = False

    @field_validator("type")
    @classmethod
    def _known(cls, v: str, info: ValidationInfo) -> str:
        ctx = info.context or {}
        valid = set(ctx.get("types", ())) | set(ctx.get("liquids", ()))
        if valid and v not in valid:
            raise ValueError(f"unknown target {v!r}; use an AI2-THOR type (Apple, Bread ...) or water / coffee / wine")
        return v


class ParsedTask(Contract):
    """A model's parse of a request."""

    understood: bool = Field(description="false for text that is not a household request in English")
    roles: tuple[ParsedRole, ...] = ()
    targets: tuple[ParsedTarget, ...] = ()


def _messages(text: str, reader: TaskReader) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage  # a second to import: only for a model's parse

    kb = reader.kb
    phrases = kb.templates.utility_phrases
    utilities = "\n".join(f"- {u}: {phrases.get(u, u).strip()}" for u in kb.utilities)
    types = ", ".join(sorted({t for ts in reader.vocab.phrases.values() for t in ts}))
    system = (
        "You read a request to a household robot and say which objects it needs, as JSON.\n"
        f"Utilities (what an object is needed for):\n{utilities}\n"
        f"Object types: {types}\nLiquids: water, coffee, wine.\n"
        'Reply with JSON only: {"understood": true|false, "roles": [{"utility": ..., "types": [...]}], '
        '"targets": [{"type": ..., "liquid": false}]}. "types" lists only object types the request names for that '
        "role. Set understood to false, with no roles, for text that is not a household request in English."
    )
    return [SystemMessage(system), HumanMessage(f"Request: {text}")]


def read_structured(text: str, llm: LLMBackend, reader: TaskReader, *, borrow: bool = True) -> TaskReading:
    """Parse ``text`` with ``llm`` into a TaskReading (see the module doc).

    Raises:
        ModelUnavailableError: the model server could not be reached.
    """
    norm = " ".join(text.split())
    closest = tuple(reader.assess(norm).closest) if norm else ()
    context = {"utilities": list(reader.kb.utilities), "types": sorted({t for ts in reader.vocab.phrases.values()
                                                                        for t in ts}),
               "liquids": ["water", "coffee", "wine"]}
    try:
        parsed = llm.structured(_messages(norm, reader), ParsedTask, context=context)
    except SelectionError as e:
        return TaskReading(text=text, understood=False, confidence=0.0, method="structured", closest=closest,
                           reason=f"not understood: the model gave no valid parse ({e})")
    if not parsed.understood or not parsed.roles:
        return TaskReading(text=text, understood=False, confidence=0.0, method="structured", closest=closest,
                           reason="not understood: the model says this is not a household request")
    ev = _Evidence(roles={}, targets=[], notes=[f"parsed by {getattr(llm, 'model_id', 'the model')}"], frame=True)
    for r in parsed.roles:
        ev.roles.setdefault(r.utility, r.types)
    for t in parsed.targets:
        name = "liquid" if t.liquid else ("plant" if t.type == "HousePlant" else "target")
        if not any(x.name == name for x in ev.targets):
            ev.targets.append(Target(name=name, types=(t.type,), liquid=t.liquid))
    a = reader.assess(norm)
    spec = reader._spec(text, ev, a.tasks, a.task_sims, borrow=borrow)
    # the model's parse has no calibration of its own: the offline reader's confidence in the same text is kept
    conf = confidence(a.features, reader.calibration) if a.language.english else 0.0
    return TaskReading(text=text, understood=True, confidence=round(conf, 4), spec=spec, method="structured",
                       closest=closest, evidence=tuple(ev.notes))


__all__ = ["ParsedRole", "ParsedTarget", "ParsedTask", "read_structured"]
