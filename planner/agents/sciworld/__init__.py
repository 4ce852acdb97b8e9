"""The COAT agent for ScienceWorld's change-of-state tasks (boil, melt, freeze, change-the-state-of-matter-of).

One module per concern:

- :mod:`.facts`: what the agent knows beyond the text (substances, device ranges, the phases a task scores);
- :mod:`.memory`: :class:`RoomMemory`, the rooms seen so far (the text shows one room at a time);
- :mod:`.contracts`: :class:`AgentConfig`, :class:`DeviceChoice`, :class:`EpisodeResult`;
- :mod:`.decide`: COAT picks heat sources and vessels; rules rank coolers and water sources;
- :mod:`.agent`: :class:`SciWorldAgent`, perceive -> decide -> act through ``skills.sciworld`` -> verify;
- :mod:`.bench`: :func:`run_benchmark` and :func:`summarize` (``coat sciworld`` on the command line).

Importing this package starts no JVM; :class:`scenes.sciworld.ScienceWorldEnv` does.

Example:
    >>> from planner.agents.sciworld import SciWorldAgent                 # doctest: +SKIP
    >>> from scenes.sciworld import ScienceWorldEnv                       # doctest: +SKIP
    >>> with ScienceWorldEnv("boil") as env:                              # doctest: +SKIP
    ...     r = SciWorldAgent().run(env, variation=1)                     # the kitchen stove is broken
    >>> r.score, r.devices_used                                           # doctest: +SKIP
    (100, ('kitchen/sink', 'kitchen/oven'))
"""

from __future__ import annotations

from .agent import SciWorldAgent
from .bench import (
    SPLITS,
    dead_episode,
    episode_key,
    episode_line,
    latest,
    read_episodes,
    run_benchmark,
    run_options,
    select_variations,
    summarize,
)
from .contracts import AgentConfig, DeviceChoice, EpisodeResult, Policy, TaskWording
from .decide import rank_coolers, rank_water_sources
from .facts import (
    COAT_ROLES,
    COOLER_MIN_C,
    DEFAULT_DEVICES,
    DEFAULT_VESSEL,
    HEATER_MAX_C,
    SUBSTANCES,
    Goal,
    Phase,
    State,
    Substance,
    cooler_too_weak,
    heater_too_weak,
    matches_substance,
    needed_celsius,
    parse_goal,
    phases_for,
    state_at,
    state_from_name,
    vessel_unsafe,
)
from .memory import RoomMemory, SeenObject

__all__ = [
    "COAT_ROLES",
    "COOLER_MIN_C",
    "DEFAULT_DEVICES",
    "DEFAULT_VESSEL",
    "HEATER_MAX_C",
    "SPLITS",
    "SUBSTANCES",
    "AgentConfig",
    "DeviceChoice",
    "EpisodeResult",
    "Goal",
    "Phase",
    "Policy",
    "RoomMemory",
    "SciWorldAgent",
    "SeenObject",
    "State",
    "Substance",
    "TaskWording",
    "cooler_too_weak",
    "dead_episode",
    "episode_key",
    "episode_line",
    "heater_too_weak",
    "latest",
    "matches_substance",
    "needed_celsius",
    "parse_goal",
    "phases_for",
    "rank_coolers",
    "rank_water_sources",
    "read_episodes",
    "run_benchmark",
    "run_options",
    "select_variations",
    "state_at",
    "state_from_name",
    "summarize",
    "vessel_unsafe",
]
