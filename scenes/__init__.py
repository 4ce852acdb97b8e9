"""Scene backends as Gymnasium environments, registered in Gymnasium's registry under ``coat/``.

Registered ids (nothing is imported until an env is made):

- ``coat/kitchen-v0``, ``coat/living-room-v0``, ``coat/bathroom-v0``, ``coat/bedroom-v0``: the embedded
  AI2-THOR-like simulator on scenes that ship with the project (no data needed);
- ``coat/FloorPlan{N}-v0``: the embedded simulator on the real iTHOR scene N (needs the ``ai2thor/`` reference
  data, see ``coat data download``);
- ``coat/thor-FloorPlan{N}-v0``: real AI2-THOR (extra ``thor`` and a Unity build);
- ``coat/sciworld-{task}-v0``: ScienceWorld (extra ``sciworld``, Java).

The ids of earlier releases (``embedded/kitchen-v0``, ``thor/FloorPlan1-v0``, ``sciworld/boil-v0``) still work
in :func:`make`. Without ``import scenes``, Gymnasium imports it when asked:
``gymnasium.make("scenes:coat/kitchen-v0")``.

Example:
    >>> import gymnasium, scenes
    >>> from scenes import Action
    >>> with gymnasium.make("coat/kitchen-v0") as env:                        # doctest: +SKIP
    ...     obs, info = env.reset(seed=0)
    ...     obs, reward, terminated, truncated, info = env.step(Action(name="Pass"))
"""

from __future__ import annotations

from .base import Action, RawObject, SceneEnv, SceneObs
from .registry import canonical_id, make, register_family, registry_ids, same_scene, spec

# the task list is pure data: this imports neither scienceworld nor Java (both come with ScienceWorldEnv)
from .sciworld.tasks import tasks as _sciworld_task_names

ITHOR_SCENES: tuple[str, ...] = tuple(
    f"FloorPlan{n}" for lo, hi in ((1, 31), (201, 231), (301, 331), (401, 431)) for n in range(lo, hi)
)
"""The 120 iTHOR scenes: kitchens FloorPlan1-30, living rooms 201-230, bedrooms 301-330, bathrooms 401-430."""

EMBEDDED_SCENES: tuple[str, ...] = ("kitchen", "living-room", "bathroom", "bedroom")
"""Hand-written scenes shipped in ``scenes/embedded/scenes/``."""

SCIWORLD_TASKS: tuple[str, ...] = tuple(_sciworld_task_names())
"""The 30 ScienceWorld 1.2 task names, in ScienceWorld's order (from :data:`scenes.sciworld.tasks.TASKS`)."""

register_family("embedded", EMBEDDED_SCENES + ITHOR_SCENES, "scene")
register_family("thor", ITHOR_SCENES, "scene")
# ScienceWorld 1.2.3's heat transfer is not deterministic: Gymnasium's checker then skips its determinism checks
register_family("sciworld", SCIWORLD_TASKS, "task", nondeterministic=True)

__all__ = [
    "EMBEDDED_SCENES",
    "ITHOR_SCENES",
    "SCIWORLD_TASKS",
    "Action",
    "RawObject",
    "SceneEnv",
    "SceneObs",
    "canonical_id",
    "make",
    "registry_ids",
    "same_scene",
    "spec",
]
