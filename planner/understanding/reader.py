"""Free text -> TaskSpec, offline: the verbs' frames, the named object types, and the nearest COAT tasks.

How a request is read (:meth:`TaskReader.read`):

1. A COAT task string is an exact match: its library spec (:func:`planner.knowledge.task_specs.coat_spec`).
2. Text that is not English words (another language, letter salad, emoji) is refused
   (:mod:`planner.understanding.language`), and so is a request that is impossible ("make the toaster fly") or
   harmful ("put the cat in the microwave"), with the reason (:func:`~planner.understanding.safety.impossible`,
   :func:`~planner.understanding.safety.unsafe`).
3. A goal in ALFRED's language ("put a washed apple in the fridge", its step-by-step instructions, "heat potato ->
   counter") is read as the ALFRED task it states (:mod:`planner.understanding.directives`): its change of state
   as a role (a sink, a heat source, the fridge), where the object ends up as a COAT role when the place has a
   utility (the fridge: ``storage``), and ALFRED's goal conditions; confidence :data:`DIRECTIVE_CONFIDENCE`.
   Anything else goes on:
4. The request is cut into clauses (:mod:`planner.understanding.frames`): each verb's frame names utilities
   ("cut" -> cutting, "boil" -> heating(source) and heating(vessel)), a purpose ("something to read") counts as
   its verb, "turn on" the utility of the device named; the object types and liquids named
   (:mod:`planner.understanding.vocabulary`) are the targets, or, after "with" / "in" / "on", the types a role
   must have ("in the microwave").
   What the request rules out ("not the big knife", "anywhere but the floor") becomes the role's ``avoid``.
   A thing put on a place COAT gives no utility ("the towel on the towel holder", "hang the towel up") makes the
   place a target (``place``) and the goal the thing in / on it, with no role.
5. The nearest of COAT's annotated tasks (MiniLM cosine, or word overlap without the ``embed`` extra) gives
   the roles when no verb frame does ("make an omelette" -> COAT's "cooking & serving omlette": heating, a
   pan, something to crack and mix with, something to serve on) and adds a paraphrased task's roles; the nearest
   worked example adds its roles and preferred types, and where nothing read a role the role classifier
   (:mod:`planner.understanding.classifier`, learned from the worked examples) may.
6. A calibrated confidence (a logistic model over the evidence, fitted by ``scripts/calibrate_reader.py``; its
   coefficients are in :data:`CALIBRATION_FILE`) below :data:`THRESHOLD` means "not understood": the reading lists
   the closest COAT tasks instead of a spec.

Each role borrows the annotations of the nearest COAT task of its utility (``Role.task``), so the knowledge
strategy decides it; ``borrow=False`` leaves the request's own words for a model or learned strategy.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DataError
from ..knowledge.task_specs import TASK_TARGETS, build_spec, coat_spec, implied_roles
from ..knowledge.tasks import lexical_similarity, words
from ..schemas import Role, Target, TaskReading, TaskSpec, canonical_object_name, thor_object_name
from .classifier import RoleClassifier
from .directives import directive_spec, read_directive
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
    STATES,
    VERB_PREFERS,
    VERB_REQUIRES,
    WORD_PREFERS,
    Clause,
    base,
    clauses,
    dish,
    with_referents,
)
from .language import LanguageCheck, check_language, text_words
from .memo import one_blas_thread, same_requests, task_frames
from .safety import impossible, judged
from .vocabulary import Mention, Vocabulary

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from .examples import Request

CACHE_ENV = "COAT_READER_CACHE"
"""Directory for the embeddings of the texts a reader knows (default: the user cache dir / ``reader``); ``off``
embeds them again in every process."""
READER_ENV = "COAT_READER"
"""``COAT_READER=lexical`` makes the reader match by word overlap even with MiniLM installed (no torch load)."""
MAX_WORDS = 100
"""Requests longer than this many words are refused before anything is read (a request, or ALFRED's step-by-step
instructions with their navigation; not a document)."""

CALIBRATION_FILE = "calibration.json"
"""Logistic coefficients of the confidence per similarity method (``embedding``, ``lexical``) over the features
of :func:`features`, fitted by ``scripts/calibrate_reader.py`` (shipped beside this module)."""
THRESHOLD = 0.5
"""Confidence below which a request is not understood."""
PLACING: tuple[str, ...] = ("storage", "surface_support", "disposing", "carrying")
"""The utilities of a place an ALFRED directive puts its object in or on (a COAT role, so a substitute may fill it)."""
DIRECTIVE_CONFIDENCE = 0.95
"""The confidence of a reading as an ALFRED directive (:mod:`planner.understanding.directives`): how often such a
reading is the labelled task. Set on the first 160 development directives (``requests/directives-dev.jsonl``), where
155 of the 156 read as directives were read exactly (in-sample: the rules were written on them), leaving room for
text they were not written on; on the held-out test split 135 of 142 (95.1 %, ``benchmarks/directives.md``)."""
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

_QUESTION = frozenset({"what", "who", "whom", "whose", "when", "why", "how", "which", "where"})
_INVERTED = frozenset({"is", "are", "was", "were", "do", "does", "did"})
"""A text opening with one of these is a question only when it ends with a question mark ("do the dishes")."""
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


@dataclass
class _Evidence:
    roles: dict[str, tuple[str, ...]]
    """utility -> required types (empty: any object of the utility)."""
    targets: list[Target]
    notes: list[str]
    frame: bool
    text: str = ""
    request: bool = False
    state: bool = False
    """A state names what the request needs ("my legs are tired", "it's pitch black")."""
    task_sims: dict[str, float] = field(default_factory=dict)
    """COAT task -> its similarity to the request (the tasks a reading may use)."""
    prefer: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """utility -> types that win a tie (the verb names them: toast -> Toaster)."""
    sources: dict[str, str] = field(default_factory=dict)
    """utility -> the COAT task whose roles it came from (its annotations decide it)."""
    avoid: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """utility -> types the request rules out ("not on the floor")."""
    expected: tuple[str, ...] = ()
    """The utilities of every clause's verb: a thing fetched in one clause serves the verb of another."""
    verbs: set[str] = field(default_factory=set)
    """The clauses' verbs (base forms): a role borrows a COAT task named with one of them when there is one."""
    place: tuple[str, ...] = ()
    """Where the target is put when COAT gives that place no utility ("hang the towel on the towel holder"): a
    target of the task, not a role."""
    placed: str = ""
    """The name of the target put on :attr:`place` (``target``, or ``placed`` when another clause's thing is the
    target: "slice the apple and hang the towel up")."""


@dataclass
class Assessment:
    """What :meth:`TaskReader.assess` found in a text."""

    language: LanguageCheck
    evidence: _Evidence
    tasks: list[str]
    task_sims: list[float]
    utility_sims: list[float]
    closest: list[str]
    features: dict[str, float]
    role_scores: dict[str, float] = field(default_factory=dict)
    """utility -> the role classifier's score (empty without an embedding encoder)."""
    vector: Any = None
    """The text's embedding (None without an encoder that embeds)."""


class TaskReader:
    """Reads request texts into TaskSpecs over one knowledge base and type vocabulary.

    Args:
        kb: The knowledge base (COAT's utilities, tasks and phrases).
        object_types: The AI2-THOR types that may be named (default: the type table of ``kb``'s data dir).
        encoder: A sentence encoder (``similarities(query, texts)``, optionally ``embed(texts)``), None for word
            overlap, or ``"auto"``: MiniLM when the ``embed`` extra is installed (and :data:`READER_ENV` is not
            ``lexical``), else word overlap.
        examples: Worked examples (labelled requests); ``"auto"``: the ``dev`` split
            (:mod:`planner.understanding.examples`); None: none.
    """

    def __init__(self, kb: KnowledgeBase, *, object_types: Iterable[str] | None = None, encoder: Any = "auto",
                 examples: Iterable[Request] | str | None = "auto") -> None:
        if object_types is None:
            from ..knowledge.alfred import object_types as table

            object_types = table(kb.root)
        self.kb = kb
        self.vocab = Vocabulary(object_types)
        self.tasks: tuple[str, ...] = tuple(sorted({t for u in kb.utilities for t in kb.tasks(u)}))
        self.task_utilities = {t: tuple(u for u in kb.utilities if t in kb.tasks(u)) for t in self.tasks}
        self.task_words = {t: content_words(t) for t in self.tasks}
        phrases = kb.templates.utility_phrases
        self.utility_texts = tuple(f"{u.replace('_', ' ')}: {phrases.get(u, u)}" for u in kb.utilities)
        self.encoder = _encoder() if encoder == "auto" else encoder
        self.method = "embedding" if self.encoder is not None else "lexical"
        self._matrix: Any = None
        self._classifier: RoleClassifier | None = None
        self._excluded: frozenset[str] = frozenset()
        """COAT tasks the current reading leaves out (leave-one-task-out): no helper may use them."""
        if examples == "auto":
            from .examples import load_requests

            examples = load_requests("dev")
        self.examples: tuple[Request, ...] = tuple(examples or ())
        self.example_texts = tuple(" ".join(e.request.split()) or "?" for e in self.examples)
        self.example_words = tuple(content_words(t) for t in self.example_texts)
        self.calibration = load_calibration()[self.method]
        self._verbs_of: dict[str, set[str]] = {}
        self._props: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------ public

    @one_blas_thread()
    def read(self, text: str, *, borrow: bool = True, exclude: Sequence[str] = ()) -> TaskReading:
        """Read ``text`` (see the module doc). ``exclude`` leaves COAT tasks out (leave-one-task-out)."""
        norm = " ".join(text.split())
        if not norm:
            return self._refuse(text, 0.0, "the task is empty: describe what the robot should do", [])
        exact = exact_reading(text, self.kb, exclude=exclude, tasks=self.tasks)
        if exact is not None:
            return exact
        if len(norm.split()) > MAX_WORDS:
            return self._refuse(text, 0.0, f"the request has {len(norm.split())} words; at most {MAX_WORDS} are "
                                f"read (say what the robot should do in one sentence)", [])
        a = self.assess(norm, exclude=exclude)
        lang, ev, closest = a.language, a.evidence, a.closest
        if not lang.english:
            what = {"none": "no English words", "code": "it looks like program text, markup or an address"}.get(
                lang.language, f"it looks like language {lang.language!r}")
            return self._refuse(text, 0.0, f"not understood: {what}; the planner reads English requests",
                                closest, language=lang.language)
        magic = impossible(norm, lambda p: bool(self.vocab.mentions(p)), self._known_word,
                           lambda p: any(m.types[0] in _FOOD for m in self.vocab.mentions(p)))
        if magic:
            return self._refuse(text, 0.0, f"not a household task: {magic}", closest)
        verdict, why = judged(norm, a.vector, getattr(self.encoder, "model_id", ""),
                              lambda p: bool(self.vocab.mentions(p)))
        if verdict == "harmful":
            return self._refuse(text, 0.0, f"refused: {why}", closest)
        if verdict == "impossible":
            return self._refuse(text, 0.0, f"not a household task: {why}", closest)
        d = read_directive(norm, self.vocab, pickupable=self._types_with("pickupable"),
                           sliceable=self._types_with("sliceable"), receptacles=self._types_with("receptacle"))
        # a sink or a tub is where things are washed, not one of COAT's places to keep them ("disposing"); a thing
        # put on the toilet is not flushed
        u = (self._utility_of(d.recep, only=PLACING) if d is not None and d.recep
             and not {"SinkBasin", "BathtubBasin", "Toilet"} & set(d.recep) else None)
        if d is not None:
            spec = directive_spec(d, text, u, self._utility_of(d.movable, only=("carrying",)) if d.movable else None)
            notes = [f"ALFRED's {d.task_type}: {d.evidence}"]
            sims = dict(zip(a.tasks, a.task_sims, strict=True))
            roles = []
            for r in spec.roles:
                avoid = tuple(t for t in ev.avoid.get(r.utility, ()) if t not in r.types or len(r.types) > 1)
                if avoid:  # "heat it, but not in the microwave": ruled out, never preferred
                    notes.append(f"{r.name}: not {', '.join(avoid)}")
                    r = r.model_copy(update={"avoid": tuple(dict.fromkeys((*r.avoid, *avoid))),
                                             "prefer": tuple(t for t in r.prefer if t not in avoid)})
                near = self._nearest_task(r, sims) if borrow else None
                if near is not None:  # decided with the annotations of the nearest COAT task of its utility
                    notes.append(f"{r.name}: decided with COAT's annotations of {near!r}")
                    r = r.model_copy(update={"task": near})
                roles.append(r)
            spec = TaskSpec.model_validate(spec.model_copy(update={"roles": tuple(roles)}).model_dump())
            return TaskReading(text=text, understood=True, confidence=DIRECTIVE_CONFIDENCE, spec=spec,
                               method="directive", closest=tuple(closest), evidence=tuple(notes))
        conf = confidence(a.features, self.calibration)
        if conf < THRESHOLD or not (ev.roles or ev.place):
            why = (f"confidence {conf:.2f} < {THRESHOLD}" if conf < THRESHOLD else
                   "no object role read: say what the robot should do, or with what")
            return self._refuse(text, conf, f"not understood ({why})", closest, evidence=ev.notes)
        spec = self._spec(text, ev, a.tasks, a.task_sims, borrow=borrow)
        return TaskReading(text=text, understood=True, confidence=round(conf, 4), spec=spec, method="reader",
                           closest=tuple(closest), evidence=tuple(ev.notes))

    @one_blas_thread()
    def assess(self, text: str, *, exclude: Sequence[str] = ()) -> Assessment:
        """The evidence for a (normalized, non-empty) text: its language, frames, targets, nearest tasks, features."""
        lang = check_language(text, vocabulary=self.vocab.words)
        tasks = [t for t in self.tasks if t not in exclude]
        self._excluded = frozenset(exclude)
        task_sims, util_sims, ex_sims, vector = self._similarities(text, tasks)
        # an example never explains itself (so the dev split's figures are leave-one-out), and one that shares no
        # content word with the text does not explain it either ("I'd like you to" is not "I'd like to wash my face")
        mine, twins = content_words(text), same_requests(self.examples, text)
        if self.encoder is None:  # word overlap on filler alone ("get me a" / "getting a book") is no evidence
            task_sims = [s if mine & self.task_words[t] else 0.0 for t, s in zip(tasks, task_sims, strict=True)]
        ex_sims = [-1.0 if i in twins else
                   s if mine & ex_words else 0.0
                   for i, (s, ex_words) in enumerate(zip(ex_sims, self.example_words, strict=True))]
        closest = [t for _, t in sorted(zip(task_sims, tasks, strict=True), key=lambda p: -p[0])[:3]]
        role_scores = self._role_scores(vector, text)
        ev = (self._evidence(text, tasks, task_sims, ex_sims, role_scores) if lang.english else
              _Evidence({}, [], [], False))
        first = (lang.words or ("",))[0]
        question = first in _QUESTION or (first in _INVERTED and text.rstrip().endswith("?"))
        sensible = [s for e, s in zip(self.examples, ex_sims, strict=True) if e.kind != "nonsense"]
        nonsense = [s for e, s in zip(self.examples, ex_sims, strict=True) if e.kind == "nonsense"]
        feats = features(max(task_sims, default=0.0), max(util_sims, default=0.0), ev.frame,
                         bool(self.vocab.mentions(text)), ev.request, question,
                         max(sensible, default=0.0) - max(nonsense, default=0.0),
                         self._salad(lang.words), ev.state, max(role_scores.values(), default=0.0))
        return Assessment(lang, ev, tasks, task_sims, util_sims, closest, feats, role_scores, vector)

    def _types_with(self, prop: str) -> frozenset[str]:
        """The AI2-THOR types with an actionable property (``pickupable``, ``sliceable``, ``receptacle``) in the type
        table of the knowledge base's data directory (read on first use, also when ``object_types`` was given)."""
        if prop not in self._props:
            from ..knowledge.alfred import types_with

            self._props[prop] = types_with(prop, self.kb.root)
        return self._props[prop]

    def _known_word(self, word: str) -> bool:
        """Whether a word names something a household has or makes: an object type, a dish, a state."""
        return bool(self.vocab.mentions(word)) or bool(dish(word)) or word in STATES or base(word) in FRAMES

    def _salad(self, words: Sequence[str]) -> bool:
        """Four or more words with no function word, fewer than half of them household words (a verb, a state or
        an object word): "mop broccoli telescope window thursday", not "mop kitchen floor now"."""
        if len(words) < 4 or set(words) & _FUNCTION:
            return False
        known = sum(1 for w in words if base(w) in FRAMES or w in STATES or w in self.vocab.words or
                    self.vocab.mentions(w))
        return known * 2 < len(words)

    # ------------------------------------------------------------------ evidence

    def _similarities(self, text: str, tasks: list[str]) -> tuple[list[float], list[float], list[float], Any]:
        """Similarity of ``text`` to the given COAT tasks, to the utility phrases and to the worked examples, and
        the text's embedding (None without an encoder that embeds)."""
        known = [*self.tasks, *self.utility_texts, *self.example_texts]
        vector = None
        if self.encoder is None:
            sims = [lexical_similarity(text, t) for t in known]
        elif callable(getattr(self.encoder, "embed", None)):  # the known texts are embedded once per reader
            if self._matrix is None:
                self._matrix = _known_embeddings(self.encoder, known)
            vector = self.encoder.embed([text])[0]
            sims = (self._matrix @ vector).tolist()  # Python floats, as float() of each
        else:
            sims = [float(s) for s in self.encoder.similarities(text, known)]
        n, m = len(self.tasks), len(self.utility_texts)
        by_task = dict(zip(self.tasks, sims[:n], strict=True))
        return [by_task[t] for t in tasks], sims[n:n + m], sims[n + m:], vector

    def _role_scores(self, vector: Any, text: str) -> dict[str, float]:
        """The role classifier's scores for an embedding, fitted without the excluded COAT tasks and without the
        worked examples of the same text."""
        if vector is None:
            return {}
        n, m = len(self.tasks), len(self.utility_texts)
        if self._classifier is None:
            labels = [*(self.task_utilities[t] for t in self.tasks), *(e.roles for e in self.examples)]
            rows = np.vstack([self._matrix[:n], self._matrix[n + m:]])
            self._classifier = RoleClassifier(rows, labels, self.kb.utilities)
        leave_out = [i for i, t in enumerate(self.tasks) if t in self._excluded]
        leave_out += [n + i for i in sorted(same_requests(self.examples, text))]
        return self._classifier.scores(vector, leave_out)

    def _evidence(self, text: str, tasks: list[str], task_sims: list[float], ex_sims: list[float],
                  role_scores: dict[str, float]) -> _Evidence:
        ev = _Evidence(roles={}, targets=[], notes=[], frame=False, text=text,
                       task_sims=dict(zip(tasks, task_sims, strict=True)))
        read = with_referents(clauses(text))  # "put the candle on the table and light it": it is the candle
        ev.expected = tuple(dict.fromkeys(u for c in read for u in (*FRAMES.get(c.purpose or c.verb, ()),
                                                                    *(u for w in c.text.split() for u in
                                                                      STATES.get(w, ())))))
        for clause in read:
            ev.request = ev.request or clause.request
            self._clause(clause, ev)
        self._example(ev, ex_sims)
        best = max(range(len(tasks)), key=task_sims.__getitem__) if tasks else None
        if best is not None:
            sim, task = task_sims[best], tasks[best]
            if sim >= PARAPHRASE or (not ev.frame and sim >= NEAREST):
                for u in self.task_utilities[task]:
                    ev.roles.setdefault(u, ())
                    ev.sources.setdefault(u, task)
                ev.notes.append(f"roles of the nearest COAT task {task!r} (similarity {sim:.2f})")
                if not ev.targets:
                    ev.targets = [Target(name=t.name, types=t.types, liquid=t.liquid, sliced=t.sliced)
                                  for t in TASK_TARGETS.get(task, ((), (), ""))[0]]
        if not ev.roles and not ev.place:  # nothing read a role: the classifier's confident utilities
            for u, s in sorted(role_scores.items(), key=lambda p: -p[1]):
                if s >= ROLE_SCORE:
                    ev.roles[u] = ()
                    ev.notes.append(f"{u}: the role classifier's score {s:.2f}")
        self._adjust(text, ev)
        self._role_examples(ev, ex_sims)
        if _OVEN.search(text) and "heating(source)" in ev.roles:  # COAT lists an oven, AI2-THOR has none
            ev.notes.append("'oven': AI2-THOR kitchens have no oven, so the microwave stands in")
        return ev

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
        if ex.kind == "nonsense" or ev.place or not (sim >= EXAMPLE or (not ev.frame and sim >= EXAMPLE_NO_FRAME)):
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
        obj = self.vocab.mentions(c.obj)
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
        named = {w for m in obj for w in m.words.split()}
        if not verb and not made and obj and not c.places and len(set(c.obj.split()) - named) <= 1:
            verb = "get"  # "lights pls", "loo roll", "the big towel": a thing named alone is asked for
        if not made and (verb in ("switch", *OPEN) or (verb in FETCH and not c.purpose)):
            for m in obj:  # the named device or thing is the role's object
                switch = verb in ("switch", *OPEN)  # a fetched laptop is for the email the request writes
                u = self._utility_of(m.types, prefer=("light_source", "entertainment") if switch else ev.expected)
                if m.liquid:
                    self._target(m, ev)
                    ev.roles.setdefault("carrying", ())
                elif u is not None:  # "turn on the lamp and open the blinds": both can light the room
                    ev.roles[u] = tuple(dict.fromkeys((*ev.roles.get(u, ()), *m.types)))
                    ev.notes.append(f"{u}: {m.words!r} named ({verb})")
                    ev.frame = True
                elif m.types[0] in _FOOD:
                    self._target(m, ev)
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
        elif verb in PUT and where:
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
            ev.notes.append(f"{u}: put {c.obj!r} {c.prep} " + " or ".join(repr(m.words) for m in (where[0], *also)))
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
        if verb not in FETCH and verb not in ("switch", *OPEN):
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

    def _task_verbs(self, task: str) -> set[str]:
        """The verbs of a COAT task's name (base forms), computed once per task."""
        if task not in self._verbs_of:
            self._verbs_of[task] = {c.purpose or c.verb for c in clauses(task)} - {""}
        return self._verbs_of[task]

    def _task_frames(self, task: str) -> frozenset[str]:
        """The utilities the verbs of a COAT task's name call for ("cooking & serving toast": heating, carrying)."""
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

    def _placed(self, m: Mention, ev: _Evidence) -> str:
        """The name of the target for the thing ``m`` put on a place: the task's target when it is that thing, else
        a new ``placed`` target (another clause's thing is the target)."""
        self._target(m, ev)
        same = next((t.name for t in ev.targets if not t.liquid and set(t.types) == set(m.types)), None)
        if same is not None:
            return same
        ev.targets.append(Target(name="placed", types=m.types))
        return "placed"

    def _target(self, m: Mention, ev: _Evidence) -> None:
        if m.liquid:
            if not any(t.liquid for t in ev.targets):
                ev.targets.append(Target(name="liquid", types=m.types, liquid=True))
        elif "HousePlant" in m.types:
            if not any(t.name == "plant" for t in ev.targets):
                ev.targets.append(Target(name="plant", types=m.types))
        elif not any(t.name == "target" for t in ev.targets):
            ev.targets.append(Target(name="target", types=m.types))

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

    # ------------------------------------------------------------------ spec

    def _spec(self, text: str, ev: _Evidence, tasks: list[str], task_sims: list[float], *, borrow: bool) -> Any:
        sims = dict(zip(tasks, task_sims, strict=True))
        known = set(self.kb.objects)  # "the tub" names Bathtub and BathtubBasin; COAT knows the basin
        roles = []
        for u, types in ev.roles.items():
            kept = [t for t in types if canonical_object_name(t) in known] or list(types)
            named = {canonical_object_name(t) for t in kept}  # "in the fridge, not the freezer": the fridge stays
            avoid = [t for t in ev.avoid.get(u, ()) if canonical_object_name(t) not in named]
            prefer = [t for t in dict.fromkeys(ev.prefer.get(u, ())) if t not in avoid]
            if kept:  # preferred types are among the fixed ones
                prefer = [t for t in prefer if canonical_object_name(t) in named]
            roles.append(Role(name=u, utility=u, types=tuple(thor_object_name(t) for t in kept),
                              prefer=tuple(prefer), avoid=tuple(thor_object_name(t) for t in avoid)))
        roles += [r for r in implied_roles(text, roles, ev.targets) if r.utility not in ev.roles]
        out = []
        for r in roles:
            near = ev.sources.get(r.utility) or self._nearest_task(r, sims, ev.verbs)
            if borrow and near is not None:
                ev.notes.append(f"{r.utility}: decided with COAT's annotations of {near!r}")
                r = r.model_copy(update={"task": near})
            elif not borrow:
                ev.notes.append(f"{r.utility}: decided on the request's own words (COAT does not annotate them)")
            out.append(r)
        roles = out
        note = "" if ev.targets else "no target named: the chosen objects are brought"
        return build_spec(text, roles, ev.targets, place=ev.place, placed=ev.placed, note=note)

    def _nearest_task(self, role: Role, sims: dict[str, float], verbs: Iterable[str] = ()) -> str | None:
        """The COAT task of the role's utility nearest to the request, among those whose annotations keep a type
        the role prefers when there are such ("boil an egg" wants a pot: not "cooking & serving fried egg"), then
        among those whose ideal objects best match the preferred types (overlap over union: "dry my hands" wants
        towels, so "washing your face", not "washing dishes" with its soap; the first preferred weighs most), then
        among those named with one of the request's verbs ("dry the shower door": "drying washed dishes", not
        "cleaning showerhead")."""
        tasks = [t for t in self.kb.tasks(role.utility) if t in sims]
        order = list(dict.fromkeys(canonical_object_name(t) for t in role.prefer))
        wanted = set(order)
        tasks = [t for t in tasks if wanted & set(self.kb.context_objects(role.utility, t))] or tasks
        if wanted:
            fit = {t: self._ideal_overlap(role.utility, t, order) for t in tasks}
            best = max(fit.values(), default=0.0)
            tasks = [t for t in tasks if fit[t] == best] if best > 0 else tasks
        said = set(verbs) - {""}
        tasks = [t for t in tasks if said & self._task_verbs(t)] or tasks
        return max(tasks, key=sims.__getitem__, default=None)

    def _ideal_overlap(self, utility: str, task: str, wanted: Sequence[str]) -> float:
        """How well a COAT task's ideal objects match the wanted types, in preference order: a weighted overlap
        over union (the i-th wanted type weighs 1 / (i + 1)); 0 for an unannotated task."""
        if not self.kb.is_annotated(utility, task):
            return 0.0
        ideal = {c.object for c in self.kb.ideal(utility, task)}
        weight = {t: 1 / (i + 1) for i, t in reversed(list(enumerate(wanted)))}
        return sum(weight[t] for t in ideal & weight.keys()) / (sum(weight.values()) + len(ideal - weight.keys()))

    def _refuse(self, text: str, conf: float, reason: str, closest: list[str], *, language: str = "en",
                evidence: Iterable[str] = ()) -> TaskReading:
        return TaskReading(text=text, understood=False, confidence=round(conf, 4), method="reader", language=language,
                           closest=tuple(closest), evidence=tuple(evidence), reason=reason)


_FUNCTION = frozenset("""a an the some any my your our his her its their this that these those me us it them him i you
we he she they to in on at with for of from into onto by and or but so is are am was were be been please can could
would will up out down off too all""".split())
"""Function words: a sentence has some, a word salad none."""

_FILLER = frozenset("""i you we me us my your our it its d ll s m re ve like want need would could can will shall
please get give bring fetch make do let help just now some something anything this that these those here there is
are be am was were have has had to a an the for of and or with on in at up out down so then hey robot ok okay thanks
thank""".split())


def content_words(text: str) -> frozenset[str]:
    """The stemmed words of ``text`` that carry content: not request filler ("I'd like you to", "could you")."""
    return frozenset(w for w in words(text) if w not in _FILLER)


_NEGATION = re.compile(r"\b(?:not|never|no|don't|dont|doesn't|won't|shouldn't|mustn't|isn't|aren't|can't|n't)\b")
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


_NOT_NEGATED = re.compile(r"^(?:don't|do not|never|not)\s+forget\b|^(?:n't|not)\s+you\b|^don't\s+you\b")
"""Negations that ask for the thing ("don't forget to", "why don't you")."""


def _negated(text: str, prep: str, words: str) -> bool:
    """Whether "``prep`` ... ``words``" comes at most five words after a negation in the clause ("not in the
    fridge", "don't leave it on the bed"), with no other place phrase between ("don't forget to put the milk in the
    fridge" asks for the fridge)."""
    at = re.search(rf"\b{re.escape(prep)}\s+(?:\w+\s+){{0,3}}?{re.escape(words)}\b", text)
    if at is None:
        return False
    before = list(_NEGATION.finditer(text[: at.start()]))
    if not before or _NOT_NEGATED.search(text[before[-1].start():]):  # "don't forget to put it in the fridge"
        return False
    between = text[before[-1].end(): at.start()]
    return len(between.split()) <= 5 and not re.search(r"\b(?:in|on|into|onto|at)\b", between)


def _unit(m: Mention, phrase: str) -> bool:
    """Whether ``m`` is a measure word ("a glass of", "a cup of"), not the thing asked for."""
    return not m.liquid and f"{m.words} of" in phrase


def features(task_sim: float, utility_sim: float, frame: bool, named: bool, request: bool,
             question: bool, example_margin: float, salad: bool = False, state: bool = False,
             role_score: float = 0.0) -> dict[str, float]:
    """The evidence the confidence is computed from: the nearest COAT task's and utility's similarity, whether
    a verb frame (or a state such as "dirty") fired, whether an object type or liquid was named, whether the text
    is worded as a request, whether it opens as a question ("what is the capital of France"), and how much nearer
    it is to the nearest sensible worked example than to the nearest nonsense one, and whether four or more words
    come with no function word at all ("mop broccoli telescope window thursday": a word salad), and whether a
    state named the need ("I'm bored": a request worded as a statement), and the role classifier's top score."""
    return {"task_sim": task_sim, "utility_sim": utility_sim, "frame": float(frame), "named": float(named),
            "request": float(request), "question": float(question), "example_margin": example_margin,
            "salad": float(salad), "state": float(state), "role_score": role_score}


def confidence(feats: dict[str, float], coef: dict[str, float]) -> float:
    """The calibrated probability that a request was understood (logistic over :func:`features`)."""
    z = coef["bias"] + sum(coef[k] * v for k, v in feats.items())
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


@lru_cache(maxsize=1)
def load_calibration() -> dict[str, dict[str, float]]:
    """The shipped confidence coefficients (:data:`CALIBRATION_FILE`).

    Raises:
        DataError: the file is missing a method or a coefficient (the message names the file and key).
    """
    path = Path(str(resources.files("planner.understanding") / CALIBRATION_FILE))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"unreadable ({e}); run scripts/calibrate_reader.py") from e
    keys = ("bias", *features(0, 0, False, False, False, False, 0.0))
    for method in ("embedding", "lexical"):
        for k in keys:
            if not isinstance(data.get(method, {}).get(k), (int, float)):
                raise DataError(path, f"{method}.{k}", "missing or not a number; run scripts/calibrate_reader.py")
    return {m: {k: float(data[m][k]) for k in keys} for m in ("embedding", "lexical")}


class _Vectors:
    """An encoder's ``embed`` as the ``encode`` an :class:`~planner.llm.embedding.EmbeddingCache` calls."""

    def __init__(self, encoder: Any) -> None:
        self.model_id = encoder.model_id
        self.encode = encoder.embed


def _known_embeddings(encoder: Any, texts: list[str]) -> Any:
    """The encoder's embeddings of ``texts`` (COAT's tasks, the utility phrases, the worked examples), kept per
    text in the reader cache (:data:`CACHE_ENV`), so a process embeds only the texts no earlier one did. An
    unreadable cache file is removed and rebuilt, and an unwritable one costs time only (a cache, never an
    answer)."""
    import os

    from ..llm.embedding import EmbeddingCache

    where = os.environ.get(CACHE_ENV, "")
    if where == "off" or not getattr(encoder, "model_id", ""):
        return encoder.embed(texts)
    if not where:
        from ..paths import user_cache_dir

        where = str(user_cache_dir() / "reader")
    path = Path(where) / "embeddings.npz"
    try:
        cache = EmbeddingCache(_Vectors(encoder), path)
    except DataError:
        path.unlink(missing_ok=True)
        cache = EmbeddingCache(_Vectors(encoder), path)
    matrix = cache.embed(texts)
    try:
        cache.save()
    except OSError:
        pass
    return matrix


def exact_reading(text: str, kb: KnowledgeBase, *, exclude: Sequence[str] = (),
                  tasks: Iterable[str] | None = None) -> TaskReading | None:
    """The reading of a text that is one of COAT's annotated tasks (up to case, spacing and punctuation): its library
    spec; None for any other text. Needs no encoder, so a COAT task is planned without loading one."""
    norm = " ".join(text.split())
    if not norm:
        return None
    words = text_words(norm)
    known = tasks if tasks is not None else sorted({t for u in kb.utilities for t in kb.tasks(u)})
    exact = next((t for t in known if text_words(t) == words and t not in exclude), None)
    if exact is None:
        return None
    return TaskReading(text=text, understood=True, confidence=1.0, spec=coat_spec(exact, kb), method="exact",
                       closest=(exact,), evidence=(f"COAT task {exact!r}",))


def _encoder() -> Any:
    """MiniLM when the ``embed`` extra is installed and ``COAT_READER`` is not ``lexical``; else None (word overlap)."""
    import os

    from ..llm.embedding import default_encoder, embed_available

    if os.environ.get(READER_ENV, "").strip().lower() == "lexical":
        return None
    return default_encoder() if embed_available() else None


__all__ = [
    "CACHE_ENV",
    "CALIBRATION_FILE", "DIRECTIVE_CONFIDENCE", "MAX_WORDS", "NEAREST", "PARAPHRASE", "PLACING", "READER_ENV",
    "THRESHOLD", "Assessment", "TaskReader",
    "confidence", "exact_reading", "features", "load_calibration",
]
