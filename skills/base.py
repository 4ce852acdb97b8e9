"""Skill interface: backend-agnostic action primitives with explicit pre- and post-conditions.

A skill turns one ``SkillCall`` (``skill="wash", target=<objectId>``) into AI2-THOR-named actions on any
``SceneEnv`` that speaks them (the embedded simulator, AI2-THOR). Failures are outcomes
(``SkillResult(ok=False, reason=...)``), never exceptions, so benchmarks can count them.

Example:
    >>> from skills import get_skill
    >>> get_skill("pickup").name
    'pickup'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from planner.schemas import ActionOutcome, SkillCall, SkillResult
from scenes.base import Action, RawObject, SceneEnv, SceneObs

DEFAULT_MAX_SKILL_STEPS = 120
"""Step budget of one skill call; a skill that needs more reports failure instead of looping."""


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

        Reads ``obs.extra["in_use"]``, the embedded simulator's table (objectId -> state string, or a dict
        with ``state`` and ``remaining`` seconds); backends without it report nothing in use.
        """
        entry = (self.obs.extra.get("in_use") or {}).get(object_id)
        if isinstance(entry, dict):
            return entry.get("state")
        return entry

    def in_use_remaining(self, object_id: str) -> float | None:
        """Seconds until someone else is done with the object, when the backend knows."""
        entry = (self.obs.extra.get("in_use") or {}).get(object_id)
        if isinstance(entry, dict) and entry.get("remaining") is not None:
            return float(entry["remaining"])
        return None

    def wait(self, seconds: float) -> bool:
        """Let time pass: ``Wait`` (embedded simulator) or, where that action does not exist, ``Pass``."""
        if self.act(Action(name="Wait", args={"seconds": float(seconds)})):
            return True
        self.actions.pop()  # an unsupported Wait is not a failure of the skill; AI2-THOR knows only Pass
        return self.act(Action(name="Pass"))


class Skill(ABC):
    """A named action primitive. Subclasses set ``name`` and implement ``run``.

    ``unmet_preconditions`` lists what must hold before ``run`` can succeed (empty when ready); the
    executor checks it first and reports the first unmet condition as the failure reason.
    """

    name: ClassVar[str]
    needs_target: ClassVar[bool] = True

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        """Return human-readable unmet preconditions (default: the target must exist)."""
        if self.needs_target:
            if call.target is None:
                return [f"skill {self.name!r} needs a target"]
            if ctx.find(call.target) is None:
                return [f"object {call.target!r} is not in the scene"]
        return []

    @abstractmethod
    def run(self, call: SkillCall, ctx: SkillContext) -> tuple[bool, str]:
        """Carry the call out through ``ctx.act``; return (ok, reason)."""

    def __call__(self, call: SkillCall, ctx: SkillContext) -> SkillResult:
        start = len(ctx.actions)
        unmet = self.unmet_preconditions(call, ctx)
        if unmet:
            ok, reason = False, "; ".join(unmet)
        else:
            ok, reason = self.run(call, ctx)
        return SkillResult(skill=self.name, target=call.target, ok=ok, reason=reason,
                           actions=tuple(ctx.actions[start:]))


__all__ = ["DEFAULT_MAX_SKILL_STEPS", "ActionOutcome", "Skill", "SkillContext", "SkillResult"]
