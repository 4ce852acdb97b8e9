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
from typing import TYPE_CHECKING, Any, Literal

from .scene_planner import Interpret, load_kb, plan_in_state, roles_for
from .schemas import Plan, SceneState

if TYPE_CHECKING:
    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

logger = logging.getLogger(__name__)

DEFAULT_SCENE = "embedded/kitchen-v0"


def observe(
    scene: str = DEFAULT_SCENE,
    *,
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    estimator: Any = None,
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
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

            # perception gets COAT's common values passed in, not the knowledge base
            kb = load_kb(kb, data_dir)
            common = {o: kb.common_values(o) for o in kb.objects}
            estimator = MetadataEstimator(priors=TypePriors.from_common_values(common))
        state = estimator.estimate(obs)
    except BaseException:
        env.close()
        raise
    return env, obs, state


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
        env, _obs, state = observe(scene, seed=seed, options=options, kb=kb, data_dir=data_dir)
        env.close()
    else:
        state = scene
    return plan_in_state(task, state, llm=llm, planner=planner, strategy=strategy, utility=utility,
                         interpret=interpret, kb=kb, data_dir=data_dir)


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


__all__ = ["DEFAULT_SCENE", "Interpret", "execute_plan", "observe", "plan", "plan_in_state", "roles_for"]
