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

from .arguments import (
    COUNT,
    SEED,
    check_data_args,
    check_decision_args,
    check_number,
    check_plan_args,
    check_type,
    data_dir_of,
    load_kb,
    make_backend,
    shown,
)
from .errors import ConfigError
from .paths import use_data_dir
from .scene_planner import Interpret, plan_in_state, roles_for
from .schemas import ExecutionTrace, Plan, SceneState, TaskSpec
from .steps import affordances_of

if TYPE_CHECKING:
    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

logger = logging.getLogger(__name__)

DEFAULT_SCENE = "embedded/kitchen-v0"
_SCENE_ID = "a scene id str (e.g. 'embedded/kitchen-v0'; `coat scenes list`)"


def _check_scene_args(seed: Any, options: Any) -> None:
    """A seed is an int or None, reset options a dict with str keys or None."""
    if seed is not None:
        check_type("seed", seed, int, "an int or None")
        check_number("seed", seed, SEED)
    if options is not None:
        check_type("options", options, dict, "a dict of scene reset options (e.g. {'scenario': 'knife-dirty'}) or None")
        bad = [k for k in options if not isinstance(k, str)]
        if bad:
            raise TypeError(f"options keys must be str (option names such as 'scenario'), got {shown(bad[0])}")


def make_estimator(kb: KnowledgeBase) -> Any:
    """Perception for the AI2-THOR family: the five variables from metadata, COAT's common values as priors."""
    from perception.metadata import MetadataEstimator
    from perception.priors import TypePriors

    # perception gets COAT's common values passed in, not the knowledge base
    common = {o: kb.common_values(o) for o in kb.objects}
    return MetadataEstimator(priors=TypePriors.from_common_values(common))


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

    The scene's files (``FloorPlanN``) and perception's priors come from one data directory: ``data_dir``, else
    the one ``kb`` was loaded from, else the running command's (``--data-dir``), else ``$COAT_DATA_DIR`` or the
    user cache.

    Returns:
        The open environment (close it, or use it as a context manager), its first observation, and the
        perceived SceneState.

    Raises:
        TypeError: an argument of the wrong type (the message names it, its value and what is accepted).
        ConfigError: ``kb`` loaded from another directory than ``data_dir``, or either differs from the running
            command's data directory.
        UnknownIdError: unknown scene id.
    """
    check_type("scene", scene, str, _SCENE_ID)
    _check_scene_args(seed, options)
    if estimator is not None and not callable(getattr(estimator, "estimate", None)):
        raise TypeError(f"estimator must have an estimate(obs) method (perception.base), got "
                        f"{type(estimator).__name__} {shown(estimator)}")
    check_data_args(kb, data_dir)
    import scenes

    root = data_dir_of(kb, data_dir)
    with use_data_dir(root):
        env = scenes.make(scene, **_scene_kwargs(scene, root))
        try:
            obs, _info = env.reset(seed=seed, options=options)
            est = estimator if estimator is not None else make_estimator(load_kb(kb, root))
            state = est.estimate(obs)
        except BaseException:
            env.close()
            raise
    return env, obs, state


def _scene_kwargs(scene: str, data_dir: Any) -> dict[str, Any]:
    """The data directory reaches the embedded scenes too (FloorPlanN comes from its ``ai2thor/``)."""
    from scenes.registry import family_of, spec

    return {"data_dir": data_dir} if data_dir is not None and family_of(spec(scene)) == "embedded" else {}


def plan(
    task: str | TaskSpec,
    scene: SceneState | str = DEFAULT_SCENE,
    *,
    llm: LLMBackend | str | None = None,
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge", "learned"] = "hybrid",
    utility: str | None = None,
    interpret: Interpret = "nearest",
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
    learned: Any = None,
) -> Plan:
    """Choose the object for every role of ``task`` in ``scene`` and the steps that get the task done.

    Args:
        task: What to do, in words ("cut cake", "boil water", "serving cake"), or a
            :class:`~planner.schemas.TaskSpec` (roles, targets, goal conditions).
        scene: A scene id (``coat/kitchen-v0``, ``coat/FloorPlan1-v0``, ``coat/thor-FloorPlan1-v0``; the earlier
            ``embedded/kitchen-v0`` ids too) or a SceneState from your own perception.
        llm: Model spec (``local``, ``local:gemma-270m``, ``openai:<model>``, ``ollama:<model>``, ``fake``)
            or a backend; None (the default) decides with COAT's annotations alone, which measures best
            (``benchmarks/understanding.md``; the embedded models decide near chance, ``benchmarks/decision.md``).
        planner: ``two-stage`` (COAT's modular pipeline) or ``single`` (one prompt, for ablations).
        strategy: ``hybrid`` (COAT annotations where the task is annotated, the model otherwise), ``llm``,
            ``knowledge`` or ``learned`` (the selectors ``coat train`` learned from COAT's annotations).
        utility: Force the utility (one of COAT's 22) instead of inferring it from the task.
        interpret: How a task that is not a COAT task is decided once read (:mod:`planner.understanding`):
            ``nearest`` (default) lets each role borrow the annotations of the closest COAT task of its
            utility (reported in the plan's reason); ``exact`` leaves the request's words to the model.
        seed: Scene seed (ignored for a SceneState).
        options: Scene reset options, e.g. ``{"scenario": "knife-dirty"}``.
        kb: A loaded knowledge base (default: ``load_knowledge(data_dir)``).
        data_dir: Data directory for the knowledge base and the scenes' files (default: the one ``kb`` was
            loaded from, else the running command's ``--data-dir``, else ``$COAT_DATA_DIR`` or the user cache).
            Everything the call reads comes from this one directory.
        learned: For ``strategy="learned"``: a trained model or its directory (default: the user cache).

    Returns:
        A Plan: its TaskSpec, one ObjectChoice per role, the bindings of roles and targets to objects, the
        steps that reach the goal conditions, the scene id, seed and options (with what a random scenario
        drew), and ``feasible=False`` with a reason and alternatives when a role has no usable object or a
        target is absent.

    Raises:
        TypeError: an argument of the wrong type (a task that is neither a str nor a TaskSpec, a scene that is
            neither a scene id nor a SceneState, an llm without the LLMBackend members, ...); the message names
            the argument, its value and what is accepted.
        ConfigError: bad arguments (an empty or overlong task, unknown planner/strategy/utility, a strategy that
            needs a model without one, ``kb`` loaded from another directory than ``data_dir``).
        UnknownIdError: unknown scene id, or a TaskSpec naming an object type AI2-THOR does not have.
    """
    check_plan_args(task, llm=llm, planner=planner, strategy=strategy, utility=utility, interpret=interpret,
                    kb=kb, data_dir=data_dir)
    check_type("scene", scene, (str, SceneState), f"{_SCENE_ID} or a planner.schemas.SceneState")
    _check_scene_args(seed, options)
    kb = load_kb(kb, data_dir)
    with use_data_dir(kb.root):  # one data directory for everything the call reads: the knowledge base's
        if isinstance(task, TaskSpec):
            from .knowledge.alfred import check_types, object_types

            check_types(task, object_types(kb.root))
        if not isinstance(scene, str):
            return plan_in_state(task, scene, llm=llm, planner=planner, strategy=strategy, utility=utility,
                                 interpret=interpret, kb=kb, learned=learned)
        env, obs, state = observe(scene, seed=seed, options=options, kb=kb)
        env.close()
        p = plan_in_state(task, state, llm=llm, planner=planner, strategy=strategy, utility=utility,
                          interpret=interpret, kb=kb, affordances=affordances_of(obs.objects), learned=learned)
    return p.model_copy(update={"env_id": scene, "seed": seed, "options": _recorded_options(options, obs)})


def _recorded_options(options: dict[str, Any] | None, obs: SceneObs) -> dict[str, Any]:
    """The reset options, with the scenario a ``random`` draw chose (``scenario_drawn``, a record for the reader)."""
    out = dict(options or {})
    applied = obs.extra.get("scenario") if isinstance(obs.extra, dict) else None
    drew = applied.get("name") if isinstance(applied, dict) else applied
    if out.get("scenario") == "random" and isinstance(drew, str) and drew != "random":
        out["scenario_drawn"] = drew
    return out


def execute_plan(
    plan_: Plan,
    scene: str | None = None,
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    llm: LLMBackend | str | None = None,
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge", "learned"] = "hybrid",
    max_replans: int = 3,
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
) -> ExecutionTrace:
    """Rebuild the plan's scene (its id, seed and options) and carry the plan out in the closed loop.

    Each step is verified on the next observation; an object found broken, busy for good, missing or faulty
    makes the loop decide that role again (with ``llm`` / ``planner`` / ``strategy``, as the plan was made)
    and re-plan, at most ``max_replans`` times.

    A plan ``plan()`` made in a scene id records the id, the seed and the reset options (none is a record too):
    ``scene`` / ``seed`` / ``options`` may only repeat them. A plan made from a SceneState (your own perception)
    records no scene: pass ``scene`` with the ``seed`` and ``options`` of the reset its objects came from. Either
    way the rebuilt scene must hold every object the plan bound, or nothing runs.

    Returns:
        An :class:`~planner.schemas.ExecutionTrace`: ``achieved``, the goal conditions before and after,
        ``replans``, safety violations, every step with its outcome, and ``final_objects``.

    Raises:
        TypeError: an argument of the wrong type (``plan_`` not a Plan, ...).
        ConfigError: ``scene`` / ``seed`` / ``options`` differ from the plan's own (a plan is bound to the objects
            of the scene it was made in), the plan records no scene and ``scene`` is not given, the rebuilt scene
            lacks an object the plan bound, ``kb`` was loaded from another directory than ``data_dir``, or a
            negative ``max_replans``.
    """
    check_type("plan_", plan_, Plan, "a planner.schemas.Plan (what plan() returns)")
    check_decision_args(llm=llm, planner=planner, strategy=strategy, kb=kb, data_dir=data_dir)
    check_number("max_replans", max_replans, COUNT)
    from .agents.household import HouseholdLoop

    kb = load_kb(kb, data_dir)
    with use_data_dir(kb.root):  # the scene's files, re-perception and re-planning: the knowledge base's directory
        env, obs = open_plan_scene(plan_, scene, seed=seed, options=options, data_dir=kb.root)
        with env:
            loop = HouseholdLoop(env, make_estimator(kb), kb, llm=make_backend(llm), planner=planner,
                                 strategy=strategy, max_replans=max_replans)
            return loop.run(plan_, obs)


def open_plan_scene(
    plan_: Plan, scene: str | None = None, *, seed: int | None = None, options: dict[str, Any] | None = None,
    data_dir: Any = None,
) -> tuple[SceneEnv[Any, Any], SceneObs]:
    """Make and reset the scene a plan was made in (its env id, seed and options, a random draw included).

    Raises:
        TypeError: ``plan_`` is not a Plan, or ``scene`` / ``seed`` / ``options`` have the wrong type.
        ConfigError: ``scene`` / ``seed`` / ``options`` differ from the plan's own, the plan records no scene and
            ``scene`` is not given, or the rebuilt scene lacks an object the plan bound (see :func:`execute_plan`).
    """
    check_type("plan_", plan_, Plan, "a planner.schemas.Plan (what plan() returns)")
    if scene is not None:
        check_type("scene", scene, str, f"{_SCENE_ID} or None")
    _check_scene_args(seed, options)
    check_data_args(None, data_dir)
    import scenes

    env_id, seed, opts = rebuild_args(plan_, scene, seed=seed, options=options)
    with use_data_dir(data_dir):
        env = scenes.make(env_id, **_scene_kwargs(env_id, data_dir))
        try:
            obs, _ = env.reset(seed=seed, options=opts or None)
            _check_bound_objects(plan_, env_id, obs)
        except BaseException:
            env.close()
            raise
    return env, obs


def rebuild_args(plan_: Plan, scene: str | None = None, *, seed: int | None = None,
                 options: dict[str, Any] | None = None) -> tuple[str, int | None, dict[str, Any]]:
    """The scene id, seed and reset options that rebuild the scene ``plan_`` was made in.

    A plan that records its scene (``env_id``) is rebuilt from its own record, the seed and the reset options
    included (a plan made without options recorded none: options given now would make another scene); the
    arguments may only repeat them. A plan without one (made from a SceneState) needs ``scene``.

    Raises:
        ConfigError: an argument that differs from the plan's record, naming both; no scene to rebuild.
    """
    if plan_.env_id is None:
        if scene is None:
            made = f"a SceneState ({plan_.scene_id!r})" if plan_.scene_id else "a SceneState"
            raise ConfigError(
                f"this plan records no scene to rebuild: it was made from {made}, not in a scene id, so the scene "
                "holding its objects is unknown here. Pass scene= (the registered scene whose reset gave those "
                "objects, e.g. 'embedded/kitchen-v0', with that reset's seed= and options=), or plan in the scene "
                "itself: plan(task, 'embedded/kitchen-v0', seed=..., options=...)")
        return scene, seed, dict(options or {})
    # "scenario_drawn" is a record for the reader: "random" with the same seed draws the same scenario again
    recorded = {k: v for k, v in (plan_.options or {}).items() if k != "scenario_drawn"}
    if options is not None and options != recorded and options != plan_.options:
        shown_rec = f"reset options {recorded!r}" if recorded else "no reset options"
        raise ConfigError(f"this plan was made with {shown_rec}, not {options!r}: other options make another scene, "
                          "and its objects are that scene's. Plan again with these options, or execute without "
                          "options=")
    from scenes import same_scene

    same = scene is not None and same_scene(scene, plan_.env_id)  # coat/kitchen-v0 is embedded/kitchen-v0
    return _own(plan_.env_id, None if same else scene, "in scene"), _own(plan_.seed, seed, "with seed"), recorded


def _own(recorded: Any, given: Any, what: str) -> Any:
    if given is None or given == recorded:
        return recorded
    raise ConfigError(f"this plan was made {what} {recorded!r}, not {given!r}; its objects are that scene's. "
                      f"Plan again {what} {given!r}, or execute without {what.split()[-1]}=")


def _check_bound_objects(plan_: Plan, env_id: str, obs: SceneObs) -> None:
    """Refuse a rebuilt scene that lacks an object the plan bound (made from other objects than these)."""
    here = {str(o.get("objectId")) for o in obs.objects}
    lost = [f"{oid} ({name})" for name, oid in plan_.bindings.items() if oid not in here]
    if lost:
        shown_lost = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        raise ConfigError(f"the scene rebuilt for this plan ({env_id!r}) has no {shown_lost}: the plan was made from "
                          "other objects (another scene, reset, data directory or SceneState). Plan again in this "
                          "scene, or pass the scene=, seed= and options= its objects came from")


__all__ = [
    "DEFAULT_SCENE", "Interpret", "execute_plan", "make_estimator", "observe", "open_plan_scene", "plan",
    "plan_in_state", "rebuild_args", "roles_for",
]
