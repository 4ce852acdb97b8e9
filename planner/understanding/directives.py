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
from .frames import FETCH, OUT_OF_REACH, clauses
from .frames import PUT as PUT_FRAMES
from .vocabulary import LIQUIDS, Mention, Vocabulary, singular

CLEAN = frozenset("""wash washed washing washes rinse rinsed rinsing rinses clean cleaned cleaning cleans scrub scrubbed
scrubbing cleanse cleansed""".split())
HEAT = frozenset("""heat heated heating heats warm warmed warming warms hot reheat reheated reheating nuke nuked nuking
microwaved microwaving cook cooked cooking zap zapped""".split())
COOL = frozenset("""cool cooled cooling cools chill chilled chilling chills cold refrigerate refrigerated refrigerating
freeze frozen freezing""".split())
SLICE = frozenset("""slice sliced slices slicing cut cuts cutting chop chopped chopping piece pieces wedge
wedges""".split())
LOOK = frozenset("""examine examined examining inspect inspected inspecting look looking study studying view viewing
observe observing check checking peer""".split())
"""Words of examining; the object must follow ("examine the book", "look at the vase"): "I need to study" is none."""
HOLD = frozenset("pick picked grab grabbed take took hold holding held carry carrying lift".split())
"""Verbs of holding an object up to a lamp (not "bring me", which is a fetch)."""
NEGATION = frozenset("not never no without don dont doesn didn shouldn t".split())
"""Words that deny a change of state in their clause ("don't heat it", "no need to rinse the mug")."""
QUESTIONS = frozenset("who what which whose why where when how is are was were did does do has have".split())
CONDITIONS = frozenset("if unless whether".split())
KNOWING = frozenset("know knows see check checking tell wonder wondering sure unsure ask asking".split())
"""Words before "if" / "whether" that make it an indirect question, not a condition ("I need to know if the watch
has stopped", "check whether the tissue box is empty")."""
MODIFIERS = frozenset("freshly nicely properly recently just slightly well very really thoroughly quickly".split())
"""Words that may stand between a state word and its object ("a freshly rinsed cloth")."""
DISH_NOUNS = frozenset("soup sauce juice puree stew curry sandwich salad pie jam smoothie".split())
"""Nouns after a type word that make it a dish, not the object ("tomato soup")."""
GENERAL = frozenset("""toast toasted toasting toastie mix mixed mixing together stir stirring salad fry fried frying
boil boiled boiling bake baked pour poured eat serve served omelette omelet omlette scrambled whisk whisked
beat""".split())
"""Words of tasks ALFRED has no type for (toast, a salad tossed together, frying): the general reader reads them."""
_ARTICLES = frozenset("the a an some at out up your my that this".split())
_DETERMINERS = frozenset("the a an my your our his her their that this".split())
_LINKS = frozenset("got gets get getting be been being should must can could will needs need wants want".split())
"""Words between an object and its state word that make the state its goal ("the pot needs cooling", "the plate got
warmed"); not "is", which says a state it has already ("the mug is clean")."""
_PORTIONS = frozenset("slice slices piece pieces bit bits head bar wedge of".split())
"""Words between a verb and its object that name a part of it ("chill a slice of lettuce", "wash a head of lettuce")."""
SWITCH = frozenset("turn turns turning switch switches switching flip flick light".split())
PUT = frozenset("""put puts putting place placed places placing set sets setting leave leaving drop dropping move
moving bring bringing take taking carry carrying deposit store stick pop popping toss return transfer stash throw
lay laying position stow park plonk dump pile goes slide discard chuck""".split())
ENDS = frozenset("""go goes going belong belongs sit sits sitting stand standing stood keep kept stored waiting end
ends tuck tucked tucking stashed left live lives stay stays popped""".split())
"""Verbs of where a thing ends up, not of putting it ("it belongs in the drawer", "left on the counter", "should go
back in the fridge", "waiting for me on the table"): a put when a place follows ("go to the fridge" walks)."""
_ENDS_FILL = frozenset("back up out over away down there for me you it them then afterwards after".split())
ARROW = "->"
PLACE_PREP = frozenset({"in", "into", "on", "onto", "inside", "to", "atop", "within", ARROW})
"""Words before where an object ends up ("in the fridge", "onto the counter"; an arrow, "-> counter")."""
SOURCE_PREP = frozenset("from off out at by near beside next under beneath behind".split())
"""Words before where an object comes from or stands near ("out of the fridge", "next to the stove")."""
_SKIP = frozenset("""the a an some your my our his her their that this top of back side little small big large tall
other one""".split())
"""Words between a preposition and the place it names ("on top of the counter", "on the little side table")."""
DISCARD = (("throw", "away"), ("throw", "out"), ("chuck", "away"), ("chuck", "out"), ("toss", "out"))
"""Verbs of throwing away: the place is the bin when none is named ("throw away a microwaved tomato")."""

HEATERS = frozenset({"Microwave", "StoveBurner", "Toaster", "Oven", "CoffeeMachine"})
COOLERS = frozenset({"Fridge"})
WASHERS = frozenset({"SinkBasin", "Sink", "BathtubBasin", "Bathtub", "Faucet"})
LAMPS = frozenset({"DeskLamp", "FloorLamp"})
KNIVES = frozenset({"Knife", "ButterKnife"})
MOVABLES = frozenset({"Plate", "Bowl", "Pan", "Pot", "Mug", "Cup", "Box"})
"""ALFRED's movable receptacles: a thing put in one, and it put somewhere."""
PAIRED = frozenset({"Boots"})
"""Types a pair of is one thing ("the pair of boots")."""
BASINS = {"Sink": "SinkBasin", "Bathtub": "BathtubBasin"}
"""Where a thing put "in the sink" goes: the basin (the sink around it is not a receptacle)."""

STATE_TYPES = {"clean": "pick_clean_then_place_in_recep", "heat": "pick_heat_then_place_in_recep",
               "cool": "pick_cool_then_place_in_recep"}
_DEVICES = {"clean": WASHERS, "heat": HEATERS | {"Pot", "Pan", "Kettle"}, "cool": COOLERS}
"""What each change of state is done in or on ("cook the potato in the pot": the pot, not where it ends up)."""
_SOURCES = {"clean": WASHERS, "heat": HEATERS, "cool": COOLERS}
"""The devices a role of each change of state may prefer (a pot is no heat source)."""
_CUES = {"clean": CLEAN, "heat": HEAT, "cool": COOL}
_STOPS = frozenset({".", ";", "!", "?"})
_BOUNDARY = _STOPS | {",", "then", "and"}


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


@dataclass(frozen=True)
class _Place:
    at: int
    mention: Mention
    put: bool
    """Named in a clause with a verb of putting ("put it in the fridge"), not only walked to."""
    device: bool
    """A device used for the change of state in its clause ("rinse it in the sink")."""


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


def _heads(mentions: list[Mention]) -> list[Mention]:
    """Drop a type word that only modifies the next one ("the glass table", "the soap dish", "the egg cup")."""
    return [m for m, n in zip(mentions, [*mentions[1:], None], strict=False) if n is None or n.start != m.end]


def _negated(words: list[str], i: int) -> bool:
    """A negation in the clause of position ``i`` ("don't heat it", "I don't want the bread sliced")."""
    return bool(NEGATION & set(_clause(words, i)))


def _already(words: list[str], mentions: list[Mention], x: Mention, state: str, cues: list[int]) -> bool:
    """The object is already in the state: its state word describes it and it comes from the device of that state
    ("take the hot pan off the stove", "the cold milk out of the fridge")."""
    if not _adjectival(words, x, cues):
        return False
    if any(words[max(0, i - 2):i] and set(words[max(0, i - 2):i]) & {"still", "already"} for i in cues):
        return True  # "the still-warm bread"
    if words[x.end:x.end + 1] and words[x.end] in ("from", "off", "out"):
        return True  # "the warm plate from the dishwasher", "the cold pan off the stove"
    for m in mentions:
        if set(m.types) & _DEVICES[state] and m.start > 0:
            k = m.start - 1
            while k > 0 and words[k] in _SKIP:
                k -= 1
            if words[k] in ("from", "off", "out"):
                return True
    return False


def _what_is_put(words: list[str], mentions: list[Mention]) -> bool | None:
    """Whether the last verb of putting acts on the object (a type, a pronoun, a slice of it): False when it puts
    something the vocabulary does not name ("put the peel in the bin"); None when there is no such verb."""
    puts = [i for i in _put_at(words) if words[i] != ARROW]
    if not puts:
        return None
    j = puts[-1] + 1
    while j < len(words) and words[j] in _ARTICLES | {"one", "two", "both", "couple", "pair", "of", "another", "second",
                                                      "back", "away", "down", "over", "them", "it"} | MODIFIERS:
        if words[j] in ("it", "them"):
            return True
        j += 1
    if j >= len(words) or words[j] in PLACE_PREP | _STOPS | {",", "to", "and"}:
        return True  # "put it in", "set down, then ..."
    return any(m.start == j for m in mentions) or singular(words[j]) in _PORTIONS | SLICE | CLEAN | HEAT | COOL


def _terse(words: list[str], mentions: list[Mention]) -> bool:
    """A goal with no verb: "apple slice on plate", "A heated mug on the coffee table.", "wash plate; cabinet" (the
    first object within five words, only articles, counts, state and slice words before it)."""
    if words[0] in CLEAN | HEAT | COOL | SLICE or words[0] == "microwave":
        return True
    first = min((m.start for m in mentions), default=len(words))
    lead = {"two", "both", "a", "an", "the", "one", "some", "of"} | CLEAN | HEAT | COOL | SLICE | MODIFIERS
    return first <= 5 and all(w in lead for w in words[:first])


def _conditional(words: list[str]) -> bool:
    """A condition in the text ("if so, heat it", "unless it is clean"); "if" or "whether" right after a word of
    knowing asks what is so ("need to know if the watch has stopped") and is none."""
    def asked(i: int) -> bool:  # "tell me if X": the question, unless a request of its own follows ("...: look at it")
        rest = list(words)
        while rest and rest[-1] in _STOPS:
            rest = rest[:-1]
        return (bool(set(words[max(0, i - 2):i]) & KNOWING) or words[max(0, i - 2):i] == ["find", "out"]) and bool(
            set(rest) & (_STOPS | {",", "so", "by", "then"}))
    def polite(i: int) -> bool:  # "if it's not too much bother", "if you don't mind", "it'd be great if ..."
        after = words[i + 1:i + 7]
        return words[i] == "if" and (bool(set(after) & _IF_POLITE) or after[:2] in (["you", "could"], ["you", "can"],
                                                                                    ["you", "would"]) or (
            i >= 2 and words[i - 2] == "be" and words[i - 1] in _PRAISE))
    return any(w in CONDITIONS and not asked(i) and not polite(i) for i, w in enumerate(words))


_IF_POLITE = frozenset("bother trouble mind possible kind chance".split())
"""Words after "if" that make it politeness, not a condition ("if it's not too much bother", "if you'd be so kind")."""


def _purpose(words: list[str], i: int) -> bool:
    """The word at ``i`` names what the thing is for, not the task: "a washed tomato for the salad", "a slice for
    the potato salad"."""
    return words[i - 1:i] == ["for"] or (words[i - 2:i - 1] == ["for"] and words[i - 1] in _DETERMINERS) or (
        words[i - 3:i - 2] == ["for"] and words[i - 2] in _DETERMINERS)


def _polite(words: list[str]) -> bool:
    """A request worded as a question: "could I get / have", "can I have", "may I have", "is there any way to",
    "would it be possible to"."""
    head = words[:5]
    return (head[1:3] in (["i", "get"], ["i", "have"], ["we", "get"], ["we", "have"]) or head[:4] == ["is", "there",
            "any", "way"] or head[:4] == ["would", "it", "be", "possible"])


WANT = frozenset("like love want wants need needs fancy after have get find craving prefer".split())
"""Words of wanting before the object ("I'd like a washed tomato on the table", "I'm after a warm slice")."""
_PRAISE = frozenset("nice grand great ace perfect ideal handy lovely good brilliant amazing helpful".split())


def _wanted(words: list[str], x: Mention) -> bool:
    """A goal worded as a wish: a word of wanting before the object in its sentence ("I'd love a slice of bread,
    warmed, on the table"), or "would be" and praise after it ("a warmed mug on the table would be ace")."""
    lo, hi = _sentence(words, x.start)
    before = words[lo:x.start]
    if set(before) & WANT and not _negated(words, x.start):
        return True
    after = words[x.end:hi]
    return any(after[k:k + 2] in (["would", "be"], ["d", "be"]) and after[k + 2:k + 3] and after[k + 2] in _PRAISE
               for k in range(len(after)))


def _moved(words: list[str], movable: _Place, places: list[_Place]) -> bool:
    """The movable receptacle is itself put somewhere afterwards ("... and put the mug on the desk", "... and put it
    on the desk", "... and the mug on the shelf"); "put a pencil in a bowl on the table" names where the bowl is,
    not a move, and "put the egg in a pan and then the pan on the stove" cooks it (the general reader's)."""
    k = _again(words, movable.mention)
    if k is not None:
        after = next((p for p in places if p.at > k), None)
        return after is None or not set(after.mention.types) & HEATERS
    for i in _put_at(words):
        j = i + 1
        while j < len(words) and words[j] in _ARTICLES:
            j += 1
        if i > movable.at and words[j:j + 1] and (words[j] in ("it", "them") or words[j] in movable.mention.words):
            return True
    return False


def _again(words: list[str], m: Mention) -> int | None:
    """Where the name of ``m`` is said again as the thing of a put whose verb is left out, after
    "and" or "then", a place following ("put the egg in a bowl and then the bowl in the fridge"): the position of
    that place's preposition, or None."""
    name = m.words.split()
    for k in range(m.end, len(words) - len(name) + 1):
        if words[k:k + len(name)] != name:
            continue
        b = k - 1
        while b > m.end and words[b] in _DETERMINERS | {"whole"}:
            b -= 1
        after = k + len(name)
        if words[b] in ("and", "then", ",") and after < len(words) and words[after] in PLACE_PREP - {ARROW}:
            return after
    return None


def _states(words: list[str], at: dict[int, Mention]) -> dict[str, list[int]]:
    """Each change of state the words ask for, with the positions of its cue words (a cue inside a type's name,
    "cooking pot", does not count; nor "microwave" unless a verb: right before an article, "it" or a type)."""
    out: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        if i in at and len(at[i].words.split()) > 1:
            continue
        for state, cues in _CUES.items():
            if w in cues:
                out.setdefault(state, []).append(i)
        if w == "microwave" and i + 1 < len(words) and (words[i + 1] in ("the", "a", "an", "it", "them", "some")
                                                         or (i + 1 in at and at[i + 1] is not at.get(i))):
            out.setdefault("heat", []).append(i)  # "microwave the egg", "microwave potato -> table"
        if w == "fridge" and i + 1 < len(words) and words[i + 1] in ("the", "it", "them", "that", "this") and not (
                i > 0 and words[i - 1] in _ARTICLES | _DETERMINERS | PLACE_PREP | SOURCE_PREP):
            out.setdefault("cool", []).append(i)  # "fridge it first", "fridge the bottle for a while"
    return {k: [i for i in v if not _negated(words, i)] for k, v in out.items() if any(not _negated(words, i)
                                                                                       for i in v)}


def _pick_state(states: dict[str, list[int]]) -> str | None:
    """One change of state: the one named last when there are several ("take the cold apple out and heat it")."""
    if not states:
        return None
    return max(states, key=lambda s: states[s][-1])


def _adjectival(words: list[str], x: Mention, cues: list[int]) -> bool:
    """A state word describing the object ("a freshly rinsed cloth", "the apple, washed,") rather than a verb (one
    followed by a determiner: "cool the pan off in the fridge")."""
    return any((x.start - 3 <= i < x.start and words[i + 1] not in _DETERMINERS) or i == x.end
               or (i == x.end + 1 and words[x.end] == ",") for i in cues)


def _about(words: list[str], mentions: list[Mention], x: Mention, i: int) -> bool:
    """Whether the state word at ``i`` is about the object: right before it ("a washed apple", "a freshly rinsed
    cloth"; not a noun's modifier, "the cooking spoon", nor plural things that are already so, "the clean towels"),
    right after it ("the apple, washed"), or a verb whose object is it, a pronoun or the object's type ("heat the
    potato", "rinse it", "give the plate a quick wash"), not another thing ("a hot bath", "heat the soup in the
    pot")."""
    if i < x.start:
        between = words[i + 1:x.start]
        if all(w in _ARTICLES | MODIFIERS | _PORTIONS for w in between) and len(between) <= 3:
            last = words[x.end - 1]
            plural = last.endswith("s") and not last.endswith("ss")
            # "the cooking spoon" names a spoon; "the clean towels" are clean already
            return not words[i].endswith("ing") and not (plural and words[i] in CLEAN)
    if i == x.end or (i == x.end + 1 and words[x.end] == ","):
        return True
    if x.end < i <= x.end + 3 and set(words[x.end:i]) <= _LINKS | MODIFIERS | _NOUN_CUE:
        return True  # "the plate got warmed", "the pot needs cooling", "the spatula needs a wash"
    if _pronoun_goal(words, x, i):
        return True  # "could it get rinsed", "once it's been rinsed off"
    give = ("give", "giving", "gives", "gave")
    if i > 0 and words[i - 1] in _NOUN_CUE and (any(w in give for w in words[max(0, x.start - 3):x.start]) or any(
            words[k] in ("it", "them") and words[k - 1:k] and words[k - 1] in give for k in range(max(1, i - 3), i))):
        return True  # "give the butter knife a quick rinse", "give it a wash"
    k = i - 1
    while k > 0 and words[k] in MODIFIERS:
        k -= 1
    if k > 0 and words[k] == "be" and words[k - 1] in ("should", "must", "to", "will", "can", "could") and (
            x.start < i and _sentence(words, x.start) == _sentence(words, i)):
        return True  # "the mug should be heated", "has to be properly chilled" (not "the mug is clean": it is)
    j = i + 1
    while j < len(words) and words[j] in _ARTICLES | _PORTIONS | SLICE | {"off", "down"}:
        j += 1
    if j < len(words) and words[j] in ("it", "them", "this", "that", "one"):
        return True
    if j > i + 1 and set(words[i + 1:j]) & (_PORTIONS | SLICE) and (j == len(words) or words[j] in PLACE_PREP):
        return True  # "heat that slice in the microwave": a piece of the object
    nxt = next((m for m in mentions if m.start == j), None)
    return (nxt is not None and bool(set(nxt.types) & set(x.types))) or _head_word(words, x, j)


def _head_word(words: list[str], x: Mention, j: int) -> bool:
    """The word at ``j`` is the last word of the object's longer name, said again ("the teddy bear ... inspect the
    bear", "the tennis racket ... look at the racket")."""
    names = x.words.split()
    return len(names) > 1 and j < len(words) and j >= x.end and singular(words[j]) == singular(names[-1])


_NOUN_CUE = frozenset({"a", "quick", "good", "proper", "little"})
"""Words before a state word used as a noun ("needs a wash", "give it a quick rinse")."""


def _pronoun_goal(words: list[str], x: Mention, i: int) -> bool:
    """The state word at ``i`` is the goal of a pronoun for the object, through a word of becoming ("could it get
    rinsed", "once it's been rinsed off", "they should be chilled"); "it's clean" says how it is already."""
    for k in range(max(x.end, i - 4), i):
        between = words[k + 1:i]
        if words[k] in ("that", "which") and k > x.end + 1:
            continue  # "the bowl that needs washing": another thing
        asked = words[k - 1] in ("could", "can", "would", "will")  # "could it get rinsed"
        if words[k] in ("it", "they", "them", "that", "which") and set(between) & _LINKS and set(between) <= (
                _LINKS | MODIFIERS | {"s", "is", "are", "has", "have", "to"}) and (
                asked or set(between) & {"should", "must", "need", "needs", "been"}):
            return True
    return False


def _patient(words: list[str], mentions: list[Mention], i: int) -> Mention | None:
    """The thing a verb of putting at ``i`` acts on: the first type named within four words, before any place
    ("throw that stale bread in the bin": the bread)."""
    m = next((m for m in mentions if i < m.start <= i + 4), None)
    if m is None or any(w in PLACE_PREP | _STOPS for w in words[i + 1:m.start]):
        return None
    return m


def _several_things(words: list[str], mentions: list[Mention], x: Mention, pickupable: Collection[str],
                    sliced: bool) -> bool:
    """Whether verbs of putting act on two different things (neither the object, a knife, nor a plate, bowl, pan or
    pot that carries it): "put the apples in the fridge and throw the bread in the bin"."""
    things = set()
    for i in _put_at(words):
        m = _patient(words, mentions, i)
        if m is None or any(p.start < m.start and p.types == m.types and _marker(words, p) for p in mentions):
            continue  # "put a pencil in a mug and put the mug on the desk": the mug carries it
        if not set(m.types) & set(pickupable) or set(m.types) & set(x.types) or sliced and set(m.types) & KNIVES:
            continue
        if m.words == x.words.split()[-1]:
            continue  # "the wine bottle ... take the bottle out"
        if sliced and set(m.types) & MOVABLES:  # "put a slice in the pan, carry the pan to the stove"
            continue
        things.add(m.types[0])
    return bool(things)


def _looked_at(words: list[str], mentions: list[Mention], x: Mention) -> bool:
    """The object examined by a lamp: a look word whose object is it ("examine the book", "check it out"), the
    lamp switched on after the object was picked up ("Pick up the watch. Turn on the lamp."), or the object
    "under" / "by" a lamp with nothing put ("pencil under desklamp", not "put the book near the lamp")."""
    def under(m: Mention) -> bool:
        k = m.start - 1
        while k > 0 and words[k] in _SKIP:
            k -= 1
        return k >= 0 and words[k] in ("under", "beneath", "by", "near", "beside")

    # "the light" is the switch first, unless the object is held under it
    lamps = [m for m in mentions if m.types[0] in LAMPS or (set(m.types) & LAMPS and under(m))]
    if not lamps:
        return False
    for i, w in enumerate(words):
        if w in LOOK and not _negated(words, i):
            j = i + 1
            while j < len(words) and words[j] in _ARTICLES | {"over", "closely", "carefully"}:
                j += 1
            if words[j:j + 1] in (["it"], ["them"]) or _head_word(words, x, j) or any(
                    m.start == j and set(m.types) & set(x.types) for m in mentions):
                return True
            if words[i - 1:i] and words[i - 1] in _NOUN_CUE | {"close", "closer"} and any(
                    v in ("give", "take", "have") for v in words[max(0, i - 6):i]) and (
                    x.start < i or "it" in words[max(0, i - 4):i]) and not set(words) & (PUT - HOLD_UNDER) and (
                    words[i + 1:i + 2] not in (["for"], ["around"], ["near"])) and not set(words) & {
                    "find", "where", "lost", "missing"}:  # not a search: "have a good look around the lamp"
                return True  # "give the statue a look", "have a close look at it"
        it = words[i + 1:i + 2] in (["it"], ["them"]) and x.start < i
        if w in ("hold", "holding", "held") and not _negated(words, i) and (i < x.start <= i + 4 or it):
            j = i + 2 if it else x.end
            while j < len(words) and words[j] in _ARTICLES | {"up"}:
                j += 1
            last = max((m for m in mentions if m.start < i and m is not x), key=lambda m: m.start, default=None)
            lamp_it = words[j + 1:j + 2] == ["it"] and last is not None and set(last.types) & LAMPS
            near = any(j < m.start <= j + 3 and not set(words[j + 1:m.start]) & (_BOUNDARY | {"it", "them"})
                       for m in lamps)  # "under a lit lamp"; not "under it, the desk lamp is on"
            if words[j:j + 1] and words[j] in ("under", "beneath", "to", "near", "by") and (lamp_it or near):
                return True  # "switch the lamp on and hold the watch under it", in either order; "hold it under
                # the lamp"; not "turn on the tap and hold the cup under it"
    held = [i for i, w in enumerate(words) if w in HOLD and i < x.start <= i + 4 and not _negated(words, i)]
    switched = [i for i, w in enumerate(words) if w in SWITCH and "on" in words[i + 1:i + 5] and not _negated(words, i)]
    carried = {"bring", "bringing", "take", "taking", "carry", "carrying", "move", "moving", "return"}
    taken = any(m.start > x.end and not set(m.types) & LAMPS and _marker(words, m)
                and set(_clause(words, m.start)) & carried for m in mentions)
    if held and switched and held[0] < switched[-1] and not set(words[held[0] + 1:]) & (PUT - carried) and not taken:
        return True  # carried to the lamp, never put down nor taken elsewhere ("take the book to bed")
    verbs = set(words) & (LOOK | HOLD | {"hold"})
    searched = {"for", "find", "read", "where", "hide"} & set(words)
    bare = not set(words) & (PUT | HOLD | LOOK | SWITCH) and not searched
    return (bool(verbs) and not searched and not set(words) & PUT or bare) and not _negated(words, x.start) and any(
        x.end <= m.start <= x.end + 4 and under(m) for m in lamps)


HOLD_UNDER = frozenset({"bring", "take", "carry", "move"})
"""Verbs that may take the object to the lamp without putting it anywhere ("bring it under the floor lamp")."""


def _object(words: list[str], mentions: list[Mention], pickupable: Collection[str], sliceable: Collection[str],
            sliced: bool) -> tuple[Mention, str] | None:
    """The object acted on: the sliced food when there is slicing, else the first thing that can be picked up that is
    not a lamp, nor a knife held to cut, nor where something is put."""
    if sliced:
        foods = [(m, t) for m in mentions for t in m.types[:1] if t in sliceable]
        if foods:
            near = [f for f in foods if any(w in SLICE for w in words[max(0, f[0].start - 3):f[0].end + 2])]
            return (near or foods)[0]
    for m in mentions:
        t = next((t for t in m.types if t in pickupable and t not in LAMPS), None)
        if t is None or (sliced and t in KNIVES) or (m.end < len(words) and words[m.end] in DISH_NOUNS):
            continue
        if _marker(words, m) is not None and _put_before(words, m.start):
            continue  # "put ... in the bowl": a place, not the object
        return m, t
    return None


def _marker(words: list[str], m: Mention) -> str | None:
    """The preposition that makes ``m`` a place ("in the fridge", "on top of the counter", "then sidetable"), or
    None."""
    k = m.start - 1
    steps = 0
    # articles and modifiers ("on the little side table", "on the kitchen counter", "in the left cabinet")
    while k >= 0 and steps < 4 and (words[k] in _SKIP or (
            steps < 2 and words[k].isalpha() and words[k] not in PLACE_PREP | SOURCE_PREP | PUT | _BOUNDARY | NEGATION
            | HOLD | LOOK | CLEAN | HEAT | COOL | SLICE | {"it", "them", "and", "or"})):
        k -= 1
        steps += 1
    if k < 0:
        return None
    w = words[k]
    if w == "to" and k > 0 and words[k - 1] in ("next", "close", "near", "right", "left", "up"):
        return None  # "next to the stove": beside it
    if k > 0 and words[k - 1] in ("not", "never", "nor"):
        return None  # "in the sink, not in the bathtub"
    modified = any(x not in _SKIP for x in words[k + 1:m.start])
    if modified and words[k + 1:k + 2] and words[k + 1] not in _DETERMINERS:
        return None  # a modifier only after an article: "on the kitchen counter", not "to wipe the table"
    if w in PLACE_PREP:
        return w
    if w in ("then", ",", ";") and steps <= 1:
        return w  # terse: "wash soap bar then sidetable", "wash plate; cabinet"
    return None


def _put_before(words: list[str], i: int) -> bool:
    """A verb of putting (or an arrow) earlier in the same clause as position ``i``."""
    j = i - 1
    while j >= 0 and words[j] not in _STOPS:
        if _is_put(words, j):
            return True
        j -= 1
    return False


def _span(words: list[str], i: int, ends: frozenset[str]) -> tuple[int, int]:
    """The bounds (start, end) of the run of words around position ``i`` that holds none of ``ends``."""
    lo = i
    while lo > 0 and words[lo - 1] not in ends:
        lo -= 1
    hi = i
    while hi < len(words) and words[hi] not in ends:
        hi += 1
    return lo, hi


def _clause(words: list[str], i: int) -> list[str]:
    """The words of the clause around position ``i`` (between commas, "and", "then" and sentence ends)."""
    lo, hi = _span(words, i, _BOUNDARY)
    return words[lo:hi]


def _sentence(words: list[str], i: int) -> tuple[int, int]:
    """The bounds (start, end) of the sentence around position ``i``."""
    return _span(words, i, _STOPS)


def _places(words: list[str], mentions: list[Mention], x: Mention, states: dict[str, list[int]]) -> list[_Place]:
    """Every place the text puts something in or on, in order (lamps and the object itself left out)."""
    devices = set().union(*(_DEVICES[s] for s in states)) if states else set()
    cues = set().union(*(_CUES[s] for s in states)) if states else set()
    out = []
    for m in mentions:
        if m is x or set(m.types) & LAMPS or _marker(words, m) is None or _negated(words, m.start):
            continue  # "... but not in the fridge": no place
        put = _put_before(words, m.start)
        clause = _clause(words, m.start)
        device = m.types[0] in devices and not put and any(w in cues or w == "microwave" for w in clause)
        out.append(_Place(m.start, m, put, device))
    for i in _put_at(words):  # "open the fridge, put the tomato inside": the place named before the verb
        lo, hi = _sentence(words, i)
        after = words[i + 1:hi]
        inside = "inside" in after or any(after[k:k + 2] in (["in", "it"], ["in", "there"], ["on", "it"])
                                          for k in range(len(after)))
        if not inside or any(i < p.at < hi for p in out):
            continue
        named = [m for m in mentions if lo <= m.start < i and m is not x and x.types[0] not in m.types
                 and not set(m.types) & LAMPS]
        opened = [m for m in named if words[max(lo, m.start - 2):m.start][:1] == ["open"]
                  or words[max(lo, m.start - 1):m.start] == ["open"]]
        if named:
            out.append(_Place(i, (opened or named)[-1], True, False))
    return sorted(out, key=lambda p: p.at)



def _put_at(words: list[str]) -> list[int]:
    """Positions of the verbs of putting and the arrows, not denied ("do not put it in the fridge")."""
    return [i for i, w in enumerate(words) if _is_put(words, i) and not _negated(words, i)]


def _is_put(words: list[str], i: int) -> bool:
    """A verb of putting or an arrow at ``i``, or a verb of ending up followed by where ("it belongs in the drawer",
    "left on the counter"; not "go to the fridge")."""
    if words[i] in PUT or words[i] == ARROW:
        return True
    if words[i] == "be" and i > 0 and words[i - 1] in ("should", "must", "to", "d", "ll", "will", "can", "could"):
        pass  # "both rolls should be in a drawer", "meant to be on the dining table": where it ends up
    elif words[i] not in ENDS or (words[i] in ("go", "goes", "going") and set(words[max(0, i - 4):i]) & {
            "get", "gets", "got", "getting"}):
        return False  # "get the candle going on the coffee table" lights it
    j = i + 1
    while j < len(words) and j <= i + 3 and words[j] in _ENDS_FILL:
        j += 1
    return j < len(words) and words[j] in PLACE_PREP - {"to", ARROW}


def _destination(words: list[str], places: list[_Place], vocab: Vocabulary,
                 puts: list[int]) -> tuple[_Place, _Place | None] | None:
    """(place, movable receptacle or None): the first place named after the last verb of putting, else the last place
    named; a device used for the change of state is not it ("rinse it in the sink"). "in a bowl on the table", or a
    slice put on a plate that is then put somewhere: the bowl or plate is a movable receptacle."""
    ends = [p for p in places if not p.device]
    if not ends:
        bin_ = vocab.phrases.get("garbage can")
        thrown = "discard" in words or any(a in words and b in words[words.index(a):] for a, b in DISCARD)
        if bin_ and thrown:
            return _Place(len(words), Mention(bin_, "bin", len(words), len(words)), True, False), None
        return None
    after = [p for p in ends if puts and p.at >= puts[-1]]
    first = after[0] if after else ends[-1]
    rest = [p for p in ends if p.at > first.at and not any(w in _STOPS | {"then"} for w in words[first.at:p.at])]
    if first.mention.types[0] in MOVABLES and (k := _again(words, first.mention)) is not None:
        rest = [p for p in ends if p.at > k] or rest  # "... in a bowl and then the bowl in the fridge"
    if first.mention.types[0] in MOVABLES and rest:
        return rest[0], first
    if rest and rest[0].mention.types[0] in MOVABLES and first.mention.types[0] not in MOVABLES:
        return first, rest[0]  # "bring them to the table on a plate"
    earlier = [p for p in ends if p.at < first.at and (p.put or not puts or ARROW in words)
               and p.mention.types[0] in MOVABLES
               and p.mention.types[0] not in first.mention.types]
    if earlier and first.mention.types[0] not in MOVABLES:
        return first, earlier[-1]
    return first, None


def _by_path(words: list[str], places: list[_Place], recep: _Place) -> dict[str, list[int]]:
    """A change of state read from where the object went before its place: put in the fridge (cooled), in the
    microwave (heated), or to the sink with water run over it (cleaned)."""
    held = {q.mention.end for q in places if q.mention.types[0] in MOVABLES}
    before = [p for p in places if p.at < recep.at and not set(p.mention.types) & set(recep.mention.types)
              and not any(e <= p.at <= e + 3 for e in held)]  # "in the pan on the stove": where the pan is
    for p in reversed(before):
        t = p.mention.types[0]
        if p.put and t in COOLERS:
            return {"cool": [p.at]}
        if p.put and t in HEATERS - {"CoffeeMachine"}:
            return {"heat": [p.at]}
        if t in WASHERS and any(w in ("water", "tap", "faucet") for w in words):
            return {"clean": [p.at]}
    return {}


def _carrier(words: list[str], places: list[_Place], recep: _Place, x: Mention) -> _Place | None:
    """A plate, bowl, pan or pot a slice is put in or on right after it is named, before the place it ends up: "a
    slice of bread on a plate, sitting on the dining table", "get a tomato slice into a pot and leave the pot on the
    counter", "a slice of it in a bowl, and the bowl left on the counter"."""
    for p in places:
        if p.at >= recep.at or p.device or p.mention.types[0] not in MOVABLES:
            continue
        q = p.at - 1
        while q > 0 and words[q] in _SKIP:
            q -= 1  # the preposition
        k = q - 1
        while k > 0 and words[k] in ("it", "them", "of"):
            k -= 1
        if words[q] in PLACE_PREP and (k == x.end - 1 or singular(words[k]) in _PORTIONS | SLICE):
            return p
    return None


def _holder(words: list[str], mentions: list[Mention], x: Mention) -> _Place | None:
    """A plate, bowl, pan or pot holding the object: "a bowl with / of / containing / holding apple slices"."""
    for m in mentions:
        between = words[m.end:x.start]
        if m.types[0] in MOVABLES and m.end <= x.start and len(between) <= 4 and any(
                w in ("with", "of", "containing", "holding", "contains", "holds", "full") for w in between):
            return _Place(m.start, m, True, False)
    return None


def _two(words: list[str], x: Mention, mentions: list[Mention]) -> bool:
    """Two of the object: a count word right before it ("two pens", "a pair of pencils", "both remotes", "pens x2"),
    not a measure ("two spoons of sugar"), a pair that is one thing (boots) or a denied count ("don't put two
    pillows"); or a second one fetched in a clause of its own ("grab another book", "go back for the second
    candle", "get the other roll"), not other things already there ("next to the other books", "the other towel
    holder", "the other side", "the other statue is broken")."""
    if words[x.end:x.end + 1] == ["of"]:
        return False
    before = words[max(0, x.start - 3):x.start]
    counts = {"two", "couple", "both"} | ({"pair"} if x.types[0] not in PAIRED else set())
    if counts & set(before) or words[x.end:x.end + 1] == ["two"] or any(
            words[i + 1:i + 2] == ["both"] for i in _put_at(words)):  # "statue + statue: move both to side table"
        return not _negated(words, x.start)
    noun = singular(x.words.split()[-1])
    for i in range(x.end, len(words) - 1):
        if words[i] not in ("another", "second", "other"):
            continue
        nxt = words[i + 1]
        starts = next((m for m in mentions if m.start == i + 1), None)
        if starts is not None and not set(starts.types) & set(x.types):
            continue  # "the other towel holder"
        if starts is not None and nxt != singular(nxt):
            continue  # "the other books": the ones already there
        if not set(_clause(words, i)) & (HOLD | PUT | {"get", "fetch", "back", "grab"}):
            continue  # "the other statue is broken"
        if nxt == "one" or (starts is not None and nxt == noun) or nxt in ("set", "roll", "bar", "piece", "bunch"):
            return True
    return False


__all__ = ["Directive", "directive_spec", "read_directive", "tokens"]
