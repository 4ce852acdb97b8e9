"""A COAT agent for ScienceWorld's change-of-state tasks (boil, melt, freeze, change-the-state-of-matter-of).

ScienceWorld is the text-only testbed where the ideal device can be broken: every odd variation of these four
tasks breaks the kitchen stove and variations 2-3 break the kitchen sink (``scenes.sciworld.broken_devices``).
Nothing in the text says so; ``activate stove`` answers "The stove appears broken". The agent closes the loop
that COAT describes:

1. **observe**: ``look around`` text of every room (teleporting, ScienceWorld's ``easy`` simplification) ->
   :class:`perception.text.TextEstimator` -> one SceneState per room, merged with room-qualified ids
   (``kitchen/stove``, ``foundry/blast furnace``).
2. **decide**: :func:`planner.api.plan_in_state` picks the heat source (COAT utility ``heating(source)``) and
   the vessel (``heating(vessel)``). ScienceWorld phases map to COAT tasks (:data:`COAT_ROLES`): heating until
   a gas is "boil water", heating until a liquid is "melting butter", the vessel is "boil water on
   stoveburner" (``interpret="mapped"``, the default without a model); with a model, ``interpret="literal"``
   passes ScienceWorld's own words ("boil lead") and the model decides where COAT has no annotation.
   Devices known to be unusable are left out first: broken ones (remembered by the estimator) and, with
   ``device_specs``, those whose maximum (minimum) temperature cannot reach the substance's boiling or
   melting point (:data:`HEATER_MAX_C`, :data:`SUBSTANCES`). COAT has no cooling utility and no "water
   source" utility, so coolers and water sources are ranked by a rule (:func:`rank_coolers`,
   :func:`rank_water_sources`), not by COAT.
3. **act**: a short hand-written procedure per phase, in ScienceWorld commands (the same for every task of the
   family; nothing comes from ScienceWorld's gold action sequences): put the substance in the vessel, focus on
   it, put the vessel on/in the device, activate it, ``wait1`` and read the thermometer until the name of the
   substance shows the target state (``liquid lead``, ``steam``, ``ice``).
4. **re-plan**: when a step fails (the device "appears broken", or the thermometer shows the temperature has
   stopped rising short of the target: the device is too weak), the device is marked unusable and the
   decision is made again; the next-best substitute is used.

The ``default`` policy is the baseline: always the kitchen stove (freezer, sink, metal pot), never re-plans.

What the agent knows beyond the text, and says so: the task family's procedure (above), the melting/boiling
points of the substances ScienceWorld uses (:data:`SUBSTANCES`, handbook values) and the devices'
temperature ranges (:data:`HEATER_MAX_C`, :data:`COOLER_MIN_C`, ScienceWorld's device specifications, as a
robot would know its appliances' manuals). ``device_specs=False`` drops the device ranges: the agent then
finds a weak device only by trying it.

Run the benchmark (``benchmarks/sciworld_tasks.md``)::

    python -m planner.sciworld_agent --tasks boil melt freeze change-the-state-of-matter-of --split test \\
        --out runs/sciworld --llm none

Requires: the ``sciworld`` extra and Java 8+ on PATH; ``--llm local`` needs the ``local-llm`` extra.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from .errors import ConfigError
from .schemas import Contract, ObjectRecord, Plan, SceneState

if TYPE_CHECKING:
    from perception.text import TextEstimator, TextObject
    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

logger = logging.getLogger(__name__)

State = Literal["solid", "liquid", "gas"]
Policy = Literal["coat", "default"]
Interpret = Literal["mapped", "literal"]

FAMILIES: tuple[str, ...] = ("boil", "melt", "freeze", "change-the-state-of-matter-of")
"""The ScienceWorld tasks this agent plays (the change-of-state family, the one that breaks devices)."""


# ---------------------------------------------------------------- what the agent knows
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
    # Melting / boiling points in degrees Celsius (handbook values; ScienceWorld uses the same ones, see
    # /work/shared/notes/scienceworld.md §3). None: unknown here, or the substance burns before it boils
    # (the task accepts combustion); the agent then heats with whatever works and watches.
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
_FIXTURES = ("toilet", "fountain", "bathtub", "sink", "ground")
_LIQUIDS_BY_DEFAULT = ("water", "juice", "mercury")

PLATEAU_WINDOW = 3
"""Thermometer readings looked back over to decide that the temperature has stopped moving."""
PLATEAU_MIN_CHANGE_C = 3.0
"""Less change than this over the window, short of the target state: the device cannot do it."""


# ---------------------------------------------------------------- contracts
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


class DeviceChoice(Contract):
    """One decision the agent made and how using the chosen object went."""

    role: Literal["heater", "cooler", "water", "vessel"]
    phase: str = ""
    object_id: str | None = None
    method: str
    coat_task: str | None = None
    utility: str | None = None
    excluded: dict[str, str] = Field(default_factory=dict)
    reason: str = ""
    plan: Plan | None = None
    outcome: str = "pending"


class EpisodeResult(Contract):
    """One ScienceWorld episode played by the agent (one JSONL row of the benchmark)."""

    task: str
    variation: int
    broken: tuple[str, ...] = ()
    policy: str
    llm: str | None = None
    interpret: str = "mapped"
    device_specs: bool = True
    goal: Goal | None = None
    phases: tuple[str, ...] = ()
    score: int
    completed: bool
    moves: int
    commands: int
    choices: tuple[DeviceChoice, ...] = ()
    replans: int = 0
    substituted: bool = False
    devices_used: tuple[str, ...] = ()
    found_broken: tuple[str, ...] = ()
    failure: str = ""
    seconds: float = 0.0
    transcript: tuple[str, ...] = ()


class AgentConfig(Contract):
    """How the agent decides.

    Attributes:
        policy: ``coat`` (COAT decisions, re-plan on failure) or ``default`` (always the stove; baseline).
        llm: Model spec for :func:`planner.llm.make_llm` (``local``, ``fake``...) or None (COAT knowledge only).
        interpret: ``mapped`` (COAT's annotated analogue of each phase, :data:`COAT_ROLES`) or ``literal``
            (ScienceWorld's words, e.g. "boil lead"; the model decides where COAT has no annotation).
            Default: ``mapped`` without a model, ``literal`` with one.
        device_specs: Leave out devices whose temperature range cannot cause the change
            (:data:`HEATER_MAX_C`); without it a weak device is found only by trying it.
        max_heat_waits / max_cool_waits: ``wait1`` budget per device before giving up on it.
        keep_transcript: Keep every command and reply in the result.
    """

    policy: Policy = "coat"
    llm: str | None = None
    interpret: Interpret | None = None
    device_specs: bool = True
    max_heat_waits: int = Field(default=25, ge=1)
    max_cool_waits: int = Field(default=30, ge=1)
    keep_transcript: bool = True

    @property
    def interpretation(self) -> Interpret:
        """The effective interpretation."""
        return self.interpret or ("literal" if self.llm else "mapped")


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
            f"not a change-of-state task description: {description[:120]!r}; the agent plays {', '.join(FAMILIES)}"
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
    raise ConfigError(f"unknown task family {f!r}; valid: {', '.join(FAMILIES)}")


def needed_celsius(phase: Phase, substance: str) -> float | None:
    """Temperature a device must reach (heat) or go below (cool) for the phase; None when unknown."""
    info = substance_info(substance)
    point = info.boil_c if phase.target == "gas" or (phase.direction == "cool" and phase.target == "liquid") \
        else info.melt_c
    if point is None:
        return None
    return point + MARGIN_C if phase.direction == "heat" else point - MARGIN_C


def _device_kind(name: str) -> str:
    return re.sub(r"\s+\d+$", "", name.lower().strip())


def heater_too_weak(name: str, need_c: float | None) -> str:
    """Why a heat source cannot reach ``need_c`` (empty when it can or when its range is unknown)."""
    top = HEATER_MAX_C.get(_device_kind(name))
    if need_c is None or top is None or top >= need_c:
        return ""
    return f"reaches {top:g} C, needs {need_c:g} C"


def cooler_too_weak(name: str, need_c: float | None) -> str:
    """Why a cooler cannot get below ``need_c`` (empty when it can or when its range is unknown)."""
    low = COOLER_MIN_C.get(_device_kind(name))
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


# ---------------------------------------------------------------- world model (many rooms)
@dataclass
class _Entry:
    room: str
    oid: str
    obj: TextObject
    record: ObjectRecord

    @property
    def gid(self) -> str:
        return f"{self.room}/{self.oid}"


@dataclass
class World:
    """Everything seen so far: per room, the parsed objects and their five-variable records.

    The text estimator sees one room and the inventory at a time; the world keeps the last view of every
    room, so decisions can weigh devices in rooms the agent is not in.
    """

    estimator: TextEstimator
    rooms: dict[str, list[_Entry]] = field(default_factory=dict)
    inventory: list[_Entry] = field(default_factory=list)
    room: str | None = None

    def record(self, obs: SceneObs) -> None:
        """Update from one observation (reply + look + inventory)."""
        state = self.estimator.estimate(obs)
        parsed = self.estimator.parsed_objects()
        entries = [
            _Entry(room=o.room or "?", oid=oid, obj=o, record=r)
            for (oid, o), r in zip(parsed, state.objects, strict=True)
        ]
        self.room = self.estimator.room
        self.inventory = [e for e in entries if e.room == "inventory"]
        here = [e for e in entries if e.room != "inventory"]
        if self.room and here:
            self.rooms[self.room] = here

    def entries(self) -> list[_Entry]:
        """Every object seen, rooms in exploration order (kitchen first), then the inventory."""
        order = {r: i for i, r in enumerate(ROOM_ORDER)}
        rooms = sorted(self.rooms, key=lambda r: order.get(r, len(order)))
        inv = [_Entry(room="inventory", oid=e.oid, obj=e.obj, record=e.record) for e in self.inventory]
        return [e for r in rooms for e in self.rooms[r]] + inv

    def get(self, gid: str) -> _Entry | None:
        """One object by its room-qualified id."""
        return next((e for e in self.entries() if e.gid == gid), None)

    def state(self, keep: Callable[[_Entry], bool] | None = None) -> SceneState:
        """The merged SceneState with room-qualified ids (``kitchen/stove``)."""
        objs = tuple(e.record.model_copy(update={"object_id": e.gid})
                     for e in self.entries() if keep is None or keep(e))
        return SceneState(scene_id="sciworld", objects=objs)

    def find(self, pred: Callable[[_Entry], bool]) -> list[_Entry]:
        """Entries matching a predicate, in :meth:`entries` order."""
        return [e for e in self.entries() if pred(e)]

    def holds(self, name: str) -> bool:
        """True when the agent carries an object of this name."""
        return any(e.obj.name == name for e in self.inventory)

    def contents_of(self, container: str, inside: str | None = None) -> list[TextObject]:
        """What a container holds, as last seen: the carried one if the agent carries it, else the one here
        (the one inside ``inside``, e.g. the pot in the oven, when several share the name)."""
        pool = self.inventory if self.holds(container) else self.rooms.get(self.room or "", [])
        for i, h in enumerate(pool):
            if h.obj.name != container or (inside is not None and h.obj.parent != inside):
                continue
            # the parser lists an object's contents right after it
            kids = [e.obj for e in pool[i + 1:] if e.obj.parent == container and e.obj.name in h.obj.contents]
            return kids[: len(h.obj.contents)]
        return []

    def holder_of(self, e: _Entry) -> _Entry | None:
        """The container directly holding an object (None when it lies in the room)."""
        pool = self.rooms.get(e.room, []) if e.room != "inventory" else self.inventory
        idx = next((i for i, x in enumerate(pool) if x is e), len(pool))
        # the holder is listed before its contents: the nearest earlier entry with the parent's name
        for x in reversed(pool[:idx]):
            if x.obj.name == e.obj.parent and e.obj.name in x.obj.contents:
                return x
        return None

    def is_broken(self, gid: str) -> bool:
        """True when the estimator remembers the device answering "appears broken"."""
        e = self.get(gid)
        return e is not None and e.record.state.condition.value == "broken"


# ---------------------------------------------------------------- decisions
def rank_coolers(world: World, need_c: float | None, excluded: dict[str, str], *, specs: bool) -> list[_Entry]:
    """Usable coolers, best first (a rule: COAT has no cooling utility).

    Rule: leave out broken, excluded and (with ``specs``) too-warm coolers; then nearest first in room order
    (the kitchen's), and among one room's the colder one (faster).
    """
    out = []
    for e in world.entries():
        kind = _device_kind(e.obj.name)
        if e.room == "inventory" or (kind not in COOLER_MIN_C and e.record.category != "Fridge"):
            continue
        if e.gid in excluded or world.is_broken(e.gid):
            continue
        if specs and cooler_too_weak(e.obj.name, need_c):
            excluded[e.gid] = cooler_too_weak(e.obj.name, need_c)
            continue
        out.append(e)
    order = {r: i for i, r in enumerate(ROOM_ORDER)}
    return sorted(out, key=lambda e: (order.get(e.room, 99), COOLER_MIN_C.get(_device_kind(e.obj.name), 0.0)))


def rank_water_sources(world: World, excluded: dict[str, str]) -> list[_Entry]:
    """Usable water sources (sinks), kitchen first (a rule: COAT has no "get water" utility)."""
    return [
        e for e in world.entries()
        if e.room != "inventory" and _device_kind(e.obj.name) in WATER_SOURCES
        and e.gid not in excluded and not world.is_broken(e.gid)
    ]


def _decision_method(p: Plan) -> str:
    """``coat-knowledge`` when COAT's annotations decided every stage, else ``coat-llm``."""
    methods = {st.method for d in p.decisions for st in (d.stage1, d.stage2) if st is not None}
    return "coat-knowledge" if methods <= {"knowledge"} else "coat-llm"


# ---------------------------------------------------------------- acting
class _Tap:
    """Forwards to a SceneEnv and keeps the last step's info (SkillContext records only success/error)."""

    def __init__(self, env: SceneEnv[Any, Any]) -> None:
        self.env = env
        self.info: dict[str, Any] = {}
        self.terminated = False
        self.truncated = False

    def reset(self, **kw: Any) -> Any:
        return self.env.reset(**kw)

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.info = info
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        return obs, reward, terminated, truncated, info


class _EpisodeOver(Exception):
    """The episode ended (task completed or failed, or the step limit): stop acting."""


_READING_RE = re.compile(r"measures a temperature of (-?\d+(?:\.\d+)?) degrees", re.I)


class SciWorldAgent:
    """Plays one change-of-state episode: observe, decide with COAT, act, re-plan on failure.

    Args:
        config: How to decide (:class:`AgentConfig`).
        kb: The COAT knowledge base (default: ``load_knowledge(data_dir)``).
        llm: A ready backend instead of building ``config.llm``.
        data_dir: Data directory for the knowledge base and perception priors.

    Example:
        >>> from scenes.sciworld import ScienceWorldEnv                    # doctest: +SKIP
        >>> with ScienceWorldEnv("boil") as env:                           # doctest: +SKIP
        ...     r = SciWorldAgent().run(env, variation=1)                  # stove broken
        >>> r.score, r.devices_used                                        # doctest: +SKIP
        (100, ('kitchen/sink', 'kitchen/oven'))
    """

    def __init__(
        self,
        config: AgentConfig | None = None,
        *,
        kb: KnowledgeBase | None = None,
        llm: LLMBackend | None = None,
        data_dir: Any = None,
    ) -> None:
        self.config = config or AgentConfig()
        if self.config.policy == "coat" and kb is None:
            from .knowledge import load_knowledge

            kb = load_knowledge(data_dir)
        self.kb = kb
        if llm is None and self.config.llm and self.config.policy == "coat":
            from .llm import make_llm

            llm = make_llm(self.config.llm)
        self.llm = llm
        self._data_dir = data_dir

    # ------------------------------------------------------------ episode
    def run(self, env: SceneEnv[Any, Any], variation: int) -> EpisodeResult:
        """Reset ``env`` (a :class:`scenes.sciworld.ScienceWorldEnv`) to ``variation`` and play it out."""
        from perception.text import TextEstimator
        from skills import SkillContext

        t0 = time.perf_counter()
        tap = _Tap(env)
        obs, _info = tap.reset(options={"variation": variation})
        self._ctx = SkillContext(env=tap, obs=obs, max_steps=100_000)  # type: ignore[arg-type]
        self._tap = tap
        self._transcript: list[str] = []
        self.world = World(TextEstimator(priors="default" if self.kb is not None else None))
        self.world.record(obs)
        self._choices: list[DeviceChoice] = []
        self._excluded: dict[str, str] = {}
        self._replans = 0
        self._used: list[str] = []
        self._has_thermometer = False
        self._placed: str | None = None  # the device the vessel sits in, None while carried
        goal = parse_goal(str(obs.extra.get("task_description", "")))
        self.goal = goal
        phases: tuple[Phase, ...] = ()
        failure = ""
        try:
            self._explore()
            sub = self._find_substance(goal)
            vessel = self._choose_vessel(goal, sub)
            start = self._prepare_substance(goal, vessel, sub)
            phases = phases_for(goal, start)
            for ph in phases:
                if not self._run_phase(ph, vessel):
                    failure = f"{ph.key}: no usable device left"
                    break
            else:
                self._settle()
        except _EpisodeOver:
            pass
        except _Stuck as e:
            failure = str(e)
        self._choices = [c.model_copy(update={"outcome": "in use at the end"}) if c.outcome == "pending" else c
                         for c in self._choices]
        info = tap.info
        obs = self._ctx.obs
        score = int(obs.extra.get("score", info.get("score", 0)) or 0)
        completed = bool(info.get("success", False))
        if not completed and not failure:
            failure = "step limit" if tap.truncated else ("task failed" if score < 0 else "not completed")
        broken = ()
        try:
            from scenes.sciworld import broken_devices

            broken = broken_devices(getattr(env, "task", goal.family), variation)
        except Exception:  # noqa: BLE001 - a non-ScienceWorld env in tests: nothing is known to be broken
            broken = ()
        defaults = {DEFAULT_DEVICES["heater"], DEFAULT_DEVICES["cooler"], DEFAULT_DEVICES["water"]}
        return EpisodeResult(
            task=getattr(env, "task", goal.family),
            variation=variation,
            broken=tuple(broken),
            policy=self.config.policy,
            llm=self.config.llm,
            interpret=self.config.interpretation,
            device_specs=self.config.device_specs,
            goal=goal,
            phases=tuple(p.key for p in phases),
            score=score,
            completed=completed,
            moves=int(obs.extra.get("moves", 0) or 0),
            commands=len(self._ctx.actions),
            choices=tuple(self._choices),
            replans=self._replans,
            substituted=any(d not in defaults for d in self._used),
            devices_used=tuple(self._used),
            found_broken=tuple(c.object_id for c in self._choices if c.outcome == "broken" and c.object_id),
            failure="" if completed else failure,
            seconds=round(time.perf_counter() - t0, 3),
            transcript=tuple(self._transcript) if self.config.keep_transcript else (),
        )

    # ------------------------------------------------------------ low-level acting
    def _do(self, command: str, prefer: Sequence[str] = ()) -> tuple[bool, str]:
        """Send one command (answering an ambiguity prompt by ``prefer``); return (ok, reply)."""
        from scenes.base import Action
        from scenes.sciworld import parse_choices

        if self._tap.terminated or self._tap.truncated:
            raise _EpisodeOver()
        ok = self._ctx.act(Action(name="Text", args={"command": command}))
        reply = str(self._ctx.obs.extra.get("observation", ""))
        self._log(command, reply)
        if reply.startswith("Ambiguous request"):
            options = parse_choices(reply)
            pick = next((i for i, o in enumerate(options) if all(p in o for p in prefer)), None)
            if pick is None:
                pick = next((i for i, o in enumerate(options) if any(p in o for p in prefer)), 0)
            ok = self._ctx.act(Action(name="Text", args={"command": str(pick)}))
            reply = str(self._ctx.obs.extra.get("observation", ""))
            self._log(str(pick), reply)
        self.world.record(self._ctx.obs)
        if self._tap.terminated or self._tap.truncated:
            raise _EpisodeOver()
        return ok, reply

    def _log(self, command: str, reply: str) -> None:
        extra = self._ctx.obs.extra
        head = f"> {command} [score {extra.get('score')}, moves {extra.get('moves')}]"
        self._transcript.append(f"{head}\n{reply.strip()}")

    def _goto(self, room: str) -> None:
        if self.world.room != room:
            ok, reply = self._do(f"teleport to {room}")
            if not ok:
                raise _Stuck(f"cannot reach the {room}: {reply}")

    def _open(self, e: _Entry) -> None:
        if e.obj.is_open is False:
            self._do(f"open {e.obj.name}")

    def _take(self, name: str, prefer: Sequence[str] = ()) -> bool:
        """Pick ``name`` up (into the inventory); a few phrasings, as ScienceWorld's parser is picky."""
        if self.world.holds(name):
            return True
        prefer = tuple(prefer) or ((f"in {self._placed}",) if self._placed else (self.world.room or "",))
        for cmd in (f"pick up {name}", f"move {name} to inventory"):
            ok, _ = self._do(cmd, prefer=prefer)
            if ok:
                break
        else:
            self._do("wait1")  # a substance changing state mid-tick confuses the parser for one tick
            ok, _ = self._do(f"pick up {name}", prefer=prefer)
        if ok and self.world.holds(name):
            self._placed = None
        return ok

    def _measure(self, vessel: str) -> float | None:
        if not self._has_thermometer:
            return None
        ok, reply = self._do(f"use thermometer in inventory on substance in {vessel}", prefer=("inventory",))
        m = _READING_RE.search(reply)
        if not m:
            name = self._substance_name(vessel)
            if name:
                ok, reply = self._do(f"use thermometer in inventory on {name}", prefer=(vessel,))
                m = _READING_RE.search(reply)
        return float(m.group(1)) if m else None

    def _substance_name(self, vessel: str) -> str | None:
        for o in self.world.contents_of(vessel, None if self.world.holds(vessel) else self._placed):
            if matches_substance(o.name, self.goal.substance):
                return o.name
        return None

    def _current_state(self, vessel: str) -> State | None:
        name = self._substance_name(vessel)
        if name is None:
            return None
        st = state_from_name(name, self.goal.substance)
        if st is None:
            st = state_at(self.goal.substance, AMBIENT_C)
        return st

    # ------------------------------------------------------------ episode parts
    def _explore(self) -> None:
        """Visit every room (kitchen first); open the kitchen's closed storage, where vessels and food are."""
        for room in ROOM_ORDER:
            self._goto(room)
            if room == "kitchen":
                self._open_storage(room)
                if self.world.find(lambda e: e.room == "kitchen" and e.obj.name == "thermometer"):
                    self._has_thermometer = self._take("thermometer")

    def _open_storage(self, room: str) -> None:
        """Open every closed container of a room that is not a device (cupboard, fridge, closet...)."""
        self._goto(room)
        for e in list(self.world.rooms.get(room, [])):
            if e.obj.is_open is False and e.obj.device_on is None and e.obj.parent is None:
                self._do(f"open {e.obj.name}")

    def _search(self, pred: Callable[[_Entry], bool]) -> list[_Entry]:
        """Objects matching ``pred``; if none is visible, open closed storage room by room until one is."""
        found = self.world.find(pred)
        for room in ROOM_ORDER:
            if found:
                break
            if any(e.obj.is_open is False and e.obj.device_on is None for e in self.world.rooms.get(room, [])):
                self._open_storage(room)
                found = self.world.find(pred)
        return found

    def _find_substance(self, goal: Goal) -> _Entry | None:
        """Where the substance is (None for water, which comes from a tap)."""
        if goal.substance == "water":
            return None  # ScienceWorld places no water for these tasks: the kitchen sink (or another) gives it
        fixtures = tuple(_FIXTURES)
        found = self._search(lambda e: matches_substance(e.obj.name, goal.substance) and e.room != "inventory"
                             and not (e.obj.parent or "").startswith(fixtures))
        if not found:
            raise _Stuck(f"{goal.substance} not found in any room")
        exact = [e for e in found if e.obj.name.lower() == goal.substance]
        return (exact or found)[0]

    def _choose_vessel(self, goal: Goal, sub: _Entry | None) -> _Entry:
        # how hot the vessel must get: the heat phases from the state the substance is probably in now
        start = (state_from_name(sub.obj.name, goal.substance) if sub is not None else None) or state_at(
            goal.substance, AMBIENT_C)
        temps = [needed_celsius(p, goal.substance) for p in phases_for(goal, start) if p.direction == "heat"]
        need = max((t for t in temps if t is not None), default=None)
        excluded: dict[str, str] = {}
        if self.config.policy == "default":
            e = self.world.get(DEFAULT_VESSEL)
            if e is None:
                raise _Stuck(f"default vessel {DEFAULT_VESSEL} not found")
            self._choices.append(DeviceChoice(role="vessel", object_id=e.gid, method="default", outcome="used"))
            return e

        vessel_types = set(self.kb.utility_objects(COAT_ROLES["vessel"][0])) if self.kb is not None else set()

        def keep(e: _Entry) -> bool:
            if e.room == "inventory":
                return False
            if e.record.category not in vessel_types:
                return True  # not a vessel for COAT: plan_in_state leaves it out anyway
            held = e.obj.contents
            if held and not all(matches_substance(c, goal.substance) for c in held):
                excluded[e.gid] = f"holds {', '.join(held)}"
                return False
            why = vessel_unsafe(e.obj.name, need)
            if why:
                excluded[e.gid] = why
                return False
            return True

        choice = self._coat_choice("vessel", "vessel", keep, excluded)
        e = self.world.get(choice.object_id or "")
        if e is None:
            raise _Stuck(f"no vessel to heat {goal.substance} in: {choice.reason}")
        holder = self.world.holder_of(sub) if sub is not None else None
        if (holder is not None and holder.gid != e.gid and holder.record.category == e.record.category
                and holder.gid not in excluded):
            # the substance already sits in a vessel of the kind COAT chose: use it, no transfer needed
            choice = choice.model_copy(update={"object_id": holder.gid,
                                               "reason": f"{choice.reason}; {sub.obj.name} is already in "
                                                         f"{holder.gid}, a {holder.record.category} too"})
            e = holder
        choice = choice.model_copy(update={"outcome": "used"})
        self._choices.append(choice)
        return e

    def _coat_choice(self, role: str, key: str, keep: Callable[[_Entry], bool], excluded: dict[str, str],
                     phase: str = "") -> DeviceChoice:
        """Ask :func:`planner.api.plan_in_state` for the object of one role; re-plan without unusable ones."""
        from .api import plan_in_state

        utility, mapped_task = COAT_ROLES[key]
        if self.config.interpretation == "mapped":
            task = mapped_task
        else:
            verb = {"heat:gas": "boil", "heat:liquid": "melt", "heat:solid": "melt"}.get(key, "heat")
            task = f"{verb} {self.goal.substance}"
        strategy = "hybrid" if self.llm is not None else "knowledge"
        state = self.world.state(keep)
        kw: dict[str, Any] = {"llm": self.llm, "strategy": strategy, "utility": utility, "kb": self.kb}
        p = plan_in_state(task, state, **kw)
        method = _decision_method(p)
        if not p.feasible:
            # COAT's stage 1 keeps the task's context objects (the stove for "boil water"); when those are all
            # broken, stage 2 has nothing usable. Re-plan over the usable objects only (the oven is then ranked).
            usable_objects = tuple(r for r in state.objects if not r.state.unusable_reason())
            usable = SceneState(scene_id=state.scene_id, objects=usable_objects)
            for r in state.objects:
                if r.state.unusable_reason():
                    excluded.setdefault(r.object_id, "broken")
            p2 = plan_in_state(task, usable, **kw)
            if p2.feasible or p2.choices:
                self._replans += 1 if any(r.state.unusable_reason() for r in state.objects) else 0
                p = p2
        method = _decision_method(p)
        oid = p.choices[0].object_id if p.choices else None
        return DeviceChoice(role=role, phase=phase, object_id=oid, method=method, coat_task=task, utility=utility,  # type: ignore[arg-type]
                            excluded=dict(excluded), reason=p.reason or (p.choices[0].rationale if p.choices else ""),
                            plan=p)

    def _prepare_substance(self, goal: Goal, vessel: _Entry, sub: _Entry | None) -> State | None:
        """Get the substance into the vessel (fetching water when that is the substance) and focus on it."""
        vname = vessel.obj.name
        self._goto(vessel.room)
        if vessel.obj.parent:
            holder = self.world.holder_of(vessel)
            if holder is not None:
                self._open(holder)
        self._take(vname, prefer=(f"in {vessel.obj.parent}",) if vessel.obj.parent else (vessel.room,))
        if not self.world.holds(vname):
            raise _Stuck(f"could not pick up the {vname}")
        if sub is None:
            self._fill_with_water(vname)
        elif self._substance_name(vname) is None:
            self._goto(sub.room)
            self._transfer(sub, vname)
        start = self._start_state(vname)
        self._focus(vname)
        return start

    def _transfer(self, sub: _Entry, vessel: str) -> None:
        name, parent = sub.obj.name, sub.obj.parent
        liquid = state_from_name(name, self.goal.substance) == "liquid" or (
            state_from_name(name, self.goal.substance) is None
            and state_at(self.goal.substance, AMBIENT_C) == "liquid")
        # ambiguity prompts list "... to metal pot (in inventory)": the carried vessel is the destination
        dest = f"{vessel} (in inventory"
        cup = self.world.holder_of(sub)
        # ... and the source is the cup that holds the substance ("glass cup (in fridge, ..."), not its twin
        src = f"{parent} (in {(cup.obj.parent if cup is not None else None) or sub.room}"
        if parent:
            self._open_parent(sub)
        cmds = [(f"pour {parent} into {vessel}", (src, dest))] if parent and liquid else []
        cmds.append((f"move {name} to {vessel}", (f"{name} (in {parent or sub.room}", dest)))
        if parent and not liquid:
            cmds.append((f"pour {parent} into {vessel}", (src, dest)))
        for cmd, prefer in cmds:
            ok, _ = self._do(cmd, prefer=prefer)
            if ok and self._substance_name(vessel):
                return
        if self._take(name):
            ok, _ = self._do(f"move {name} to {vessel}", prefer=(dest,))
            if ok and self._substance_name(vessel):
                return
        raise _Stuck(f"could not get {name} into the {vessel}")

    def _open_parent(self, sub: _Entry) -> None:
        parent = next((e for e in self.world.rooms.get(sub.room, []) if e.obj.name == sub.obj.parent), None)
        if parent is not None:
            self._open(parent)

    def _start_state(self, vessel: str) -> State | None:
        name = self._substance_name(vessel)
        st = state_from_name(name, self.goal.substance) if name else None
        if st is not None:
            return st
        t = self._measure(vessel)
        if t is not None:
            st = state_at(self.goal.substance, t)
        return st or state_at(self.goal.substance, AMBIENT_C)

    def _focus(self, vessel: str) -> None:
        name = self._substance_name(vessel) or self.goal.substance
        sub = next((o for o in self.world.contents_of(vessel) if o.name == name), None)
        here = ("inventory",) if self.world.holds(vessel) else ()
        # "substance in <vessel>" names exactly the one we hold; plain names ("water") may be another object
        cmds = ([f"focus on substance in {vessel}"] if sub is not None and sub.substance else []) + [f"focus on {name}"]
        for cmd in cmds:
            ok, reply = self._do(cmd, prefer=(vessel, *here))
            if ok and reply.startswith("You focus"):
                return
        raise _Stuck(f"could not focus on {name}")

    def _fill_with_water(self, vessel: str) -> None:
        """Fill the vessel at a water source; a broken one is marked and the next one tried."""
        while True:
            if self.config.policy == "default":
                src = self.world.get(DEFAULT_DEVICES["water"])
                ranked = [src] if src is not None and DEFAULT_DEVICES["water"] not in self._excluded else []
                method = "default"
            else:
                ranked = rank_water_sources(self.world, self._excluded)
                method = "rule"
            if not ranked:
                raise _Stuck("no working water source")
            e = ranked[0]
            choice = DeviceChoice(role="water", object_id=e.gid, method=method, excluded=dict(self._excluded),
                                  reason="nearest working sink")
            self._goto(e.room)
            ok, reply = self._do(f"move {vessel} to {e.obj.name}", prefer=("inventory",))
            if ok:
                self._placed = e.obj.name
            ok, reply = self._do(f"activate {e.obj.name}", prefer=(e.room,))
            if not ok:
                self._choices.append(choice.model_copy(update={"outcome": "broken" if "broken" in reply else "failed"}))
                self._excluded[e.gid] = "broken" if "broken" in reply else reply
                self._take(vessel)
                if self.config.policy == "default":
                    raise _Stuck(f"default water source {e.gid} failed: {reply}")
                self._replans += 1
                continue
            self._do("wait1")
            self._do(f"deactivate {e.obj.name}", prefer=(e.room,))
            self._take(vessel)
            self._used.append(e.gid)
            self._choices.append(choice.model_copy(update={"outcome": "used"}))
            if self._substance_name(vessel):
                return
            raise _Stuck(f"the {vessel} holds no water after the {e.obj.name}")

    def _pick_device(self, ph: Phase) -> DeviceChoice:
        need = needed_celsius(ph, self.goal.substance)
        role: Literal["heater", "cooler"] = "heater" if ph.direction == "heat" else "cooler"
        if self.config.policy == "default":
            gid = DEFAULT_DEVICES[role]
            oid = gid if gid not in self._excluded else None
            return DeviceChoice(role=role, phase=ph.key, object_id=oid, method="default", reason="baseline")
        excluded = dict(self._excluded)
        if role == "cooler":
            ranked = rank_coolers(self.world, need, excluded, specs=self.config.device_specs)
            return DeviceChoice(role=role, phase=ph.key, object_id=ranked[0].gid if ranked else None, method="rule",
                                excluded=excluded, reason="nearest cooler cold enough" if ranked else "none left")

        def keep(e: _Entry) -> bool:
            if e.room == "inventory" or e.gid in self._excluded:
                return False
            if self.config.device_specs:
                why = heater_too_weak(e.obj.name, need)
                if why and (e.record.category in ("StoveBurner", "Oven") or _device_kind(e.obj.name) in HEATER_MAX_C):
                    excluded[e.gid] = why
                    return False
            return True

        key = ph.key if ph.key in COAT_ROLES else "heat:liquid"
        return self._coat_choice(role, key, keep, excluded, phase=ph.key)

    def _run_phase(self, ph: Phase, vessel: _Entry) -> bool:
        """Heat or cool until the target state, substituting devices that fail. False: none left."""
        vname = vessel.obj.name
        while True:
            choice = self._pick_device(ph)
            e = self.world.get(choice.object_id) if choice.object_id else None
            if e is None:
                self._choices.append(choice.model_copy(update={"outcome": "none"}))
                return False
            self._choices.append(choice)  # recorded before use: the episode may end while the device runs
            outcome = self._use_device(ph, e, vname)
            self._choices[-1] = choice.model_copy(update={"outcome": outcome})
            if outcome == "done":
                return True
            self._excluded[e.gid] = outcome
            if self.config.policy == "default":
                return False
            self._replans += 1
            self._take(vname)
            logger.info("%s %s; re-planning %s", e.gid, outcome, ph.key)

    def _use_device(self, ph: Phase, e: _Entry, vessel: str) -> str:
        """Put the vessel on/in the device, run it and watch. Returns done / broken / too weak / failed."""
        if not self.world.holds(vessel):
            self._take(vessel)  # still in the last phase's device, in this room
        self._goto(e.room)
        if not self.world.holds(vessel):
            return "failed: lost the vessel"
        self._open(e)
        ok, reply = self._do(f"move {vessel} to {e.obj.name}", prefer=("inventory",))
        if not ok:
            return f"failed: {reply.strip()[:80]}"
        self._placed = e.obj.name
        if ph.direction == "heat" or e.obj.device_on is False:
            ok, reply = self._do(f"activate {e.obj.name}", prefer=(e.room,))
            if not ok and "broken" in reply:
                return "broken"
        self._used.append(e.gid)
        readings: list[float] = []
        waits = self.config.max_heat_waits if ph.direction == "heat" else self.config.max_cool_waits
        for _ in range(waits):
            if self._current_state(vessel) == ph.target:
                return "done"
            self._do("wait1")
            if self._current_state(vessel) == ph.target:
                return "done"
            t = self._measure(vessel)
            if t is not None:
                readings.append(t)
            if self._stalled(readings, ph):
                return "too weak"
        return "too weak"

    def _stalled(self, readings: list[float], ph: Phase) -> bool:
        if len(readings) <= PLATEAU_WINDOW:
            return False
        change = readings[-1] - readings[-1 - PLATEAU_WINDOW]
        if ph.direction == "cool":
            change = -change
        return change < PLATEAU_MIN_CHANGE_C

    def _settle(self) -> None:
        """A state change shows in the text a tick after ScienceWorld scores it: wait a little for the end."""
        for _ in range(3):
            self._do("wait1")


class _Stuck(Exception):
    """The procedure cannot continue (nothing left to try); the episode is scored as it stands."""


# ---------------------------------------------------------------- benchmark
def select_variations(task: str, split: str, limit: int | None = None,
                      variations: Sequence[int] | None = None) -> list[int]:
    """Variations to run: explicit ones, or a split's (first ``limit``), without starting a JVM.

    The change-of-state tasks have 30 variations: train 0-13, dev 14-20, test 21-29 (contiguous, as ScienceWorld
    1.2.3 reports them).
    """
    from scenes.sciworld import resolve_task

    name = resolve_task(task)
    if name not in FAMILIES:
        raise ConfigError(f"task {task!r} is not one the agent plays; valid: {', '.join(FAMILIES)}")
    if variations:
        return list(variations)
    splits = {"train": range(0, 14), "dev": range(14, 21), "test": range(21, 30), "all": range(0, 30)}
    if split not in splits:
        raise ConfigError(f"unknown split {split!r}; valid: {', '.join(splits)}")
    out = list(splits[split])
    return out[:limit] if limit else out


def run_benchmark(
    tasks: Sequence[str],
    *,
    split: str = "test",
    limit: int | None = None,
    variations: Sequence[int] | None = None,
    configs: Sequence[AgentConfig] = (AgentConfig(),),
    step_limit: int = 150,
    out: str | Path | None = None,
    make_env: Callable[[str, int], Any] | None = None,
    data_dir: Any = None,
    progress: bool = True,
) -> list[EpisodeResult]:
    """Play every (task, variation, config) once and return the results (JSONL rows when ``out`` is given).

    One JVM per task; agents are built once per config (the model loads once).
    """
    if make_env is None:
        def make_env(task: str, limit_: int) -> Any:
            from scenes.sciworld import ScienceWorldEnv

            return ScienceWorldEnv(task, simplification="easy", step_limit=limit_)
    agents = [SciWorldAgent(c, data_dir=data_dir) for c in configs]
    results: list[EpisodeResult] = []
    path = Path(out) if out else None
    if path:
        path.mkdir(parents=True, exist_ok=True)
    rows = open(path / "episodes.jsonl", "w") if path else None  # noqa: SIM115 - closed below
    try:
        for task in tasks:
            vs = select_variations(task, split, limit, variations)
            env = make_env(task, step_limit)
            try:
                for v in vs:
                    for agent in agents:
                        r = agent.run(env, v)
                        results.append(r)
                        if rows:
                            rows.write(r.model_dump_json() + "\n")
                            rows.flush()
                        if progress:
                            print(f"{r.task:>30} var {v:>2} {r.policy:>7} {r.llm or 'none':>6}: score {r.score:>4} "
                                  f"done={r.completed!s:5} moves {r.moves:>3} used {list(r.devices_used)} "
                                  f"{r.failure}", flush=True)
            finally:
                env.close()
    finally:
        if rows:
            rows.close()
    if path:
        (path / "summary.md").write_text(summarize(results))
    return results


def _label(r: EpisodeResult) -> str:
    if r.policy == "default":
        return "baseline: always the stove"
    return f"COAT agent (llm {r.llm or 'none'}, {r.interpret}{'' if r.device_specs else ', no device specs'})"


def summarize(results: Iterable[EpisodeResult]) -> str:
    """Markdown table per agent, task family and whether the variation breaks a device."""
    groups: dict[tuple[str, str, str], list[EpisodeResult]] = {}
    for r in results:
        kind = "device broken" if r.broken else "nothing broken"
        groups.setdefault((_label(r), r.task, kind), []).append(r)
        groups.setdefault((_label(r), "all", kind), []).append(r)
        groups.setdefault((_label(r), "all", "all"), []).append(r)
    lines = ["| agent | task | variations | episodes | mean score | completed | substitution rate | re-plans/ep | "
             "mean moves |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    tasks_order = {t: i for i, t in enumerate((*FAMILIES, "all"))}
    kinds_order = {"device broken": 0, "nothing broken": 1, "all": 2}

    def order(k: tuple[str, str, str]) -> tuple[str, int, int]:
        return (k[0], tasks_order.get(k[1], -1), kinds_order[k[2]])

    for (label, task, kind), rs in sorted(groups.items(), key=lambda kv: order(kv[0])):
        n = len(rs)
        lines.append(
            f"| {label} | {task} | {kind} | {n} | {sum(r.score for r in rs) / n:.1f} | "
            f"{sum(r.completed for r in rs) / n:.0%} | {sum(r.substituted for r in rs) / n:.0%} | "
            f"{sum(r.replans for r in rs) / n:.2f} | {sum(r.moves for r in rs) / n:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m planner.sciworld_agent``: run the ScienceWorld benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m planner.sciworld_agent", description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=["boil"], help=f"any of {', '.join(FAMILIES)}")
    ap.add_argument("--split", default="test", help="train, dev, test or all")
    ap.add_argument("--limit", type=int, default=None, help="first N variations of the split per task")
    ap.add_argument("--variations", default="", help="explicit variations, e.g. 0,1,2,3 (overrides --split)")
    ap.add_argument("--llm", default="none", help="none (COAT knowledge), local, fake, openai:<model>...")
    ap.add_argument("--interpret", choices=["mapped", "literal"], default=None)
    ap.add_argument("--policies", nargs="+", default=["coat", "default"], choices=["coat", "default"])
    ap.add_argument("--no-device-specs", action="store_true", help="find weak devices only by trying them")
    ap.add_argument("--step-limit", type=int, default=150, help="ScienceWorld's envStepLimit (moves)")
    ap.add_argument("--out", default=None, help="directory for episodes.jsonl and summary.md")
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    llm = None if args.llm in ("none", "") else args.llm
    configs = [
        AgentConfig(policy=p, llm=llm if p == "coat" else None, interpret=args.interpret,
                    device_specs=not args.no_device_specs, keep_transcript=bool(args.out))
        for p in args.policies
    ]
    variations = [int(v) for v in args.variations.split(",") if v.strip()] or None
    t0 = time.perf_counter()
    results = run_benchmark(args.tasks, split=args.split, limit=args.limit, variations=variations, configs=configs,
                            step_limit=args.step_limit, out=args.out, data_dir=args.data_dir)
    print(summarize(results))
    print(f"{len(results)} episodes in {time.perf_counter() - t0:.0f} s")
    if args.out:
        meta = {"argv": argv, "tasks": args.tasks, "split": args.split, "limit": args.limit, "llm": args.llm,
                "step_limit": args.step_limit, "seconds": round(time.perf_counter() - t0, 1)}
        (Path(args.out) / "run.json").write_text(json.dumps(meta, indent=1))
    return 0


__all__ = [
    "COAT_ROLES",
    "COOLER_MIN_C",
    "FAMILIES",
    "HEATER_MAX_C",
    "SUBSTANCES",
    "AgentConfig",
    "DeviceChoice",
    "EpisodeResult",
    "Goal",
    "Phase",
    "SciWorldAgent",
    "World",
    "main",
    "parse_goal",
    "phases_for",
    "rank_coolers",
    "rank_water_sources",
    "run_benchmark",
    "select_variations",
    "state_from_name",
    "summarize",
]

if __name__ == "__main__":
    raise SystemExit(main())
