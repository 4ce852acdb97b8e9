"""Action primitives that carry a plan out in any AI2-THOR-speaking environment.

Importing ``skills`` registers the built-in skills:

- primitives (:mod:`skills.primitives`): goto, open, close, pickup, put, toggle_on, toggle_off, wait;
- composites (:mod:`skills.composite`): wash, prepare, use;
- task skills (:mod:`skills.tasks`, :mod:`skills.thermal`): slice, set_down, place, fill, bring,
  hold_near_light, heat, cool;
- the ScienceWorld text skills of :mod:`skills.sciworld` (``sw_teleport``, ``sw_take``, ``sw_fill``, ...) and
  :mod:`skills.sciworld_objects` (``sw_focus_on``, ``sw_move``, ``sw_connect``, ``sw_thermometer``, ...), and
  :mod:`skills.sciworld_rooms` (``sw_go_to``: teleport, or walk the doors seen).

Every call returns a :class:`SkillResult` whose ``fault`` and ``blame`` say which object let it down.
``run_skill`` runs one call (the closed loop's step); ``execute`` runs a whole plan open-loop. Add your own
skill with ``@register_skill`` (see examples/05_custom_skill.py).
"""

from __future__ import annotations

from . import composite as _composite  # noqa: F401  (registers wash, prepare, use)
from . import primitives as _primitives  # noqa: F401  (registers the built-in primitives)
from . import sciworld as _sciworld  # noqa: F401  (registers the ScienceWorld text skills)
from . import sciworld_objects as _sciworld_objects  # noqa: F401  (focus, move, connect, thermometer...)
from . import sciworld_rooms as _sciworld_rooms  # noqa: F401  (sw_go_to: teleport or walk)
from . import tasks as _tasks  # noqa: F401  (registers slice, set_down, place, fill, bring, hold_near_light)
from . import thermal as _thermal  # noqa: F401  (registers heat, cool)
from .base import (
    DEFAULT_MAX_SKILL_STEPS,
    FAULTS,
    ActionOutcome,
    Fault,
    Outcome,
    Skill,
    SkillContext,
    SkillResult,
    Unmet,
    failed,
)
from .executor import ExecutionTrace, execute, run_skill
from .registry import get_skill, register_skill, skill_names, unregister_skill

__all__ = [
    "DEFAULT_MAX_SKILL_STEPS",
    "FAULTS",
    "ActionOutcome",
    "ExecutionTrace",
    "Fault",
    "Outcome",
    "Skill",
    "SkillContext",
    "SkillResult",
    "Unmet",
    "execute",
    "failed",
    "get_skill",
    "register_skill",
    "run_skill",
    "skill_names",
    "unregister_skill",
]
