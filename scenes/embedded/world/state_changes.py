"""Object-state action handlers: toggling, slicing, breaking, dirt, liquids, cooking, use by others, cooling."""

from __future__ import annotations

import copy
import math
from typing import Any

from ..extensions import ALL_TYPES as TYPES
from ..extensions import EXTENSION_SLICES
from ..metadata import LIQUIDS, aabb, box_of, oobb, vec
from .constants import ELECTRONICS, KNIVES, SLICE_RESULT
from .state import ActionFailed, ObjState, WorldState

_SLICES = {**SLICE_RESULT, **EXTENSION_SLICES}


class StateChangeActions(WorldState):
    """``_a_<Action>`` handlers that change an object's own state flags."""

    def _toggle(self, p: dict[str, Any], on: bool) -> None:
        o = self._target(p)
        oid, t = o["objectId"], o["objectType"]
        if not o["toggleable"]:
            if t == "StoveBurner":
                raise ActionFailed(f"{oid} is not toggleable (a StoveBurner is switched by its StoveKnob)")
            raise ActionFailed(f"{oid} is not toggleable")
        self._check_free(oid)
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self._check_free(c)
        if on:
            if o["isToggled"]:
                raise ActionFailed("can't toggle object on if it's already on!")
            if o["isBroken"]:
                raise ActionFailed(f"{oid} is broken and cannot be turned on")
            if t == "Microwave" and o["isOpen"]:
                raise ActionFailed("Target must be closed to turn on! (a Microwave cannot run while open)")
        elif not o["isToggled"]:
            raise ActionFailed("can't toggle object off if it's already off!")
        o["isToggled"] = on
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self.objs[c]["isToggled"] = on

    def _a_ToggleObjectOn(self, p: dict[str, Any]) -> None:
        self._toggle(p, True)

    def _a_ToggleObjectOff(self, p: dict[str, Any]) -> None:
        self._toggle(p, False)

    def _knife_check(self, p: dict[str, Any]) -> None:
        if self.slice_requires_knife and not p.get("forceAction", False):
            if self.held is None or self.objs[self.held]["objectType"] not in KNIVES:
                raise ActionFailed("Agent should be holding a knife before slicing.")

    def _a_SliceObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["sliceable"]:
            raise ActionFailed(f"{o['name']} Does not have the CanBeSliced property!")
        if o["isSliced"]:
            raise ActionFailed(f"{oid} is already sliced")
        self._check_free(oid)
        self._knife_check(p)
        if o["objectType"] == "Egg":
            self._crack(oid)
            return
        o["isSliced"] = True
        self._spawn_pieces(oid, f"{o['objectType']}Sliced", _SLICES.get(o["objectType"], 4))

    def _spawn_pieces(self, oid: str, piece_type: str, n: int) -> list[str]:
        """Replace ``oid`` by ``n`` pieces ``<oid>|<PieceType>_i`` (AI2-THOR ids for slices)."""
        o = self.objs[oid]
        info = TYPES.get(piece_type)
        c, s = box_of(o)
        parents = list(o["parentReceptacles"] or [])
        was_held = self.held == oid
        pieces = []
        for i in range(n):
            pid = f"{oid}|{piece_type}_{i}"
            m = copy.deepcopy(dict(o))
            frac = (i + 0.5) / n - 0.5
            ps = (s[0] / n if s[0] >= s[2] else s[0], s[1], s[2] / n if s[2] > s[0] else s[2])
            pc = (c[0] + (frac * s[0] if s[0] >= s[2] else 0.0), c[1], c[2] + (frac * s[2] if s[2] > s[0] else 0.0))
            m.update(
                name=f"{o['name']}_{piece_type}_{i}",
                objectId=pid,
                objectType=piece_type,
                assetId=f"{piece_type}_1",
                position=vec(pc[0], pc[1] - ps[1] / 2, pc[2]),
                axisAlignedBoundingBox=aabb(pc, ps),
                objectOrientedBoundingBox=oobb(pc, ps),
                sliceable=False,
                isSliced=False,
                breakable=False,
                isPickedUp=False,
                pickupable=True,
                cookable="cookable" in (info.flags if info else ()),
                mass=round(o["mass"] / n, 4),
                parentReceptacles=list(parents) or None,
                receptacleObjectIds=None,
            )
            self.objs[pid] = ObjState(m, self.dirty, self.writes)
            pieces.append(pid)
        # the whole object is replaced: gone from receptacles and from the scene (AI2-THOR deactivates it)
        self._detach(oid)
        for p_ in parents:
            r = self.objs.get(p_)
            if r is not None:
                r["receptacleObjectIds"] = [*(r["receptacleObjectIds"] or []), *pieces]
        del self.objs[oid]
        self._geo = None
        self.in_use.pop(oid, None)
        self.temp_clock.pop(oid, None)
        if was_held:
            # AI2-THOR drops the object's pieces where it was; the hand is empty afterwards
            self.held = None
            fl = self._floor_at(c[0], c[2])
            for pid in pieces:
                self.objs[pid]["parentReceptacles"] = [fl] if fl else None
                if fl:
                    self.objs[fl]["receptacleObjectIds"] = [*(self.objs[fl]["receptacleObjectIds"] or []), pid]
        self.geometry_version += 1
        return pieces

    def _crack(self, oid: str) -> None:
        self._spawn_pieces(oid, "EggCracked", 1)

    def _break(self, oid: str) -> None:
        o = self.objs[oid]
        if o["objectType"] == "Egg":
            self._crack(oid)
            return
        o["isBroken"] = True
        if o["objectType"] in ELECTRONICS and o["isToggled"]:
            o["isToggled"] = False
        if o["isFilledWithLiquid"]:
            o["isFilledWithLiquid"] = False
            o["fillLiquid"] = None

    def _a_BreakObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["breakable"]:
            raise ActionFailed(f"{oid} is not a Breakable object")
        if o["isBroken"]:
            raise ActionFailed(f"{oid} is already broken")
        self._check_free(oid)
        self._break(oid)

    def _a_DirtyObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{oid} is not a Dirtyable object")
        if o["isDirty"]:
            raise ActionFailed(f"{oid} is already dirty")
        self._check_free(oid)
        o["isDirty"] = True

    def _a_CleanObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{oid} is not a Dirtyable object")
        if not o["isDirty"]:
            raise ActionFailed(f"{oid} is already clean")
        self._check_free(oid)
        o["isDirty"] = False

    def _a_FillObjectWithLiquid(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        liquid = p.get("fillLiquid")
        if liquid is None:
            raise ActionFailed(
                "FillObjectWithLiquid needs fillLiquid ('water', 'coffee' or 'wine')", "MissingArguments"
            )
        if liquid not in LIQUIDS:
            raise ActionFailed(f"fillLiquid must be one of {list(LIQUIDS)}, got {liquid!r}", "InvalidArgument")
        if not o["canFillWithLiquid"]:
            raise ActionFailed(f"{oid} cannot be filled with liquid")
        if o["isBroken"]:
            raise ActionFailed(f"{oid} is broken and cannot hold liquid")
        if o["isFilledWithLiquid"]:
            raise ActionFailed("Object is already filled!")
        self._check_free(oid)
        o["isFilledWithLiquid"] = True
        o["fillLiquid"] = liquid

    def _a_EmptyLiquidFromObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canFillWithLiquid"]:
            raise ActionFailed(f"{oid} cannot be filled with liquid")
        if not o["isFilledWithLiquid"]:
            raise ActionFailed("Object is already empty!")
        self._check_free(oid)
        o["isFilledWithLiquid"] = False
        o["fillLiquid"] = None

    def _a_UseUpObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canBeUsedUp"]:
            raise ActionFailed(f"{oid} cannot be used up")
        if o["isUsedUp"]:
            raise ActionFailed(f"{oid} is already used up")
        self._check_free(oid)
        o["isUsedUp"] = True

    def _a_CookObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["cookable"]:
            raise ActionFailed(f"{oid} is not a Cookable object")
        if o["isCooked"]:
            raise ActionFailed(f"{oid} is already cooked")
        self._check_free(oid)
        o["isCooked"] = True

    def _a_UseObject(self, p: dict[str, Any]) -> None:
        """Someone else starts using an object: for ``seconds`` (reversible), or for good (``irreversible``)."""
        if "objectId" not in p:
            raise ActionFailed("UseObject needs an objectId", "MissingArguments")
        oid = p["objectId"]
        if not isinstance(oid, str) or oid not in self.objs:
            raise ActionFailed(f"Object ID appears to be invalid: {oid!r} is not in the scene")
        irreversible = bool(p.get("irreversible", False))
        seconds = p.get("seconds")
        if not irreversible:
            if seconds is None:
                raise ActionFailed("UseObject needs seconds > 0, or irreversible=True", "MissingArguments")
            if (
                not isinstance(seconds, (int, float))
                or isinstance(seconds, bool)
                or not seconds > 0
                or math.isinf(seconds)
            ):
                raise ActionFailed(f"seconds must be a finite number > 0, got {seconds!r}", "InvalidArgument")
        if oid == self.held:
            raise ActionFailed(f"{oid} is in the agent's hand")
        self.set_in_use(oid, None if irreversible else float(seconds), by=str(p.get("by", "someone else")))

    def _decay_time(self, p: dict[str, Any]) -> float:
        t = p.get("TimeUntilRoomTemp", 0.0)
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0 or math.isnan(t):
            raise ActionFailed(f"TimeUntilRoomTemp must be a number >= 0, got {t!r}", "InvalidArgument")
        return float(t)

    def _a_SetRoomTempDecayTimeForType(self, p: dict[str, Any]) -> None:
        t = p.get("objectType")
        if not isinstance(t, str) or not t:
            raise ActionFailed("SetRoomTempDecayTimeForType needs an objectType", "MissingArguments")
        self.room_temp_after_type[t] = self._decay_time(p)

    def _a_SetGlobalRoomTempDecayTime(self, p: dict[str, Any]) -> None:
        self.room_temp_after = self._decay_time(p)
        self.room_temp_after_type.clear()
