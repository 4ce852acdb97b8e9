"""Conformance check for scene environments (our ``gymnasium.utils.env_checker.check_env``).

It drives an env through the contract of :class:`scenes.base.SceneEnv` and raises
:class:`ConformanceError` naming the first broken rule:

- ``reset(seed=...)`` returns ``(SceneObs, dict)``; the same seed gives the same observation;
- ``step`` returns ``(SceneObs, float, bool, bool, dict)`` with ``info["action_success"]`` (bool) and
  ``info["error"]`` (str, empty on success);
- an impossible action (unknown action name, unknown objectId) is a failed step, never an exception;
- the same seed and the same actions give the same observations (determinism);
- ``render()`` returns None, an HxWx3 uint8 array or a str;
- ``close()`` may be called twice.

Example:
    >>> import scenes
    >>> from scenes.checker import check_scene_env
    >>> with scenes.make("embedded/kitchen-v0") as env:            # doctest: +SKIP
    ...     check_scene_env(env)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Action, SceneEnv, SceneObs


class ConformanceError(AssertionError):
    """Raised when an environment breaks the SceneEnv contract; the message names the rule."""


def _fail(msg: str) -> None:
    raise ConformanceError(msg)


def _check_obs(obs: Any, where: str) -> None:
    if not isinstance(obs, SceneObs):
        _fail(f"{where}: observation must be a SceneObs, got {type(obs).__name__}")
    if not isinstance(obs.objects, tuple):
        _fail(f"{where}: SceneObs.objects must be a tuple, got {type(obs.objects).__name__}")
    for o in obs.objects[:5]:
        if not isinstance(o, dict) or "objectId" not in o:
            _fail(f"{where}: each object must be a dict with 'objectId'")
    if obs.rgb is not None and (not isinstance(obs.rgb, np.ndarray) or obs.rgb.ndim != 3 or obs.rgb.dtype != np.uint8):
        _fail(f"{where}: SceneObs.rgb must be an HxWx3 uint8 array or None")
    if obs.instance_masks is not None:
        for k, m in list(obs.instance_masks.items())[:5]:
            if not isinstance(k, str) or not isinstance(m, np.ndarray) or m.dtype != bool:
                _fail(f"{where}: instance_masks must map objectId -> bool array")
    if not isinstance(obs.time, (int, float)):
        _fail(f"{where}: SceneObs.time must be a number")


def _check_info(info: Any, where: str, *, step: bool) -> None:
    if not isinstance(info, dict):
        _fail(f"{where}: info must be a dict, got {type(info).__name__}")
    if step:
        if not isinstance(info.get("action_success"), bool):
            _fail(f"{where}: info['action_success'] must be a bool, got {info.get('action_success')!r}")
        if not isinstance(info.get("error"), str):
            _fail(f"{where}: info['error'] must be a str, got {info.get('error')!r}")
        if info["action_success"] and info["error"]:
            _fail(f"{where}: a successful step must have an empty info['error'], got {info['error']!r}")


def _check_step(out: Any, where: str) -> tuple[SceneObs, dict[str, Any]]:
    if not isinstance(out, tuple) or len(out) != 5:
        _fail(f"{where}: step must return (obs, reward, terminated, truncated, info)")
    obs, reward, terminated, truncated, info = out
    _check_obs(obs, where)
    if not isinstance(reward, (int, float)) or isinstance(reward, bool):
        _fail(f"{where}: reward must be a float, got {type(reward).__name__}")
    for name, v in (("terminated", terminated), ("truncated", truncated)):
        if not isinstance(v, (bool, np.bool_)):
            _fail(f"{where}: {name} must be a bool, got {type(v).__name__}")
    _check_info(info, where, step=True)
    return obs, info


def obs_equal(a: SceneObs, b: SceneObs) -> bool:
    """Return True when two observations carry the same objects, text and frames."""
    if a.objects != b.objects or a.text != b.text:
        return False
    for x, y in ((a.rgb, b.rgb), (a.depth, b.depth)):
        if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
            return False
    return True


def _rollout(env: SceneEnv[Any, Any], seed: int, actions: Sequence[Action]) -> list[SceneObs]:
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for a in actions:
        out.append(env.step(a)[0])
    return out


def check_scene_env(
    env: SceneEnv[Any, Any],
    *,
    seed: int = 0,
    actions: Sequence[Action] | None = None,
    failing_actions: Sequence[Action] | None = None,
    check_determinism: bool = True,
) -> None:
    """Check that ``env`` follows the SceneEnv contract; raise ConformanceError otherwise.

    The env is reset and stepped several times; as its last check this function calls ``close()`` twice, so the
    env is closed afterwards.

    Args:
        env: The environment (wrapped by ``scenes.make`` or not).
        seed: Seed for the reset/determinism checks.
        actions: Actions for the determinism rollout; default ``[Pass, Pass]``.
        failing_actions: Actions that must fail without raising; default an unknown action name and an
            unknown objectId.
        check_determinism: Compare two rollouts with the same seed.

    Raises:
        ConformanceError: naming the first rule that is broken.
    """
    if not isinstance(env, SceneEnv):
        _fail(f"env must be a SceneEnv, got {type(env).__name__}")
    actions = list(actions) if actions is not None else [Action(name="Pass"), Action(name="Pass")]
    failing = (
        list(failing_actions)
        if failing_actions is not None
        else [
            Action(name="NoSuchAction_xyz"),
            Action(name="PickupObject", object_id="NoSuchObject|+00.00|+00.00|+00.00"),
        ]
    )

    out = env.reset(seed=seed)
    if not isinstance(out, tuple) or len(out) != 2:
        _fail("reset must return (obs, info)")
    obs0, info0 = out
    _check_obs(obs0, "reset")
    _check_info(info0, "reset", step=False)

    obs1, _ = env.reset(seed=seed)
    if not obs_equal(obs0, obs1):
        _fail(f"reset(seed={seed}) twice gave different observations (seeding is not deterministic)")

    for i, a in enumerate(actions):
        _check_step(env.step(a), f"step {i} ({a.name})")

    for a in failing:
        try:
            res = env.step(a)
        except Exception as e:  # noqa: BLE001 — the contract is precisely "never raises"
            _fail(f"an impossible action {a.to_thor()} raised {type(e).__name__}: {e} (it must fail the step instead)")
        _, info = _check_step(res, f"impossible action {a.name}")
        if info["action_success"]:
            _fail(f"impossible action {a.to_thor()} reported success")
        if not info["error"]:
            _fail(f"impossible action {a.to_thor()} failed without an error message")

    r = env.render()
    if r is not None and not isinstance(r, str):
        if not isinstance(r, np.ndarray) or r.ndim != 3 or r.shape[2] != 3 or r.dtype != np.uint8:
            _fail("render() must return None, a str, or an HxWx3 uint8 array")

    if check_determinism:
        run1 = _rollout(env, seed, actions)
        run2 = _rollout(env, seed, actions)
        for i, (a, b) in enumerate(zip(run1, run2, strict=True)):
            if not obs_equal(a, b):
                _fail(f"two rollouts with seed={seed} differ at step {i} (the env is not deterministic)")

    try:
        env.close()
        env.close()
    except Exception as e:  # noqa: BLE001
        _fail(f"close() must be safe to call twice; it raised {type(e).__name__}: {e}")


__all__ = ["ConformanceError", "check_scene_env", "obs_equal"]
