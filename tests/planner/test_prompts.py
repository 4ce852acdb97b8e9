"""Prompt templates: every prompt the stages send is pinned by a golden file.

Regenerate the golden files after an intended wording change with
``UPDATE_GOLDEN=1 pytest tests/planner/test_prompts.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner import prompting
from planner.errors import ConfigError
from planner.schemas import VARIABLES, Option, PhysicalState, Question

GOLDEN = Path(__file__).parent / "golden"
PHRASE = "an object that can be used to cut something"


def _state(**kw: str) -> PhysicalState:
    base = dict(mass="light", material="Metal", temperature="RoomTemp", already_in_use="free", condition="clean")
    base.update(kw)
    return PhysicalState(**base)


QUESTION = Question(
    id="golden-1",
    set="full_moderate",
    variation=1,
    utility="cutting",
    task="cut cake",
    text='Which of the following objects is best suitable as \'an object that can be used to cut something\' '
    'during the task of "cut cake"?',
    options=(
        Option(letter="A", object="Knife", state=_state(already_in_use="reversible-using"), pool="moderate"),
        Option(letter="B", object="ButterKnife", state=_state(condition="dirty"), pool="moderate"),
        Option(letter="C", object="Pillow", state=_state(material="Fabric"), pool="random"),
        Option(letter="D", object="Knife", state=_state(already_in_use="irreversible-using", condition="broken"),
               pool="bad"),
    ),
    answer="B",
)


def _texts(q: Question) -> list[str]:
    return [prompting.option_text(o.object, o.state) for o in q.options]


def _labels(q: Question) -> list[str]:
    return [o.letter for o in q.options]


def _objects(q: Question) -> list[str]:
    return list(dict.fromkeys(o.object for o in q.options))


CASES = {
    "object_stage_scored": lambda: prompting.object_prompt("cut cake", "cutting", _objects(QUESTION), phrase=PHRASE),
    "object_stage_generated": lambda: prompting.object_prompt(
        "cut cake", "cutting", _objects(QUESTION), phrase=PHRASE, mode="generated"
    ),
    "object_yesno": lambda: prompting.object_yesno_prompt("cut cake", "cutting", "ButterKnife", phrase=PHRASE),
    "object_utility": lambda: prompting.object_utility_prompt("ButterKnife")
    + "\n---\n" + prompting.object_utility_prompt("Apple") + "\n---\n" + prompting.neutral_prompt("utility"),
    "object_yesno_utility_only": lambda: prompting.object_yesno_prompt(None, "cutting", "Apple", phrase=PHRASE),
    "state_stage_scored": lambda: prompting.decision_prompt(
        "state_stage", "cut cake", "cutting", ["A", "B"], _texts(QUESTION)[:2], phrase=PHRASE
    ),
    "state_stage_generated": lambda: prompting.decision_prompt(
        "state_stage", "cut cake", "cutting", ["A", "B"], _texts(QUESTION)[:2], phrase=PHRASE, mode="generated"
    ),
    "single_scored": lambda: prompting.decision_prompt(
        "single", "cut cake", "cutting", _labels(QUESTION), _texts(QUESTION), phrase=PHRASE
    ),
    "single_generated": lambda: prompting.decision_prompt(
        "single", "cut cake", "cutting", _labels(QUESTION), _texts(QUESTION), phrase=PHRASE, mode="generated"
    ),
    "object_choice_task_u": lambda: prompting.decision_prompt(
        "object_choice", None, "cutting", ["A", "B", "C"], ["knife", "pillow", "laptop"], phrase=PHRASE,
        mode="generated",
    ),
    "system": prompting.system_prompt,
    "neutral_object": lambda: prompting.neutral_prompt("object"),
    "neutral_option": lambda: prompting.neutral_prompt("option"),
    "neutral_yesno": lambda: prompting.neutral_prompt("yesno"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    text = CASES[name]()
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing golden file {path}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("template", ["state_stage", "single"])
def test_state_prompts_show_and_explain_the_five_variables(template: str) -> None:
    text = prompting.decision_prompt(
        template, "cut cake", "cutting", _labels(QUESTION), _texts(QUESTION), mode="generated"
    )
    glossary, _, options = text.partition("\nA. ")
    for var in VARIABLES:
        assert f"- {var}:" in glossary, var  # explained in the glossary
        assert f"{var}: " in options, var  # and shown for every option
    low = text.lower()
    assert "reversible-using" in low and "wait for it" in low  # reversible: busy for a while, you can wait
    assert "irreversible-using" in low and "cannot be used at all" in low  # irreversible: unavailable for good
    assert "A. knife (mass: light, material: Metal, temperature: RoomTemp, already_in_use: reversible-using" in text


def test_scored_prompts_never_list_the_options_and_descriptions_carry_all_five_variables() -> None:
    for template in ("state_stage", "single", "object_choice"):
        text = prompting.decision_prompt(template, "cut cake", "cutting", _labels(QUESTION), _texts(QUESTION))
        assert "knife" not in text and "A." not in text
    assert "knife" not in prompting.object_prompt("cut cake", "cutting", ["Knife", "Pillow"])
    s = QUESTION.options[0].state
    assert prompting.describe_state("Knife", s) == (
        "clean, room-temperature, light metal knife that is in use by someone else for a while"
    )
    broken = QUESTION.options[3].state
    assert prompting.describe_state("Knife", broken).endswith("that is used up and unavailable")
    assert prompting.describe_state("ButterKnife", None) == "butter knife"


def test_every_template_loads_and_hash_is_stable() -> None:
    for name in prompting.TEMPLATE_NAMES:
        assert prompting.template_text(name).strip(), name
    h = prompting.templates_hash()
    assert len(h) == 12 and h == prompting.templates_hash()


def test_render_errors_name_the_problem() -> None:
    with pytest.raises(ConfigError, match=r"\$task"):
        prompting.render("context_task", need="x")
    with pytest.raises(ConfigError, match="valid"):
        prompting.render("nope")
    with pytest.raises(ConfigError, match="valid"):
        prompting.object_prompt("t", "u", ["Knife"], mode="shout")  # type: ignore[arg-type]


def test_object_names_humanized_and_matched_back() -> None:
    assert prompting.humanize_object("StoveBurner") == "stove burner"
    assert prompting.humanize_object("BaseBallBat") == "baseball bat"  # COAT spelling -> AI2-THOR words
    assert prompting.humanize_object("CD") == "CD"
    cands = ["StoveBurner", "Microwave", "VaccumCleaner"]
    assert prompting.match_object_name("the stove burner", cands) == "StoveBurner"
    assert prompting.match_object_name("VacuumCleaner", cands) == "VaccumCleaner"
    assert prompting.match_object_name("toaster", cands) is None


def test_prompt_hash_depends_on_every_prompt_and_order() -> None:
    assert prompting.prompt_hash("a", "b") != prompting.prompt_hash("b", "a")
    assert prompting.prompt_hash("ab") != prompting.prompt_hash("a", "b")
