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

ITHOR_SCENES: tuple[int, ...] = (*range(1, 31), *range(201, 231), *range(301, 331), *range(401, 431))
"""Numbers of the 120 iTHOR scenes (kitchens 1-30, living rooms 201-230, bedrooms 301-330, bathrooms 401-430)."""

EMBEDDED_SCENES: tuple[str, ...] = ("kitchen", "living-room", "bathroom", "bedroom")
"""Hand-written scenes shipped in ``scenes/embedded/scenes/``."""


SCIWORLD_TASKS: tuple[str, ...] = (
    "boil", "melt", "freeze", "change-the-state-of-matter-of",
    "use-thermometer", "measure-melting-point-known-substance", "measure-melting-point-unknown-substance",
    "power-component", "power-component-renewable-vs-nonrenewable-energy", "test-conductivity",
    "test-conductivity-of-unknown-substances",
    "find-living-thing", "find-non-living-thing", "find-plant", "find-animal",
    "grow-plant", "grow-fruit",
    "chemistry-mix", "chemistry-mix-paint-secondary-color", "chemistry-mix-paint-tertiary-color",
    "lifespan-longest-lived", "lifespan-shortest-lived", "lifespan-longest-lived-then-shortest-lived",
    "identify-life-stages-1", "identify-life-stages-2",
    "inclined-plane-determine-angle", "inclined-plane-friction-named-surfaces",
    "inclined-plane-friction-unnamed-surfaces",
    "mendelian-genetics-known-plant", "mendelian-genetics-unknown-plant",
)  # fmt: skip
"""The 30 ScienceWorld 1.2 task names (ScienceWorld paper, Table 1; notes/scienceworld.md section 2)."""


def _register_builtin() -> None:
    for name in EMBEDDED_SCENES:
        register(f"embedded/{name}-v0", "scenes.embedded:EmbeddedEnv", kwargs={"scene": name})
    for n in ITHOR_SCENES:
        register(f"embedded/FloorPlan{n}-v0", "scenes.embedded:EmbeddedEnv", kwargs={"scene": f"FloorPlan{n}"})
    for n in ITHOR_SCENES:
        register(f"thor/FloorPlan{n}-v0", "scenes.thor:ThorEnv", kwargs={"scene": f"FloorPlan{n}"}, extra="thor")
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
