"""Deciding one role of a plan: the scene objects that may fill it, stage 1's acceptability, and deciding again
when the pick turns out unusable.

:func:`fill_role` is what :meth:`planner.planning.Planner.decide` calls per role. It offers the scene's objects of
the role's utility (or its fixed types) that have the affordances the role needs and that AI2-THOR's receptacle
rules allow, lets the decision pipeline pick, and records in the :class:`Draft` why nothing could be chosen: the
objects turned down, the acceptable ones that cannot act (a house plant cannot be picked up), the ones COAT's people
do not accept for the task (a drawer for dirty clothes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .fits import acceptable_but_unable
from .knowledge import KnowledgeBase
from .pipeline import DecisionPipeline
from .schemas import Decision, ObjectChoice, ObjectRecord, Role, SceneState, SkillCall, canonical_object_name
from .steps import Affordances


@dataclass
class Draft:
    """What the roles add up to while a plan is being made."""

    choices: list[ObjectChoice] = field(default_factory=list)
    steps: list[SkillCall] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    considered: list[tuple[str, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    feasible: bool = True
    alternatives: list[str] = field(default_factory=list)
    judged: frozenset[str] = frozenset()
    """Roles the goal names (where the clothes end up, what is brought): only an object stage 1 keeps may fill
    them (:meth:`~planner.schemas.TaskSpec.named_roles`)."""


def fill_role(
    role: Role, task: str | None, state: SceneState, kb: KnowledgeBase, bound: set[str], excluded: set[str],
    pipe: DecisionPipeline, draft: Draft, *, affordances: Affordances | None = None,
    unfit: Mapping[str, str] | None = None,
) -> tuple[ObjectRecord, Decision] | None:
    """Decide which scene object fills one role; None (with a note and alternatives) when none can.

    ``unfit``: objects (among ``excluded``) that AI2-THOR's receptacle rules rule out, with why
    (:func:`planner.fits.misfits`); when they are all the role had, the note says so."""
    annotated = bool(task) and kb.is_annotated(role.utility, task or "")
    offered = candidates_for(state, kb, role.utility, task if annotated else None, types=role.types,
                          prefer=role.prefer, avoid=role.avoid)
    pool = [r for r in offered if r.object_id not in excluded]
    lacking: list[str] = []
    if role.needs and affordances is not None:  # e.g. only a fillable vessel can hold the water
        has = {r.object_id: set(affordances.get(r.object_id, ())) for r in pool}
        lacking = [f"{role.name}: {r.object_id} cannot be used: a {r.category} is not "
                   f"{' or '.join(sorted(set(role.needs) - has[r.object_id]))} in AI2-THOR"
                   for r in pool if not set(role.needs) <= has[r.object_id]]
        pool = [r for r in pool if set(role.needs) <= has[r.object_id]]
    # distinct objects fill distinct roles; one already chosen for another role serves this one too only when
    # the scene has nothing else (a single bowl to mix in and to serve on)
    candidates = [r for r in pool if r.object_id not in bound] or pool
    if not candidates:
        draft.feasible = False
        looked = ", ".join(role.types or kb.utility_objects(role.utility))
        ruled = [f"{r.object_id}: {unfit[r.object_id]}" for r in offered if unfit and r.object_id in unfit]
        draft.notes.append(f"no object in scene {state.scene_id!r} can serve as {role.name!r} "
                           + (f"({'; '.join(ruled)})" if ruled else f"(looked for {looked})"))
        draft.alternatives += [f"{role.name}: {r.object_id} ({r.state.unusable_reason() or 'taken'})" for r in pool]
        draft.alternatives += acceptable_but_unable(role, task if annotated else None, state, kb, offered)
        draft.alternatives += lacking[:5]
        return None
    found = decide_role(pipe, task, role, candidates, draft)
    if found is None:
        draft.feasible = False
        draft.alternatives += lacking[:5]
    return found


def decide_role(
    pipe: DecisionPipeline, task: str | None, role: Role, candidates: list[ObjectRecord], draft: Draft
) -> tuple[ObjectRecord, Decision] | None:
    """The usable object the pipeline picks for one role, or None (recorded in the draft's notes).

    A role the goal names (``draft.judged``) and that is chosen by its utility (no fixed types) takes only an object
    stage 1 keeps: when stage 1 judges none of the usable candidates suitable for the task (a drawer for dirty
    clothes, which COAT's people keep in a hamper), the role has no acceptable object here, and the pipeline's
    fallback to ranking every option is not taken. A tool or device the goal does not name is judged by its effect
    (the egg cooked), so the fallback stands: the microwave cooks the egg when no pan is usable."""
    utility = role.utility
    while candidates:
        decision = pipe.select(task, utility, candidates)
        draft.decisions.append(decision)
        draft.considered.append(tuple(r.object_id for r in candidates))
        if decision.chosen_index is None:
            draft.notes.append(f"{utility}: the model's answer could not be parsed ({decision.reason})")
            return None
        sel = decision.stage1
        if decision.fallback and sel is not None and not sel.unparsed and not role.types and role.name in draft.judged:
            names = ", ".join(dict.fromkeys(r.category for r in candidates))
            draft.notes.append(f"{role.name}: no object here suits {task or utility!r}: stage 1 kept none of "
                               f"{names} ({sel.reason})")
            draft.alternatives += [f"{role.name}: {r.object_id} is a {r.category}, an object for {utility}, but "
                                   f"not one for {task or utility!r}" for r in candidates[:5]]
            return None
        best = candidates[decision.chosen_index]
        unusable = best.state.unusable_reason()
        if not unusable:
            return best, decision
        # A broken or used-up object cannot be made ready: decide again among the usable ones, so a
        # substitute is chosen even when stage 1 kept only the unusable ideal object.
        usable = [r for r in candidates if not r.state.unusable_reason()]
        then = "choosing among the usable objects" if usable else "no usable substitute in the scene"
        draft.notes.append(f"{utility}: {best.object_id} is unusable ({unusable}); {then}")
        candidates = usable
    return None


def candidates_for(
    state: SceneState, kb: KnowledgeBase, utility: str, task: str | None, *, types: tuple[str, ...] = (),
    prefer: tuple[str, ...] = (), avoid: tuple[str, ...] = (),
) -> list[ObjectRecord]:
    """Scene objects whose type has the utility (COAT's utility objects; only ``types`` when given, never the
    ``avoid`` types), in scene order, the ``prefer`` types first, in their order (the selectors break ties by
    option order).

    Objects with the same type and the same five variables are interchangeable for the decision, so only
    the first of each is kept (the selectors reject duplicate options).
    """
    allowed = set(kb.utility_objects(utility))
    if task is not None:
        allowed |= set(kb.context_objects(utility, task))  # e.g. Desktop for "tell me the time"
    if types:
        allowed = {canonical_object_name(t) for t in types}
    allowed -= {canonical_object_name(t) for t in avoid}
    seen: set[tuple[str, str]] = set()
    out: list[ObjectRecord] = []
    for r in state.objects:
        key = (r.category, r.state.model_dump_json())
        if r.category in allowed and key not in seen:
            seen.add(key)
            out.append(r)
    if prefer:
        rank = {canonical_object_name(t): i for i, t in reversed(list(enumerate(prefer)))}
        out.sort(key=lambda r: rank.get(r.category, len(prefer)))
    return out



__all__ = ["Draft", "candidates_for", "decide_role", "fill_role"]
