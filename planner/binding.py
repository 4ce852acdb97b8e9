"""The bind stage's rules: which scene object each target of a task is, whether the targets fit together, when a
heat source needs a vessel, and when a role's partner must be decided again.

:class:`planner.planning.Planner` calls these around deciding the roles: the targets are bound first (a role's
fit depends on them: the pan must take the egg), a heat source that takes the target only in a vessel gets a
``heating(vessel)`` role (:func:`with_vessel`), and when nothing serves a role beside what its partner took the
partner is decided again without it (:func:`partner_to_decide_again`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

from .fits import LIQUID_SOURCE_WORDS, LIQUID_SOURCES, has_liquid_source, misfits, no_fit, placements, vessel_for
from .knowledge import KnowledgeBase
from .knowledge.task_specs import STATE_WORDS, TASK_TARGETS
from .pipeline import DecisionPipeline
from .role_choice import Draft, fill_role
from .schemas import (
    GoalCondition,
    ObjectChoice,
    ObjectRecord,
    Role,
    SceneState,
    TaskSpec,
    canonical_object_name,
    thor_object_name,
)
from .schemas.thor_rules import piece_type
from .steps import Affordances

_SWAPPED = {"isToggled": ("toggleable", "openable", "isOpen"), "isOpen": ("openable", "toggleable", "isToggled")}
"""A switch or open state -> (the affordance it needs, the other one, the other state)."""


def fitted_prop(prop: str, affords: Collection[str]) -> str:
    """The state a switch or open goal sets on an object that affords ``affords``: the other one when the object
    cannot do this one but can the other (a tap is closed by switching it off, blinds are switched on by opening
    them); a thing that does both (a laptop) is opened when asked to open."""
    need, other, swapped = _SWAPPED.get(prop, (prop, "", prop))
    return swapped if need not in affords and other in affords else prop


def kind_of(name: str, general: str) -> bool:
    """Whether the AI2-THOR type ``name`` is a kind of the one-word type ``general``: its last word
    (``SoapBottle``, ``WineBottle`` are bottles; ``ButterKnife`` a knife; ``HandTowel`` a towel). AI2-THOR names a
    special kind by a word before the general one."""
    words = re.findall(r"[A-Z][a-z]*", name)
    return len(words) > 1 and words[-1] == general and re.fullmatch(r"[A-Z][a-z]+", general) is not None


def _already(r: ObjectRecord, goals: Sequence[GoalCondition], sources: Affordances | None) -> bool:
    """Whether the object is already in the state each switch or open goal sets (as the observation says)."""
    affords = sources.get(r.object_id, frozenset()) if sources is not None else None
    return bool(goals) and affords is not None and all(
        (f"is:{fitted_prop(g.prop, affords)}" in affords) == g.value for g in goals if g.prop)


def bind_targets(spec: TaskSpec, state: SceneState, draft: Draft, kb: KnowledgeBase, *, skip: set[str],
                 sources: Affordances | None = None, exclude: Collection[str] = ()) -> dict[str, str]:
    """Bind each object target to a scene object of its types (liquids are held by a role's vessel), distinct
    objects for distinct targets except a copy of a sliced target, another piece of the same object.

    With ``sources`` (the state is a whole AI2-THOR scene: the planner got its affordances), a liquid target
    needs a usable source the scene has (:func:`planner.fits.has_liquid_source`), else the plan is infeasible and
    says so. A target a goal switches or opens is preferably one whose state the goal changes (the lamp that is on,
    to turn off); when every one is in that state already, the draft says so."""
    out: dict[str, str] = {}
    for t in spec.targets:
        if sources is not None and t.liquid and not has_liquid_source(t.types[0], state, sources, exclude):
            draft.feasible = False
            draft.notes.append(f"no source of {t.types[0]} in scene {state.scene_id!r}: {LIQUID_SOURCE_WORDS}")
        if t.liquid or t.name in skip:
            continue
        if t.sliced and t.same_as in out and all(piece_type(ty).endswith("Sliced") for ty in t.types):
            out[t.name] = out[t.same_as]  # "two slices": another piece of the same loaf (an egg cracks into one)
            continue
        wanted = {canonical_object_name(ty) for ty in t.types}
        found = [r for r in state.objects if r.category in wanted and r.object_id not in out.values()
                 and r.object_id not in exclude]  # found gone, broken or taken while executing
        kinds = {r.category for r in state.objects if any(kind_of(r.category, w) for w in wanted)}
        if not found and kinds:  # "bin the shampoo bottle": no Bottle here, the SoapBottle is one
            wanted = kinds
            found = [r for r in state.objects if r.category in wanted and r.object_id not in out.values()
                     and r.object_id not in exclude]
            draft.notes.append(f"no {' or '.join(t.types)} here: the {' or '.join(sorted(kinds))} is one")
        # prefer an object that does not already meet the goal (a dirty plate for "washing dishes", a lamp that is on
        # for "turn off the lamp")
        states = [g for g in spec.goals if g.item == t.name and g.prop in _SWAPPED]
        holds = _holds(spec, t.name, out, state, kb)
        found.sort(key=lambda r: (not holds(r), r.state.condition.value != "dirty", r.state.unusable_reason() != "",
                                  _already(r, states, sources)))
        if found:
            out[t.name] = found[0].object_id
            if _already(found[0], states, sources):
                said = " and ".join(STATE_WORDS[(g.prop, g.value)] for g in states if g.prop)
                draft.notes.append(f"the {thor_object_name(found[0].category)} is already {said} (every one here "
                                   f"is): the goal holds")
            continue
        draft.feasible = False
        draft.notes.append(f"no {' or '.join(t.types)} in scene {state.scene_id!r} to act on ({t.name})")
        draft.alternatives += tasks_with_targets_here(spec, state, kb)
    return out


def _holds(spec: TaskSpec, name: str, bound: Mapping[str, str], state: SceneState,
           kb: KnowledgeBase) -> Callable[[ObjectRecord], bool]:
    """Whether an object can be the place ``name`` for what the goals put in / on it that is bound already, by
    AI2-THOR's compatible receptacles ("the loo roll on the holder": the toilet paper hanger, not a towel holder)."""
    from .knowledge.alfred import compatible_receptacles

    by_id = {r.object_id: r for r in state.objects}
    sliced = {t.name for t in spec.targets if t.sliced}
    things = []
    for g in spec.goals:
        if g.relation == "contained_in" and g.other == name and g.item in bound and bound[g.item] in by_id:
            t = thor_object_name(by_id[bound[g.item]].category)
            things.append(piece_type(t) if g.item in sliced else t)
    if not things:
        return lambda r: True
    compat = compatible_receptacles(str(kb.root))
    return lambda r: all(t not in compat or thor_object_name(r.category) in compat[t] for t in things)


def made_here(spec: TaskSpec, state: SceneState, affordances: Affordances, kb: KnowledgeBase) -> TaskSpec:
    """A liquid no vessel here holds must be made, and some are made only by one device ("brew me a coffee": in
    AI2-THOR coffee comes only from a coffee machine, into a mug, :data:`planner.fits.LIQUID_SOURCES`): the heat
    source role is then that device and the vessel that mug, unless the request names them ("heat a coffee in the
    microwave": made in the machine, heated in the microwave). A liquid a vessel already holds (cold coffee in a
    mug, to reheat) leaves the roles as they are."""
    roles = {r.name: r for r in spec.roles}
    heaters = {canonical_object_name(t) for t in kb.utility_objects("heating(source)")}
    for t in spec.targets:
        held = any(f"holds:{t.types[0]}" in affordances.get(r.object_id, ()) for r in state.objects)
        if not t.liquid or held or "heating(source)" not in roles:
            continue
        for devices, vessels in LIQUID_SOURCES.get(t.types[0], ()):
            if not heaters & {canonical_object_name(d) for d in devices}:
                continue  # water runs from a tap: not a heat source's doing
            for name, types in (("heating(source)", devices), ("heating(vessel)", vessels), ("carrying", vessels)):
                if name in roles and not roles[name].types:  # a device the request names stays its choice
                    roles[name] = roles[name].model_copy(update={"types": tuple(types), "prefer": ()})
            break
    new = tuple(roles[r.name] for r in spec.roles)
    return spec if new == spec.roles else spec.model_copy(update={"roles": new})


def check_target_places(spec: TaskSpec, bindings: Mapping[str, str], state: SceneState, kb: KnowledgeBase,
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


def partner_to_decide_again(spec: TaskSpec, bindings: Mapping[str, str], fixed: Mapping[str, str]
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


def with_vessel(spec: TaskSpec, bindings: dict[str, str], state: SceneState, kb: KnowledgeBase, draft: Draft,
                exclude: dict[str, str], pipe: DecisionPipeline, affordances: Affordances | None) -> TaskSpec:
    """:func:`add_vessel`; when no vessel fits the chosen heat source, the source is decided again without it (the
    egg goes to the microwave in a bowl when no pan or pot is usable), up to :data:`MAX_SOURCE_TRIES` times."""
    role = spec.role("heating(source)")
    for _ in range(MAX_SOURCE_TRIES):
        wider = add_vessel(spec, bindings, state, kb, draft, exclude, pipe, affordances)
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


def add_vessel(spec: TaskSpec, bindings: dict[str, str], state: SceneState, kb: KnowledgeBase, draft: Draft,
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


def tasks_with_targets_here(spec: TaskSpec, state: SceneState, kb: KnowledgeBase, n: int = 3) -> list[str]:
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



__all__ = [
    "MAX_PARTNER_TRIES", "MAX_SOURCE_TRIES", "add_vessel", "bind_targets", "check_target_places", "fitted_prop",
    "made_here", "partner_to_decide_again", "tasks_with_targets_here", "with_vessel",
]
