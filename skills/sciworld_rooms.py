"""Going to a room in ScienceWorld: teleport where the simplification allows it, else walk through its doors.

ScienceWorld's ``easy`` simplification (and ``teleportAction``) adds ``teleport to <room>``. Without it the
agent walks: ``go to <room>`` reaches only a room behind a door of the one it is in, and only through an
open door (``The door is not open.``; ``open door to <room>`` opens it, ``openDoors`` opens them all at the
start). The room graph is learnt from what the agent sees: every ``look around`` lists the room's doors,
``A door to the kitchen (that is closed)``, and a door names the room behind it, seen or not. The agent's
memory keeps them (:class:`skills.sciworld.TextMemory` ``doors``: per room looked at, ``{next room: open}``).

:func:`route` is a breadth-first search over the doors seen so far; a room no seen door leads to is looked
for by walking to the nearest room not looked at yet (:func:`nearest_unseen`), whose doors may name it; a
little common sense about houses (:data:`LIKELY_VIA`) says which to look into first.

Example:
    >>> doors = {"kitchen": {"hallway": False, "outside": True}, "hallway": {"kitchen": False, "workshop": False}}
    >>> route(doors, "kitchen", "workshop")
    ['hallway', 'workshop']
    >>> nearest_unseen(doors, "kitchen")
    ['outside']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from planner.schemas import SkillCall

from .registry import register_skill
from .sciworld import TextSkill, TextSkillContext, send

Doors = Mapping[str, Mapping[str, bool]]
"""Per room looked at, its doors: ``{next room: door open}``."""

LIKELY_VIA: dict[str, tuple[str, ...]] = {"outside": ("kitchen", "greenhouse"), "foundry": ("outside",)}
"""Common sense about houses, used only to choose which unseen room to look into first when no door seen names
the room wanted: the outdoors opens off a kitchen or a greenhouse, a foundry is an outbuilding; any other room
is looked for through a hallway (:data:`INDOOR_VIA`). A wrong guess costs a detour, never the way."""
INDOOR_VIA: tuple[str, ...] = ("hallway",)
WALK_STEPS = 60
"""Step budget of one walk (each hop is ``open door to`` and ``go to``; exploring may take several hops)."""


def _neighbours(doors: Doors) -> dict[str, list[str]]:
    """Both directions of every door seen (a door from A to B is also a way from B to A), in the order seen."""
    out: dict[str, dict[str, None]] = {}
    for room, nexts in doors.items():
        for n in nexts:
            out.setdefault(room, {})[n] = None
            out.setdefault(n, {})[room] = None
    return {room: list(nexts) for room, nexts in out.items()}


def _bfs(doors: Doors, here: str) -> dict[str, str | None]:
    """Breadth-first parents of every room reachable from ``here`` through doors seen."""
    graph = _neighbours(doors)
    parent: dict[str, str | None] = {here: None}
    queue = deque([here])
    while queue:
        room = queue.popleft()
        for n in graph.get(room, []):
            if n not in parent:
                parent[n] = room
                queue.append(n)
    return parent


def _path(parent: Mapping[str, str | None], target: str) -> list[str]:
    out: list[str] = []
    room: str | None = target
    while room is not None and parent[room] is not None:
        out.append(room)
        room = parent[room]
    return out[::-1]


def route(doors: Doors, here: str, target: str) -> list[str] | None:
    """The rooms to walk through from ``here`` to ``target`` (``target`` last; ``[]`` when there), fewest doors
    first; None when no door seen leads there."""
    if here == target:
        return []
    parent = _bfs(doors, here)
    return _path(parent, target) if target in parent else None


def nearest_unseen(doors: Doors, here: str, prefer: tuple[str, ...] = ()) -> list[str] | None:
    """The route to the nearest room a door names but the agent has not looked at (one of ``prefer`` first, if a
    door names one); None when none is left."""
    parent = _bfs(doors, here)
    unseen = [r for r in parent if r not in doors and r != here]  # BFS order: nearest first
    unseen.sort(key=lambda r: r not in prefer)  # stable: the nearest of the preferred ones, then the nearest
    return _path(parent, unseen[0]) if unseen else None


def likely_via(room: str) -> tuple[str, ...]:
    """Rooms to look into first for ``room`` (:data:`LIKELY_VIA`, two levels: the foundry via the outside via
    the kitchen or greenhouse)."""
    first = LIKELY_VIA.get(room, INDOOR_VIA)
    return tuple(dict.fromkeys([*first, *(r for f in first for r in LIKELY_VIA.get(f, ()))]))


def walk_order(doors: Doors, here: str, rooms: list[str]) -> list[str]:
    """``rooms`` nearest first (by doors to walk through; rooms no seen door leads to last, in their order)."""
    parent = _bfs(doors, here)
    far = len(parent) + 1
    return sorted(rooms, key=lambda r: len(_path(parent, r)) if r in parent else far)


@register_skill
class GoTo(TextSkill):
    """Go to a room (``target``): ``teleport to`` when ``ctx.teleport``, else walk the doors seen, opening the
    closed ones and exploring for a room no seen door leads to. Fails with the reason when it cannot get there."""

    name = "sw_go_to"

    def budget(self, call: SkillCall) -> int:
        """A walk may need many hops."""
        return WALK_STEPS

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        room = call.target or ""
        if ctx.memory.room == room:
            return True, "already there"
        if ctx.teleport:
            ok, reply = send(ctx, f"teleport to {room}")
            return (True, "") if ok else (False, f"cannot reach the {room}: {reply.strip()}")
        while ctx.memory.room != room:
            here = ctx.memory.room or ""
            path = route(ctx.memory.doors, here, room) or nearest_unseen(ctx.memory.doors, here, likely_via(room))
            if not path:
                return False, f"cannot reach the {room}: no door seen leads there"
            reply = self._hop(ctx, here, path[0])
            if ctx.memory.room != path[0]:
                return False, f"cannot reach the {room}: the door from the {here} to the {path[0]}: {reply}"
        return True, ""

    @staticmethod
    def _hop(ctx: TextSkillContext, here: str, nxt: str) -> str:
        """Through one door (opened first when it was seen closed, or when going through says it is not open)."""
        if ctx.memory.doors.get(here, {}).get(nxt) is False:
            send(ctx, f"open door to {nxt}")
        _, reply = send(ctx, f"go to {nxt}")
        if "not open" in reply:
            send(ctx, f"open door to {nxt}")
            _, reply = send(ctx, f"go to {nxt}")
        return reply.strip()


__all__ = ["INDOOR_VIA", "LIKELY_VIA", "WALK_STEPS", "Doors", "GoTo", "likely_via", "nearest_unseen", "route",
           "walk_order"]
