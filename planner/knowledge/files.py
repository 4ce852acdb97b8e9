"""The COAT annotation files: their names, their raw schemas, and reading them with errors that name the key."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, Strict, TypeAdapter
from typing_extensions import NotRequired, TypedDict

from ..errors import DataError
from ..schemas import Condition, InUse, Mass, Material, Temperature

_FORBID = ConfigDict(extra="forbid")
# Counts, ids and penalties are strict ints: ``true`` or ``"3"`` is not a number.
_NonNeg = Annotated[int, Strict(), Field(ge=0)]
Name = Annotated[str, Field(min_length=1)]
Names = Annotated[list[Name], Field(min_length=1)]
"""A list of names that may not be empty (utilities, a utility's tasks or objects, a task's context objects)."""


class RawIdeal(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    object_name: Name
    mass: Mass
    material: Material
    temperature: Temperature
    already_in_use: InUse
    condition: Condition


class RawConfig(RawIdeal):
    id: _NonNeg


class RawPoolEntry(RawConfig):
    time_penalty: _NonNeg
    material_penalty: _NonNeg


class RawPools(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    moderate: Annotated[list[RawPoolEntry], Field(min_length=1)]
    bad: Annotated[list[RawPoolEntry], Field(min_length=1)]


class RawCommon(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    mass: list[Mass]
    material: list[Material]
    temperature: list[Temperature]
    already_in_use: list[InUse]
    condition: list[Condition]


class RawPref(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    good: Annotated[list[Material], Field(min_length=1)]
    bad: list[Material]


class RawPrefTask(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    task: Name
    items: dict[str, RawPref]


class RawPrefConcept(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    concept: Name
    tasks: Annotated[list[RawPrefTask], Field(min_length=1)]


class RawPrefFile(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    mat_gt: Annotated[list[RawPrefConcept], Field(min_length=1)]


RawIdealFile = dict[str, dict[str, Annotated[list[RawIdeal], Field(min_length=1)]]]
"""``pouch_config_oracle.json``: utility -> task -> the ideal configurations (at least one)."""


_Mix = Annotated[list[_NonNeg], Field(min_length=3, max_length=3)]
"""(context, concept, random) distractor counts."""


class RawTemplates(TypedDict):
    """``templates.json`` before it becomes a :class:`~planner.knowledge.base.Templates` (strict numbers)."""

    __pydantic_config__ = _FORBID  # type: ignore[misc]
    source: NotRequired[str]
    question_templates: dict[str, str]
    utility_phrases: dict[str, str]
    full_pipeline_variations: dict[str, Annotated[list[_Mix], Field(min_length=1)]]
    sizes: dict[str, Annotated[int, Strict()]]


@functools.cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


# File names relative to <root>/coat/.
F_UTILITIES = "utilities.json"
F_TASKS = "tasks.json"
F_OBJECTS = "objects.json"
F_ORACLE = "oracle.json"
F_TEMPLATES = "templates.json"
F_COMMON = "task-1/common_var_responses.json"
F_CONFIGS = "task-1/possible_configurations_v1.json"
F_IDEAL = "task-1/pouch_config_oracle.json"
F_POOLS = "task-2/pouch_suboptimal.json"
F_MATPREF = "task-2/material_preference.json"
OPTIONAL_FILES: tuple[str, ...] = ("task-1/choice_config_oracle.json", "task-2/3_var_ideal_config.json")
"""Per-object ideal values of temperature / already_in_use / condition; checked when present."""


# ---------------------------------------------------------------- helpers: reading, errors, names


def check_keys(path: Path, prefix: str, got: Iterable[str], want: Iterable[str], what: str, ref: str) -> None:
    got_l, want_l = list(got), list(want)
    extra = [g for g in got_l if g not in set(want_l)]
    if extra:
        key = f"{prefix}/{extra[0]}" if prefix else extra[0]
        raise DataError(path, key, f"{what} {extra[0]!r} is not in {ref} (files disagree)")
    missing = [w for w in want_l if w not in set(got_l)]
    if missing:
        raise DataError(path, prefix, f"missing {what} {missing[0]!r} that {ref} lists ({len(missing)} missing)")
