"""AI2-THOR backend: the real ``Controller`` behind SceneEnv, plus recorded traces and a replay controller.

Importing this package does not import ai2thor; :class:`ThorEnv` imports it when it starts a controller
(``pip install 'coat-planner[thor]'``).
"""

from __future__ import annotations

from .. import ITHOR_SCENES
from .env import ThorEnv, check_ithor_scene, physics_scene_name
from .replay import ReplayController
from .traces import Trace, event_from_metadata, load_trace, read_png, trace_names

__all__ = [
    "ITHOR_SCENES",
    "ReplayController",
    "ThorEnv",
    "Trace",
    "check_ithor_scene",
    "event_from_metadata",
    "load_trace",
    "physics_scene_name",
    "read_png",
    "trace_names",
]
