"""AI2-THOR's contextual state changes: time passing, heat, cold, running water, cooling down.

- Cold: ``ColdZone.OnTriggerStay`` makes whatever is in a Fridge Cold.
- Heat: ``HeatZone.OnTriggerStay`` (active while its Microwave, StoveBurner or Toaster is on) makes whatever is in
  the zone Hot and cooks what is cookable, except that a zone with ``CanToastBread`` false (the Microwave's) does not
  toast a BreadSliced. A StoveBurner holds only a Pot, Pan or Kettle (:mod:`~planner.schemas.thor_rules`), so food
  is cooked on it through the pot or pan it is in; the zone is approximated by the burner's contents, recursively.
- Coffee: ``coffeemachine.Serve`` fills the object at a running CoffeeMachine's attach point (only a Mug can be
  put there) with coffee when it is empty (``Fill.FillObject``: coffee is Hot).
- Water: a running Faucet or ShowerHead's stream (a trigger tagged ``Liquid``) cleans the dirty
  (``Dirty.OnTriggerStay``), fills the empty fillable with water (``Fill.OnTriggerStay``) and puts out a lit candle;
  the stream is approximated by the contents of the basin under it.
- Cooling down: ``SimObjPhysics.HowManySecondsUntilRoomTemp`` (10 s) after leaving every zone.

What AI2-THOR has deactivated (the whole of a sliced object) is in no receptacle and takes no contextual effect;
a broken object takes no water or coffee (a broken container has shattered: ``Break.BreakObject`` deactivates its
colliders, so no stream or attach point reaches it). A faulty appliance (:mod:`~scenes.embedded.world.faults`,
an extension) is skipped: it may be switched on but heats, cools or runs water for nothing.
"""

from __future__ import annotations

from planner.schemas.thor_rules import HEAT_ZONE_TOASTS_BREAD

from .state import WorldState


class StateRules(WorldState):
    """Rules that run after every action (:meth:`advance` then :meth:`settle`)."""

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass, then apply the contextual rules."""
        if seconds > 0:
            self.time += seconds
        for k in [k for k, u in self.in_use.items() if u.until <= self.time]:
            for switch in self.in_use.pop(k).switch_off:
                self._switch_off(switch)
        self.settle()

    def _switch_off(self, oid: str) -> None:
        o = self.objs.get(oid)
        if o is None or not o["isToggled"]:
            return
        o["isToggled"] = False
        for c in o.get("controlledObjects") or []:
            if c in self.objs:
                self.objs[c]["isToggled"] = False
        self.state_version += 1

    def settle(self) -> None:
        """Apply AI2-THOR's contextual state changes (heat, cold, running water, cooling down)."""
        objs = self.objs
        if self._settled == self.state_version:
            # nothing that decides zone membership changed since the last full pass: only the clocks run
            self._clocks(self._in_source)
            return
        in_source: set[str] = set()
        faulty = self.faulty
        for k in self._cold:
            if k in objs and k not in faulty:
                for c in self.contents(k):
                    self._set_temp(c, "Cold")
                    in_source.add(c)
        for k in self._heat:
            o = objs.get(k)
            if o is None or k in faulty or not o["isToggled"] or o["isBroken"]:
                continue
            t = o["objectType"]
            if t == "CoffeeMachine":
                for c in self.contents(k, recursive=False):
                    co = objs[c]
                    if co["canFillWithLiquid"] and not co["isFilledWithLiquid"] and not co["isBroken"]:
                        self._fill(c, "coffee")  # type: ignore[attr-defined]
                continue
            if t not in HEAT_ZONE_TOASTS_BREAD:
                continue  # no HeatZone known for this type: no effect (never a default)
            toasts = HEAT_ZONE_TOASTS_BREAD[t]
            for c in self.contents(k):
                co = objs[c]
                self._set_temp(c, "Hot")
                in_source.add(c)
                if co["cookable"] and not co["isCooked"] and (toasts or co["objectType"] != "BreadSliced"):
                    co["isCooked"] = True
        for k in self._water:
            o = objs.get(k)
            if o is not None and o["isToggled"] and k not in faulty:
                for b in self._faucet_basins.get(k, ()):
                    if b not in objs:
                        continue  # the basin was removed (a "missing" perturbation): the water runs nowhere
                    for c in self.contents(b):
                        co = objs[c]
                        if co["isBroken"]:
                            continue
                        if co["dirtyable"] and co["isDirty"]:
                            co["isDirty"] = False
                        if co["canFillWithLiquid"] and not co["isFilledWithLiquid"]:
                            co["isFilledWithLiquid"] = True
                            co["fillLiquid"] = "water"
                        if co["objectType"] == "Candle" and co["isToggled"]:
                            co["isToggled"] = False
        self._in_source = in_source
        self._settled = self.state_version
        self._clocks(in_source)

    def _clocks(self, in_source: set[str]) -> None:
        # leaving a source starts the clock; after room_temp_after seconds the object is RoomTemp again
        objs = self.objs
        for c in in_source:
            self.temp_clock[c] = self.time
        for c, since in list(self.temp_clock.items()):
            if c in in_source:
                continue
            o = objs.get(c)
            if o is None or o["temperature"] == "RoomTemp":
                self.temp_clock.pop(c, None)
            elif self.time - since >= self.room_temp_after_type.get(o["objectType"], self.room_temp_after):
                o["temperature"] = "RoomTemp"
                self.temp_clock.pop(c, None)

    def _set_temp(self, oid: str, temp: str) -> None:
        o = self.objs[oid]
        if o["temperature"] != temp:
            o["temperature"] = temp
