"""One episode's plumbing for the ScienceWorld agent: the env tap, the loop's record, and stop signals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from perception.text import THERMOMETER_READING
from skills import SkillResult

from ...schemas import SkillCall
from ..loop import LoopRun
from .contracts import DeviceChoice
from .facts import PLATEAU_MIN_CHANGE_C, PLATEAU_WINDOW, Phase
from .memory import SeenObject

if TYPE_CHECKING:
    from scenes.base import SceneEnv


class Tap:
    """Forwards to a SceneEnv and keeps the last step's info (SkillContext records only success/error)."""

    def __init__(self, env: SceneEnv[Any, Any]) -> None:
        self.env = env
        self.info: dict[str, Any] = {}
        self.truncated = False

    def reset(self, **kw: Any) -> Any:
        return self.env.reset(**kw)

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.info = info
        self.truncated = bool(truncated)
        return obs, reward, terminated, truncated, info


class EpisodeOver(Exception):
    """The episode ended (task completed or failed, or the step limit): stop acting."""


class Stuck(Exception):
    """The procedure cannot continue (nothing left to try); the episode is scored as it stands."""


def read_temperature(reply: str) -> float | None:
    """The temperature a thermometer reply reports, or None."""
    m = THERMOMETER_READING.search(reply)
    return float(m.group(1)) if m else None


def stalled(readings: list[float], ph: Phase) -> bool:
    """The temperature has stopped moving towards the phase's target (the device is too weak)."""
    if len(readings) <= PLATEAU_WINDOW:
        return False
    change = readings[-1] - readings[-1 - PLATEAU_WINDOW]
    if ph.direction == "cool":
        change = -change
    return change < PLATEAU_MIN_CHANGE_C


@dataclass(kw_only=True)
class Episode(LoopRun):
    """One episode's loop record, plus the role being served: its device, the decision, the vessel."""

    env: Any
    tap: Tap
    variation: int
    t0: float
    phases: tuple[Phase, ...] = ()
    role: str = ""
    device: SeenObject | None = None
    choice: DeviceChoice | None = None
    vessel: str = ""
    phase: Phase | None = None


def blamed(call: SkillCall, reason: str, fault: Literal["missing", "faulty"], blame: str) -> SkillResult:
    """A step that ran but did not do its job, blamed on ``blame``."""
    return SkillResult(skill=call.skill, target=call.target, ok=False, reason=reason, fault=fault, blame=blame)


__all__ = ["Episode", "EpisodeOver", "Stuck", "Tap", "blamed", "read_temperature", "stalled"]
