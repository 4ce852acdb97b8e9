"""A COAT agent for ScienceWorld's change-of-state tasks: perceive, decide, act through skills, verify.

ScienceWorld is the text-only testbed where the ideal device can be broken: every odd variation of these four
tasks breaks the kitchen stove and variations 2-3 break the kitchen sink (``scenes.sciworld.broken_devices``).
Nothing in the text says so; ``activate stove`` answers "The stove appears broken". The agent closes the loop
that COAT describes:

1. **perceive**: ``look around`` text of every room (``sw_go_to``: teleporting, or walking through doors) ->
   :class:`perception.text.TextEstimator` -> one SceneState per room, kept in a
   :class:`~.memory.RoomMemory` and merged with room-qualified ids (``kitchen/stove``, ``foundry/blast furnace``).
2. **decide**: :func:`planner.api.plan_in_state` picks the heat source (COAT utility ``heating(source)``) and
   the vessel (``heating(vessel)``), :func:`~.decide.coat_choice`. ScienceWorld phases map to COAT tasks
   (:data:`~.facts.COAT_ROLES`): heating until a gas is "boil water", heating until a liquid is "melting
   butter", the vessel is "boil water on stoveburner" (task wording ``mapped``, the default without a model);
   with a model, ``literal`` passes ScienceWorld's own words ("boil lead") and the model decides where COAT
   has no annotation. Devices known to be unusable are left out first: broken ones (remembered by the
   estimator) and, with ``device_specs``, those whose maximum (minimum) temperature cannot reach the
   substance's boiling or melting point. Coolers and water sources are ranked by a rule.
3. **act**: the ScienceWorld skills of :mod:`skills.sciworld` (``sw_take``, ``sw_fill``, ``sw_place``...):
   put the substance in the vessel, focus on it, put the vessel on/in the device, activate it.
4. **verify**: ``wait1`` and read the thermometer until the name of the substance shows the target state
   (``liquid lead``, ``steam``, ``ice``). When a step fails (the device "appears broken", or the thermometer
   shows the temperature has stopped rising short of the target: the device is too weak), the device is
   marked unusable and the decision is made again; the next-best substitute is used.

The ``default`` policy is the baseline: always the kitchen stove (freezer, sink, metal pot), never re-plans.
``device_specs=False`` drops the device ranges: the agent then finds a weak device only by trying it.

Requires: the ``sciworld`` extra and Java 8+ on PATH; ``llm="local"`` needs the ``local-llm`` extra.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from perception.text import TextEstimator
from scenes.sciworld import broken_devices, has_teleport, parse_choices
from skills import SkillResult, get_skill
from skills.sciworld import TextSkillContext

from ...schemas import SkillCall
from ..loop import ClosedLoop
from .contracts import AgentConfig, DeviceChoice, EpisodeResult
from .decide import Role, coat_choice, rank_coolers, rank_water_sources
from .episode import Episode, EpisodeOver, Stuck, Tap, blamed, read_temperature, stalled
from .facts import (
    AMBIENT_C,
    COAT_ROLES,
    DEFAULT_DEVICES,
    DEFAULT_VESSEL,
    FIXTURES,
    HEATER_MAX_C,
    ROOM_ORDER,
    Goal,
    Phase,
    State,
    device_kind,
    heater_too_weak,
    matches_substance,
    needed_celsius,
    parse_goal,
    phases_for,
    state_at,
    state_from_name,
    vessel_unsafe,
)
from .memory import RoomMemory, SeenObject
from .spec import read_task

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from scenes.base import SceneEnv

    from ...knowledge import KnowledgeBase
    from ...llm import LLMBackend

logger = logging.getLogger(__name__)


class SciWorldAgent(ClosedLoop[Episode, EpisodeResult]):
    """Plays one change-of-state episode: perceive, decide with COAT, act through skills, re-plan on failure.

    The driver is :class:`~planner.agents.loop.ClosedLoop`: every skill call is one recorded step; a water
    source or a heat/cold device is used through a queue of steps (go there, open it, put the vessel in,
    switch it on) verified by watching the substance (:meth:`verify`); a device that fails is blamed, marked
    unusable and the role decided again (:meth:`redecide`), within ``config.max_replans``.

    Args:
        config: How to decide (:class:`~.contracts.AgentConfig`).
        kb: The COAT knowledge base (default: ``load_knowledge(data_dir)``).
        llm: A ready backend or a langchain chat model (wrapped in :class:`~planner.llm.LangChainBackend`) instead of
            building ``config.llm``.
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
        llm: LLMBackend | BaseChatModel | None = None,
        data_dir: Any = None,
    ) -> None:
        self.config = config or AgentConfig()
        if self.config.policy == "coat" and kb is None:
            from ...knowledge import load_knowledge

            kb = load_knowledge(data_dir)
        self.kb = kb
        if llm is None and self.config.llm and self.config.policy == "coat":
            from ...llm import make_llm

            llm = make_llm(self.config.llm)
        from ...arguments import check_llm, make_backend

        check_llm(llm)
        self.llm = make_backend(llm)
        from ...arguments import data_dir_of

        self._data_dir = data_dir_of(kb, data_dir)  # the knowledge base's directory when only kb= is given
        self.max_replans = self.config.max_replans if self.config.policy == "coat" else 0

    # ------------------------------------------------------------ episode
    def run(self, env: SceneEnv[Any, Any], variation: int) -> EpisodeResult:
        """Reset ``env`` (a :class:`scenes.sciworld.ScienceWorldEnv`) to ``variation`` and play it out."""
        t0 = time.perf_counter()
        tap = Tap(env)
        self._run = Episode(env=env, tap=tap, variation=variation, t0=t0)
        obs, _info = tap.reset(options={"variation": variation})
        from ...paths import use_data_dir

        with use_data_dir(self._data_dir):  # the priors come from the knowledge base's data directory
            self.memory = RoomMemory(TextEstimator(priors="default" if self.kb is not None else None))
        self.memory.record(obs)
        self._ctx = TextSkillContext(env=tap, obs=obs, max_steps=100_000,  # type: ignore[arg-type]
                                     memory=self.memory, parse_choices=parse_choices,
                                     read_temperature=read_temperature, substance_in=self._substance_name,
                                     teleport=has_teleport(getattr(env, "simplification", "easy")))
        self._choices: list[DeviceChoice] = []
        self._used: list[str] = []
        self._has_thermometer = False
        desc, task = str(obs.extra.get("task_description", "")), getattr(env, "task", None)
        self.spec = read_task(desc, task) if isinstance(task, str) else None  # the shared reading (spec.py)
        self.goal = (Goal(family=self.spec.task, substance=self.spec.target, text=desc.strip())
                     if self.spec is not None else parse_goal(desc))
        self._run.phases, self._run.failure = self._play(self.goal)
        return self.report(self._run)

    def _play(self, goal: Goal) -> tuple[tuple[Phase, ...], str]:
        """Explore, choose, prepare, run the phases; returns the phases and why the episode failed, if known."""
        phases: tuple[Phase, ...] = ()
        try:
            self._explore()
            sub = self._find_substance(goal)
            vessel = self._choose_vessel(goal, sub)
            start = self._prepare_substance(goal, vessel, sub)
            phases = phases_for(goal, start)
            for ph in phases:
                if not self._run_phase(ph, vessel):
                    return phases, f"{ph.key}: no usable device left"
            self._skill("sw_wait", ticks=3)  # a state change shows in the text a tick after it is scored
        except EpisodeOver:
            pass
        except Stuck as e:
            return phases, str(e)
        return phases, ""

    def report(self, run: Episode) -> EpisodeResult:
        """The :class:`~.contracts.EpisodeResult`: score and completion as ScienceWorld says."""
        env, tap, variation, phases, failure = run.env, run.tap, run.variation, run.phases, run.failure
        seconds = time.perf_counter() - run.t0
        goal = self.goal
        self._choices = [c.model_copy(update={"outcome": "in use at the end"}) if c.outcome == "pending" else c
                         for c in self._choices]
        info = tap.info
        obs = self._ctx.obs
        score = int(obs.extra.get("score", info.get("score", 0)) or 0)
        completed = bool(info.get("success", False))
        if not completed and not failure:
            failure = "step limit" if tap.truncated else ("task failed" if score < 0 else "not completed")
        task = getattr(env, "task", goal.family)
        try:
            broken = broken_devices(task, variation)
        except Exception:  # noqa: BLE001 - a non-ScienceWorld env in tests: nothing is known to be broken
            broken = ()
        defaults = {DEFAULT_DEVICES["heater"], DEFAULT_DEVICES["cooler"], DEFAULT_DEVICES["water"]}
        return EpisodeResult(
            task=task,
            variation=variation,
            broken=tuple(broken),
            policy=self.config.policy,
            llm=self.config.llm,
            interpret=self.config.interpretation,
            device_specs=self.config.device_specs,
            goal=goal,
            spec=self.spec,
            phases=tuple(p.key for p in phases),
            score=score,
            completed=completed,
            moves=int(obs.extra.get("moves", 0) or 0),
            commands=len(self._ctx.actions),
            choices=tuple(self._choices),
            replans=run.replans,
            substituted=any(d not in defaults for d in self._used),
            devices_used=tuple(self._used),
            found_broken=tuple(c.object_id for c in self._choices if c.outcome == "broken" and c.object_id),
            excluded=dict(run.excluded),
            failure="" if completed else failure,
            seconds=round(seconds, 3),
            transcript=tuple(self._ctx.transcript) if self.config.keep_transcript else (),
        )

    # ------------------------------------------------------------ acting through skills
    def act(self, run: Episode, call: SkillCall) -> SkillResult:
        """One ScienceWorld skill call in the agent's text context."""
        return get_skill(call.skill)(call, self._ctx)

    def step(self, run: Episode, call: SkillCall) -> SkillResult:
        """Run and record one skill call; stop the episode's play when ScienceWorld has ended it."""
        res = super().step(run, call)
        if self._ctx.terminated:
            raise EpisodeOver()
        return res

    def _skill(self, skill: str, target: str | None = None, receptacle: str | None = None,
               **args: Any) -> SkillResult:
        return self.step(self._run, SkillCall(skill=skill, target=target, receptacle=receptacle, args=args))

    def _goto(self, room: str) -> None:
        res = self._skill("sw_go_to", room)
        if not res.ok:
            raise Stuck(f"sw_go_to({room}): {res.reason}")

    def _open(self, e: SeenObject) -> None:
        if e.obj.is_open is False:
            self._skill("sw_open", e.obj.name)

    def _take(self, name: str, prefer: tuple[str, ...] = ()) -> bool:
        return self._skill("sw_take", name, prefer=list(prefer)).ok

    def _measure(self, vessel: str) -> float | None:
        if not self._has_thermometer:
            return None
        self._skill("sw_measure", vessel)
        return self._ctx.last_reading

    # ------------------------------------------------------------ perceiving the substance
    def _substance_name(self, vessel: str) -> str | None:
        """The name the task's substance has in ``vessel`` now (``steam``), from memory; None if not there."""
        held = self.memory.holds(vessel)
        for o in self.memory.contents_of(vessel, None if held else self._ctx.placed):
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

    def _start_state(self, vessel: str) -> State | None:
        name = self._substance_name(vessel)
        st = state_from_name(name, self.goal.substance) if name else None
        if st is not None:
            return st
        t = self._measure(vessel)
        if t is not None:
            st = state_at(self.goal.substance, t)
        return st or state_at(self.goal.substance, AMBIENT_C)

    # ------------------------------------------------------------ episode parts
    def _explore(self) -> None:
        """Visit every room (teleporting: kitchen first; walking: the nearest next, skipping those seen on the way);
        open the kitchen's closed storage, where vessels and food are."""
        walk = not self._ctx.teleport
        for room in self.memory.tour(ROOM_ORDER, walk=walk):
            if walk and room in self.memory.rooms and room != "kitchen":
                continue  # looked at on the way
            self._goto(room)
            if room == "kitchen":
                self._open_storage(room)
                if self.memory.find(lambda e: e.room == "kitchen" and e.obj.name == "thermometer"):
                    self._has_thermometer = self._take("thermometer")

    def _open_storage(self, room: str) -> None:
        """Open every closed container of a room that is not a device (cupboard, fridge, closet...)."""
        self._goto(room)
        for e in list(self.memory.rooms.get(room, [])):
            if e.obj.is_open is False and e.obj.device_on is None and e.obj.parent is None:
                self._skill("sw_open", e.obj.name)

    def _search(self, pred: Callable[[SeenObject], bool]) -> list[SeenObject]:
        """Objects matching ``pred``; if none is visible, open closed storage room by room until one is."""
        found = self.memory.find(pred)
        for room in ROOM_ORDER:
            if found:
                break
            if any(e.obj.is_open is False and e.obj.device_on is None for e in self.memory.rooms.get(room, [])):
                self._open_storage(room)
                found = self.memory.find(pred)
        return found

    def _find_substance(self, goal: Goal) -> SeenObject | None:
        """Where the substance is (None for water, which comes from a tap)."""
        if goal.substance == "water":
            return None  # ScienceWorld places no water for these tasks: the kitchen sink (or another) gives it
        found = self._search(lambda e: matches_substance(e.obj.name, goal.substance) and e.room != "inventory"
                             and not (e.obj.parent or "").startswith(FIXTURES))
        if not found:
            raise Stuck(f"{goal.substance} not found in any room")
        exact = [e for e in found if e.obj.name.lower() == goal.substance]
        return (exact or found)[0]

    def _choose_vessel(self, goal: Goal, sub: SeenObject | None) -> SeenObject:
        """COAT's ``heating(vessel)`` choice among containers that would survive the heat, or the metal pot."""
        if self.config.policy == "default":
            e = self.memory.get(DEFAULT_VESSEL)
            if e is None:
                raise Stuck(f"default vessel {DEFAULT_VESSEL} not found")
            self._choices.append(DeviceChoice(role="vessel", object_id=e.gid, method="default", outcome="used"))
            return e
        # how hot the vessel must get: the heat phases from the state the substance is probably in now
        start = (state_from_name(sub.obj.name, goal.substance) if sub is not None else None) or state_at(
            goal.substance, AMBIENT_C)
        temps = [needed_celsius(p, goal.substance) for p in phases_for(goal, start) if p.direction == "heat"]
        need = max((t for t in temps if t is not None), default=None)
        excluded: dict[str, str] = {}
        vessel_types = set(self.kb.utility_objects(COAT_ROLES["vessel"][0])) if self.kb is not None else set()

        def keep(e: SeenObject) -> bool:
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
        e = self.memory.get(choice.object_id or "")
        if e is None:
            raise Stuck(f"no vessel to heat {goal.substance} in: {choice.reason}")
        holder = self.memory.holder_of(sub) if sub is not None else None
        if (holder is not None and sub is not None and holder.gid != e.gid
                and holder.record.category == e.record.category and holder.gid not in excluded):
            # the substance already sits in a vessel of the kind COAT chose: use it, no transfer needed
            choice = choice.model_copy(update={"object_id": holder.gid,
                                               "reason": f"{choice.reason}; {sub.obj.name} is already in "
                                                         f"{holder.gid}, a {holder.record.category} too"})
            e = holder
        self._choices.append(choice.model_copy(update={"outcome": "used"}))
        return e

    def _coat_choice(self, role: Role, key: str, keep: Callable[[SeenObject], bool], excluded: dict[str, str],
                     phase: str = "") -> DeviceChoice:
        choice, replanned = coat_choice(role, key, self.memory, keep, excluded, substance=self.goal.substance,
                                        wording=self.config.interpretation, kb=self.kb, llm=self.llm, phase=phase)
        self._run.replans += 1 if replanned else 0
        return choice

    def _prepare_substance(self, goal: Goal, vessel: SeenObject, sub: SeenObject | None) -> State | None:
        """Get the substance into the vessel (fetching water when that is the substance) and focus on it."""
        vname = vessel.obj.name
        self._goto(vessel.room)
        if vessel.obj.parent:
            holder = self.memory.holder_of(vessel)
            if holder is not None:
                self._open(holder)
        self._take(vname, prefer=(f"in {vessel.obj.parent}",) if vessel.obj.parent else (vessel.room,))
        if not self.memory.holds(vname):
            raise Stuck(f"could not pick up the {vname}")
        if sub is None:
            self._fill_with_water(vname)
        elif self._substance_name(vname) is None:
            self._goto(sub.room)
            self._transfer(sub, vname)
        start = self._start_state(vname)
        self._focus(vname)
        return start

    def _transfer(self, sub: SeenObject, vessel: str) -> None:
        name, parent = sub.obj.name, sub.obj.parent
        liquid = state_from_name(name, self.goal.substance) == "liquid" or (
            state_from_name(name, self.goal.substance) is None
            and state_at(self.goal.substance, AMBIENT_C) == "liquid")
        cup = self.memory.holder_of(sub)
        holder = (cup.obj.parent if cup is not None else None) or sub.room
        if parent:
            container = next((e for e in self.memory.rooms.get(sub.room, []) if e.obj.name == parent), None)
            if container is not None:
                self._open(container)
        res = self._skill("sw_transfer", name, vessel, parent=parent, holder=holder, room=sub.room, liquid=liquid)
        if not res.ok:
            raise Stuck(res.reason)

    def _focus(self, vessel: str) -> None:
        name = self._substance_name(vessel) or self.goal.substance
        sub = next((o for o in self.memory.contents_of(vessel) if o.name == name), None)
        res = self._skill("sw_focus", vessel, name=name, substance=bool(sub is not None and sub.substance))
        if not res.ok:
            raise Stuck(res.reason)

    def _fill_with_water(self, vessel: str) -> None:
        """Fill the vessel at a water source; a broken one is marked and the next one tried."""
        run = self._run
        run.role, run.vessel, run.phase = "water", vessel, None
        run.load(self._water_steps(vessel))
        if not self.drive(run):  # the default policy gives up at once (its budget is 0), COAT when it is spent
            last = run.results[-1].reason
            self._take(vessel)
            gid = run.device.gid if run.device else "?"
            raise Stuck(f"default water source {gid} failed: {last}" if self.config.policy == "default"
                         else run.failure)
        if self._substance_name(vessel):
            return
        raise Stuck(f"the {vessel} holds no water after the {run.device.obj.name if run.device else '?'}")

    def _water_steps(self, vessel: str) -> list[SkillCall]:
        """Decide the water source (the default one, or the nearest working one) and the steps to use it."""
        run = self._run
        if self.config.policy == "default":
            src = self.memory.get(DEFAULT_DEVICES["water"])
            ranked = [src] if src is not None and DEFAULT_DEVICES["water"] not in run.excluded else []
            method = "default"
        else:
            ranked = rank_water_sources(self.memory, run.excluded)
            method = "rule"
        if not ranked:
            raise Stuck("no working water source")
        e = ranked[0]
        run.device = e
        run.choice = DeviceChoice(role="water", object_id=e.gid, method=method, excluded=dict(run.excluded),
                                  reason="nearest working sink")
        return [SkillCall(skill="sw_go_to", target=e.room),
                SkillCall(skill="sw_fill", target=vessel, receptacle=e.obj.name, args={"room": e.room})]

    def _pick_device(self, ph: Phase) -> DeviceChoice:
        need = needed_celsius(ph, self.goal.substance)
        role: Literal["heater", "cooler"] = "heater" if ph.direction == "heat" else "cooler"
        if self.config.policy == "default":
            gid = DEFAULT_DEVICES[role]
            oid = gid if gid not in self._run.excluded else None
            return DeviceChoice(role=role, phase=ph.key, object_id=oid, method="default", reason="baseline")
        excluded = dict(self._run.excluded)
        if role == "cooler":
            ranked = rank_coolers(self.memory, need, excluded, specs=self.config.device_specs)
            return DeviceChoice(role=role, phase=ph.key, object_id=ranked[0].gid if ranked else None, method="rule",
                                excluded=excluded, reason="nearest cooler cold enough" if ranked else "none left")

        def keep(e: SeenObject) -> bool:
            if e.room == "inventory" or e.gid in self._run.excluded:
                return False
            if self.config.device_specs:
                why = heater_too_weak(e.obj.name, need)
                if why and (e.record.category in ("StoveBurner", "Oven") or device_kind(e.obj.name) in HEATER_MAX_C):
                    excluded[e.gid] = why
                    return False
            return True

        key = ph.key if ph.key in COAT_ROLES else "heat:liquid"
        return self._coat_choice(role, key, keep, excluded, phase=ph.key)

    def _run_phase(self, ph: Phase, vessel: SeenObject) -> bool:
        """Heat or cool until the target state, substituting devices that fail. False: none left."""
        run = self._run
        run.role, run.vessel, run.phase = ph.key, vessel.obj.name, ph
        steps = self._device_steps(ph, vessel.obj.name)
        if steps is None:
            return False
        run.load(steps)
        return self.drive(run)

    def _device_steps(self, ph: Phase, vessel: str) -> list[SkillCall] | None:
        """Decide the phase's device and the steps to use it: take the vessel, go there, open it, put the
        vessel on/in it and switch it on. None when no device is left."""
        run = self._run
        choice = self._pick_device(ph)
        e = self.memory.get(choice.object_id) if choice.object_id else None
        if e is None:
            self._choices.append(choice.model_copy(update={"outcome": "none"}))
            return None
        self._choices.append(choice)  # recorded before use: the episode may end while the device runs
        run.device, run.choice = e, choice
        steps = [] if self.memory.holds(vessel) else [SkillCall(skill="sw_take", target=vessel)]
        steps.append(SkillCall(skill="sw_go_to", target=e.room))
        if e.obj.is_open is False:
            steps.append(SkillCall(skill="sw_open", target=e.obj.name))
        activate = ph.direction == "heat" or e.obj.device_on is False
        steps.append(SkillCall(skill="sw_place", target=vessel, receptacle=e.obj.name,
                               args={"room": e.room, "activate": activate}))
        return steps

    # ------------------------------------------------------------ the loop's hooks
    def verify(self, run: Episode, call: SkillCall, res: SkillResult) -> SkillResult:
        """A device's steps: the vessel must still be carried on arrival; once it is placed, watch the
        substance until the target state shows (the device did its job) or the temperature stalls (too weak)."""
        e = run.device
        if e is None:
            return res
        if call.skill == "sw_go_to" and run.phase is not None and not self.memory.holds(run.vessel):
            return blamed(call, "failed: lost the vessel", "missing", e.gid)
        if call.skill == "sw_fill":
            self._used.append(e.gid)
            self._settle(run, "used")
        elif call.skill == "sw_place" and run.phase is not None:
            self._used.append(e.gid)
            outcome = self._watch(run.phase, run.vessel)
            if outcome != "done":
                return blamed(call, outcome, "faulty", e.gid)
            self._settle(run, "done")
        return res

    def tolerate(self, run: Episode, call: SkillCall, res: SkillResult) -> bool:
        """Taking the vessel and opening a device are best effort: the next steps check what they were for."""
        return call.skill in ("sw_take", "sw_open")

    def recover(self, run: Episode, call: SkillCall, res: SkillResult) -> bool:
        """A room the agent cannot reach ends its play; a device that failed has its decision's outcome
        recorded, then the shared loop judges it."""
        if call.skill == "sw_go_to" and not res.ok:
            raise Stuck(f"sw_go_to({call.target}): {res.reason}")
        self._settle(run, res.reason)
        return super().recover(run, call, res)

    def culprit(self, run: Episode, call: SkillCall, res: SkillResult) -> tuple[str | None, str | None]:
        """The device in use (skills blame it by its ScienceWorld name; the agent knows which room's)."""
        return (run.device.gid if run.device is not None else None), run.role

    def unusable_reason(self, res: SkillResult) -> str:
        """``broken``, or what went wrong (``too weak``, ScienceWorld's reply)."""
        return "broken" if res.fault == "broken" else res.reason

    def redecide(self, run: Episode, role: str, blame: str, res: SkillResult) -> list[SkillCall] | None:
        """Take the vessel back and choose the role's next-best device."""
        logger.info("%s %s; re-planning %s", blame, self.unusable_reason(res), role)
        self._take(run.vessel)
        if run.phase is None:
            return self._water_steps(run.vessel)
        return self._device_steps(run.phase, run.vessel)

    def _settle(self, run: Episode, outcome: str) -> None:
        """Record how using the decided device went (a water source's decision is recorded only then)."""
        if run.choice is None:
            return
        if run.phase is None:
            if outcome != "used":
                outcome = "broken" if "broken" in outcome else "failed"
            self._choices.append(run.choice.model_copy(update={"outcome": outcome}))
        else:
            self._choices[-1] = run.choice.model_copy(update={"outcome": outcome})
        run.choice = None

    def _watch(self, ph: Phase, vessel: str) -> str:
        """Wait and read the thermometer until the target state shows (done) or the temperature stalls."""
        readings: list[float] = []
        waits = self.config.max_heat_waits if ph.direction == "heat" else self.config.max_cool_waits
        for _ in range(waits):
            if self._current_state(vessel) == ph.target:
                return "done"
            self._skill("sw_wait")
            if self._current_state(vessel) == ph.target:
                return "done"
            t = self._measure(vessel)
            if t is not None:
                readings.append(t)
            if stalled(readings, ph):
                return "too weak"
        return "too weak"


__all__ = ["SciWorldAgent"]
