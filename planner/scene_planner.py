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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .errors import ConfigError
from .knowledge import TaskMatch, resolve_task
from .pipeline import make_pipeline
from .schemas import Decision, ObjectChoice, ObjectRecord, Plan, SceneState, SkillCall

if TYPE_CHECKING:
    from .knowledge import KnowledgeBase
    from .llm import LLMBackend
    from .pipeline import DecisionPipeline

logger = logging.getLogger(__name__)

Interpret = Literal["exact", "nearest"]
"""How a task that is not a COAT task is read: ``exact`` (the model decides where COAT is silent) or
``nearest`` (borrow the closest COAT task's annotations)."""
MIN_NEAREST_SCORE = 0.3
"""Lowest task-match score at which ``interpret="nearest"`` borrows a COAT task's annotations."""


def load_kb(kb: KnowledgeBase | None, data_dir: Any) -> KnowledgeBase:
    """``kb`` itself, or COAT's knowledge base from ``data_dir``."""
    if kb is not None:
        return kb
    from .knowledge import load_knowledge

    return load_knowledge(data_dir)


def make_backend(llm: LLMBackend | str | None) -> LLMBackend | None:
    """A model backend from a spec string; a backend or None passes through."""
    if llm is None or not isinstance(llm, str):
        return llm
    from .llm import make_llm

    return make_llm(llm)


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


@dataclass
class _Draft:
    """What the roles add up to while a plan is being made."""

    choices: list[ObjectChoice] = field(default_factory=list)
    steps: list[SkillCall] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    considered: list[tuple[str, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    feasible: bool = True


def plan_in_state(
    task: str,
    state: SceneState,
    *,
    llm: LLMBackend | str | None = "local",
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge"] = "hybrid",
    utility: str | None = None,
    interpret: Interpret = "exact",
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
) -> Plan:
    """Choose the object(s) for ``task`` among ``state``'s objects (see :func:`planner.api.plan`).

    Raises:
        ConfigError: bad arguments (unknown planner/strategy/utility, a strategy that needs a model without one).
    """
    if interpret not in ("exact", "nearest"):
        raise ConfigError(f"interpret must be 'exact' or 'nearest', got {interpret!r}")
    kb = load_kb(kb, data_dir)
    backend = make_backend(llm) if strategy != "knowledge" else None
    roles, exact = roles_for(task, kb, utility=utility)
    draft = _Draft()
    for role in roles:
        decide_task = task if exact else _reading(task, role, interpret, draft.notes)
        annotated = kb.is_annotated(role.utility, decide_task) if decide_task else False
        # hybrid without a model is the knowledge strategy
        role_strategy = "knowledge" if strategy == "hybrid" and backend is None else strategy
        candidates = _candidates(state, kb, role.utility, decide_task if annotated else None)
        if not candidates:
            draft.feasible = False
            draft.notes.append(f"no object in scene {state.scene_id!r} can serve as {role.utility!r} "
                               f"(looked for {', '.join(kb.utility_objects(role.utility))})")
            continue
        if role_strategy == "knowledge" and not annotated:
            raise ConfigError(
                f"strategy 'knowledge' needs a COAT task; {task!r} is not one. Use interpret='nearest', "
                "strategy='hybrid' with a model, or one of the COAT tasks (`coat tasks` lists them)."
            )
        pipe = make_pipeline(planner, role_strategy, backend, kb)
        found = _decide_role(pipe, decide_task, role.utility, candidates, draft)
        if found is None:
            draft.feasible = False
            continue
        rec, decision = found
        draft.choices.append(ObjectChoice(object_id=rec.object_id, rationale=f"{role.utility}: {decision.reason}"))
        draft.steps.append(SkillCall(skill="prepare", target=rec.object_id, args=_prepare_args(rec, kb, role)))
        draft.steps.append(SkillCall(skill="use", target=rec.object_id))
    return Plan(
        task=task,
        utility=roles[0].utility if roles else None,
        steps=tuple(draft.steps),
        choices=tuple(draft.choices),
        feasible=draft.feasible and bool(draft.choices),
        reason="; ".join(draft.notes),
        decisions=tuple(draft.decisions),
        considered=tuple(draft.considered),
        scene_id=state.scene_id,
    )


def _reading(task: str, role: TaskMatch, interpret: Interpret, notes: list[str]) -> str:
    """The task text the pipeline decides for a task COAT does not annotate, with a note saying why."""
    if interpret == "nearest" and role.task and role.score >= MIN_NEAREST_SCORE:
        notes.append(f"interpreted {task!r} as COAT task {role.task!r} ({role.utility})")
        return role.task
    notes.append(f"{task!r} is not a COAT task; utility {role.utility!r} inferred "
                 f"(nearest COAT task {role.task!r}, score {role.score:.2f})")
    return task


def _decide_role(
    pipe: DecisionPipeline, task: str | None, utility: str, candidates: list[ObjectRecord], draft: _Draft
) -> tuple[ObjectRecord, Decision] | None:
    """The usable object the pipeline picks for one role, or None (recorded in the draft's notes)."""
    while candidates:
        decision = pipe.select(task, utility, candidates)
        draft.decisions.append(decision)
        draft.considered.append(tuple(r.object_id for r in candidates))
        if decision.chosen_index is None:
            draft.notes.append(f"{utility}: the model's answer could not be parsed ({decision.reason})")
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


def _candidates(state: SceneState, kb: KnowledgeBase, utility: str, task: str | None) -> list[ObjectRecord]:
    """Scene objects whose type has the utility (COAT's utility objects), in scene order.

    Objects with the same type and the same five variables are interchangeable for the decision, so only
    the first of each is kept (the selectors reject duplicate options).
    """
    allowed = set(kb.utility_objects(utility))
    if task is not None:
        allowed |= set(kb.context_objects(utility, task))  # e.g. Desktop for "tell me the time"
    seen: set[tuple[str, str]] = set()
    out: list[ObjectRecord] = []
    for r in state.objects:
        key = (r.category, r.state.model_dump_json())
        if r.category in allowed and key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _prepare_args(rec: ObjectRecord, kb: KnowledgeBase, role: TaskMatch) -> dict[str, Any]:
    """Ask ``prepare`` to bring the object to the temperature COAT's ideal configurations want."""
    if role.task is None or not kb.is_annotated(role.utility, role.task):
        return {}
    temps = {c.state.temperature.value for c in kb.ideal(role.utility, role.task) if c.object == rec.category}
    if len(temps) == 1 and rec.state.temperature.value not in temps:
        return {"temperature": temps.pop()}
    return {}


__all__ = ["MIN_NEAREST_SCORE", "Interpret", "plan_in_state", "roles_for"]
