"""Where a directive's object ends up (:mod:`planner.understanding.directives`): the verbs of putting, the places named
after them, the movable receptacle it travels in (a bowl, a plate), and the change of state read from its path (put in
the fridge: cooled)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .directive_words import (
    _ARTICLES,
    _BOUNDARY,
    _CUES,
    _DETERMINERS,
    _DEVICES,
    _ENDS_FILL,
    _PORTIONS,
    _SKIP,
    _STOPS,
    ARROW,
    CLEAN,
    COOL,
    COOLERS,
    DISCARD,
    ENDS,
    HEAT,
    HEATERS,
    HOLD,
    KNIVES,
    LAMPS,
    LOOK,
    MODIFIERS,
    MOVABLES,
    NEGATION,
    PLACE_PREP,
    PUT,
    SLICE,
    SOURCE_PREP,
    WASHERS,
    _clause,
    _negated,
    _sentence,
)
from .vocabulary import Mention, Vocabulary, singular


@dataclass(frozen=True)
class _Place:
    at: int
    mention: Mention
    put: bool
    """Named in a clause with a verb of putting ("put it in the fridge"), not only walked to."""
    device: bool
    """A device used for the change of state in its clause ("rinse it in the sink")."""


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
