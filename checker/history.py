"""What the world recorded in one episode: the objects after reset and after every action, and :func:`replay`.

A :class:`History` is built either by :func:`replay` (the scene is reset with the episode's seed and options and
every logged action is sent again) or by hand in tests (:meth:`History.of`). ``frames[0]`` is the object list
after reset and ``frames[t]`` the list after the action ``actions[t - 1]``.

Example:
    >>> h = History.of([[{"objectId": "Apple|1", "objectType": "Apple"}]])
    >>> len(h.frames), h.agrees
    (1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

BUDGET_MARK = "step budget of"
"""A logged action whose error starts with this was never sent to the simulator (the skill's budget ran out)."""

Obj = Mapping[str, Any]
"""One object's metadata (AI2-THOR 5.0.0 keys; hand-built histories carry only the keys a test needs)."""


@dataclass(frozen=True)
class Step:
    """One action sent to the world, with its logged and replayed outcomes.

    Attributes:
        action: The AI2-THOR action name (``SliceObject``...).
        object_id: Its ``objectId`` argument, if any.
        args: The other arguments.
        logged: The success the episode's log reports.
        replayed: The success the replay observed (equal to ``logged`` in a hand-built history).
        error: The replay's error message (empty on success).
    """

    action: str
    object_id: str | None
    args: Mapping[str, Any]
    logged: bool
    replayed: bool
    error: str = ""

    @property
    def ok(self) -> bool:
        """Whether the world carried the action out (the replayed outcome: the world is the judge)."""
        return self.replayed


@dataclass(frozen=True)
class History:
    """One episode as the world recorded it.

    Attributes:
        frames: The object list after reset (``frames[0]``) and after each sent action.
        steps: The sent actions, in order (``steps[t - 1]`` produced ``frames[t]``).
        skipped: How many logged actions were not sent (step budget exhausted).
        scene: The scene id replayed ('' for a hand-built history).
        seed: The reset seed.
    """

    frames: tuple[tuple[Obj, ...], ...]
    steps: tuple[Step, ...] = ()
    skipped: int = 0
    scene: str = ""
    seed: int | None = None

    def __post_init__(self) -> None:
        if not self.frames:
            raise ValueError("a History needs at least the frame after reset")
        if len(self.frames) != len(self.steps) + 1:
            raise ValueError(f"{len(self.frames)} frames for {len(self.steps)} actions: need one more frame than "
                             "actions (the one after reset)")

    @classmethod
    def of(cls, frames: Iterable[Iterable[Obj]], actions: Iterable[Mapping[str, Any]] = ()) -> History:
        """A hand-built history: frames, and the actions between them as ActionOutcome-like dicts.

        Each action's replayed success is its logged ``success`` (default True). With no actions, every
        frame after the first gets a ``Pass``.
        """
        fr = tuple(tuple(f) for f in frames)
        acts = list(actions)
        if not acts:
            acts = [{"action": "Pass"}] * (len(fr) - 1)
        steps = tuple(_step(a, bool(a.get("success", True)), str(a.get("error", ""))) for a in acts)
        return cls(frames=fr, steps=steps)

    @property
    def disagreements(self) -> tuple[int, ...]:
        """Indices of the steps whose replayed success differs from the logged one."""
        return tuple(i for i, s in enumerate(self.steps) if s.logged != s.replayed)

    @property
    def agrees(self) -> bool:
        """True when every replayed success equals the logged one."""
        return not self.disagreements

    @property
    def last(self) -> int:
        """Index of the final frame."""
        return len(self.frames) - 1

    def poured_from(self, i: int) -> str | None:
        """The vessel ``steps[i]`` (a FillObjectWithLiquid) poured from, or None when it conjured its liquid.

        AI2-THOR has no pour action; a pour is its two actions back to back: ``EmptyLiquidFromObject`` of another
        vessel that held the same liquid, then ``FillObjectWithLiquid`` of this one. The liquid is conserved: the
        first vessel is empty afterwards, and where its liquid came from is where this one's came from.
        """
        fill = self.steps[i]
        if fill.action != "FillObjectWithLiquid" or not fill.ok or i == 0:
            return None
        empty = self.steps[i - 1]
        if empty.action != "EmptyLiquidFromObject" or not empty.ok or empty.object_id in (None, fill.object_id):
            return None
        before = next((o for o in self.frames[i - 1] if o.get("objectId") == empty.object_id), None)
        liquid = fill.args.get("fillLiquid")
        if before is None or not before.get("isFilledWithLiquid"):
            return None
        held = before.get("fillLiquid") or ("wine" if before.get("objectType") == "WineBottle" else None)
        if held != liquid:
            return None
        return str(empty.object_id)


def _step(a: Mapping[str, Any], replayed: bool, error: str) -> Step:
    return Step(action=str(a.get("action", "")), object_id=a.get("object_id"), args=dict(a.get("args") or {}),
                logged=bool(a.get("success", True)), replayed=replayed, error=error)


def was_sent(action: Mapping[str, Any]) -> bool:
    """False for a logged action the skill never sent (its step budget was exhausted)."""
    return not str(action.get("error", "") or "").startswith(BUDGET_MARK)


def replay(scene: str, seed: int | None, options: dict[str, Any] | None,
           actions: Sequence[Mapping[str, Any]]) -> History:
    """Reset ``scene`` with ``seed`` and ``options`` and send every logged action again.

    Args:
        scene: A registered scene id (``embedded/kitchen-v0``...).
        seed: The episode's reset seed.
        options: The episode's reset options (perturbations, scenario).
        actions: The logged actions: ``{"action", "object_id", "args", "success", "error"}`` dicts (the
            planner's ``ActionOutcome.model_dump()``); one whose error starts with ``step budget of`` is skipped.

    Returns:
        The :class:`History`: the objects after reset and after each sent action, and each action's logged and
        replayed success.
    """
    import scenes

    frames: list[tuple[Obj, ...]] = []
    steps: list[Step] = []
    skipped = 0
    with scenes.make(scene, frames=False) as env:
        obs, _info = env.reset(seed=seed, options=dict(options) if options else None)
        frames.append(tuple(obs.objects))
        for a in actions:
            if not was_sent(a):
                skipped += 1
                continue
            act = scenes.Action(name=str(a["action"]), object_id=a.get("object_id"), args=dict(a.get("args") or {}))
            obs, _r, _term, _trunc, info = env.step(act)
            frames.append(tuple(obs.objects))
            steps.append(_step(a, bool(info.get("action_success", False)), str(info.get("error", "") or "")))
    return History(frames=tuple(frames), steps=tuple(steps), skipped=skipped, scene=scene, seed=seed)


__all__ = ["BUDGET_MARK", "History", "Obj", "Step", "replay", "was_sent"]
