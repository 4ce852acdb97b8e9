"""Faults that show only on use: extensions beyond AI2-THOR, for exercising closed-loop execution.

AI2-THOR objects are either fine or visibly broken. A robot that verifies its steps must also meet objects
that look fine when it plans and fail when it uses them; these three faults are the embedded simulator's own
(none of them exists in AI2-THOR, and none changes the 42 metadata keys until the fault shows):

- **faulty** (:attr:`faulty`): an appliance switches on as usual (``isToggled`` True) but does nothing: a
  faulty Microwave, StoveBurner, Toaster or CoffeeMachine never heats, cooks or makes coffee, a faulty Fridge
  never cools, a faulty Faucet or ShowerHead runs no water (the contextual rules skip it). A faulty StoveKnob
  makes the burners it controls faulty.
- **breaks-on-pickup** (:attr:`break_on_pickup`): the object looks fine until the robot picks it up; the
  pickup succeeds and the object in the hand is then broken (``isBroken`` True, liquid spilled) and
  irreversible-using (:meth:`mark_broken`). Objects armed together form a group: the first pickup of any
  member breaks it and disarms the rest (scenario ``knife-breaks``: the first knife picked up is broken).
- **taken-on-approach** (:attr:`take_on_approach`): someone else takes the object for good (irreversible-using,
  ``by="someone else"``) as the robot comes within reach. Deterministic rule: after every action, each armed
  object whose box centre is within ``visibility_distance`` (1.5 m by default, measured in the floor plane, as
  visibility is) of the agent is taken; and an action aimed at an armed object (``objectId``) takes it before the
  action runs, so that action fails with the in-use error (an action on the StoveKnob that switches an armed
burner takes the burner). Nothing is taken at reset, so the planner sees the
  object free.
"""

from __future__ import annotations

import math
from typing import Any

from ..metadata import box_of
from .availability import Availability

BROKEN_BY = "nobody: it is broken"
"""The ``by`` of the irreversible use claim a broken object gets (perturbation ``broken``, breaks-on-pickup)."""
TAKEN_BY = "someone else"
"""Who takes a taken-on-approach object."""


class Faults(Availability):
    """Hidden faults (:attr:`faulty`, :attr:`break_on_pickup`, :attr:`take_on_approach`) and their triggers."""

    def mark_broken(self, oid: str) -> None:
        """Make ``oid`` broken and irreversible-using, whether or not its type is breakable (no egg cracking)."""
        o = self.objs[oid]
        o["isBroken"] = True
        if o["isFilledWithLiquid"]:
            o["isFilledWithLiquid"] = False
            o["fillLiquid"] = None
        if o["toggleable"] and o["isToggled"]:
            o["isToggled"] = False
            for c in o["controlledObjects"] or []:
                if c in self.objs:
                    self.objs[c]["isToggled"] = False
        self.set_in_use(oid, None, by=BROKEN_BY)
        self.state_version += 1

    def set_faulty(self, oid: str) -> None:
        """Make an appliance faulty (a StoveKnob: the burners it controls too)."""
        self.faulty.add(oid)
        for c in self.objs[oid]["controlledObjects"] or []:
            self.faulty.add(c)
        self.state_version += 1

    def _picked_up(self, oid: str) -> None:
        group = self.break_on_pickup.get(oid)
        if group is None:
            return
        for k in [k for k, g in self.break_on_pickup.items() if g == group]:
            del self.break_on_pickup[k]
        self.mark_broken(oid)
        self.fired.setdefault(oid, set()).add("broke-on-pickup")

    def _approach_before(self, params: dict[str, Any]) -> None:
        oid = params.get("objectId")
        if not isinstance(oid, str) or oid not in self.objs:
            return
        # an action on the object, or on the knob that switches it, reaches for it
        for k in (oid, *(self.objs[oid]["controlledObjects"] or [])):
            if k in self.take_on_approach:
                self._take(k)

    def _approach_after(self) -> None:
        x, _, z = self.pos
        reach = self.visibility_distance
        for oid in sorted(self.take_on_approach):
            o = self.objs.get(oid)
            if o is None:
                self.take_on_approach.discard(oid)
                continue
            c, _ = box_of(o)
            if math.hypot(c[0] - x, c[2] - z) <= reach:
                self._take(oid)

    def _take(self, oid: str) -> None:
        self.take_on_approach.discard(oid)
        if oid in self.objs and oid != self.held:
            self.set_in_use(oid, None, by=TAKEN_BY)
            self.fired.setdefault(oid, set()).add("taken-by-someone")
            self.state_version += 1


__all__ = ["BROKEN_BY", "TAKEN_BY", "Faults"]
