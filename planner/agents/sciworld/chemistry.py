"""The chemistry play: read the recipe, put its ingredients in one container, mix, focus on the product.

``chemistry-mix`` names a substance and says near which room the recipe is. The recipe's text (``To make
salt water, you need to mix sodium chloride, water.``) is the plan: every ingredient goes into one empty
container (water from a tap, a substance poured from its container, a thing moved in), then the container
is mixed; the product is checked on the room text before the focus.
"""

from __future__ import annotations

import re

from .episode import Stuck
from .facts import ROOM_ORDER
from .memory import SeenObject
from .player import TaskPlayer, where
from .select import choose, referent
from .spec import TaskSpec

_RECIPE = re.compile(r"you need to mix (.+?)\.?\s*$", re.I | re.S)
CONTAINERS: tuple[str, ...] = ("cup", "bowl", "jar", "jug", "pot", "beaker", "flask")
"""Head nouns of containers a mixture can be made in."""


def ingredients(recipe: str) -> list[str]:
    """The ingredients a recipe's text lists (``sodium chloride, water`` -> two)."""
    m = _RECIPE.search(recipe.strip())
    if m is None:
        return []
    return [i.strip() for i in re.split(r",\s*|\s+and\s+", m.group(1)) if i.strip()]


def _find(p: TaskPlayer, name: str) -> SeenObject | None:
    low = name.lower()
    hits = [e for e in p.memory.entries() if referent(e.obj.name).lower() == low]
    # a recipe names the kind (``paper``, ``jam``); the room may say more (``blank paper``, ``red jam``)
    hits = hits or [e for e in p.memory.entries() if referent(e.obj.name).lower().endswith(f" {low}")]
    hits.sort(key=lambda e: (e.room == "inventory", e.obj.parent is not None))
    return hits[0] if hits else None


def play_chemistry(p: TaskPlayer, spec: TaskSpec) -> None:
    """Make the substance the task names from the recipe's ingredients."""
    def recipe() -> SeenObject | None:
        return next((e for e in p.memory.entries() if e.obj.name.lower().startswith("recipe")), None)

    p.explore((spec.room,), until=lambda: recipe() is not None)
    r = recipe()
    if r is None:
        raise Stuck("no recipe seen")
    p.here(r)
    parts = ingredients(p.must("sw_read", "recipe", prefer=[where(r)]))
    if not parts:
        raise Stuck("the recipe lists no ingredients")
    p._run.answer = "recipe: " + ", ".join(parts)
    if spec.room:
        p.goto(spec.room)
        p.open_storage(spec.room)
    p.explore(until=lambda: all(_find(p, i) is not None or i == "water" for i in parts))
    holders = {e.obj.parent for i in parts if (e := _find(p, i)) is not None}

    def container_ok(e: SeenObject) -> str:
        head = referent(e.obj.name).split()[-1]
        if head not in CONTAINERS:
            return "not a container"
        if e.obj.name in holders:
            return "holds an ingredient (commands would be ambiguous)"
        return f"holds {', '.join(e.obj.contents)}" if e.obj.contents else ""

    choice = p.record(choose("mixing container", p.memory.entries(), container_ok, near=spec.room))
    if choice.object_id is None and len(p.memory.rooms) < len(ROOM_ORDER):
        p.explore()
        choice = p.record(choose("mixing container", p.memory.entries(), container_ok, near=spec.room))
    box = p.memory.get(choice.object_id or "")
    if box is None:
        raise Stuck(f"no empty container to mix in: {choice.excluded}")
    into = p.fetch(box)
    for part in parts:
        _add(p, part, into)
    reply = p.must("sw_mix", into, prefer=["inventory"])
    want = spec.target.lower()
    if want not in reply.lower():
        raise Stuck(f"mixing made something else: {reply}")
    p.must("sw_focus_on", want, prefer=["inventory"])


def _search_storage(p: TaskPlayer, part: str) -> SeenObject | None:
    """Open the closed storage of every room seen until ``part`` shows up (a paper in a drawer)."""
    for room in list(p.memory.rooms):
        if any(e.obj.is_open is False and e.obj.device_on is None for e in p.memory.rooms.get(room, [])):
            p.goto(room)
            p.open_storage(room)
            found = _find(p, part)
            if found is not None:
                return found
    return None


def _add(p: TaskPlayer, part: str, into: str) -> None:
    """Put one ingredient into the carried container ``into``."""
    if part == "water":
        sinks = [e for e in p.memory.entries()
                 if referent(e.obj.name) in ("sink", "bathtub") and e.room != "inventory"]
        sinks.sort(key=lambda e: e.room != p.memory.room)
        for s in sinks:
            p.here(s)
            if p.skill("sw_fill", into, referent(s.obj.name), room=s.room).ok:
                p.fetch_named(into)
                return
        raise Stuck("no tap gave water")
    e = _find(p, part) or _search_storage(p, part)
    if e is None:
        raise Stuck(f"no {part} seen")
    holder = p.memory.holder_of(e) if e.obj.parent else None
    # a substance is poured with its container; a thing among others (a banana in a fruit bowl) is moved alone
    if holder is not None and (e.obj.substance or holder.obj.contents == [e.obj.name]):
        twins = [x for x in p.memory.entries() if x.obj.name == holder.obj.name and x.gid != holder.gid]
        if twins:  # three wood cups of paint: the paint is poured by its own name, not its cup's
            p.here(e)
            if p.skill("sw_pour", referent(e.obj.name), into, prefer=[where(e)]).ok:
                return
        src = p.fetch(holder)
        res = p.skill("sw_pour", src, into, prefer=["inventory"])
        if not res.ok and "not open" in res.reason:
            p.skill("sw_open", src, prefer=["inventory"])
            res = p.skill("sw_pour", src, into, prefer=["inventory"])
        if res.ok:
            return
    name = p.here(e)
    for n in dict.fromkeys([name, part]):  # ``blank paper`` answers to ``paper`` only
        if p.memory.holds(n) or p.skill("sw_pick_up", n, prefer=[where(e)]).ok:
            p.must("sw_move", n, into, prefer=["inventory"])
            return
    raise Stuck(f"could not pick up the {name}")


__all__ = ["CONTAINERS", "ingredients", "play_chemistry"]
