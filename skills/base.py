"""Skill interface: backend-agnostic action primitives with explicit pre- and post-conditions.

A skill turns one ``SkillCall`` (``skill="wash", target=<objectId>``) into AI2-THOR-named actions on any
``SceneEnv`` that speaks them (the embedded simulator, AI2-THOR). Failures are outcomes
(``SkillResult(ok=False, reason=...)``), never exceptions, so benchmarks can count them.

The contract of one call (habitat's ``SkillPolicy`` / ``PddlAction``): :meth:`Skill.unmet_preconditions` is
checked first (nothing is sent when one fails), then :meth:`Skill.run`, then :meth:`Skill.postconditions` on
the observation ``run`` left behind. A failed result says *whose* fault it was when an object's state caused
it: ``fault`` is one of :data:`FAULTS` and ``blame`` the object id (the broken knife, the burner someone else
uses, the microwave that never heated), so a closed-loop executor can decide that role again.

Example:
    >>> from skills import get_skill
    >>> get_skill("pickup").name
    'pickup'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from planner.schemas import FAULTS, ActionOutcome, Fault, SkillCall, SkillResult
from scenes.base import Action, RawObject, SceneEnv, SceneObs

DEFAULT_MAX_SKILL_STEPS = 120
"""Step budget of one skill call; a skill that needs more reports failure instead of looping."""




class Unmet(str):
    """An unmet pre- or postcondition: its text, and optionally the fault and the object to blame.

    It *is* a ``str``, so ``unmet_preconditions`` and ``postconditions`` still return ``list[str]``; the first
    entry that carries a fault gives the result its ``fault`` and ``blame``.

    Example:
        >>> u = Unmet("Knife|1 is broken", fault="broken", blame="Knife|1")
        >>> u, u.fault, u.blame
        ('Knife|1 is broken', 'broken', 'Knife|1')
    """

    fault: Fault | None
    blame: str | None

    def __new__(cls, text: str, fault: Fault | None = None, blame: str | None = None) -> Unmet:
        """Build from the text and the optional fault / blamed object id."""
        self = super().__new__(cls, text)
        self.fault = fault
        self.blame = blame
        return self


class Outcome(NamedTuple):
    """What :meth:`Skill.run` returns: ok, reason, and on failure the fault and the blamed object.

    A plain ``(ok, reason)`` tuple is accepted too (the fault is then None).
    """

    ok: bool
    reason: str = ""
    fault: Fault | None = None
    blame: str | None = None


def failed(reason: str, fault: Fault | None = None, blame: str | None = None) -> Outcome:
    """A failed :class:`Outcome`."""
    return Outcome(False, reason, fault, blame)


def _first_fault(items: list[str]) -> tuple[Fault | None, str | None]:
    for u in items:
        if isinstance(u, Unmet) and u.fault is not None:
            return u.fault, u.blame
    return None, None


@dataclass
class SkillContext:
    """What a running skill sees: the environment, its latest observation, and the actions so far.

    ``act`` is the only way skills touch the environment, so every step is recorded and budgeted.
    """

    env: SceneEnv[Any, Any]
    obs: SceneObs
    max_steps: int = DEFAULT_MAX_SKILL_STEPS
    actions: list[ActionOutcome] = field(default_factory=list)
    terminated: bool = False
    held_at_start: str | None = None
    """The object held when the current skill call started (set by :meth:`Skill.__call__`)."""

    def act(self, action: Action) -> bool:
        """Send one action; return whether it succeeded. Over budget, nothing is sent."""
        if len(self.actions) >= self.max_steps:
            self.actions.append(
                ActionOutcome(action=action.name, object_id=action.object_id, args=dict(action.args),
                              success=False, error=f"step budget of {self.max_steps} exhausted")
            )
            return False
        obs, _reward, terminated, truncated, info = self.env.step(action)
        self.obs = obs
        self.terminated = bool(terminated or truncated)
        ok = bool(info.get("action_success", False))
        self.actions.append(
            ActionOutcome(action=action.name, object_id=action.object_id, args=dict(action.args),
                          success=ok, error=str(info.get("error", "") or ""))
        )
        return ok

    @property
    def last_error(self) -> str:
        """Error message of the last action, or ''."""
        return self.actions[-1].error if self.actions else ""

    def objects(self) -> tuple[RawObject, ...]:
        """Current object metadata."""
        return self.obs.objects

    def find(self, object_id: str) -> RawObject | None:
        """Current metadata of one object, or None when it is gone (sliced, never existed)."""
        for o in self.obs.objects:
            if o.get("objectId") == object_id:
                return o
        return None

    def of_type(self, object_type: str) -> list[RawObject]:
        """Objects of one AI2-THOR type, nearest first."""
        found = [o for o in self.obs.objects if o.get("objectType") == object_type]
        return sorted(found, key=lambda o: (float(o.get("distance") or 0.0), o["objectId"]))

    def held(self) -> RawObject | None:
        """The object in the agent's hand, if any."""
        for o in self.obs.objects:
            if o.get("isPickedUp"):
                return o
        return None

    def in_use(self, object_id: str) -> str | None:
        """'reversible-using' / 'irreversible-using' when someone else is using the object, else None.

        Reads ``obs.extra["in_use"]``, the embedded simulator's table (objectId -> state string, or a dict with
        ``state``); backends without it report nothing in use. Only the state is read: how long someone else
        needs the object is not something a robot can observe.
        """
        entry = (self.obs.extra.get("in_use") or {}).get(object_id)
        if isinstance(entry, dict):
            return entry.get("state")
        return entry

    def fault_of(self, object_id: str) -> Unmet | None:
        """What makes this object unusable now: gone, broken, or used by someone else; None when nothing.

        Example:
            >>> ctx = SkillContext(env=None, obs=SceneObs(objects=({"objectId": "Mug|1", "isBroken": True},)))
            >>> ctx.fault_of("Mug|1").fault, ctx.fault_of("Cup|2").fault
            ('broken', 'missing')
        """
        o = self.find(object_id)
        if o is None:
            return Unmet(f"object {object_id!r} is not in the scene", fault="missing", blame=object_id)
        if o.get("isBroken"):
            return Unmet(f"{object_id} is broken", fault="broken", blame=object_id)
        use = self.in_use(object_id)
        if use:  # how long the other user needs it is theirs to know, not the robot's
            return Unmet(f"{object_id} is being used by someone else ({use})", fault="in-use", blame=object_id)
        return None

    resolve: ClassVar[Callable[[str], Skill] | None] = None
    """Skill name -> skill; the registry installs its lookup here, so a replaced built-in skill is the one used."""

    def sub(self, skill: str, target: str | None = None, **fields: Any) -> SkillResult:
        """Run another registered skill inside this one (its actions count in this context)."""
        if SkillContext.resolve is None:
            raise RuntimeError("no skill registry: import skills (the package installs its lookup)")
        return SkillContext.resolve(skill)(SkillCall(skill=skill, target=target, **fields), self)

    def wait(self, seconds: float) -> bool:
        """Let time pass: ``Wait`` (embedded simulator) or, where that action does not exist, ``Pass``."""
        if self.act(Action(name="Wait", args={"seconds": float(seconds)})):
            return True
        self.actions.pop()  # an unsupported Wait is not a failure of the skill; AI2-THOR knows only Pass
        return self.act(Action(name="Pass"))


class Skill(ABC):
    """A named action primitive. Subclasses set ``name`` and implement ``run``.

    ``unmet_preconditions`` lists what must hold before ``run`` can succeed (empty when ready); the
    executor checks it first and reports the unmet conditions as the failure reason, sending nothing.
    ``postconditions`` lists what does not hold on ``ctx.obs`` after a successful ``run``; any entry turns
    the result into a failure (``postcondition not met: ...``). Entries that are :class:`Unmet` carry the
    fault and the object to blame.
    """

    name: ClassVar[str]
    needs_target: ClassVar[bool] = True

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        """Return human-readable unmet preconditions (default: the target and any receptacle must exist)."""
        if self.needs_target:
            if call.target is None:
                return [f"skill {self.name!r} needs a target"]
            if ctx.find(call.target) is None:
                return [Unmet(f"object {call.target!r} is not in the scene", fault="missing", blame=call.target)]
        if call.receptacle is not None and ctx.find(call.receptacle) is None:
            return [Unmet(f"object {call.receptacle!r} is not in the scene", fault="missing", blame=call.receptacle)]
        return []

    def postconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        """Return the postconditions that do not hold on ``ctx.obs`` after ``run`` (default: none)."""
        return []

    @abstractmethod
    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome | tuple[bool, str]:
        """Carry the call out through ``ctx.act``; return an :class:`Outcome` or (ok, reason)."""

    def __call__(self, call: SkillCall, ctx: SkillContext) -> SkillResult:
        """Check the preconditions, run, check the postconditions; never raises for world outcomes."""
        start = len(ctx.actions)
        outer = ctx.held_at_start
        held = ctx.held()
        ctx.held_at_start = held.get("objectId") if held else None
        try:
            out = self._checked_run(call, ctx)
        finally:
            ctx.held_at_start = outer
        actions = tuple(ctx.actions[start:])
        opened = tuple(dict.fromkeys(
            a.object_id for a in actions
            if a.action == "OpenObject" and a.success and a.object_id and (ctx.find(a.object_id) or {}).get("isOpen")
        ))
        return SkillResult(skill=self.name, target=call.target, ok=out.ok, reason=out.reason,
                           fault=None if out.ok else out.fault, blame=None if out.ok else out.blame,
                           opened=opened, actions=actions)

    def _checked_run(self, call: SkillCall, ctx: SkillContext) -> Outcome:
        unmet = self.unmet_preconditions(call, ctx)
        if unmet:
            return Outcome(False, "; ".join(unmet), *_first_fault(unmet))
        intact = {o["objectId"] for o in ctx.objects() if not o.get("isBroken")}
        out = Outcome(*self.run(call, ctx))
        if not out.ok:
            return out
        # what the call touched and found broken (a mug that breaks when picked up) fails it, whatever the skill
        broke = [str(a.object_id) for a in ctx.actions if a.object_id in intact
                 and (ctx.find(a.object_id) or {}).get("isBroken")]
        if broke:
            return Outcome(False, f"{broke[0]} turned out to be broken when used", "broken", broke[0])
        post = self.postconditions(call, ctx)
        if post:
            return Outcome(False, "postcondition not met: " + "; ".join(post), *_first_fault(post))
        return out


__all__ = [
    "DEFAULT_MAX_SKILL_STEPS",
    "FAULTS",
    "ActionOutcome",
    "Fault",
    "Outcome",
    "Skill",
    "SkillContext",
    "SkillResult",
    "Unmet",
    "failed",
]
