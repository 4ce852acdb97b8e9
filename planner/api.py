"""``plan()``: the one call a robot program makes.

It composes the packages in the order data flows: a scene (``scenes``) is observed, perception
(``perception``) turns the observation into five-variable object records, the decision core picks the
object for each utility the task needs (stage 1: which objects suit the task; stage 2: which concrete
instance, given mass, material, temperature, availability and condition), and the plan's steps get the
chosen object ready (wash it, wait for it) and use it. ``execute_plan`` carries the steps out with the
skills.

Example:
    >>> from planner.api import plan                                    # doctest: +SKIP
    >>> p = plan("cut cake")                                            # doctest: +SKIP
    >>> p.choices[0].object_id                                          # doctest: +SKIP
    'Knife|+00.50|+00.95|-01.20'
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from .errors import ConfigError
from .schemas import Decision, ObjectChoice, ObjectRecord, Plan, SceneState, SkillCall

if TYPE_CHECKING:
    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend
    from .tasks import TaskMatch

logger = logging.getLogger(__name__)

Interpret = Literal["exact", "nearest"]
DEFAULT_SCENE = "embedded/kitchen-v0"
MIN_NEAREST_SCORE = 0.3
"""Lowest task-match score at which ``interpret="nearest"`` borrows a COAT task's annotations."""


def _load_kb(kb: KnowledgeBase | None, data_dir: Any) -> KnowledgeBase:
    if kb is not None:
        return kb
    from .knowledge import load_knowledge

    return load_knowledge(data_dir)


def _make_llm(llm: LLMBackend | str | None) -> LLMBackend | None:
    if llm is None or not isinstance(llm, str):
        return llm
    from .llm import make_llm

    return make_llm(llm)


def observe(
    scene: str = DEFAULT_SCENE,
    *,
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    estimator: Any = None,
) -> tuple[SceneEnv[Any, Any], SceneObs, SceneState]:
    """Make and reset a scene, and estimate its objects' five variables.

    Returns:
        The open environment (close it, or use it as a context manager), its first observation, and the
        perceived SceneState.
    """
    import scenes

    env = scenes.make(scene)
    try:
        obs, _info = env.reset(seed=seed, options=options)
        if estimator is None:
            from perception.metadata import MetadataEstimator
            from perception.priors import TypePriors

            kb = _load_kb(None, None)  # perception gets COAT's common values passed in, not the knowledge base
            common = {o: kb.common_values(o) for o in kb.objects}
            estimator = MetadataEstimator(priors=TypePriors.from_common_values(common))
        state = estimator.estimate(obs)
    except BaseException:
        env.close()
        raise
    return env, obs, state


def roles_for(task: str, kb: KnowledgeBase, *, utility: str | None = None) -> tuple[list[TaskMatch], bool]:
    """The (utility, task) roles a task needs, and whether they are exact COAT annotations.

    An annotated task may need several utilities ("serving cake": cutting and carrying). A free-text task
    gets its best-matching utility. ``utility`` forces the utility.
    """
    from .tasks import TaskMatch, resolve_task

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


def plan(
    task: str,
    scene: SceneState | str = DEFAULT_SCENE,
    *,
    llm: LLMBackend | str | None = "local",
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge"] = "hybrid",
    utility: str | None = None,
    interpret: Interpret = "exact",
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
) -> Plan:
    """Choose the object(s) for ``task`` in ``scene`` and the steps that make them ready and use them.

    Args:
        task: What to do, in words ("cut cake", "boil water", "serving cake").
        scene: A scene id (``embedded/kitchen-v0``, ``embedded/FloorPlan1-v0``, ``thor/FloorPlan1-v0``) or a
            SceneState from your own perception.
        llm: Model spec (``local``, ``local:gemma-270m``, ``openai:<model>``, ``ollama:<model>``, ``fake``)
            or a backend; None means knowledge only.
        planner: ``two-stage`` (COAT's modular pipeline) or ``single`` (one prompt, for ablations).
        strategy: ``hybrid`` (COAT annotations where the task is annotated, the model otherwise), ``llm``
            or ``knowledge``.
        utility: Force the utility (one of COAT's 22) instead of inferring it from the task.
        interpret: ``exact`` uses COAT annotations only for a COAT task; ``nearest`` also borrows the
            annotations of the closest COAT task (reported in the plan's reason).
        seed: Scene seed (ignored for a SceneState).
        options: Scene reset options, e.g. ``{"scenario": "knife-dirty"}``.
        kb: A loaded knowledge base (default: ``load_knowledge(data_dir)``).
        data_dir: Data directory for the knowledge base and real scenes.

    Returns:
        A Plan: one ObjectChoice per utility, steps (``prepare`` then ``use`` per chosen object), and
        ``feasible=False`` with a reason when no usable object exists.

    Raises:
        ConfigError: bad arguments (unknown planner/strategy/utility, a strategy that needs a model without one).
        UnknownIdError: unknown scene id.
    """
    if isinstance(scene, str):
        env, _obs, state = observe(scene, seed=seed, options=options)
        env.close()
    else:
        state = scene
    return plan_in_state(task, state, llm=llm, planner=planner, strategy=strategy, utility=utility,
                         interpret=interpret, kb=kb, data_dir=data_dir)


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
    """``plan()`` on an already-perceived SceneState (see :func:`plan` for the arguments)."""
    from .two_stage import make_pipeline

    if interpret not in ("exact", "nearest"):
        raise ConfigError(f"interpret must be 'exact' or 'nearest', got {interpret!r}")
    kb = _load_kb(kb, data_dir)
    backend = _make_llm(llm) if strategy != "knowledge" else None
    roles, exact = roles_for(task, kb, utility=utility)
    choices: list[ObjectChoice] = []
    steps: list[SkillCall] = []
    decisions: list[Decision] = []
    considered: list[tuple[str, ...]] = []
    notes: list[str] = []
    feasible = True
    for role in roles:
        decide_task: str | None = task
        if not exact:
            if interpret == "nearest" and role.task and role.score >= MIN_NEAREST_SCORE:
                decide_task = role.task
                notes.append(f"interpreted {task!r} as COAT task {role.task!r} ({role.utility})")
            else:
                notes.append(f"{task!r} is not a COAT task; utility {role.utility!r} inferred "
                             f"(nearest COAT task {role.task!r}, score {role.score:.2f})")
        annotated = kb.is_annotated(role.utility, decide_task) if decide_task else False
        role_strategy = strategy
        if strategy == "hybrid" and backend is None:
            role_strategy = "knowledge"  # hybrid without a model is the knowledge strategy
        candidates = _candidates(state, kb, role.utility, decide_task if annotated else None)
        if not candidates:
            feasible = False
            notes.append(f"no object in scene {state.scene_id!r} can serve as {role.utility!r} "
                         f"(looked for {', '.join(kb.utility_objects(role.utility))})")
            continue
        if role_strategy == "knowledge" and not annotated:
            raise ConfigError(
                f"strategy 'knowledge' needs a COAT task; {task!r} is not one. Use interpret='nearest', "
                "strategy='hybrid' with a model, or one of the COAT tasks (`coat tasks` lists them)."
            )
        pipe = make_pipeline(planner, role_strategy, backend, kb)
        rec: ObjectRecord | None = None
        while candidates:
            decision = pipe.select(decide_task, role.utility, candidates)
            decisions.append(decision)
            considered.append(tuple(r.object_id for r in candidates))
            if decision.chosen_index is None:
                notes.append(f"{role.utility}: the model's answer could not be parsed ({decision.reason})")
                break
            best = candidates[decision.chosen_index]
            unusable = best.state.unusable_reason()
            if not unusable:
                rec = best
                break
            # A broken or used-up object cannot be made ready: decide again among the usable ones, so a
            # substitute is chosen even when stage 1 kept only the unusable ideal object.
            usable = [r for r in candidates if not r.state.unusable_reason()]
            notes.append(f"{role.utility}: {best.object_id} is unusable ({unusable})"
                         + ("; choosing among the usable objects" if usable else "; no usable substitute in the scene"))
            candidates = usable
        if rec is None:
            feasible = False
            continue
        choices.append(ObjectChoice(object_id=rec.object_id, rationale=f"{role.utility}: {decision.reason}"))
        steps.append(SkillCall(skill="prepare", target=rec.object_id, args=_prepare_args(rec, kb, role)))
        steps.append(SkillCall(skill="use", target=rec.object_id))
    return Plan(
        task=task,
        utility=roles[0].utility if roles else None,
        steps=tuple(steps),
        choices=tuple(choices),
        feasible=feasible and bool(choices),
        reason="; ".join(notes),
        decisions=tuple(decisions),
        considered=tuple(considered),
        scene_id=state.scene_id,
    )


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


def execute_plan(
    plan_: Plan,
    scene: str = DEFAULT_SCENE,
    *,
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
) -> Any:
    """Reset ``scene`` as ``plan()`` saw it and carry the plan out with the skills.

    Returns:
        ``skills.ExecutionTrace``.
    """
    import scenes
    import skills

    with scenes.make(scene) as env:
        obs, _ = env.reset(seed=seed, options=options)
        trace, _obs = skills.execute(plan_, env, obs)
    return trace


def plan_many(tasks: Sequence[str], scene: SceneState | str = DEFAULT_SCENE, **kwargs: Any) -> list[Plan]:
    """``plan()`` for several tasks in one scene, observing the scene once."""
    if isinstance(scene, str):
        env, _obs, state = observe(scene, seed=kwargs.pop("seed", 0), options=kwargs.pop("options", None))
        env.close()
    else:
        state = scene
    return [plan_in_state(t, state, **kwargs) for t in tasks]
