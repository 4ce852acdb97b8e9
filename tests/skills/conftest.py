"""Shared fixtures of the skill tests: the embedded kitchen, object ids by type, and setting state directly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import scenes
from scenes.base import Action, SceneObs


@pytest.fixture()
def kitchen() -> Iterator[tuple[Any, SceneObs]]:
    env = scenes.make("embedded/kitchen-v0")
    obs, _ = env.reset(seed=0)
    yield env, obs
    env.close()


def object_id(obs: SceneObs, object_type: str, i: int = 0) -> str:
    """The ``i``-th object of a type in an observation."""
    return [o["objectId"] for o in obs.objects if o["objectType"] == object_type][i]


def poke(env: Any, oid: str, **state: Any) -> SceneObs:
    """Set object state in the embedded world directly (a condition no scenario sets this way), then observe."""
    env.unwrapped.world.objs[oid].update(state)
    obs, *_ = env.step(Action(name="Pass"))
    return obs
