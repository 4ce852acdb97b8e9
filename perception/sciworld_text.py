"""Parse ScienceWorld observation text (``look around``, inventory listings, action replies) into objects.

What the text says, and what is read from it here:

- **rooms and containment**: ``This room is called the kitchen. In it, you see: ...``, ``a metal pot
  (containing a substance called water)``, ``a table. On the table is: ...``, ``In the cupboard is: ...``.
- **devices**: ``a stove, which is turned off``, ``a stopwatch, which is deactivated``, ``a light bulb,
  which is on``; doors ``The fridge door is open``; ``(on fire)``; a thermometer's ``currently reading``.
- **replies**: ``You move to the hallway.`` (:func:`moved_to`), ``The stove appears broken, ...``
  (:func:`broken_names`), and the thermometer reply :data:`THERMOMETER_READING` to the command
  :data:`USE_THERMOMETER`.

What the parsed objects mean for the five variables is :mod:`perception.text`'s job.

Example:
    >>> p = parse_look("This room is called the kitchen. In it, you see: \\n\\ta stove, which is turned off.\\n")
    >>> [(o.name, o.device_on) for o in p.objects]
    [('stove', False)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class TextObject:
    """One object as the text describes it."""

    name: str
    room: str | None = None
    parent: str | None = None
    contents: list[str] = field(default_factory=list)
    device_on: bool | None = None
    is_open: bool | None = None
    substance: bool = False
    on_fire: bool = False
    reading_c: float | None = None


_ARTICLE = re.compile(r"^(?:a|an|the|A|An|The)\s+")
_ROOM = re.compile(r"(?:This room is called the|This outside location is called the)\s+(.+?)\.\s")
_SURFACE = re.compile(r"\.\s*(On|In) the (.+?) is:\s*")
_DEVICE = re.compile(r",\s*which is (turned on|turned off|activated|deactivated|on|off)\b", re.IGNORECASE)
_DOOR = re.compile(r"The (.+?) door is (open|closed)")
_READING = re.compile(r"currently reading a temperature of (-?\d+(?:\.\d+)?) degrees celsius")
_BROKEN = re.compile(r"The (.+?) appears broken", re.I)
_MOVED = re.compile(r"^You move to the (.+?)\.", re.I)
_ROOM_DOOR = re.compile(r"^\s*A door to the (.+?) \(that is (open|closed)\)\s*$", re.M)
_SKIP_NAMES: frozenset[str] = frozenset({"agent", "air"})

THERMOMETER_READING = re.compile(
    r"the thermometer measures a temperature of (-?\d+(?:\.\d+)?) degrees celsius", re.I
)
"""The reply to ``use thermometer on X``; group 1 is the temperature in degrees Celsius."""
USE_THERMOMETER = re.compile(r"^use thermometer(?: in inventory)? on (.+)$", re.I)
"""The command that measures a temperature; group 1 is what it was used on (``substance in metal pot``)."""


def split_list(text: str) -> list[str]:
    """Split ``a, b (containing c, d), e, which is off`` at top-level commas, keeping ``, which ...`` attached."""
    parts: list[str] = []
    depth, cur = 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    out: list[str] = []
    for p in parts:
        if not p:
            continue
        if out and re.match(r"^(which|currently|its|their)\b", p):
            out[-1] = f"{out[-1]}, {p}"
        else:
            out.append(p)
    return out


def _paren_block(s: str, start: int) -> tuple[str, int]:
    """The text inside the parenthesis opening at ``start`` and the index after its closing one."""
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "(":
            depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0:
                return s[start + 1 : i], i + 1
    return s[start + 1 :], len(s)


def parse_description(desc: str, *, room: str | None = None, parent: str | None = None) -> list[TextObject]:
    """Parse one object description (and everything it contains) into TextObjects, outermost first."""
    desc = desc.strip().rstrip(".").strip()
    if not desc or desc.lower() == "nothing":
        return []
    out: list[TextObject] = []
    body = _ARTICLE.sub("", desc)
    substance = False
    m = re.match(r"^substance called\s+", body)
    if m:
        body, substance = body[m.end() :], True
    # the name runs up to the first "(", ", which", ", currently", ". " or "its/their" clause
    cut = len(body)
    for pat in (r"\s*\(", r",\s*which is", r",\s*currently", r"\.\s", r"\s*its (?:anode|terminal)", r"its terminal"):
        mm = re.search(pat, body)
        if mm:
            cut = min(cut, mm.start())
    name = body[:cut].strip().rstrip(".,").strip()
    rest = body[cut:]
    obj = TextObject(name=name, room=room, parent=parent, substance=substance)
    # book titles and life stages are part of the description, not the name
    obj.name = re.sub(r"\s+in the \w+ stage$", "", obj.name)
    out.append(obj)
    # "On the X is: ..." / "In the X is: ..." lists everything after it; the clauses before it describe obj
    sm = _SURFACE.search(rest)
    head, listed = (rest[: sm.start()], rest[sm.end() :]) if sm else (rest, "")
    children: list[TextObject] = []
    # parenthesised blocks: (containing ...), (on fire), (that is open), (Frankenstein)
    i = 0
    while True:
        j = head.find("(", i)
        if j < 0:
            break
        inner, i = _paren_block(head, j)
        low = inner.strip().lower()
        if low.startswith("containing "):
            for item in split_list(inner.strip()[len("containing ") :]):
                children += parse_description(item, room=room, parent=obj.name)
        elif low in ("on fire", "burning"):
            obj.on_fire = True
    dm = _DEVICE.search(head)
    if dm:
        obj.device_on = dm.group(1).lower() in ("turned on", "activated", "on")
    om = _DOOR.search(head)
    if om:
        obj.is_open = om.group(2) == "open"
    rm = _READING.search(head)
    if rm:
        obj.reading_c = float(rm.group(1))
    if listed:
        for item in split_list(listed.rstrip(".")):
            children += parse_description(item, room=room, parent=obj.name)
    obj.contents = [c.name for c in children if c.parent == obj.name]
    return out + children


@dataclass
class ParsedText:
    """What one observation text says."""

    room: str | None = None
    objects: list[TextObject] = field(default_factory=list)
    is_look: bool = False


_SECTION = re.compile(
    r"^(?:This room is called the .+?\.|This outside location is called the .+?\.|In your inventory, you see:)", re.M
)


def parse_sections(text: str) -> list[ParsedText]:
    """Every room description and inventory listing in ``text`` (a reply may be followed by a look)."""
    if not isinstance(text, str) or not text.strip():
        return []
    starts = [m.start() for m in _SECTION.finditer(text)]
    if not starts:
        return []
    out: list[ParsedText] = []
    for a, b in zip(starts, starts[1:] + [len(text)], strict=True):
        chunk = text[a:b]
        res = ParsedText(is_look=True)
        rm = _ROOM.match(chunk + " ")
        res.room = rm.group(1).strip() if rm else None
        where = res.room if rm else "inventory"
        for line in chunk.splitlines()[1:]:
            if line.strip().startswith("You also see"):
                break  # doors follow
            if not (line.startswith("\t") or line.startswith("    ")):
                continue
            for o in parse_description(line.strip(), room=where, parent=None if rm else "inventory"):
                if o.name.lower() not in _SKIP_NAMES:
                    res.objects.append(o)
        out.append(res)
    return out


def parse_look(text: str) -> ParsedText:
    """Parse a ``look around`` (or inventory) text into objects with room and containment.

    >>> p = parse_look("This room is called the kitchen. In it, you see: \\n\\ta table. On the table is: "
    ...                "a glass cup (containing nothing), a metal pot (containing a substance called water).\\n")
    >>> [(o.name, o.parent) for o in p.objects]
    [('table', None), ('glass cup', 'table'), ('metal pot', 'table'), ('water', 'metal pot')]
    """
    sections = parse_sections(text)
    rooms = [p for p in sections if p.room is not None]
    return rooms[0] if rooms else (sections[0] if sections else ParsedText())


def strip_article(name: str) -> str:
    """``the stove`` -> ``stove`` (a leading a/an/the)."""
    return _ARTICLE.sub("", name.strip())


def moved_to(text: str) -> str | None:
    """The room a ``You move to the ...`` reply names, else None."""
    m = _MOVED.match(text.strip())
    return m.group(1).strip() if m else None


def read_doors(look: str) -> tuple[str | None, dict[str, bool]]:
    """The room a ``look around`` text describes and its doors: ``{next room: door open}``.

    ScienceWorld lists a room's doors after ``You also see:`` (``A door to the hallway (that is closed)``);
    a door names the room behind it, seen or not. Without a room description: ``(None, {})``.

    >>> read_doors("This room is called the kitchen. In it, you see: \\n\\tthe agent\\nYou also see:\\n"
    ...            "\\tA door to the hallway (that is closed)\\n\\tA door to the outside (that is open)\\n")
    ('kitchen', {'hallway': False, 'outside': True})
    """
    if not isinstance(look, str):
        return None, {}
    room = _ROOM.search(look + " ")
    if room is None:
        return None, {}
    tail = look[room.end():]
    return room.group(1).strip(), {m.group(1).strip(): m.group(2) == "open" for m in _ROOM_DOOR.finditer(tail)}


def broken_names(text: str) -> list[str]:
    """Lower-case names of the things a reply reports broken (``The stove appears broken, ...``)."""
    return [strip_article(m.group(1)).lower() for m in _BROKEN.finditer(text)]


__all__ = [
    "THERMOMETER_READING",
    "USE_THERMOMETER",
    "ParsedText",
    "TextObject",
    "broken_names",
    "moved_to",
    "parse_description",
    "parse_look",
    "parse_sections",
    "read_doors",
    "split_list",
    "strip_article",
]
