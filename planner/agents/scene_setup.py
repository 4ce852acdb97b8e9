"""Where a plan runs: the scene it records, rebuilt, or the env a caller passes, checked to be that scene.

A plan is bound to the objects of the scene it was made in. :func:`open_plan_scene` makes and resets the scene a plan
records (its id, seed and reset options; :func:`rebuild_args` refuses arguments that would make another);
:func:`start_in_env` checks an env the caller passes (its registered id before it is touched, then the scene name it
shows and every object the plan bound) and resets it as the plan records. :func:`own_observation` turns what a caller
observed (a SceneObs, an ai2thor Event or its metadata dict) into the SceneObs the planner reads.

Used by :mod:`planner.api` (``plan``, ``execute_plan``) and the ``coat plan`` command.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..arguments import SEED, check_data_args, check_number, check_type, shown
from ..errors import ConfigError
from ..paths import use_data_dir
from ..schemas import Plan

if TYPE_CHECKING:  # imported where used: importing planner.api loads no simulator
    from scenes.base import SceneEnv, SceneObs

SCENE_ID = "a scene id str (e.g. 'embedded/kitchen-v0'; `coat scenes list`)"
ENV = "a gymnasium env of a coat scene (scenes.make or gymnasium.make('coat/...'), wrapped or not)"


def check_scene_args(seed: Any, options: Any) -> None:
    """A seed is an int or None, reset options a dict with str keys or None."""
    if seed is not None:
        check_type("seed", seed, int, "an int or None")
        check_number("seed", seed, SEED)
    if options is not None:
        check_type("options", options, dict, "a dict of scene reset options (e.g. {'scenario': 'knife-dirty'}) or None")
        bad = [k for k in options if not isinstance(k, str)]
        if bad:
            raise TypeError(f"options keys must be str (option names such as 'scenario'), got {shown(bad[0])}")


def scene_kwargs(scene: str, data_dir: Any) -> dict[str, Any]:
    """The data directory reaches the embedded scenes too (FloorPlanN comes from its ``ai2thor/``)."""
    from scenes.registry import family_of, spec

    return {"data_dir": data_dir} if data_dir is not None and family_of(spec(scene)) == "embedded" else {}


def is_env(value: Any) -> bool:
    """True for a gymnasium env (a wrapper included)."""
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


def check_env_arg(env: Any, obs: Any) -> None:
    """An env execute_plan can act in (its unwrapped env a SceneEnv), and ``obs`` a SceneObs or None."""
    from scenes.base import SceneEnv, SceneObs

    base = getattr(env, "unwrapped", env)
    if not isinstance(base, SceneEnv):
        raise TypeError(f"scene must be {SCENE_ID}, {ENV} or None; the env's unwrapped env must be a "
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
            ``scene`` is not given, or the rebuilt scene lacks an object the plan bound (see
            :func:`planner.api.execute_plan`).
    """
    check_type("plan_", plan_, Plan, "a planner.schemas.Plan (what plan() returns)")
    if scene is not None:
        check_type("scene", scene, str, f"{SCENE_ID} or None")
    check_scene_args(seed, options)
    check_data_args(None, data_dir)
    import scenes

    env_id, seed, opts = rebuild_args(plan_, scene, seed=seed, options=options)
    with use_data_dir(data_dir):
        env = scenes.make(env_id, **scene_kwargs(env_id, data_dir))
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
    "ENV", "SCENE_ID", "check_env_arg", "check_scene_args", "env_id_of", "is_env", "open_plan_scene",
    "own_observation", "rebuild_args", "scene_kwargs", "start_in_env",
]
