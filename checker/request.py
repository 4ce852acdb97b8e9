"""The goal a free-text request states, as labelled beside it: a list of conditions, each on one object.

A request's label (``goal`` in the labelled request files) is written from the request's words alone, by people
who did not see the planner. Each condition names the object types that count and what must hold of that one
object at the end of the run:

- ``object``: the AI2-THOR types that count; a piece (a slice, a cracked egg) counts as its whole;
- ``became``: state changes the run makes (rising edges): ``sliced``, ``cracked``, ``cooked``, ``hot``, ``cold``,
  ``clean``, ``on``, ``off``, ``open``, ``closed``, ``filled``, ``emptied``, ``broken`` (:data:`BECAME`);
- ``liquid``: with ``filled``: ``water``, ``coffee`` or ``wine`` (none: any);
- ``is``: end states, changed by the run or not: ``on``, ``off``, ``open``, ``closed``, ``clean``, ``hot``,
  ``cold``, ``filled``, ``empty`` (:class:`AtEnd`);
- ``in``: lies in / on a receptacle of these types at the end, put there by the run
  (:class:`~checker.checks.InTypes`);
- ``held``: the robot holds it at the end;
- ``count``: that many distinct objects (default 1, at most :data:`MAX_COUNT`).

Every field of one condition holds of the same object; distinct conditions are met by distinct objects (as the
solver assigns them). "hot" and "cold" are events, as ALFRED books them (an apple heated, then put in the fridge,
was heated); "on", "off", "open", "closed", "filled", "emptied" must also hold at the end. A label whose
conditions only stand in for what AI2-THOR cannot show (handing a thing to a person) is a proxy; one with no
showable effect has ``goal`` null. Both are the caller's to report apart; this module turns a list of
conditions into a :class:`~checker.solver.Goal`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .alfred import piece_type
from .checks import (
    Became,
    Check,
    Cleaned,
    Cooled,
    Cut,
    Filled,
    Finding,
    HeatedLiquid,
    HeldAtEnd,
    InTypes,
    _liquid,
)
from .solver import Goal, Item
from .track import Track

LIQUIDS: tuple[str, ...] = ("water", "coffee", "wine")
BECAME: tuple[str, ...] = ("sliced", "cracked", "cooked", "hot", "cold", "clean", "on", "off", "open", "closed",
                           "filled", "emptied", "broken")
IS: tuple[str, ...] = ("on", "off", "open", "closed", "clean", "hot", "cold", "filled", "empty")
FIELDS: tuple[str, ...] = ("object", "became", "liquid", "is", "in", "held", "count")
MAX_COUNT = 4


@dataclass(frozen=True)
class AtEnd:
    """A field has a value at the end of the run (``key`` is ``None``-safe: absent counts as ``default``)."""

    key: str
    value: object
    word: str
    default: object = False

    def __call__(self, track: Track, oid: str) -> Finding:
        got = track.get(oid, track.last, self.key, self.default)
        if track.state(oid, track.last) is None:
            return Finding(False, f"{oid} is not in the world at the end")
        if got == self.value:
            return Finding(True, f"{oid} is {self.word} at the end")
        return Finding(False, f"{oid} is not {self.word} at the end ({self.key}={got!r})")


@dataclass(frozen=True)
class Changed(AtEnd):
    """A field took a value during the run (a rising edge) and still has it at the end."""

    def __call__(self, track: Track, oid: str) -> Finding:
        end = super().__call__(track, oid)
        if not end.met:
            return end
        t = track.rise(lambda t: track.state(oid, t) is not None
                       and track.get(oid, t, self.key, self.default) == self.value)
        if t is None:
            return Finding(False, f"{oid} was already {self.word} at reset: the run did not make it so",
                           problem=f"goal already true at reset: {oid} was {self.word} at reset")
        return Finding(True, f"{oid} became {self.word} at action {t} and is so at the end")


@dataclass(frozen=True)
class Emptied:
    """The vessel held a liquid at some point and holds none at the end, emptied by the run."""

    def __call__(self, track: Track, oid: str) -> Finding:
        if track.get(oid, track.last, "isFilledWithLiquid", False):
            return Finding(False, f"{oid} still holds {track.get(oid, track.last, 'fillLiquid')} at the end")
        if not any(track.get(oid, t, "isFilledWithLiquid", False) for t in range(track.last + 1)):
            return Finding(False, f"{oid} never held a liquid: nothing was emptied")
        return Finding(True, f"{oid} held a liquid and is empty at the end")


@dataclass(frozen=True)
class FilledAny:
    """The vessel holds one of ``liquids`` at the end, filled during the run from a source."""

    liquids: tuple[str, ...] = LIQUIDS

    def __call__(self, track: Track, oid: str) -> Finding:
        held = next((liq for liq in self.liquids if _liquid(track, oid, track.last, liq)), None)
        if held is None:
            return Finding(False, f"{oid} holds no {'/'.join(self.liquids)} at the end")
        return Filled(held)(track, oid)  # the liquid it holds, judged with its source


@dataclass(frozen=True)
class HoldsAtEnd:
    """The vessel holds ``liquid`` (None: any) at the end, however it came there."""

    liquid: str | None = None

    def __call__(self, track: Track, oid: str) -> Finding:
        liquids = (self.liquid,) if self.liquid else LIQUIDS
        if any(_liquid(track, oid, track.last, liq) for liq in liquids):
            return Finding(True, f"{oid} holds {track.get(oid, track.last, 'fillLiquid')} at the end")
        return Finding(False, f"{oid} does not hold {self.liquid or 'a liquid'} at the end")


def _became(word: str, liquid: str | None, whole: Sequence[str]) -> Check:
    if word in ("sliced", "cracked"):
        return Cut(None if word == "cracked" else Cut().tools)
    if word == "cooked":
        return Became("isCooked", True)
    if word == "hot":
        return HeatedLiquid(liquid) if liquid else Became("temperature", "Hot")
    if word == "cold":
        return Cooled()
    if word == "clean":
        return Cleaned()
    if word == "broken":
        return Became("isBroken", True)
    if word == "filled":
        return Filled(liquid) if liquid else FilledAny()
    if word == "emptied":
        return Emptied()
    key, value = {"on": ("isToggled", True), "off": ("isToggled", False), "open": ("isOpen", True),
                  "closed": ("isOpen", False)}[word]
    if word == "on" and set(whole) & {"Blinds", "Curtains"}:
        key = "isOpen"
    return Changed(key, value, word)


def _is(word: str, liquid: str | None) -> Check:
    table: dict[str, Check] = {
        "on": AtEnd("isToggled", True, "on"), "off": AtEnd("isToggled", False, "off"),
        "open": AtEnd("isOpen", True, "open"), "closed": AtEnd("isOpen", False, "closed"),
        "clean": AtEnd("isDirty", False, "clean"), "hot": AtEnd("temperature", "Hot", "hot", None),
        "cold": AtEnd("temperature", "Cold", "cold", None), "filled": HoldsAtEnd(liquid),
        "empty": AtEnd("isFilledWithLiquid", False, "empty"),
    }
    return table[word]


def _words(cond: Mapping[str, Any], key: str, valid: Sequence[str], where: str) -> tuple[str, ...]:
    got = cond.get(key) or ()
    if isinstance(got, str):
        got = (got,)
    bad = [w for w in got if w not in valid]
    if bad:
        raise ValueError(f"{where}: {key} {bad} not known; valid: {', '.join(valid)}")
    return tuple(str(w) for w in got)


def _types(cond: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    got = cond.get(key) or ()
    if isinstance(got, str):
        got = (got,)
    if not all(isinstance(t, str) and t for t in got):
        raise ValueError(f"{where}: {key} must be a list of AI2-THOR types, got {got!r}")
    return tuple(got)


def item_of(cond: Mapping[str, Any], name: str) -> Item:
    """The solver item of one labelled condition (its checks, and the types a piece of it may have).

    Raises:
        ValueError: an unknown field or word, no object types, or a condition that asks nothing of its object.
    """
    where = f"condition {name} {dict(cond)!r}"
    unknown = sorted(set(cond) - set(FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown fields {unknown}; valid: {', '.join(FIELDS)}")
    whole = _types(cond, "object", where)
    if not whole:
        raise ValueError(f"{where}: needs object (the AI2-THOR types that count)")
    became = _words(cond, "became", BECAME, where)
    is_ = _words(cond, "is", IS, where)
    liquid = cond.get("liquid")
    if liquid is not None and liquid not in LIQUIDS:
        raise ValueError(f"{where}: liquid {liquid!r} not known; valid: {', '.join(LIQUIDS)}")
    inside = _types(cond, "in", where)
    held = bool(cond.get("held", False))
    if not (became or is_ or inside or held):
        raise ValueError(f"{where}: asks nothing of its object (give became, is, in or held)")
    checks = [_became(w, liquid, whole) for w in became if not (w == "filled" and "hot" in became and liquid)]
    checks += [_is(w, liquid) for w in is_]
    if inside:
        checks.append(InTypes(inside))
    if held:
        checks.append(HeldAtEnd())
    cut = {"sliced", "cracked"} & set(became)
    pieces = tuple(piece_type(t) for t in whole if not t.endswith(("Sliced", "Cracked")))
    types = pieces if cut else tuple(dict.fromkeys((*whole, *pieces)))
    return Item(name, types, tuple(checks))


_STATIC: dict[str, str] = {"cooked": "cooked", "hot": "hot", "cold": "cold", "clean": "clean", "on": "on",
                           "off": "off", "open": "open", "closed": "closed", "filled": "filled", "emptied": "empty",
                           "broken": "broken"}
"""What a change the run makes looks like as a state (``sliced`` / ``cracked`` make pieces: never true at reset)."""


def _static(cond: Mapping[str, Any]) -> list[Check] | None:
    """The checks of a condition as end states, without "made by the run"; None when it cannot hold before the run
    (a piece cut, an object held)."""
    became = _words(cond, "became", BECAME, "")
    if {"sliced", "cracked"} & set(became) or cond.get("held"):
        return None
    liquid = cond.get("liquid")
    checks: list[Check] = []
    for w in (*became, *_words(cond, "is", IS, "")):
        word = _STATIC[w] if w in _STATIC else w
        checks.append(AtEnd("isCooked", True, "cooked") if word == "cooked" else
                      AtEnd("isBroken", True, "broken") if word == "broken" else _is(word, liquid))
    if cond.get("in"):
        checks.append(InTypes(_types(cond, "in", ""), fresh=False))
    return checks


def goal_at_reset(conditions: Sequence[Mapping[str, Any]]) -> Goal | None:
    """The goal's end state as it would read on the world before the run (None when it cannot hold then: it asks
    for a piece or something held). Judged on the reset frame alone, it says whether the scene already met the
    request: "wash the mug" where the mug is clean, "turn on the lamp" where it is on."""
    items: list[Item] = []
    for i, cond in enumerate(conditions):
        checks = _static(cond)
        if checks is None:
            return None
        base = item_of(cond, f"c{i}")
        n = int(cond.get("count") or 1)
        items += [Item(f"c{i}" + (f"_{k}" if n > 1 else ""), base.types, tuple(checks)) for k in range(n)]
    return Goal("; ".join(_text(c) for c in conditions) + " (at reset)", "state-change", tuple(items))


def _text(cond: Mapping[str, Any]) -> str:
    parts = ["/".join(_types(cond, "object", ""))]
    if cond.get("became"):
        parts.append("became " + "+".join(_words(cond, "became", BECAME, "")))
    if cond.get("liquid"):
        parts.append(f"({cond['liquid']})")
    if cond.get("is"):
        parts.append("is " + "+".join(_words(cond, "is", IS, "")))
    if cond.get("in"):
        parts.append("in " + "/".join(_types(cond, "in", "")))
    if cond.get("held"):
        parts.append("held")
    n = int(cond.get("count") or 1)
    return (f"{n} x " if n > 1 else "") + " ".join(parts)


def request_goal(conditions: Sequence[Mapping[str, Any]], *, label: str = "the request") -> Goal:
    """The :class:`~checker.solver.Goal` of a request's labelled conditions.

    Raises:
        ValueError: no condition, a malformed one (naming it and the valid values), or a count out of 1..4.
    """
    if not conditions:
        raise ValueError(f"{label}: a goal needs at least one condition")
    items: list[Item] = []
    for i, cond in enumerate(conditions):
        n = cond.get("count", 1)
        if not isinstance(n, int) or not 1 <= n <= MAX_COUNT:
            raise ValueError(f"{label}: condition {i} count {n!r}; valid: 1..{MAX_COUNT}")
        base = item_of(cond, f"c{i}")
        items += [Item(f"c{i}" + (f"_{k}" if n > 1 else ""), base.types, base.checks) for k in range(n)]
    changes = any(c.get("became") or c.get("is") for c in conditions)
    text = "; ".join(_text(c) for c in conditions)
    return Goal(text, "state-change" if changes else "placement", tuple(items))


PREMISES: dict[str, tuple[str, str]] = {"clean": ("dirty", "dirtyable"), "on": ("off", "toggleable"),
                                        "off": ("on", "toggleable"), "open": ("closed", "openable"),
                                        "closed": ("open", "openable")}
"""A state a request asks to bring about (``became``) -> the reset condition under which the request makes sense and
the AI2-THOR property a type must have for it: "wash the dirty mug" presumes a dirty mug, "it's gloomy, put a light
on" lights that are off, "turn off the lamp" a lamp that is on, "close the fridge" an open fridge."""

DISPLACED: tuple[str, str] = ("displaced", "pickupable")
"""A placement the request asks for (``in``) -> the reset condition under which it makes sense and the AI2-THOR
property a type must have for it: "put the book back on the shelf" presumes a book that is not on a shelf, so a book
lying in one at reset is first moved elsewhere (a pickupable type: what the scene can move at reset)."""

PREMISE_PROPERTIES: tuple[str, ...] = (*dict.fromkeys(prop for _, prop in PREMISES.values()), DISPLACED[1])
"""Every AI2-THOR property :func:`preparation` asks ``has`` about."""


def preparation(conditions: Sequence[Mapping[str, Any]], has: Callable[[str, str], bool]) -> list[dict[str, Any]]:
    """The scene preparation a labelled request presumes, as reset perturbations (``options["perturb"]``): every
    object of a condition's types is in the state :data:`PREMISES` names (dirty when the request asks it to become
    clean, off when it asks it to become on, open when it asks it to close ...; rl_ai2thor prepares its scenes the
    same way, so that the task is not done before it starts). Derived from the label alone; a type gets the
    condition only where AI2-THOR gives it that state (``has(type, property)``, from the type table: a dirtyable
    type, a toggleable one), so the prepared world is one AI2-THOR can show.

    A condition with ``in`` (and neither ``held`` nor a cut: a piece cut during the run lay nowhere at reset) presumes
    its objects are not there yet (:data:`DISPLACED`): every object of its pickupable types lying in a receptacle of
    the ``in`` types at reset is moved to another place in the scene (``{"condition": "displaced", "from": [the in
    types]}``; the simulator chooses a receptacle AI2-THOR allows the object in, of none of those types, and leaves
    an object that has no such place). A type in several such conditions leaves the ``in`` types of all of them.
    """
    out: dict[tuple[str, str], None] = {}
    leave: dict[str, dict[str, None]] = {}
    for cond in conditions:
        for state in cond.get("became") or ():
            if state not in PREMISES:
                continue
            condition, prop = PREMISES[state]
            out.update({(t, condition): None for t in _types(cond, "object", "") if has(t, prop)})
        inside = _types(cond, "in", "")
        if inside and not cond.get("held") and not {"sliced", "cracked"} & set(cond.get("became") or ()):
            for t in _types(cond, "object", ""):
                if has(t, DISPLACED[1]):
                    out[(t, DISPLACED[0])] = None
                    leave.setdefault(t, {}).update(dict.fromkeys(inside))
    return [{"type": t, "condition": c, "which": "all", **({"from": list(leave[t])} if c == DISPLACED[0] else {})}
            for t, c in out]


def unreachable(conditions: Sequence[Mapping[str, Any]], track: Track) -> str:
    """Why the world at reset (``track``'s first frame) cannot reach a labelled goal, or "" when nothing rules it
    out. Judged by the rule the checker judges liquids by (:func:`~checker.checks.liquid_source`): a vessel gets a
    liquid only from one holding it at reset, water from a basin a water source feeds, coffee from a coffee machine;
    so "water the plant" in a living room with no faucet, or "a glass of red" where no vessel holds wine, cannot be
    met there, whatever the plan."""
    objs = list(track.by_id[0].values())
    sources = {o.get("fillLiquid") for o in objs if o.get("isFilledWithLiquid")} & set(LIQUIDS)
    if any(track.feeds.values()):
        sources.add("water")
    if any(o.get("objectType") == "CoffeeMachine" for o in objs):
        sources.add("coffee")
    for i, cond in enumerate(conditions):
        if "filled" not in (*(cond.get("became") or ()), *(cond.get("is") or ())):
            continue
        liquid = cond.get("liquid")
        if (liquid not in sources) if liquid else not sources:
            return (f"condition {i} needs {liquid or 'a liquid'}, and the scene has no source of it (a vessel holding "
                    f"it at reset{', a basin a faucet feeds' if liquid in (None, 'water') else ''}"
                    f"{', a coffee machine' if liquid in (None, 'coffee') else ''})")
    return ""


__all__ = ["AtEnd", "BECAME", "Changed", "DISPLACED", "Emptied", "FIELDS", "FilledAny", "HoldsAtEnd", "IS", "LIQUIDS",
           "PREMISES", "PREMISE_PROPERTIES", "goal_at_reset", "item_of", "preparation", "request_goal", "unreachable"]
