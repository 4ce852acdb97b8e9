"""Wrappers around a SceneEnv (Gymnasium's ``Wrapper``, ``OrderEnforcing`` and ``TimeLimit``).

Example:
    >>> from scenes.base import Action
    >>> env = TimeLimit(OrderEnforcing(SomeEnv()), max_steps=2)    # doctest: +SKIP
    >>> env.step(Action(name="Pass"))                               # doctest: +SKIP
    Traceback (most recent call last):
    planner.errors.ResetNeeded: call reset() first ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.errors import ConfigError, ResetNeeded

from .base import SceneEnv


class Wrapper(SceneEnv[Any, Any]):
    """Forward everything to the wrapped env; subclasses override what they change.

    Public attributes the wrapper does not define (``env.world``, ``env.scene_name``...) are looked up on the
    wrapped env, so backend-specific helpers stay reachable through ``make``'s wrappers.
    """

    def __init__(self, env: SceneEnv[Any, Any]) -> None:
        if not isinstance(env, SceneEnv):
            raise ConfigError(f"Wrapper needs a SceneEnv, got {type(env).__name__}")
        self.env = env

    @property
    def unwrapped(self) -> SceneEnv[Any, Any]:
        """The innermost (unwrapped) environment."""
        e: SceneEnv[Any, Any] = self.env
        while isinstance(e, Wrapper):
            e = e.env
        return e

    @property  # type: ignore[override]
    def spec_id(self) -> str | None:
        return self.env.spec_id

    @spec_id.setter
    def spec_id(self, value: str | None) -> None:
        self.env.spec_id = value

    @property  # type: ignore[override]
    def metadata(self) -> dict[str, Any]:
        return self.env.metadata

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails; never forward private names (avoids recursion in copy/pickle)
        if name.startswith("_") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.step(action)

    def render(self) -> np.ndarray | str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.env!r}>"


class OrderEnforcing(Wrapper):
    """Raise :class:`~planner.errors.ResetNeeded` when ``step``/``render`` come before ``reset``."""

    def __init__(self, env: SceneEnv[Any, Any]) -> None:
        super().__init__(env)
        self._has_reset = False

    @property
    def has_reset(self) -> bool:
        """True once reset() has been called."""
        return self._has_reset

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        out = self.env.reset(seed=seed, options=options)
        self._has_reset = True
        return out

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise ResetNeeded(
                f"call reset() first: {self.spec_id or type(self.unwrapped).__name__} was stepped before reset()"
            )
        return self.env.step(action)

    def render(self) -> np.ndarray | str | None:
        if not self._has_reset:
            raise ResetNeeded(
                f"call reset() first: {self.spec_id or type(self.unwrapped).__name__} was rendered before reset()"
            )
        return self.env.render()


class TimeLimit(Wrapper):
    """Truncate an episode after ``max_steps`` steps (``truncated=True``; ``info["TimeLimit.truncated"]``)."""

    def __init__(self, env: SceneEnv[Any, Any], max_steps: int) -> None:
        super().__init__(env)
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps <= 0:
            raise ConfigError(f"max_steps must be a positive int, got {max_steps!r}")
        self.max_steps = max_steps
        self.elapsed_steps = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        self.elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.elapsed_steps += 1
        if self.elapsed_steps >= self.max_steps and not terminated:
            truncated = True
            info = {**info, "TimeLimit.truncated": True}
        return obs, reward, terminated, truncated, info


__all__ = ["OrderEnforcing", "TimeLimit", "Wrapper"]
