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
import sys
from collections.abc import Mapping
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
    import gymnasium
    from langchain_core.language_models import BaseChatModel

    from scenes.base import SceneEnv, SceneObs

    from .knowledge import KnowledgeBase
    from .llm import LLMBackend

logger = logging.getLogger(__name__)

DEFAULT_SCENE = "embedded/kitchen-v0"
_SCENE_ID = "a scene id str (e.g. 'embedded/kitchen-v0'; `coat scenes list`)"
_ENV = "a gymnasium env of a coat scene (scenes.make or gymnasium.make('coat/...'), wrapped or not)"
_SCENE_KINDS = (f"{_SCENE_ID}, a planner.schemas.SceneState, {_ENV}, a scenes.SceneObs, an ai2thor Event or its "
                "metadata dict (with an 'objects' list)")


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
    _check_scene_args(seed, options)
    kb = load_kb(kb, data_dir)
    with use_data_dir(kb.root):  # one data directory for everything the call reads: the knowledge base's
        if isinstance(task, TaskSpec):
            from .knowledge.alfred import check_types, object_types

            check_types(task, object_types(kb.root))
        if kind == "state":
            return plan_in_state(task, scene, llm=llm, planner=planner, strategy=strategy, utility=utility,
                                 interpret=interpret, kb=kb, learned=learned)
        if kind == "id":
            env, obs, state = observe(scene, seed=seed, options=options, kb=kb)
            env.close()
            env_id: str | None = scene
        elif kind == "env":
            obs = own_observation(scene.reset(seed=seed, options=options)[0], "the env's observation")
            env_id = env_id_of(scene)
        else:
            obs = own_observation(scene, "scene")
        if kind != "id":
            state = make_estimator(kb).estimate(obs)
        p = plan_in_state(task, state, llm=llm, planner=planner, strategy=strategy, utility=utility,
                          interpret=interpret, kb=kb, affordances=affordances_of(obs.objects), learned=learned)
    if kind == "observation":
        return p  # perceived as given: no reset to record
    return p.model_copy(update={"env_id": env_id, "seed": seed, "options": _recorded_options(options, obs)})


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
    if _is_env(scene):
        return "env"
    from perception.metadata import thor_metadata

    if thor_metadata(scene) is not None:
        return "observation"
    raise TypeError(f"scene must be {_SCENE_KINDS}, got {type(scene).__name__} {shown(scene)}")


def _is_env(value: Any) -> bool:
    gym = sys.modules.get("gymnasium")  # an env cannot exist unless gymnasium was imported
    return gym is not None and isinstance(value, gym.Env)


def env_id_of(env: Any) -> str | None:
    """The registered id an env was made from (``env.unwrapped.spec.id``), or None for one built directly."""
    made = getattr(getattr(env, "unwrapped", env), "spec", None)
    return getattr(made, "id", None)


def own_observation(obs: Any, name: str) -> SceneObs:
    """``obs`` as the SceneObs the planner reads: a SceneObs as is, an ai2thor Event or metadata dict converted.

    Raises:
        TypeError: ``obs`` is none of these (e.g. a wrapper turned the observation into something else).
        ConfigError: metadata whose objects lack ``objectId`` / ``objectType``, or a text-only observation.
    """
    from perception.metadata import observation_from, thor_metadata
    from scenes.base import SceneObs

    if not isinstance(obs, SceneObs):
        if thor_metadata(obs) is None:
            raise TypeError(f"{name} must be a scenes.SceneObs, an ai2thor Event or its metadata dict, got "
                            f"{type(obs).__name__} {shown(obs)}: plan and execute in an env of a coat scene, whose "
                            "observations are SceneObs (an observation wrapper must keep them)")
        obs = observation_from(obs, name)
    if not obs.objects and obs.text is not None:
        raise ConfigError(f"{name} is text without objects (ScienceWorld): plan() and execute_plan() act in "
                          "AI2-THOR-family scenes; ScienceWorld is played by planner.agents.sciworld.SciWorldAgent")
    return obs


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

    given_env = _is_env(scene)
    if given_env:
        _check_scene_args(seed, options)
        _check_scene_env(scene, obs)
    elif obs is not None:
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


def _check_scene_env(env: Any, obs: Any) -> None:
    """An env execute_plan can act in (its unwrapped env a SceneEnv), and ``obs`` a SceneObs or None."""
    from scenes.base import SceneEnv, SceneObs

    base = getattr(env, "unwrapped", env)
    if not isinstance(base, SceneEnv):
        raise TypeError(f"scene must be {_SCENE_ID}, {_ENV} or None; the env's unwrapped env must be a "
                        f"scenes.SceneEnv, got {type(base).__name__}")
    if obs is not None:
        check_type("obs", obs, SceneObs, "the env's latest observation (a scenes.SceneObs) or None")


def start_in_env(plan_: Plan, env: Any, obs: SceneObs | None = None, *, seed: int | None = None,
                 options: dict[str, Any] | None = None) -> SceneObs:
    """Check that ``env`` is the plan's scene and reset it as the plan records (or go on from ``obs``).

    Returns:
        The observation the loop starts from.

    Raises:
        ConfigError: ``env`` was made for another scene than the plan's, or shows another (its scene's name), or
            lacks an object the plan bound; ``seed`` / ``options`` differ from the plan's record, or come with
            ``obs`` (nothing is reset then).
    """
    from scenes.registry import check_env_scene

    check_env_scene(env, plan_.env_id)  # one line naming both scenes and the fix, before the env is touched
    if obs is None:
        if plan_.env_id is not None:
            _, seed, opts = rebuild_args(plan_, seed=seed, options=options)
        else:  # no registered scene (made from an observation, a SceneState or an env built directly)
            seed = plan_.seed if seed is None else seed
            opts = _without_draw(plan_.options) if options is None else dict(options)
        obs = own_observation(env.reset(seed=seed, options=opts or None)[0], "the env's observation")
    elif seed is not None or options is not None:
        raise ConfigError("obs= goes on from that observation and resets nothing, so seed= and options= cannot "
                          "apply: pass obs= alone, or seed=/options= alone to reset the env")
    where = env_id_of(env) or type(getattr(env, "unwrapped", env)).__name__
    _check_scene_name(plan_, where, obs)
    _check_bound_objects(plan_, where, obs, made="the env")
    return obs


def _check_scene_name(plan_: Plan, where: str, obs: SceneObs) -> None:
    """A plan made in a registered scene refuses an env that shows another scene's name (an env built directly, or
    made from the plan's id with another ``scene=``)."""
    from perception.base import scene_id_of

    shown_here = scene_id_of(obs)
    if plan_.env_id is None or not plan_.scene_id or shown_here in ("scene", plan_.scene_id):
        return
    raise ConfigError(f"this plan was made in scene {plan_.env_id!r} ({plan_.scene_id}), but the env {where!r} shows "
                      f"{shown_here!r}: its objects are another scene's. Make the env with "
                      f"scenes.make({plan_.env_id!r}), or plan again in this env: plan(task, env)")


def _without_draw(options: dict[str, Any]) -> dict[str, Any]:
    """Recorded reset options without ``scenario_drawn`` (a record for the reader, not an option)."""
    return {k: v for k, v in (options or {}).items() if k != "scenario_drawn"}


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
            made = "a SceneState, an observation or an env built without an id" + (
                f" ({plan_.scene_id!r})" if plan_.scene_id else "")
            raise ConfigError(
                f"this plan records no scene to rebuild: it was made from {made}, not in a scene id, so the scene "
                "holding its objects is unknown here. Pass scene= (the env of that scene, or the registered scene "
                "whose reset gave those objects, e.g. 'embedded/kitchen-v0', with that reset's seed= and options=), "
                "or plan in the scene itself: plan(task, 'embedded/kitchen-v0', seed=..., options=...)")
        return scene, seed, dict(options or {})
    # "scenario_drawn" is a record for the reader: "random" with the same seed draws the same scenario again
    recorded = _without_draw(plan_.options)
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


def _check_bound_objects(plan_: Plan, env_id: str, obs: SceneObs, made: str = "the scene rebuilt for this plan"
                         ) -> None:
    """Refuse a scene that lacks an object the plan bound (the plan was made from other objects than these)."""
    here = {str(o.get("objectId")) for o in obs.objects}
    lost = [f"{oid} ({name})" for name, oid in plan_.bindings.items() if oid not in here]
    if not lost:
        return
    shown_lost = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
    if made == "the env":
        seen = f"{plan_.scene_id!r}'s: " if plan_.scene_id else ""
        raise ConfigError(f"the env ({env_id!r}) has no {shown_lost}: the plan was made from other objects ({seen}"
                          "another scene, reset or state). Plan again in this env: plan(task, env), or pass the env "
                          "of the scene its objects came from")
    raise ConfigError(f"{made} ({env_id!r}) has no {shown_lost}: the plan was made from other objects (another "
                      "scene, reset, data directory or SceneState). Plan again in this scene, or pass the scene=, "
                      "seed= and options= its objects came from")


__all__ = [
    "DEFAULT_SCENE", "Interpret", "env_id_of", "execute_plan", "make_estimator", "observe", "open_plan_scene",
    "own_observation", "plan", "plan_in_state", "rebuild_args", "roles_for", "scene_kind", "start_in_env",
]
