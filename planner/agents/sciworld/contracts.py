"""The ScienceWorld agent's contracts: how it decides, what it decided, and one episode's record."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...schemas import Contract, Plan
from .facts import Goal
from .spec import TaskSpec

Policy = Literal["coat", "default"]
"""``coat``: COAT decisions, re-plan on failure; ``default``: the baseline (always the kitchen devices)."""
TaskWording = Literal["mapped", "literal"]
"""How a ScienceWorld phase is put to COAT: ``mapped`` names COAT's annotated analogue ("boil water",
:data:`~planner.agents.sciworld.facts.COAT_ROLES`), ``literal`` ScienceWorld's own words ("boil lead")."""


class DeviceChoice(Contract):
    """One decision the agent made and how using the chosen object went."""

    role: str
    """``heater``, ``cooler``, ``water``, ``vessel`` (change of state); ``find``, ``power source``... (other shapes)."""
    phase: str = ""
    object_id: str | None = None
    method: str
    coat_task: str | None = None
    utility: str | None = None
    excluded: dict[str, str] = Field(default_factory=dict)
    reason: str = ""
    plan: Plan | None = None
    outcome: str = "pending"


class EpisodeResult(Contract):
    """One ScienceWorld episode played by the agent (one JSONL row of the benchmark).

    The core fields match the household loop's :class:`~planner.schemas.ExecutionTrace`: ``completed`` is its
    ``achieved`` (ScienceWorld's own completion; also readable as :attr:`achieved`), ``replans`` and
    ``excluded`` mean the same, ``commands`` is its ``steps`` (simulator steps over every skill call;
    :attr:`steps`), ``failure`` is why the task was not done ("" when it was). ``error`` is set when the
    simulator itself died (the episode is then a failure with that reason).
    """

    task: str
    variation: int
    broken: tuple[str, ...] = ()
    policy: str
    llm: str | None = None
    interpret: str = "mapped"
    device_specs: bool = True
    goal: Goal | None = None
    shape: str = "change-state"
    """The task's shape (:func:`~.spec.shape_of`): which play the agent ran."""
    spec: TaskSpec | None = None
    """The task description as the agent read it."""
    answer: str = ""
    """What the agent concluded, for tasks that ask (``conductive``, ``above 100 C``...)."""
    played: bool = True
    """False for a task the agent has no play for yet: such a row is listed, never scored as played."""
    phases: tuple[str, ...] = ()
    score: int
    completed: bool
    moves: int
    commands: int
    choices: tuple[DeviceChoice, ...] = ()
    replans: int = 0
    substituted: bool = False
    devices_used: tuple[str, ...] = ()
    found_broken: tuple[str, ...] = ()
    excluded: dict[str, str] = Field(default_factory=dict)
    options: dict[str, int | str] = Field(default_factory=dict)
    """The run's settings beyond the agent's identity (step limit, wait and re-plan budgets, ScienceWorld's
    simplification; rows without one were played with ``easy``): part of the benchmark's resume key."""
    failure: str = ""
    error: str = ""
    seconds: float = 0.0
    transcript: tuple[str, ...] = ()

    @property
    def achieved(self) -> bool:
        """The task got done (ScienceWorld completed it): ``ExecutionTrace.achieved``."""
        return self.completed

    @property
    def steps(self) -> int:
        """Simulator steps over every skill call: ``ExecutionTrace.steps``."""
        return self.commands


class AgentConfig(Contract):
    """How the agent decides.

    Attributes:
        policy: ``coat`` (COAT decisions, re-plan on failure) or ``default`` (always the stove; baseline).
        llm: Model spec for :func:`planner.llm.make_llm` (``local``, ``fake``...) or None (COAT knowledge only).
        interpret: The :data:`TaskWording`: ``mapped`` (COAT's annotated analogue of each phase) or
            ``literal`` (ScienceWorld's words, e.g. "boil lead"; the model decides where COAT has no
            annotation). Default: ``mapped`` without a model, ``literal`` with one.
        device_specs: Leave out devices whose temperature range cannot cause the change
            (:data:`~planner.agents.sciworld.facts.HEATER_MAX_C`); without it a weak device is found only by
            trying it.
        max_heat_waits / max_cool_waits: ``wait1`` budget per device before giving up on it.
        max_replans: The re-plan budget of one episode (devices found unusable and decided again); the
            ``default`` policy never re-plans.
        keep_transcript: Keep every command and reply in the result.
    """

    policy: Policy = "coat"
    llm: str | None = None
    interpret: TaskWording | None = None
    device_specs: bool = True
    max_heat_waits: int = Field(default=25, ge=1)
    max_cool_waits: int = Field(default=30, ge=1)
    max_replans: int = Field(default=10, ge=0)
    keep_transcript: bool = True

    @property
    def interpretation(self) -> TaskWording:
        """The effective task wording."""
        return self.interpret or ("literal" if self.llm else "mapped")


__all__ = ["AgentConfig", "DeviceChoice", "EpisodeResult", "Policy", "TaskWording"]
