"""The model reader: a generating model fills a small JSON schema, decoded under it, and the reading becomes a TaskSpec.

``plan(text, llm=..., interpret="model")`` reads a request this way (``coat plan --interpret model --llm local``,
``coat bench understanding --interpret model --llm SPEC``). How one request is read (:func:`read_with_model`):

1. The offline reader's gates come first (:meth:`~planner.understanding.reader.TaskReader.read`): a COAT task is
   read exactly, and empty, overlong, non-English, impossible and harmful text is refused with its reason; no
   model is asked.
2. Checks of the words (:mod:`.request_checks`): a request that does not say what to do ("the blue mug") or asks
   for opposite end states of one thing ("heat the milk and keep it cold") is "not understood" with the reason.
3. The model is asked for a :class:`ModelReading`: is it a household request, the roles it needs (COAT utilities,
   each with the object types the request names for it), its targets, where something is put and the things it
   sets on, off, open or closed ("turn off the lamp"). The JSON schema
   sent with the question (:func:`reading_schema`) is pydantic's schema of :class:`ModelReading` with enums: the
   utilities are COAT's 22, the targets and places are the types the request names (:meth:`Vocabulary.mentions`)
   and a role's types those of them COAT knows objects of, so a reply decoded under the schema is valid by
   construction. Decoding is constrained where the model allows it
   (:mod:`planner.llm.constrained`): llama.cpp's JSON-schema grammar for the embedded models, the server's
   structured output for ``served:`` and ``openai:``; other chat models get the schema in the prompt.
4. The reply is validated with pydantic against the same values (:data:`READING_CONTEXT` keys); a reply that
   fails is re-asked with the error, up to the backend's ``max_retries`` times (:data:`REASKS` for a backend that
   has none), and then counted as failed: "not understood", with the last error, never a guess. How the model
   was asked (decoding, replies asked for, re-asks, failed, seconds) is the reading's
   :attr:`~planner.schemas.TaskReading.asked`, which ``coat bench understanding`` sums.
5. A reading the model calls not understood, or with no role and no state set, is "not understood". Otherwise it
   becomes a TaskSpec as the offline reader's evidence does (the same
   :func:`~planner.knowledge.task_specs.build_spec`: goals from the utilities, the steps' implied roles, each role
   borrowing the nearest COAT task's annotations; a thing set to a state is a ``switched`` target whose goal is that
   state), so everything after reading is shared. The confidence is the offline reader's calibrated confidence in
   the same text (the model's reading has no calibration of its own).

A world or model outcome is never raised: a reply that never validates, or a server that refuses the request, is
a "not understood" reading. A server that cannot be reached raises :class:`~planner.errors.ModelUnavailableError`
(as every model call does), and a programmer error (a backend that is not one) raises.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from ..errors import SelectionError
from ..knowledge.task_specs import STATE_WORDS
from ..schemas import Contract, ModelAsked, Target, TaskReading, TaskSpec, canonical_object_name
from .calibration import confidence
from .evidence import _Evidence
from .request_checks import contradiction, says_what_to_do
from .vocabulary import LIQUIDS

if TYPE_CHECKING:
    from ..llm import LLMBackend
    from .reader import TaskReader

REASKS = 1
"""Re-asks after a reply that fails validation, for a backend without ``max_retries``."""
MAX_ROLES = 4
MAX_TYPES = 3
MAX_TARGETS = 3
MAX_PLACES = 2
MAX_STATES = 3
STATES: dict[str, tuple[str, bool]] = {word: state for state, word in STATE_WORDS.items()}
"""The states a reading may set a thing to (``on``, ``off``, ``open``, ``closed``) -> AI2-THOR's property and value."""
READING_CONTEXT = ("utilities", "names", "role_types")
"""The validation context of a :class:`ModelReading`: COAT's utilities, the types and liquids the request names, and
those of them a role may have (the types COAT knows objects of: its knowledge decides a role)."""
LIQUID_NAMES: tuple[str, ...] = tuple(dict.fromkeys(LIQUIDS.values()))
"""The liquids a target may be (AI2-THOR's: water, coffee, wine)."""

EXAMPLES = 2
"""Worked examples shown before the request: the labelled requests nearest to it (:func:`nearest_examples`)."""
SYSTEM = (
    "You read a request to a household robot and fill in a JSON form.\n"
    "understood: false when the text is not something a household robot could do.\n"
    "roles: what the robot needs an object for, each a utility from this list:\n{utilities}\n"
    "types: the object types the request names for that role (the knife to cut with, the fridge to store in), "
    "else [].\n"
    "targets: the object types or liquids the request acts on (the apple to cut, the water to boil), else [].\n"
    "place: where the request wants a thing put when no role above is for it, else [].\n"
    "states: each thing the request sets on, off, open or closed (turn off the lamp, close the fridge), else []; "
    "a light or screen switched on to be used is a role, not a state."
)
FALLBACK_EXAMPLE = ("slice the bread with a knife", {"understood": True, "roles": [{"utility": "cutting",
                    "types": ["Knife"]}], "targets": ["Bread"], "place": [], "states": []})
"""The worked example shown when no labelled request shares a content word with the request."""


# ---------------------------------------------------------------- the schema


def _context(info: ValidationInfo, key: str) -> Sequence[str] | None:
    """A list of allowed values from the validation context (None: not checked)."""
    got = (info.context or {}).get(key)
    return None if got is None else list(got)


class ReadRole(Contract):
    """One thing the request needs an object for."""

    utility: str = Field(description="a COAT utility")
    types: tuple[str, ...] = Field(default=(), max_length=MAX_TYPES,
                                   description="object types the request names for this role, else []")

    @field_validator("utility")
    @classmethod
    def _known_utility(cls, v: str, info: ValidationInfo) -> str:
        valid = _context(info, "utilities")
        if valid is not None and v not in valid:
            raise ValueError(f"unknown utility {v!r}; valid: {', '.join(valid)}")
        return v

    @field_validator("types")
    @classmethod
    def _named_types(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return _named(v, info, "object type", "role_types")


def _named(values: tuple[str, ...], info: ValidationInfo, what: str, key: str = "names") -> tuple[str, ...]:
    """The values without repeats, each one of the context's ``key`` (the types the request names; for a role,
    those COAT knows objects of), when the context says which."""
    valid = _context(info, key) if (info.context or {}).get(key) is not None else _context(info, "names")
    bad = [t for t in values if valid is not None and t not in valid]
    if bad:
        allowed = ", ".join(valid or ()) or "none"
        raise ValueError(f"the {what} {bad[0]!r} is not one the request names that may be used here; those are: "
                         f"{allowed}")
    return tuple(dict.fromkeys(values))


class SetState(Contract):
    """A thing the request sets to a state ("turn off the lamp": the lamp, off)."""

    thing: str = Field(description="an object type the request names")
    state: str = Field(description="on, off, open or closed")

    @field_validator("thing")
    @classmethod
    def _named_thing(cls, v: str, info: ValidationInfo) -> str:
        return _named((v,), info, "thing")[0]

    @field_validator("state")
    @classmethod
    def _known_state(cls, v: str) -> str:
        if v not in STATES:
            raise ValueError(f"unknown state {v!r}; valid: {', '.join(STATES)}")
        return v


class ModelReading(Contract):
    """A model's reading of a request: what it needs objects for, what it acts on, where a thing goes."""

    understood: bool = Field(description="false when the text is not something a household robot could do")
    roles: tuple[ReadRole, ...] = Field(default=(), max_length=MAX_ROLES)
    targets: tuple[str, ...] = Field(default=(), max_length=MAX_TARGETS,
                                     description="object types or liquids the request acts on")
    place: tuple[str, ...] = Field(default=(), max_length=MAX_PLACES,
                                   description="where a thing is put when no role is for it")
    states: tuple[SetState, ...] = Field(default=(), max_length=MAX_STATES,
                                         description="things the request sets on, off, open or closed")

    @field_validator("targets")
    @classmethod
    def _named_targets(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return _named(v, info, "target")

    @field_validator("place")
    @classmethod
    def _named_place(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return _named(v, info, "place")

    @field_validator("roles")
    @classmethod
    def _one_role_per_utility(cls, v: tuple[ReadRole, ...]) -> tuple[ReadRole, ...]:
        seen: dict[str, ReadRole] = {}
        for r in v:  # a utility given twice: one role with the types of both
            old = seen.get(r.utility)
            seen[r.utility] = r if old is None else ReadRole(utility=r.utility,
                                                              types=tuple(dict.fromkeys((*old.types, *r.types))))
        return tuple(seen.values())

    @model_validator(mode="after")
    def _uses_what_it_names(self, info: ValidationInfo) -> ModelReading:
        names = _context(info, "names")
        used = ({t for r in self.roles for t in r.types} | set(self.targets) | set(self.place)
                | {s.thing for s in self.states})
        if self.understood and names and not used & set(names):
            raise ValueError(f"the request names {', '.join(names)}: say what each is for (a role's types, a "
                             "target or the place)")
        return self


def _choice(names: Sequence[str], limit: int) -> dict[str, Any]:
    """An array of the named values (none when the request names none: without ``items`` llama.cpp would take
    the array for one of any JSON values)."""
    if not names:
        return {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    return {"type": "array", "items": {"type": "string", "enum": list(names)}, "maxItems": limit}


def reading_schema(utilities: Sequence[str], names: Sequence[str],
                   role_types: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON schema a reply must follow: :class:`ModelReading`'s, inlined, with the utilities, the named types
    (targets, places) and the named types a role may have (``role_types``, default: all named) as enums, and every
    field required (so a grammar writes each, in order)."""
    schema = _inlined(ModelReading.model_json_schema())
    props = schema["properties"]
    role = props["roles"]["items"]
    role["properties"]["utility"] = {"type": "string", "enum": list(utilities)}
    role["properties"]["types"] = _choice(names if role_types is None else role_types, MAX_TYPES)
    role["required"] = ["utility", "types"]
    props["targets"] = _choice(names, MAX_TARGETS)
    props["place"] = _choice(names, MAX_PLACES)
    state = props["states"]["items"]
    state["properties"] = {"thing": _choice(names, 1)["items"], "state": {"type": "string", "enum": list(STATES)}}
    state["required"] = ["thing", "state"]
    props["states"]["maxItems"] = MAX_STATES if names else 0
    schema["required"] = list(props)
    return schema


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic JSON schema with its ``$ref`` s replaced by their definitions, without titles and defaults."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(dict(defs[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: walk(v) for k, v in node.items() if k not in ("title", "default")}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)  # type: ignore[no-any-return]


def named_types(text: str, reader: TaskReader) -> list[str]:
    """The object types and liquids ``text`` names, in order, without repeats."""
    return list(dict.fromkeys(t for m in reader.vocab.mentions(text) for t in m.types))


def role_types(names: Sequence[str], reader: TaskReader) -> list[str]:
    """The named types a role may have: those COAT knows objects of (the knowledge strategy decides a role among
    its objects; a shower head or a sink is a target, not a role's type)."""
    known = set(reader.kb.objects)
    return [t for t in names if canonical_object_name(t) in known]


# ---------------------------------------------------------------- asking


def reading_messages(text: str, reader: TaskReader, names: Sequence[str], examples: int = EXAMPLES) -> list[Any]:
    """The question: a fixed system message (COAT's utilities; its tokens are reused from one request to the next),
    the nearest worked examples as earlier turns, and the request with the types it names."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage  # a second to import: only here

    kb = reader.kb
    phrases = kb.templates.utility_phrases
    utilities = "\n".join(f"- {u}: {' '.join(phrases.get(u, u).split())}" for u in kb.utilities)
    msgs: list[Any] = [SystemMessage(SYSTEM.format(utilities=utilities))]
    shown = nearest_examples(text, reader, examples) if examples else []
    for request, reply in shown or [FALLBACK_EXAMPLE]:
        msgs += [HumanMessage(_question(request, named_types(request, reader))),
                 AIMessage(json.dumps(reply, separators=(", ", ": ")))]
    return [*msgs, HumanMessage(_question(text, names))]


def _question(text: str, names: Sequence[str]) -> str:
    said = (f"Object types and liquids it names: {', '.join(names)}" if names else
            "It names no object type or liquid.")
    return f"Request: {text}\n{said}"


def nearest_examples(text: str, reader: TaskReader, k: int) -> list[tuple[str, dict[str, Any]]]:
    """The ``k`` labelled requests (the reader's worked examples) that share the most content words with ``text``
    (overlap over union; never the same text), each with the reply its labels give: its roles, with the types it
    names that its labels accept for them, and its targets; a request to refuse is not understood."""
    from .memo import same_requests
    from .reader import content_words

    mine = content_words(text)
    twins = same_requests(reader.examples, text)
    scored = [(len(mine & words) / len(mine | words), i) for i, words in enumerate(reader.example_words)
              if i not in twins and mine & words]
    out = []
    for _, i in sorted(scored, key=lambda p: (-p[0], p[1]))[:k]:
        e = reader.examples[i]
        named = role_types(named_types(e.request, reader), reader)
        roles = [{"utility": u, "types": [t for t in named if t in e.acceptable.get(u, ())][:MAX_TYPES]}
                 for u in e.roles[:MAX_ROLES]]
        sensible = e.kind != "nonsense" and bool(roles)
        out.append((e.request, {"understood": sensible, "roles": roles if sensible else [],
                                "targets": list(e.targets[:MAX_TARGETS]) if sensible else [], "place": [],
                                "states": []}))
    return out[::-1]  # the nearest last, just before the request


def ask_for_reading(llm: LLMBackend, messages: Sequence[Any], schema: Mapping[str, Any],
                    context: Mapping[str, Any], reasks: int) -> tuple[ModelReading | None, ModelAsked, list[str]]:
    """Ask ``llm`` for a :class:`ModelReading` under ``schema``, validate it with ``context`` and re-ask with the
    error up to ``reasks`` times.

    Returns:
        The reading (None when no reply validated), how the model was asked, and the validation errors.

    Raises:
        ModelUnavailableError: the model server could not be reached.
    """
    t0 = time.perf_counter()
    if not callable(getattr(llm, "constrained", None)):  # a backend with structured() alone (fake, your own)
        return _ask_structured(llm, messages, context, t0)
    from langchain_core.messages import AIMessage, HumanMessage

    from ..llm.parsing import REASK_TEMPLATE, format_validation_error, parse_reply

    msgs, errors, decoding = list(messages), [], "prompt"
    for attempt in range(reasks + 1):
        raw, decoding = llm.constrained(msgs, schema)  # type: ignore[attr-defined]
        if raw is None:  # the server refused the request: asking again the same way cannot help
            errors.append("the server refused the request")
            break
        try:
            reading = parse_reply(raw, ModelReading, context)
        except (ValidationError, ValueError) as exc:
            errors.append(format_validation_error(exc))
            if attempt < reasks:  # the question, the last reply and its error: the prompt does not grow
                llm.stats.retries += 1
                msgs = [*messages, AIMessage(raw), HumanMessage(REASK_TEMPLATE.format(error=errors[-1]))]
            continue
        return reading, _asked(decoding, attempt + 1, False, t0), errors
    return None, _asked(decoding, len(errors), True, t0), errors


def _ask_structured(llm: LLMBackend, messages: Sequence[Any], context: Mapping[str, Any],
                    t0: float) -> tuple[ModelReading | None, ModelAsked, list[str]]:
    """The same through the backend's own ``structured()`` (it validates and re-asks itself)."""
    before = llm.stats.retries
    try:
        reading = llm.structured(messages, ModelReading, context=context)
    except SelectionError as e:
        return None, _asked("structured", max(1, e.attempts), True, t0), list(e.errors)
    return reading, _asked("structured", llm.stats.retries - before + 1, False, t0), []


def _asked(decoding: str, asked: int, failed: bool, t0: float) -> ModelAsked:
    return ModelAsked(decoding=decoding, asked=asked, reasked=max(0, asked - 1), failed=failed,
                      seconds=round(time.perf_counter() - t0, 4))


# ---------------------------------------------------------------- reading


def read_with_model(text: str, llm: LLMBackend, reader: TaskReader, *, borrow: bool = True,
                    reasks: int | None = None) -> TaskReading:
    """Read ``text`` with the generating model ``llm`` into a TaskReading (see the module doc).

    Args:
        text: The request.
        llm: The model (a backend: :func:`planner.llm.make_llm`).
        reader: The offline reader of the knowledge base (its gates, vocabulary and spec builder are used).
        borrow: Each role borrows the annotations of the nearest COAT task of its utility.
        reasks: Re-asks after an invalid reply (default: the backend's ``max_retries``, else :data:`REASKS`).

    Raises:
        ModelUnavailableError: the model server could not be reached.
        TypeError: ``llm`` has neither ``constrained()`` nor ``structured()``.
    """
    if not callable(getattr(llm, "structured", None)) and not callable(getattr(llm, "constrained", None)):
        raise TypeError(f"llm must be a model backend (planner.llm.make_llm), got {type(llm).__name__}")
    rules = reader.read(text)
    if rules.method == "exact" or (not rules.understood and rules.confidence == 0.0):
        return rules  # a COAT task, or text refused before any reading (empty, too long, not English, harmful)
    norm = " ".join(text.split())
    closest = tuple(rules.closest)
    if not says_what_to_do(norm):
        return _refused(text, closest, "not understood: the request does not say what to do (no verb); say what "
                                        "the robot should do, e.g. 'bring me the mug'")
    clash = contradiction(norm)
    if clash:
        return _refused(text, closest, f"not understood: the request contradicts itself ({clash})")
    names = named_types(norm, reader)
    roles = role_types(names, reader)
    context = {"utilities": list(reader.kb.utilities), "names": names, "role_types": roles}
    reading, asked, errors = ask_for_reading(
        llm, reading_messages(norm, reader, names), reading_schema(reader.kb.utilities, names, roles), context,
        reasks if reasks is not None else getattr(llm, "max_retries", REASKS))
    model = getattr(llm, "model_id", "the model")
    if reading is None:
        last = errors[-1] if errors else "no reply"
        return _refused(text, closest, f"not understood: {model} gave no valid reading in {asked.asked} "
                                       f"{'reply' if asked.asked == 1 else 'replies'} ({last})", asked)
    if not reading.understood:
        return _refused(text, closest, f"not understood: {model} says this is not a household request", asked)
    if not reading.roles and not reading.states:
        return _refused(text, closest, f"not understood: {model} read no object role; say what the robot should "
                                       "do, or with what", asked)
    return _understood(text, norm, reading, reader, closest, asked, f"read by {model} ({asked.decoding})",
                       borrow=borrow)


def _understood(text: str, norm: str, reading: ModelReading, reader: TaskReader, closest: tuple[str, ...],
                asked: ModelAsked, note: str, *, borrow: bool) -> TaskReading:
    """The TaskReading of a model's reading: its spec built as the offline reader's evidence is."""
    ev = _Evidence(roles={}, targets=list(_targets(reading.targets)), notes=[note], frame=True, text=norm)
    for r in reading.roles:
        ev.roles[r.utility] = r.types
    ev.place = reading.place
    for s in reading.states:  # a light switched on to be used is its role's object, as the offline reader reads it
        role = next((u for u, types in ev.roles.items() if s.thing in types), None)
        if not reader._role_sets(STATES[s.state], role, (s.thing,)) and ev.set_state((s.thing,), STATES[s.state]):
            ev.notes.append(f"the {s.thing} ends {s.state}")
    a = reader.assess(norm)
    spec = reader._spec(text, ev, a.tasks, a.task_sims, borrow=borrow)
    if borrow:  # a role the spec adds (toast: the bread sliced first) borrows too
        sims = dict(zip(a.tasks, a.task_sims, strict=True))
        roles = tuple(r if r.task else r.model_copy(update={"task": reader._nearest_task(r, sims)}) for r in spec.roles)
        spec = TaskSpec.model_validate(spec.model_copy(update={"roles": roles}).model_dump())
    conf = confidence(a.features, reader.calibration) if a.language.english else 0.0
    return TaskReading(text=text, understood=True, confidence=round(conf, 4), spec=spec, method="structured",
                       closest=closest, evidence=tuple(ev.notes), asked=asked)


def _targets(names: Iterable[str]) -> Iterable[Target]:
    """The spec targets of a reading's target names: one liquid, the plant, the thing acted on (first named)."""
    seen: set[str] = set()
    for t in names:
        liquid = t in LIQUID_NAMES
        name = "liquid" if liquid else ("plant" if t == "HousePlant" else "target")
        if name not in seen:
            seen.add(name)
            yield Target(name=name, types=(t,), liquid=liquid)


def _refused(text: str, closest: tuple[str, ...], reason: str, asked: ModelAsked | None = None) -> TaskReading:
    return TaskReading(text=text, understood=False, confidence=0.0, method="structured", closest=closest,
                       reason=reason, asked=asked)


read_structured = read_with_model
"""The earlier name of :func:`read_with_model`."""

__all__ = [
    "EXAMPLES", "LIQUID_NAMES", "MAX_PLACES", "MAX_ROLES", "MAX_TARGETS", "MAX_TYPES", "READING_CONTEXT", "REASKS",
    "ModelReading", "ReadRole", "ask_for_reading", "named_types", "nearest_examples", "read_structured", "role_types",
    "read_with_model", "reading_messages", "reading_schema",
]
