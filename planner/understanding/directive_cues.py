"""What a directive's words say of its object (:mod:`planner.understanding.directives`): which thing it is, the
changes of state asked of it, whether it is examined under a lamp, whether two are meant; and the wording around it
(a question, a condition, a wish, politeness)."""

from __future__ import annotations

from collections.abc import Collection

from .directive_places import _marker, _put_at, _put_before
from .directive_words import (
    _ARTICLES,
    _BOUNDARY,
    _CUES,
    _DETERMINERS,
    _DEVICES,
    _LINKS,
    _PORTIONS,
    _SKIP,
    _STOPS,
    CLEAN,
    CONDITIONS,
    COOL,
    DISH_NOUNS,
    HEAT,
    HOLD,
    KNIVES,
    KNOWING,
    LAMPS,
    LOOK,
    MODIFIERS,
    PAIRED,
    PLACE_PREP,
    PUT,
    SLICE,
    SOURCE_PREP,
    SWITCH,
    WANT,
    _clause,
    _negated,
    _sentence,
)
from .vocabulary import Mention, singular


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


def _heads(mentions: list[Mention]) -> list[Mention]:
    """Drop a type word that only modifies the next one ("the glass table", "the soap dish", "the egg cup")."""
    return [m for m, n in zip(mentions, [*mentions[1:], None], strict=False) if n is None or n.start != m.end]


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


def _terse(words: list[str], mentions: list[Mention]) -> bool:
    """A goal with no verb: "apple slice on plate", "A heated mug on the coffee table.", "wash plate; cabinet" (the
    first object within five words, only articles, counts, state and slice words before it)."""
    if words[0] in CLEAN | HEAT | COOL | SLICE or words[0] == "microwave":
        return True
    first = min((m.start for m in mentions), default=len(words))
    lead = {"two", "both", "a", "an", "the", "one", "some", "of"} | CLEAN | HEAT | COOL | SLICE | MODIFIERS
    return first <= 5 and all(w in lead for w in words[:first])


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
