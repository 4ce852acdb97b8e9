"""Object-state action handlers: toggling, slicing, breaking, dirt, liquids, cooking, use by others, cooling.

Preconditions and error messages follow ``PhysicsRemoteFPSAgentController`` (``toggleObject``, ``SliceObject``,
``BreakObject``, ``DirtyObject``, ``CleanObject``, ``FillObjectWithLiquid``, ``EmptyLiquidFromObject``,
``UseUpObject``, ``CookObject``) and the components they call (``SliceObject.Slice``, ``Break.BreakObject``,
``Fill.FillObject``); nothing here is stricter than that C#, except what is marked as an extension (objects in use
by someone else) or ALFRED's rule (``slice_requires_knife``, off by default).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from planner.schemas.thor_rules import MUST_BE_CLOSED_TO_TURN_ON, exception, unknown_type

from ..extensions import ALL_TYPES as TYPES
from ..extensions import EXTENSION_SLICES
from ..metadata import LIQUIDS, aabb, box_of, oobb, vec
from .constants import ELECTRONICS, KNIVES, SLICE_RESULT
from .state import ActionFailed, ObjState, WorldState

_SLICES = {**SLICE_RESULT, **EXTENSION_SLICES, "Egg": 1}


class StateChangeActions(WorldState):
    """``_a_<Action>`` handlers that change an object's own state flags."""

    def _toggle(self, p: dict[str, Any], on: bool) -> None:
        o = self._target(p)
        oid, t = o["objectId"], o["objectType"]
        if not o["toggleable"]:
            if t == "StoveBurner":
                # a burner reports isToggled but is switched by its StoveKnob (SelfControlled = false)
                raise ActionFailed("target object is controlled by another sim object. target object cannot be "
                                   "turned on/off directly")
            raise ActionFailed("object is not toggleable.")
        self._check_free(oid)
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self._check_free(c)
        if o["isToggled"] == on:
            raise ActionFailed("can't toggle object on if it's already on!" if on
                               else "can't toggle object off if it's already off!")
        if on and t in MUST_BE_CLOSED_TO_TURN_ON and o["isOpen"]:
            raise ActionFailed("Target must be closed to Toggle On!")
        # AI2-THOR checks only breakable objects; a broken object of a type it cannot break (an extension) is
        # refused too
        if on and o["isBroken"]:
            raise ActionFailed("Target is broken and cannot be Toggled On!")
        o["isToggled"] = on
        for c in o["controlledObjects"] or []:
            if c in self.objs:
                self.objs[c]["isToggled"] = on

    def _a_ToggleObjectOn(self, p: dict[str, Any]) -> None:
        self._toggle(p, True)

    def _a_ToggleObjectOff(self, p: dict[str, Any]) -> None:
        self._toggle(p, False)

    def _knife_check(self, p: dict[str, Any]) -> None:
        # ALFRED's wrapper (env/thor_env.py), not AI2-THOR: off unless slice_requires_knife
        if self.slice_requires_knife and not p.get("forceAction", False):
            if self.held is None or self.objs[self.held]["objectType"] not in KNIVES:
                raise ActionFailed("Agent should be holding a knife before slicing.")

    def _a_SliceObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if self.held == oid:
            raise ActionFailed("target object cannot be sliced if it is in the agent's hand")
        if not o["sliceable"]:
            raise ActionFailed(f"{o['name']} Does not have the CanBeSliced property!")
        self._check_free(oid)
        self._knife_check(p)
        if o["isSliced"]:
            return  # SliceObject.Slice: "if this is already sliced, we can't slice again" -- and the action succeeds
        t = o["objectType"]
        piece = "EggCracked" if t == "Egg" else f"{t}Sliced"
        if t not in _SLICES or piece not in TYPES:
            raise ActionFailed(unknown_type(piece))
        o["isSliced"] = True
        self._spawn_pieces(oid, piece, _SLICES[t])

    def _spawn_pieces(self, oid: str, piece_type: str, n: int) -> list[str]:
        """Add ``n`` pieces ``<oid>|<PieceType>_i`` where ``oid`` was and deactivate ``oid``.

        As ``SliceObject.Slice`` and ``Break.BreakObject`` (egg) do: the new prefab's objects get inherited ids
        (``PhysicsSceneManager.Generate_InheritedObjectID``) and start in their prefab's state (RoomTemp, clean;
        cooked if a cooked object was sliced), and the whole object stays in the metadata, reporting ``isSliced``
        / ``isBroken``, with its children deactivated: never visible, in no receptacle (:attr:`inactive`).
        """
        o = self.objs[oid]
        info = TYPES[piece_type]
        c, s = box_of(o)
        parents = list(o["parentReceptacles"] or [])
        was_held = self.held == oid
        cooked = bool(o["cookable"] and o["isCooked"] and "cookable" in info.flags)
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
                isBroken=False,
                dirtyable=False,
                isDirty=False,
                isPickedUp=False,
                pickupable=True,
                cookable="cookable" in info.flags,
                isCooked=cooked,
                temperature="RoomTemp",
                mass=round(o["mass"] / n, 4),
                parentReceptacles=list(parents) or None,
                receptacleObjectIds=None,
            )
            self.objs[pid] = ObjState(m, self.dirty, self.writes)
            pieces.append(pid)
        # the whole object leaves every receptacle and the hand (its colliders are off), but stays in the metadata
        self._detach(oid)
        for p_ in parents:
            r = self.objs.get(p_)
            if r is not None:
                r["receptacleObjectIds"] = [*(r["receptacleObjectIds"] or []), *pieces]
        self.inactive.add(oid)
        o["isPickedUp"] = False
        self._geo = None
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
        self.objs[oid]["isBroken"] = True
        self._spawn_pieces(oid, "EggCracked", 1)

    def _break(self, oid: str) -> None:
        """``Break.BreakObject``: an Egg becomes an EggCracked; anything else is broken (switched off, spilled)."""
        o = self.objs[oid]
        if o["objectType"] == "Egg":
            if oid not in self.inactive:
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
            raise ActionFailed(f"{o['name']} does not have the CanBreak property!!")
        self._check_free(oid)
        if self.held == oid:
            # BreakObject on the held object: it leaves the hand first (its contents drop)
            self._a_DropHandObject({})
        self._break(oid)

    def _a_DirtyObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{o['name']} does not have CanBeDirty property!")
        if o["isDirty"]:
            raise ActionFailed(f"{o['name']} is already dirty!")
        self._check_free(oid)
        o["isDirty"] = True

    def _a_CleanObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["dirtyable"]:
            raise ActionFailed(f"{o['name']} does not have dirtyable property!")
        if not o["isDirty"]:
            raise ActionFailed(f"{o['name']} is already Clean!")
        self._check_free(oid)
        o["isDirty"] = False

    def _a_FillObjectWithLiquid(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        liquid = p.get("fillLiquid")
        if liquid is None:
            raise ActionFailed(exception("InvalidOperationException", "Missing Liquid string for FillObject action"))
        if not isinstance(liquid, str):
            raise ActionFailed(f"action: FillObjectWithLiquid has an invalid argument: fillLiquid (=={liquid!r}). "
                               "Cannot convert to: string", "InvalidArgument")
        liquid = liquid.lower()
        if not o["canFillWithLiquid"]:
            raise ActionFailed(exception("ArgumentException", f"{o['name']} does not have CanBeFilled property!"))
        if liquid not in LIQUIDS:
            raise ActionFailed(exception("ArgumentException", f"{liquid} is not a valid Liquid Type"))
        if o["isFilledWithLiquid"]:
            raise ActionFailed(exception("InvalidOperationException", f"{o['name']} is already Filled!"))
        self._check_free(oid)
        self._fill(oid, liquid)

    def _fill(self, oid: str, liquid: str) -> None:
        """``Fill.FillObject``: filled with ``liquid``; coffee is hot."""
        o = self.objs[oid]
        o["isFilledWithLiquid"] = True
        o["fillLiquid"] = liquid
        if liquid == "coffee":
            o["temperature"] = "Hot"
            self.temp_clock[oid] = self.time

    def _a_EmptyLiquidFromObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canFillWithLiquid"]:
            raise ActionFailed(f"{o['name']} does not have CanBeFilled property!")
        if not o["isFilledWithLiquid"]:
            raise ActionFailed("object already empty")
        self._check_free(oid)
        o["isFilledWithLiquid"] = False
        o["fillLiquid"] = None

    def _a_UseUpObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["canBeUsedUp"]:
            raise ActionFailed(f"{o['name']} does not have CanBeUsedUp property!")
        if o["isUsedUp"]:
            raise ActionFailed("object already used up!")
        self._check_free(oid)
        o["isUsedUp"] = True

    def _a_CookObject(self, p: dict[str, Any]) -> None:
        o = self._target(p)
        oid = o["objectId"]
        if not o["cookable"]:
            raise ActionFailed("target object is not cookable")
        if o["isCooked"]:
            raise ActionFailed(f"{oid} is already Toasted!")
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
