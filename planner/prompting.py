"""Prompt templates of the decision stages: loading, rendering and hashing.

The templates are ``.txt`` files in ``planner/prompts/`` (``string.Template`` syntax, ``$name``). This
module is the only place that turns a task and its candidates into prompt text, so the golden tests in
``tests/planner/golden/`` pin every prompt the stages send.

Two answer modes exist for every decision:

* ``"scored"`` (backends that can score, e.g. the embedded model): a cloze. The prompt states the task
  and asks the question WITHOUT listing the candidates; each candidate is scored as the answer, calibrated
  by the same question without the task (the *neutral* prompt). Objects are scored by name after
  ``Which object would you use?``; configurations by a natural-language description of their five
  variables (:func:`describe_state`, e.g. ``dirty, hot, light glass bowl that is in use by someone else for
  a while``) after ``The best object for it is a``. Listing the candidates in a scored prompt took the
  embedded model to chance (``benchmarks/decision.md``, prompt probes), so scored prompts never list them.
* ``"generated"``: COAT-style prompts that list the lettered options with the five variables, explain
  the variables (what reversible and irreversible use mean), and ask for a JSON answer (a letter, or a
  list of objects) that is parsed into a pydantic model.

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
    "object_utility",
    "object_choice",
    "state_stage",
    "single",
    "object_cloze",
    "state_cloze",
    "answer_objects_json",
    "answer_letter_json",
    "neutral_object",
    "neutral_option",
    "neutral_yesno",
    "neutral_utility",
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


_USE = {
    "free": "free to use now",
    "reversible-using": "in use by someone else for a while",
    "irreversible-using": "used up and unavailable",
}
_TEMP = {"Hot": "hot", "Cold": "cold", "RoomTemp": "room-temperature"}
_MASS = {"light": "light", "medium": "medium-weight", "heavy": "heavy", "super-heavy": "very heavy"}


def describe_state(obj: str, state: PhysicalState | None) -> str:
    """A candidate as words for scoring: ``clean, room-temperature, light metal knife that is free to use now``.

    All five variables appear, each phrased so a small model can weigh it: ``reversible-using`` reads
    "in use by someone else for a while" (you can wait for it) and ``irreversible-using`` reads "used up
    and unavailable" (it cannot be used at all).
    """
    name = humanize_object(obj)
    if state is None:
        return name
    return (
        f"{state.condition.value}, {_TEMP[state.temperature.value]}, {_MASS[state.mass.value]} "
        f"{state.material.value.lower()} {name} that is {_USE[state.already_in_use.value]}"
    )


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
    """Stage 1 prompt: which of these objects could serve the purpose (object kinds only).

    ``scored``: the cloze ``Which object would you use?`` (``objects`` are not listed; each is scored as
    the answer). ``generated``: the candidates are listed and the model answers with every suitable one.
    """
    _check_mode(mode)
    if mode == "scored":
        return render("object_cloze", context=context_block(task, utility, phrase))
    return render(
        "object_stage",
        context=context_block(task, utility, phrase),
        objects=", ".join(humanize_object(o) for o in objects),
        where=" in this task" if task else "",
        answer=render("answer_objects_json"),
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


def object_utility_prompt(obj: str) -> str:
    """Stage 1 per-object prompt for the ``utility`` signal: ``A butter knife is``, continued by the utility's
    need phrase (``an object that can be used to cut something``), which is what gets scored.

    The scored text is the same for every object, so comparing objects needs no calibration of the answer;
    the neutral prompt (``It is``) only makes the number readable as what the object adds.
    """
    name = humanize_object(obj)
    return render("object_utility", subject=f"{_article(name).capitalize()} {name}")


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
    """A prompt that picks one option: ``object_choice``, ``state_stage`` or ``single``.

    ``generated``: the template with the lettered options (``texts`` from :func:`option_text`) and a JSON
    answer instruction. ``scored``: the cloze for scoring (``object_cloze`` for object-only options,
    ``state_cloze`` otherwise); ``labels`` and ``texts`` are not shown, each option's
    :func:`describe_state` is scored as the answer instead.
    """
    _check_mode(mode)
    if template not in DECISION_TEMPLATES:
        raise ConfigError(f"unknown decision template {template!r}; valid: {', '.join(DECISION_TEMPLATES)}")
    if mode == "scored":
        cloze = "object_cloze" if template == "object_choice" else "state_cloze"
        return render(cloze, context=context_block(task, utility, phrase))
    values = {
        "context": context_block(task, utility, phrase),
        "options": options_block(labels, texts),
        "answer": render("answer_letter_json", letters=letters_phrase(labels)),
    }
    if template != "object_choice":
        values["variables"] = render("variables")
    return render(template, **values)


def neutral_prompt(kind: Literal["object", "option", "yesno", "utility"]) -> str:
    """The calibration prompt for scoring: the scored prompt's question without the task, so
    ``logL(answer | prompt) - logL(answer | neutral)`` measures what the task adds (``object`` for object
    names, ``option`` for :func:`describe_state` descriptions, ``yesno`` for the per-object Yes/No, ``utility``
    for :func:`object_utility_prompt`)."""
    names = {"object": "neutral_object", "option": "neutral_option", "yesno": "neutral_yesno",
             "utility": "neutral_utility"}
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
    "describe_state",
    "humanize_object",
    "letters_phrase",
    "load_template",
    "match_object_name",
    "need_phrase",
    "neutral_prompt",
    "object_prompt",
    "object_utility_prompt",
    "object_yesno_prompt",
    "option_text",
    "options_block",
    "prompt_hash",
    "render",
    "system_prompt",
    "template_text",
    "templates_hash",
]
