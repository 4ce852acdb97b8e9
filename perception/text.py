"""Estimate the five variables from ScienceWorld text (``look around``, inventory and action replies).

What the text shows, and what this module reads from it:

- **rooms and containment**: ``This room is called the kitchen. In it, you see: ...``, ``a metal pot
  (containing a substance called water)``, ``a table. On the table is: ...``, ``In the cupboard is: ...``.
- **devices**: ``a stove, which is turned off``, ``a stopwatch, which is deactivated``, ``a light bulb,
  which is on``. A device that is on is in use (reversible-using).
- **states of matter in names**: ``steam``, ``ice``, ``liquid tin``, ``wood (on fire)`` -> temperature.
  Things inside a running heater (stove, oven, blast furnace, burning fire pit) are taken as Hot, inside a
  fridge or freezer (running unless the text says off) as Cold; a thermometer reply gives the number.
- **materials in names**: ``metal pot``, ``tin cup``, ``wood cup``, ``glass jar``; substances are their
  own material (``tin`` -> Metal, ``sodium chloride`` -> Food); food words -> Food.
- **broken devices**: never shown in a look; only the reply ``The stove appears broken, ...`` to an
  attempt to use it. The estimator remembers it (per room), so later scenes show the stove broken.

**Mass does not exist in ScienceWorld** (no mass or weight anywhere, text or object tree): it is always
unknown with confidence 0, and the record's mass is a placeholder flagged in ``unknown``. Dirt does not
exist either: condition is clean unless a device was reported broken.

Example:
    >>> from scenes.base import SceneObs
    >>> look = ("This room is called the kitchen. In it, you see: \\n\\tthe agent\\n\\ta stove, which is "
    ...         "turned on. On the stove is: a metal pot (containing a substance called steam).\\n")
    >>> est = TextEstimator(priors=None)
    >>> scene = est.estimate(SceneObs(text=look))
    >>> [(r.object_id, r.state.temperature.value, r.state.already_in_use.value) for r in scene.objects]
    [('stove', 'RoomTemp', 'reversible-using'), ('metal pot', 'Hot', 'reversible-using'), ('steam', 'Hot', 'free')]
    >>> scene.by_id("metal pot").state.material.value, scene.by_id("metal pot").confidence["mass"]
    ('Metal', 0.0)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.schemas import Condition, InUse, Material, SceneState, Temperature
from scenes.base import SceneObs

from .base import ObjectEstimate, VariableEstimate, to_record

log = logging.getLogger(__name__)

SOURCE = "text"

COLD_MAX_C = 5.0
"""At or below this many degrees Celsius an object is Cold (a fridge runs at ~4, a freezer at -18)."""
HOT_MIN_C = 40.0
"""At or above this an object is Hot (warmer than skin). ScienceWorld's ambient temperature is ~10-25."""

NAME_CONFIDENCE = 0.8
"""Confidence of a value read from an object's name (``metal pot`` -> Metal, ``steam`` -> Hot)."""
CONTAINER_CONFIDENCE = 0.6
"""Confidence of a temperature inferred from being inside a running heater or cooler."""
MEASURED_CONFIDENCE = 0.95
"""Confidence of a temperature measured with the thermometer."""
DEVICE_CONFIDENCE = 0.8
"""Confidence of in-use read from a device being on or a container holding something."""
BROKEN_CONFIDENCE = 0.95
MEASUREMENT_TTL = 3
"""A thermometer reading is trusted for this many observations; things heat up and cool down."""

# ---------------------------------------------------------------- vocabularies
METAL_WORDS: tuple[str, ...] = (
    "metal", "steel", "iron", "tin", "aluminum", "aluminium", "copper", "lead", "brass", "zinc", "gold",
    "silver", "platinum", "mercury", "gallium", "caesium", "cesium", "bronze", "nickel",
)
"""Words naming a metal, in object names ("tin cup") and in ScienceWorld's substance names."""

MATERIAL_WORDS: dict[str, Material] = {
    **dict.fromkeys(METAL_WORDS, Material.METAL),
    **{w: Material.WOOD for w in ("wood", "wooden")},
    "glass": Material.GLASS,
    **{w: Material.CERAMIC for w in ("ceramic", "porcelain", "clay")},
    "plastic": Material.PLASTIC,
    "paper": Material.PAPER,
    **{w: Material.FABRIC for w in ("cloth", "cotton", "wool", "fabric")},
    "rubber": Material.RUBBER,
    "soap": Material.SOAP,
    **{w: Material.STONE for w in ("stone", "marble", "rock", "brick", "granite", "concrete")},
    "wax": Material.WAX,
    "sponge": Material.SPONGE,
}
"""Words in ScienceWorld names that give the material."""

FOOD_WORDS: frozenset[str] = frozenset(
    {
        "apple",
        "banana",
        "orange",
        "potato",
        "peach",
        "pear",
        "lemon",
        "grape",
        "grapes",
        "bread",
        "chocolate",
        "cake",
        "marshmallow",
        "milk",
        "juice",
        "sugar",
        "flour",
        "salt",
        "sodium chloride",
        "ice cream",
        "honey",
        "cherry",
        "avocado",
        "strawberry",
        "watermelon",
        "corn",
        "rice",
        "pasta",
        "cheese",
        "egg",
        "seed",
    }
)
"""Edible things (and table salt, which COAT files under Food)."""

LIVING_WORDS: frozenset[str] = frozenset(
    {
        "tree",
        "plant",
        "flower",
        "bee",
        "frog",
        "wolf",
        "bear",
        "dove",
        "butterfly",
        "moth",
        "turtle",
        "crocodile",
        "elephant",
        "giraffe",
        "chameleon",
        "beaver",
        "hedgehog",
        "rabbit",
        "parrot",
        "mouse",
        "dragonfly",
        "fish",
        "tadpole",
        "caterpillar",
        "pupa",
        "larva",
        "baby",
        "adult",
        "seedling",
        "sapling",
    }
)
"""Words of living things: their material is Organic."""

HEATERS: frozenset[str] = frozenset({"stove", "oven", "blast furnace", "hot plate", "fire pit", "campfire"})
COOLERS: frozenset[str] = frozenset({"fridge", "freezer", "ultra low temperature freezer", "refrigerator"})
PORTABLE_CONTAINERS: tuple[str, ...] = ("cup", "pot", "jar", "bowl", "beaker", "flask", "bottle", "jug", "can", "mug")
"""Containers that are "in use" when they hold something (a flower pot holding soil is not: see below)."""
_NOT_IN_USE_CONTAINERS: tuple[str, ...] = ("flower pot", "bee hive", "book shelf")
_NORMALLY_LIQUID: frozenset[str] = frozenset({"water", "mercury", "orange juice", "apple juice", "milk"})
_SKIP_NAMES: frozenset[str] = frozenset({"agent", "air"})

SW_TO_COAT: dict[str, str] = {
    # ScienceWorld name (or head noun) -> COAT object, for type priors and the record's category.
    "stove": "StoveBurner",
    "oven": "Oven",
    "fridge": "Fridge",
    "freezer": "Fridge",
    "sink": "SinkBasin",
    "toilet": "Toilet",
    "bathtub": "BathTubBasin",
    "table": "DiningTable",
    "chair": "Chair",
    "bed": "Bed",
    "book": "Book",
    "bowl": "Bowl",
    "cup": "Cup",
    "mug": "Mug",
    "pot": "Pot",
    "couch": "Sofa",
    "sofa": "Sofa",
    "desk": "Desk",
    "cupboard": "Cabinet",
    "drawer": "Drawer",
    "counter": "CounterTop",
    "painting": "Painting",
    "picture": "Painting",
    "drawing": "Painting",
    "shelf": "Shelf",
    "book shelf": "ShelvingUnit",
    "apple": "Apple",
    "potato": "Potato",
    "bread": "Bread",
    "egg": "Egg",
    "soap": "SoapBar",
    "sodium chloride": "Salt",
    "bottle": "Bottle",
    "kettle": "Kettle",
    "pan": "Pan",
    "knife": "Knife",
    "spoon": "Spoon",
    "fork": "Fork",
    "pillow": "Pillow",
    "mattress": "Bed",
    "ground": "Floor",
    "floor": "Floor",
    "blast furnace": "Oven",
}

SUBSTANCE_TO_COAT: dict[str, Material] = {
    # ScienceWorld propMaterial.substanceName -> COAT material (for scoring against the object tree).
    # Water, air, steam, paints and other liquids/gases have no COAT material and are not scored.
    **dict.fromkeys(METAL_WORDS, Material.METAL),
    "wood": Material.WOOD,
    "glass": Material.GLASS,
    "ceramic": Material.CERAMIC,
    "plastic": Material.PLASTIC,
    "paper": Material.PAPER,
    "cloth": Material.FABRIC,
    "cotton": Material.FABRIC,
    "rubber": Material.RUBBER,
    "soap": Material.SOAP,
    "stone": Material.STONE,
    "marble": Material.STONE,
    "brick": Material.STONE,
    "wax": Material.WAX,
    "soil": Material.ORGANIC,
    **{
        f: Material.FOOD
        for f in (
            "sodium chloride",
            "orange juice",
            "apple juice",
            "chocolate",
            "ice cream",
            "milk",
            "sugar",
            "flour",
            "marshmallow",
            "peanut butter",
            "jam",
            "bread",
            "honey",
        )
    },
}


# ---------------------------------------------------------------- parsing
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
MEASURED = re.compile(r"the thermometer measures a temperature of (-?\d+(?:\.\d+)?) degrees celsius", re.I)
"""A thermometer's reply to ``use thermometer on ...``; group 1 is the reading in degrees Celsius."""
_BROKEN = re.compile(r"The (.+?) appears broken", re.I)
_MOVED = re.compile(r"^You move to the (.+?)\.", re.I)
_USE_THERMO = re.compile(r"^use thermometer(?: in inventory)? on (.+)$", re.I)


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


# ---------------------------------------------------------------- per-variable rules
def temperature_category(celsius: float) -> Temperature:
    """Cold at or below :data:`COLD_MAX_C`, Hot at or above :data:`HOT_MIN_C`, else RoomTemp."""
    if celsius <= COLD_MAX_C:
        return Temperature.COLD
    if celsius >= HOT_MIN_C:
        return Temperature.HOT
    return Temperature.ROOM


def material_from_name(name: str) -> tuple[Material | None, str]:
    """(material, reason) from a ScienceWorld name; (None, reason) when the name does not say."""
    low = name.lower()
    words = re.findall(r"[a-z]+", low)
    for w in words:
        if w in MATERIAL_WORDS:
            return MATERIAL_WORDS[w], f"'{w}' in the name"
    head = words[-1] if words else ""
    # living things first ("frog egg", "apple tree"); then food, where colour words ("orange light bulb",
    # "red apple") make only the head noun count
    if any(w in LIVING_WORDS for w in words):
        return Material.ORGANIC, "living thing"
    if any(f in low for f in FOOD_WORDS if " " in f) or head in FOOD_WORDS:
        return Material.FOOD, "food"
    return None, "name does not say"


def temperature_from_name(name: str) -> Temperature | None:
    """Hot for steam, gaseous or molten (``liquid tin``) things and fire; Cold for ice or frozen liquids."""
    low = name.lower()
    if "steam" in low or low.startswith("gaseous ") or low in ("fire", "flame"):
        return Temperature.HOT
    if low == "ice" or (low.startswith("ice ") and "cream" not in low) or low.startswith("frozen "):
        return Temperature.COLD
    if low.startswith("liquid "):
        base = low[len("liquid ") :]
        return None if base in _NORMALLY_LIQUID else Temperature.HOT
    if low.startswith("solid "):
        base = low[len("solid ") :]
        return Temperature.COLD if base in _NORMALLY_LIQUID else None
    return None


def coat_category(name: str) -> str:
    """COAT object for a ScienceWorld name when there is one (``metal pot`` -> Pot), else the name itself."""
    low = re.sub(r"\s+\d+$", "", name.lower().strip())
    if low in SW_TO_COAT:
        return SW_TO_COAT[low]
    if any(low.endswith(n) for n in _NOT_IN_USE_CONTAINERS):
        return name
    head = low.split()[-1] if low.split() else low
    return SW_TO_COAT.get(head, name)


# ---------------------------------------------------------------- the estimator
class TextEstimator:
    """Five variables from ScienceWorld text; remembers broken devices, measurements and the last look.

    ``estimate(obs)`` reads ``obs.text`` (the last reply or a look), ``obs.extra["look"]`` and
    ``obs.extra["inventory"]`` when given, and ``obs.extra["action"]`` or ``["command"]`` (the command that
    produced the reply, needed to know what a thermometer reading refers to). When no look text is in
    ``obs``, the last one seen is reused. Call :meth:`reset` at the start of an episode.

    Args:
        priors: Type priors for unknown variables (default COAT's, via :func:`coat_category`); ``None`` uses
            the built-in fallback only (no data files).
    """

    source = SOURCE

    def __init__(self, *, priors: Any = "default") -> None:
        if priors == "default":
            from .priors import default_priors

            priors = default_priors()
        elif priors is None:
            from .priors import TypePriors

            priors = TypePriors(None)
        self.priors = priors
        self.reset()

    def reset(self) -> None:
        """Forget everything remembered from earlier observations."""
        self.room: str | None = None
        self.broken: set[tuple[str | None, str]] = set()
        self.measured: dict[str, tuple[float, int]] = {}
        self._tick = 0
        self._look: ParsedText = ParsedText()
        self._inventory: ParsedText = ParsedText()

    # -- memory
    def observe(self, text: str | None, action: str | None = None) -> None:
        """Update memory from one reply (broken devices, room changes, thermometer readings, looks)."""
        if not isinstance(text, str):
            return
        for parsed in parse_sections(text):
            if parsed.room is not None:
                self.room = parsed.room
                self._look = parsed
            else:
                self._inventory = parsed
        mv = _MOVED.match(text.strip())
        if mv:
            self.room = mv.group(1).strip()
            if self._look.room != self.room:
                self._look = ParsedText(room=self.room)  # what we saw belongs to the room we left
        for m in _BROKEN.finditer(text):
            self.broken.add((self.room, _ARTICLE.sub("", m.group(1).strip()).lower()))
        mm = MEASURED.search(text)
        if mm and isinstance(action, str):
            ua = _USE_THERMO.match(action.strip())
            if ua:
                self.measured[self._resolve_target(ua.group(1).strip())] = (float(mm.group(1)), self._tick)

    def _resolve_target(self, target: str) -> str:
        low = target.lower()
        m = re.match(r"^substance in (.+)$", low)
        if m:
            container = m.group(1).replace(" in inventory", "").strip()
            for o in self._look.objects + self._inventory.objects:
                if o.parent and o.parent.lower() == container and o.substance:
                    return o.name.lower()
        return re.sub(r"\s+in (?:inventory|the \w+)$", "", low)

    # -- estimation
    def estimate_objects(self, obs: SceneObs) -> dict[str, ObjectEstimate]:
        """Per-variable estimates of every object in the current room and the inventory."""
        extra = obs.extra if isinstance(obs.extra, Mapping) else {}
        action = next((extra[k] for k in ("action", "command") if isinstance(extra.get(k), str)), None)
        self._tick += 1
        for key in ("look", "inventory"):
            if isinstance(extra.get(key), str):
                self.observe(extra[key])
        self.observe(obs.text, action)
        objs = self.parsed_objects()
        by_name: dict[str, TextObject] = {}
        for _, o in objs:
            by_name.setdefault(o.name, o)
        return {oid: self._estimate(oid, o, by_name) for oid, o in objs}

    def parsed_objects(self) -> list[tuple[str, TextObject]]:
        """(object id, parsed object) of the current room and the inventory, as last seen."""
        objs = self._look.objects + self._inventory.objects
        return list(zip(self._ids(objs), objs, strict=True))

    @staticmethod
    def _ids(objs: list[TextObject]) -> list[str]:
        # ScienceWorld disambiguates like "drawer in counter"; fall back to a counter for exact duplicates.
        counts: dict[str, int] = {}
        for o in objs:
            counts[o.name] = counts.get(o.name, 0) + 1
        ids: list[str] = []
        seen: set[str] = set()
        for o in objs:
            oid = o.name if counts[o.name] == 1 else f"{o.name} in {o.parent or o.room or 'room'}"
            k, base = 2, oid
            while oid in seen:
                oid, k = f"{base} #{k}", k + 1
            seen.add(oid)
            ids.append(oid)
        return ids

    def _ancestors(self, o: TextObject, by_name: Mapping[str, TextObject]) -> Iterable[TextObject]:
        seen = set()
        p = o.parent
        while p and p not in seen and p in by_name:
            seen.add(p)
            yield by_name[p]
            p = by_name[p].parent

    def _estimate(self, oid: str, o: TextObject, by_name: Mapping[str, TextObject]) -> ObjectEstimate:
        oe = ObjectEstimate(oid, coat_category(o.name))
        e = oe.estimates
        e["mass"] = VariableEstimate.unknown(SOURCE, "ScienceWorld has no mass")
        mat, why = material_from_name(o.name)
        e["material"] = (
            VariableEstimate(mat, NAME_CONFIDENCE, SOURCE, why) if mat else VariableEstimate.unknown(SOURCE, why)
        )
        e["temperature"] = self._temperature(o, by_name)
        # a reply seen before any look has no room: it applies to that name wherever it is
        broken = any((r, o.name.lower()) in self.broken for r in (o.room, self.room, None))
        if broken:
            e["condition"] = VariableEstimate(Condition.BROKEN, BROKEN_CONFIDENCE, SOURCE, "reply: appears broken")
        else:
            e["condition"] = VariableEstimate.unknown(SOURCE, "text never shows dirt; broken only when tried")
        e["already_in_use"] = self._in_use(o)
        return oe

    def _temperature(self, o: TextObject, by_name: Mapping[str, TextObject]) -> VariableEstimate:
        hit = self.measured.get(o.name.lower())
        if hit is not None and self._tick - hit[1] <= MEASUREMENT_TTL:
            c = hit[0]
            return VariableEstimate(temperature_category(c), MEASURED_CONFIDENCE, SOURCE, f"measured {c:g} C")
        if o.reading_c is not None:
            c = o.reading_c
            return VariableEstimate(temperature_category(c), MEASURED_CONFIDENCE, SOURCE, f"reads {c:g} C")
        t = Temperature.HOT if o.on_fire else temperature_from_name(o.name)
        if t is not None:
            return VariableEstimate(t, NAME_CONFIDENCE, SOURCE, f"name '{o.name}'")
        for a in self._ancestors(o, by_name):
            an = a.name.lower()
            if an in HEATERS and (a.device_on or any(by_name.get(c, TextObject("")).on_fire for c in a.contents)):
                return VariableEstimate(Temperature.HOT, CONTAINER_CONFIDENCE, SOURCE, f"inside running {a.name}")
            if an in COOLERS and a.device_on is not False:
                return VariableEstimate(Temperature.COLD, CONTAINER_CONFIDENCE, SOURCE, f"inside {a.name}")
        return VariableEstimate.unknown(SOURCE, "no temperature cue")

    @staticmethod
    def _in_use(o: TextObject) -> VariableEstimate:
        if o.on_fire:
            return VariableEstimate(InUse.IRREVERSIBLE, DEVICE_CONFIDENCE, SOURCE, "on fire (being consumed)")
        if o.device_on:
            return VariableEstimate(InUse.REVERSIBLE, DEVICE_CONFIDENCE, SOURCE, "device is on")
        low = o.name.lower()
        portable = any(low.split()[-1:] == [c] for c in PORTABLE_CONTAINERS) if low.split() else False
        if portable and o.contents and not any(low.endswith(n) for n in _NOT_IN_USE_CONTAINERS):
            return VariableEstimate(InUse.REVERSIBLE, DEVICE_CONFIDENCE, SOURCE, f"holds {', '.join(o.contents)}")
        return VariableEstimate.unknown(SOURCE, "no sign of use")

    def estimate(self, obs: SceneObs) -> SceneState:
        """SceneState of the current room and inventory; mass is always unknown with confidence 0."""
        ests = self.estimate_objects(obs)
        recs = []
        for e in ests.values():
            r = to_record(e, self.priors)
            recs.append(r.model_copy(update={"confidence": {**r.confidence, "mass": 0.0}}))
        scene_id = obs.extra.get("scene_id") if isinstance(obs.extra, Mapping) else None
        return SceneState(scene_id=str(scene_id or self.room or "sciworld"), objects=tuple(recs))


__all__ = [
    "COLD_MAX_C",
    "HOT_MIN_C",
    "MATERIAL_WORDS",
    "MEASURED",
    "SUBSTANCE_TO_COAT",
    "SW_TO_COAT",
    "ParsedText",
    "TextEstimator",
    "TextObject",
    "coat_category",
    "material_from_name",
    "parse_description",
    "parse_look",
    "parse_sections",
    "split_list",
    "temperature_category",
    "temperature_from_name",
]
