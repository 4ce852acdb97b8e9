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
   (:mod:`planner.understanding.classifier`, learned from the worked examples) may; where nothing named a target
   but a role acts on one, the same regression fitted to the labelled targets names it ("toast pls": bread).
6. A calibrated confidence (a logistic model over the evidence, fitted by ``scripts/calibrate_reader.py``; its
   coefficients are in :data:`~.calibration.CALIBRATION_FILE`) below :data:`~.calibration.THRESHOLD` means "not
   understood": the reading lists the closest COAT tasks instead of a spec.

Each role borrows the annotations of the nearest COAT task of its utility (``Role.task``), so the knowledge
strategy decides it; ``borrow=False`` leaves the request's own words for a model or learned strategy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..knowledge.task_specs import TASK_TARGETS, coat_spec
from ..knowledge.tasks import lexical_similarity, words
from ..schemas import TaskReading, TaskSpec
from .calibration import THRESHOLD, confidence, features, load_calibration
from .classifier import TARGET_L2, RoleClassifier
from .directives import directive_spec, read_directive
from .embeddings import _encoder, _known_embeddings
from .evidence import _FOOD, _Evidence, _EvidenceReader
from .frames import FRAMES, STATES, dish
from .language import LanguageCheck, check_language, text_words
from .memo import one_blas_thread, same_requests
from .parse import parse
from .safety import impossible, judged
from .spec import _SpecBuilder
from .vocabulary import Vocabulary

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from .examples import Request

MAX_WORDS = 100
"""Requests longer than this many words are refused before anything is read (a request, or ALFRED's step-by-step
instructions with their navigation; not a document)."""

PLACING: tuple[str, ...] = ("storage", "surface_support", "disposing", "carrying")
"""The utilities of a place an ALFRED directive puts its object in or on (a COAT role, so a substitute may fill it)."""
DIRECTIVE_CONFIDENCE = 0.95
"""The confidence of a reading as an ALFRED directive (:mod:`planner.understanding.directives`): how often such a
reading is the labelled task. Set on the first 160 development directives (``requests/directives-dev.jsonl``), where
155 of the 156 read as directives were read exactly (in-sample: the rules were written on them), leaving room for
text they were not written on; on the held-out test split 135 of 142 (95.1 %, ``benchmarks/directives.md``)."""

_QUESTION = frozenset({"what", "who", "whom", "whose", "when", "why", "how", "which", "where"})
_INVERTED = frozenset({"is", "are", "was", "were", "do", "does", "did"})
"""A text opening with one of these is a question only when it ends with a question mark ("do the dishes")."""


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


class TaskReader(_EvidenceReader, _SpecBuilder):
    """Reads request texts into TaskSpecs over one knowledge base and type vocabulary.

    Args:
        kb: The knowledge base (COAT's utilities, tasks and phrases).
        object_types: The AI2-THOR types that may be named (default: the type table of ``kb``'s data dir).
        encoder: A sentence encoder (``similarities(query, texts)``, optionally ``embed(texts)``), None for word
            overlap, or ``"auto"``: MiniLM when the ``embed`` extra is installed (and
            :data:`~.embeddings.READER_ENV` is not ``lexical``), else word overlap.
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
        self._target_classifier: RoleClassifier | None = None
        self.targets_learned = True
        """Whether the target classifier may name the target of a request that names none (off: the rules alone,
        as ``scripts/target_classifier_cv.py`` needs to find the requests it would act on)."""
        self._excluded: frozenset[str] = frozenset()
        """COAT tasks the current reading leaves out (leave-one-task-out): no helper may use them."""
        if examples == "auto":
            from .examples import load_requests

            examples = load_requests("dev", labels=False)  # the worked examples; their goal labels are not read
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
        if conf < THRESHOLD or not (ev.roles or ev.place or ev.set_states or ev.brought):
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
        role_scores = self._role_scores(vector, twins)
        ev = (self._evidence(text, tasks, task_sims, ex_sims, role_scores, self._target_scores(vector, twins))
              if lang.english else _Evidence({}, [], [], False))
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
        return (bool(self.vocab.mentions(word)) or bool(dish(word)) or word in STATES or
                any(b in FRAMES for b in parse(word).bases()))

    def _salad(self, words: Sequence[str]) -> bool:
        """Four or more words with no function word, fewer than half of them household words (a verb, a state or
        an object word): "mop broccoli telescope window thursday", not "mop kitchen floor now"."""
        if len(words) < 4 or set(words) & _FUNCTION:
            return False
        bases = parse(" ".join(words)).bases()
        known = sum(1 for w, b in zip(words, bases, strict=True) if b in FRAMES or w in STATES or
                    w in self.vocab.words or self.vocab.mentions(w))
        return known * 2 < len(words)

    # ------------------------------------------------------------------ similarities

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

    def _role_scores(self, vector: Any, twins: frozenset[int]) -> dict[str, float]:
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
        leave_out += [n + i for i in sorted(twins)]
        return self._classifier.scores(vector, leave_out)

    def _target_scores(self, vector: Any, twins: frozenset[int]) -> dict[str, float]:
        """The target classifier's scores (type or liquid -> score) for an embedding, fitted on COAT's tasks' targets
        and the worked examples' labelled targets, without the excluded COAT tasks and the same text's examples;
        empty without an encoder that embeds or with :attr:`targets_learned` off."""
        if vector is None or not self.targets_learned:
            return {}
        n, m = len(self.tasks), len(self.utility_texts)
        if self._target_classifier is None:
            labels = [*([ty for t in TASK_TARGETS.get(task, ((), (), ""))[0] for ty in t.types] for task in self.tasks),
                      *(e.targets if e.kind == "task" else () for e in self.examples)]
            kinds = sorted({t for ls in labels for t in ls})
            rows = np.vstack([self._matrix[:n], self._matrix[n + m:]])
            self._target_classifier = RoleClassifier(rows, labels, kinds, l2=TARGET_L2)
        leave_out = [i for i, t in enumerate(self.tasks) if t in self._excluded]
        leave_out += [n + i for i in sorted(twins)]
        return self._target_classifier.scores(vector, leave_out)

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


__all__ = ["DIRECTIVE_CONFIDENCE", "MAX_WORDS", "PLACING", "Assessment", "TaskReader", "exact_reading"]
