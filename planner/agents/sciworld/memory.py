"""The ScienceWorld agent's memory of the rooms it has seen (the text shows one room at a time)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perception.sciworld_text import read_doors
from skills.sciworld_rooms import walk_order

from ...schemas import ObjectRecord, SceneState
from .facts import ROOM_ORDER

if TYPE_CHECKING:
    from perception.text import TextEstimator, TextObject
    from scenes.base import SceneObs


@dataclass
class SeenObject:
    """One object as last seen: its room (or ``inventory``), the estimator's id, the parsed text, the record."""

    room: str
    oid: str
    obj: TextObject
    record: ObjectRecord

    @property
    def gid(self) -> str:
        """The room-qualified id decisions use (``kitchen/stove``)."""
        return f"{self.room}/{self.oid}"


@dataclass
class RoomMemory:
    """Everything seen so far: per room, the parsed objects and their five-variable records.

    The text estimator sees one room and the inventory at a time; the memory keeps the last view of every
    room, so decisions can weigh devices in rooms the agent is not in. It is also what the ScienceWorld
    skills read (:class:`skills.sciworld.TextMemory`: the current room, what is carried).
    """

    estimator: TextEstimator
    rooms: dict[str, list[SeenObject]] = field(default_factory=dict)
    inventory: list[SeenObject] = field(default_factory=list)
    room: str | None = None
    doors: dict[str, dict[str, bool]] = field(default_factory=dict)
    """The room graph as seen: per room looked at, its doors (``{next room: door open}``)."""

    def record(self, obs: SceneObs) -> None:
        """Update from one observation (reply + look + inventory)."""
        looked, doors = read_doors(str(obs.extra.get("look", "")))
        if looked:
            self.doors[looked] = doors
        state = self.estimator.estimate(obs)
        parsed = self.estimator.parsed_objects()
        entries = [
            SeenObject(room=o.room or "?", oid=oid, obj=o, record=r)
            for (oid, o), r in zip(parsed, state.objects, strict=True)
        ]
        self.room = self.estimator.room
        self.inventory = [e for e in entries if e.room == "inventory"]
        here = [e for e in entries if e.room != "inventory"]
        if self.room and here:
            self.rooms[self.room] = here

    def tour(self, rooms: Sequence[str], *, walk: bool) -> Iterator[str]:
        """``rooms`` in turn (each once): in their order, or when walking the nearest of those left next (by the
        doors seen from where the agent is then); the caller goes there between two rooms."""
        todo = list(dict.fromkeys(rooms))
        while todo:
            room = walk_order(self.doors, self.room or "", todo)[0] if walk else todo[0]
            todo.remove(room)
            yield room

    def entries(self) -> list[SeenObject]:
        """Every object seen, rooms in exploration order (kitchen first), then the inventory."""
        order = {r: i for i, r in enumerate(ROOM_ORDER)}
        rooms = sorted(self.rooms, key=lambda r: order.get(r, len(order)))
        inv = [SeenObject(room="inventory", oid=e.oid, obj=e.obj, record=e.record) for e in self.inventory]
        return [e for r in rooms for e in self.rooms[r]] + inv

    def get(self, gid: str) -> SeenObject | None:
        """One object by its room-qualified id."""
        return next((e for e in self.entries() if e.gid == gid), None)

    def state(self, keep: Callable[[SeenObject], bool] | None = None) -> SceneState:
        """The merged SceneState with room-qualified ids (``kitchen/stove``)."""
        objs = tuple(e.record.model_copy(update={"object_id": e.gid})
                     for e in self.entries() if keep is None or keep(e))
        return SceneState(scene_id="sciworld", objects=objs)

    def find(self, pred: Callable[[SeenObject], bool]) -> list[SeenObject]:
        """Entries matching a predicate, in :meth:`entries` order."""
        return [e for e in self.entries() if pred(e)]

    def holds(self, name: str) -> bool:
        """True when the agent carries an object of this name."""
        return any(e.obj.name == name for e in self.inventory)

    def contents_of(self, container: str, inside: str | None = None) -> list[TextObject]:
        """What a container holds, as last seen: the carried one if the agent carries it, else the one here
        (the one inside ``inside``, e.g. the pot in the oven, when several share the name)."""
        pool = self.inventory if self.holds(container) else self.rooms.get(self.room or "", [])
        for i, h in enumerate(pool):
            if h.obj.name != container or (inside is not None and h.obj.parent != inside):
                continue
            # the parser lists an object's contents right after it
            kids = [e.obj for e in pool[i + 1:] if e.obj.parent == container and e.obj.name in h.obj.contents]
            return kids[: len(h.obj.contents)]
        return []

    def holder_of(self, e: SeenObject) -> SeenObject | None:
        """The container directly holding an object (None when it lies in the room)."""
        pool = self.rooms.get(e.room, []) if e.room != "inventory" else self.inventory
        idx = next((i for i, x in enumerate(pool) if x is e), len(pool))
        # the holder is listed before its contents: the nearest earlier entry with the parent's name
        for x in reversed(pool[:idx]):
            if x.obj.name == e.obj.parent and e.obj.name in x.obj.contents:
                return x
        return None

    def is_broken(self, gid: str) -> bool:
        """True when the estimator remembers the device answering "appears broken"."""
        e = self.get(gid)
        return e is not None and e.record.state.condition.value == "broken"


__all__ = ["RoomMemory", "SeenObject"]
