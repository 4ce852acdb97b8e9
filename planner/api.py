"""``plan()``: the one call a robot program makes.

It composes the packages in the order data flows: a scene (``scenes``) is observed, perception
(``perception``) turns the observation into five-variable object records, the decision core picks the
object for each utility the task needs (stage 1: which objects suit the task; stage 2: which concrete
instance, given mass, material, temperature, availability and condition), and the plan's steps get the
chosen object ready (wash it, wait for it) and use it. ``execute_plan`` carries the steps out with the
skills.

The scene may be a scene id, a gymnasium env, an observation (a SceneObs, an ai2thor Event or its metadata dict)
or a SceneState, and ``llm=`` any langchain chat model; ``execute_plan`` runs in the env it is given, never in
another scene (``docs/bring-your-own.md``; where a plan runs: :mod:`planner.agents.scene_setup`).

Example:
    >>> from planner.api import plan                                    # doctest: +SKIP
    >>> p = plan("cut cake")                                            # doctest: +SKIP
    >>> p.choices[0].object_id                                          # doctest: +SKIP
    'Knife|+00.50|+00.95|-01.20'
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .agents.scene_setup import (
    ENV,
    SCENE_ID,
    check_env_arg,
    check_scene_args,
    env_id_of,
    is_env,
    open_plan_scene,
    own_observation,
    rebuild_args,
    scene_kwargs,
    start_in_env,
)
from .arguments import (
    COUNT,
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
from .config import PlannerConfig, Settings
from .errors import ConfigError
from .paths import use_data_dir
from .planning import Planner
from .scene_planner import Interpret, plan_in_state, planner_config, roles_for
from .schemas import ExecutionTrace, Plan, SceneState, TaskSpec
from .steps import affordances_of

if TYPE_CHECKING:
    import gymnasium
    from langchain_core.language_models import BaseChatModel

    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

logger = logging.getLogger(__name__)

DEFAULT_SCENE = "embedded/kitchen-v0"
_SCENE_KINDS = (f"{SCENE_ID}, a planner.schemas.SceneState, {ENV}, a scenes.SceneObs, an ai2thor Event or its "
                "metadata dict (with an 'objects' list)")


def make_estimator(kb: KnowledgeBase) -> Any:
    """Perception for the AI2-THOR family: the five variables from metadata, COAT's common values as priors."""
    from perception.metadata import MetadataEstimator
    from perception.priors import TypePriors

    got = _PRIORS.get(id(kb))
    if got is None or got[0] is not kb:  # checked once per knowledge base and process: priors only read it
        # perception gets COAT's common values passed in, not the knowledge base
        common = {o: kb.common_values(o) for o in kb.objects}
        got = _PRIORS[id(kb)] = (kb, TypePriors.from_common_values(common))
    return MetadataEstimator(priors=got[1])


_PRIORS: dict[int, tuple[KnowledgeBase, Any]] = {}


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
    _check_observe_args(scene, seed, options, estimator, kb, data_dir)
    return _observe(scene, seed, options, estimator, kb, data_dir, checked=True)


def _check_observe_args(scene: Any, seed: Any, options: Any, estimator: Any, kb: Any, data_dir: Any) -> None:
    check_type("scene", scene, str, SCENE_ID)
    check_scene_args(seed, options)
    if estimator is not None and not callable(getattr(estimator, "estimate", None)):
        raise TypeError(f"estimator must have an estimate(obs) method (perception.base), got "
                        f"{type(estimator).__name__} {shown(estimator)}")
    check_data_args(kb, data_dir)


def _observe(scene: str, seed: int | None, options: dict[str, Any] | None, estimator: Any, kb: KnowledgeBase | None,
             data_dir: Any, *, checked: bool) -> tuple[SceneEnv[Any, Any], SceneObs, SceneState]:
    """:func:`observe` after its checks; ``checked=False`` leaves out gymnasium's passive env checker (plan()'s
    own env of a coat scene, closed at once: the checker would inspect every object of every first observation)."""
    import scenes

    root = data_dir_of(kb, data_dir)
    with use_data_dir(root):
        env = scenes.make(scene, **scene_kwargs(scene, root), **({} if checked else {"disable_env_checker": True}))
        try:
            obs, _info = env.reset(seed=seed, options=options)
            est = estimator if estimator is not None else make_estimator(load_kb(kb, root))
            state = est.estimate(obs)
        except BaseException:
            env.close()
            raise
    return env, obs, state


def plan(
    task: str | TaskSpec,
    scene: str | SceneState | gymnasium.Env[Any, Any] | SceneObs | Mapping[str, Any] | Any = DEFAULT_SCENE,
    *,
    llm: LLMBackend | BaseChatModel | str | None = None,
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

    The scene is observed and perceived here; the :class:`~planner.planning.Planner` of these arguments and the
    ``COAT_*`` settings (the running command's, else :meth:`planner.config.Settings.from_env`) plans in it: read ->
    decide -> steps. One planner per configuration is kept (:func:`planner_for`).

    Args:
        task: What to do, in words ("cut cake", "boil water", "serving cake"), or a
            :class:`~planner.schemas.TaskSpec` (roles, targets, goal conditions).
        scene: Where to plan (``docs/bring-your-own.md`` has a snippet for each):

            - a scene id (``coat/kitchen-v0``, ``coat/FloorPlan1-v0``, ``coat/thor-FloorPlan1-v0``; the earlier
              ``embedded/kitchen-v0`` ids too): made, reset with ``seed`` and ``options``, and closed;
            - a gymnasium env (``scenes.make`` / ``gymnasium.make("coat/...")``, wrapped or not): reset with ``seed``
              and ``options``, left open for :func:`execute_plan`; the plan records its id, seed and options;
            - an observation: a ``scenes.SceneObs``, an ``ai2thor.server.Event`` (any object with a ``.metadata``
              mapping of AI2-THOR's shape) or its metadata dict (``event.metadata``: ``objects``, ``sceneName``...),
              perceived as it is (nothing is reset; the plan records no scene, see :func:`execute_plan`);
            - a SceneState from your own perception.
        llm: Model spec (``local``, ``local:gemma-270m``, ``openai:<model>``, ``ollama:<model>``, ``fake``), any
            langchain chat model (a ``BaseChatModel``: ChatOpenAI, ChatOllama, a fake; wrapped in
            :class:`planner.llm.LangChainBackend`, without the on-disk cache) or a backend; None (the default) decides
            with COAT's annotations alone, which measures best (``benchmarks/understanding.md``; the embedded models
            decide near chance, ``benchmarks/decision.md``).
        planner: ``two-stage`` (COAT's modular pipeline) or ``single`` (one prompt, for ablations).
        strategy: ``hybrid`` (COAT annotations where the task is annotated, the model otherwise), ``llm``,
            ``knowledge`` or ``learned`` (the selectors ``coat train`` learned from COAT's annotations).
        utility: Force the utility (one of COAT's 22) instead of inferring it from the task.
        interpret: How a task that is not a COAT task is decided once read (:mod:`planner.understanding`):
            ``nearest`` (default) lets each role borrow the annotations of the closest COAT task of its
            utility (reported in the plan's reason); ``exact`` leaves the request's words to the model.
        seed: Scene seed of a scene id's or an env's reset (ignored for an observation or a SceneState).
        options: Reset options of a scene id or an env, e.g. ``{"scenario": "knife-dirty"}``.
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
        TypeError: an argument of the wrong type (a task that is neither a str nor a TaskSpec, a scene of none of
            the kinds above, an llm that is no chat model and lacks the LLMBackend members, ...); the message names
            the argument, its value and what is accepted.
        ConfigError: bad arguments (an empty or overlong task, unknown planner/strategy/utility, a strategy that
            needs a model without one, ``kb`` loaded from another directory than ``data_dir``), metadata whose objects
            lack an ``objectId`` or ``objectType``, an env or observation without objects (ScienceWorld's text).
        UnknownIdError: unknown scene id, or a TaskSpec naming an object type AI2-THOR does not have.
    """
    check_plan_args(task, llm=llm, planner=planner, strategy=strategy, utility=utility, interpret=interpret,
                    kb=kb, data_dir=data_dir)
    kind = scene_kind(scene)
    check_scene_args(seed, options)
    kb = load_kb(kb, data_dir)
    with use_data_dir(kb.root):  # one data directory for everything the call reads: the knowledge base's
        if isinstance(task, TaskSpec):
            from .knowledge.alfred import check_types, object_types

            check_types(task, object_types(kb.root))
        if kind == "state":
            return planner_for(kb=kb, llm=llm, planner=planner, strategy=strategy, interpret=interpret,
                               learned=learned).plan(task, scene, utility=utility)
        if kind == "id":
            check_data_args(kb, None)  # as observe(scene, seed=seed, options=options, kb=kb) checks
            env, obs, state = _observe(scene, seed, options, None, kb, None, checked=False)
            env.close()
            env_id: str | None = scene
        elif kind == "env":
            obs = own_observation(scene.reset(seed=seed, options=options)[0], "the env's observation")
            env_id = env_id_of(scene)
        else:
            obs = own_observation(scene, "scene")
        if kind != "id":
            state = make_estimator(kb).estimate(obs)
        p = planner_for(kb=kb, llm=llm, planner=planner, strategy=strategy, interpret=interpret,
                        learned=learned).plan(task, state, utility=utility, affordances=affordances_of(obs.objects))
    if kind == "observation":
        return p  # perceived as given: no reset to record
    return p.model_copy(update={"env_id": env_id, "seed": seed, "options": _recorded_options(options, obs)})


_PLANNERS: OrderedDict[tuple[Any, ...], tuple[KnowledgeBase, Planner]] = OrderedDict()
_PLANNERS_LOCK = threading.Lock()
KEPT_PLANNERS = 8
"""Planners :func:`planner_for` keeps (the most recently used)."""


def planner_for(*, kb: KnowledgeBase, llm: LLMBackend | BaseChatModel | str | None = None,
                planner: str = "two-stage", strategy: str = "hybrid", interpret: str = "nearest",
                learned: Any = None) -> Planner:
    """The :class:`~planner.planning.Planner` of :func:`plan`'s arguments and the current settings
    (:func:`planner.config.current_settings`: the running command's, else the environment's).

    One planner per configuration and knowledge base is kept and reused (at most :data:`KEPT_PLANNERS`), so a
    model spec is built once; a model object or a trained model passed in gets a planner of its own each call.

    Raises:
        ConfigError: a bad argument or environment variable (the message names the valid values).
    """
    config, model, trained = planner_config(llm=llm, planner=planner, strategy=strategy, interpret=interpret,
                                            data_dir=kb.root, learned=learned)
    if model is not None or trained is not None:
        return Planner(config, kb=kb, llm=model, learned=trained)
    key = (config, id(kb))
    with _PLANNERS_LOCK:
        got = _PLANNERS.get(key)
        if got is not None and got[0] is kb:
            _PLANNERS.move_to_end(key)
            return got[1]
    made = Planner(config, kb=kb)
    with _PLANNERS_LOCK:
        _PLANNERS[key] = (kb, made)
        while len(_PLANNERS) > KEPT_PLANNERS:
            _PLANNERS.popitem(last=False)
    return made


def scene_kind(scene: Any) -> Literal["id", "state", "env", "observation"]:
    """What kind of scene :func:`plan` was given: a scene ``id``, a SceneState (``state``), a gymnasium ``env``, or
    an ``observation`` (a SceneObs, an ai2thor Event or its metadata dict).

    Raises:
        TypeError: none of these (the message names the value and every accepted kind).
    """
    from scenes.base import SceneObs

    if isinstance(scene, str):
        return "id"
    if isinstance(scene, SceneState):
        return "state"
    if isinstance(scene, SceneObs):
        return "observation"
    if is_env(scene):
        return "env"
    from perception.metadata import thor_metadata

    if thor_metadata(scene) is not None:
        return "observation"
    raise TypeError(f"scene must be {_SCENE_KINDS}, got {type(scene).__name__} {shown(scene)}")


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
    scene: str | gymnasium.Env[Any, Any] | None = None,
    *,
    obs: SceneObs | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    llm: LLMBackend | BaseChatModel | str | None = None,
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge", "learned"] = "hybrid",
    max_replans: int = 3,
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
) -> ExecutionTrace:
    """Carry the plan out in the closed loop: in the plan's own scene, rebuilt, or in the env you pass.

    Each step is verified on the next observation; an object found broken, busy for good, missing or faulty
    makes the loop decide that role again (with ``llm`` / ``planner`` / ``strategy``, as the plan was made)
    and re-plan, at most ``max_replans`` times.

    ``scene`` is where it runs:

    - None or a scene id: the scene is made, reset and closed. A plan ``plan()`` made in a scene id or an env
      records the id, the seed and the reset options (none is a record too): ``scene`` / ``seed`` / ``options``
      may only repeat them. A plan made from an observation or a SceneState records no scene: pass ``scene`` with
      the ``seed`` and ``options`` of the reset its objects came from.
    - a gymnasium env (``scenes.make`` / ``gymnasium.make("coat/...")``, wrapped or not: every step goes through
      its wrappers; it is left open): it must be of the plan's scene, else nothing runs (an env of another
      registered id is refused before it is touched). It is reset with the plan's seed and options (``seed`` /
      ``options`` for a plan that records none), or, given ``obs`` (its latest observation), not reset: the loop
      goes on from there.

    Either way the scene must hold every object the plan bound, or nothing runs.

    Returns:
        An :class:`~planner.schemas.ExecutionTrace`: ``achieved``, the goal conditions before and after,
        ``replans``, safety violations, every step with its outcome, and ``final_objects``.

    Raises:
        TypeError: an argument of the wrong type (``plan_`` not a Plan, an env whose unwrapped env is not a
            ``scenes.SceneEnv``, ``obs`` not a SceneObs, ...).
        ConfigError: an env of another scene than the plan's (one line naming both and the fix); ``scene`` /
            ``seed`` / ``options`` differ from the plan's own (a plan is bound to the objects of the scene it was
            made in); the plan records no scene and ``scene`` is not given; the scene lacks an object the plan
            bound; ``obs`` without an env, or with ``seed`` / ``options``; ``kb`` loaded from another directory
            than ``data_dir``; a negative ``max_replans``.
    """
    check_type("plan_", plan_, Plan, "a planner.schemas.Plan (what plan() returns)")
    check_decision_args(llm=llm, planner=planner, strategy=strategy, kb=kb, data_dir=data_dir)
    check_number("max_replans", max_replans, COUNT)
    from .agents.household import HouseholdLoop

    given_env = is_env(scene)
    if given_env:
        check_scene_args(seed, options)
        check_env_arg(scene, obs)
    elif scene is not None:
        check_type("scene", scene, str, f"{SCENE_ID}, {ENV} or None")
    if obs is not None and not given_env:
        raise ConfigError("obs= goes on from an observation of the env you pass: execute_plan(plan, env, obs=obs); "
                          "without an env, execute_plan rebuilds the plan's scene from its record")
    kb = load_kb(kb, data_dir)
    with use_data_dir(kb.root):  # the scene's files, re-perception and re-planning: the knowledge base's directory
        if given_env:
            env, obs = scene, start_in_env(plan_, scene, obs, seed=seed, options=options)
        else:
            env, obs = open_plan_scene(plan_, scene, seed=seed, options=options, data_dir=kb.root)
        try:
            loop = HouseholdLoop(env, make_estimator(kb), kb, llm=make_backend(llm), planner=planner,
                                 strategy=strategy, max_replans=max_replans)
            return loop.run(plan_, obs)
        finally:
            if not given_env:  # the env the caller passed stays theirs, open
                env.close()


__all__ = [
    "DEFAULT_SCENE", "Interpret", "Planner", "PlannerConfig", "Settings", "env_id_of", "execute_plan",
    "make_estimator", "observe", "open_plan_scene", "own_observation", "plan", "plan_in_state", "planner_for",
    "rebuild_args", "roles_for", "scene_kind", "start_in_env",
]
