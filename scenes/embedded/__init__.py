"""The embedded household simulator: AI2-THOR 5.0.0's metadata, action names and contextual rules in Python.

Importing this package loads numpy only (ai2thor and cv2 are imported lazily, when an observation is built).

Example:
    >>> from scenes.embedded import EmbeddedEnv
    >>> env = EmbeddedEnv("kitchen", frames=False)
    >>> obs, info = env.reset(seed=0)
    >>> len(obs.objects[0])
    42
"""

from __future__ import annotations

from .env import EmbeddedEnv
from .loader import SceneData, load_scene, packaged_scene_names, scene_from_event
from .scenarios import SCENARIOS, apply_scenario
from .world import World

__all__ = [
    "SCENARIOS",
    "EmbeddedEnv",
    "SceneData",
    "World",
    "apply_scenario",
    "load_scene",
    "packaged_scene_names",
    "scene_from_event",
]
