"""ALFRED's directives in free text: "Put a washed apple in the fridge" -> the ALFRED task it names.

ALFRED (Shridhar et al., 2020) phrases a household goal as an object put somewhere after one change of state:
cleaned, heated, cooled or sliced; or two of the same object put in one place; or a slice carried in a bowl or on a
plate; or an object examined under a lamp. Researchers type the same goals, as ALFRED's one-sentence goal
descriptions ("Place a chilled slice of tomato on the counter"), as its step-by-step instructions ("Pick up the mug.
Rinse it in the sink. Put it in the coffee maker."), as terse commands ("heat potato -> counter") or as a person
would ask ("could you give a mug a rinse and pop it in the coffee machine?").

:func:`read_directive` finds such a goal from the words alone: the cue words of each change of state, the object
types named (:class:`~planner.understanding.vocabulary.Vocabulary`) and where the object ends up (the first place
named after the last verb of putting). It returns None for anything else, including a plain "put the apple in the
fridge": the general reader reads that one, with the fridge as a role a substitute may fill. A plain put the general
reader would read as a fetch ("bring the laptop to the bed", "I'd like the book on the desk") is ALFRED's simple put
when the request asks for nothing else (``Directive.plain``).

Example:
    >>> from planner.understanding.vocabulary import Vocabulary
    >>> vocab = Vocabulary(("Apple", "Fridge", "CounterTop", "Microwave", "Knife", "Mug", "SinkBasin"))
    >>> d = read_directive("Put a washed apple in the fridge.", vocab, pickupable={"Apple", "Mug", "Knife"},
    ...                    sliceable={"Apple"})
    >>> (d.task_type, d.obj, d.recep, d.sliced)
    ('pick_clean_then_place_in_recep', ('Apple',), ('Fridge',), False)
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..knowledge.alfred import alfred_spec
from ..knowledge.task_specs import physical_roles
from ..schemas import Role, TaskSpec
from .directive_cues import (
    _about,
    _adjectival,
    _already,
    _conditional,
    _heads,
    _looked_at,
    _object,
    _pick_state,
    _polite,
    _purpose,
    _states,
    _terse,
    _two,
    _wanted,
)
from .directive_places import (
    _by_path,
    _carrier,
    _destination,
    _holder,
    _marker,
    _moved,
    _patient,
    _Place,
    _places,
    _put_at,
    _several_things,
    _what_is_put,
)
from .directive_words import (
    _CUES,
    _DEVICES,
    _SOURCES,
    ARROW,
    BASINS,
    CLEAN,
    CONDITIONS,
    COOL,
    COOLERS,
    DISH_NOUNS,
    ENDS,
    GENERAL,
    HEAT,
    HEATERS,
    HOLD,
    KNIVES,
    LAMPS,
    LOOK,
    MOVABLES,
    PLACE_PREP,
    PUT,
    QUESTIONS,
    SLICE,
    STATE_TYPES,
    WANT,
    WASHERS,
    _negated,
    _sentence,
)
from .frames import FETCH, OUT_OF_REACH, clauses
from .frames import PUT as PUT_FRAMES
from .vocabulary import LIQUIDS, Mention, Vocabulary, singular


@dataclass(frozen=True)
class Directive:
    """One ALFRED task read from a text (the arguments of :func:`planner.knowledge.alfred.alfred_spec`)."""

    task_type: str
    obj: tuple[str, ...]
    """The object's types, the likeliest first ("the glass": Cup; "the soap": SoapBar, SoapBottle)."""
    recep: tuple[str, ...] = ()
    """Where it ends up (empty for ``look_at_obj_in_light``): "the table" is a DiningTable, CoffeeTable or SideTable."""
    movable: tuple[str, ...] = ()
    sliced: bool = False
    device: tuple[str, ...] = ()
    """The device types the text names for the change of state ("in the microwave"), in order."""
    evidence: str = ""
    plain: bool = False
    """A plain put, no change of state ("bring the laptop to the bed"), read only when the request asks for nothing
    else (no other action, purpose, state word or count)."""


def tokens(text: str) -> list[str]:
    """Lower-case words and clause marks; an arrow is its own token, a 2 (or "x2", "2x") the word "two", a colon,
    slash or plus a comma."""
    text = re.sub(r"->|=>|→|>", f" {ARROW} ", text.lower())
    text = re.sub(r"[:/+]", " , ", text)  # terse lists: "cup: chill in fridge / shelf", "book + desk lamp"
    text = text.replace("&", " and ")
    text = re.sub(r"\b(?:2|x2|2x)\b", " two ", text)
    return re.findall(r"->|[a-z]+|[.;!?,]", text)


def read_directive(text: str, vocab: Vocabulary, *, pickupable: Collection[str], sliceable: Collection[str],
                   receptacles: Collection[str] = ()) -> Directive | None:
    """The ALFRED task ``text`` states, or None (see the module doc).

    Args:
        text: The request.
        vocab: The object-type vocabulary.
        pickupable: The types a robot can pick up (the AI2-THOR type table's ``pickupable``).
        sliceable: The types a knife slices.
        receptacles: The types things can be put in or on; a place word's other types are dropped ("the sink" is
            the SinkBasin, not the Sink around it). Empty: keep every type.
    """
    words = tokens(text)
    asked = (words[:1] and words[0] in QUESTIONS) or (words[:1] and words[0] in ("should", "shall", "can", "could",
                                                                               "may") and words[1:2] in (["i"], ["we"]))
    if asked and _polite(words):
        asked = False  # "could I get a slice of potato ...?", "is there any way to get an egg warmed up ...?"
    rest = words[words.index("?") + 1:] if "?" in words else []
    if asked and len(rest) >= 3 and not set(rest) & CONDITIONS:
        asked = False  # "is the CD scratched? examine it under the desk lamp": context; "...? thanks" is no request
    if not words or (asked and "?" in words) or _conditional(words):
        return None  # a question or a condition ("should I heat it?", "is the mug clean? if so ...") is no goal
    wine = vocab.phrases.get("wine bottle")
    mentions = _heads([Mention(wine, m.words, m.start, m.end) if m.liquid and m.words == "wine" and wine else m
                       for m in vocab.mentions(words) if not m.liquid or (m.words == "wine" and wine)])
    at = {i: m for m in mentions for i in range(m.start, m.end)}
    if not mentions or any(w in GENERAL and (i not in at or at[i].end - at[i].start == 1) and not _purpose(words, i)
                           for i, w in enumerate(words)):  # toast, a salad; not the "frying pan", "for the salad"
        return None
    states = _states(words, at)
    # a command with no verb of putting or holding, led by the object or arrowed ("fork -> rinse at sink -> drawer",
    # "cup: chill in fridge / shelf"): every state word is about the one object, every place is where it is put
    terse = not [i for i in _put_at(words) if words[i] in PUT] and not set(words) & HOLD and (
        ARROW in words or _terse(words, mentions))
    sliced = any(w in SLICE and not _negated(words, i) and words[max(0, i - 2):i] != ["used", "to"]
                 for i, w in enumerate(words))  # not "the knife you used to cut the tomato"
    obj = _object(words, mentions, pickupable, sliceable, sliced)
    if obj is None:
        return None
    x, x_type = obj
    if words[x.end:x.end + 1] and words[x.end] in DISH_NOUNS:
        return None  # "heat the tomato soup": a dish the general reader knows
    drink = words[x.end:x.end + 1] == ["of"] and words[x.end + 1:x.end + 2] and words[x.end + 1] in LIQUIDS
    states = {k: v for k, v in ((k, [i for i in v if terse or _about(words, mentions, x, i)])
                                for k, v in states.items()) if v}
    states = {k: v for k, v in states.items() if not _already(words, mentions, x, k, v)
              and not (drink and _adjectival(words, x, v))}  # "the cold cup of milk" is a drink already cold
    for i, w in enumerate(words):
        purpose = words[i - 1:i] == ["to"] or words[max(0, i - 2):i] in (["let", "it"], ["let", "them"])
        if not purpose or i in {j for v in states.values() for j in v} or _negated(words, i):
            continue
        state = next((k for k, cues in _CUES.items() if w in cues), None)
        if state is None:
            continue
        if any(set(m.types) & _SOURCES[state] for m in mentions if m.start in range(*_sentence(words, i))):
            states.setdefault(state, []).append(i)  # "place the pan inside to cool", of the fridge
        else:  # "put the hot potato on the counter to cool": left to change by itself, so hot is no goal either
            states.pop(state, None)
            states.pop({"cool": "heat", "heat": "cool"}.get(state, ""), None)
    if states and _what_is_put(words, mentions) is False:
        return None  # "slice the apple and put the peel in the bin": something else is put
    joined = next((m for m in mentions if m.start > x.end and words[x.end:m.start][:1] == ["and"]
                   and m.start - x.end <= 3), None)
    if _several_things(words, mentions, x, pickupable, sliced) or (
            joined is not None and set(joined.types) & set(pickupable) and not set(joined.types) & set(x.types)):
        return None  # "put the apples in the fridge, throw that bread in the bin": several tasks
    sliced = sliced and x_type in sliceable
    x_types = (x_type, *(t for t in x.types if t != x_type and t in pickupable))
    if not states and (_looked_at(words, mentions, x) or (terse and set(words) & LOOK and any(
            m.types[0] in LAMPS for m in mentions))):  # "keys -> desk lamp, light on, look"
        return Directive("look_at_obj_in_light", x_types, evidence=f"look at the {x.words} under a lamp")
    places = _places(words, mentions, x, states)
    if terse:
        places = [_Place(p.at, p.mention, True, p.device) for p in places]
    puts = _put_at(words)
    if sliced and puts and (moved := _patient(words, mentions, puts[-1])) is not None and set(moved.types) & KNIVES:
        return None  # "put the knife you used to cut the tomato in the sink": the knife is what is put
    if _what_is_put(words, mentions) is False:
        return None  # "slice the apple and put the peel in the bin", "the rest of the loaf": something else
    if not puts and not _terse(words, mentions) and not _wanted(words, x) and not (states and any(
            not p.device and p.at > x.end and words[_sentence(words, p.at)[0]] in PLACE_PREP
            and p.at - _sentence(words, p.at)[0] <= 4 for p in places)):
        # no verb of putting, not a terse "apple slice on plate", nor a place named first after the object ("could a
        # slice get warmed through? On the dining table when it's done"): "beat two eggs in a bowl"
        return None
    dest = _destination(words, places, vocab, puts=puts)
    if dest is None:
        return None
    recep, movable = dest
    if not states:  # put in the fridge and taken out again: cooled (ALFRED's steps rarely say "cool")
        states = _by_path(words, places, recep)
    if movable is None:
        movable = _holder(words, mentions, x)
    if movable is None and sliced:
        movable = _carrier(words, places, recep, x)
    if movable is not None and not sliced and not _moved(words, movable, places):
        movable = None  # "put the pencil in the mug on the desk" is ALFRED's only when the mug is moved too
    if movable is None and x_type in MOVABLES and sliced:  # "put a bowl of apple slices on the table"
        return None
    if recep.mention is x or (movable is not None and recep.mention is movable.mention) or (
            x_type in recep.mention.types):
        return None
    r_types = tuple(dict.fromkeys(BASINS.get(t, t) for t in recep.mention.types))
    if receptacles:
        r_types = tuple(t for t in r_types if t in receptacles)
        if not r_types:
            return None  # "on the plant": nothing goes in or on it in AI2-THOR
    m_types = movable.mention.types if movable is not None else ()
    where = recep.mention.words
    state = _pick_state(states)
    if state is not None:
        used = any(p.at < recep.at and set(p.mention.types) & _DEVICES[state] for p in places)
        if r_types[0] in _DEVICES[state] - {"CoffeeMachine"} and not used and not (state == "clean"
                                                                 and _adjectival(words, x, states[state])):
            return None  # "put the mug in the microwave to heat it", "put the cold apple back in the fridge"
        devices = tuple(dict.fromkeys(BASINS.get(t, t) for m in mentions for t in m.types
                                      if t in _SOURCES[state] and t not in r_types and not _negated(words, m.start)))
        if state == "heat" and any(w in ("microwaved", "nuke", "nuked", "nuking", "microwaving") for w in words):
            devices = tuple(dict.fromkeys(("Microwave", *devices)))
        return Directive(STATE_TYPES[state], x_types, r_types, sliced=sliced, device=devices,
                         evidence=f"{state} the {x.words}{' (sliced)' if sliced else ''}, then in / on the {where}")
    if movable is not None:
        return Directive("pick_and_place_with_movable_recep", x_types, r_types, movable=m_types, sliced=sliced,
                         evidence=f"the {x.words}{' (sliced)' if sliced else ''} in the {movable.mention.words}, it "
                                  f"in / on the {where}")
    if not sliced and _two(words, x, mentions):  # "two slices of bread in the toaster" is toast
        return Directive("pick_two_obj_and_place", x_types, r_types, sliced=sliced,
                         evidence=f"two {x.words} in / on the {where}")
    if sliced and "Toaster" not in r_types:  # a slice put in the toaster is toast: the general reader's
        return Directive("pick_and_place_simple", x_types, r_types, sliced=True,
                         evidence=f"a slice of the {x.words} in / on the {where}")
    verb = words[puts[-1]] if puts else ""
    wished = words[0] not in ("can", "could", "may") and any(
        w in WANT - {"have", "get", "find", "after"} and set(words[max(0, i - 2):i]) & {"i", "d", "we"}
        for i, w in enumerate(words)) and recep.at - x.end <= 3
    before = words[max(0, puts[-1] - 2):puts[-1]] if puts else []  # "it'll be on the bed", "it was left on the sofa"
    described = verb in ENDS | {"be"} and (before[:1] in (["it"], ["they"], ["used"]) or before[-1:] and before[-1] in (
        "it", "they", "s", "re", "was", "used") or any(c.verb in FETCH for c in clauses(text)))
    others = any(m is not x and m is not recep.mention and set(m.types) & set(pickupable)
                 and not set(m.types) & set(x.types) for m in mentions)
    plural = singular(x.words.split()[-1]) != x.words.split()[-1]
    if not set(r_types) & (HEATERS | COOLERS | WASHERS | {"Toaster"}) and not set(words) & (
            CLEAN | HEAT | COOL | SLICE | {"two", "both", "pair", "couple"}) and (
            _marker(words, recep.mention) == "to" or verb in ENDS or verb == "be" or (not puts and wished)) and (
            _only_puts(text)) and not described and not others and not plural:
        # "bring the laptop to the bed", "it belongs on the shelf", "I'd like the book on the desk": the general reader
        # reads a fetch in these; "put the book on the desk" (and "put it in the fridge") stay its own
        return Directive("pick_and_place_simple", x_types, r_types, plain=True,
                         evidence=f"the {x.words} in / on the {where}")
    return None  # a plain put in a device is the general reader's: it knows a fridge cools, a sink washes


_PUT_ONLY = PUT_FRAMES | FETCH | {"", "return", "store", "stash", "stow", "keep", "carry", "tidy", "organize",
                                  "organise"}
"""Clause verbs of a request that only puts a thing somewhere ("bring the laptop to the bed", "I'd like the book on
the desk")."""


def _only_puts(text: str) -> bool:
    """Whether every clause of ``text`` puts, fetches or has no verb of the general reader's frame table, with no
    purpose ("so it looks cute") and no place out of reach ("the top shelf": something to stand on is needed too):
    "put the laptop on the bed and turn it on" asks for more than a put, and the general reader reads every clause."""
    cs = clauses(text)
    more = [c for c in cs[1:] if re.search(r"\b(?:it|them)\b", c.text)]  # "... and charge it", "... and plug it in"
    return all(c.verb in _PUT_ONLY and not c.purpose for c in cs) and not more and not OUT_OF_REACH.search(
        text.lower()) and not re.search(r"\bso (?:i|we|you|he|she|they|that)\b", text.lower())  # "so I can work"


def directive_spec(d: Directive, text: str, place_utility: str | None = None,
                   movable_utility: str | None = None) -> TaskSpec:
    """The TaskSpec of a directive: ALFRED's (:func:`~planner.knowledge.alfred.alfred_spec`), with every type the
    words may mean as the target's and place's types, and the device the text names preferred for the change of
    state (a substitute may still fill it).

    ``place_utility``: the COAT utility of the place (``storage`` for a fridge or a cabinet, ``surface_support``
    for a counter, ``disposing`` for a bin, ``carrying`` for a plate): the place becomes that role, restricted to
    the place's types, as the general reader reads "put it in the cabinet". None keeps it a target.
    ``movable_utility``: the same for the movable receptacle (``carrying`` for a plate or a bowl)."""
    spec = alfred_spec(d.task_type, d.obj[0], d.recep[0] if d.recep else None,
                       movable=d.movable[0] if d.movable else None, sliced=d.sliced)
    widen = {"target": d.obj, "target2": d.obj, "place": d.recep, "movable": d.movable}
    targets = [t.model_copy(update={"types": widen[t.name]}) if widen.get(t.name) else t for t in spec.targets]
    # the device the words name is preferred; with none named, none is (ALFRED's own Microwave is a labelled
    # spec's convention: "cook it in the pan" read as a heat task still wants the stove)
    roles = [r.model_copy(update={"prefer": tuple(x for x in d.device if not r.types or x in r.types)})
             if r.name in ("heating(source)", "cooling", "washing") else r for r in spec.roles]
    goals = list(spec.goals)
    if place_utility is not None and d.recep and all(r.name != place_utility for r in roles):
        targets = [t for t in targets if t.name != "place"]
        roles.append(Role(name=place_utility, utility=place_utility, types=d.recep))
        goals = [g.model_copy(update={"other": place_utility}) if g.other == "place" else g for g in goals]
        roles = physical_roles(roles, targets)
    if movable_utility is not None and d.movable and all(r.name != movable_utility for r in roles):
        targets = [t for t in targets if t.name != "movable"]
        roles.append(Role(name=movable_utility, utility=movable_utility, types=d.movable))
        goals = [g.model_copy(update={k: movable_utility for k in ("item", "other") if getattr(g, k) == "movable"})
                 for g in goals]
        roles = physical_roles(roles, targets)
    return spec.model_copy(update={"task": text, "targets": tuple(targets), "roles": tuple(roles),
                                   "goals": tuple(goals)})


__all__ = ["Directive", "directive_spec", "read_directive", "tokens"]
