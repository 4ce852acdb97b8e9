"""The planner: one object built from one frozen config, and a plan as named stages.

``Planner(config).plan(task, state)`` runs::

    read     task text -> TaskReading          (a COAT task's spec, the offline reader's, or "not understood")
    decide   TaskReading + World -> Assignment  (targets bound, each role decided by the pipeline, a vessel
                                                 fitted, a partner decided again when nothing serves beside it)
    steps    Assignment + World -> Plan         (goals fitted to the chosen objects, the skill calls written)

Binding is not a stage after deciding: a role's fit depends on the bound targets (the pan must take the egg), and
a vessel or a partner decided again changes the bindings, so :meth:`Planner.decide` runs bind -> decide -> bind
(:meth:`~Planner._bind_targets`, :meth:`~Planner._decide_roles`, :func:`~planner.binding.with_vessel`) per attempt.

Each stage is a method that can be called on its own, and what passes between them is frozen: the
:class:`~planner.schemas.TaskReading`, the :class:`Assignment`, the :class:`~planner.schemas.Plan`. What stays the
same from one task to the next lives in the :class:`~planner.config.PlannerConfig` (pipeline, strategy, how free
text is decided, the model, the data, the process settings); what is true of the world at this call (the scene,
what affords what, objects excluded or kept, goals already met) is the :class:`World`.

Example:
    >>> from planner.config import PlannerConfig                                   # doctest: +SKIP
    >>> planner = Planner(PlannerConfig(strategy="knowledge"))                      # doctest: +SKIP
    >>> reading = planner.read("cut cake")                                          # doctest: +SKIP
    >>> chosen = planner.decide(reading, World(state=state))                        # doctest: +SKIP
    >>> planner.steps(reading, chosen, World(state=state)).steps[0]                 # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .arguments import check_llm, check_task, check_type, load_kb, make_backend, shown
from .binding import (
    MAX_PARTNER_TRIES,
    bind_targets,
    check_target_places,
    fitted_prop,
    made_here,
    partner_to_decide_again,
    with_vessel,
)
from .config import PlannerConfig, use_settings
from .errors import ConfigError
from .fits import misfits
from .knowledge.task_specs import STATE_WORDS
from .multiples import expand_targets
from .pipeline import make_pipeline
from .role_choice import Draft, fill_role
from .scene_planner import MIN_NEAREST_SCORE, read_task, reader_for
from .schemas import (
    Decision,
    GoalCondition,
    ObjectChoice,
    Plan,
    Role,
    SceneState,
    SkillCall,
    TaskReading,
    TaskSpec,
)
from .schemas.core import Contract
from .steps import SWITCHABLE, Affordances, plan_steps

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend
    from .pipeline import DecisionPipeline
    from .understanding import TaskReader


@dataclass(frozen=True)
class World:
    """What is true of the world at one call, as the caller gave it (checked by :meth:`Planner.plan`).

    Attributes:
        state: The perceived scene.
        affordances: What each object affords (:func:`planner.steps.affordances_of` of the observation); None: the
            steps open and close nothing themselves, and a liquid's source is not checked.
        exclude: Object id -> why it may not be chosen (found broken, taken, faulty while executing).
        fixed: Bindings to keep as they are (re-planning decides again only the roles not listed).
        met: Goal conditions that already hold (their steps are left out).
    """

    state: SceneState
    affordances: Affordances | None = None
    exclude: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, str] = field(default_factory=dict)
    met: Collection[GoalCondition] = ()

    def __post_init__(self) -> None:  # read-only copies: a stage never changes what the caller passed
        object.__setattr__(self, "exclude", MappingProxyType(dict(self.exclude or {})))
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed or {})))


class Assignment(Contract):
    """What the decide stage hands the steps stage: the objects chosen for a task, and how they were chosen.

    Attributes:
        spec: The task's spec, with a ``heating(vessel)`` role when the heat source takes the target only in one.
        bindings: Role and target names -> object ids.
        feasible: Every role is bound and nothing ruled the task out.
        choices: One per decided role, with its rationale.
        decisions: Each role's full Decision; ``considered`` the object ids behind its labels.
        notes: Why something could not be chosen, what was decided again, the reading's evidence.
        alternatives: When infeasible, what could be done instead.
    """

    spec: TaskSpec
    bindings: dict[str, str]
    feasible: bool
    choices: tuple[ObjectChoice, ...] = ()
    decisions: tuple[Decision, ...] = ()
    considered: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()


_LEARNED: dict[tuple[int, str], tuple[KnowledgeBase, Any]] = {}


class Planner:
    """(task, SceneState) -> Plan, through read -> decide -> steps, built once from a :class:`PlannerConfig`.

    It owns the knowledge base, the model backend and the task reader (shared by every planner of the same
    knowledge base and reader setting: it embeds COAT's tasks once). The decision pipeline is made afresh for each
    plan, so no plan depends on an earlier one. Every stage runs under the config's settings
    (:func:`planner.config.use_settings`), so the reader, its caches and the encoder follow the config, not the
    environment.

    Args:
        config: What the planner keeps between tasks (default: ``PlannerConfig()``).
        kb: A loaded knowledge base (default: ``load_knowledge(config.data_dir)``).
        llm: A model object (a langchain chat model or an LLMBackend) used instead of ``config.llm``.
        learned: For ``strategy="learned"``: a trained model (:func:`planner.learned.load_learned`) used instead of
            ``config.learned``.

    Raises:
        TypeError: a config that is not a PlannerConfig, an llm without the LLMBackend members, ...
        ConfigError: ``kb`` loaded from another directory than ``config.data_dir``; a bad model spec.
    """

    def __init__(self, config: PlannerConfig | None = None, *, kb: KnowledgeBase | None = None,
                 llm: LLMBackend | BaseChatModel | None = None, learned: Any = None) -> None:
        self.config = PlannerConfig() if config is None else config
        check_type("config", self.config, PlannerConfig, "a planner.config.PlannerConfig")
        check_llm(llm)
        with use_settings(self.config.settings):
            self.kb = load_kb(kb, self.config.data_dir)
            needs_model = self.config.strategy != "knowledge" or self.config.interpret == "model"
            model = llm if llm is not None else self.config.llm
            self.llm: LLMBackend | None = make_backend(model) if needs_model else None
        self.learned = learned if learned is not None else self.config.learned

    def __repr__(self) -> str:
        return f"Planner({self.config!r})"

    @property
    def reader(self) -> TaskReader:
        """The task reader of this planner's knowledge base and reader setting (made on first use)."""
        with use_settings(self.config.settings):
            return reader_for(self.kb, self.config.settings.reader)

    @property
    def deciding_llm(self) -> LLMBackend | None:
        """The model the roles are decided with (None with ``strategy="knowledge"``: it only reads)."""
        return None if self.config.strategy == "knowledge" else self.llm

    def plan(self, task: str | TaskSpec, state: SceneState, *, utility: str | None = None,
             affordances: Affordances | None = None, exclude: Mapping[str, str] | None = None,
             fixed: Mapping[str, str] | None = None, met: Collection[GoalCondition] = ()) -> Plan:
        """Choose the object for every role of ``task`` among ``state``'s objects, bind its targets, write the steps.

        Args:
            task: A task text (see :func:`planner.api.plan`) or a ready :class:`~planner.schemas.TaskSpec`.
            state: The perceived scene.
            utility: Force the utility (one of COAT's 22) instead of inferring it from the task.
            affordances, exclude, fixed, met: The :class:`World` of this call.

        Raises:
            TypeError: a task that is not a str or TaskSpec, a state that is not a SceneState, ...
            ConfigError: an empty or overlong task, an unknown utility, a strategy that needs a model without one.
        """
        check_task(task)
        if utility is not None:
            check_type("utility", utility, str, "one of COAT's utilities (e.g. 'cutting') or None")
        world = self.world(state, affordances=affordances, exclude=exclude, fixed=fixed, met=met)
        with use_settings(self.config.settings):
            reading = self.read(task, utility=utility)
            if not reading.understood or reading.spec is None:
                return not_understood(reading, state)
            chosen = self.decide(reading, world)
            return self.steps(reading, chosen, world)

    @staticmethod
    def world(state: SceneState, *, affordances: Affordances | None = None, exclude: Mapping[str, str] | None = None,
              fixed: Mapping[str, str] | None = None, met: Collection[GoalCondition] = ()) -> World:
        """The :class:`World` of one call, its arguments checked.

        Raises:
            TypeError: a state that is not a SceneState; ``affordances`` / ``exclude`` / ``fixed`` not mappings.
        """
        check_state_args(state, affordances=affordances, exclude=exclude, fixed=fixed)
        return World(state=state, affordances=affordances, exclude=exclude or {}, fixed=fixed or {}, met=met)

    # -- read

    def read(self, task: str | TaskSpec, *, utility: str | None = None) -> TaskReading:
        """The read stage: a TaskSpec as given, a COAT task's spec, the reader's reading, or "not understood".

        Raises:
            ConfigError: ``interpret="model"`` without a model; an unknown utility.
        """
        if isinstance(task, TaskSpec):
            return TaskReading(text=task.task, understood=True, confidence=1.0, spec=task, method="given")
        with use_settings(self.config.settings):
            return read_task(task, self.kb, utility=utility, interpret=self.config.interpret, llm=self.llm)

    # -- decide

    def decide(self, reading: TaskReading, world: World) -> Assignment:
        """The decide stage: every target and role of the reading's spec bound to an object of ``world``.

        Targets first (a role's fit depends on them: the pan must take the egg), then each role by the pipeline, then
        a vessel for a heat source that takes the target only in one. When nothing serves a role beside what its
        partner took (no pan for the burner chosen for an egg), the partner is decided again without that object,
        at most :data:`~planner.binding.MAX_PARTNER_TRIES` times.

        Raises:
            ConfigError: the reading is not understood; strategy ``knowledge`` for a role COAT does not annotate.
        """
        if reading.spec is None:
            raise ConfigError(f"{reading.text!r} was not understood ({reading.reason}): there is nothing to decide")
        spec = expand_targets(reading.spec, (o.category for o in world.state.objects))  # "two eggs": two targets
        if world.affordances is not None and reading.method not in ("exact", "given") and not _reheats(reading):
            spec = made_here(spec, world.state, world.affordances, self.kb)  # coffee to make: the coffee machine
        reading = reading.model_copy(update={"spec": spec}) if spec is not reading.spec else reading
        with use_settings(self.config.settings):
            pipe = self.pipeline()
            avoid = dict(world.exclude)
            tried: list[str] = []
            for attempt in range(MAX_PARTNER_TRIES + 1):
                draft = _draft(reading, tried)
                bindings = self._bind_targets(spec, world, draft, avoid)
                self._decide_roles(reading, bindings, world, draft, avoid, pipe)
                wider = with_vessel(spec, bindings, world.state, self.kb, draft, dict(avoid), pipe, world.affordances)
                partner = partner_to_decide_again(wider, bindings, world.fixed)
                if partner is None or attempt == MAX_PARTNER_TRIES:
                    break
                role_name, gone = partner
                avoid[bindings[gone]] = f"nothing here serves as {role_name} with it"
                tried.append(f"{gone}: {bindings[gone]} decided again, nothing here serves as {role_name} with it")
        return _assignment(wider, bindings, draft)

    def pipeline(self) -> DecisionPipeline:
        """The decision pipeline of the roles (hybrid without a model decides by COAT's annotations alone); a
        learned model is loaded once per directory and process, again when ``coat train`` rewrote it."""
        strategy = self.role_strategy
        if strategy != "learned":
            return make_pipeline(self.config.planner, strategy, self.deciding_llm, self.kb)
        return make_pipeline(self.config.planner, strategy, self.deciding_llm, self.kb, learned=self._learned_model())

    @property
    def role_strategy(self) -> str:
        """The strategy the roles are decided by: ``knowledge`` for ``hybrid`` without a model, else the config's."""
        return "knowledge" if self.config.strategy == "hybrid" and self.deciding_llm is None else self.config.strategy

    def _learned_model(self) -> Any:
        learned = self.learned
        if learned is not None and not isinstance(learned, (str, os.PathLike)) and not (
                callable(getattr(learned, "suits", None)) and callable(getattr(learned, "rank", None))):
            raise TypeError(f"learned must be a trained model (planner.learned.load_learned), its directory or None, "
                            f"got {type(learned).__name__} {shown(learned)}")
        if learned is not None and not isinstance(learned, (str, os.PathLike)):
            return learned
        from .learned import default_dir, load_learned
        from .learned.first_use import ensure_learned

        where = Path(learned or default_dir())
        stamp = (where / "manifest.json").stat().st_mtime_ns if (where / "manifest.json").is_file() else 0
        key = (id(self.kb), f"{where}@{stamp}")  # a directory `coat train` rewrote is loaded again
        got = _LEARNED.get(key)
        if got is None or got[0] is not self.kb:  # the default directory is trained on first use; a given one is not
            got = (self.kb, ensure_learned(self.kb) if learned is None else load_learned(self.kb, learned))
            _LEARNED[key] = got
        return got[1]

    def _bind_targets(self, spec: TaskSpec, world: World, draft: Draft, avoid: Mapping[str, str]) -> dict[str, str]:
        """The targets bound to scene objects (``world.fixed`` kept), checked to fit where the goals put them."""
        bindings = {**bind_targets(spec, world.state, draft, self.kb, skip=set(world.fixed),
                                   sources=world.affordances, exclude=set(avoid)), **dict(world.fixed)}
        check_target_places(spec, bindings, world.state, self.kb, draft)
        return bindings

    def _decide_roles(self, reading: TaskReading, bindings: dict[str, str], world: World, draft: Draft,
                      avoid: Mapping[str, str], pipe: DecisionPipeline) -> None:
        """Each role not bound yet decided by ``pipe`` (the roles the task names a type for first)."""
        spec, exact = reading.spec, reading.method in ("exact", "given")
        if spec is None:  # decide() refuses such a reading
            return
        for role in sorted(spec.roles, key=lambda r: not r.types):
            if role.name in bindings:
                continue
            typed = bool(role.types) and self.config.interpret == "nearest"  # AI2-THOR names the tools: a knife slices
            self._check_decidable(spec, role, exact=exact, typed=typed)
            unfit = misfits(spec, role.name, bindings, world.state, self.kb)
            task = role.task or (None if exact or typed else spec.task)
            found = fill_role(role, task, world.state, self.kb, set(bindings.values()), set(avoid) | set(unfit), pipe,
                              draft, affordances=world.affordances, unfit=unfit)
            if found is not None:
                rec, decision = found
                bindings[role.name] = rec.object_id
                draft.choices.append(ObjectChoice(object_id=rec.object_id, rationale=f"{role.name}: {decision.reason}"))

    def _check_decidable(self, spec: TaskSpec, role: Role, *, exact: bool, typed: bool) -> None:
        """Strategy ``knowledge`` decides only with COAT's annotations (or a type the task names)."""
        if (self.role_strategy == "knowledge" and not exact and not typed
                and not (role.task and self.kb.is_annotated(role.utility, role.task))):
            raise ConfigError(
                f"strategy 'knowledge' needs COAT's annotations for role {role.name!r} of {spec.task!r}, and it "
                f"has none: with interpret='exact', or a forced utility whose nearest COAT task scores below "
                f"{MIN_NEAREST_SCORE}, the request's own words must go to a model. Use interpret='nearest', "
                "strategy='hybrid' with a model, or one of the COAT tasks (`coat tasks` lists them)."
            )

    # -- steps

    def steps(self, reading: TaskReading, chosen: Assignment, world: World) -> Plan:
        """The steps stage: the goals fitted to the chosen objects, the skill calls that reach them, the Plan."""
        spec = not_brought_back(chosen.spec, chosen.bindings)
        spec = spec if world.affordances is None else fit_goals(spec, chosen.bindings, world.affordances)
        steps: list[SkillCall] = []
        if chosen.feasible:
            prep = {r.name: prepare_args(world.state, chosen.bindings[r.name], self.kb, r) for r in spec.roles}
            steps = plan_steps(spec, chosen.bindings, world.affordances or {}, met=world.met, prepare_args=prep)
        return Plan(
            task=spec.task,
            utility=spec.roles[0].utility if spec.roles else None,
            steps=tuple(steps),
            choices=chosen.choices,
            feasible=chosen.feasible,
            reason="; ".join(dict.fromkeys([*chosen.notes, *([spec.note] if spec.note else [])])),
            decisions=chosen.decisions,
            considered=chosen.considered,
            scene_id=world.state.scene_id,
            spec=spec,
            bindings=chosen.bindings,
            alternatives=chosen.alternatives,
            reading=reading.model_copy(update={"spec": None}) if reading.method != "given" else None,
        )


def _draft(reading: TaskReading, tried: list[str]) -> Draft:
    """A fresh draft: the reader's evidence and the partners decided again so far as its notes.

    Stage 1 speaks for the people only with the task's own annotations: a request read by its nearest COAT task
    borrows another task's, so there its refusal does not rule a substitute out.
    """
    spec = reading.spec
    exact = reading.method in ("exact", "given")
    return Draft(notes=(list(reading.evidence) if reading.method == "reader" else []) + tried,
                 judged=spec.named_roles() if exact and spec is not None else frozenset())


def _assignment(spec: TaskSpec, bindings: dict[str, str], draft: Draft) -> Assignment:
    """The draft, frozen: feasible only when every role of ``spec`` is bound."""
    feasible = draft.feasible and all(r.name in bindings for r in spec.roles)
    return Assignment(spec=spec, bindings=bindings, feasible=feasible,
                      choices=tuple(draft.choices), decisions=tuple(draft.decisions),
                      considered=tuple(draft.considered), notes=tuple(draft.notes),
                      alternatives=tuple(draft.alternatives))


def not_understood(reading: TaskReading, state: SceneState) -> Plan:
    """The plan of a task that was not understood: nothing decided, the closest known tasks offered."""
    closest = ", ".join(repr(t) for t in reading.closest)
    reason = f"{reading.reason}; closest known tasks: {closest}" if closest else reading.reason
    return Plan(task=reading.text, feasible=False, reason=reason, scene_id=state.scene_id,
                alternatives=reading.closest, reading=reading)


def check_state_args(state: Any, **mappings: Any) -> None:
    """The state is a SceneState; ``affordances`` / ``exclude`` / ``fixed`` are mappings or None."""
    check_type("state", state, SceneState, "a planner.schemas.SceneState")
    for name, value in mappings.items():
        if value is not None:
            check_type(name, value, Mapping, "a mapping of object ids or None")


def fit_goals(spec: TaskSpec, bindings: Mapping[str, str], affordances: Affordances) -> TaskSpec:
    """Fit switch and open goals to the chosen object: a "switched on" light source that opens instead (blinds) is
    opened, one that does neither is reached; a thing to close that switches instead ("close the tap") is switched
    off, and the other way round.

    COAT's light sources include windows, blinds and curtains next to lamps; what the task can check depends on
    which one was chosen.
    """
    goals = []
    for g in spec.goals:
        oid = bindings.get(g.item)
        aff = affordances.get(oid, ()) if oid else ()
        new = fitted_prop(g.prop, aff) if g.prop and oid else g.prop
        if new != g.prop:
            g = g.model_copy(update={"prop": new, "description": g.text().replace(
                f" is {STATE_WORDS[(g.prop, g.value)]}", f" is {STATE_WORDS[(new, g.value)]}")})
        elif g.prop == "isToggled" and g.value is True and oid and SWITCHABLE not in aff:  # a burner: by its knob
            g = GoalCondition(item=g.item, relation="close_to", other="agent", distance=1.5,
                              description=f"the {g.item} object is reached (it cannot be switched)")
        goals.append(g)
    return spec if goals == list(spec.goals) else spec.model_copy(update={"goals": tuple(goals)})


def _reheats(reading: TaskReading) -> bool:
    """The request heats what it names ("heat my coffee up", "my coffee's gone cold"): the liquid is there to be
    heated, not made (a verb whose frame is a heat source)."""
    from .understanding.frames import FRAMES, clauses

    return any("heating(source)" in FRAMES.get(c.verb, ()) for c in clauses(reading.text))


def not_brought_back(spec: TaskSpec, bindings: Mapping[str, str]) -> TaskSpec:
    """Without the goals that bring a role's object to the robot when that object is one the task puts somewhere
    ("move the candle to the dresser" read a decoration role too, filled by the candle): bringing it would take it
    back out of its place."""
    placed = {bindings[g.item] for g in spec.goals if g.relation == "contained_in" and g.item in bindings}
    goals = tuple(g for g in spec.goals if not (g.relation == "close_to" and g.other == "agent"
                                                 and spec.role(g.item) is not None and bindings.get(g.item) in placed))
    return spec if len(goals) == len(spec.goals) else spec.model_copy(update={"goals": goals})


def prepare_args(state: SceneState, object_id: str, kb: KnowledgeBase, role: Role) -> dict[str, Any]:
    """Ask ``prepare`` to bring the object to the temperature COAT's ideal configurations want."""
    rec = next((r for r in state.objects if r.object_id == object_id), None)
    if rec is None or role.task is None or not kb.is_annotated(role.utility, role.task):
        return {}
    temps = {c.state.temperature.value for c in kb.ideal(role.utility, role.task) if c.object == rec.category}
    if len(temps) == 1 and rec.state.temperature.value not in temps:
        return {"temperature": temps.pop()}
    return {}


__all__ = ["Assignment", "Planner", "PlannerConfig", "World", "fit_goals", "not_understood", "prepare_args"]
