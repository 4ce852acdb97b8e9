"""The shared closed loop: the verdict on a failed step, waiting, the re-plan budget and re-deciding."""

from __future__ import annotations

from collections.abc import Sequence

from planner.agents.loop import ClosedLoop, LoopRun, verdict
from planner.schemas import SkillCall, SkillResult


def _fail(fault: str | None, blame: str | None = "Mug|1", reason: str = "") -> SkillResult:
    return SkillResult(skill="pickup", target="Mug|1", ok=False, fault=fault, blame=blame, reason=reason)  # type: ignore[arg-type]


def test_verdict() -> None:
    for fault in ("missing", "broken", "faulty", "blocked"):
        assert verdict(_fail(fault)) == "re-decide"
    assert verdict(_fail("in-use", reason="in use (irreversible-using)")) == "re-decide"
    assert verdict(_fail("in-use", reason="in use (reversible-using, 30 s left)")) == "wait"
    assert verdict(_fail(None, blame=None)) == "give up"
    assert verdict(SkillResult(skill="pickup", ok=True)) == "give up"


class _Scripted(ClosedLoop[LoopRun, LoopRun]):
    """Each call's outcomes in order (then success); re-deciding swaps Mug|1 for Cup|2."""

    def __init__(self, outcomes: dict[str, list[SkillResult]], max_replans: int = 3) -> None:
        self.outcomes = outcomes
        self.max_replans = max_replans

    def act(self, run: LoopRun, call: SkillCall) -> SkillResult:
        queue = self.outcomes.get(f"{call.skill}:{call.target}", [])
        return queue.pop(0) if queue else SkillResult(skill=call.skill, target=call.target, ok=True)

    def wait_call(self, run: LoopRun, blame: str, res: SkillResult) -> SkillCall | None:
        return SkillCall(skill="wait", target=blame)

    def redecide(self, run: LoopRun, role: str, blame: str, res: SkillResult) -> Sequence[SkillCall] | None:
        return None if blame == "Cup|2" else [SkillCall(skill="pickup", target="Cup|2")]

    def report(self, run: LoopRun) -> LoopRun:
        return run


def _drive(loop: _Scripted) -> tuple[bool, LoopRun]:
    run = LoopRun()
    run.load([SkillCall(skill="pickup", target="Mug|1"), SkillCall(skill="drink", target="Mug|1")])
    return loop.drive(run), loop.report(run)


def test_a_reversible_use_is_waited_for_and_the_step_retried() -> None:
    ok, run = _drive(_Scripted({"pickup:Mug|1": [_fail("in-use", reason="(reversible-using)")]}))
    assert ok and run.waits == 1 and run.replans == 0
    assert [(r.skill, r.target) for r in run.results] == [("pickup", "Mug|1"), ("wait", "Mug|1"),
                                                          ("pickup", "Mug|1"), ("drink", "Mug|1")]


def test_a_broken_object_is_excluded_and_its_role_decided_again() -> None:
    ok, run = _drive(_Scripted({"pickup:Mug|1": [_fail("broken")]}))
    assert ok and run.replans == 1 and run.excluded == {"Mug|1": "broken"}
    assert [r.target for r in run.results] == ["Mug|1", "Cup|2"]  # the new plan replaced the queue


def test_budget_and_giving_up() -> None:
    ok, run = _drive(_Scripted({"pickup:Mug|1": [_fail("broken")]}, max_replans=0))
    assert not ok and run.failure.startswith("re-plan budget of 0 spent; last: pickup(Mug|1)")
    ok, run = _drive(_Scripted({"pickup:Mug|1": [_fail(None, blame=None, reason="no place to stand")]}))
    assert not ok and run.failure == "pickup(Mug|1): no place to stand" and run.replans == 0
    ok, run = _drive(_Scripted({"pickup:Mug|1": [_fail("broken")], "pickup:Cup|2": [_fail("missing", "Cup|2")]}))
    assert not ok and run.replans == 2 and run.excluded == {"Mug|1": "broken", "Cup|2": "missing"}
