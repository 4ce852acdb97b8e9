"""ALFRED's seven task types as TaskSpecs, each with its sliced variant, and checking a spec's object types.

ALFRED fixes the devices (the Microwave heats, the Fridge cools, the SinkBasin cleans); here each device is a
COAT role, so the planner may substitute one when the ideal one is missing, busy or broken (that is what
COAT adds). The goal conditions follow ALFRED's definitions: "heated" and "cooled", which ALFRED books as events
of its wrapper, are ``when="once"`` conditions (Hot / Cold on some observation of the run: the heated apple may
end in the fridge); "cleaned" is checked on the final state (not dirty), which no later step undoes.

Example:
    >>> spec = alfred_spec("pick_heat_then_place_in_recep", "Apple", "CounterTop")
    >>> [g.text() for g in spec.goals]
    ['the Apple was heated', 'the Apple is in / on the CounterTop']
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any, Literal

from ..errors import ConfigError, DataError, UnknownIdError
from ..paths import resolve_data_dir
from ..schemas import THOR_COMPATIBLE_FIXES, GoalCondition, Role, Target, TaskSpec
from .base import close_matches
from .task_specs import EXTENSION_TYPES, KNIVES, physical_roles

AlfredType = Literal[
    "pick_and_place_simple", "pick_two_obj_and_place", "pick_and_place_with_movable_recep",
    "pick_clean_then_place_in_recep", "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep",
    "look_at_obj_in_light",
]
ALFRED_TYPES: tuple[str, ...] = AlfredType.__args__  # type: ignore[attr-defined]

HEAT_TASK = "reheat tomato soup"
"""The COAT task whose annotations decide the heat source of ALFRED's heat tasks (context: Microwave, StoveBurner)."""

_DEVICE_ROLE = {
    "pick_clean_then_place_in_recep": (Role(name="washing", utility="washing", types=("SinkBasin", "BathtubBasin")),
                                       "isDirty", False, "is clean", "end"),
    # ALFRED's device first; COAT's annotations for heating food pick a substitute (a stove burner, not the coffee
    # machine that heats the utility alone)
    "pick_heat_then_place_in_recep": (Role(name="heating(source)", utility="heating(source)", task=HEAT_TASK,
                                           prefer=("Microwave",)), "temperature", "Hot", "was heated", "once"),
    "pick_cool_then_place_in_recep": (Role(name="cooling", utility="storage", types=("Fridge",),
                                           needs=("isColdSource",)), "temperature",
                                      "Cold", "was cooled", "once"),
}


def alfred_spec(
    task_type: str, obj: str, recep: str | None = None, *, movable: str | None = None, sliced: bool = False
) -> TaskSpec:
    """The TaskSpec of one ALFRED task: ``task_type`` on object type ``obj`` (put in ``recep``).

    Args:
        task_type: One of :data:`ALFRED_TYPES`.
        obj: The object type acted on (``"Apple"``).
        recep: The receptacle type it must end in (every type but ``look_at_obj_in_light``).
        movable: The movable receptacle (``pick_and_place_with_movable_recep``: a Bowl, Plate, Pan ...).
        sliced: The sliced variant: the object is sliced first, with a knife.

    Raises:
        ConfigError: unknown task type, or a receptacle missing / given where the type takes none.
    """
    if task_type not in ALFRED_TYPES:
        raise ConfigError(f"unknown ALFRED task type {task_type!r}; valid: {', '.join(ALFRED_TYPES)}")
    light = task_type == "look_at_obj_in_light"
    if light == (recep is not None):
        raise ConfigError(f"{task_type} {'takes no' if light else 'needs a'} receptacle (recep=)")
    if (task_type == "pick_and_place_with_movable_recep") != (movable is not None):
        raise ConfigError("movable= is the movable receptacle of pick_and_place_with_movable_recep, and only of it")
    roles: list[Role] = [Role(name="cutting", utility="cutting", types=KNIVES)] if sliced else []
    targets = [Target(name="target", types=(obj,), sliced=sliced)]
    goals: list[GoalCondition] = []
    if sliced:
        goals.append(GoalCondition(item="target", prop="isSliced", value=True, description=f"the {obj} is sliced"))
    if light:
        roles.append(Role(name="light_source", utility="light_source", types=("DeskLamp", "FloorLamp")))
        goals += [GoalCondition(item="target", prop="isPickedUp", value=True, description=f"the {obj} is held"),
                  GoalCondition(item="target", relation="close_to", other="light", distance=1.0,
                                description=f"the {obj} is close to a light that is on")]
    else:
        assert recep is not None
        if task_type in _DEVICE_ROLE:
            role, prop, value, words, when = _DEVICE_ROLE[task_type]
            roles.append(role)
            goals.append(GoalCondition(item="target", prop=prop, value=value, when=when,
                                       description=f"the {obj} {words}"))
        holder = "target"
        if movable is not None:
            targets.append(Target(name="movable", types=(movable,)))
            goals.append(GoalCondition(item="target", relation="contained_in", other="movable",
                                       description=f"the {obj} is in / on the {movable}"))
            holder = "movable"
        if task_type == "pick_two_obj_and_place":
            targets.append(Target(name="target2", types=(obj,), sliced=sliced))
            goals.append(GoalCondition(item="target2", relation="contained_in", other="place",
                                       description=f"a second {obj} is in / on the {recep}"))
        targets.append(Target(name="place", types=(recep,)))
        what = movable if movable is not None else obj
        goals.append(GoalCondition(item=holder, relation="contained_in", other="place",
                                   description=f"the {what} is in / on the {recep}"))
    text = f"{task_type}{' sliced' if sliced else ''}: {obj}" + (f" -> {recep}" if recep else "")
    return TaskSpec(task=text, family=task_type, roles=tuple(physical_roles(roles, targets)), targets=tuple(targets),
                    goals=tuple(goals))


@functools.lru_cache(maxsize=4)
def _type_table(root: str) -> dict[str, Any]:
    path = resolve_data_dir(root, need="ai2thor") / "ai2thor" / "object_types.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataError(path, "", f"cannot read the AI2-THOR object-type table: {e}") from e
    if not isinstance(raw, dict) or not raw:
        raise DataError(path, "", "expected an object keyed by AI2-THOR object type")
    for name, row in raw.items():
        if not isinstance(row, dict) or not isinstance(row.get("compatible_receptacles", []), list):
            raise DataError(path, f"{name}/compatible_receptacles", "expected a list of receptacle types")
    return raw


def _thor_types(root: str) -> frozenset[str]:
    return frozenset(_type_table(root))


def compatible_receptacles(data_dir: str | None = None) -> dict[str, frozenset[str]]:
    """Where each object type may be put, as AI2-THOR decides it: its C# ``PlacementRestrictions`` rows
    (:data:`planner.schemas.thor_rules.PLACEMENT_RESTRICTIONS`, the table the embedded world enforces), and the
    extension types (a Cake goes where Bread goes). A type without a row is not listed: AI2-THOR lets it go anywhere.

    ``data_dir`` is accepted for callers that pass one; the table is AI2-THOR's code, not data.
    """
    from ..schemas.thor_rules import PLACEMENT_RESTRICTIONS

    del data_dir
    out = dict(PLACEMENT_RESTRICTIONS)
    for t, extra in THOR_COMPATIBLE_FIXES.items():
        out[t] = out.get(t, frozenset()) | frozenset(extra)
    out["Cake"] = out["Bread"]  # the embedded world's extension table: a cake rests where bread rests,
    out["CakeSliced"] = out["BreadSliced"] - {"Toaster"}  # its slices where bread slices go, but not in a toaster
    return out


def types_with(prop: str, data_dir: str | None = None) -> frozenset[str]:
    """The AI2-THOR types whose row in the type table lists ``prop`` among its actionable properties
    (``pickupable``, ``sliceable``, ``receptacle``, ``dirtyable`` ...); for ``pickupable`` and ``sliceable`` also
    every extension type (:data:`EXTENSION_TYPES`: a Cake is picked up and sliced)."""
    root = str(resolve_data_dir(data_dir, need="ai2thor"))
    out = {t for t, row in _type_table(root).items() if prop in (row.get("actionable_properties") or ())}
    if prop in ("pickupable", "sliceable"):
        out |= set(EXTENSION_TYPES)
    return frozenset(out)


def object_types(data_dir: str | None = None) -> frozenset[str]:
    """AI2-THOR's object types (the data directory's official type table) plus :data:`EXTENSION_TYPES`."""
    root = str(resolve_data_dir(data_dir, need="ai2thor"))
    return _thor_types(root) | frozenset(EXTENSION_TYPES)


def check_types(spec: TaskSpec, known: Iterable[str]) -> None:
    """Refuse a spec that names an object type AI2-THOR does not have (liquids are not object types).

    Raises:
        UnknownIdError: naming the type and the close ones.
    """
    known = sorted(known)
    names = [(t.name, ty) for t in spec.targets if not t.liquid for ty in t.types]
    names += [(r.name, ty) for r in spec.roles for ty in r.types]
    for where, ty in names:
        if ty not in known:
            raise UnknownIdError(f"{spec.task!r}: {where} names the object type {ty!r}, which AI2-THOR does not "
                                 f"have; close types: {close_matches(ty, known) or 'none'}")


__all__ = [
    "ALFRED_TYPES", "AlfredType", "alfred_spec", "check_types", "compatible_receptacles", "object_types", "types_with",
]
