"""Two-stage choices for the ScienceWorld task shapes: stage 1 keeps kinds by knowledge, stage 2 ranks states.

The structure is COAT's (:class:`planner.two_stage.TwoStagePipeline`): stage 1 keeps the objects whose *kind*
suits the role, from knowledge (the data files of :mod:`.spec`'s ``data/`` directory, each with its
sources); stage 2 ranks the survivors by their *state* as the text shows it (carried, loose in a room,
inside a closed container, fixed in place, already used). COAT's own knowledge base annotates household
objects only, so the ScienceWorld kinds (living things, power sources, animals' lifespans) are decided here;
the change-of-state shape still asks COAT (:func:`.decide.coat_choice`).

Every choice is a :class:`~.contracts.DeviceChoice` with the rejected objects and the reason, as the
change-of-state agent records its devices.

Example:
    >>> sorted(kinds_of("blue jay egg")), sorted(kinds_of("orange wire")), sorted(kinds_of("red apple"))
    (['animal', 'living thing'], ['non-living thing'], [])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .contracts import DeviceChoice
from .facts import ROOM_ORDER
from .memory import SeenObject
from .spec import load_data

_STAGE = re.compile(r"\s+(?:in the|with a)\s.*$")
_TWIN = re.compile(r"\s+\d+$")


def referent(name: str) -> str:
    """The name ScienceWorld's parser takes for an object: ``pea plant in the adult stage...`` -> ``pea plant``."""
    return _STAGE.sub("", name.strip())


def _head(name: str) -> str:
    return _TWIN.sub("", referent(name).lower())


def _matches(phrase: str, text: str) -> tuple[int, int] | None:
    m = re.search(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", text)
    return (m.start(), m.end()) if m else None


def kinds_of(name: str) -> frozenset[str]:
    """The kinds an object name shows, by the head noun (the phrase ending the name), from ``kinds.json``.

    ``animal`` / ``plant`` (and ``living thing``), ``non-living thing``, or empty when the name is unknown
    or ambiguous (a fruit, a seed). A life-stage word at the end (``egg``, ``baby``) defers to the animal
    named before it.
    """
    data = load_data("kinds")
    text = _head(name)
    lists = {"animal": data["animal"], "plant": data["plant"], "ambiguous": data["ambiguous"],
             "non-living thing": data["non_living"]}
    best: tuple[int, int, str] | None = None  # (ends at the end, length, kind)
    for kind, phrases in lists.items():
        for p in phrases:
            span = _matches(p, text)
            if span is None:
                continue
            key = (int(span[1] == len(text)), span[1] - span[0], kind)
            if best is None or key[:2] > best[:2]:
                best = key
    stage_word = any(text.endswith(f" {w}") or text.startswith(f"{w} ") for w in data["animal_stage_words"])
    if stage_word and any(_matches(a, text) for a in data["animal"]):
        return frozenset({"animal", "living thing"})
    if best is None or best[2] == "ambiguous":
        return frozenset()
    if best[2] in ("animal", "plant"):
        return frozenset({best[2], "living thing"})
    return frozenset({best[2]})


def is_fixed(name: str) -> bool:
    """True for furniture and fixtures (``kinds.json``'s ``fixed``): they cannot be carried to a box."""
    head = _head(name)
    return any(head == f or head.endswith(f" {f}") for f in load_data("kinds")["fixed"])


@dataclass
class Ranked:
    """A stage-2 survivor with its sort key (lower is better) and the reason."""

    entry: SeenObject
    key: tuple[float, ...]
    why: str


def _place_key(e: SeenObject, near: str) -> tuple[float, float]:
    order = {r: i for i, r in enumerate(ROOM_ORDER)}
    if e.room == "inventory":
        return (0.0, 0.0)
    return (1.0 if e.room == near else 2.0, float(order.get(e.room, 99)))


def choose(role: str, entries: Sequence[SeenObject], keep: Callable[[SeenObject], str], *, near: str = "",
           rank: Callable[[SeenObject], float] | None = None, excluded: dict[str, str] | None = None,
           method: str = "knowledge", movable: bool = True) -> DeviceChoice:
    """Run the two stages over seen objects and return the choice for ``role``.

    Args:
        role: What the object is for (``find``, ``power source``...).
        entries: The objects seen (the memory's entries).
        keep: Stage 1: "" to keep an object, else why its kind does not suit the role.
        near: The room the object is wanted in (the box room): objects there or carried rank first.
        rank: An extra stage-2 score, lower first (e.g. minus a lifespan), applied before place.
        excluded: Object id -> why it is unusable (found in this episode); left out.
        method: Recorded in the choice.
        movable: The object must be carried (furniture and fixtures are left out); False for devices.

    Returns:
        The choice; ``object_id`` is None when nothing survives (``excluded`` then says why).
    """
    out = dict(excluded or {})
    kept: list[Ranked] = []
    seen: set[str] = set()
    for e in entries:
        if e.gid in out or e.gid in seen:
            continue
        seen.add(e.gid)
        why = keep(e)
        if why:
            out.setdefault(e.gid, why)
            continue
        if movable and is_fixed(e.obj.name):
            out[e.gid] = "fixed in place"
            continue
        extra = rank(e) if rank is not None else 0.0
        inside = 1.0 if e.obj.parent else 0.0
        kept.append(Ranked(e, (extra, *_place_key(e, near), inside), "carried" if e.room == "inventory"
                           else f"in the {e.room}" + (f", in the {e.obj.parent}" if e.obj.parent else "")))
    kept.sort(key=lambda r: r.key)
    if not kept:
        return DeviceChoice(role=role, method=method, excluded=out, reason="no object suits the role")
    best = kept[0]
    return DeviceChoice(role=role, object_id=best.entry.gid, method=method, excluded=out,
                        reason=f"{best.entry.obj.name}: {best.why}")


def lifespan_years(name: str) -> float | None:
    """The typical lifespan of the animal an object name shows (``baby brown bear`` -> 25), from data."""
    years = load_data("lifespans")["years"]
    text = _head(name)
    hits = [(len(a), y) for a, y in years.items() if _matches(a, text)]
    return float(max(hits)[1]) if hits else None


def power_source(name: str) -> dict[str, object] | None:
    """What ``electrical.json`` knows of a power source (renewable, needs outdoors), or None if not one."""
    text = _head(name)
    for src, facts in load_data("electrical")["power_sources"].items():
        if text == src or text.endswith(f" {src}"):
            return dict(facts)
    return None


def conductive_prior(name: str) -> bool | None:
    """Whether the material an object name shows conducts (a prior: the agent still tests it)."""
    text = _head(name)
    data = load_data("electrical")
    if any(_matches(m, text) for m in data["conductive"]):
        return True
    if any(_matches(m, text) for m in data["insulating"]):
        return False
    return None


__all__ = ["Ranked", "choose", "conductive_prior", "is_fixed", "kinds_of", "lifespan_years", "power_source",
           "referent"]
