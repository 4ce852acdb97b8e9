"""Prompt templates of the decision stages: loading, rendering and hashing.

The templates are ``.txt`` files in ``planner/prompts/`` (``string.Template`` syntax, ``$name``). This
module is the only place that turns a task and its candidates into prompt text, so the golden tests in
``tests/planner/golden/`` pin every prompt the stages send.

Two answer modes exist for every decision prompt:

* ``"scored"``: the prompt ends with an answer prefix (``Answer: the best option is the``) and the model
  scores each candidate's text as a continuation (calibrated by the same prefix alone, the *neutral*
  prompt). Used when the backend supports scoring; small models pick letters at chance but rank
  continuations well.
* ``"generated"``: the prompt asks for a JSON answer (a letter, or a list of objects) that is parsed into a
  pydantic model.

Example:
    >>> print(context_block("cut cake", "cutting", "an object that can be used to cut something"))
    A household robot is doing the task "cut cake". It needs an object that can be used to cut something.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Literal

from .errors import ConfigError
from .schemas import PhysicalState, thor_object_name

Mode = Literal["scored", "generated"]
MODES: tuple[str, ...] = ("scored", "generated")

TEMPLATE_NAMES: tuple[str, ...] = (
    "system",
    "variables",
    "context_task",
    "context_utility",
    "object_stage",
    "object_yesno",
    "object_choice",
    "state_stage",
    "single",
    "answer_objects_json",
    "answer_letter_json",
    "answer_object_scored",
    "answer_option_scored",
    "neutral_object",
    "neutral_option",
    "neutral_yesno",
)
"""Every template file in ``planner/prompts/`` (without ``.txt``)."""

DECISION_TEMPLATES: tuple[str, ...] = ("object_choice", "state_stage", "single")
"""Templates that choose one option among lettered candidates."""


@cache
def load_template(name: str) -> string.Template:
    """Load ``planner/prompts/<name>.txt`` (cached).

    Raises:
        ConfigError: when ``name`` is not a known template.
    """
    if name not in TEMPLATE_NAMES:
        raise ConfigError(f"unknown prompt template {name!r}; valid: {', '.join(TEMPLATE_NAMES)}")
    text = resources.files("planner").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    # one trailing newline is an artefact of the file; the caller decides how prompts are joined
    return string.Template(text[:-1] if text.endswith("\n") else text)


def render(name: str, **values: str) -> str:
    """Render a template; every ``$name`` must be given.

    Raises:
        ConfigError: naming the missing variable.
    """
    try:
        return load_template(name).substitute(values)
    except KeyError as e:
        raise ConfigError(f"prompt template {name!r} needs ${e.args[0]}; got {sorted(values)}") from None


def template_text(name: str) -> str:
    """The raw text of a template (for hashing the prompt version)."""
    return load_template(name).template


def templates_hash() -> str:
    """Short hash of every template file: changes whenever any prompt wording changes."""
    return prompt_hash(*(f"{n}\n{template_text(n)}" for n in TEMPLATE_NAMES))


def prompt_hash(*texts: str) -> str:
    """Short, stable hash (12 hex digits of SHA-256) of the prompts sent for one decision."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


# ---------------------------------------------------------------- pieces

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def humanize_object(name: str) -> str:
    """Turn an object type into words: ``StoveBurner`` -> ``stove burner``, ``BaseBallBat`` -> ``baseball bat``.

    Acronyms stay upper case (``CD``). Small models read words far better than CamelCase types.
    """
    words: list[str] = []
    for part in thor_object_name(name).replace("_", " ").split():
        words += [w for w in _CAMEL.split(part) if w]
    return " ".join(w if (w.isupper() and len(w) > 1) else w.lower() for w in words)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def match_object_name(text: str, candidates: Sequence[str]) -> str | None:
    """Map a model's spelling of an object (``stove burner``, ``StoveBurner``, ``the Knife``) to a candidate.

    Returns the candidate, or None when ``text`` names none (or several) of them.
    """
    t = _norm(text)
    # "the knife", "a knife": drop a leading article when the rest still names something
    keys = {t} | {t[len(a):] for a in ("the", "an", "a") if t.startswith(a) and len(t) > len(a)}
    hits = [c for c in candidates if keys & {_norm(c), _norm(thor_object_name(c))}]
    return hits[0] if len(hits) == 1 else None


def need_phrase(utility: str, phrase: str | None = None) -> str:
    """What the robot needs: COAT's utility phrase when known, else the utility name."""
    if phrase:
        return phrase.strip()
    return f'an object for "{utility}"'


def context_block(task: str | None, utility: str, phrase: str | None = None) -> str:
    """The first lines of every prompt: the task (when there is one) and the purpose."""
    need = need_phrase(utility, phrase)
    if task:
        return render("context_task", task=task, need=need)
    return render("context_utility", need=need)


def option_text(obj: str, state: PhysicalState | None) -> str:
    """One candidate in words: ``knife (mass: light, material: Metal, ...)`` or just ``knife``."""
    name = humanize_object(obj)
    return name if state is None else f"{name} ({state.as_text()})"


def options_block(labels: Sequence[str], texts: Sequence[str]) -> str:
    """Lettered option lines, ``A. knife (...)``."""
    return "\n".join(f"{lab}. {txt}" for lab, txt in zip(labels, texts, strict=True))


def letters_phrase(labels: Sequence[str]) -> str:
    """``A, B or C``."""
    labels = list(labels)
    if len(labels) == 1:
        return labels[0]
    return ", ".join(labels[:-1]) + " or " + labels[-1]


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ConfigError(f"unknown prompt mode {mode!r}; valid: {', '.join(MODES)}")


# ---------------------------------------------------------------- whole prompts


def system_prompt() -> str:
    """System message for generated answers."""
    return render("system")


def object_prompt(
    task: str | None, utility: str, objects: Sequence[str], *, phrase: str | None = None, mode: Mode = "scored"
) -> str:
    """Stage 1 prompt: which of these objects could serve the purpose (object kinds only)."""
    _check_mode(mode)
    answer = render("answer_object_scored") if mode == "scored" else render("answer_objects_json")
    return render(
        "object_stage",
        context=context_block(task, utility, phrase),
        objects=", ".join(humanize_object(o) for o in objects),
        where=" in this task" if task else "",
        answer=answer,
    )


def object_yesno_prompt(task: str | None, utility: str, obj: str, *, phrase: str | None = None) -> str:
    """Stage 1 per-object prompt, scored with the continuations `` Yes`` / `` No``."""
    name = humanize_object(obj)
    return render(
        "object_yesno",
        context=context_block(task, utility, phrase),
        article=_article(name),
        object=name,
        where=" in this task" if task else "",
    )


def decision_prompt(
    template: str,
    task: str | None,
    utility: str,
    labels: Sequence[str],
    texts: Sequence[str],
    *,
    phrase: str | None = None,
    mode: Mode = "scored",
) -> str:
    """A prompt that picks one lettered option: ``object_choice``, ``state_stage`` or ``single``."""
    _check_mode(mode)
    if template not in DECISION_TEMPLATES:
        raise ConfigError(f"unknown decision template {template!r}; valid: {', '.join(DECISION_TEMPLATES)}")
    answer = (
        render("answer_option_scored")
        if mode == "scored"
        else render("answer_letter_json", letters=letters_phrase(labels))
    )
    values = {
        "context": context_block(task, utility, phrase),
        "options": options_block(labels, texts),
        "answer": answer,
    }
    if template != "object_choice":
        values["variables"] = render("variables")
    return render(template, **values)


def neutral_prompt(kind: Literal["object", "option", "yesno"]) -> str:
    """The answer prefix alone: the calibration prompt for scoring (what a continuation costs a priori)."""
    names = {"object": "neutral_object", "option": "neutral_option", "yesno": "neutral_yesno"}
    if kind not in names:
        raise ConfigError(f"unknown neutral prompt {kind!r}; valid: {', '.join(names)}")
    return render(names[kind])


__all__ = [
    "DECISION_TEMPLATES",
    "MODES",
    "TEMPLATE_NAMES",
    "Mode",
    "context_block",
    "decision_prompt",
    "humanize_object",
    "letters_phrase",
    "load_template",
    "match_object_name",
    "need_phrase",
    "neutral_prompt",
    "object_prompt",
    "object_yesno_prompt",
    "option_text",
    "options_block",
    "prompt_hash",
    "render",
    "system_prompt",
    "template_text",
    "templates_hash",
]
