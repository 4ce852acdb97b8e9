"""The contracts: every pydantic model that crosses from one stage or package to the next.

:mod:`.core` holds the five physical variables, object configurations, COAT questions, scene states and
decisions; :mod:`.tasks` the task model (roles, targets, goal conditions) and the plan. Enum values are the
dataset strings, so there is no translation layer; models are frozen and refuse unknown fields.
"""

from __future__ import annotations

from .core import *  # noqa: F403
from .core import __all__ as _core_all
from .tasks import *  # noqa: F403
from .tasks import __all__ as _tasks_all

__all__ = [*_core_all, *_tasks_all]  # pyright: ignore[reportUnsupportedDunderAll]
