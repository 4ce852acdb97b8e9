"""The pure scene planner: (task, perceived SceneState) -> Plan, with no simulator in sight.

For each role the task needs (a COAT utility: "serving cake" needs something to cut and something to
carry) it gathers the scene objects of that utility, lets a decision pipeline pick one (stage 1: which
objects suit the task; stage 2: which concrete instance given the five variables), decides again among
the usable objects when the pick is broken or used up, and adds the steps that make the object ready
and use it. :func:`planner.api.plan` is the composition root that observes a scene and calls this.

Example:
    >>> from planner.scene_planner import plan_in_state        # doctest: +SKIP
    >>> plan_in_state("cut cake", state, llm=None).choices[0]  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .arguments import check_plan_args, check_type, load_kb, make_backend, shown
from .errors import ConfigError
from .fits import LIQUID_SOURCE_WORDS, has_liquid_source, misfits, no_fit, placements, vessel_for
from .knowledge import KnowledgeBase, TaskMatch, resolve_task
from .knowledge.task_specs import TASK_TARGETS, build_spec, coat_spec
from .pipeline import make_pipeline
from .role_choice import Draft, fill_role
from .schemas import (
    GoalCondition,
    ObjectChoice,
    Plan,
    Role,
    SceneState,
    SkillCall,
    TaskReading,
    TaskSpec,
    canonical_object_name,
    thor_object_name,
)
from .schemas.thor_rules import piece_type
from .steps import Affordances, plan_steps
from .understanding import TaskReader
from .understanding.embeddings import READER_ENV
from .understanding.reader import exact_reading

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .llm import LLMBackend
    from .pipeline import DecisionPipeline

logger = logging.getLogger(__name__)

Interpret = Literal["exact", "nearest", "model"]
"""How a task that is not a COAT task is decided once it is read (:mod:`planner.understanding`): ``nearest``
(each role borrows the annotations of the closest COAT task of its utility, the default) or ``exact`` (the
request's own words go to the model or learned strategy; COAT is silent on them). ``model``: the generating
model ``llm`` parses the text into roles and targets (structured output, re-asked on validation errors), and
the roles borrow as with ``nearest``."""
MIN_NEAREST_SCORE = 0.3
"""Lowest task-match score at which ``interpret="nearest"`` borrows a COAT task's annotations."""
def roles_for(task: str, kb: KnowledgeBase, *, utility: str | None = None) -> tuple[list[TaskMatch], bool]:
    """The (utility, task) roles a task needs, and whether they are exact COAT annotations.

    An annotated task may need several utilities ("serving cake": cutting and carrying). A free-text task
    gets its best-matching utility. ``utility`` forces the utility.
    """
    matches = resolve_task(task, kb)
    if utility is not None:
        utility = kb.resolve_utility(utility)
        same = [m for m in matches if m.utility == utility]
        if same and same[0].exact:
            return same[:1], True
        if not kb.is_annotated(utility, task):
            best = same[0] if same else None
            return [TaskMatch(query=task, utility=utility, task=best.task if best else None,
                              score=best.score if best else 0.0)], False
        return [TaskMatch(query=task, utility=utility, task=task, score=1.0, exact=True, method="exact")], True
    if not matches:
        raise ConfigError(f"empty task {task!r}: describe what the robot should do, e.g. 'cut cake'")
    if matches[0].exact:
        return [m for m in matches if m.exact], True
    return matches[:1], False


def read_task(task: str, kb: KnowledgeBase, *, utility: str | None = None,
              interpret: Interpret = "nearest", llm: LLMBackend | None = None) -> TaskReading:
    """How ``task`` is read: a COAT task's spec, the offline reader's spec, or "not understood".

    A COAT task gets its library spec (:func:`planner.knowledge.task_specs.coat_spec`); ``utility`` forces one
    role (the task's targets kept); other text goes to :class:`planner.understanding.TaskReader`, or with
    ``interpret="model"`` to ``llm``, its reply decoded under a JSON schema
    (:func:`planner.understanding.model_reader.read_with_model`).

    Raises:
        ConfigError: ``interpret="model"`` without a model.
    """
    if utility is not None:
        return _forced(task, kb, utility, interpret)
    exact = exact_reading(task, kb)
    if exact is not None:
        return exact  # a COAT task: no reader (nor its encoder) is needed
    reader = reader_for(kb)
    if interpret == "model":
        if llm is None:
            raise ConfigError("interpret='model' needs a generating model: pass llm= (e.g. 'local', "
                              "'served:<base_url>', 'openai:<model>')")
        from .understanding.model_reader import read_with_model  # the offline reader's gates first, then the model

        return read_with_model(task, llm, reader)
    return reader.read(task, borrow=interpret == "nearest")


def _forced(task: str, kb: KnowledgeBase, utility: str, interpret: Interpret) -> TaskReading:
    roles, exact = roles_for(task, kb, utility=utility)
    if exact:
        spec = coat_spec(roles[0].task or task, kb)
        keep = [r for r in spec.roles if r.utility == roles[0].utility]
        spec = build_spec(spec.task, keep, [t for t in spec.targets if t.name != "place"], note=spec.note)
        return TaskReading(text=task, understood=True, confidence=1.0, spec=spec, method="exact")
    notes: list[str] = [f"utility {utility!r} forced by the caller"]
    spec_roles = [Role(name=m.utility, utility=m.utility, task=_reading(task, m, interpret, notes)) for m in roles]
    base = reader_for(kb).read(task, borrow=False)
    targets = list(base.spec.targets) if base.spec is not None else []
    note = "" if targets else "not a COAT task and no target named: the chosen object is brought"
    # the caller chose the role, so the reading stands whatever the reader's own confidence in the text
    return TaskReading(text=task, understood=True, confidence=1.0, spec=build_spec(task, spec_roles, targets,
                       note=note), method="given", evidence=tuple(notes))


_READERS: dict[tuple[int, str], tuple[KnowledgeBase, TaskReader]] = {}
_LEARNED: dict[tuple[int, str], tuple[KnowledgeBase, Any]] = {}


def _pipeline(planner: str, strategy: str, backend: LLMBackend | None, kb: KnowledgeBase,
              learned: Any) -> DecisionPipeline:
    """The decision pipeline of one role; a learned model is loaded once per directory and process."""
    if strategy != "learned":
        return make_pipeline(planner, strategy, backend, kb)
    if learned is not None and not isinstance(learned, (str, os.PathLike)) and not (
            callable(getattr(learned, "suits", None)) and callable(getattr(learned, "rank", None))):
        raise TypeError(f"learned must be a trained model (planner.learned.load_learned), its directory or None, "
                        f"got {type(learned).__name__} {shown(learned)}")
    if learned is None or isinstance(learned, (str, os.PathLike)):
        from .learned import default_dir, load_learned
        from .learned.first_use import ensure_learned

        where = Path(learned or default_dir())
        stamp = (where / "manifest.json").stat().st_mtime_ns if (where / "manifest.json").is_file() else 0
        key = (id(kb), f"{where}@{stamp}")  # a directory `coat train` rewrote is loaded again
        got = _LEARNED.get(key)
        if got is None or got[0] is not kb:  # the default directory is trained on first use; a given one is not
            got = (kb, ensure_learned(kb) if learned is None else load_learned(kb, learned))
            _LEARNED[key] = got
        learned = got[1]
    return make_pipeline(planner, strategy, backend, kb, learned=learned)


def reader_for(kb: KnowledgeBase) -> TaskReader:
    """The task reader of ``kb`` (made once per knowledge base, ``COAT_READER`` setting and process: it embeds
    COAT's tasks and the worked examples once)."""
    key = (id(kb), os.environ.get(READER_ENV, ""))
    got = _READERS.get(key)
    if got is None or got[0] is not kb:
        got = (kb, TaskReader(kb))
        _READERS[key] = got
    return got[1]


def plan_in_state(
    task: str | TaskSpec,
    state: SceneState,
    *,
    llm: LLMBackend | BaseChatModel | str | None = None,
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge", "learned"] = "hybrid",
    utility: str | None = None,
    interpret: Interpret = "nearest",
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
    affordances: Affordances | None = None,
    exclude: Mapping[str, str] | None = None,
    fixed: Mapping[str, str] | None = None,
    met: Collection[GoalCondition] = (),
    learned: Any = None,
) -> Plan:
    """Choose the object for every role of ``task`` among ``state``'s objects, bind its targets, write the steps.

    Args:
        task: A task text (see :func:`planner.api.plan`) or a ready :class:`~planner.schemas.TaskSpec`.
        llm: As for :func:`planner.api.plan`: None, a model spec, a langchain chat model or a backend.
        affordances: What each object affords (:func:`planner.steps.affordances_of` of the observation); without
            it the steps open and close nothing themselves.
        exclude: Object id -> why it may not be chosen (found broken, taken, faulty while executing).
        fixed: Bindings to keep as they are (re-planning decides again only the roles not listed).
        met: Goal conditions that already hold (their steps are left out).
        learned: For ``strategy="learned"``: a trained model (:func:`planner.learned.load_learned`) or its
            directory (default: where ``coat train`` writes, in the user cache).

    Raises:
        TypeError: an argument of the wrong type (a task that is not a str or TaskSpec, a state that is not a
            SceneState, an llm without the LLMBackend members, ...).
        ConfigError: bad arguments (an empty or overlong task, unknown planner/strategy/utility, a strategy that
            needs a model without one).
    """
    check_plan_args(task, llm=llm, planner=planner, strategy=strategy, utility=utility, interpret=interpret,
                    kb=kb, data_dir=data_dir)
    _check_state_args(state, affordances=affordances, exclude=exclude, fixed=fixed)
    kb = load_kb(kb, data_dir)
    backend = make_backend(llm) if strategy != "knowledge" or interpret == "model" else None
    if isinstance(task, TaskSpec):
        reading = TaskReading(text=task.task, understood=True, confidence=1.0, spec=task, method="given")
    else:
        reading = read_task(task, kb, utility=utility, interpret=interpret, llm=backend)
    if strategy == "knowledge":
        backend = None
    if not reading.understood or reading.spec is None:
        return _not_understood(reading, state)
    spec, exact = reading.spec, reading.method in ("exact", "given")
    role_strategy = "knowledge" if strategy == "hybrid" and backend is None else strategy
    pipe = _pipeline(planner, role_strategy, backend, kb, learned)
    avoid = dict(exclude or {})
    tried: list[str] = []
    for attempt in range(MAX_PARTNER_TRIES + 1):
        # stage 1 speaks for the people only with the task's own annotations: a request read by its nearest COAT
        # task borrows another task's, so there its refusal does not rule a substitute out
        draft = Draft(notes=(list(reading.evidence) if reading.method == "reader" else []) + tried,
                       judged=spec.named_roles() if exact else frozenset())
        bindings = {**_bind_targets(spec, state, draft, kb, skip=set(fixed or {}), sources=affordances,
                                    exclude=set(avoid)), **dict(fixed or {})}
        _check_target_places(spec, bindings, state, kb, draft)
        for role in sorted(spec.roles, key=lambda r: not r.types):  # the roles the task names a type for first
            if role.name in bindings:
                continue
            typed = bool(role.types) and interpret == "nearest"  # AI2-THOR names the tools (a knife slices)
            if (role_strategy == "knowledge" and not exact and not typed
                    and not (role.task and kb.is_annotated(role.utility, role.task))):
                raise ConfigError(
                    f"strategy 'knowledge' needs COAT's annotations for role {role.name!r} of {spec.task!r}, and it "
                    f"has none: with interpret='exact', or a forced utility whose nearest COAT task scores below "
                    f"{MIN_NEAREST_SCORE}, the request's own words must go to a model. Use interpret='nearest', "
                    "strategy='hybrid' with a model, or one of the COAT tasks (`coat tasks` lists them)."
                )
            unfit = misfits(spec, role.name, bindings, state, kb)
            task = role.task or (None if exact or typed else spec.task)
            found = fill_role(role, task, state, kb, set(bindings.values()), set(avoid) | set(unfit), pipe, draft,
                               affordances=affordances, unfit=unfit)
            if found is not None:
                rec, decision = found
                bindings[role.name] = rec.object_id
                draft.choices.append(ObjectChoice(object_id=rec.object_id,
                                                  rationale=f"{role.name}: {decision.reason}"))
        wider = _with_vessel(spec, bindings, state, kb, draft, dict(avoid), pipe, affordances)
        partner = _partner_to_decide_again(wider, bindings, fixed or {})
        if partner is None or attempt == MAX_PARTNER_TRIES:
            spec = wider
            break
        # nothing serves a role beside what its partner took (no pan or pot for the burner chosen for an egg):
        # decide the partner again without that object (the microwave, with a bowl)
        role_name, gone = partner
        avoid[bindings[gone]] = f"nothing here serves as {role_name} with it"
        tried.append(f"{gone}: {bindings[gone]} decided again, nothing here serves as {role_name} with it")
    feasible = draft.feasible and all(r.name in bindings for r in spec.roles)
    if affordances is not None:
        spec = _fit_goals(spec, bindings, affordances)
    steps: list[SkillCall] = []
    if feasible:
        prep = {r.name: _prepare_args(state, bindings[r.name], kb, r) for r in spec.roles}
        steps = plan_steps(spec, bindings, affordances or {}, met=met, prepare_args=prep)
    return Plan(
        task=spec.task,
        utility=spec.roles[0].utility if spec.roles else None,
        steps=tuple(steps),
        choices=tuple(draft.choices),
        feasible=feasible,
        reason="; ".join(dict.fromkeys(draft.notes + ([spec.note] if spec.note else []))),
        decisions=tuple(draft.decisions),
        considered=tuple(draft.considered),
        scene_id=state.scene_id,
        spec=spec,
        bindings=bindings,
        alternatives=tuple(draft.alternatives),
        reading=reading.model_copy(update={"spec": None}) if reading.method != "given" else None,
    )


def _not_understood(reading: TaskReading, state: SceneState) -> Plan:
    """The plan of a task that was not understood: nothing decided, the closest known tasks offered."""
    closest = ", ".join(repr(t) for t in reading.closest)
    reason = f"{reading.reason}; closest known tasks: {closest}" if closest else reading.reason
    return Plan(task=reading.text, feasible=False, reason=reason, scene_id=state.scene_id,
                alternatives=reading.closest, reading=reading)


def _check_state_args(state: Any, **mappings: Any) -> None:
    """The state is a SceneState; ``affordances`` / ``exclude`` / ``fixed`` are mappings or None."""
    check_type("state", state, SceneState, "a planner.schemas.SceneState")
    for name, value in mappings.items():
        if value is not None:
            check_type(name, value, Mapping, "a mapping of object ids or None")


def _fit_goals(spec: TaskSpec, bindings: Mapping[str, str], affordances: Affordances) -> TaskSpec:
    """Fit "switched on" goals to the chosen object: opened when it opens instead (blinds), reached otherwise.

    COAT's light sources include windows, blinds and curtains next to lamps; what the task can check depends on
    which one was chosen.
    """
    goals = []
    for g in spec.goals:
        oid = bindings.get(g.item)
        if g.prop == "isToggled" and g.value is True and oid and "toggleable" not in affordances.get(oid, ()):
            if "openable" in affordances.get(oid, ()):
                g = g.model_copy(update={"prop": "isOpen", "description": g.text().replace(" is on", " is open")})
            else:
                g = GoalCondition(item=g.item, relation="close_to", other="agent", distance=1.5,
                                  description=f"the {g.item} object is reached (it cannot be switched)")
        goals.append(g)
    return spec if goals == list(spec.goals) else spec.model_copy(update={"goals": tuple(goals)})


def _bind_targets(spec: TaskSpec, state: SceneState, draft: Draft, kb: KnowledgeBase, *, skip: set[str],
                  sources: Affordances | None = None, exclude: Collection[str] = ()) -> dict[str, str]:
    """Bind each object target to a scene object of its types (liquids are held by a role's vessel).

    With ``sources`` (the state is a whole AI2-THOR scene: ``plan_in_state`` got its affordances), a liquid target
    needs a usable source the scene has (:func:`planner.fits.has_liquid_source`), else the plan is infeasible and
    says so."""
    out: dict[str, str] = {}
    for t in spec.targets:
        if sources is not None and t.liquid and not has_liquid_source(t.types[0], state, sources, exclude):
            draft.feasible = False
            draft.notes.append(f"no source of {t.types[0]} in scene {state.scene_id!r}: {LIQUID_SOURCE_WORDS}")
        if t.liquid or t.name in skip:
            continue
        wanted = {canonical_object_name(ty) for ty in t.types}
        found = [r for r in state.objects if r.category in wanted and r.object_id not in out.values()
                 and r.object_id not in exclude]  # found gone, broken or taken while executing
        # prefer an object that does not already meet the goal (a dirty plate for "washing dishes")
        found.sort(key=lambda r: (r.state.condition.value != "dirty", r.state.unusable_reason() != ""))
        if found:
            out[t.name] = found[0].object_id
            continue
        draft.feasible = False
        draft.notes.append(f"no {' or '.join(t.types)} in scene {state.scene_id!r} to act on ({t.name})")
        draft.alternatives += _tasks_with_targets_here(spec, state, kb)
    return out


def _check_target_places(spec: TaskSpec, bindings: Mapping[str, str], state: SceneState, kb: KnowledgeBase,
                         draft: Draft) -> None:
    """A target put in / on another target (a place COAT gives no utility: "the towel in the bathtub") must fit
    there by AI2-THOR's compatible receptacles; if not, the plan is infeasible and says why."""
    from .knowledge.alfred import compatible_receptacles

    targets = {t.name for t in spec.targets if not t.liquid}
    sliced = {t.name for t in spec.targets if t.sliced}  # the pieces are what is put there
    compat = compatible_receptacles(str(kb.root))
    by_id = {r.object_id: r for r in state.objects}
    here = sorted({thor_object_name(r.category) for r in state.objects})
    for g in spec.goals:
        if g.relation != "contained_in" or g.item not in targets or g.other not in targets:
            continue
        thing, place = by_id.get(bindings.get(g.item, "")), by_id.get(bindings.get(g.other or "", ""))
        if thing is None or place is None:
            continue
        t, p = thor_object_name(thing.category), thor_object_name(place.category)
        t = piece_type(t) if g.item in sliced else t
        if t in compat and p not in compat[t]:
            draft.feasible = False
            draft.notes.append(no_fit(t, p, compat, here))


MAX_PARTNER_TRIES = 3
"""How often a role's partner is decided again when nothing serves the role beside the partner's object."""


def _partner_to_decide_again(spec: TaskSpec, bindings: Mapping[str, str], fixed: Mapping[str, str]
                             ) -> tuple[str, str] | None:
    """(an unbound role, a bound role it is put in / on or receives) when deciding the second again could help."""
    unbound = [r.name for r in spec.roles if r.name not in bindings]
    for name in unbound:
        for pair in placements(spec):
            if name in pair:
                other = pair[0] if pair[1] == name else pair[1]
                if other in bindings and other not in fixed and spec.role(other) is not None:
                    return name, other
    return None


MAX_SOURCE_TRIES = 4
"""Heat sources tried in turn when the chosen one takes the target only in a vessel and no vessel here fits."""


def _with_vessel(spec: TaskSpec, bindings: dict[str, str], state: SceneState, kb: KnowledgeBase, draft: Draft,
                 exclude: dict[str, str], pipe: DecisionPipeline, affordances: Affordances | None) -> TaskSpec:
    """:func:`_add_vessel`; when no vessel fits the chosen heat source, the source is decided again without it (the
    egg goes to the microwave in a bowl when no pan or pot is usable), up to :data:`MAX_SOURCE_TRIES` times."""
    role = spec.role("heating(source)")
    for _ in range(MAX_SOURCE_TRIES):
        wider = _add_vessel(spec, bindings, state, kb, draft, exclude, pipe, affordances)
        if wider is not None:
            return wider
        source = bindings.pop("heating(source)")
        exclude[source] = "no vessel here takes the target to it"
        draft.notes.append(f"heating(source): {source} takes the target only in a vessel and none here fits")
        if role is None:
            break
        unfit = misfits(spec, role.name, bindings, state, kb)
        found = fill_role(role, role.task, state, kb, set(bindings.values()), set(exclude) | set(unfit), pipe,
                           draft, affordances=affordances, unfit=unfit)
        if found is None:
            return spec
        bindings[role.name] = found[0].object_id
        draft.choices.append(ObjectChoice(object_id=found[0].object_id, rationale=f"{role.name}: decided again"))
    draft.feasible = False
    return spec


def _add_vessel(spec: TaskSpec, bindings: dict[str, str], state: SceneState, kb: KnowledgeBase, draft: Draft,
                exclude: Mapping[str, str] | None, pipe: DecisionPipeline,
                affordances: Affordances | None) -> TaskSpec | None:
    """A heat source chosen for a target it takes only in a vessel (an egg on a burner: AI2-THOR's table has the
    egg in a pan, the pan on the burner) gets a ``heating(vessel)`` role, decided like the others (``bindings`` is
    extended in place); the spec with it, or unchanged when no vessel is needed, or None when no vessel here takes
    the target to that source (the source must be decided again)."""
    from .knowledge.alfred import compatible_receptacles

    source, target = bindings.get("heating(source)"), bindings.get("target")
    if source is None or target is None or spec.role("heating(vessel)") is not None:
        return spec
    by_id = {r.object_id: r for r in state.objects}
    src = by_id.get(source)
    tgt = by_id.get(target) or next((r for r in state.objects if r.object_id.startswith(target + "|")), None)
    if src is None or tgt is None:
        return spec
    thing = thor_object_name(tgt.category)
    if any(t.sliced and t.name == "target" for t in spec.targets) and tgt.object_id == target:
        thing = piece_type(thing)
    here = sorted({thor_object_name(r.category) for r in state.objects})
    compat = compatible_receptacles(str(kb.root))
    if thing not in compat or vessel_for(thing, thor_object_name(src.category), here, str(kb.root)) is None:
        return spec
    task = (spec.role("heating(source)") or Role(name="x", utility="x")).task
    task = task if task and kb.is_annotated("heating(vessel)", task) else None  # the source's COAT task, if annotated
    role = Role(name="heating(vessel)", utility="heating(vessel)", task=task, needs=("receptacle",))
    wider = spec.model_copy(update={"roles": (*spec.roles, role)})
    unfit = misfits(wider, role.name, bindings, state, kb)
    trial = Draft()
    found = fill_role(role, task, state, kb, set(bindings.values()), set(exclude or {}) | set(unfit), pipe, trial,
                       affordances=affordances, unfit=unfit)
    if found is None:
        return None  # no vessel here takes it to this source: the caller decides the source again without it
    bindings[role.name] = found[0].object_id
    draft.decisions += trial.decisions
    draft.considered += trial.considered
    draft.choices.append(ObjectChoice(object_id=found[0].object_id,
                                      rationale=f"{role.name}: {source} takes {thing} only in a vessel"))
    return wider


def _tasks_with_targets_here(spec: TaskSpec, state: SceneState, kb: KnowledgeBase, n: int = 3) -> list[str]:
    """COAT tasks for the same utilities whose targets this scene has (what could be done instead)."""
    here = {r.category for r in state.objects}
    out: list[str] = []
    for u in dict.fromkeys(r.utility for r in spec.roles):
        for task in kb.tasks(u) if u in kb.utilities else ():
            solid = [t for t in TASK_TARGETS.get(task, ((), (), ""))[0] if not t.liquid]
            present = all(any(canonical_object_name(ty) in here for ty in t.types) for t in solid)
            if task != spec.task and solid and present and task not in out:
                out.append(task)
    return [f"task {t!r}: its targets are in this scene" for t in out[:n]]


def _reading(task: str, role: TaskMatch, interpret: Interpret, notes: list[str]) -> str:
    """The task text the pipeline decides for a task COAT does not annotate, with a note saying why."""
    if interpret == "nearest" and role.task and role.score >= MIN_NEAREST_SCORE:
        notes.append(f"interpreted {task!r} as COAT task {role.task!r} ({role.utility})")
        return role.task
    notes.append(f"{task!r} is not a COAT task; utility {role.utility!r} inferred "
                 f"(nearest COAT task {role.task!r}, score {role.score:.2f})")
    return task


def _prepare_args(state: SceneState, object_id: str, kb: KnowledgeBase, role: Role) -> dict[str, Any]:
    """Ask ``prepare`` to bring the object to the temperature COAT's ideal configurations want."""
    rec = next((r for r in state.objects if r.object_id == object_id), None)
    if rec is None or role.task is None or not kb.is_annotated(role.utility, role.task):
        return {}
    temps = {c.state.temperature.value for c in kb.ideal(role.utility, role.task) if c.object == rec.category}
    if len(temps) == 1 and rec.state.temperature.value not in temps:
        return {"temperature": temps.pop()}
    return {}


__all__ = [
    "MIN_NEAREST_SCORE", "Interpret", "plan_in_state", "read_task", "reader_for", "roles_for",
]
