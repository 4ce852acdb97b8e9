"""The life-stage and paint plays: focus on stages in order, and mix paints into a colour.

- ``life-stages`` (identify-life-stages-1, -2): the organism's objects are ordered by the stage word in their
  names (``data/life_stages.json``); the agent focuses on each stage from earliest to latest. Stages not
  there yet (an egg that has not hatched) are waited for: the text renames the organism as it grows.
- ``paint`` (chemistry-mix-paint-secondary-color, -tertiary-color): the colour's recipe comes from
  ``data/colors.json`` (red-yellow-blue colour wheel); a tertiary colour is made from its secondary first
  (focused on as the intermediate), then the primary is added. Paints are poured into an empty container,
  mixed, and the product is checked on the mixing reply before the focus.
"""

from __future__ import annotations

import re

from .episode import Stuck
from .garden import grow_wait
from .memory import SeenObject
from .player import TaskPlayer, where
from .select import choose, referent
from .spec import TaskSpec, load_data

MAX_STAGE_WAITS = 40
"""Ticks waited in all for stages that are not there yet."""
_PLANT_STAGE = re.compile(r"\bin the (\w+) stage\b")
_HOLDER = re.compile(r"^\s*(?:a|an|the) (.+?) \(containing (.+)\)\s*$")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+")


def stage_index(name: str, organism: str) -> int | None:
    """The position of the stage a name shows for ``organism`` (0 = earliest), or None if it shows none."""
    low = name.lower()
    data = load_data("life_stages")
    named = data["named_stages"].get(referent(low))
    if named is not None and organism.lower() in named["of"]:
        return int(data["animal"].index(named["stage"]))  # a tadpole is a frog's larva
    if not re.search(rf"(?<![a-z]){re.escape(organism.lower())}(?![a-z])", low):
        return None
    if any(re.search(rf"\b{w}\b", low) for w in data["not_a_stage"]):
        return None
    m = _PLANT_STAGE.search(low)
    if m and m.group(1) in data["plant"]:
        return int(data["plant"].index(m.group(1)))
    words = low.split()
    for order in (data["animal"], data["plant"]):
        for w in (words[0], words[-1]):
            if w in order:
                return int(order.index(w))
    return None


def _stage_names(p: TaskPlayer) -> list[tuple[str, str]]:
    """(full name, words that pick it out) of what the current room shows, a pot's contents included with
    their stage (``avocado tree in the seedling stage`` in ``self watering flower pot 7``)."""
    out = [(e.obj.name, where(e)) for e in p.memory.entries() if e.room == p.memory.room]
    # the parser keeps a plant's name without its stage, so a pot's contents are read off the room text
    for line in str(p.ctx.obs.extra.get("look", "")).splitlines():
        m = _HOLDER.match(line)
        if m:
            out += [(_ARTICLE.sub("", c.strip()), f"in {m.group(1)}") for c in m.group(2).split(",")]
    return out


def play_life_stages(p: TaskPlayer, spec: TaskSpec) -> None:
    """Focus on the organism's life stages from earliest to latest, waiting for the ones still to come."""
    organism = re.sub(r"\s+plant$", "", spec.target)
    p.explore((spec.room or "outside", "outside", "greenhouse"),
              until=lambda: bool(p.seen(lambda e: stage_index(e.obj.name, organism) is not None)))
    last = -1
    waits = 0
    while True:
        later = [(i, n, pref) for n, pref in _stage_names(p) if (i := stage_index(n, organism)) is not None
                 and i > last]
        if later:
            i, name, prefer = min(later, key=lambda t: t[0])
            if 0 <= last < i - 1 and _PLANT_STAGE.search(name.lower()) and waits < MAX_STAGE_WAITS:
                # a plant passes through every stage: the one between grows from the younger one (its adult
                # stage lasts 5 ticks; walking there may have taken longer), and focusing on a later one fails
                grow_wait(p, "wait1")
                waits += 1
                continue
            p.must("sw_focus_on", referent(name), prefer=[prefer])
            p._run.answer += f"{name}; "
            last = i
            continue
        if waits >= MAX_STAGE_WAITS:
            raise Stuck(f"no later stage of the {organism} appeared after {waits} ticks")
        grow_wait(p, "wait1")  # the organism grows: the next stage replaces this one in the text
        waits += 1


MAX_GROW_WAITS = 12
"""Ten-tick waits for a planted seed to reach the reproducing stage."""


def play_grow(p: TaskPlayer, spec: TaskSpec) -> None:
    """Plant a seed of the task's plant in a pot with soil and wait until it reproduces (watering the pot when
    it shows no water: pots water themselves only under ScienceWorld's ``easy`` simplification)."""
    plant = re.sub(r"\s+plant$", "", spec.target)

    def seeds() -> list[SeenObject]:
        return [e for e in p.memory.entries() if referent(e.obj.name) == f"{plant} seed"]

    p.explore(("kitchen",), until=lambda: bool(seeds()))
    found = seeds()
    if not found:
        raise Stuck(f"no {plant} seed seen")
    e = found[0]
    name = p.fetch(e)  # carried first, so the focus and the planting name this one seed
    p.must("sw_focus_on", name, prefer=["inventory"])

    def pot_ok(x: SeenObject) -> str:
        if not _is_pot(x) or x.room == "inventory":
            return "not a flower pot"
        if "soil" not in x.obj.contents:
            return "no soil"
        return "" if all(c in ("soil", "water") for c in x.obj.contents) else "something grows there"

    p.explore(("greenhouse",), until=lambda: bool(p.seen(lambda x: not pot_ok(x))))
    pot = p.memory.get(p.record(choose("flower pot", p.memory.entries(), pot_ok, movable=False)).object_id or "")
    if pot is None:
        pot = _pot_with_new_soil(p)
    p.here(pot)
    p.must("sw_move", name, referent(pot.obj.name), prefer=["inventory"])
    for _ in range(MAX_GROW_WAITS):
        look = str(p.ctx.obs.extra.get("look", ""))
        if re.search(rf"{re.escape(plant)} \w+ in the reproducing stage", look):
            p._run.answer = f"{plant} reproducing in {pot.obj.name}"
            p.skill("sw_wait", ticks=1)
            return
        grow_wait(p)
    raise Stuck(f"the {plant} did not reach the reproducing stage")


MAX_FRUIT_WAITS = 14
"""Ten-tick waits for planted seeds to grow, be pollinated and bear fruit."""


def play_grow_fruit(p: TaskPlayer, spec: TaskSpec) -> None:
    """Plant the seeds in pots with soil, let the bees out to pollinate, wait for a fruit, focus on it."""
    fruit = spec.target.strip().lower()

    def seeds() -> list[SeenObject]:
        return [e for e in p.memory.entries() if referent(e.obj.name) == f"{fruit} seed"]

    p.explore(("kitchen",), until=lambda: bool(seeds()))
    if not seeds():
        p.open_storage("kitchen")
    found = seeds()
    if not found:
        raise Stuck(f"no {fruit} seed seen")
    holder = p.memory.holder_of(found[0])
    if holder is not None and referent(holder.obj.name) != "inventory":
        p.fetch(holder)  # the seed jar: every seed at once
    p.explore(("greenhouse",), until=lambda: bool([x for x in p.memory.entries() if _is_pot(x)]))
    pot_rooms = [x.room for x in p.memory.entries() if _is_pot(x) and x.room != "inventory"]
    room = "greenhouse" if "greenhouse" in pot_rooms else (pot_rooms[0] if pot_rooms else p.memory.room)
    if room:
        p.goto(room)

    def ready() -> list[SeenObject]:
        return [x for x in p.memory.entries() if _is_pot(x) and x.room == room and "soil" in x.obj.contents
                and all(c in ("soil", "water") for c in x.obj.contents)]

    for _ in range(3):
        if len(ready()) >= 3:
            break
        try:
            _pot_with_new_soil(p)  # an empty pot gets soil dug with the shovel
        except Stuck:
            break
    if room:
        p.goto(room)
    pots = ready()[:3]
    if len(pots) < 2:
        raise Stuck("fewer than two free flower pots with soil (cross-pollination needs two plants)")
    for pot in pots:
        if not p.skill("sw_move", f"{fruit} seed", referent(pot.obj.name), prefer=["inventory"]).ok:
            break
    hive = next((x for x in p.memory.entries() if referent(x.obj.name) == "bee hive"), None)
    if hive is not None and hive.obj.is_open is False:
        p.here(hive)
        p.skill("sw_open", "bee hive", prefer=[hive.room])  # the bees pollinate the flowers
    for _ in range(MAX_FRUIT_WAITS):
        look = str(p.ctx.obs.extra.get("look", ""))
        if re.search(rf"(?:containing|with) (?:an? )?{re.escape(fruit)}\b(?! seed)", look):  # a fruit, not a seed
            p._run.answer = f"grown {fruit}"  # recorded first: the focus ends the episode
            if p.skill("sw_focus_on", fruit, prefer=["tree", "in flower pot"]).ok:
                return
            p._run.answer = ""
        grow_wait(p)
    raise Stuck(f"no {fruit} grew")


def _is_pot(x: SeenObject) -> bool:
    return re.sub(r"\s+\d+$", "", x.obj.name).endswith(" pot")


def _pot_with_new_soil(p: TaskPlayer) -> SeenObject:
    """No pot has soil: dig some with a shovel from the ground and fill an empty pot with it."""
    pots = [x for x in p.memory.entries() if _is_pot(x) and x.room != "inventory"
            and all(c == "water" for c in x.obj.contents)]
    def named(n: str) -> list[SeenObject]:
        return [x for x in p.memory.entries() if referent(x.obj.name) == n]

    here = p.memory.room
    if pots and not (named("shovel") and named("ground")):
        p.explore(("outside",), until=lambda: bool(named("shovel")) and bool(named("ground")))
        if here:
            p.goto(here)
    shovels, grounds = named("shovel"), named("ground")
    if not (pots and shovels and grounds):
        raise Stuck("no flower pot with soil, and no empty pot, shovel and ground to make one")
    p.fetch(shovels[0])
    p.here(grounds[0])
    p.must("sw_use", "shovel", "ground", prefer=["inventory"])
    p.must("sw_pick_up", "soil", prefer=[f"(in {grounds[0].room})"])
    pot = pots[0]
    p.here(pot)
    p.must("sw_move", "soil", referent(pot.obj.name), prefer=["inventory"])
    return pot


def _recipe(color: str) -> list[str]:
    mixes = load_data("colors")["mixes"]
    if color not in mixes:
        raise Stuck(f"no recipe for {color} paint (colors.json)")
    return list(mixes[color])


def _container_ok(e: SeenObject, sources: set[str]) -> str:
    head = referent(e.obj.name).split()[-1] if e.obj.name else ""
    if head not in ("jug", "bowl", "cup", "pot", "jar", "beaker"):
        return "not a container"
    if e.obj.name in sources:
        return "shares its name with a paint's container (commands would be ambiguous)"
    return f"holds {', '.join(e.obj.contents)}" if e.obj.contents else ""


def _same_color(a: str, b: str) -> bool:
    """``green-blue paint`` and ``blue green paint`` name the same colour (ScienceWorld's spelling varies)."""
    return sorted(re.split(r"[\s-]+", a.strip())) == sorted(re.split(r"[\s-]+", b.strip()))


def _mix(p: TaskPlayer, into: str, colors: list[str], want: str) -> str:
    """Pour each colour into ``into`` and mix; the product's name as ScienceWorld gives it."""
    for c in colors:
        if not p.seen(lambda e, c=c: e.obj.name == f"{c} paint" and e.obj.parent != into):
            raise Stuck(f"no {c} paint left to pour")
        p.must("sw_pour", f"{c} paint", into, prefer=["wood cup"])
    reply = p.must("sw_mix", into)
    m = re.search(r"produce (.+?)\.", reply)
    if m is None or not _same_color(m.group(1), f"{want} paint"):
        raise Stuck(f"mixing made the wrong paint: {reply}")
    # the reply and the object may spell it differently (``blue green`` / ``green-blue``): the room text decides
    held = [e.obj.name for e in p.memory.entries() if e.obj.parent == into and _same_color(e.obj.name, m.group(1))]
    return held[0] if held else m.group(1)


def play_paint(p: TaskPlayer, spec: TaskSpec) -> None:
    """Mix the colour the task names from its parts (a tertiary one through its secondary)."""
    color = re.sub(r"\s+paint$", "", spec.target.strip().lower())
    parts = _recipe(color)
    p.explore(("art studio",), until=lambda: bool(p.seen(lambda e: e.obj.name.endswith(" paint"))))
    room = p.memory.room or "art studio"
    p.open_storage(room)  # a paint cupboard holds more paint (a tertiary colour needs a primary twice)
    sources = {e.obj.parent or "" for e in p.memory.entries() if e.obj.name.endswith(" paint")}
    choice = p.record(choose("mixing container", [e for e in p.memory.entries() if e.room == room],
                             lambda e: _container_ok(e, sources)))
    box = p.memory.get(choice.object_id or "")
    if box is None:
        raise Stuck(f"no empty container to mix in: {choice.excluded}")
    into = referent(box.obj.name)
    secondary = next((c for c in parts if c in load_data("colors")["mixes"]), None)
    if secondary is not None:  # a tertiary colour: make the secondary, focus on it, then add the primary
        made = _mix(p, into, _recipe(secondary), secondary)
        p.must("sw_focus_on", made, prefer=[into])
        p._run.answer = f"{made}, then "
        made = _mix(p, into, [c for c in parts if c != secondary], color)
    else:
        made = _mix(p, into, parts, color)
    p._run.answer += made
    p.must("sw_focus_on", made, prefer=[into])


__all__ = ["MAX_FRUIT_WAITS", "MAX_GROW_WAITS", "MAX_STAGE_WAITS", "play_grow", "play_grow_fruit",
           "play_life_stages", "play_paint", "stage_index"]
