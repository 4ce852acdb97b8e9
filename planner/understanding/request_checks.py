"""Checks of a request's words that need no model: does it say what to do, and does it contradict itself?

The model reader (:mod:`.model_reader`) runs them before it asks a model, so a fragment ("the blue mug") or a
request that asks for opposite end states of one thing ("heat the milk and keep it cold", "wash the plate but
don't wash it") is "not understood" with the reason, never a plan a small model made up.

- :func:`says_what_to_do`: a verb (the tagger's, or a verb of the frame tables the tagger took for a noun: "toast
  bread", "Put Sam's ball away"), a state that asks for something ("it's dark in here"), a dish or drink ("coffee
  please") or a device switched on or off ("lamp on").
- :func:`contradiction`: one verb both asked for and negated on the same thing, or two opposite end states
  (hot / cold, on / off, open / shut, full / empty) of the same thing (or a pronoun for it), one of them to be
  kept ("keep it cold", "leave it off", "make it cold"): "open the fridge, take the milk and close it" is a
  sequence, not a contradiction. A state that describes a thing ("heat up the cold soup") is not asked for; a
  state after "let" ("boil it, then let it cool") neither.
"""

from __future__ import annotations

from .frames import FETCH, FRAMES, OPEN, PUT, STATES, dish
from .parse import Parse, Token, parse

SWITCH_WORDS = frozenset({"on", "off"})
_ACTIONS = frozenset(FRAMES) | FETCH | PUT | OPEN
"""The frame table's verbs and those of fetching, putting and opening, whatever the tagger calls them."""

SIDES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("heat", "warm", "boil", "reheat", "microwave", "cook", "fry", "bake", "toast", "hot", "warm",
                     "heated", "boiling", "cooked"), ("temperature", "hot")),
    **dict.fromkeys(("chill", "freeze", "refrigerate", "cold", "cool", "chilled", "frozen", "icy", "iced"),
                    ("temperature", "cold")),
    **dict.fromkeys(("on",), ("switch", "on")),
    **dict.fromkeys(("off",), ("switch", "off")),
    **dict.fromkeys(("open", "opened"), ("door", "open")),
    **dict.fromkeys(("close", "shut", "closed"), ("door", "shut")),
    **dict.fromkeys(("fill", "full", "filled"), ("contents", "full")),
    **dict.fromkeys(("empty", "emptied"), ("contents", "empty")),
}  # fmt: skip
"""Words that ask for an end state -> (what they set, the value): two values of one thing contradict."""

_PREDICATIVE = frozenset({"acomp", "oprd", "xcomp", "ccomp", "conj", "advmod", "prt", "ROOT"})
"""Dependencies of a state word that asks for it ("keep it cold", "leave the light on"); ``amod`` describes."""
KEEP = frozenset({"keep", "leave", "stay", "remain", "make", "want", "like"})
"""Verbs that ask for a state to hold at the end ("keep it cold"), not for a step on the way."""
_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those", "one"})
_THING_DEPS = frozenset({"dobj", "nsubj", "nsubjpass", "pobj", "attr"})


def says_what_to_do(text: str) -> bool:
    """Whether a request says what to do (see the module doc): False for "the blue mug", "apples", "kitchen"."""
    p = parse(text)
    words = [t.text.lower() for t in p.tokens]
    if any(_is_verb(t) or t.lemma.lower() in _ACTIONS for t in p.tokens):
        return True
    return bool(dish(text)) or any(w in STATES or w in SWITCH_WORDS for w in words)


def contradiction(text: str) -> str:
    """Why a request contradicts itself (see the module doc), or ""."""
    p = parse(text)
    asked: dict[str, list[str]] = {}
    negated: dict[str, list[str]] = {}
    for i, t in enumerate(p.tokens):
        if _is_verb(t) and t.lemma.lower() not in ("be", "do", "have", "let", "keep", "leave", "make", "get"):
            (negated if t.negated else asked).setdefault(t.lemma.lower(), []).append(_thing(p, i))
    for verb, things in asked.items():
        for thing in negated.get(verb, ()):
            if any(_same(thing, other) for other in things):
                return f"it asks to {verb} {_named(thing, things)} and not to"
    states = [(SIDES[w], _thing(p, i), w, _kept(p, i)) for i, t in enumerate(p.tokens)
              if (w := t.lemma.lower()) in SIDES and _asks_state(p, i)]
    for n, ((what, value), thing, word, kept) in enumerate(states):
        for (what2, value2), thing2, word2, kept2 in states[n + 1:]:
            if what == what2 and value != value2 and (kept or kept2) and _same(thing, thing2):
                named = _named(thing, [thing2])
                return f"it asks for both {word!r} and {word2!r}" + (f" of {named}" if named != "it" else "")
    return ""


def _is_verb(t: Token) -> bool:
    return t.pos in ("VERB", "AUX") or t.tag.startswith("VB")


def _asks_state(p: Parse, i: int) -> bool:
    """Whether the state word at ``i`` is asked for, not a description of a thing or a state that is not wanted."""
    t = p.tokens[i]
    if t.negated or (t.dep == "amod" and not _is_verb(t)):
        return False
    head = p.tokens[t.head]
    if head.lemma.lower() == "let" or (t.head != i and p.tokens[head.head].lemma.lower() == "let"):
        return False  # "boil it, then let it cool"
    return _is_verb(t) or t.dep in _PREDICATIVE


def _kept(p: Parse, i: int) -> bool:
    """Whether the state word at ``i`` is to hold at the end: governed by a verb of :data:`KEEP`."""
    t = p.tokens[i]
    return not _is_verb(t) and p.tokens[t.head].lemma.lower() in KEEP


def _thing(p: Parse, i: int) -> str:
    """The thing a verb or state word at ``i`` is about: its object or subject, else its verb's (lower case)."""
    for at in (i, p.tokens[i].head):
        for t in p.tokens:
            if t.head == at and t.dep in _THING_DEPS and t.pos in ("NOUN", "PROPN", "PRON"):
                return t.text.lower()
    return ""


def _same(a: str, b: str) -> bool:
    """Two things a request names are the same one: the same word, or either a pronoun or left unsaid."""
    return a == b or not a or not b or a in _PRONOUNS or b in _PRONOUNS


def _named(thing: str, things: list[str]) -> str:
    named = next((t for t in (thing, *things) if t and t not in _PRONOUNS), "")
    return f"the {named}" if named else "it"


__all__ = ["SIDES", "contradiction", "says_what_to_do"]
