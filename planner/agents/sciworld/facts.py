"""What the ScienceWorld agent knows beyond the text: substances, device ranges, the task family's phases.

ScienceWorld's change-of-state tasks (boil, melt, freeze, change-the-state-of-matter-of,
:data:`scenes.sciworld.CHANGE_OF_STATE_TASKS`) name a substance and ask for a change of its state. The agent
knows, and says so: the melting/boiling points of the substances ScienceWorld uses (:data:`SUBSTANCES`,
handbook values), the devices' temperature ranges (:data:`HEATER_MAX_C`, :data:`COOLER_MIN_C`,
ScienceWorld's device specifications, as a robot would know its appliances' manuals), and which heat/cool
phases each task scores (:func:`phases_for`). Everything here is pure: no simulator, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from scenes.sciworld.tasks import CHANGE_OF_STATE_TASKS

from ...errors import ConfigError
from ...schemas import Contract

State = Literal["solid", "liquid", "gas"]
"""A state of matter, as ScienceWorld names them."""


@dataclass(frozen=True)
class Substance:
    """Handbook facts about one substance: melting and boiling point (None: unknown or it burns first).

    ``names`` maps the names ScienceWorld gives the substance in a state (``ice``, ``steam``) to that state;
    other substances are named ``liquid tin``, ``gaseous tin``, ``solid mercury``.
    """

    melt_c: float | None
    boil_c: float | None
    names: tuple[tuple[str, State], ...] = ()


_WATER = Substance(0.0, 100.0, (("ice", "solid"), ("water", "liquid"), ("steam", "gas")))
SUBSTANCES: dict[str, Substance] = {
    # Melting / boiling points in degrees Celsius (handbook values; ScienceWorld's own substance table uses
    # the same ones). None: unknown here, or the substance burns before it boils (the task accepts
    # combustion); the agent then heats with whatever works and watches.
    "water": _WATER,
    "ice": _WATER,
    "orange juice": Substance(-2.0, None),
    "apple juice": Substance(-2.0, 160.0),
    "chocolate": Substance(30.0, None),
    "marshmallow": Substance(None, None),
    "ice cream": Substance(-10.0, 101.0),
    "soap": Substance(140.0, None),
    "rubber": Substance(180.0, None),
    "lead": Substance(327.0, 1740.0),
    "tin": Substance(232.0, 2602.0),
    "mercury": Substance(-39.0, 357.0),
    "gallium": Substance(30.0, 2400.0),
    "caesium": Substance(29.0, 671.0),
}
AMBIENT_C = 10.0
"""ScienceWorld's room temperature (what a thermometer reads in every room at the start)."""

HEATER_MAX_C: dict[str, float] = {"stove": 260.0, "oven": 540.0, "blast furnace": 3000.0, "hot plate": 260.0}
"""Highest temperature each heat source reaches (ScienceWorld's device specifications)."""
COOLER_MIN_C: dict[str, float] = {"fridge": 2.0, "freezer": -18.0, "ultra low temperature freezer": -86.0}
"""Lowest temperature each cooler reaches."""
VESSEL_MAX_C: dict[str, float] = {"paper": 200.0, "plastic": 150.0, "wood": 250.0, "tin": 232.0, "lead": 327.0}
"""Containers whose material burns or melts below this many degrees (by the material word in the name)."""
MARGIN_C = 10.0
"""A device must pass the phase-change temperature by this much to count as able to cause it."""

DEFAULT_DEVICES: dict[str, str] = {"heater": "kitchen/stove", "cooler": "kitchen/freezer", "water": "kitchen/sink"}
"""The family's default device per role: the baseline always uses these; any other choice is a substitute."""
DEFAULT_VESSEL = "kitchen/metal pot"

COAT_ROLES: dict[str, tuple[str, str]] = {
    "heat:gas": ("heating(source)", "boil water"),
    "heat:liquid": ("heating(source)", "melting butter"),
    "heat:solid": ("heating(source)", "melting butter"),
    "vessel": ("heating(vessel)", "boil water on stoveburner"),
}
"""ScienceWorld phase -> COAT (utility, annotated task) under ``interpret="mapped"``."""

ROOM_ORDER: tuple[str, ...] = (
    "kitchen", "bathroom", "workshop", "foundry", "outside", "greenhouse", "hallway", "art studio", "bedroom",
    "living room",
)
"""Rooms the agent explores, in this order (the kitchen holds the default devices and the thermometer)."""
WATER_SOURCES: tuple[str, ...] = ("sink",)
"""Fixtures that fill a vessel with water when activated."""
FIXTURES: tuple[str, ...] = ("toilet", "fountain", "bathtub", "sink", "ground")
"""Water-holding fixtures: their water is not the task's substance (the agent fills from a tap instead)."""
_LIQUIDS_BY_DEFAULT = ("water", "juice", "mercury")

PLATEAU_WINDOW = 3
"""Thermometer readings looked back over to decide that the temperature has stopped moving."""
PLATEAU_MIN_CHANGE_C = 3.0
"""Less change than this over the window, short of the target state: the device cannot do it."""


# ---------------------------------------------------------------- what a task asks
class Goal(Contract):
    """What a change-of-state task asks: the family and the substance, read from the task description."""

    family: str
    substance: str
    text: str = ""


class Phase(Contract):
    """One step of the procedure: heat or cool the substance until it is in ``target`` state."""

    direction: Literal["heat", "cool"]
    target: State

    @property
    def key(self) -> str:
        """``heat:gas`` etc."""
        return f"{self.direction}:{self.target}"


# ---------------------------------------------------------------- task reading and physics
_TASK_RE = re.compile(
    r"Your task is to (boil|melt|freeze|change the state of matter of)\s+(.+?)\.\s", re.IGNORECASE
)


def parse_goal(description: str) -> Goal:
    """Read the family and substance from a ScienceWorld task description.

    Raises:
        ConfigError: the description is not a change-of-state task.
    """
    m = _TASK_RE.search(" ".join(description.split()) + " ")
    if not m:
        raise ConfigError(
            f"not a change-of-state task description: {description[:120]!r}; "
            f"the agent plays {', '.join(CHANGE_OF_STATE_TASKS)}"
        )
    verb = m.group(1).lower()
    family = "change-the-state-of-matter-of" if verb.startswith("change") else verb
    return Goal(family=family, substance=m.group(2).strip().lower(), text=description.strip())


def substance_info(substance: str) -> Substance:
    """Known facts about a substance (unknown points are None)."""
    return SUBSTANCES.get(substance.lower(), Substance(None, None))


def state_from_name(name: str, substance: str) -> State | None:
    """The state of matter a ScienceWorld name shows (``liquid tin`` -> liquid), or None if it does not say."""
    low = name.lower().strip()
    for n, st in substance_info(substance).names:
        if low == n:
            return st
    for prefix, st in (("gaseous ", "gas"), ("liquid ", "liquid"), ("solid ", "solid")):
        if low.startswith(prefix):
            return st  # type: ignore[return-value]
    if low == "steam":
        return "gas"
    return None


def state_at(substance: str, celsius: float) -> State | None:
    """The state of ``substance`` at a temperature, from its melting and boiling points.

    Without a known melting point, only the usual state at room temperature can be guessed: liquid for
    juices, water and mercury, solid otherwise; None for other temperatures.
    """
    info = substance_info(substance)
    if info.melt_c is None:
        if abs(celsius - AMBIENT_C) > MARGIN_C:
            return None
        return "liquid" if any(w in substance.lower() for w in _LIQUIDS_BY_DEFAULT) else "solid"
    if celsius < info.melt_c:
        return "solid"
    if info.boil_c is None or celsius < info.boil_c:
        return "liquid"
    return "gas"


def matches_substance(name: str, substance: str) -> bool:
    """True when a ScienceWorld name is the substance in some state (``liquid lead`` for lead)."""
    low = name.lower().strip()
    s = substance.lower()
    if low == s or low in {f"{p} {s}" for p in ("liquid", "solid", "gaseous")}:
        return True
    return any(low == n for n, _ in substance_info(s).names)


def phases_for(goal: Goal, start: State | None) -> tuple[Phase, ...]:
    """The heat/cool phases that take the substance from ``start`` through what the task scores.

    ScienceWorld scores a melt as "solid, then liquid", a freeze as "liquid, then solid", a boil as "liquid,
    then gas (or burning)", a change of state as "any state, then another one". So a liquid to be melted is
    frozen first, a solid to be frozen is melted first. An unknown start state is taken as the usual one
    (solid for melt and boil, liquid for freeze).
    """
    f = goal.family
    if f == "boil":
        return (Phase(direction="heat", target="gas"),) if start != "gas" else ()
    if f == "melt":
        if start in ("liquid", "gas"):
            return (Phase(direction="cool", target="solid"), Phase(direction="heat", target="liquid"))
        return (Phase(direction="heat", target="liquid"),)
    if f == "freeze":
        if start == "solid":
            return (Phase(direction="heat", target="liquid"), Phase(direction="cool", target="solid"))
        return (Phase(direction="cool", target="solid"),)
    if f == "change-the-state-of-matter-of":
        if start == "gas":
            return (Phase(direction="cool", target="liquid"),)
        return (Phase(direction="heat", target="gas" if start == "liquid" else "liquid"),)
    raise ConfigError(f"unknown task family {f!r}; valid: {', '.join(CHANGE_OF_STATE_TASKS)}")


def needed_celsius(phase: Phase, substance: str) -> float | None:
    """Temperature a device must reach (heat) or go below (cool) for the phase; None when unknown."""
    info = substance_info(substance)
    point = info.boil_c if phase.target == "gas" or (phase.direction == "cool" and phase.target == "liquid") \
        else info.melt_c
    if point is None:
        return None
    return point + MARGIN_C if phase.direction == "heat" else point - MARGIN_C


def device_kind(name: str) -> str:
    """A device's kind from its name: ``stove 2`` -> ``stove`` (ScienceWorld numbers twins)."""
    return re.sub(r"\s+\d+$", "", name.lower().strip())


def heater_too_weak(name: str, need_c: float | None) -> str:
    """Why a heat source cannot reach ``need_c`` (empty when it can or when its range is unknown)."""
    top = HEATER_MAX_C.get(device_kind(name))
    if need_c is None or top is None or top >= need_c:
        return ""
    return f"reaches {top:g} C, needs {need_c:g} C"


def cooler_too_weak(name: str, need_c: float | None) -> str:
    """Why a cooler cannot get below ``need_c`` (empty when it can or when its range is unknown)."""
    low = COOLER_MIN_C.get(device_kind(name))
    if need_c is None or low is None or low <= need_c:
        return ""
    return f"cools to {low:g} C, needs {need_c:g} C"


def vessel_unsafe(name: str, need_c: float | None) -> str:
    """Why a container would burn or melt at ``need_c`` (empty when it would not, as far as known)."""
    if need_c is None:
        return ""
    for word in re.findall(r"[a-z]+", name.lower()):
        top = VESSEL_MAX_C.get(word)
        if top is not None and need_c > top:
            return f"{word} burns or melts at {top:g} C, needs {need_c:g} C"
    return ""


__all__ = [
    "AMBIENT_C",
    "COAT_ROLES",
    "COOLER_MIN_C",
    "DEFAULT_DEVICES",
    "DEFAULT_VESSEL",
    "FIXTURES",
    "HEATER_MAX_C",
    "MARGIN_C",
    "PLATEAU_MIN_CHANGE_C",
    "PLATEAU_WINDOW",
    "ROOM_ORDER",
    "SUBSTANCES",
    "VESSEL_MAX_C",
    "WATER_SOURCES",
    "Goal",
    "Phase",
    "State",
    "Substance",
    "cooler_too_weak",
    "device_kind",
    "heater_too_weak",
    "matches_substance",
    "needed_celsius",
    "parse_goal",
    "phases_for",
    "state_at",
    "state_from_name",
    "substance_info",
    "vessel_unsafe",
]
