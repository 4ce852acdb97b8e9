"""The simple structure of a request: its verbs, what they act on, "with" an instrument, "in" / "on" a place.

A request's clauses and its verbs' base forms come from its one parse (:mod:`planner.understanding.parse`:
punctuation, conjoined and adverbial clauses, "then"). Each clause has a verb (the first word that is a frame
verb, after "please", "could you", "I'd like you to" ...; else a state such as "dirty"), an object phrase, and the
phrases after "with" (the instrument) and each "in" / "on" / "into" (where). A purpose clause ("something to
read") counts as the verb "read".

:data:`FRAMES` is the verb table: which of COAT's utilities each verb calls for. It is the reader's
structural cue, beside the nearest COAT tasks (:mod:`planner.understanding.reader`).

Example:
    >>> [(c.verb, c.obj, c.instrument, c.where) for c in clauses("please cut the cake with a knife")]
    [('cut', 'cake', 'knife', '')]
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .lexicon import table
from .parse import Parse, parse, parse_all

FRAMES: dict[str, tuple[str, ...]] = table("frames")
"""Verb (lower case, base form) -> the COAT utilities it calls for (``lexicon.json``, as are the tables below)."""

STATES: dict[str, tuple[str, ...]] = table("states")
"""A state a request describes ("my hands are dirty") -> the utilities that fix it (a clause with no verb frame)."""

DISHES: dict[str, tuple[str, ...]] = table("dishes")
"""A dish or drink a request asks to be made -> the utilities making it needs (a salad: a knife and a bowl)."""

DISH_PREFERS: dict[str, tuple[str, ...]] = table("dish_prefers")
"""The usual objects for a dish (soup: a pot on the stove), which win ties and rule nothing out."""

WORD_PREFERS: dict[str, tuple[str, ...]] = table("word_prefers")
"""Words that name the usual object of a role ("wash my hands": the sink): they win ties, rule nothing out."""

MAKE = frozenset({"make", "prepare", "cook", "fix", "brew", "have", "want", "need", "like", "bake", "whip", "get"})
"""Verbs that make (or ask for) a dish of :data:`DISHES`."""


def dish(text: str) -> str:
    """The longest dish of :data:`DISHES` named in ``text`` (lower case words), or ""."""
    padded = f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "
    return max((d for d in DISHES if f" {d} " in padded), key=len, default="")


VERB_PREFERS: dict[str, tuple[str, ...]] = table("verb_prefers")
"""Verbs that name the usual object (toast -> a toaster): they win ties, rule nothing out."""

VERB_REQUIRES: dict[str, tuple[str, ...]] = table("verb_requires")
"""Verbs (and states) only one kind of object can do ("vacuum the rug"): the role must be that type ..."""
REQUIRES_WHEN: dict[str, re.Pattern[str]] = {
    **dict.fromkeys(("clogged", "blocked", "unclog", "unblock"),
                    re.compile(r"\b(?:toilet|loo|sink|drain|bath|tub|bathtub|shower|pipe|plughole|basin)\b")),
    "draining": re.compile(r"\bdraining (?:really |very |so )?slow(?:ly)?\b|\b(?:not|isn't|won't|stopped) draining\b"),
}
"""... and only when the request names what such a tool works on ("my nose is blocked" needs no plunger)."""

PHRASAL: dict[str, str] = table("phrasal")
"""Phrasal verbs and set phrases -> what they count as, applied in order (``switch``: the device decides)."""

PHRASAL_FIRST = frozenset(p.split()[0] for p in PHRASAL) | {"kettle"}

FETCH = frozenset({"bring", "fetch", "get", "give", "hand", "take", "grab", "find", "pass", "need", "want"})
"""Verbs that bring something: the utility is the purpose ("something to read") or what is named."""
OUT_OF_REACH = re.compile(r"\b(?:(?<!on )high(?! heat| chair)|higher|ceiling(?! light| lamp| fan)|up there|top shelf|"
                          r"can't reach|cannot reach|too short|can't get at|cannot get at)\b")
"""Words that put the place out of reach ("the box goes on the high shelf"): something to stand on is needed too."""
OPEN = frozenset({"open", "close", "shut", "run"})
"""Verbs that work a named thing like a switch does ("open the blinds": the blinds are the light source, "run the
hoover": the vacuum cleaner cleans)."""
STATE_VERBS: dict[str, tuple[str, bool]] = table("state_verbs")
"""Verbs that set a named thing's state as AI2-THOR's actions do ("turn off the lamp": ``isToggled`` false)."""
PUT = frozenset({"put", "place", "set", "move", "leave", "lay", "stand", "hang", "stick", "pop", "drag", "shift",
                 "slide", "shove", "return", "drop", "stack", "replace", "file"})
"""Verbs that put the object phrase in / on the place phrase."""
HUNG_ON: dict[str, tuple[str, ...]] = table("hung_on")
"""Where a thing hangs when the request names no place: AI2-THOR's only receptacle for it."""

_POLITE = re.compile(
    r"^(?:(?:please|kindly|hey|ok|okay|robot|now|sorry|srry|sry)\s+|(?:can|could|would|will)\s+(?:you\s+|u\s+|ya\s+|"
    r"someone\s+|somebody\s+|anyone\s+|anybody\s+|it\s+be\s+possible\s+(?:for\s+(?:you|someone)\s+)?to\s+)?"
    r"(?:please\s+|pls\s+|plz\s+)?|"
    r"i\s*(?:'d|would)\s+(?:like|love)\s+(?:you\s+)?(?:to\s+)?|(?:i\s+)?fancy\s+|"
    r"i\s+(?:want|need)\s+(?:you\s+)?(?:to\s+)?|"
    r"help\s+me\s+(?:to\s+)?|let\s*'?s\s+|go\s+and\s+|time\s+(?:to|for)\s+(?:my\s+|a\s+|some\s+)?|"
    r"(?:i\s+)?(?:could|would)\s+(?:do\s+with|murder)\s+|(?:i\s+)?(?:wouldn't|wouldnt|would\s+not)\s+(?:say\s+no\s+to|"
    r"mind)\s+|any\s+chance\s+(?:of|you\s+could)\s+|be\s+an?\s+(?:dear|love|star|legend|darling|doll|gem)\s+and\s+|"
    r"if\s+you\s+get\s+a\s+(?:sec|second|minute|moment|chance)\s+|"
    r"i\s*(?:'ll|will|'m\s+going\s+to|'m\s+gonna|am\s+going\s+to)\s+(?=have\s+a\s+(?:bath|shower)\b)|"
    r"(?:someone|somebody|anyone|anybody)\s+(?:should|needs?\s+to|ought\s+to|could|has\s+to|must)\s+(?:really\s+)?|"
    r"(?:does|do)\s+(?:someone|somebody|anyone|anybody)\s+want\s+to\s+|"
    r"it\s*(?:'d|would)\s+be\s+(?:great|lovely|nice|good|brilliant)\s+if\s+(?:we|you|someone|somebody)\s+"
    r"(?:could|can)\s+)+"
)
_WHERE = ("into", "onto", "inside", "in", "on", "from", "at")
_REFERENCE = frozenset({"above", "below", "beneath", "under", "underneath", "beside", "behind", "near", "next",
                        "opposite", "between", "by", "over"})
"""Words that place something relative to an object ("hang it above the sofa", "hoover under the table"): the
object they name is a landmark, neither a role's object nor a target (but what is put "under" a thing goes
there)."""
_ARTICLES = frozenset({"a", "an", "the", "some", "my", "your", "our", "this", "that", "these", "those", "me", "us",
                       "him", "her", "them", "it", "something", "anything", "one", "please", "up", "out"})
_VERB_COMPOUNDS = frozenset({("hand", "towel"), ("hand", "towels"), ("hand", "soap"), ("butter", "knife"),
                             ("butter", "knives"), ("light", "switch"), ("watering", "can"), ("dish", "sponge"),
                             ("spray", "bottle"), ("mixing", "bowl"), ("cutting", "board"), ("serving", "bowl")})
"""A verb that opens an object's name is no verb ("hand towel please" asks for the towel)."""
_DETERMINERS = frozenset({"a", "an", "the", "my", "your", "our", "his", "their", "this", "that", "these", "those"})
_COUNT_WORDS = frozenset(table("counts"))
"""Words that count the thing named after them ("every light", "both lamps": the lexicon's ``counts`` table)."""


PETS = frozenset({"cat", "cats", "kitten", "dog", "dogs", "puppy", "goldfish", "fish", "hamster", "rabbit", "bunny",
                   "bird", "parrot", "budgie", "tortoise", "turtle", "guinea", "pet", "pets"})
"""Animals a household keeps: they may be shut in a room ("shut him in the kitchen"), never in an appliance."""
LIVING = PETS | frozenset({"baby", "babies", "child", "children", "kid", "kids", "toddler", "grandad", "grandpa",
                             "grandma", "granny", "nan", "mum", "mom", "dad", "brother", "sister", "person", "people",
                             "husband", "wife", "neighbour", "neighbor", "him", "client", "patient", "resident", "nana",
                             "gran", "grandson", "granddaughter", "son", "daughter", "boy", "girl", "lodger",
                             "flatmate", "roommate"})
"""Living beings a household robot must never harm."""

class Clause(NamedTuple):
    """One verb of a request with its phrases (lower case; empty strings when absent)."""

    verb: str
    """The frame verb (base form), ``switch`` for turn / switch on, or "" when the clause has none."""
    obj: str
    instrument: str
    """What follows "with" / "using"."""
    where: str
    """What follows "in" / "on" / "into" / "onto" / "from" / "at"."""
    prep: str
    """The word that began ``where`` ("in", "on" ...)."""
    purpose: str
    """The verb of "something to <verb>" / "to <verb> on", when the clause has one."""
    text: str
    places: tuple[tuple[str, str], ...] = ()
    """Every (preposition, phrase) after the object phrase: "in a bowl on the coffee table" has two."""
    request: bool = False
    """The clause is worded as a request: a polite opening ("please", "could you", "I want") or a verb first."""
    joined: bool = False
    """The clause is a thing joined by "and" to the one before ("put the remote and my phone away"): it has that
    clause's verb, and the place either of them names."""


def _verb_at(words: list[str], bases: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]`` is the clause's verb: a known verb (``bases``: each word's base form, from the parse),
    but not a word after a determiner ("out of the shower", "fill the bath") nor an inflected form after an article
    ("the chopping board is dirty"), and "time" only first or after "the" / "what" ("check the time", not "netflix
    time")."""
    w = words[i]
    if not is_verb(bases[i]):
        return False
    after = words[i - 1] if i else ""
    if i + 1 < len(words) and (w, words[i + 1]) in _VERB_COMPOUNDS:  # "hand towel please", "the butter knife"
        return False
    if w == "time":
        return i == 0 or after in ("the", "what", "what's", "whats")
    if (i >= 2 and words[i - 2] in ("my", "your", "his", "her", "our", "their") and after not in _DETERMINERS
            and not after.endswith("'s") and not is_verb(bases[i - 1])):
        return False  # "my energy drink": a noun after a possessive and a modifier
    # "the shower", "a wash", "every light": nouns after an article, a determiner or a count word
    return not ((bases[i] != w and after in _ARTICLES) or after in _DETERMINERS or after in _COUNT_WORDS)


def is_verb(word: str) -> bool:
    """Whether ``word`` (a base form) is a verb the reader knows (a frame, fetch, put, make ...)."""
    return (word in FRAMES or word in FETCH or word in PUT or word in STATE_VERBS
            or word in ("make", "prepare", "brew", "fix", "fill", *OPEN))


_GAP = (r"(?:(?!\b(?:and|then|but|so|or|because|while|before|after|when|there's|there|it's|i've|i'm|we've|"
        r"not|isn't|aren't|hasn't|haven't|wasn't|weren't|never|likes?|prefers?)\b)[^,.;!?])")
"""One character of the stretch between a thing and its state: never a new clause ("put the milk away and throw out
the mouldy bread"), a new subject ("get me a towel there's water all over") or a negation ("the soil isn't dry")."""
_FOOD_WORDS = (r"(?:lettuce|tomato(?:es)?|bread|apples?|potato(?:es)?|eggs?|milk|cheese|fruit|veg|vegetables|salad|"
               r"leftovers|bananas?|chicken|meat|fish|yoghurt|yogurt)")
_CLUTTER = (r"(?:books?|toys?|clothes|shoes|socks|towels?|mugs?|cups?|spoons?|forks?|ladles?|pens?|pencils?|papers?|"
            r"toiletries|magazines?|cds?|dvds?|games?|laundry|remotes?|cushions?|pillows?|bottles?|tins?|cans?)")
SITUATIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:\b(?:the|my|our|your|this|that) )?\b(?:plants?|fern|ferns|cactus|houseplant|flowers|soil|leaves)\b"
                r"(?:(?!\b(?:pot|vase)\b)" + _GAP + r"){0,40}"
                r"\b(?:limp|droop\w*|wilt\w*|sorry for itself|sad(?: looking)?|crispy|bone dry|dry|thirsty|dying|"
                r"shrivel\w*|parched)\b"), "water the plant"),
    (re.compile(r"\b(?:mouth(?:'s| is)|throat(?:'s| is)) (?:\w+ )?dry\b|\bdying of thirst\b|\bspitting feathers\b|"
                r"\b(?:i'm |i am )?(?:absolutely |so |bloody )?gasping\b(?! for)"), "i'm thirsty"),
    (re.compile(rf"(?<!\bis )(?<!\bwhether )(?<!\bif )(?:\b(?:the|my|our|that|this) )?\b({_FOOD_WORDS})\b{_GAP}{{0,40}}"
                r"\b(?:gone off|gone bad|mouldy|moldy|rotten|rotting|slimy|past it|furry|fuzzy|growing things|"
                r"out of date|expired|(?:gotta|has to|needs to) go(?!\s+(?:in|into|back|on|to|out|with)\b))\b"),
     r"throw away the \1"),
    (re.compile(rf"(?<!\bwash the )(?<!\bcollect the )(?<!\btea )(?:\b(?:the|my|our|their|his|her|your) )?"
                rf"\b({_CLUTTER})(?: and \w+)?\b{_GAP}{{0,40}}"
                r"\b(?:all over|everywhere|lying around|cluttering|left out)\b"),
     r"put away the \1"),
    (re.compile(r"\b(?:my|your|his|her|their|the kids'?|grandad's|grandpa's|nan's) (feet|hands|face|legs|knees)\b"
                r"[^,.;!?]{0,25}\b(?:filthy|dirty|muddy|grubby|sticky|mucky|greasy|oily|black with)\b"),
     r"wash my \1"),
    (re.compile(r"(?<!put )(?<!apply )(?<!wear )\b(?:mascara|make ?up|mud|paint|chocolate|ink|felt tip)\b[^,.;!?]{0,30}"
                r"\b(?:all over|over|on|round|down) (?:my|your|her|his) face\b"),
     "wash my face"),
    (re.compile(r"(?:\b(?:coffee|tea|wine|juice|ink|grease|mud|blood|curry|ketchup|chocolate|gravy) )?"
                r"\bstain(?:s|ed)?\b" + _GAP + r"{0,30}"
                r"\b(shirt|jeans|trousers|clothes|jumper|blouse|skirt|"
                r"(?:(?<=my )|(?<=her )|(?<=his )|(?<=your ))(?:top|tie|dress))\b|"
                r"\b(shirt|jeans|trousers|clothes|jumper|blouse|skirt|"
                r"(?:(?<=my )|(?<=her )|(?<=his )|(?<=your ))(?:top|dress))\b" + _GAP + r"{0,30}\bstain(?:s|ed)?\b"),
     r"wash the \1\2 with soap"),
    (re.compile(r"\b(?:tea|coffee|mug|cup|water|wine|sticky|glass) (?:ring|rings|mark|marks)\b"),
     "wipe the mark off"),
    (re.compile(r"\b(?:plughole|drain|sink|shower|bath|basin)(?:'s| is)? (?:\w+ )?(?:full of|clogged with|blocked "
                r"with) (?:hair|gunk)\b"), "clean the hair out and throw it away"),
    (re.compile(r"\b(?:walls?|room|bedroom|flat)(?: in here)?(?:'s| is| are| looks?| feels?| feel)(?: \w+)?? "
                r"(?:so |really |too |dead |a bit |very )?"
                r"(?:boring|bare|plain|white|empty|dull)\b(?! to)(?! now)"), "decorate the room"),
    (re.compile(r"\bwhat'?s (?:going on|happening) in the world\b|\bcatch up on the (?:news|headlines)\b"),
     "read the news"),
    (re.compile(r"(?:^|(?<=, )|\bbut )(?:in|into) (?:little |small |tiny |bite sized |thin )?(?:bits|pieces|chunks|"
                r"slices|cubes)\b"), "cut it"),
    (re.compile(r"\b(?:i've got|i have|i've|there's|there is|got) (?:nothing|no \w+) to "
                r"(write|read|cut|wipe|sit|stand) (?:with|on|in)\b"), r"get something to \1 with"),
    (re.compile(r"\b(?:a|for a) lie down\b"), "lie down"),
    (re.compile(r"(?:\b(?:the|my|our|this|that|his|her) )?\b(soup|tea|coffee|dinner|lunch|food|pizza|latte|cuppa|stew|"
                r"porridge|pasta|curry|milk)(?:'s| is| has)? (?:\w+ )?(?:(?:gone|got|going|getting) (?:all )?"
                r"(?:stone |a bit |totally |completely )?cold|stone cold)\b"), r"reheat the \1"),
    (re.compile(r"(?:\b(?:the|my|our|this|that) )?\b(toilet roll|loo roll|toilet paper|tissues|kitchen roll|"
                r"paper towels?|pen|biro|pencil)(?:'s| has| have| is| are)? (?:just )?(?:run out|ran out|all gone|died|"
                r"dead|run dry)\b"), r"get me a new \1"),
    (re.compile(r"\bneeds? a (?:good |quick |proper )?(stir|wipe|wash|clean|scrub|dust|hoover|mop|rinse)\b"
                r"(?=\s*(?:[,.;!?]|$|(?:before|after|please|now|later|and|then|tonight|today|every|again|soon|"
                r"too|first|when|while|if|or|but|so|for)\b))"), r"\1 it"),
    (re.compile(r"\bsleep through (?:it|my alarm|the alarm)\b|\boversleep\b|\b(?:got to|have to|need to|gotta) "
                r"(?:be up|get up|wake up) (?:at|by)\b|\bset (?:the |my )?(?:radio|clock) for\b"), "set an alarm"),
    (re.compile(r"\b(?:we're|we are|i'm|i am|we've run|we've|we have|all) out of (toilet roll|loo roll|toilet paper|"
                r"tissues|kitchen roll|paper towels?)\b"), r"get me \1"),
    (re.compile(r"(?:\b(?:the|my|this|that|these|those) )?\b(knife|knives|plates?|mugs?|cups?|forks?|spoons?|"
                r"bowls?|pans?|pots?|dishes|glasses)(?:'s| is| are|'re)? (?:\w+ )?"
                r"(?:filthy|dirty|grubby|mucky|greasy|crusty|manky|minging)\b"), r"wash the \1"),
    (re.compile(r"\bthe (snooker|football|match|cricket|rugby|racing|darts|golf|cartoons) on\b"
                r"(?!\s+(?:the|a|an|my|your|his|her|this|that)\b)"),
     "switch on the television"),
    (re.compile(r"\bmake (?:a |an |some )?(?:birthday |get well |thank you )?(card|sign|list|note)\b"), r"write a \1"),
    (re.compile(r"(?:\b(?:a|the|my|his|her) )?\b(plate|glass|mug|cup|bowl|vase)\b" + _GAP +
                r"{0,30}\b(?:in bits|smashed|"
                r"shattered|in pieces)\b"), r"throw away the broken \1"),
    (re.compile(r"\b(?:bare|blank) (?:patch|spot|bit|wall)\b|\bempty wall\b"), "decorate the wall"),
    (re.compile(r"\bneeds? (?:their|his|her|my|your) hands (?:washing|washed|a wash)\b"), "wash their hands"),
    (re.compile(r"\bgive (?:it|them) (?:a )?(?:quick |good )?once[- ]over\b"), "clean it"),
    (re.compile(r"\bgive (?:the |this |that )?(?!a\b)(\w+ )?(?:a )?(?:quick |good )?once[- ]over\b"), r"clean the \1"),
    (re.compile(r"\b(?:toothpaste|food|jam|chocolate|yoghurt|yogurt|sauce|ketchup|crumbs) (?:all )?"
                r"(?:round|around|over|on) (?:her|his|my|their|your) (mouth|face|chin)\b"), r"wipe her \1"),
    (re.compile(r"\b(?:might be|going to be|gonna be|feels?|feeling) sick\b(?! of)|\bthrow(?:ing)? up\b"),
     "bring me a bowl"),
    (re.compile(r"\bsomewhere (?:safe )?for (?:my|the|his|her|these|this|our) "
                r"(?!(?:kids?|children|baby|dog|cat|mum|mom|"
                r"dad|gran|nan|grandad|grandma|guests?|visitors?|people)\b)(\w+(?: racket| bat| ball)?)\b(?! to \w)"),
     r"store the \1"),
    (re.compile(r"\bsend (?:\w+ ){0,2}(?:a |an )?(?:quick )?(message|text|email|note)\b"), r"write a \1"),
)
"""A situation a request describes instead of asking -> the request it implies ("the plant's gone all limp":
water it; "books all over the floor": put them away; "my feet are filthy": wash them), substituted in the whole
request before it is split into clauses (the replacement is a clause of its own). Each pattern needs the thing and
its state together, so a state alone ("it's dry") implies nothing."""


def situation(text: str) -> str:
    """``text`` (lower case words) with each described situation replaced by the request it implies
    (:data:`SITUATIONS`), on a line of its own so that it is parsed as a clause of its own."""
    for pattern, request in SITUATIONS:
        text = pattern.sub(lambda m, r=request: f"\n{m.expand(r).strip()}\n", text)
    return text


def clauses(text: str) -> list[Clause]:
    """The clauses of a request, each with its verb and phrases (see the module doc)."""
    return list(_clauses(text))


def _joined_thing(p: Parse, ids: tuple[int, ...], before: list[Clause]) -> bool:
    """The clause is a noun joined by "and" to a noun of the clause before it, which has a verb ("the remote and my
    phone", "two plates and two forks"), not a clause of its own."""
    head = next((i for i in ids if p.tokens[i].head not in ids or p.tokens[i].head == i), None)
    if head is None or not before[-1].verb or not before[-1].obj:
        return False
    tok = p.tokens[head]
    # the tagger may call a noun used alone an adjective ("the remote"), the parser hang a noun on the verb ("put the
    # remote control and the cell phone away"): a noun joined by "and" is a second thing either way
    first = p.tokens[tok.head]
    return tok.dep == "conj" and tok.pos in ("NOUN", "PROPN") and (
        first.pos in ("NOUN", "PROPN", "VERB") or first.dep in ("dobj", "pobj", "attr", "oprd"))


def _share_place(first: Clause, joined: Clause) -> tuple[Clause, Clause]:
    """Two things joined by "and" go to the place either names ("lay two plates and two forks on the table")."""
    if joined.places and not first.places:
        first = first._replace(where=joined.where, prep=joined.prep, places=joined.places,
                               text=f"{first.text} {joined.prep} {joined.where}")
    elif first.places and not joined.places:
        joined = joined._replace(where=first.where, prep=first.prep, places=first.places)
    return first, joined


@lru_cache(maxsize=8)
def prime_clauses(texts: tuple[str, ...]) -> None:
    """Parse many fixed texts (COAT's task names) in one batch before their clauses are asked for
    (:func:`~planner.understanding.parse.parse_all`); once per tuple of texts (a reading asks for each task's)."""
    parse_all(_normal(t)[0] for t in texts)


_NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _normal(text: str) -> tuple[str, str]:
    """The text the parse reads (lower case, words and clause marks, a situation said as its request) and the polite
    opening cut from its front."""
    text = re.sub(r"(?<![\d.:])\b([2-8])\b(?![\d.:])", lambda m: _NUMBERS[int(m.group(1))], text)  # "2 eggs"
    text = re.sub(r"\s*(?:->|\u2192)\s*", " into ", text)  # "knife -> drawer": a note of where it goes
    t = " ".join(re.findall(r"[a-z']+|[&?!.:,;]|(?<=\s)[-\u2013\u2014](?=\s)", text.lower()))  # " - " ends a clause
    t = re.sub(r"\bw\b(?= )", "with", t)  # "w the spray bottle"
    t = situation(t).strip()  # "the plant's gone all limp": water the plant
    opening = _POLITE.match(t)  # "it'd be great if we could eat at the table": one request, not two clauses
    return (t[opening.end():], opening.group(0)) if opening else (t, "")


@lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[Clause, ...]:
    t, asked = _normal(text)
    out: list[Clause] = []
    p = parse(t)
    for ids, part in zip(p.clauses, p.clause_texts(), strict=True):
        stripped = _POLITE.sub("", part).strip()
        if stripped and out and _joined_thing(p, ids, out) and not (c := _clause(stripped, out[-1].verb in PUT)).verb:
            out[-1], c = _share_place(out[-1], c._replace(verb=out[-1].verb, purpose=out[-1].purpose,
                                                          request=out[-1].request, joined=True))
            out.append(c)
            asked = ""
            continue
        if stripped:
            c = _clause(stripped)
            first = stripped.split()[0]
            asked += part[: len(part) - len(stripped)]
            if not c.verb and (re.search(r"\b(?:want|need|like|love|fancy|do with|murder|say no to|chance of|mind)\b",
                                         asked) or
                               re.match(r"where(?:'s| is| are| r)\b", stripped)):
                c = c._replace(verb="get")  # "I need a tea towel", "where are the dumbbells": it is fetched
            polite = bool(asked) or bool(re.search(r"\b(?:please|pls|plz|thanks|thx)$", part))  # "lights pls"
            # a verb read from a terse note ("knife into drawer", "lamp on") is a request too
            derived = c.verb in ("off", "put", "store") and c.verb not in c.text.split()
            out.append(c._replace(request=polite or is_verb(parse(stripped).bases()[0]) or first in PHRASAL_FIRST or
                                  first in _IMPERATIVE or c.verb == "switch" or derived))
            asked = ""
    return tuple(out)


_TAKE = frozenset({"take", "grab", ""})
"""Verbs (or none) that only take a thing in hand ("pick up the fork", "grab the mug"): what is done with it next is
the request ("... and drop it in a drawer"); "get the toast going" is not one."""


def with_referents(cs: list[Clause]) -> list[Clause]:
    """The clauses with "it" / "them" standing for the previous clause's object ("put the candle on the table and
    light it": the candle is lit); "them" stands for every thing joined by "and" there ("gather up the fork and the
    spoon and drop them in a drawer": both go in). Things only taken or named to be acted on next are not fetched
    for themselves: the clause that names them by pronoun is what is done with them."""
    out: list[Clause] = []
    group: list[Clause] = []  # the last clause with an object, and the things joined to it
    for c in cs:
        if not c.obj and group and re.search(r"\b(it|them)\b", c.text):
            things = group if re.search(r"\bthem\b", c.text) else group[-1:]
            if c.verb and c.verb not in FETCH and all(g.verb in _TAKE for g in group):
                out = [o for o in out if all(o is not g for g in group)]  # "grab the fork ... drop it in a drawer"
            c = c._replace(obj=things[0].obj)
            out.append(c)
            out += [c._replace(obj=g.obj, joined=True) for g in things[1:]]
            group = [c]
            continue
        if c.obj:
            group = [*group, c] if c.joined and group else [c]
        out.append(c)
    return out


_TRAILING = re.compile(r"(?:\s+(?:please|pls|plz|thanks|thx|ta|now|asap|thank you|for me|x+))+$")
"""Politeness and urgency at the end of a clause."""
_IMPERATIVE = frozenset({"check", "show", "tell", "set", "look", "let", "go", "come", "remind", "wake", "start", "stop",
                         "sort", "deal", "fill", "empty", "use"})
"""Verbs the reader has no table for that still open a request ("check the time", "sort it out")."""

_MEALS = frozenset({"dinner", "lunch", "breakfast", "tea", "supper", "brunch", "later", "tonight"})
"""Words after "put X on for" that make it cooking, not switching on ("put the potatoes on for dinner")."""

_NOT_HEATED = frozenset({"room", "rooms", "house", "flat", "place", "bath", "bathroom", "bedroom", "kitchen",
                         "lounge", "car", "bed", "water"})
"""What "get the ... warm" does not heat with a stove or microwave (a room, a bath; living beings: :data:`LIVING`)."""

_CHORES = frozenset({"scrub", "wipe", "clean", "wash", "rinse", "dust", "polish", "sweep", "mop", "stir", "vacuum",
                     "mist", "spray", "water", "drink", "hoover"})
"""Chores given as a noun: "give the loo a good scrub" is "scrub the loo" ("give the dog a break" is not)."""


SPLIT_PARTICLES = frozenset(tuple(p.split()) for p, verb in PHRASAL.items() if verb in STATE_VERBS
                            and len(p.split()) == 2 and p.split()[1] in ("on", "off", "up", "down"))
"""Phrasal verbs that set a state (the ``phrasal`` table's two-word entries that read as a state verb: "turn off",
"flick on") and whose particle may follow the object ("turn the lamp off"), found by the parse's ``prt`` arc."""


def _particle_after_verb(part: str) -> str:
    """The text with a split phrasal verb's particle moved next to its verb (:data:`SPLIT_PARTICLES`), by the
    dependency parse: "switch the big light off" -> "switch off the big light"."""
    toks = parse(part).tokens
    for t in toks:
        head = toks[t.head]
        # the parse's particle arc, or the verb's last word ("flick both desk lamps on" parses "on" as a preposition)
        if ((t.dep == "prt" or (t.dep == "prep" and t is toks[-1])) and t.head < toks.index(t) - 1
                and (head.lemma.lower(), t.text.lower()) in SPLIT_PARTICLES):
            cut = part[:t.idx].rstrip() + part[t.idx + len(t.text):]
            at = head.idx + len(head.text)
            return f"{cut[:at]} {t.text}{cut[at:]}"
    return part


def _clause(part: str, put: bool = False) -> Clause:
    """One clause's verb and phrases (``put``: a verbless part is a thing joined to a placing verb's object, so its
    "to" names a place: "return the tomato and the lettuce to the fridge")."""
    part = _TRAILING.sub("", part)  # "telly on pls"
    # "put it away" is "put away it", "give the loo a good scrub" is "scrub the loo"
    part = re.sub(r"\b(throw|turn|switch|pick|heat|warm|clean|wash|dry|light|tidy|lock)\s+(it|them|this|that)\s+"
                  r"(away|out|on|off|up|down)\b", r"\1 \3 \2", part)
    part = re.sub(r"\bput\s+(it|them|this|that)\s+(away|out|up|down)\b", r"put \2 \1", part)  # "put it on" stays
    part = re.sub(r"\b(?:keep|keeps|start)\s+(\w+ing)\b",  # "keep stirring the sauce", not "keep nothing on it"
                  lambda m: m.group(1) if parse(part).base_at(m.start(1)) != m.group(1) else m.group(0), part)
    part = re.sub(r"\btoss\s+((?:\w+\s+){0,3}?)together\b", r"mix \1", part)  # "toss it all together": a salad
    # "get the pan hot", "get it boiling in a pot": the thing is heated, not fetched
    part = re.sub(r"\b(?:get|gets|getting|have|set)\s+((?:the|my|your|that|this|some)\s+(\w+)|it|them)\s+"
                  r"(hot|warm|heated|heating|boiling|simmering|frying)\b",
                  lambda m: m.group(0) if (m.group(2) or "") in _NOT_HEATED | LIVING else
                  f"{ {'hot': 'heat', 'warm': 'warm'}.get(m.group(3), parse(part).base_at(m.start(3)))} {m.group(1)}",
                  part)
    part = re.sub(r"\bgive\s+((?:the|my|your|this|that)\s+(?:\w+\s+){0,3}?\w+|it|them)\s+an?\s+"
                  r"(?:good\s+|quick\s+|proper\s+)?(\w+)",
                  lambda m: f"{m.group(2)} {m.group(1)}" if m.group(2) in _CHORES else m.group(0), part)
    part = _particle_after_verb(part)  # "switch the tv off" is "switch off the tv"
    for phrase, verb in PHRASAL.items():
        part = re.sub(rf"\b{phrase}\b", verb, part)
    part = re.sub(r"^(?:the\s+)?kettle on$", "boil the kettle", part)  # "Kettle on, love?"
    used = re.match(r"(?:use|using)\s+(.+?)\s+to\s+(\w+)\s*(.*)$", part)  # "use the watering can to water the plants"
    if used and parse(part).base_at(used.start(2)) in FRAMES:
        part = f"{used.group(2)} {used.group(3)} with {used.group(1)}".strip()
    words, bases = part.split(), parse(part).bases()
    purpose = next((b for m in re.finditer(r"\b(?:to|(?:something|anything|somewhere|anywhere|so) "
                                           r"(?:i|we|she|he) can|(?:thing|something|anything|stuff) for) "
                                           r"(?:help (?:to )?)?(\w+)", part)
                    if (b := parse(part).base_at(m.start(1))) in FRAMES), "")
    vi = next((i for i in range(min(4, len(words))) if _verb_at(words, bases, i)), None)
    verb = bases[vi] if vi is not None else ""
    if vi is not None and words[vi] in PUT and words[vi + 1:vi + 2] and words[vi + 1] in _DETERMINERS:
        verb = words[vi]  # "lay the book on the table": the placing verb, not the past of "lie" the parse reads
    rest = words[vi + 1:] if vi is not None else words
    toks = parse(part).tokens
    if (vi and words[vi] in ("on", "off") and verb in STATE_VERBS and len(toks) == len(words)
            and toks[vi - 1].pos not in ("VERB", "AUX")):  # "all the lights off": the words before it ("smells off" no)
        rest = words[:vi] + rest
    if purpose:
        rest = rest[: next(i for i, w in enumerate(rest + ["to"]) if w == "to")]
    on = rest.index("on") if "on" in rest[:4] else -1
    if (verb in PUT or not verb) and on > 0 and (on == len(rest) - 1 or (
            rest[on + 1] in ("for", "so", "while") and not set(rest[on + 1:]) & _MEALS)):
        verb, rest = "switch", rest[:on]  # "put the TV on", "lamp on", "put the telly on for the kids"
    if not verb and words and words[-1] == "away":  # "dirty laundry away"
        verb, rest = "store", words[:-1]
    if not verb and "into" in words[1:]:  # "knife into drawer": put there
        verb = "put"
    if not verb:  # "my hands are dirty", "it's too dark in here": the state names what would fix it
        verb = next((w for w in words if w in STATES), "")
    if (verb == "sit" and len(rest) > 2 and (rest[0] in _DETERMINERS or rest[0].endswith("'s"))
            and rest[1] not in LIVING
            and rest[1] not in ("down", "up", "back") and ("on" in rest or "in" in rest)):
        verb = "put"  # "sit the teddy bear on the bed": the teddy is put there ("sit on the sofa" is comfort)
    obj, instrument, places = _phrases(rest, put=verb in PUT or (put and not verb))
    where = places[0] if places else ("", "")
    return Clause(verb, obj, instrument, where[1], where[0], purpose, part, places=places)


def _phrases(words: list[str], put: bool = False) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    obj: list[str] = []
    instrument: list[str] = []
    places: list[tuple[str, list[str]]] = []
    into = obj
    for w in words:
        if w in ("with", "using"):
            into = instrument
        elif w in _WHERE or (put and w in ("under", "to")):  # "put the shoes under the bed", "return it to the fridge"
            places.append((w, []))
            into = places[-1][1]
        elif w in _REFERENCE:
            into = []
        elif w not in _ARTICLES:
            into.append(w)
    return " ".join(obj), " ".join(instrument), tuple((p, " ".join(ws)) for p, ws in places if ws)


__all__ = ["DISHES", "DISH_PREFERS", "FETCH", "FRAMES", "HUNG_ON", "MAKE", "OPEN", "OUT_OF_REACH", "PHRASAL", "PUT",
           "STATES",
           "REQUIRES_WHEN", "VERB_PREFERS", "VERB_REQUIRES", "WORD_PREFERS", "Clause", "clauses", "dish",
           "is_verb", "with_referents"]
