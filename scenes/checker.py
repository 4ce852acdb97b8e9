"""Conformance check for scene environments: Gymnasium's ``check_env`` plus the project's own rules.

:func:`check_scene_env` runs :func:`gymnasium.utils.env_checker.check_env` (spaces, reset/step signatures and
types, observations inside ``observation_space``, seeding, determinism, fresh data each step, render modes,
``close`` twice), then checks what Gymnasium does not know about, raising :class:`ConformanceError` naming the
first broken rule:

- ``step``'s ``info`` has ``action_success`` (bool) and ``error`` (str, empty on success);
- an impossible action (unknown action name, unknown objectId) is a failed step with an error, never an exception;
- (optionally) two rollouts of the same actions from the same seed give the same observations.

Example:
    >>> import gymnasium, scenes
    >>> from scenes.checker import check_scene_env
    >>> check_scene_env(gymnasium.make("coat/kitchen-v0", frames=False))      # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
from gymnasium.utils.env_checker import check_env

from .base import Action


class ConformanceError(AssertionError):
    """Raised when an environment breaks the scene contract; the message names the rule."""


def _fail(msg: str) -> None:
    raise ConformanceError(msg)


def _check_step(out: Any, where: str) -> tuple[Any, dict[str, Any]]:
    if not isinstance(out, tuple) or len(out) != 5 or not isinstance(out[4], dict):
        _fail(f"{where}: step must return (obs, reward, terminated, truncated, info) with info a dict")
    obs, _reward, _terminated, _truncated, info = out
    if not isinstance(info.get("action_success"), bool):
        _fail(f"{where}: info['action_success'] must be a bool, got {info.get('action_success')!r}")
    if not isinstance(info.get("error"), str):
        _fail(f"{where}: info['error'] must be a str, got {info.get('error')!r}")
    if info["action_success"] and info["error"]:
        _fail(f"{where}: a successful step must have an empty info['error'], got {info['error']!r}")
    return obs, info


def check_scene_env(
    env: gymnasium.Env[Any, Any],
    *,
    seed: int = 0,
    actions: Sequence[Action] | None = None,
    failing_actions: Sequence[Action] | None = None,
    check_determinism: bool = True,
) -> None:
    """Check that ``env`` follows Gymnasium's API and the scene contract; raise on the first broken rule.

    Gymnasium's ``check_env`` runs on ``env.unwrapped`` first. As its last step this closes ``env``.

    Args:
        env: The environment (made by ``gymnasium.make`` / ``scenes.make``, or a backend instance).
        seed: Seed for the project's rollouts.
        actions: Actions that must succeed-or-fail cleanly, and the determinism rollout; default ``[Pass, Pass]``.
        failing_actions: Actions that must fail without raising; default an unknown action name and an
            unknown objectId.
        check_determinism: Compare two rollouts of ``actions`` with the same seed (off for simulators that are
            not deterministic, such as ScienceWorld).

    Raises:
        AssertionError: Gymnasium's ``check_env`` found a problem (its message names it).
        ConformanceError: a project rule is broken (the message names it).
    """
    if not isinstance(env, gymnasium.Env):
        _fail(f"env must be a gymnasium.Env, got {type(env).__name__}")
    check_env(env.unwrapped, skip_close_check=True)  # the close check is the project's, on env itself, below
    actions = list(actions) if actions is not None else [Action(name="Pass"), Action(name="Pass")]
    failing = list(failing_actions) if failing_actions is not None else [
        Action(name="NoSuchAction_xyz"),
        Action(name="PickupObject", object_id="NoSuchObject|+00.00|+00.00|+00.00"),
    ]

    env.reset(seed=seed)
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

    if check_determinism:
        run1, run2 = _rollout(env, seed, actions), _rollout(env, seed, actions)
        for i, (a, b) in enumerate(zip(run1, run2, strict=True)):
            if a != b:
                _fail(f"two rollouts with seed={seed} differ at step {i} (the env is not deterministic)")

    try:
        env.close()
        env.close()
    except Exception as e:  # noqa: BLE001
        _fail(f"close() must be safe to call twice; it raised {type(e).__name__}: {e}")


def _rollout(env: gymnasium.Env[Any, Any], seed: int, actions: Sequence[Action]) -> list[Any]:
    obs, _ = env.reset(seed=seed)
    return [obs, *(env.step(a)[0] for a in actions)]


__all__ = ["ConformanceError", "check_scene_env"]
