"""The plays of the task shapes: short compositions of the shared text skills, driven by the task spec.

A play reads only the spec (:class:`~.spec.TaskSpec`), what the agent has seen (its memory of the rooms)
and the replies. Objects are chosen by the two-stage selector (:func:`~.select.choose`; knowledge from the
``data/`` files, state from the text); goals are checked on the text (:mod:`.checks`). What the task calls
unknown is found by experiment: a conductor by lighting a bulb through it, a temperature or a melting point
by reading the thermometer.

- ``find`` (find-living-thing, -non-living-thing, -plant, -animal): choose a thing of the kind, check it can be
  carried, focus on it, put it in the box;
- ``lifespan`` (3 tasks): focus on the animals with the longest / shortest typical lifespan;
- ``power`` (power-component, ...-renewable-vs-nonrenewable-energy): choose a power source (renewable or not;
  outdoors when it needs sun or wind), focus on the component, wire a circuit, check it is on;
- ``conductivity`` (test-conductivity, ...-of-unknown-substances): focus, wire battery -> object -> bulb, read
  the bulb, put the object in the answer box;
- ``thermometer`` (use-thermometer) and ``melting-point`` (2 tasks): :mod:`.measure`;
- ``genetics`` (mendelian-genetics-known-plant, -unknown-plant): :mod:`.genetics` (a breeding experiment).
"""

from __future__ import annotations

from collections.abc import Callable

from ...schemas import SkillCall
from .checks import answer_box, box_holds, device_on
from .episode import Stuck
from .facts import ROOM_ORDER
from .memory import SeenObject
from .player import TaskPlayer, where
from .select import choose, conductive_prior, is_fixed, kinds_of, lifespan_years, power_source, referent
from .spec import TaskSpec

FIND_FIRST: dict[str, tuple[str, ...]] = {
    "animal": ("outside",),
    "living thing": ("outside", "greenhouse"),
    "plant": ("greenhouse", "outside"),
}
"""Rooms to look in first for a kind (where animals and plants live); every room is searched if need be."""


def _call(skill: str, target: str | None = None, receptacle: str | None = None, **args: object) -> SkillCall:
    return SkillCall(skill=skill, target=target, receptacle=receptacle, args=dict(args))


# ---------------------------------------------------------------- find
def play_find(p: TaskPlayer, spec: TaskSpec) -> None:
    """Find a thing of ``spec.kind``, focus on it and move it to the box (``spec.boxes["goal"]``)."""
    want, box = spec.kind, spec.boxes.get("goal", "")

    def keep(e: SeenObject) -> str:
        if e.obj.substance or " box" in f" {e.obj.name}":
            return "a substance or a box"
        return "" if want in kinds_of(e.obj.name) else f"not a(n) {want} (kinds.json)"

    p.explore(FIND_FIRST.get(want, ()),
              until=lambda: bool(p.seen(lambda e: not keep(e) and not is_fixed(e.obj.name))))
    excluded: dict[str, str] = {}
    for _ in range(p.max_replans + 1):
        choice = p.record(choose("find", p.memory.entries(), keep, near=spec.box_room, excluded=excluded))
        e = p.memory.get(choice.object_id or "")
        if e is None and len(p.memory.rooms) < len(ROOM_ORDER):
            p.explore(until=lambda: bool(p.seen(lambda x: not keep(x) and x.gid not in excluded
                                                and not is_fixed(x.obj.name))))
            continue
        if e is None:
            raise Stuck(f"no {want} found: {choice.reason}")
        name = p.here(e)
        # carrying it first checks that it can be moved at all, before the focus commits to it
        if not p.memory.holds(name) and not p.skill("sw_pick_up", name, prefer=[where(e)]).ok:
            excluded[e.gid] = "cannot be picked up"
            p._run.replans += 1
            continue
        p.must("sw_focus_on", name, prefer=["inventory"])
        _deliver(p, name, box, spec.box_room)
        return
    raise Stuck(f"re-plan budget spent finding a(n) {want}")


def _deliver(p: TaskPlayer, name: str, box: str, room: str) -> None:
    """Carry ``name`` to ``box`` (in ``room``, or wherever it was seen) and check the box holds it."""
    boxes = p.named(box)
    target_room = room or (boxes[0].room if boxes else "")
    if target_room and not p.goto(target_room):
        raise Stuck(f"cannot reach the {target_room}")
    if not p.named(box, p.memory.room):
        p.explore(until=lambda: bool(p.named(box)))
        found = p.named(box)
        if not found:
            raise Stuck(f"no {box} seen")
        p.goto(found[0].room)
    p.must("sw_move", name, box, prefer=["inventory"])
    if not box_holds(str(p.ctx.obs.extra.get("look", "")), box, name):
        raise Stuck(f"the {box} does not show the {name}")


# ---------------------------------------------------------------- lifespan
def play_lifespan(p: TaskPlayer, spec: TaskSpec) -> None:
    """Focus on the animal(s) with the longest and/or shortest typical lifespan (``lifespans.json``)."""
    room = spec.room or "outside"
    if not p.goto(room):
        p.explore()

    def keep(e: SeenObject) -> str:
        if "animal" not in kinds_of(e.obj.name):
            return "not an animal"
        return "" if lifespan_years(e.obj.name) is not None else "lifespan unknown (lifespans.json)"

    order = {"longest": (-1,), "shortest": (1,), "longest-then-shortest": (-1, 1)}.get(spec.kind, (-1,))
    here = [e for e in p.memory.entries() if e.room == room]
    for sign in order:
        choice = p.record(choose("longest lived" if sign < 0 else "shortest lived", here, keep,
                                 rank=lambda e, s=sign: s * (lifespan_years(e.obj.name) or 0.0)))
        e = p.memory.get(choice.object_id or "")
        if e is None:
            raise Stuck(f"no animal with a known lifespan in the {room}: {choice.excluded}")
        p.must("sw_focus_on", referent(e.obj.name), prefer=[room])
        p._run.answer += f"{'longest' if sign < 0 else 'shortest'}: {e.obj.name}; "


# ---------------------------------------------------------------- electrical
def _wires(p: TaskPlayer, n: int, near: str) -> list[SeenObject]:
    wires = [e for e in p.seen(lambda e: e.obj.name.endswith("wire"))]
    wires.sort(key=lambda e: (e.room != near, e.room))
    return wires[:n]


def _gather(p: TaskPlayer, items: list[SeenObject], site: str) -> list[SkillCall]:
    """Steps that bring every item to ``site`` (taken where it is, dropped there)."""
    steps: list[SkillCall] = []
    away = [e for e in items if e.room != site]
    for e in away:
        if e.room != "inventory":
            steps += [_call("sw_go_to", e.room), _call("sw_pick_up", referent(e.obj.name), prefer=[where(e)])]
    if away:
        steps.append(_call("sw_go_to", site))
        steps += [_call("sw_drop", referent(e.obj.name)) for e in away]
    return steps


def _circuit(source: str, wires: list[str], parts: list[tuple[str, str, str]]) -> list[SkillCall]:
    """Connect ``source`` through ``parts`` (name, in-terminal, out-terminal) in series, a wire between each.

    ScienceWorld's polarity (found by experiment, ``electrical.json``): the source's anode feeds the first
    part, the last part returns to the source's cathode; a light bulb takes current in at its cathode.
    """
    chain = [(source, "", "anode"), *parts, (source, "cathode", "")]
    steps = []
    for i, ((a, _ai, a_out), (b, b_in, _bo)) in enumerate(zip(chain, chain[1:], strict=False)):
        w = wires[i]
        steps.append(_call("sw_connect", f"{a} {a_out}", f"{w} terminal 1"))
        steps.append(_call("sw_connect", f"{w} terminal 2", f"{b} {b_in}"))
    return steps


def _is_on(p: TaskPlayer, name: str) -> bool | None:
    p.skill("sw_wait", ticks=1)
    res = p.skill("sw_look_at", name)
    return device_on(res.reason) if res.ok else None


def _powered(p: TaskPlayer, target: str, source: str) -> bool:
    """Whether the component is on; a source whose text says it is off (a generator) is switched on first."""
    if _is_on(p, target):
        return True
    res = p.skill("sw_look_at", source)
    if res.ok and device_on(res.reason) is False and p.skill("sw_switch", source, on=True).ok:
        return bool(_is_on(p, target))
    return False


def play_power(p: TaskPlayer, spec: TaskSpec) -> None:
    """Turn the component on: a power source (of ``spec.kind`` when given) wired to it in a circuit."""
    target = spec.target

    def source_ok(e: SeenObject) -> str:
        facts = power_source(e.obj.name)
        if facts is None:
            return "not a power source (electrical.json)"
        if spec.kind == "renewable" and facts["renewable"] is not True:
            return "not renewable"
        if spec.kind == "nonrenewable" and facts["renewable"] is not False:
            return "not nonrenewable"
        return ""

    p.explore(("workshop",), until=lambda: bool(p.named(target)) and bool(p.seen(lambda e: not source_ok(e)))
              and len(_wires(p, 2, "")) >= 2)
    found = p.named(target)
    if not found:
        raise Stuck(f"the {target} was not found")
    p.here(found[0])
    p.must("sw_focus_on", target, prefer=[where(found[0])])
    excluded: dict[str, str] = {}
    for _ in range(p.max_replans + 1):
        choice = p.record(choose("power source", p.memory.entries(), source_ok, excluded=excluded,
                                 rank=lambda e: 1.0 if (power_source(e.obj.name) or {}).get("outdoors") else 0.0))
        src = p.memory.get(choice.object_id or "")
        if src is None:
            raise Stuck(f"no usable power source: {choice.excluded}")
        outdoors = bool((power_source(src.obj.name) or {}).get("outdoors"))
        site = "outside" if outdoors else src.room
        comp = p.named(target)[0]
        wires = _wires(p, 2, site)
        if len(wires) < 2:
            raise Stuck("fewer than two wires seen")
        steps = _gather(p, [comp, src, *wires], site)
        steps += _circuit(referent(src.obj.name), [referent(w.obj.name) for w in wires],
                          [(target, "cathode", "anode")])
        p._run.answer = f"powered by the {src.obj.name}"  # recorded first: the last connection may end the episode
        if p.run_steps("power source", steps) and _powered(p, target, referent(src.obj.name)):
            return
        excluded[src.gid] = "the component stayed off"
        p._run.answer = ""
        p._run.replans += 1
    raise Stuck(f"the {target} stayed off")


def play_conductivity(p: TaskPlayer, spec: TaskSpec) -> None:
    """Wire battery -> object -> light bulb; the bulb says whether the object conducts; answer in its box."""
    target = spec.target

    def battery_ok(e: SeenObject) -> str:
        facts = power_source(e.obj.name)
        return "" if facts is not None and not facts["outdoors"] else "not an indoor power source"

    def bulb_ok(e: SeenObject) -> str:
        return "" if e.obj.name.endswith("light bulb") else "not a light bulb"

    def ready() -> bool:
        return (bool(p.named(target)) and bool(p.seen(lambda e: not battery_ok(e)))
                and bool(p.seen(lambda e: not bulb_ok(e))) and len(_wires(p, 3, "")) >= 3)

    p.explore((spec.room, "workshop"), until=ready)
    found = p.named(target)
    if not found:
        raise Stuck(f"the {target} was not found")
    p.here(found[0])
    p.must("sw_focus_on", target, prefer=[where(found[0])])
    src = p.memory.get(p.record(choose("power source", p.memory.entries(), battery_ok)).object_id or "")
    if src is None:
        raise Stuck("no battery seen")
    bulb = p.memory.get(p.record(choose("indicator", p.memory.entries(), bulb_ok, near=src.room)).object_id or "")
    wires = _wires(p, 3, src.room)
    if bulb is None or len(wires) < 3:
        raise Stuck("no light bulb or fewer than three wires seen")
    site = src.room
    steps = _gather(p, [p.named(target)[0], bulb, *wires], site)
    bname = referent(bulb.obj.name)
    steps += _circuit(referent(src.obj.name), [referent(w.obj.name) for w in wires],
                      [(target, "terminal 1", "terminal 2"), (bname, "cathode", "anode")])
    if not p.run_steps("circuit", steps):
        raise Stuck(f"could not wire the circuit: {p._run.failure}")
    on = _is_on(p, bname)
    if on is None:
        raise Stuck(f"the {bname} does not say whether it is on")
    prior = conductive_prior(target)
    p._run.answer = ("conductive" if on else "nonconductive") + (
        f" (material prior: {'conductive' if prior else 'insulator'})" if prior is not None else "")
    box = answer_box(spec.boxes, yes=on)
    if not box:
        raise Stuck("the task names no answer box")
    name = p.fetch(p.named(target)[0])
    boxes = p.named(box)
    _deliver(p, name, box, boxes[0].room if boxes else "")


def _plays() -> dict[str, Callable[[TaskPlayer, TaskSpec], None]]:
    from .chemistry import play_chemistry
    from .genetics import play_genetics
    from .inclined import play_inclined
    from .measure import play_melting_point, play_thermometer
    from .stages import play_grow, play_grow_fruit, play_life_stages, play_paint

    return {"find": play_find, "lifespan": play_lifespan, "power": play_power, "conductivity": play_conductivity,
            "thermometer": play_thermometer, "melting-point": play_melting_point, "life-stages": play_life_stages,
            "paint": play_paint, "chemistry": play_chemistry, "grow": play_grow, "grow-fruit": play_grow_fruit,
            "inclined-plane": play_inclined, "genetics": play_genetics}


PLAYS: dict[str, Callable[[TaskPlayer, TaskSpec], None]] = _plays()
"""Shape -> play (the change-of-state shape is :class:`~.agent.SciWorldAgent`'s)."""

__all__ = ["FIND_FIRST", "PLAYS", "play_conductivity", "play_find", "play_lifespan", "play_power"]
