"""Goal checks on ScienceWorld's text: what a play verifies on the next observation.

Each check reads only what a player sees: a ``look around`` or ``look at`` text, or a reply. None means the
text does not say (the check is then not counted as passed).

Example:
    >>> device_on("a red light bulb, which is on. its anode is connected to: a terminal 1 on blue wire.")
    True
    >>> box_holds("This room is called the kitchen. In it, you see: \\n\\ta red box (containing a blue jay)\\n",
    ...           "red box", "blue jay egg")
    True
"""

from __future__ import annotations

import re

from perception.sciworld_text import parse_look

from .select import referent

_ON = re.compile(r",\s*which is (on|off|turned on|turned off|activated|deactivated)\b")
_STATE = re.compile(r"^(solid|liquid|gaseous)\s+")


def device_on(description: str) -> bool | None:
    """Whether a device's description says it is on (``which is on``), off, or nothing (None)."""
    m = _ON.search(description)
    if m is None:
        return None
    return m.group(1) in ("on", "turned on", "activated")


def box_holds(look: str, box: str, name: str) -> bool:
    """Whether a room's text shows ``box`` holding ``name``.

    ScienceWorld may shorten a name inside a container (``blue jay egg`` is listed as ``blue jay``), so a
    content counts when one name starts with the other.
    """
    want = referent(name).lower()
    for o in parse_look(look).objects:
        if o.name.lower() != box.lower():
            continue
        for c in o.contents:
            got = referent(c).lower()
            if got == want or want.startswith(got) or got.startswith(want):
                return True
    return False


def focused(reply: str, name: str = "") -> bool:
    """Whether a reply confirms a focus (``You focus on the X.``)."""
    return reply.startswith("You focus") and (not name or referent(name).lower() in reply.lower())


def state_of_matter(name: str) -> str | None:
    """The state a substance's name shows (``liquid chocolate`` -> liquid), or None when the name does not say."""
    m = _STATE.match(name.strip().lower())
    if m is None:
        return None
    return {"gaseous": "gas"}.get(m.group(1), m.group(1))


def answer_box(boxes: dict[str, str], *, above: bool | None = None, yes: bool | None = None) -> str | None:
    """The box a task's answer names: ``above`` / ``below`` a threshold, or ``yes`` / ``no``."""
    if above is not None:
        return boxes.get("above" if above else "below")
    if yes is not None:
        return boxes.get("yes" if yes else "no")
    return boxes.get("goal")


__all__ = ["answer_box", "box_holds", "device_on", "focused", "state_of_matter"]
