"""Goal conditions on one object, judged over a whole recorded episode.

Each check is a small frozen dataclass: ``check(track, object_id) -> Finding``. A finding says whether the
condition holds, why (naming object ids and the action at which it happened), and, when the condition only
held because the world already was that way, a *problem* (a goal true at reset, a conjured liquid).
"""

from __future__ import annotations

from dataclasses import dataclass

from .track import DIRTYABLE, KNIVES, Track, dist, is_piece, top, whole_of


@dataclass(frozen=True)
class Finding:
    """One condition's verdict on one object."""

    met: bool
    text: str
    problem: str | None = None


def _ids(ids: object) -> str:
    items = sorted(str(i) for i in ids) if isinstance(ids, (set, frozenset, list, tuple)) else []
    return ", ".join(items) if items else "nothing"


def _at(track: Track, t: int) -> str:
    return f"at action {t} ({track.action_before(t)})" if t else "at reset"


@dataclass(frozen=True)
class Cut:
    """The object is a piece cut (or an egg cracked) from a whole object during the run.

    Args:
        tools: Types one of which the agent must hold when cutting (ALFRED: a knife); None: any way.
    """

    tools: tuple[str, ...] | None = tuple(sorted(KNIVES))

    def __call__(self, track: Track, oid: str) -> Finding:
        if not is_piece(oid):
            return Finding(False, f"{oid} is a whole object, not a piece cut during the run")
        t = track.first_seen[oid]
        whole = whole_of(oid)
        if t == 0:
            return Finding(False, f"{oid} already existed at reset: it was not cut during the run")
        if whole not in track.by_id[t - 1]:
            return Finding(False, f"{oid} appeared {_at(track, t)} without its whole object {whole} before it")
        if self.tools is not None:
            held = [h for h in track.held_ids(t - 1) if track.type_of(h) in self.tools]
            if not held:
                return Finding(False, f"{oid} was cut from {whole} {_at(track, t)} with no "
                               f"{'/'.join(self.tools)} in hand (held: {_ids(track.held_ids(t - 1))})")
            return Finding(True, f"{oid} was cut from {whole} {_at(track, t)} holding {held[0]}")
        return Finding(True, f"{oid} was made from {whole} {_at(track, t)}")


@dataclass(frozen=True)
class Became:
    """A state field took a value during the run (a rising edge; a later change back does not undo it).

    Args:
        key: The metadata field (``temperature``, ``isCooked``).
        value: The value it must take (``Hot``, ``Cold``, True).
    """

    key: str
    value: object

    def __call__(self, track: Track, oid: str) -> Finding:
        def holds(t: int) -> bool:
            return track.get(oid, t, self.key) == self.value

        what = f"{self.key}={self.value}"
        t = track.rise(holds)
        if t is not None:
            return Finding(True, f"{oid} became {what} {_at(track, t)}")
        start, end = track.get(oid, 0, self.key), track.get(oid, track.last, self.key)
        already = " (already so at reset, and never changed to it during the run)" if holds(0) else ""
        return Finding(False, f"{oid} never became {what} during the run{already}: {self.key} was {start!r} at "
                       f"reset and {end!r} at the end")


@dataclass(frozen=True)
class Cooled:
    """ALFRED's "cooled": the object became Cold during the run, or lay in a Fridge when the run closed it (ALFRED
    books every object in a fridge the agent closes as cooled; an apple that starts cold in the fridge is cooled
    only if the run closes the fridge on it)."""

    def __call__(self, track: Track, oid: str) -> Finding:
        became = Became("temperature", "Cold")(track, oid)
        if became.met:
            return became
        for t in range(1, track.last + 1):
            step = track.history.steps[t - 1]
            if step.action == "CloseObject" and step.ok and step.object_id in track.containers(oid, t) \
                    and track.type_of(step.object_id) == "Fridge":
                return Finding(True, f"{oid} lay in {step.object_id} when the run closed it {_at(track, t)}")
        return Finding(False, f"{became.text}; nor did it lie in a fridge the run closed")


@dataclass(frozen=True)
class Cleaned:
    """The object was cleaned during the run.

    A dirtyable object: dirty at reset, clean at the end (with ``water``, it turned clean while lying in a
    basin under running water). Any other object: ALFRED's event, it came to lie in a SinkBasin/BathtubBasin
    while a water source feeding that basin ran.
    """

    water: bool = False

    def __call__(self, track: Track, oid: str) -> Finding:
        s0 = track.state(oid, 0) or {}
        dirtyable = s0.get("dirtyable")
        if dirtyable is None:
            dirtyable = track.type_of(track.body(oid, 0) or oid) in DIRTYABLE
        if dirtyable:
            return self._dirtyable(track, oid)
        t = track.rise(lambda t: track.running_basin(oid, t) is not None)
        if t is None:
            return Finding(False, f"{oid} (not dirtyable) never came to lie in a basin under running water "
                           "during the run")
        return Finding(True, f"{oid} lay in {track.running_basin(oid, t)} under running water {_at(track, t)}")

    def _dirtyable(self, track: Track, oid: str) -> Finding:
        if not track.get(oid, 0, "isDirty", False):
            return Finding(False, f"{oid} was not dirty at reset: nothing to clean",
                           problem=f"clean goal already true at reset: {oid} was clean at reset")
        if track.get(oid, track.last, "isDirty", False):
            return Finding(False, f"{oid} was dirty at reset and is still dirty at the end")
        t = track.rise(lambda t: track.state(oid, t) is not None and not track.get(oid, t, "isDirty", False))
        if t is None:
            return Finding(False, f"{oid} is not in the world at the end")
        if self.water:
            basin = track.running_basin(oid, t)
            if basin is None:
                return Finding(False, f"{oid} turned clean {_at(track, t)} without lying in a basin under running "
                               "water (not washed)")
            return Finding(True, f"{oid} was dirty at reset and was washed in {basin} {_at(track, t)}")
        return Finding(True, f"{oid} was dirty at reset and turned clean {_at(track, t)}")


@dataclass(frozen=True)
class HeldAtEnd:
    """The agent holds the object at the end."""

    def __call__(self, track: Track, oid: str) -> Finding:
        if track.held(oid, track.last):
            return Finding(True, f"{oid} is held at the end")
        return Finding(False, f"{oid} is not held at the end (held: {_ids(track.held_ids(track.last))})")


def _there_at_reset(track: Track, oid: str, receptacle: str) -> bool:
    """True when ``oid`` itself already lay in ``receptacle`` at reset (a piece cut during the run did not exist
    then: a slice of a loaf cut on the counter was not on the counter at reset)."""
    return oid in track.by_id[0] and receptacle in track.containers(oid, 0)


@dataclass(frozen=True)
class InTypes:
    """At the end the object lies in a receptacle of ``types`` (directly or inside another receptacle).

    Args:
        types: Receptacle types.
        fresh: The run put it there: that receptacle did not already hold it at reset (a piece cut during the
            run did not exist at reset), or the agent picked the object up during the run.
        min_top: The receptacle's top must be at least this high (metres), e.g. a *high* shelf.
    """

    types: tuple[str, ...]
    fresh: bool = True
    min_top: float | None = None

    def __call__(self, track: Track, oid: str) -> Finding:
        end = track.last
        if track.state(oid, end) is None:
            return Finding(False, f"{oid} is not in the world at the end")
        found = sorted(c for c in track.containers(oid, end) if track.type_of(c) in self.types)
        if self.min_top is not None:
            found = [c for c in found if (top(track.by_id[end][c]) or 0.0) >= self.min_top]
        want = "/".join(self.types) + (f" with its top at {self.min_top} m or higher" if self.min_top else "")
        if not found:
            where = "held by the agent" if track.held(oid, end) else f"in {_ids(track.containers(oid, end))}"
            return Finding(False, f"{oid} is not in any {want} at the end (it is {where})")
        r = found[0]
        if self.fresh and _there_at_reset(track, oid, r) and track.held_during_run(oid) is None:
            return Finding(False, f"{oid} already lay in {r} at reset and was never picked up: the run did not put "
                           "it there")
        return Finding(True, f"{oid} is in {r} at the end")


@dataclass(frozen=True)
class Inside:
    """Relation: the inner item lies in the outer item at the end (``fresh``: put there during the run)."""

    inner: str
    outer: str
    fresh: bool = True

    def __call__(self, track: Track, inner: str, outer: str) -> Finding:
        end = track.last
        if outer not in track.containers(inner, end):
            return Finding(False, f"{inner} is not in {outer} at the end (it is in "
                           f"{_ids(track.containers(inner, end))})")
        if self.fresh and _there_at_reset(track, inner, outer) and track.held_during_run(inner) is None:
            return Finding(False, f"{inner} already lay in {outer} at reset and was never picked up")
        return Finding(True, f"{inner} is in {outer} at the end")


@dataclass(frozen=True)
class LitNearby:
    """A lamp of ``types`` is on at the end within ``radius`` metres of the object, and the run lit it (it was
    off at reset, or a ToggleObjectOn on it succeeded)."""

    types: tuple[str, ...] = ("DeskLamp", "FloorLamp")
    radius: float = 1.0

    def __call__(self, track: Track, oid: str) -> Finding:
        end = track.last
        me = track.state(oid, end)
        if me is None:
            return Finding(False, f"{oid} is not in the world at the end")
        lamps = [k for k in track.of_types(self.types) if k in track.by_id[end]]
        lit = [k for k in lamps if track.on(k, end) and dist(track.by_id[end][k], me) <= self.radius]
        if not lit:
            near = ", ".join(f"{k} ({'on' if track.on(k, end) else 'off'}, {dist(track.by_id[end][k], me):.2f} m)"
                             for k in lamps) or "none in the scene"
            return Finding(False, f"no {'/'.join(self.types)} is on within {self.radius} m of {oid} at the end "
                           f"(lamps: {near})")
        for k in lit:
            if not track.on(k, 0):
                return Finding(True, f"{k} was off at reset and is on within {self.radius} m of {oid} at the end")
            if any(s.ok and s.action == "ToggleObjectOn" and s.object_id == k for s in track.history.steps):
                return Finding(True, f"{k} was switched on by the run and is on within {self.radius} m of {oid}")
        return Finding(False, f"{lit[0]} is on near {oid}, but it was already on at reset and the run never "
                       "switched it on", problem=f"light goal already true at reset: {lit[0]} was on at reset")


OPENABLE_LIGHTS = frozenset({"Blinds", "Curtains", "Window"})
"""Light comes in when these are opened."""


@dataclass(frozen=True)
class SwitchedOn:
    """The object (a light) was off at reset and is on at the end; blinds and curtains: closed, then open."""

    def __call__(self, track: Track, oid: str) -> Finding:
        key = "isOpen" if track.type_of(oid) in OPENABLE_LIGHTS else "isToggled"
        word = "open" if key == "isOpen" else "on"
        at0, end = track.get(oid, 0, key, False), track.get(oid, track.last, key, False)
        if at0:
            already = " and still is at the end" if end else ""
            return Finding(False, f"{oid} was already {word} at reset{already}",
                           problem=f"light goal already true at reset: {oid} was {word} at reset")
        if not end:
            return Finding(False, f"{oid} was off at reset and is not {word} at the end")
        return Finding(True, f"{oid} was off at reset and is {word} at the end")


def _liquid(track: Track, oid: str, t: int, liquid: str) -> bool:
    s = track.state(oid, t)
    return bool(s and s.get("isFilledWithLiquid") and s.get("fillLiquid") == liquid)


def liquid_source(track: Track, oid: str, liquid: str, t: int) -> Finding:
    """Where the ``liquid`` ``oid`` holds at frame ``t`` came from: held at reset, a running faucet over its
    basin (water), a running coffee machine (coffee); a FillObjectWithLiquid conjured it."""
    f = t
    while f > 0 and _liquid(track, oid, f - 1, liquid):
        f -= 1
    if f == 0:
        return Finding(True, f"{oid} held {liquid} at reset")
    step = track.history.steps[f - 1]
    poured = track.history.poured_from(f - 1)
    if poured is not None:  # its liquid is the vessel's it was poured from (frame f - 2: before that emptied)
        src = liquid_source(track, poured, liquid, f - 2)
        return Finding(src.met, f"{oid}'s {liquid} was poured from {poured} {_at(track, f)}; {src.text}",
                       problem=src.problem)
    if step.action == "FillObjectWithLiquid" and step.ok:
        return Finding(False, f"{oid}'s {liquid} was conjured by FillObjectWithLiquid at action {f}",
                       problem=f"conjured liquid: FillObjectWithLiquid({step.object_id}, "
                       f"{step.args.get('fillLiquid')}) at action {f} (no faucet or coffee machine)")
    if liquid == "water":
        basin = track.running_basin(oid, f)
        if basin is not None:
            return Finding(True, f"{oid} was filled with water in {basin} under running water {_at(track, f)}")
    if liquid == "coffee":
        machine = track.running_device(oid, f, frozenset({"CoffeeMachine"}))
        if machine is not None:
            return Finding(True, f"{oid} was filled with coffee by {machine} {_at(track, f)}")
    return Finding(False, f"{oid} got its {liquid} {_at(track, f)} from no source the world shows")


@dataclass(frozen=True)
class HeatedLiquid:
    """A vessel holding ``liquid`` became Hot during the run (in a running device of ``devices``, if given), and
    the liquid came from a source (:func:`liquid_source`).

    The vessel must already hold the liquid before it turns Hot, except in a coffee machine, which pours hot
    coffee.
    """

    liquid: str
    devices: tuple[str, ...] | None = None

    def _hot(self, track: Track, oid: str, t: int) -> bool:
        if not (_liquid(track, oid, t, self.liquid) and track.get(oid, t, "temperature") == "Hot"):
            return False
        return self.devices is None or track.running_device(oid, t, frozenset(self.devices)) is not None

    def __call__(self, track: Track, oid: str) -> Finding:
        where = f" in a running {'/'.join(self.devices)}" if self.devices else ""
        first_fail: Finding | None = None
        for t in track.rises(lambda t: self._hot(track, oid, t)):
            brewed = track.running_device(oid, t, frozenset({"CoffeeMachine"})) is not None
            if not _liquid(track, oid, t - 1, self.liquid) and not brewed:
                continue  # it was already hot and got the liquid only now: the liquid was not heated
            src = liquid_source(track, oid, self.liquid, t)
            if src.met:
                return Finding(True, f"{oid} holding {self.liquid} became Hot{where} {_at(track, t)}; {src.text}")
            first_fail = first_fail or src
        if first_fail is not None:
            return Finding(False, f"{oid} became Hot holding {self.liquid}{where}, but {first_fail.text}",
                           problem=first_fail.problem)
        return Finding(False, f"{oid} never became Hot while holding {self.liquid}{where} during the run")


@dataclass(frozen=True)
class Filled:
    """The vessel holds ``liquid`` at the end, filled during the run from a source (never conjured)."""

    liquid: str = "water"

    def __call__(self, track: Track, oid: str) -> Finding:
        end = track.last
        if not _liquid(track, oid, end, self.liquid):
            return Finding(False, f"{oid} does not hold {self.liquid} at the end")
        src = liquid_source(track, oid, self.liquid, end)
        if src.met and _liquid(track, oid, 0, self.liquid) and track.rise(
                lambda t: _liquid(track, oid, t, self.liquid)) is None:
            return Finding(False, f"{oid} already held {self.liquid} at reset: the run did not fill it")
        return Finding(src.met, f"{oid} holds {self.liquid} at the end; {src.text}", problem=src.problem)


@dataclass(frozen=True)
class NotBroken:
    """The object is not broken at the end."""

    def __call__(self, track: Track, oid: str) -> Finding:
        if track.get(oid, track.last, "isBroken", False):
            return Finding(False, f"{oid} is broken at the end")
        return Finding(True, f"{oid} is not broken")


@dataclass(frozen=True)
class CleanAtEnd:
    """The object is not dirty at the end."""

    def __call__(self, track: Track, oid: str) -> Finding:
        if track.get(oid, track.last, "isDirty", False):
            return Finding(False, f"{oid} is dirty at the end")
        return Finding(True, f"{oid} is clean at the end")


@dataclass(frozen=True)
class TakenFrom:
    """The object lay in a receptacle of ``types`` at reset, the agent picked it up, and it is out of that
    receptacle at the end."""

    types: tuple[str, ...]

    def __call__(self, track: Track, oid: str) -> Finding:
        start = sorted(c for c in track.containers(oid, 0) if track.type_of(c) in self.types)
        if not start:
            return Finding(False, f"{oid} was not in any {'/'.join(self.types)} at reset")
        t = track.held_during_run(oid)
        if t is None:
            return Finding(False, f"{oid} was never picked up from {start[0]}")
        if start[0] in track.containers(oid, track.last):
            return Finding(False, f"{oid} is back in {start[0]} at the end")
        return Finding(True, f"{oid} was taken from {start[0]} {_at(track, t)} and is out of it at the end")


Check = Cut | Became | Cleaned | HeldAtEnd | InTypes | LitNearby | SwitchedOn | HeatedLiquid | Filled | NotBroken \
    | CleanAtEnd | TakenFrom
"""Every unary check."""

LIQUID_CHECKS = (HeatedLiquid, Filled)
"""Checks whose goal is a liquid (a conjured liquid voids them)."""

__all__ = ["Became", "Check", "CleanAtEnd", "Cleaned", "Cut", "Filled", "Finding", "HeatedLiquid",
           "HeldAtEnd", "InTypes", "Inside", "LIQUID_CHECKS", "LitNearby", "NotBroken", "SwitchedOn", "TakenFrom",
           "liquid_source"]
