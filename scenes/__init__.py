"""Scene backends behind one Gymnasium-style interface, and their registry.

Registered ids (nothing is imported until :func:`make`):

- ``embedded/kitchen-v0``, ``embedded/living-room-v0``, ``embedded/bathroom-v0``, ``embedded/bedroom-v0``:
  the embedded AI2-THOR-like simulator on scenes that ship with the project (no data needed);
- ``embedded/FloorPlan{N}-v0``: the embedded simulator on the real iTHOR scene N (needs the ``ai2thor/``
  reference data, see ``coat data download``);
- ``thor/FloorPlan{N}-v0``: real AI2-THOR (extra ``thor`` and a Unity build);
- ``sciworld/{task}-v0``: ScienceWorld (extra ``sciworld``, Java).

Example:
    >>> import scenes
    >>> from scenes import Action
    >>> with scenes.make("embedded/kitchen-v0") as env:                       # doctest: +SKIP
    ...     obs, info = env.reset(seed=0)
    ...     obs, reward, terminated, truncated, info = env.step(Action(name="Pass"))
"""

from __future__ import annotations

from .base import Action, RawObject, SceneEnv, SceneObs
from .registry import EnvSpec, make, register, registry_ids, spec

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


def _register_builtin() -> None:
    for name in EMBEDDED_SCENES:
        register(f"embedded/{name}-v0", "scenes.embedded:EmbeddedEnv", kwargs={"scene": name})
    for name in ITHOR_SCENES:
        register(f"embedded/{name}-v0", "scenes.embedded:EmbeddedEnv", kwargs={"scene": name})
    for name in ITHOR_SCENES:
        register(f"thor/{name}-v0", "scenes.thor:ThorEnv", kwargs={"scene": name}, extra="thor")
    for task in SCIWORLD_TASKS:
        register(f"sciworld/{task}-v0", "scenes.sciworld:ScienceWorldEnv", kwargs={"task": task}, extra="sciworld")


_register_builtin()

__all__ = [
    "EMBEDDED_SCENES",
    "ITHOR_SCENES",
    "SCIWORLD_TASKS",
    "Action",
    "EnvSpec",
    "RawObject",
    "SceneEnv",
    "SceneObs",
    "make",
    "register",
    "registry_ids",
    "spec",
]
