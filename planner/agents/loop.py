"""The closed loop every backend runs: perceive -> decide -> act -> verify -> re-plan.

:class:`ClosedLoop` is the shared driver; a backend supplies its own perception, skills and re-planning
through a few hooks. The driver keeps a queue of skill calls (:class:`LoopRun`) and runs them one at a time,
recording every :class:`~planner.schemas.SkillResult`. When a step fails, it asks which object is to blame
(the skill's ``blame``, or the backend's :meth:`ClosedLoop.culprit`), judges whether that is worth a new
decision (:func:`verdict`: an object missing, broken, faulty, blocking or in use for good is; someone using it
for a while only needs a wait), spends one unit of the re-plan budget, marks the object unusable and lets the
backend decide that role again (:meth:`ClosedLoop.redecide`), whose steps replace the queue. The backend turns
the run into its report (:meth:`ClosedLoop.report`).

Two loops use it:

- :class:`planner.agents.household.HouseholdLoop` (AI2-THOR family): metadata perception, the household
  skills, re-planning with ``plan_in_state``; reports an :class:`~planner.schemas.ExecutionTrace`;
- :class:`planner.agents.sciworld.SciWorldAgent` (ScienceWorld): text perception, the ``sw_*`` skills,
  re-planning by choosing another device for the phase; reports an ``EpisodeResult``.

Example:
    >>> from planner.schemas import SkillResult
    >>> verdict(SkillResult(skill="pickup", ok=False, fault="broken", blame="Knife|1"))
    're-decide'
    >>> verdict(SkillResult(skill="pickup", ok=False, fault="in-use", blame="Mug|1",
    ...                     reason="Mug|1 is being used by someone else (reversible-using)"))
    'wait'
    >>> verdict(SkillResult(skill="goto", ok=False, reason="no place to stand"))
    'give up'
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from ..schemas import SkillCall, SkillResult

logger = logging.getLogger(__name__)

Verdict = Literal["re-decide", "wait", "give up"]
"""What a failed step is worth: decide the blamed object's role again, wait for the object, or stop."""
DEFAULT_WAITS = 3
"""Waits a run may make for objects someone else uses for a while (a wait retries the failed step)."""


def reversible_use(reason: str) -> bool:
    """True when a failure's reason says the object is in use only for a while (``reversible-using``)."""
    return "reversible-using" in reason and "irreversible-using" not in reason


def verdict(res: SkillResult, blame: str | None = None) -> Verdict:
    """Judge a failed step: is a new decision for the blamed object worth it?

    ``blame`` is the object the backend holds responsible when the skill named none (an object it could not
    reach or make ready). A failure with no object to blame (a wrong plan, an exhausted step budget) cannot be fixed by
    another object: ``give up``. An object missing, broken, faulty, blocking, in use for good, or blamed without
    a named fault: ``re-decide``. An object someone else uses for a while (``in-use``, reversible): ``wait``.
    """
    if res.ok or (blame or res.blame) is None:
        return "give up"
    if res.fault == "in-use" and reversible_use(res.reason):
        return "wait"
    return "re-decide"


@dataclass
class LoopRun:
    """One execution's record: the step queue, every skill call's result, and what was found unusable.

    Attributes:
        queue: The skill calls still to run, in order.
        results: Every skill call's result, in the order they ran.
        excluded: Object id -> why it is unusable (left out of later decisions).
        notes: What the loop decided and why, in words.
        replans: Re-decisions made so far (the budget counts these).
        waits: Waits made for objects in use for a while.
        failure: Why the run stopped short, or "".
    """

    queue: deque[SkillCall] = field(default_factory=deque)
    results: list[SkillResult] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    replans: int = 0
    waits: int = 0
    failure: str = ""

    def load(self, steps: Iterable[SkillCall]) -> None:
        """Replace the queue with ``steps``."""
        self.queue = deque(steps)

    @property
    def steps(self) -> int:
        """Simulator steps over every skill call so far."""
        return sum(r.steps for r in self.results)


RunT = TypeVar("RunT", bound=LoopRun)
ResultT = TypeVar("ResultT")


def step_failure(call: SkillCall, res: SkillResult) -> str:
    """The failure text of one step: ``skill(target): reason``."""
    return f"{call.skill}({call.target}): {res.reason}"


class ClosedLoop(ABC, Generic[RunT, ResultT]):
    """Perceive -> decide -> act -> verify -> re-plan, with a re-plan budget; backends fill in the hooks.

    Required hooks: :meth:`act` (one skill call on the backend), :meth:`redecide` (a new decision for one
    role and the steps that follow from it) and :meth:`report` (the result). Optional, with defaults:
    :meth:`verify`, :meth:`tolerate`, :meth:`ended`, :meth:`culprit`, :meth:`wait_call`, :meth:`unusable_reason`.

    Attributes:
        max_replans: The re-plan budget of one run.
        max_waits: How often a run waits for objects in use for a while.
    """

    max_replans: int = 3
    max_waits: int = DEFAULT_WAITS

    # -- the driver

    def drive(self, run: RunT) -> bool:
        """Run the queue to the end, recovering from failures; False when the run had to stop short."""
        while run.queue:
            call = run.queue.popleft()
            res = self.step(run, call)
            if res.ok:
                res = self.verify(run, call, res)
            if res.ok or self.tolerate(run, call, res):
                continue
            if self.ended(run):
                run.failure = "episode ended"
                return False
            if not self.recover(run, call, res):
                return False
        return True

    def step(self, run: RunT, call: SkillCall) -> SkillResult:
        """Run one skill call and record its result."""
        res = self.act(run, call)
        run.results.append(res)
        logger.info("%s(%s): ok=%s %s", call.skill, call.target, res.ok, res.reason)
        return res

    def recover(self, run: RunT, call: SkillCall, res: SkillResult) -> bool:
        """After a failed step: wait for the object, or decide its role again and re-plan; False: stop."""
        blame, role = self.culprit(run, call, res)
        judged = verdict(res, blame) if blame is not None and role is not None else "give up"
        if judged == "give up" or blame is None or role is None:
            run.failure = step_failure(call, res)
            return False
        if judged == "wait" and run.waits < self.max_waits:
            wait = self.wait_call(run, blame, res)
            if wait is not None:
                run.waits += 1
                run.notes.append(f"{blame} is in use for a while; waiting, then {call.skill} again")
                run.queue.extendleft((call, wait))  # extendleft reverses: the wait runs first
                return True
        if not self.spend_replan(run, step_failure(call, res)):
            return False
        run.excluded[blame] = self.unusable_reason(res)
        steps = self.redecide(run, role, blame, res)
        if steps is None:
            return False
        run.load(steps)
        return True

    def spend_replan(self, run: RunT, last: str) -> bool:
        """Count one re-plan; False (and the failure recorded) when the budget is spent."""
        if run.replans >= self.max_replans:
            run.failure = f"re-plan budget of {self.max_replans} spent; last: {last}"
            return False
        run.replans += 1
        return True

    # -- the backend's hooks

    @abstractmethod
    def act(self, run: RunT, call: SkillCall) -> SkillResult:
        """Run one skill call on the backend (the skill checks its own postconditions)."""

    def verify(self, run: RunT, call: SkillCall, res: SkillResult) -> SkillResult:
        """Check a successful step beyond the skill's postconditions; a failed result blames an object."""
        return res

    def tolerate(self, run: RunT, call: SkillCall, res: SkillResult) -> bool:
        """True for a failed step the backend lets pass, because a later step checks what it was for."""
        return False

    def ended(self, run: RunT) -> bool:
        """True when the backend has ended the episode (nothing more can be done)."""
        return False

    def culprit(self, run: RunT, call: SkillCall, res: SkillResult) -> tuple[str | None, str | None]:
        """The object to replace and the role it plays (default: the skill's ``blame``, its own role)."""
        return res.blame, res.blame

    def wait_call(self, run: RunT, blame: str, res: SkillResult) -> SkillCall | None:
        """The call that waits for ``blame`` to be free, or None when the backend cannot wait (re-decide)."""
        return None

    def unusable_reason(self, res: SkillResult) -> str:
        """What ``excluded`` records for the blamed object (default: the fault)."""
        return res.fault or "failed"

    @abstractmethod
    def redecide(self, run: RunT, role: str, blame: str, res: SkillResult) -> Sequence[SkillCall] | None:
        """Decide ``role`` again without the unusable objects; the steps to run next, or None to stop
        (recording ``run.failure`` when there is something to say)."""

    @abstractmethod
    def report(self, run: RunT) -> ResultT:
        """The run's result."""


__all__ = ["DEFAULT_WAITS", "ClosedLoop", "LoopRun", "Verdict", "reversible_use", "step_failure", "verdict"]
