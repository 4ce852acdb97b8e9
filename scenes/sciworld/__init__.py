"""ScienceWorld backend (text simulator on the JVM) behind SceneEnv, its task list and ground truth.

Importing this package does not import scienceworld or start Java; :class:`ScienceWorldEnv` does
(``pip install 'coat-planner[sciworld]'`` and Java 8+ on PATH).
"""

from __future__ import annotations

from .env import THOR_VERBS, ScienceWorldEnv, check_java, is_failure, java_version, parse_choices
from .objects import SWObject, flatten_tree, iter_objects
from .tasks import (
    CHANGE_OF_STATE_TASKS,
    ELECTRICAL_TASKS,
    SIMPLIFICATIONS,
    SPLIT_SIZES,
    TASKS,
    broken_devices,
    check_simplification,
    has_teleport,
    resolve_task,
    split_variations,
    substitute_variations,
    tasks,
)

__all__ = [
    "CHANGE_OF_STATE_TASKS",
    "ELECTRICAL_TASKS",
    "SIMPLIFICATIONS",
    "SPLIT_SIZES",
    "SWObject",
    "TASKS",
    "THOR_VERBS",
    "ScienceWorldEnv",
    "broken_devices",
    "check_java",
    "check_simplification",
    "flatten_tree",
    "has_teleport",
    "is_failure",
    "iter_objects",
    "java_version",
    "parse_choices",
    "resolve_task",
    "split_variations",
    "substitute_variations",
    "tasks",
]
