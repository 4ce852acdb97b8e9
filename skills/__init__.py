"""Action primitives that carry a plan out in any AI2-THOR-speaking environment.

Importing ``skills`` registers the built-in primitives: goto, open, close, pickup, put, toggle_on,
toggle_off, wait, wash, slice, prepare, use, and the ScienceWorld text skills of :mod:`skills.sciworld`
(``sw_teleport``, ``sw_take``, ``sw_fill``, ...). Add your own with ``@register_skill`` (see
examples/05_custom_skill.py).
"""

from __future__ import annotations

from . import primitives as _primitives  # noqa: F401  (registers the built-in skills)
from . import sciworld as _sciworld  # noqa: F401  (registers the ScienceWorld text skills)
from .base import DEFAULT_MAX_SKILL_STEPS, ActionOutcome, Skill, SkillContext, SkillResult
from .executor import ExecutionTrace, execute, run_skill
from .registry import get_skill, register_skill, skill_names, unregister_skill

__all__ = [
    "DEFAULT_MAX_SKILL_STEPS",
    "ActionOutcome",
    "ExecutionTrace",
    "Skill",
    "SkillContext",
    "SkillResult",
    "execute",
    "get_skill",
    "register_skill",
    "run_skill",
    "skill_names",
    "unregister_skill",
]
