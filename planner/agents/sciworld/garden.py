"""Watering flower pots, for the plays that grow plants (grow-plant, grow-fruit, life stages, genetics).

Under ScienceWorld's ``selfWateringFlowerPots`` simplification (part of ``easy``) a flower pot refills itself
with water; without it a plant grows only while its pot holds water: a seed or a seedling makes no progress
in a dry pot (and a seedling dies after 20 dry ticks), an adult drinks the water each tick. The text shows
it: ``a flower pot 1 (containing a cherry seed, soil, a substance called water)``. So before time is let
pass, every pot of the room where something grows and no water shows is watered, the way a gardener would:
a carrier (a jug...) is put in the room's sink, the sink is switched on (the carrier fills and refills
itself while it stands there), and the carrier is poured into each dry pot. The sink is left running.
A self-watering pot (ScienceWorld also places some by name) is never dry.
"""

from __future__ import annotations

import re

from .memory import SeenObject
from .player import TaskPlayer, where
from .select import referent

CARRIERS: tuple[str, ...] = ("jug", "watering can", "bucket", "cup", "bowl", "beaker", "jar")
"""Heads of names of things that carry water from a sink to a pot (the greenhouse has a jug)."""
_GROUND = ("soil", "water")


def is_flower_pot(e: SeenObject) -> bool:
    """A flower pot (``flower pot 3``, ``self watering flower pot 7``)."""
    return re.sub(r"\s+\d+$", "", e.obj.name).endswith("flower pot")


def dry(e: SeenObject) -> bool:
    """A flower pot where something grows (a seed, a plant) and no water shows; a self-watering one never is."""
    held = e.obj.contents
    return (is_flower_pot(e) and "self watering" not in e.obj.name and "water" not in held
            and any(c not in _GROUND for c in held))


def _carrier(e: SeenObject) -> bool:
    head = referent(e.obj.name)
    return (any(head == c or head.endswith(f" {c}") for c in CARRIERS) and not head.startswith("seed")
            and all(c == "water" for c in e.obj.contents))


def water_pots(p: TaskPlayer) -> int:
    """Water the dry pots of the room the agent is in (:func:`dry`); the number poured into. Nothing is sent
    when no pot is dry; a room without a sink or a carrier leaves them dry (the play goes on, the plant waits)."""
    room = p.memory.room or ""
    here = p.memory.rooms.get(room, [])
    pots = [e for e in here if dry(e)]
    if not pots:
        return 0
    sink = next((e for e in here if referent(e.obj.name) == "sink"), None)
    carriers = sorted((e for e in [*here, *p.memory.inventory] if _carrier(e)),
                      key=lambda e: (sink is None or e.obj.parent != sink.obj.name, e.room != "inventory"))
    if sink is None or not carriers:
        return 0
    jug = carriers[0]
    name = referent(jug.obj.name)
    if jug.obj.parent != sink.obj.name:
        if not p.skill("sw_move", name, "sink", prefer=[where(jug)]).ok:
            return 0
    if sink.obj.device_on is not True and not p.skill("sw_switch", "sink", prefer=[room]).ok:
        return 0
    done = 0
    for pot in pots:
        done += p.skill("sw_pour", name, referent(pot.obj.name), prefer=["in sink"]).ok
    return done


def grow_wait(p: TaskPlayer, command: str = "wait") -> None:
    """Let time pass for growing things: water the room's dry pots, then ``wait`` (ten ticks) or ``wait1``."""
    water_pots(p)
    p.skill("sw_wait", ticks=1, command=command)


__all__ = ["CARRIERS", "dry", "grow_wait", "is_flower_pot", "water_pots"]
