"""Fixtures for the scenes tests: an embedded kitchen and small helpers to drive it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scenes.base import Action, SceneObs
from scenes.embedded import EmbeddedEnv


@pytest.fixture
def kitchen() -> EmbeddedEnv:
    """A reset embedded kitchen without frames (fast)."""
    env = EmbeddedEnv("kitchen", frames=False)
    env.reset(seed=0)
    return env


def first(obs: SceneObs, object_type: str) -> dict[str, Any]:
    """The first object of a type in an observation."""
    return next(o for o in obs.objects if o["objectType"] == object_type)


@pytest.fixture
def act(kitchen: EmbeddedEnv) -> Callable[..., tuple[SceneObs, dict[str, Any]]]:
    """``act(name, object_id=None, **args)`` steps the kitchen (forceAction on) and returns (obs, info)."""

    def _act(name: str, object_id: str | None = None, **args: Any) -> tuple[SceneObs, dict[str, Any]]:
        args.setdefault("forceAction", True)
        obs, _, _, _, info = kitchen.step(Action(name=name, object_id=object_id, args=args))
        return obs, info

    return _act
