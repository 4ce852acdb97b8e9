"""The word tables of the ALFRED directive reader (:mod:`planner.understanding.directives`): the cue words of each
change of state, the verbs of putting, holding and looking, the place prepositions, the device and receptacle types;
and the spans it reads words in (a clause, a sentence, whether one is denied)."""

from __future__ import annotations

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
WANT = frozenset("like love want wants need needs fancy after have get find craving prefer".split())
"""Words of wanting before the object ("I'd like a washed tomato on the table", "I'm after a warm slice")."""


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


def _negated(words: list[str], i: int) -> bool:
    """A negation in the clause of position ``i`` ("don't heat it", "I don't want the bread sliced")."""
    return bool(NEGATION & set(_clause(words, i)))


__all__ = ["CLEAN", "HEAT", "COOL", "SLICE", "LOOK", "HOLD", "NEGATION", "QUESTIONS", "CONDITIONS", "KNOWING",
           "MODIFIERS", "DISH_NOUNS", "GENERAL", "SWITCH", "PUT", "ENDS", "ARROW", "PLACE_PREP", "SOURCE_PREP",
           "DISCARD", "HEATERS", "COOLERS", "WASHERS", "LAMPS", "KNIVES", "MOVABLES", "PAIRED", "BASINS",
           "STATE_TYPES", "WANT"]
