"""coat-planner decision core: pick the right object, or a good substitute, for a household task.

``import planner`` is cheap: it never imports simulators, torch, OpenCV or model runtimes.
"""

from __future__ import annotations

from .errors import (
    ConfigError,
    DataError,
    DataNotFoundError,
    DependencyNotInstalled,
    PlannerError,
    RegistrationError,
    ResetNeeded,
    SelectionError,
    SimulatorError,
    UnknownIdError,
)
from .schemas import (
    Condition,
    InUse,
    Mass,
    Material,
    ObjectChoice,
    ObjectConfig,
    ObjectRecord,
    PhysicalState,
    Plan,
    SceneState,
    SkillCall,
    Temperature,
)

__version__ = "0.1.0"

__all__ = [
    "Condition",
    "ConfigError",
    "DataError",
    "DataNotFoundError",
    "DependencyNotInstalled",
    "InUse",
    "Mass",
    "Material",
    "ObjectChoice",
    "ObjectConfig",
    "ObjectRecord",
    "PhysicalState",
    "Plan",
    "PlannerError",
    "RegistrationError",
    "ResetNeeded",
    "SceneState",
    "SelectionError",
    "SimulatorError",
    "SkillCall",
    "Temperature",
    "UnknownIdError",
    "__version__",
]
