"""The COAT agent for ScienceWorld: one closed loop for every task, a task spec per task, text skills.

:class:`ScienceWorldPlayer` plays any of the 30 tasks it has a play for: the task description is read into a
:class:`TaskSpec` (:mod:`.spec`, patterns as data), change of state goes to :class:`SciWorldAgent` (COAT's
selector for heat sources and vessels), every other shape to :class:`TaskPlayer` (:mod:`.plays`,
:mod:`.measure`; two-stage choices in :mod:`.select` with knowledge as data files in ``data/``; goal checks on
the text in :mod:`.checks`). Tasks without a play yet are listed as not played (:func:`not_played`).

One module per concern:

- :mod:`.spec`: :class:`TaskSpec` and :func:`read_task` (``data/task_patterns.json``);
- :mod:`.select`, :mod:`.checks`: two-stage choices over the seen objects, goal checks on text;
- :mod:`.player`, :mod:`.plays`, :mod:`.measure`: the player and the plays of the task shapes;
- :mod:`.genetics`, :mod:`.heredity`: the breeding experiment of the genetics tasks and Mendel's rule on it;
- :mod:`.report`: the per-task table and JSON summary;

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
    expand_tasks,
    latest,
    not_played,
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
from .player import ScienceWorldPlayer, TaskPlayer
from .report import summary_json, task_table
from .spec import TaskSpec, read_task, shape_of

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
    "ScienceWorldPlayer",
    "SeenObject",
    "State",
    "Substance",
    "TaskPlayer",
    "TaskSpec",
    "TaskWording",
    "cooler_too_weak",
    "dead_episode",
    "episode_key",
    "episode_line",
    "expand_tasks",
    "heater_too_weak",
    "latest",
    "matches_substance",
    "needed_celsius",
    "not_played",
    "parse_goal",
    "phases_for",
    "rank_coolers",
    "rank_water_sources",
    "read_episodes",
    "read_task",
    "run_benchmark",
    "run_options",
    "select_variations",
    "shape_of",
    "state_at",
    "state_from_name",
    "summarize",
    "summary_json",
    "task_table",
    "vessel_unsafe",
]
