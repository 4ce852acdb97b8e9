"""Data contracts: the only things that pass between stages (scenes -> perception -> planner -> skills).

Enum values are exactly the COAT dataset strings, so there is no translation layer. Object names are the
COAT spellings; AI2-THOR spellings (``BaseballBat``, ``BathtubBasin``, ``Dumbbell``, ``VacuumCleaner``) are
accepted everywhere and normalised. Frames and arrays never enter a contract, so everything the planner
sees can be logged as JSON and put into a prompt.

Example:
    >>> s = PhysicalState(mass="light", material="Metal", temperature="RoomTemp",
    ...                   already_in_use="free", condition="clean")
    >>> ObjectConfig(object="BaseballBat", state=s).object
    'BaseBallBat'
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator


class Contract(BaseModel):
    """Base of every contract: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


class _StrEnum(str, Enum):
    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def values(cls) -> list[str]:
        """Return the dataset strings, in declaration order."""
        return [m.value for m in cls]

    @classmethod
    def _missing_(cls, value: object) -> Any:
        # Accept case-insensitive spellings ("roomtemp", "Free"); anything else falls through to the
        # pydantic error, which lists the valid values.
        if isinstance(value, str):
            for m in cls:
                if m.value.lower() == value.strip().lower():
                    return m
        return None


class Mass(_StrEnum):
    """Mass bucket: light [0,1 kg], medium (1,5], heavy (5,10], super-heavy (>10)."""

    LIGHT = "light"
    MEDIUM = "medium"
    HEAVY = "heavy"
    SUPER_HEAVY = "super-heavy"


class Material(_StrEnum):
    """The 14 COAT materials."""

    CERAMIC = "Ceramic"
    FABRIC = "Fabric"
    FOOD = "Food"
    GLASS = "Glass"
    METAL = "Metal"
    ORGANIC = "Organic"
    PAPER = "Paper"
    PLASTIC = "Plastic"
    RUBBER = "Rubber"
    SOAP = "Soap"
    SPONGE = "Sponge"
    STONE = "Stone"
    WAX = "Wax"
    WOOD = "Wood"


class Temperature(_StrEnum):
    """Object temperature as AI2-THOR and COAT spell it."""

    COLD = "Cold"
    HOT = "Hot"
    ROOM = "RoomTemp"


class InUse(_StrEnum):
    """Availability: free, in use for a while (reversible) or for good (irreversible)."""

    FREE = "free"
    REVERSIBLE = "reversible-using"
    IRREVERSIBLE = "irreversible-using"


class Condition(_StrEnum):
    """Condition of the object."""

    CLEAN = "clean"
    DIRTY = "dirty"
    BROKEN = "broken"


VARIABLES: tuple[str, ...] = ("mass", "material", "temperature", "already_in_use", "condition")
"""The five abstract variables, in the order COAT prints them."""

VARIABLE_ENUMS: dict[str, type[_StrEnum]] = {
    "mass": Mass,
    "material": Material,
    "temperature": Temperature,
    "already_in_use": InUse,
    "condition": Condition,
}

# COAT spelling -> AI2-THOR spelling, for the four COAT names that differ from AI2-THOR types.
COAT_TO_THOR: dict[str, str] = {
    "BaseBallBat": "BaseballBat",
    "BathTubBasin": "BathtubBasin",
    "Dumbell": "Dumbbell",
    "VaccumCleaner": "VacuumCleaner",
}
THOR_TO_COAT: dict[str, str] = {v: k for k, v in COAT_TO_THOR.items()}


def canonical_object_name(name: str) -> str:
    """Return the COAT spelling of an object name (AI2-THOR spellings are mapped; others unchanged).

    >>> canonical_object_name("VacuumCleaner")
    'VaccumCleaner'
    """
    name = name.strip()
    return THOR_TO_COAT.get(name, name)


def thor_object_name(name: str) -> str:
    """Return the AI2-THOR spelling of an object name.

    >>> thor_object_name("Dumbell")
    'Dumbbell'
    """
    name = name.strip()
    return COAT_TO_THOR.get(name, name)


class PhysicalState(Contract):
    """The five abstract variables of one concrete object instance."""

    mass: Mass
    material: Material
    temperature: Temperature
    already_in_use: InUse
    condition: Condition

    @model_validator(mode="after")
    def _broken_is_irreversible(self) -> PhysicalState:
        # COAT never has a broken object that is free or only briefly in use: broken means unusable.
        if self.condition is Condition.BROKEN and self.already_in_use is not InUse.IRREVERSIBLE:
            raise ValueError(
                "condition='broken' requires already_in_use='irreversible-using' "
                f"(got {self.already_in_use.value!r})"
            )
        return self

    def as_text(self) -> str:
        """Render as COAT prints a configuration: ``mass: light, material: Metal, ...``."""
        return ", ".join(f"{v}: {getattr(self, v).value}" for v in VARIABLES)

    def unusable_reason(self) -> str:
        """Why no task can use an object in this state (``"broken"``, ``"in use for good"``), or ``""``."""
        if self.condition is Condition.BROKEN:
            return "broken"
        if self.already_in_use is InUse.IRREVERSIBLE:
            return "in use for good"
        return ""


class ObjectConfig(Contract):
    """An object name with a concrete physical state (a COAT configuration)."""

    object: str = Field(min_length=1)
    state: PhysicalState
    id: int | None = None
    """Id in COAT's ``possible_configurations_v1.json`` when the configuration comes from there."""

    @field_validator("object")
    @classmethod
    def _canonical(cls, v: str) -> str:
        return canonical_object_name(v)

    def as_text(self) -> str:
        """Render as ``Knife (mass: light, material: Metal, ...)``."""
        return f"{self.object} ({self.state.as_text()})"


class Penalty(Contract):
    """Cost of using a configuration for a combination; lower is better."""

    time_penalty: int = Field(ge=0)
    material_penalty: int = Field(ge=0)
    label: Literal["ideal", "moderate", "bad"]

    @property
    def total(self) -> int:
        """time_penalty + material_penalty."""
        return self.time_penalty + self.material_penalty


# ---------------------------------------------------------------- question sets

QuestionSet = Literal["task_u", "task0", "task1", "task2", "full_ideal", "full_moderate"]
QUESTION_SETS: tuple[str, ...] = ("task_u", "task0", "task1", "task2", "full_ideal", "full_moderate")
OptionPool = Literal["ideal", "moderate", "bad", "context", "concept", "random", "utility", "other"]
LETTERS = "ABCDE"


class Option(Contract):
    """One lettered option of a question. ``state`` is None for object-only sets (Task-u, Task-0)."""

    letter: str = Field(pattern=r"^[A-E]$")
    object: str
    state: PhysicalState | None = None
    pool: OptionPool
    time_penalty: int | None = None
    material_penalty: int | None = None

    @field_validator("object")
    @classmethod
    def _canonical(cls, v: str) -> str:
        return canonical_object_name(v)

    def config(self) -> ObjectConfig:
        """The option as an ObjectConfig (only for options with a state)."""
        if self.state is None:
            raise ValueError(f"option {self.letter} ({self.object}) has no physical state")
        return ObjectConfig(object=self.object, state=self.state)


class Question(Contract):
    """A multiple-choice COAT question with exactly one correct option."""

    id: str
    set: QuestionSet
    variation: int = Field(ge=1)
    utility: str
    task: str | None = None
    text: str
    options: tuple[Option, ...] = Field(min_length=2, max_length=5)
    answer: str = Field(pattern=r"^[A-E]$")

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        letters = [o.letter for o in self.options]
        if letters != list(LETTERS[: len(letters)]):
            raise ValueError(f"option letters must be {list(LETTERS[: len(letters)])}, got {letters}")
        if self.answer not in letters:
            raise ValueError(f"answer {self.answer!r} is not one of the option letters {letters}")
        return self

    def option(self, letter: str) -> Option:
        """Return the option with this letter."""
        for o in self.options:
            if o.letter == letter:
                return o
        raise KeyError(f"no option {letter!r}; options are {[o.letter for o in self.options]}")


# ---------------------------------------------------------------- scenes, decisions, plans

Source = Literal["oracle", "metadata", "vision", "text", "prior"]


class ObjectRecord(Contract):
    """One object instance in a scene as perception sees it.

    ``confidence`` maps a variable name to a confidence in [0, 1]; ``unknown`` lists variables that could
    not be observed and were filled from priors (COAT's common values for the object type).
    """

    object_id: str
    category: str
    state: PhysicalState
    source: Source = "oracle"
    confidence: dict[str, float] = Field(default_factory=dict)
    unknown: tuple[str, ...] = ()

    @field_validator("category")
    @classmethod
    def _canonical(cls, v: str) -> str:
        return canonical_object_name(v)

    def config(self) -> ObjectConfig:
        """The record as an ObjectConfig."""
        return ObjectConfig(object=self.category, state=self.state)


class SceneState(Contract):
    """Everything the planner knows about a scene: a tuple of object records."""

    scene_id: str
    objects: tuple[ObjectRecord, ...] = ()

    @model_validator(mode="after")
    def _unique_ids(self) -> SceneState:
        seen: set[str] = set()
        for o in self.objects:
            if o.object_id in seen:
                raise ValueError(f"duplicate object_id {o.object_id!r} in scene {self.scene_id!r}")
            seen.add(o.object_id)
        return self

    def by_id(self, object_id: str) -> ObjectRecord:
        """Return the record with this id."""
        for o in self.objects:
            if o.object_id == object_id:
                return o
        raise KeyError(f"no object {object_id!r} in scene {self.scene_id!r}")


class ObjectChoice(Contract):
    """A stage's choice of one candidate, with a short reason.

    When validated with ``context={"candidate_ids": [...]}`` the id must be one of the candidates, so a
    model that invents an object is re-asked.
    """

    object_id: str
    rationale: str = ""

    @field_validator("object_id")
    @classmethod
    def _in_candidates(cls, v: str, info: ValidationInfo) -> str:
        ctx = info.context or {}
        cands = ctx.get("candidate_ids")
        if cands is not None and v not in cands:
            raise ValueError(f"object_id {v!r} is not one of the candidates {list(cands)}")
        return v


class SkillCall(Contract):
    """One step of a plan: a skill (lower-case verb) with its target and optional receptacle."""

    skill: str
    target: str | None = None
    receptacle: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)


# ---------------------------------------------------------------- decision results (stage contracts)

DecisionMethod = Literal[
    "knowledge", "llm-scored", "llm-yesno", "llm-ensemble", "llm-generated", "mixed", "learned"
]


class ObjectSelection(Contract):
    """Stage 1 output: which candidate objects suit the task, and all candidates ranked.

    ``kept`` holds EVERY object judged suitable (best first), not a single answer: COAT found that
    single-answer object selection drops good objects. ``unparsed`` is True when the model's answer could
    not be parsed; ``kept`` is then empty and the caller decides what to do (the two-stage pipeline falls
    back to all options and records it).
    """

    task: str | None = None
    utility: str
    candidates: tuple[str, ...]
    kept: tuple[str, ...] = ()
    ranking: tuple[str, ...] = ()
    scores: dict[str, float] = Field(default_factory=dict)
    method: DecisionMethod
    reason: str = ""
    unparsed: bool = False


class StateRanking(Contract):
    """Stage 2 (or single-prompt) output over a list of candidates, by index into that list.

    ``chosen`` is None when the model's answer could not be parsed (never replaced by a random guess).
    """

    n_candidates: int = Field(ge=1)
    chosen: int | None = None
    ranking: tuple[int, ...] = ()
    scores: tuple[float, ...] = ()
    method: DecisionMethod
    reason: str = ""

    @property
    def unparsed(self) -> bool:
        """True when no candidate was chosen because the answer could not be parsed."""
        return self.chosen is None


class Decision(Contract):
    """What the two-stage pipeline and the single-prompt baseline both return for one decision.

    ``labels`` are the candidates' labels (option letters for a Question); ``chosen`` is one of them, or
    None when the answer could not be parsed. ``fallback`` is True when stage 1 kept no object (or its
    answer was unparsed) and stage 2 therefore saw every candidate.
    """

    question_id: str | None = None
    pipeline: Literal["two-stage", "single"]
    strategy: str
    labels: tuple[str, ...]
    chosen: str | None = None
    ranking: tuple[str, ...] = ()
    reason: str = ""
    stage1: ObjectSelection | None = None
    stage2: StateRanking | None = None
    fallback: bool = False
    model_id: str | None = None
    prompt_hash: str = ""
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def unparsed(self) -> bool:
        """True when no candidate was chosen because the answer could not be parsed."""
        return self.chosen is None

    @property
    def chosen_index(self) -> int | None:
        """Index of the chosen candidate in ``labels``, or None."""
        return None if self.chosen is None else self.labels.index(self.chosen)


THOR_COMPATIBLE_FIXES: dict[str, tuple[str, ...]] = {"Mug": ("Microwave", "Fridge", "CoffeeMachine")}
"""Receptacles missing from a type's scraped "compatible receptacles" (corrections, not extensions).

The official table's Mug row lists neither the Microwave, the Fridge nor the CoffeeMachine, yet its own
contextual interactions fill a Mug placed in a running CoffeeMachine with hot coffee, and ALFRED's heat and cool
tasks put mugs in microwaves and fridges; without the fix ``PutObject`` (no ``forceAction``) refused a mug there.
No recording puts a mug in one, so fidelity is untouched."""


__all__ = [
    "COAT_TO_THOR",
    "THOR_COMPATIBLE_FIXES",
    "LETTERS",
    "QUESTION_SETS",
    "THOR_TO_COAT",
    "VARIABLES",
    "VARIABLE_ENUMS",
    "Condition",
    "Contract",
    "Decision",
    "DecisionMethod",
    "InUse",
    "Mass",
    "Material",
    "ObjectChoice",
    "ObjectConfig",
    "ObjectSelection",
    "ObjectRecord",
    "Option",
    "Penalty",
    "PhysicalState",
    "Question",
    "SceneState",
    "SkillCall",
    "StateRanking",
    "Temperature",
    "canonical_object_name",
    "thor_object_name",
]
