"""The thermometer plays: read an object's temperature, or measure a melting point by heating and reading.

- ``thermometer`` (use-thermometer): take the thermometer, focus on it, focus on the object, read it, carry it to
  the boxes and read it again there: the answer is decided on that fresh reading (closed loop). An object out
  of its place drifts toward the room's temperature, and walking to the boxes takes moves, so the first reading
  can be stale by the time the object is put in a box. Next to the boxes the object is read until the side of
  the threshold is settled (:func:`settled_side`: the reading and where its drift takes it in the next moves
  are both clearly on one side), then put in the box for "above" or "below".
- ``melting-point`` (measure-melting-point-known-substance, -unknown-substance): take the thermometer, focus on
  it and on the substance, put the substance in a vessel that survives the heat, heat it on a heat source
  (the two-stage choice: devices by their range from ``facts.HEATER_MAX_C``, then the nearest one; a broken
  one is found by trying it and replaced) and read the thermometer every tick. The answer is decided as soon
  as the readings settle it: still solid above the threshold -> above; liquid at or below it -> below. The
  melting point is measured even for a "known" substance: nothing is answered from a table.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import answer_box, state_of_matter
from .episode import Stuck
from .facts import AMBIENT_C, COOLER_MIN_C, HEATER_MAX_C, ROOM_ORDER, VESSEL_MAX_C, device_kind, state_at
from .memory import SeenObject
from .player import TaskPlayer, where
from .select import choose, referent
from .spec import TaskSpec

VESSELS: tuple[str, ...] = ("pot", "cup", "bowl", "jar", "beaker", "flask")
"""Head nouns of containers a substance can be heated in."""
ROUNDING_C = 0.5
"""A thermometer reply is in whole degrees (``-0`` included): the temperature is within this of the reading."""
LEAD_MOVES = 2
"""Moves the side of the threshold must still hold for after the last reading (the answering move, and one more
for safety: the drift per move is estimated from readings that may be several moves apart)."""
MAX_SETTLE_READS = 12
"""Readings next to the boxes before the answer is given on the last one even if the side is not settled."""
MAX_HEAT_TICKS = 40
"""Ticks of heating (one thermometer reading each) before the measurement gives up."""


def _thermometer(p: TaskPlayer) -> None:
    """Take the thermometer (kitchen first) and focus on it, as both tasks ask first."""
    p.explore(("kitchen",), until=lambda: bool(p.named("thermometer")))
    found = p.named("thermometer")
    if not found:
        raise Stuck("no thermometer seen")
    p.fetch(found[0])
    p.must("sw_focus_on", "thermometer", prefer=["inventory"])


def _find(p: TaskPlayer, spec: TaskSpec) -> SeenObject:
    """The task's object: in the room the task names (closed storage opened), else anywhere."""
    if spec.room and p.goto(spec.room) and not p.named(spec.target):
        p.open_storage(spec.room)
    p.explore((spec.room,), until=lambda: bool(p.named(spec.target)))
    found = p.named(spec.target)
    if not found:
        raise Stuck(f"the {spec.target} was not found")
    return found[0]


def play_thermometer(p: TaskPlayer, spec: TaskSpec) -> None:
    """Read the object's temperature, carry it to the boxes, read it again there until its side of the threshold
    is settled, and put it in the box for that side."""
    threshold = spec.threshold_c
    if threshold is None:
        raise Stuck("the task names no threshold")
    _thermometer(p)
    e = _find(p, spec)
    name = p.here(e)
    p.must("sw_focus_on", name, prefer=[where(e)])
    readings: list[tuple[int, float]] = []
    if not _take_reading(p, name, e.room, readings):
        raise Stuck(f"no thermometer reading on the {name}")
    p._run.answer = f"{readings[0][1]:g} C where found"
    name = p.fetch(p.named(spec.target)[0])
    room = _box_room(p, spec)
    if room and not p.goto(room):
        raise Stuck(f"cannot reach the {room}")
    # next to the boxes: the answer is decided on fresh readings (the temperature drifts while it is carried)
    above = None
    for _ in range(MAX_SETTLE_READS):
        if not _take_reading(p, name, "inventory", readings):
            break
        above = settled_side(readings, threshold)
        if above is not None:
            break
    last = readings[-1][1]
    if above is None:  # never settled: the last reading decides
        above = last > threshold
    p._run.answer += (f"; {last:g} C at the boxes ({len(readings) - 1} readings there): "
                      f"{'above' if above else 'below'} {threshold:g} C")
    box = answer_box(spec.boxes, above=above)
    if not box:
        raise Stuck("the task names no answer box")
    from .plays import _deliver  # here: plays imports this module's plays when it is imported

    _deliver(p, name, box, room)


def _box_room(p: TaskPlayer, spec: TaskSpec) -> str:
    """Where the answer boxes are: the room the task names, else where one was seen (looked for if need be)."""
    if spec.box_room:
        return spec.box_room
    names = [b for b in spec.boxes.values() if b]
    p.explore(until=lambda: any(p.named(b) for b in names))
    seen = [e for b in names for e in p.named(b)]
    return seen[0].room if seen else ""


def _take_reading(p: TaskPlayer, name: str, room: str, readings: list[tuple[int, float]]) -> bool:
    """Read the thermometer on ``name`` and keep ``(move, degrees)``; False when there was no reading."""
    t = _read(p, name, room)
    if t is None:
        return False
    readings.append((int(p.ctx.obs.extra.get("moves", 0) or 0), t))
    return True


def settled_side(readings: Sequence[tuple[int, float]], threshold: float, lead: int = LEAD_MOVES) -> bool | None:
    """Whether the temperature is above ``threshold`` and will stay so for ``lead`` moves; None: not settled.

    ``readings`` are ``(move, degrees)`` pairs, oldest first; the last one is the fresh reading. The drift per move
    is the change between the last two readings over the moves between them (an object warms or cools toward
    the room's temperature, fastest at first, so a rate over a longer span overstates the drift: the safe side).
    The side is settled when the last reading and its value ``lead`` moves on are both more than a reading's
    rounding away from the threshold, on the same side. One reading alone (its drift unknown) never settles.

    Example:
        >>> settled_side([(12, 59.0), (14, 52.0)], 50.0) is None    # 3.5 C a move: below 50 within two moves
        True
        >>> settled_side([(12, 59.0), (19, 47.0)], 50.0)            # crossed, and still going down
        False
        >>> settled_side([(9, 140.0), (15, 138.0)], 100.0)
        True
    """
    if len(readings) < 2:
        return None
    (m0, t0), (m1, t1) = readings[-2], readings[-1]
    ahead = t1 + (t1 - t0) / max(m1 - m0, 1) * lead
    sides = {t > threshold for t in (t1, ahead)}
    if len(sides) != 1 or min(abs(t1 - threshold), abs(ahead - threshold)) <= ROUNDING_C:
        return None
    return sides.pop()


def _read(p: TaskPlayer, name: str, room: str) -> float | None:
    res = p.skill("sw_thermometer", name, prefer=["inventory", room] if room != "inventory" else ["inventory"])
    return p.ctx.last_reading if res.ok else None


MARGIN_C = 30.0
"""How far past the threshold a vessel must hold up and a device must reach (a tick can overshoot)."""


def _vessel_ok(e: SeenObject, need_c: float) -> str:
    head = device_kind(referent(e.obj.name)).split()[-1] if e.obj.name else ""
    if head not in VESSELS:
        return "not a vessel"
    if e.obj.contents:
        return f"holds {', '.join(e.obj.contents)}"
    for word in e.obj.name.lower().split():
        top = VESSEL_MAX_C.get(word)
        if top is not None and top < need_c:
            return f"{word} burns or melts at {top:g} C, needs {need_c:g} C"
    return ""


def _conducts_heat(e: SeenObject) -> float:
    """Stage 2 of the vessel: metal first (it passes the heat on fastest; physics), then the rest."""
    return 0.0 if any(w in e.obj.name.lower() for w in ("metal", "steel", "iron", "copper")) else 1.0


def _strength(d: SeenObject) -> float:
    """Stage 2 of a device: the coldest cooler first (it cools fastest); heaters by place only (the hottest,
    a blast furnace, overshoots a melting point by hundreds of degrees between two readings)."""
    return COOLER_MIN_C.get(device_kind(d.obj.name), 0.0) / 1e4


def _device_ok(e: SeenObject, cool: bool, threshold: float) -> str:
    kind = device_kind(e.obj.name)
    if cool:
        low = COOLER_MIN_C.get(kind)
        if low is None:
            return "not a cooler (facts.COOLER_MIN_C)"
        return "" if low <= threshold - MARGIN_C / 6 else f"cools to {low:g} C only"
    top = HEATER_MAX_C.get(kind)
    if top is None:
        return "not a heat source (facts.HEATER_MAX_C)"
    return "" if top >= threshold + MARGIN_C / 3 else f"reaches {top:g} C only"


def play_melting_point(p: TaskPlayer, spec: TaskSpec) -> None:
    """Heat (or, for a liquid, cool) the substance and read it until its melting point is known to be above
    or below the threshold."""
    threshold = spec.threshold_c
    if threshold is None:
        raise Stuck("the task names no threshold")
    _thermometer(p)
    e = _find(p, spec)
    name = p.here(e)
    p.must("sw_focus_on", name, prefer=[where(e)])
    # the state it is in now: the name says so (``liquid unknown substance J``), else the handbook
    # (``facts.SUBSTANCES``: mercury is a liquid at room temperature); solid when neither knows
    start = state_of_matter(e.obj.name) or state_at(spec.target, AMBIENT_C) or "solid"
    cool = start == "liquid"
    need = threshold + MARGIN_C
    if not any(_conducts_heat(v) == 0.0 for v in p.memory.entries() if not _vessel_ok(v, need)):
        p.open_storage(e.room)  # a metal pot is often in the cupboard
    holder = p.memory.holder_of(e)
    hid = holder.gid if holder is not None else ""

    def vessel_ok(v: SeenObject) -> str:
        return _vessel_ok(_empty(v) if v.gid == hid else v, need)

    choice = p.record(choose("vessel", p.memory.entries(), vessel_ok, near=e.room, rank=_conducts_heat))
    vessel = p.memory.get(choice.object_id or "")
    if vessel is None:
        raise Stuck(f"no vessel to heat the {name} in: {choice.excluded}")
    if vessel.gid != hid:
        vname = p.fetch(vessel)
        if cool and holder is not None:  # a liquid is poured from its container
            src = p.fetch(holder)
            if not p.skill("sw_pour", src, vname, prefer=["inventory"]).ok:
                vessel = holder
        else:
            p.here(e)
            p.must("sw_move", name, vname, prefer=[where(e)])
    vname = p.fetch(vessel)
    if cool:
        p.explore()  # every cooler seen before choosing: the coldest one (maybe the workshop's) is fastest
    excluded: dict[str, str] = {}
    for _ in range(p.max_replans + 1):
        choice = p.record(choose("cooler" if cool else "heater", p.memory.entries(),
                                 lambda d: _device_ok(d, cool, threshold), near=e.room, excluded=excluded,
                                 movable=False, rank=_strength))
        device = p.memory.get(choice.object_id or "")
        if device is None and len(p.memory.rooms) < len(ROOM_ORDER):
            p.explore()  # the rooms not seen yet may hold one (the workshop's ultra-low freezer)
            continue
        if device is None:
            raise Stuck(f"no usable {'cooler' if cool else 'heat source'}: {choice.excluded}")
        dname = p.here(device)
        if device.obj.is_open is False:
            p.skill("sw_open", dname, prefer=[device.room])
        if not p.memory.holds(vname):
            p.fetch(vessel)
        p.must("sw_move", vname, dname, prefer=["inventory"])
        res = p.skill("sw_switch", dname, on=True, prefer=[device.room]) if not cool or \
            device.obj.device_on is False else None
        if res is None or res.ok:
            verdict = _watch(p, threshold, vname, cool, name, start)
            if verdict is not None:
                _answer(p, spec, verdict)
                return
            excluded[device.gid] = "the temperature stopped moving short of an answer"
        else:
            excluded[device.gid] = res.reason
        p._run.replans += 1
        p.skill("sw_pick_up", vname, prefer=[dname])
    raise Stuck("no device settled the melting point")


def _empty(e: SeenObject) -> SeenObject:
    """The holder as if empty (the substance in it is the task's own)."""
    obj = type(e.obj)(**{**e.obj.__dict__, "contents": []})
    return SeenObject(room=e.room, oid=e.oid, obj=obj, record=e.record)


def _state(p: TaskPlayer, vessel: str) -> str | None:
    names = [o.name for o in p.memory.contents_of(vessel, p.ctx.placed)]
    return next((s for n in names if (s := state_of_matter(n))), None)


def _read_in(p: TaskPlayer, vessel: str, name: str) -> float | None:
    """The thermometer on the substance in ``vessel``, by the name it has now (``liquid chocolate``)."""
    names = [o.name for o in p.memory.contents_of(vessel, p.ctx.placed)]
    # the name as seen, else the task's name in each state (``solid mercury`` once it froze)
    base = name.split(" ", 1)[1] if state_of_matter(name) else name
    for n in dict.fromkeys([*names, name, *(f"{s} {base}" for s in ("solid", "liquid", "gaseous")), base]):
        res = p.skill("sw_thermometer", referent(n), prefer=[vessel])
        if res.ok:
            return p.ctx.last_reading
    return None


def _watch(p: TaskPlayer, threshold: float, vessel: str, cool: bool, name: str, start: str) -> bool | None:
    """Read the substance every tick; True: melting point above the threshold, False: below, None: unsettled.

    Heating a solid: liquid at ``t`` -> the melting point is at most ``t`` (between the last solid reading and
    ``t``); still solid above the threshold -> above. Cooling a liquid: solid at ``t`` -> it froze there; still
    liquid below the threshold -> below.
    """
    before: float | None = None
    stalled = misses = 0
    started = False
    for _ in range(MAX_HEAT_TICKS):
        t = _read_in(p, vessel, name)
        state = _state(p, vessel)
        misses = 0 if t is not None else misses + 1
        if misses >= 3:
            return None  # the substance cannot be read any more (gone, or renamed past recognition)
        if t is not None:
            if state is None:
                state = start  # a name without a state word has not changed state
            changed = state == "solid" if cool else state in ("liquid", "gas")
            if changed:
                point = t if before is None else (t + before) / 2
                p._run.answer = f"{'froze' if cool else 'melted'} between {before} and {t:g} C"
                return point > threshold
            if (t < threshold) if cool else (t > threshold):
                p._run.answer = f"still {'liquid' if cool else 'solid'} at {t:g} C"
                return not cool
            moved = before is not None and (before - t if cool else t - before) > 0.5
            started = started or moved
            stalled = 0 if moved else stalled + 1
            before = t
            if stalled >= (4 if started else 8):  # a device takes a few ticks to get going
                return None  # the device does not change the temperature: try another
        p.skill("sw_wait", ticks=1)
    return None


def _answer(p: TaskPlayer, spec: TaskSpec, above: bool) -> None:
    box = answer_box(spec.boxes, above=above)
    if not box:
        raise Stuck("the task names no answer box")
    if spec.box_room:
        p.goto(spec.box_room)
    if not p.named(box):
        p.explore(until=lambda: bool(p.named(box)))
    found = p.named(box)
    if not found:
        raise Stuck(f"no {box} seen")
    p.here(found[0])
    p.must("sw_focus_on", box, prefer=[where(found[0])])


__all__ = ["MAX_HEAT_TICKS", "MAX_SETTLE_READS", "VESSELS", "play_melting_point", "play_thermometer",
           "settled_side"]
