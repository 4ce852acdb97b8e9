"""Turning a raw model reply into a validated pydantic answer, tolerating prose and code fences."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from .base import M

REASK_TEMPLATE = (
    "Your previous reply could not be used: {error}\nAnswer again. Reply with only the JSON object, no other text."
)
JSON_INSTRUCTIONS = (
    "\n\nReply with only a JSON object (no prose, no code fence) that matches this JSON schema:\n{schema}"
)


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

MAX_REPLY_CHARS = 64_000
"""Longest reply parsed (characters). A stage's answer is a few hundred; a longer reply is a runaway
generation, treated as unusable (re-asked, then counted unparsed) rather than scanned."""
MAX_NESTING = 64
"""Deepest ``{``/``[`` nesting parsed. Answers nest two or three levels; deeper replies are unusable, and
bounding the depth keeps the JSON decoders far from Python's recursion limit."""


def _brackets(text: str) -> Iterator[tuple[int, str]]:
    """``(index, char)`` of every bracket outside JSON strings, in one linear pass.

    A string starts only inside brackets, and a JSON string never holds a raw newline, so a stray quote in
    prose ends at the line's end instead of swallowing the rest of the reply.
    """
    depth = 0
    in_str = esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"' or ch == "\n":
                in_str = False
        elif ch == '"' and depth > 0:
            in_str = True
        elif ch in "{[":
            depth += 1
            yield i, ch
        elif ch in "}]" and depth > 0:
            depth -= 1
            yield i, ch


def _check_size(text: str) -> None:
    """Refuse a reply too long or too deeply nested to be an answer (a ValueError, so it is re-asked)."""
    if len(text) > MAX_REPLY_CHARS:
        raise ValueError(
            f"the reply is {len(text)} characters long, over the {MAX_REPLY_CHARS} accepted; reply with only "
            "the short JSON object"
        )
    depth = 0
    for _i, ch in _brackets(text):
        depth += 1 if ch in "{[" else -1
        if depth > MAX_NESTING:
            raise ValueError(
                f"the reply nests brackets more than {MAX_NESTING} levels deep; reply with only the flat "
                "JSON object"
            )


def _brace_spans(text: str) -> list[tuple[int, int]]:
    """Every balanced ``{...}`` span (string-aware), in order of its opening brace: one linear scan."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    for i, ch in _brackets(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            spans.append((stack.pop(), i + 1))
    spans.sort()
    return spans


def _json_objects(text: str) -> Iterable[Any]:
    """Yield JSON objects found in ``text``: fenced blocks first, then balanced ``{...}`` spans.

    Linear in the reply: each span is decoded on its own (``_check_size`` bounds the nesting, so the
    spans hold at most ``MAX_NESTING`` times the reply's length in all), never the rest of the reply from
    every brace.
    """
    for m in _FENCE.finditer(text):
        try:
            yield json.loads(m.group(1))
        except json.JSONDecodeError:
            pass
    for start, end in _brace_spans(text):
        try:
            yield json.loads(text[start:end])
        except json.JSONDecodeError:
            pass


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

    A reply over :data:`MAX_REPLY_CHARS` or nested deeper than :data:`MAX_NESTING` is not parsed at all.

    Raises:
        ValidationError: the reply had usable JSON (or a bare answer) that does not validate.
        ValueError: nothing usable in the reply, or a reply too long or too deeply nested.
    """
    text = raw.strip()
    _check_size(text)
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


__all__ = [
    "JSON_INSTRUCTIONS",
    "MAX_NESTING",
    "MAX_REPLY_CHARS",
    "REASK_TEMPLATE",
    "format_validation_error",
    "parse_reply",
]
