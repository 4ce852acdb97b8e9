"""The evidence a request gives the reader (:class:`_Evidence`) and how it is gathered (:class:`_EvidenceReader`):
each clause's verb frame, the things it names, where it puts them and what it rules out ("not the big knife"); the
nearest worked example and COAT task; the role classifier when nothing else read a role; what the verbs imply
together (a liquid needs a vessel, "too dark" a light)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..knowledge.task_specs import ACTS_ON_TARGET, STATE_WORDS, SWITCHED, TASK_TARGETS
from ..schemas import Target, canonical_object_name, thor_object_name
from .counts import counts_in, with_counts
from .frames import (
    DISH_PREFERS,
    DISHES,
    FETCH,
    FRAMES,
    HUNG_ON,
    MAKE,
    OPEN,
    OUT_OF_REACH,
    PUT,
    REQUIRES_WHEN,
    STATE_VERBS,
    STATES,
    VERB_PREFERS,
    VERB_REQUIRES,
    WORD_PREFERS,
    Clause,
    clauses,
    dish,
    prime_clauses,
    with_referents,
)
from .gathered import _Evidence
from .memo import task_frames
from .parse import parse
from .vocabulary import LIQUIDS, Mention, Vocabulary

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from .examples import Request

PARAPHRASE = 0.75
"""Nearest-task similarity above which the request is read as that COAT task's paraphrase (its roles added)."""
NEAREST = 0.45
"""Nearest-task similarity above which a request with no verb frame takes that task's roles."""
EXAMPLE = 0.75
"""Similarity to the nearest worked example above which its roles are added."""
EXAMPLE_NO_FRAME = 0.55
"""... or, for a request with no verb frame, above which they are taken."""
ROLE_EXAMPLE = 0.6
"""Similarity to the nearest worked example with a role above which that example's accepted types are the role's
preferred types (when nothing else named any)."""
ROLE_SCORE = 0.5
"""Role-classifier score (:mod:`planner.understanding.classifier`) above which a utility is read when nothing
else read a role."""
TARGET_SCORE = 0.3
"""Target-classifier score above which the best-scored type (or liquid) is the target of a request that names none
while a role acts on one ("toast pls": Bread). ``scripts/target_classifier_cv.py`` chose it with
:data:`~planner.understanding.classifier.TARGET_L2` (10 folds over the ``dev`` requests the reader leaves with no
target)."""

_GIVE = frozenset({"bring", "fetch", "get", "grab", "pass", "hand", "give"})
"""Verbs that hand a thing to the person (not "find somewhere to put my laptop")."""
_FROM = frozenset({"off", "from", "out"})
"""Words before a thing named in an object phrase that make it where the object is, not a second object."""
_PLACES = frozenset({"storage", "surface_support", "disposing", "carrying"})
"""Utilities whose role's object is where the target ends (their goals put it there)."""
_FOOD = frozenset({"Apple", "Bread", "Egg", "Potato", "Tomato", "Lettuce", "Cake"})
_PAST = re.compile(r"^(?:i|we|you|they)\s+(?:had|ate|made|cooked)\b|\byesterday\b|\blast night\b")
"""A dish in a clause with these words is told about, not asked for ("I had pasta for lunch yesterday")."""
_ELECTRIC_LIGHTS = ("LightSwitch", "DeskLamp", "FloorLamp")
_LANDMARK = re.compile(r"\b(?:over|above|on|onto|in|by|behind|under|beside|next to|near)\b")
"""A place named relative to something ("hang the towel over the bath"): not a bare "hang it up"."""
_WHERE_GOES = re.compile(r"\bwhere (?:do|does|should|can) (?:i |we )?(?:put |keep )?(?:my |the |these |this |those )?"
                         r"(?:\w+ ){0,3}?(?:go|live|belong|be kept)\b")
_WARM_FOOD = re.compile(r"\bsomething (?:warm|hot|soft and warm|warm and soft) "
                        r"(?:to eat|for (?:lunch|dinner|breakfast))\b")
_TOO_DARK = re.compile(r"\b(?:too|so|really|getting|far too|way too) (?:dark|dim|gloomy)\b")
_FINE = re.compile(r"\b(?:the |a )?((?:\w+ )?\w+)(?:'s| is) (?:fine|ok|okay|good)\b(?! (?:thanks|now))")
"""A named thing the request says will do ("the microwave's fine"): it wins ties."""
_WET = frozenset({"bath", "bathtub", "tub", "shower", "wet", "swim", "swimming", "pool", "rain", "soaked"})
"""Words that make shivering or dripping a need for a towel."""
_KNOCKED_OVER = re.compile(r"\bknock(?:ed)?\s+(?:(?:my|the|a|his|her|their|your|some|that)\s+)?(?:\w+\s+){0,2}over\b|"
                           r"\bknocked over\b")
"""A drink or a pot knocked over: something to wipe it up."""
_BODY = frozenset({"off", "face", "hands", "hand", "hair", "body", "myself", "yourself", "feet", "legs", "arms"})
"""Words that make "dry" a person drying themself (a towel), not drying dishes."""
_CRACKED = frozenset({"fry", "scramble", "poach", "beat", "whisk"})
"""Verbs whose eggs are cracked first (boiled eggs are not)."""
_PAN_DISHES = frozenset({"egg", "eggs", "omelette", "omelet", "pancake", "stew", "soup", "pasta", "rice", "leftovers",
                         "milk", "sauce", "beans", "butter"})

_ANY = re.compile(r"\b(?:anything|anywhere|something|somewhere|another|else)\b")
_EXCEPT = re.compile(r"\b(?:not|never|with no|without|don't use|dont use|do not use|except|instead of|rather than|"
                     r"other than|(?:anything|anywhere|everything|something|somewhere) but)\s+"
                     r"(?:(?:the|a|an|my|that|this|those|these|your|any)\s+)?(?:\w+\s+){0,2}?$")
"""What rules out the object named right after it ("not the big knife", "anywhere but the floor")."""


_OVEN = re.compile(r"\boven\b(?<!microwave oven)", re.IGNORECASE)
"""An oven that is not a microwave oven."""


def _ruled_out(text: str, words: str) -> bool:
    """Whether the mention ``words`` is ruled out in the clause: it follows "not", "don't use", "anything but" ...
    with at most two words (its adjectives) between."""
    at = re.search(rf"\b{re.escape(words)}\b", text)
    return at is not None and _EXCEPT.search(text[: at.start()]) is not None


def _negated(text: str, prep: str, words: str) -> bool:
    """Whether "``prep`` ... ``words``" is negated in the clause's parse ("not in the fridge", "don't leave it on the
    bed"; "don't forget to put the milk in the fridge" negates the forgetting), unless the negation asks ("why
    don't you put it in the fridge")."""
    at = re.search(rf"\b{re.escape(prep)}\s+(?:\w+\s+){{0,3}}?{re.escape(words)}\b", text)
    tok = next((t for t in parse(text).tokens if at is not None and t.idx == at.start()), None)
    return tok is not None and tok.negated and not re.search(r"(?:n't|not)\s+you\b", text)


def _unit(m: Mention, phrase: str) -> bool:
    """Whether ``m`` is a measure word ("a glass of", "a cup of"), not the thing asked for."""
    return not m.liquid and f"{m.words} of " in f"{phrase} "  # not "the mug off the desk"


class _EvidenceReader:
    """Gathers the evidence of a request; mixed into :class:`~planner.understanding.reader.TaskReader`, whose
    attributes these are."""

    kb: KnowledgeBase
    vocab: Vocabulary
    tasks: tuple[str, ...]
    task_utilities: dict[str, tuple[str, ...]]
    examples: tuple[Request, ...]
    _excluded: frozenset[str]
    _types_with: Callable[[str], frozenset[str]]

    def _evidence(self, text: str, tasks: list[str], task_sims: list[float], ex_sims: list[float],
                  role_scores: dict[str, float], target_scores: dict[str, float] | None = None) -> _Evidence:
        ev = _Evidence(roles={}, targets=[], notes=[], frame=False, text=text,
                       task_sims=dict(zip(tasks, task_sims, strict=True)))
        read = with_referents(clauses(text))  # "put the candle on the table and light it": it is the candle
        ev.expected = tuple(dict.fromkeys(u for c in read for u in (*FRAMES.get(c.purpose or c.verb, ()),
                                                                    *(u for w in c.text.split() for u in
                                                                      STATES.get(w, ())))))
        ev.asks = any(c.request for c in read)
        for clause in read:
            ev.request = ev.request or clause.request
            self._clause(clause, ev)
        ev.own_words = bool(ev.set_states) or (bool(read) and ev.explicit >= len(read))  # nothing to borrow
        self._example(ev, ex_sims)
        best = max(range(len(tasks)), key=task_sims.__getitem__) if tasks else None
        if best is not None:
            sim, task = task_sims[best], tasks[best]
            if not ev.own_words and (sim >= PARAPHRASE or (not ev.frame and sim >= NEAREST)):
                for u in self.task_utilities[task]:
                    ev.roles.setdefault(u, ())
                    ev.sources.setdefault(u, task)
                ev.notes.append(f"roles of the nearest COAT task {task!r} (similarity {sim:.2f})")
                if not ev.targets:
                    ev.targets = [Target(name=t.name, types=t.types, liquid=t.liquid, sliced=t.sliced)
                                  for t in TASK_TARGETS.get(task, ((), (), ""))[0]]
        if not ev.roles and not ev.place and not ev.own_words:  # nothing read a role: the classifier's utilities
            for u, s in sorted(role_scores.items(), key=lambda p: -p[1]):
                if s >= ROLE_SCORE:
                    ev.roles[u] = ()
                    ev.notes.append(f"{u}: the role classifier's score {s:.2f}")
        self._implicit_target(ev, target_scores or {})
        self._adjust(text, ev)
        ev.targets = with_counts(ev.targets, ev.counts)
        self._role_examples(ev, ex_sims)
        if _OVEN.search(text) and "heating(source)" in ev.roles:  # COAT lists an oven, AI2-THOR has none
            ev.notes.append("'oven': AI2-THOR kitchens have no oven, so the microwave stands in")
        return ev

    def _implicit_target(self, ev: _Evidence, scores: dict[str, float]) -> None:
        """The target classifier's best type when the request names no target and places nothing, but a role acts on
        a target (:data:`~planner.knowledge.task_specs.ACTS_ON_TARGET`): "toast pls" toasts bread, "I'm thirsty"
        wants water; without one such a role's object would only be brought."""
        if ev.targets or ev.place or ev.fetched or not scores or not ACTS_ON_TARGET & set(ev.roles):
            return
        best = max(scores, key=lambda t: (scores[t], t))
        if scores[best] < TARGET_SCORE:
            return
        if best in LIQUIDS.values():
            ev.targets.append(Target(name="liquid", types=(best,), liquid=True))
        else:
            ev.targets.append(Target(name="plant" if best == "HousePlant" else "target", types=(best,)))
        ev.notes.append(f"target {best}: the target classifier's score {scores[best]:.2f} (the request names none)")

    def _role_examples(self, ev: _Evidence, ex_sims: list[float]) -> None:
        """A role nothing else gave preferred types takes those a person accepted for the same role in the nearest
        worked example that has it ("my nose won't stop running": the tissues of "pass me something for my
        nose"), when that example is close enough (:data:`ROLE_EXAMPLE`)."""
        for u in ev.roles:
            if ev.prefer.get(u):
                continue
            near = [(s, e) for s, e in zip(ex_sims, self.examples, strict=True) if e.acceptable.get(u)]
            if not near:
                continue
            sim, ex = max(near, key=lambda p: p[0])
            if sim >= ROLE_EXAMPLE:
                ev.prefer[u] = tuple(ex.acceptable[u])
                ev.notes.append(f"{u}: prefers {', '.join(ex.acceptable[u])}, accepted in a similar labelled "
                                f"request ({ex.id}, similarity {sim:.2f})")  # its id: a reason never quotes dev text

    def _example(self, ev: _Evidence, ex_sims: list[float]) -> None:
        """The nearest worked example (a ``dev`` request) adds its roles when it is close enough, and the types
        a person accepted for them win ties."""
        best = max(range(len(ex_sims)), key=ex_sims.__getitem__, default=None)
        if best is None:
            return
        ex, sim = self.examples[best], ex_sims[best]
        if (ex.kind == "nonsense" or ev.place or ev.own_words
                or not (sim >= EXAMPLE or (not ev.frame and sim >= EXAMPLE_NO_FRAME))):
            return
        new = [u for u in ex.roles if u not in ev.roles]
        for u in ex.roles:
            ev.roles.setdefault(u, ())
            accepted = tuple(t for t in ex.acceptable.get(u, ()) if t not in ev.prefer.get(u, ()))
            if accepted:
                ev.prefer[u] = ev.prefer.get(u, ()) + accepted
        ev.frame = ev.frame or bool(ex.roles)
        ev.notes.append(f"{', '.join(new) or 'roles'}: as in a similar labelled request ({ex.id}, similarity "
                        f"{sim:.2f})")

    def _clause(self, c: Clause, ev: _Evidence) -> None:
        verb = c.purpose or c.verb
        ev.verbs.add(verb)
        said = re.findall(r"[a-z]+", c.obj)
        obj = [m for m in self.vocab.mentions(c.obj)  # "the mug off the desk": the desk is where it is
               if not (m.start and said[m.start - 1] in _FROM)]
        ev.counts.update(counts_in(c.obj, obj))
        ev.joined = c.joined
        # a statement that a thing was left or put somewhere says where it is now ("Tom's left his dumbbells on the
        # floor"), not where it goes; with no thing named the place is the person's ("I'll watch from bed"), with
        # another verb or none it is where that is done or wanted ("salt shaker goes in a drawer")
        here = c.request or not ev.asks or not obj or verb not in PUT
        made = dish(c.obj or c.text) if verb in MAKE or (not verb and not _PAST.search(c.text)) else ""
        if made and any(f" {made} " in f" {m.words} " and m.words != made for m in obj):
            made = ""  # "make the coffee table look nice"
        following = f" {c.obj or c.text} ".split(f" {made} ", 1)[-1].split() if made else []
        if following and self.vocab.mentions(following[0]):
            made = ""  # "a tea towel", "the soup bowl": the dish word names a kind of object
        served = ("carrying",) if made else ()  # "a hot chocolate in my mug": a made drink's cup or mug serves it
        where = self.vocab.mentions(c.where)
        tool = self.vocab.mentions(c.instrument)
        units = [m for m in obj if _unit(m, c.obj)]
        obj = [m for m in obj if not _unit(m, c.obj)]  # "a glass of water": the water is what is asked for
        ruled_out = [m for m in (*obj, *tool) if not m.liquid and _ruled_out(c.text, m.words)]
        for m in ruled_out:  # "not the big knife", "don't use the microwave", "the bat rather than the racket"
            for u in self.kb.utilities:  # whichever role it could fill: it fills none
                if set(map(canonical_object_name, m.types)) & set(self.kb.utility_objects(u)):
                    ev.avoid[u] = tuple(dict.fromkeys((*ev.avoid.get(u, ()), *m.types)))
            ev.notes.append(f"not {m.words!r}")
        obj = [m for m in obj if m not in ruled_out]
        tool = [m for m in tool if m not in ruled_out]
        if ruled_out and not obj and (verb in FETCH or verb in PUT or _ANY.search(c.text)):
            # "bring me anything but the red mug", "anywhere but the floor": something else of its kind is wanted
            u = self._utility_of(ruled_out[0].types, prefer=(*ev.expected, *ev.roles))
            if u is not None:
                self._avoid(ev, u, ruled_out[0].types, f"not {ruled_out[0].words!r}")
        poured = [m for m in tool if m.liquid]
        if verb == "fill" and poured and obj:  # "fill the kettle with water": the water goes in the kettle
            self._target(poured[0], ev)
            ev.roles["carrying"] = tuple(dict.fromkeys((*ev.roles.get("carrying", ()), *(t for m in obj
                                                                                          for t in m.types))))
            ev.explicit, ev.frame = ev.explicit + 1, True
            ev.notes.append(f"carrying: fill {c.obj!r} with {poured[0].words!r}")
            return
        if (FRAMES.get(verb) == ("disposing",) and where and c.prep in ("in", "into", "on", "onto")
                and self._utility_of(where[0].types, only=("disposing",)) is None):
            verb = "put"  # "chuck them in the washing basket": the place named, not the bin
        elif verb in FETCH and where and obj and c.prep in ("into", "onto"):  # "on the desk" says where it is now
            verb = "put"  # "get the dirty clothes into the hamper": moved there, not brought
        named, alone = {w for m in obj for w in m.words.split()}, False
        if not verb and not made and obj and not c.places and len(set(c.obj.split()) - named) <= 1:
            verb, alone = "get", True  # "lights pls", "loo roll", "the big towel": a thing named alone is asked for
        if not made and (verb in STATE_VERBS or verb in OPEN or (verb in FETCH and not c.purpose)):
            for m in obj:  # the named device or thing is the role's object
                switch = verb in STATE_VERBS or verb in OPEN  # a fetched laptop is for the email the request writes
                u = self._utility_of(m.types, prefer=("light_source", "entertainment") if switch else ev.expected)
                if m.liquid:
                    self._target(m, ev)
                    ev.roles.setdefault("carrying", ())
                elif switch and self._set_state(m, verb, u, ev):
                    pass
                elif verb in _GIVE and not alone and u in SWITCHED and set(m.types) & self._types_with("pickupable"):
                    # "fetch my phone": brought, not switched on ("lights pls", "get the tv on" are)
                    self._bring(m, ev)
                elif u is not None:  # "turn on the lamp and open the blinds": both can light the room
                    ev.roles[u] = tuple(dict.fromkeys((*ev.roles.get(u, ()), *m.types)))
                    ev.notes.append(f"{u}: {m.words!r} named ({verb})")
                    ev.frame = True
                    ev.fetched |= not switch and u == "carrying"  # "bring me the mug": the mug itself, no target
                elif m.types[0] in _FOOD:
                    self._target(m, ev)
                elif verb in _GIVE and set(m.types) & self._types_with("pickupable"):  # no role of COAT's: the thing
                    self._bring(m, ev)  # itself is brought ("bring me the hairdryer"; not "got out the shower")
            if verb in FETCH and not obj and not c.places:
                return
            if verb == "switch" and not obj:  # "put some music on": what is switched on names the utility
                for u in dict.fromkeys(u for w in c.obj.split() for u in FRAMES.get(w, ())):
                    ev.roles.setdefault(u, ())
                    ev.frame = True
                    ev.notes.append(f"{u}: {c.obj!r} on")
        elif verb == "hang" and not (c.where or c.places or ev.place or _LANDMARK.search(c.text)) and (hung := [
                m for m in obj if m.types[0] in HUNG_ON and not _ruled_out(c.text, m.words)]):
            ev.placed = self._placed(hung[0], ev)  # "hang the towel up": on its holder, nothing to climb on
            ev.place = HUNG_ON[hung[0].types[0]]
            ev.frame = True
            ev.notes.append(f"hang {hung[0].words!r}: on the {ev.place[0]}, the only place AI2-THOR hangs it")
            return
        elif verb in PUT and where and (here or _negated(c.text, c.prep, where[0].words)
                                        or _ruled_out(c.text, where[0].words)):
            for m in obj:
                self._target(m, ev)
            order = ("surface_support", "storage") if c.prep in ("on", "onto", "at") else ("storage", "surface_support")
            u = self._utility_of(where[0].types, prefer=(*order, "heating(source)", "washing", "disposing"),
                                 only=order if c.prep in ("on", "onto") and "Toilet" in where[0].types else None)
            ev.frame = True  # a candle "on the toilet" stands on it: it is neither washed nor flushed
            if u is None:  # COAT knows no utility of the place, so no role is bound
                targets = [m for m in obj if not m.liquid]
                if targets and not ev.place and self._receptacle(where[0].types):  # "the towel on the towel holder"
                    ev.place, ev.placed = where[0].types, self._placed(targets[0], ev)
                    ev.notes.append(f"put {c.obj!r} {c.prep} {where[0].words!r}: COAT gives the place no utility, so "
                                    f"the goal is the {targets[0].words} {c.prep} it")
                else:  # "leave a note on the mirror"
                    ev.notes.append(f"put {c.obj!r} {c.prep} {where[0].words!r}: COAT gives the place no utility")
                return
            if _negated(c.text, c.prep, where[0].words) or _ruled_out(c.text, where[0].words):  # "not on the bed"
                self._avoid(ev, u, where[0].types, f"not {c.prep} {where[0].words!r}")
                return
            # "on the desk or the side table": every place offered that can serve the same utility
            also = [m for m in where[1:] if re.search(rf"\bor (?:\w+ ){{0,2}}{re.escape(m.words)}\b", c.where)
                    and not _ruled_out(c.text, m.words) and self._utility_of(m.types, only=(u,)) == u]
            ev.roles[u] = tuple(dict.fromkeys(t for m in (where[0], *also) for t in m.types))
            ev.explicit += bool(obj)
            ev.notes.append(f"{u}: put {c.obj!r} {c.prep} " + " or ".join(repr(m.words) for m in (where[0], *also)))
            solids = [m for m in obj if not m.liquid]
            if u not in _PLACES and solids and not ev.place and self._receptacle(where[0].types):
                # "leave the soap in the bath", "put the pan on the stove": a place that washes or heats still ends
                # holding what was put there
                ev.place, ev.placed = where[0].types, self._placed(solids[0], ev)
            return
        utilities = FRAMES.get(verb) or STATES.get(verb, ())
        if made:
            utilities = tuple(dict.fromkeys((*FRAMES.get(verb, ()), *DISHES[made])))
            ev.frame = True
            ev.notes.append(f"{', '.join(utilities)}: making {made!r}")
        elif utilities:
            ev.frame = True
            ev.state = ev.state or verb not in FRAMES
            ev.notes.append(f"{', '.join(utilities)}: the {'verb' if verb in FRAMES else 'state'} {verb!r}")
        for u in utilities:
            ev.roles.setdefault(u, ())
        needed = VERB_REQUIRES.get(verb, ()) if verb not in REQUIRES_WHEN or \
            REQUIRES_WHEN[verb].search(ev.text.lower()) else ()
        u = self._utility_of(needed, only=utilities) if needed else None
        if u is not None and not ev.roles.get(u):  # "vacuum the rug": only a vacuum cleaner vacuums
            ev.roles[u] = needed
            ev.notes.append(f"{u}: only {' or '.join(needed)} can {verb}" if verb in FRAMES else
                            f"{u}: only {' or '.join(needed)} helps when it is {verb!r}")
        if verb not in FETCH and verb not in STATE_VERBS and verb not in OPEN:
            heated = ("heating(vessel)",) if "heating(source)" in utilities else ()  # "zap the mug": it heats in it
            for m in obj:
                serves = served if set(m.types) & {"Cup", "Mug"} else ()
                own = self._utility_of(m.types, prefer=(*serves, *utilities, *heated),
                                       only=(*serves, *utilities, *heated))
                if own is not None and not m.liquid:  # "light the candle", "watch the tv": the role's own object
                    ev.roles[own] = m.types
                    ev.notes.append(f"{own}: {m.words!r} named")
                else:
                    self._target(m, ev)
        for m in units:  # "boil a pot of water": the pot is the vessel; "pour me a glass of water": the glass carries
            heats = "heating(source)" in FRAMES.get(verb, ())  # the verb heats it (a made cup of tea is served)
            u = self._utility_of(m.types, prefer=("heating(vessel)",) if heats else ("carrying",))
            if u is not None and not ev.roles.get(u):
                ev.roles[u] = m.types
                ev.notes.append(f"{u}: {m.words!r} of it")
        for m in tool:  # "stir the pot ... with the spoon please": the spoon stirs (a role read before)
            u = self._utility_of(m.types, prefer=(*utilities, *ev.roles))
            if u is not None:
                ev.roles[u] = m.types
                ev.notes.append(f"{u}: with {m.words!r}")
        for prep, phrase in c.places:
            on = prep in ("on", "onto", "at")
            for m in self.vocab.mentions(phrase):
                # "melt butter in a pan": the pan heats it (unless an earlier clause named the vessel already)
                heats = ("heating(vessel)" in ev.roles or "heating(source)" in utilities) and not ev.roles.get(
                    "heating(vessel)")
                vessel = ("heating(vessel)",) if heats else ()
                if served and set(m.types) & {"Cup", "Mug"}:
                    vessel = served
                if verb in ("crack", "break") and prep in ("in", "into") and not heats:  # "crack eggs into a bowl"
                    vessel = ("mixing(vessel)",)
                u = self._utility_of(m.types, prefer=(*vessel, *utilities, "heating(source)", "washing", "carrying",
                                                      "comfort",
                                                      *(("surface_support", "storage") if on else ("storage",))))
                if u is not None and not m.liquid and m.types[0] not in _FOOD:
                    if _negated(c.text, prep, m.words) or _ruled_out(c.text, m.words):  # "not in the fridge"
                        u = self._utility_of(m.types, only=tuple(ev.roles)) or u  # "on the desk, not on the bed"
                        self._avoid(ev, u, m.types, f"not {prep} {m.words!r}")
                        continue
                    if here:
                        ev.roles[u] = m.types
                        ev.notes.append(f"{u}: {prep} {m.words!r}")
        for u in utilities:
            self._task_roles(u, verb, ev)
        self._companions(verb, ev)
        self._prefer(ev, (*VERB_PREFERS.get(verb, ()), *DISH_PREFERS.get(made, ())))
        if not verb:  # "... not the hand towel. A towel, the big one": a thing named alone is the one wanted
            self._prefer(ev, [t for m in obj for t in m.types])

    def _avoid(self, ev: _Evidence, u: str, types: tuple[str, ...], said: str) -> None:
        """The request rules ``types`` out for role ``u``, and still needs the role ("not in the fridge":
        somewhere else to store it)."""
        ev.roles.setdefault(u, ())
        ev.avoid[u] = tuple(dict.fromkeys((*ev.avoid.get(u, ()), *types)))
        ev.frame = True
        ev.notes.append(f"{u}: {said}, so no {' or '.join(types)}")

    def _prefer(self, ev: _Evidence, types: Iterable[str]) -> None:
        """Add each type to the preferred types of the read role it can serve (ties only; a role whose types
        are fixed by what was named keeps them)."""
        for t in types:
            u = self._utility_of((t,), only=tuple(ev.roles))
            if u is not None and not ev.roles[u] and t not in ev.prefer.get(u, ()):
                ev.prefer[u] = (*ev.prefer.get(u, ()), t)

    def _companions(self, verb: str, ev: _Evidence) -> None:
        """The roles every COAT task named with this verb alone needs too ("wash": washing dishes and washing your
        face both need something to clean with as well as somewhere to wash)."""
        frame = set(FRAMES.get(verb, ()))
        if not frame:
            return
        same = [t for t in self.tasks if t not in self._excluded and (f := self._task_frames(t)) and f <= frame
                and frame & set(self.task_utilities[t])]
        if not same:
            return
        common = set.intersection(*(set(self.task_utilities[t]) for t in same)) - set(ev.roles)
        for u in sorted(common):
            ev.roles[u] = ()
            ev.notes.append(f"{u}: every COAT task that is only {verb!r} needs it ({', '.join(same[:2])} ...)")

    def _task_frames(self, task: str) -> frozenset[str]:
        """The utilities the verbs of a COAT task's name call for ("cooking & serving toast": heating, carrying);
        the first call parses every task name in one batch."""
        prime_clauses(self.tasks)
        return task_frames(task)

    def _task_roles(self, utility: str, verb: str, ev: _Evidence) -> None:
        """The roles of the smallest COAT task of ``utility`` that does the same (by its verbs) to the same target:
        "washing dishes" for "wash the mug" (a sponge too), not "serving cake" for "cut the cake"."""
        target = next((t for t in ev.targets if t.name == "target"), None)
        if target is None:
            return
        fits = [t for t in self.kb.tasks(utility)
                if t not in self._excluded
                and any(set(x.types) & set(target.types) for x in TASK_TARGETS.get(t, ((), (), ""))[0])
                and self._task_frames(t) <= set(FRAMES.get(verb, ()))]
        if not fits:
            return
        # the fewest roles (only what was asked for), then the nearest to the request
        task = min(fits, key=lambda t: (len(self.task_utilities[t]), -ev.task_sims.get(t, 0.0), t))
        new = [u for u in self.task_utilities[task] if u not in ev.roles]
        for u in new:
            ev.roles[u] = ()
        for u in self.task_utilities[task]:
            ev.sources.setdefault(u, task)
        if new:
            ev.notes.append(f"{', '.join(new)}: COAT's {task!r} acts on the {target.types[0]} too")

    def _role_sets(self, state: tuple[str, bool], u: str | None, types: Iterable[str]) -> bool:
        """Whether a thing of ``types`` set to ``state`` is the object of its role ``u`` instead of a target: a light
        source or a screen switched on or opened (blinds) is, another may stand in for it; a thing that both opens
        and switches (a laptop, a microwave) opened is not: there, open and on differ."""
        both = self._types_with("openable") & self._types_with("toggleable")
        return state[1] and u in SWITCHED and not (state[0] == "isOpen" and set(types) <= both)

    def _set_state(self, m: Mention, verb: str, u: str | None, ev: _Evidence) -> bool:
        """A state verb on a named thing ("turn off the lamp", "open the fridge", "shut the laptop"): the thing is a
        target that ends in the verb's state (:data:`STATE_VERBS`), unless it is switched on or opened to light the
        room or entertain (:meth:`_role_sets`)."""
        state = STATE_VERBS.get(verb)
        if state is None:
            return False
        if self._role_sets(state, u, m.types):
            n = ev.counts.get(m.types)
            if n is not None and n != 1 and ev.set_state(m.types, state):  # "light all the candles": each one
                ev.notes.append(f"{m.words!r} {verb}: {n} of them end {STATE_WORDS[state]}")
            return False
        if not ev.set_state(m.types, state):
            return True
        ev.explicit += 1
        ev.frame = True
        ev.notes.append(f"{m.words!r} {'on' if state == ('isToggled', True) else verb}: it ends {STATE_WORDS[state]}")
        return True

    def _placed(self, m: Mention, ev: _Evidence) -> str:
        """The name of the target for the thing ``m`` put on a place: the task's target when it is that thing, else
        a new ``placed`` target (another clause's thing is the target)."""
        self._target(m, ev)
        same = next((t.name for t in ev.targets if not t.liquid and set(t.types) == set(m.types)), None)
        if same is not None:
            return same
        ev.targets.append(Target(name="placed", types=m.types))
        return "placed"

    def _bring(self, m: Mention, ev: _Evidence) -> None:
        """The named thing is a target fetched for the person: it ends with the robot."""
        self._target(m, ev)
        ev.brought += [t.name for t in ev.targets if t.types == m.types and t.name not in ev.brought][:1]
        ev.explicit += 1
        ev.frame = True
        ev.notes.append(f"bring {m.words!r}")

    def _target(self, m: Mention, ev: _Evidence) -> None:
        if m.liquid:
            if not any(t.liquid for t in ev.targets):
                ev.targets.append(Target(name="liquid", types=m.types, liquid=True))
        elif "HousePlant" in m.types:
            if not any(t.name == "plant" for t in ev.targets):
                ev.targets.append(Target(name="plant", types=m.types))
        elif not any(t.name == "target" for t in ev.targets):
            ev.targets.append(Target(name="target", types=m.types))
        elif ev.joined and not any(t.types == m.types for t in ev.targets):  # "the remote and my phone"
            taken = {t.name for t in ev.targets}
            name = next(f"target{k}" for k in range(2, len(taken) + 3) if f"target{k}" not in taken)
            ev.targets.append(Target(name=name, types=m.types, same_as="target"))

    def _adjust(self, text: str, ev: _Evidence) -> None:
        """What the verbs imply together: a liquid or a pan dish needs a vessel; watering needs water."""
        words = dict.fromkeys(w.strip("?!.,;:'") for w in text.lower().split())  # in text order: ties are stable
        liquid = any(t.liquid for t in ev.targets)
        if any(t.name == "plant" for t in ev.targets) and not liquid:
            ev.targets.insert(0, Target(name="liquid", types=("water",), liquid=True))
            ev.roles.setdefault("carrying", ())
            liquid = True
        if "blackout" in ev.verbs and "light_source" in ev.roles:  # a power cut: a candle or daylight, no lamp
            self._avoid(ev, "light_source", _ELECTRIC_LIGHTS, "a power cut")
            self._prefer(ev, ("Candle",))
        if "dry" in ev.verbs and words.keys() & _BODY:  # "dry off", "dry my hands": a towel, not soap
            self._prefer(ev, ("Towel", "HandTowel"))
        if words.keys() & {"shivering", "dripping"} and words.keys() & _WET:  # "out of the bath and shivering"
            ev.roles.setdefault("cleaning", ())
            self._prefer(ev, ("Towel", "HandTowel"))
            ev.notes.append("cleaning: wet and cold, a towel")
        if _WHERE_GOES.search(text.lower()):  # "where do my dirty clothes go?": somewhere to keep them
            ev.roles.setdefault("storage", ())
            ev.notes.append("storage: where it goes")
        if _WARM_FOOD.search(text.lower()):  # "something warm to eat": food, heated
            for u in ("eating", "heating(source)"):
                ev.roles.setdefault(u, ())
            ev.notes.append("eating, heating(source): something warm to eat")
        if _TOO_DARK.search(text.lower()):  # "too dark to read in here": a light as well as the book
            ev.roles.setdefault("light_source", ())
            ev.notes.append("light_source: too dark")
        for fine in _FINE.finditer(text.lower()):  # "the microwave's fine", "the kettle is fine": use it
            for m in self.vocab.mentions(fine.group(1)):
                u = self._utility_of(m.types, only=tuple(ev.roles))
                if u is not None and not ev.roles[u]:
                    ev.prefer[u] = tuple(dict.fromkeys((*m.types, *ev.prefer.get(u, ()))))
                    ev.notes.append(f"{u}: prefers {', '.join(m.types)} ({fine.group(0)!r})")
        if _KNOCKED_OVER.search(text.lower()):  # "I've knocked my tea over": a spill to wipe up
            ev.roles.setdefault("cleaning", ())
            ev.notes.append("cleaning: something knocked over")
        for w in words:
            self._prefer(ev, WORD_PREFERS.get(w, ()))
        if OUT_OF_REACH.search(text.lower()) and ev.roles:
            ev.roles.setdefault("increasing_height", ())
        egg = any(t.name == "target" and "Egg" in t.types for t in ev.targets)
        cracked = ("mixing(vessel)" in ev.roles and "heating(source)" not in ev.roles) or ev.verbs & _CRACKED
        if egg and cracked:
            ev.roles.setdefault("breaking", ())  # "beat two eggs in a bowl", "fry an egg": they are cracked first
        if "heating(source)" in ev.roles and (liquid or words.keys() & _PAN_DISHES):
            ev.roles.setdefault("heating(vessel)", ())
        sliced = "cutting" in ev.roles and any(t.name == "target" and not t.liquid for t in ev.targets)
        if sliced and ("carrying" in ev.roles or "serve" in text.lower()):
            ev.targets = [t.model_copy(update={"sliced": True}) if t.name == "target" else t for t in ev.targets]

    def _receptacle(self, types: Sequence[str]) -> bool:
        """Whether one of ``types`` is a receptacle in AI2-THOR's table (something can be put in or on it)."""
        from ..knowledge.alfred import compatible_receptacles

        places = {r for rs in compatible_receptacles(str(self.kb.root)).values() for r in rs}
        return any(thor_object_name(t) in places for t in types)

    def _utility_of(self, types: tuple[str, ...], *, prefer: Iterable[str] = (),
                    only: Iterable[str] | None = None) -> str | None:
        """The utility an object type serves (``prefer`` first, then COAT's utility order; ``only`` these)."""
        names = {canonical_object_name(t) for t in types}
        prefer = tuple(prefer)
        order = list(only) if only is not None else [*prefer, *(u for u in self.kb.utilities if u not in prefer)]
        return next((u for u in order if u in self.kb.utilities and names & set(self.kb.utility_objects(u))), None)

__all__ = ["EXAMPLE", "EXAMPLE_NO_FRAME", "NEAREST", "PARAPHRASE", "ROLE_EXAMPLE", "ROLE_SCORE", "TARGET_SCORE"]
