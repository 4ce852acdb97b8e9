"""COAT's knowledge: the human annotations, the rule-based cost model, and resolving a task text to them.

``load_knowledge()`` reads and validates the annotation files of the data directory once per process;
``CostModel`` scores any configuration with COAT's penalties; ``resolve_task`` maps a free-text task to
COAT's utilities and annotated tasks.
"""

from __future__ import annotations

from .base import Combination, CommonValues, KnowledgeBase, MaterialPreference, PoolEntry, Templates
from .cost import (
    AVAILABILITY_PENALTY,
    BAD_THRESHOLD,
    CONDITION_PENALTY,
    TEMPERATURE_PENALTY,
    CostModel,
    ObjectRule,
    material_penalties,
    preferred_count,
)
from .loader import load_knowledge
from .tasks import TaskMatch, resolve_task

__all__ = [
    "AVAILABILITY_PENALTY",
    "BAD_THRESHOLD",
    "CONDITION_PENALTY",
    "TEMPERATURE_PENALTY",
    "Combination",
    "CommonValues",
    "CostModel",
    "KnowledgeBase",
    "MaterialPreference",
    "ObjectRule",
    "PoolEntry",
    "TaskMatch",
    "Templates",
    "load_knowledge",
    "material_penalties",
    "preferred_count",
    "resolve_task",
]
