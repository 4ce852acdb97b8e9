"""COAT question-set generator: Task-u, Task-0, Task-1, Task-2, Full-ideal and Full-moderate.

The sets are regenerated from the COAT annotations (``../shared/notes/coat.md``) because COAT's own generator
hangs on Python 3.11 and depends on the hash seed. Every question is a :class:`planner.schemas.Question`.

Recipes (``n`` = options per question; variations are numbered from 1 in the order listed):

- ``task_u`` (4 variations, n = 2, 3, 4, 5): "which object can be described as '<phrase>'". Correct: an object
  of the utility (pool ``utility``); distractors: objects that are neither objects of this utility nor
  context objects of one of its tasks (pool ``other``). 500 questions per variation, spread over utilities
  in proportion to their object counts (floor, remainder to the last utility), as COAT does.
- ``task0`` (4 variations, n = 2..5): correct: a context object of the combination (``context``);
  distractors: utility objects of the same utility that are not context objects (``concept``), and when
  there are fewer than n-1 of them, all of them plus objects of other utilities (``random``). Target 10,000
  per variation, split over utilities by object count (as Task-u) and evenly over each utility's tasks
  (remainder to the last task). When there are m >= n-1 concept objects, a combination gets at most
  C(m, n-1) questions, the number of distinct concept-distractor sets: this is COAT's own cap, and it is
  what brings the total to the paper's ~15.5K (capping by distinct option sets, which also counts the
  choice of the correct object, would give ~21K).
- ``task1`` (12 variations): correct: an ideal configuration (``ideal``); distractors: non-ideal
  configurations of the same object ("same", S) or of another context object of the combination
  ("different", D), mixes (n; S, D): 1 (5; 4,0) 2 (5; 0,4) 3 (5; 2,2) 4 (4; 3,0) 5 (4; 0,3) 6 (4; 1,2)
  7 (4; 2,1) 8 (3; 2,0) 9 (3; 0,2) 10 (3; 1,1) 11 (2; 1,0) 12 (2; 0,1).
- ``task2`` (14 variations): options from the combination's moderate and bad pools; the correct option is
  the moderate option with the lowest total penalty, and option sets whose lowest moderate total is tied
  are never drawn. Mixes (moderate, bad): 1 (3,2) 2 (2,3) 3 (4,1) 4 (1,4) 5 (5,0) 6 (2,0) 7 (1,1) 8 (2,1)
  9 (1,2) 10 (3,0) 11 (3,1) 12 (1,3) 13 (2,2) 14 (4,0).
- ``full_ideal`` / ``full_moderate`` (31 variations each): the (context, concept, random) distractor mixes
  of ``templates.json`` ``full_pipeline_variations``, ordered by option count (2, 3, 4, 5) and then as
  listed there. ``full_ideal``: correct = an ideal configuration; context distractors = every non-ideal
  configuration of a context object. ``full_moderate``: correct = a moderate configuration; context
  distractors = moderate entries with a strictly higher total penalty and every bad entry (bad totals are
  all above every moderate total), so the correct option is the unique penalty minimum among the context
  options. Concept distractors: any configuration of a utility object that is not a context object;
  random: any configuration of an object of another utility that is not a context object.

Two annotation quirks are handled so that every question keeps exactly one right answer: ``Desktop`` is a
context object of "time / tell me the time" without being listed under ``time`` in ``objects.json``, so
"random" / "other" distractors exclude the combination's (Task-u: any of the utility's tasks') context
objects; and the one configuration that is both ideal and in a pool (Lettuce, Hot, free, clean for "eating
/ giving raghav something hot to eat") counts as ideal and is left out of the pools. Unpooled context
configurations that the cost model prices at 0/0 (19, e.g. a Ceramic plate for "serving cake", whose ideal
plates are Metal or Plastic) are never distractors either, so in every set with states the correct option
is the strict cost-model minimum among the context-object options.

Question counts. Task-1, Task-2 and both full sets give each combination a share of the per-variation
target (5,000) in proportion to its moderate+bad pool size (floor, then the remainder spread one by one
over the combinations in file order), as COAT does. A combination whose pools cannot fill a mix gets no
question in that variation, and no combination gets more questions than it has distinct valid option sets.

Sampling. Within a combination, each question is a uniform draw, without replacement, from the valid option
sets: the correct option is picked with probability proportional to the number of distractor sets it
admits, then each distractor group uniformly. So option sets never repeat within a (variation, utility,
task); the same objects can appear in questions about different combinations, whose wording differs.
Options are shuffled, so the correct letter is uniform over positions.

Pool labels and penalties (for Bad Rate). Object-only sets (Task-u, Task-0) have ``state=None`` and no
penalties. In the sets with states, every option whose object is a context object carries penalties:
label ``ideal`` with (0, 0) for an ideal configuration; else the annotated ``time_penalty`` /
``material_penalty`` and label ``moderate`` / ``bad`` when the configuration is in the combination's
pools; else label ``context`` with penalties from :class:`planner.knowledge.cost.CostModel` (the non-ideal
configurations the annotators did not pool; they occur in Task-1 and Full-ideal only). Concept and random
options have no penalties (the object is wrong for the task). Bad Rate = share of answers whose option has
``pool == "bad"``; a stricter rate may also count ``context`` options the cost model calls bad (time >= 500
or material == 500).

Determinism. Each (set, variation, combination) draws from its own ``random.Random`` seeded with the first
8 bytes of ``sha256(f"{seed}:{set}:{variation}:{utility}:{task}")``; every pool is sorted before sampling
and nothing iterates over a Python set, so the output is byte-identical across processes and hash seeds
(tested), and across Python versions as far as ``random.Random``'s integer methods (``randrange``,
``sample``, ``shuffle``; no floats are drawn) stay stable, as they have since Python 3.2. Building one set
or variation alone gives the same questions as building all.

Output layout (:func:`write_sets`): ``<out>/<set>/variation_<N>.jsonl``, one question per line (pydantic
JSON without ``null`` fields: an absent ``state`` or penalty means None), plus ``<out>/manifest.json``
(seed, generator version, counts, data-file and output checksums).

Example:
    >>> from planner.knowledge import load_knowledge
    >>> kb = load_knowledge()                                              # doctest: +SKIP
    >>> qs = build_sets(kb, seed=0, sets=["task_u"], progress=False)       # doctest: +SKIP
    >>> len(qs[("task_u", 1)])                                             # doctest: +SKIP
    500
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import random
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, combinations, product
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..errors import ConfigError, DataError, DataNotFoundError, UnknownIdError
from ..paths import COAT_FILES, resolve_data_dir
from ..schemas import LETTERS, QUESTION_SETS, VARIABLES, ObjectConfig, Option, PhysicalState, Question

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from ..knowledge.cost import CostModel

logger = logging.getLogger(__name__)

GENERATOR_VERSION = "1.0"
"""Bumped whenever the same seed would produce different questions."""

PAPER_TOTALS: dict[str, int] = {"task_u": 2_000, "task0": 15_500, "task1": 58_700, "task2": 68_900}
"""Question totals reported by the COAT paper (approximate; the full-pipeline sets have none)."""

MANIFEST = "manifest.json"

TASK1_MIXES: tuple[tuple[int, int], ...] = (
    (4, 0), (0, 4), (2, 2), (3, 0), (0, 3), (1, 2), (2, 1), (2, 0), (0, 2), (1, 1), (1, 0), (0, 1),
)  # fmt: skip
"""Task-1 distractor mixes (same object, different context object), variations 1..12."""

TASK2_MIXES: tuple[tuple[int, int], ...] = (
    (3, 2), (2, 3), (4, 1), (1, 4), (5, 0), (2, 0), (1, 1), (2, 1), (1, 2), (3, 0), (3, 1), (1, 3), (2, 2), (4, 0),
)  # fmt: skip
"""Task-2 option mixes (moderate, bad), variations 1..14; the correct option is one of the moderates."""

_TEMPLATE_KEY = {
    "task_u": "task_u",
    "task0": "task_0",
    "task1": "task_1",
    "task2": "task_2",
    "full_ideal": "full",
    "full_moderate": "full",
}
_SIZE_KEY = {
    "task_u": "task_u_questions_per_variation",
    "task0": "task_0_target_per_variation",
    "task1": "task_1_target_per_variation",
    "task2": "task_2_target_per_variation",
    # COAT sizes the full-pipeline sets like Task-1 (same per-combination shares)
    "full_ideal": "task_1_target_per_variation",
    "full_moderate": "task_1_target_per_variation",
}
_DEFAULT_SIZES = {
    "task_u_questions_per_variation": 500,
    "task_0_target_per_variation": 10_000,
    "task_1_target_per_variation": 5_000,
    "task_2_target_per_variation": 5_000,
}

# Below this many valid option sets (relative to the questions wanted) a combination's sets are enumerated
# and sampled exactly; above it, rejection of repeats is cheap (acceptance stays above 3/4).
_ENUMERATE_FACTOR = 4
_ENUMERATE_SLACK = 64


# ---------------------------------------------------------------- variations


@dataclass(frozen=True)
class Variation:
    """One variation of a question set: option count and how the distractors are drawn.

    Attributes:
        set: Question set name (one of ``QUESTION_SETS``).
        number: Variation number, from 1.
        n_options: Options per question (2..5).
        mix: (pool, count) pairs. Task-2 counts include the correct option among the moderates; for the
            other sets they count distractors only.
    """

    set: str
    number: int
    n_options: int
    mix: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        """The mix in words, e.g. ``3 moderate + 2 bad``."""
        return " + ".join(f"{k} {name}" for name, k in self.mix if k)


def variations(kb: KnowledgeBase, set_name: str) -> tuple[Variation, ...]:
    """Return the variations of one question set, in numbering order.

    Args:
        kb: The knowledge base (the full-pipeline mixes come from its templates).
        set_name: One of ``QUESTION_SETS``.

    Returns:
        The variations, numbered from 1.

    Raises:
        UnknownIdError: if ``set_name`` is not a question set.
    """
    _check_set(set_name)
    if set_name in ("task_u", "task0"):
        # Task-0 distractors are concept objects, topped up with random ones when there are too few
        pool = "other" if set_name == "task_u" else "concept/random"
        return tuple(Variation(set_name, i + 1, n, ((pool, n - 1),)) for i, n in enumerate((2, 3, 4, 5)))
    if set_name == "task1":
        return tuple(
            Variation(set_name, i + 1, 1 + s + d, (("same", s), ("different", d)))
            for i, (s, d) in enumerate(TASK1_MIXES)
        )
    if set_name == "task2":
        return tuple(
            Variation(set_name, i + 1, m + b, (("moderate", m), ("bad", b))) for i, (m, b) in enumerate(TASK2_MIXES)
        )
    out: list[Variation] = []
    for n, mixes in sorted((int(k), v) for k, v in _full_mixes(kb).items()):
        for mix in mixes:
            a, b, r = (int(x) for x in mix)
            if a + b + r != n - 1:
                raise DataError(
                    kb.root / "coat" / "templates.json",
                    f"full_pipeline_variations/{n}",
                    f"mix {list(mix)} does not add up to {n - 1} distractors",
                )
            out.append(Variation(set_name, len(out) + 1, n, (("context", a), ("concept", b), ("random", r))))
    return tuple(out)


def _check_set(set_name: str) -> None:
    if set_name not in QUESTION_SETS:
        raise UnknownIdError(f"unknown question set {set_name!r}; valid sets: {', '.join(QUESTION_SETS)}")


def _full_mixes(kb: KnowledgeBase) -> Mapping[Any, Sequence[Sequence[int]]]:
    mixes = kb.templates.full_pipeline_variations
    return {k: v for k, v in mixes.items() if not str(k).startswith("_")}


# ---------------------------------------------------------------- sampling core


@dataclass(frozen=True)
class _Cand:
    """A possible option before it gets a letter."""

    key: tuple[str, ...]
    object: str
    state: PhysicalState | None
    pool: str
    time_penalty: int | None = None
    material_penalty: int | None = None
    total: int = field(init=False)
    # validated Option per letter: a candidate appears in many questions and Options are immutable
    _options: dict[str, Option] = field(init=False, default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", (self.time_penalty or 0) + (self.material_penalty or 0))

    def option(self, letter: str) -> Option:
        opt = self._options.get(letter)
        if opt is None:
            opt = self._options[letter] = Option(
                letter=letter,
                object=self.object,
                state=self.state,
                pool=self.pool,  # type: ignore[arg-type]
                time_penalty=self.time_penalty,
                material_penalty=self.material_penalty,
            )
        return opt


@dataclass(frozen=True)
class _Group:
    items: tuple[_Cand, ...]
    k: int


@dataclass(frozen=True)
class _Stratum:
    """The option sets that share one correct option: its distractor groups."""

    correct: _Cand
    groups: tuple[_Group, ...]

    @property
    def weight(self) -> int:
        """Number of distinct distractor sets."""
        w = 1
        for g in self.groups:
            w *= math.comb(len(g.items), g.k)
        return w


def _draw(rng: random.Random, strata: Sequence[_Stratum], target: int) -> list[tuple[_Cand, list[_Cand]]]:
    """Draw ``min(target, #sets)`` distinct option sets uniformly without replacement.

    An option set is (stratum, distractor indices); distinct strata have distinct correct options, so
    distinct keys are distinct option sets.
    """
    weights = [s.weight for s in strata]
    total = sum(weights)
    n = min(target, total)
    if n <= 0:  # also covers target 0
        return []
    keys: list[tuple[int, tuple[tuple[int, ...], ...]]]
    if total <= _ENUMERATE_FACTOR * n + _ENUMERATE_SLACK:
        every = [
            (i, picks)
            for i, s in enumerate(strata)
            if weights[i]
            for picks in product(*(combinations(range(len(g.items)), g.k) for g in s.groups))
        ]
        keys = rng.sample(every, n)
    else:
        cum = list(accumulate(weights))
        seen: dict[tuple[int, tuple[tuple[int, ...], ...]], None] = {}
        budget = 100 * n + 1000
        while len(seen) < n:
            budget -= 1
            if budget < 0:  # cannot happen with >= 3/4 acceptance; guards against an endless loop
                raise RuntimeError(f"could not draw {n} distinct option sets out of {total}")
            i = bisect_right(cum, rng.randrange(total))
            key = (i, tuple(tuple(sorted(rng.sample(range(len(g.items)), g.k))) for g in strata[i].groups))
            seen.setdefault(key)
        keys = list(seen)
    out: list[tuple[_Cand, list[_Cand]]] = []
    for i, picks in keys:
        s = strata[i]
        out.append((s.correct, [s.groups[g].items[j] for g, idx in enumerate(picks) for j in idx]))
    return out


def _sub_rng(seed: int, *parts: object) -> random.Random:
    # hashlib, not hash(): stable across processes and PYTHONHASHSEED
    text = ":".join([str(seed), *(str(p) for p in parts)])
    return random.Random(int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big"))


def _floor_shares(weights: Sequence[int], total: int) -> list[int]:
    """COAT's per-combination shares: floor of the proportional share, remainder spread one by one."""
    s = sum(weights)
    shares = [int(w / s * total) for w in weights] if s else [0] * len(weights)
    inc, rem = divmod(total - sum(shares), len(weights))
    return [x + inc + (1 if i < rem else 0) for i, x in enumerate(shares)]


# ---------------------------------------------------------------- knowledge-base view


def _config_key(cfg: ObjectConfig) -> tuple[str, ...]:
    return (cfg.object, *(getattr(cfg.state, v).value for v in VARIABLES))


def _sort_configs(cfgs: Iterable[ObjectConfig]) -> list[ObjectConfig]:
    return sorted(cfgs, key=lambda c: (c.object, c.id if c.id is not None else 0, _config_key(c)))


@dataclass(frozen=True)
class _Combo:
    """Everything the stateful sets draw from for one combination, built once and reused by variations."""

    ideal: tuple[_Cand, ...]
    moderate: tuple[_Cand, ...]
    bad: tuple[_Cand, ...]
    context_nonideal: dict[str, tuple[_Cand, ...]]  # context object -> its non-ideal configurations
    context_others: dict[str, tuple[_Cand, ...]]  # context object -> non-ideal configs of the OTHER ones
    context_all: tuple[_Cand, ...]  # non-ideal configurations of every context object
    concept: tuple[_Cand, ...]  # configurations of utility objects that are not context objects
    random: tuple[_Cand, ...]  # configurations of objects of other utilities
    _worse: dict[tuple[str, int], tuple[_Cand, ...]] = field(default_factory=dict, compare=False, repr=False)

    def worse(self, pool: str, total: int) -> tuple[_Cand, ...]:
        """Moderate entries (``pool="moderate"``) or moderate+bad entries (``"entries"``) above ``total``."""
        key = (pool, total)
        if key not in self._worse:
            items = self.moderate if pool == "moderate" else self.moderate + self.bad
            self._worse[key] = tuple(y for y in items if y.total > total)
        return self._worse[key]


class _Index:
    """What the generator needs from the knowledge base, sorted, and cached per utility and combination."""

    def __init__(self, kb: KnowledgeBase, cost: CostModel | None = None) -> None:
        self.kb = kb
        self._cost = cost
        self.utilities: tuple[str, ...] = tuple(kb.utilities)
        self.combinations: tuple[tuple[str, str], ...] = tuple((c.utility, c.task) for c in kb.combinations)
        self.utility_objects = {u: sorted(kb.utility_objects(u)) for u in self.utilities}
        self.all_objects = sorted(kb.objects)
        # context objects of a utility's tasks that objects.json does not list under it (Desktop for
        # "time / tell me the time") are right answers too, so they are never drawn as wrong ones
        self.context_of_utility = {
            u: sorted({o for (uu, t) in self.combinations if uu == u for o in kb.context_objects(u, t)})
            for u in self.utilities
        }
        self.configs = {o: tuple(_sort_configs(kb.configurations_of(o))) for o in self.all_objects}
        self._objects: dict[tuple[str, str], _Cand] = {}
        self._plain: dict[tuple[str, str], tuple[_Cand, ...]] = {}
        self._combos: dict[tuple[str, str], _Combo] = {}

    @property
    def cost(self) -> CostModel:
        if self._cost is None:
            from ..knowledge.cost import CostModel

            self._cost = CostModel(self.kb)
        return self._cost

    def context(self, u: str, t: str) -> list[str]:
        return sorted(self.kb.context_objects(u, t))

    def other_objects(self, u: str, t: str | None = None) -> list[str]:
        """Objects of other utilities that are not a right answer (for a task, or for any task of ``u``)."""
        right = self.utility_objects[u] + (self.context(u, t) if t is not None else self.context_of_utility[u])
        return [o for o in self.all_objects if o not in right]

    def object_cand(self, obj: str, pool: str) -> _Cand:
        key = (obj, pool)
        if key not in self._objects:
            self._objects[key] = _Cand(("obj", obj), obj, None, pool)
        return self._objects[key]

    def plain_cands(self, objs: Iterable[str], pool: str) -> tuple[_Cand, ...]:
        """Configurations of these objects as options without penalties (concept / random)."""
        out: list[_Cand] = []
        for o in objs:
            if (o, pool) not in self._plain:
                self._plain[o, pool] = tuple(_Cand(_config_key(c), c.object, c.state, pool) for c in self.configs[o])
            out += self._plain[o, pool]
        return tuple(out)

    def combo(self, u: str, t: str) -> _Combo:
        if (u, t) not in self._combos:
            self._combos[u, t] = self._make_combo(u, t)
        return self._combos[u, t]

    def _make_combo(self, u: str, t: str) -> _Combo:
        def entry(e: Any, pool: str) -> _Cand:
            c = e.config
            return _Cand(_config_key(c), c.object, c.state, pool, int(e.time_penalty), int(e.material_penalty))

        ideal_keys = {_config_key(c) for c in self.kb.ideal(u, t)}
        # An ideal configuration is never a pool entry (COAT lists one, Lettuce/Hot for "giving raghav
        # something hot to eat", in both): it would be a "moderate" option that is really the best one.
        moderate = sorted(
            (entry(e, "moderate") for e in self.kb.moderate(u, t) if _config_key(e.config) not in ideal_keys),
            key=lambda c: c.key,
        )
        bad = sorted(
            (entry(e, "bad") for e in self.kb.bad(u, t) if _config_key(e.config) not in ideal_keys),
            key=lambda c: c.key,
        )
        pooled = {c.key: c for c in moderate + bad}

        def label(cfg: ObjectConfig) -> _Cand:
            # ideal, then the annotated pools; the cost model only prices configurations nobody pooled
            key = _config_key(cfg)
            if key in ideal_keys:
                return _Cand(key, cfg.object, cfg.state, "ideal", 0, 0)
            if key in pooled:
                return pooled[key]
            pen = self.cost.penalty(u, t, cfg)
            return _Cand(key, cfg.object, cfg.state, "context", pen.time_penalty, pen.material_penalty)

        ctx = self.context(u, t)
        concept_objs = [o for o in self.utility_objects[u] if o not in ctx]
        # A configuration nobody pooled that the cost model prices as free as an ideal one (19 in the data,
        # e.g. a Ceramic plate for "serving cake") would make a second right answer: never a distractor.
        nonideal = {
            o: tuple(
                x
                for x in (label(c) for c in self.configs[o] if _config_key(c) not in ideal_keys)
                if not (x.pool == "context" and x.total == 0)
            )
            for o in ctx
        }
        return _Combo(
            ideal=tuple(label(c) for c in _sort_configs(self.kb.ideal(u, t))),
            moderate=tuple(moderate),
            bad=tuple(bad),
            context_nonideal=nonideal,
            context_others={o: tuple(y for oo in ctx if oo != o for y in nonideal[oo]) for o in ctx},
            context_all=tuple(y for o in ctx for y in nonideal[o]),
            concept=self.plain_cands(concept_objs, "concept"),
            random=self.plain_cands(self.other_objects(u, t), "random"),
        )


# ---------------------------------------------------------------- per-set recipes


def _targets(idx: _Index, set_name: str, size: int) -> list[tuple[str, str | None, int]]:
    """(utility, task, questions wanted) in generation order."""
    if set_name == "task_u":
        shares = _utility_shares(idx, size)
        return [(u, None, shares[u]) for u in idx.utilities]
    if set_name == "task0":
        shares = _utility_shares(idx, size)
        out: list[tuple[str, str | None, int]] = []
        for u in idx.utilities:
            tasks = [t for (uu, t) in idx.combinations if uu == u]
            each = shares[u] // len(tasks) if tasks else 0
            for i, t in enumerate(tasks):
                out.append((u, t, shares[u] - each * (len(tasks) - 1) if i == len(tasks) - 1 else each))
        return out
    weights = [len(idx.kb.moderate(u, t)) + len(idx.kb.bad(u, t)) for u, t in idx.combinations]
    return [(u, t, n) for (u, t), n in zip(idx.combinations, _floor_shares(weights, size), strict=True)]


def _utility_shares(idx: _Index, size: int) -> dict[str, int]:
    counts = [len(idx.utility_objects[u]) for u in idx.utilities]
    total = sum(counts)
    shares = {u: int(c / total * size) for u, c in zip(idx.utilities, counts, strict=True)}
    shares[idx.utilities[-1]] += size - sum(shares.values())  # COAT gives the rounding remainder to the last
    return shares


def _strata(idx: _Index, var: Variation, u: str, t: str) -> tuple[list[_Stratum], int | None]:
    """The option sets of one combination as strata, and an extra cap on the question count (or None)."""
    n = var.n_options
    if var.set == "task_u":  # here t is "" and unused: Task-u questions are per utility
        group = _Group(tuple(idx.object_cand(o, "other") for o in idx.other_objects(u)), n - 1)
        return [_Stratum(idx.object_cand(o, "utility"), (group,)) for o in idx.utility_objects[u]], None
    ctx = idx.context(u, t)
    if var.set == "task0":
        concept = tuple(idx.object_cand(o, "concept") for o in idx.utility_objects[u] if o not in ctx)
        m = len(concept)
        if m >= n - 1:
            groups: tuple[_Group, ...] = (_Group(concept, n - 1),)
            cap: int | None = math.comb(m, n - 1)  # COAT's cap: distinct concept-distractor sets
        else:
            rand = tuple(idx.object_cand(o, "random") for o in idx.other_objects(u, t))
            groups, cap = (_Group(concept, m), _Group(rand, n - 1 - m)), None
        return [_Stratum(idx.object_cand(o, "context"), groups) for o in ctx], cap
    c = idx.combo(u, t)
    if var.set == "task2":
        (_, m), (_, b) = var.mix
        # stratum = the lowest moderate; the others are strictly worse, so ties never occur
        return [_Stratum(x, (_Group(c.worse("moderate", x.total), m - 1), _Group(c.bad, b))) for x in c.moderate], None
    if var.set == "task1":
        (_, s), (_, d) = var.mix
        return [
            _Stratum(
                x,
                (
                    _Group(c.context_nonideal[x.object], s),
                    _Group(c.context_others[x.object], d),
                ),
            )
            for x in c.ideal
        ], None
    (_, a), (_, b), (_, r) = var.mix
    concept, rand = _Group(c.concept, b), _Group(c.random, r)
    if var.set == "full_ideal":
        context = _Group(c.context_all, a)
        return [_Stratum(x, (context, concept, rand)) for x in c.ideal], None
    # full_moderate: context distractors are pool entries strictly worse than the correct moderate
    return [_Stratum(x, (_Group(c.worse("entries", x.total), a), concept, rand)) for x in c.moderate], None


def _question_text(idx: _Index, set_name: str, u: str, t: str | None) -> str:
    tpl = idx.kb.templates.question_templates[_TEMPLATE_KEY[set_name]]
    return tpl.format(phrase=idx.kb.templates.utility_phrases[u], utility=u, task=t)


def _build_variation(idx: _Index, var: Variation, seed: int, size: int) -> list[Question]:
    out: list[Question] = []
    for u, t, target in _targets(idx, var.set, size):
        if target <= 0:
            continue
        rng = _sub_rng(seed, var.set, var.number, u, t or "")
        strata, cap = _strata(idx, var, u, t or "")
        drawn = _draw(rng, strata, _count(target, strata, cap))
        if len(drawn) < target:
            logger.debug("%s v%d %s / %s: %d of %d questions", var.set, var.number, u, t, len(drawn), target)
        text = _question_text(idx, var.set, u, t)
        for correct, distractors in drawn:
            cands = [correct, *distractors]
            rng.shuffle(cands)
            out.append(
                Question(
                    id=f"{var.set}-v{var.number:02d}-{len(out) + 1:05d}",
                    set=var.set,  # type: ignore[arg-type]
                    variation=var.number,
                    utility=u,
                    task=t,
                    text=text,
                    options=tuple(c.option(LETTERS[i]) for i, c in enumerate(cands)),
                    answer=LETTERS[cands.index(correct)],
                )
            )
    return out


# ---------------------------------------------------------------- public API


def _sizes(kb: KnowledgeBase, overrides: Mapping[str, int] | None) -> dict[str, int]:
    sizes = dict(_DEFAULT_SIZES)
    raw = getattr(kb.templates, "sizes", None) or {}
    items = raw.items() if isinstance(raw, Mapping) else vars(raw).items()
    sizes.update({k: int(v) for k, v in items if k in sizes})
    out = {s: sizes[_SIZE_KEY[s]] for s in QUESTION_SETS}
    for k, v in (overrides or {}).items():
        _check_set(k)
        if int(v) < 0:
            raise ConfigError(f"size for {k!r} must be >= 0, got {v}")
        out[k] = int(v)
    return out


def _select_sets(sets: Iterable[str] | None) -> list[str]:
    if sets is None:
        return list(QUESTION_SETS)
    wanted = list(dict.fromkeys(sets))
    for s in wanted:
        _check_set(s)
    return [s for s in QUESTION_SETS if s in wanted]


def iter_sets(
    kb: KnowledgeBase,
    seed: int = 0,
    sets: Iterable[str] | None = None,
    *,
    only: Mapping[str, Iterable[int]] | None = None,
    sizes: Mapping[str, int] | None = None,
    progress: bool = False,
    cost: CostModel | None = None,
) -> Iterator[tuple[tuple[str, int], list[Question]]]:
    """Generate the question sets one variation at a time (memory stays at one variation).

    Args:
        kb: Loaded knowledge base (:func:`planner.knowledge.load_knowledge`).
        seed: Master seed; every (set, variation, combination) derives its own stream from it.
        sets: Set names to build (default: all of ``QUESTION_SETS``), built in ``QUESTION_SETS`` order.
        only: Optional ``{set: [variation numbers]}`` restricting which variations are built.
        sizes: Optional ``{set: per-variation target}`` overriding ``templates.json`` ``sizes``.
        progress: Show a tqdm progress bar over variations.
        cost: Cost model for the penalties of unpooled context configurations (default: built from ``kb``).

    Yields:
        ``((set, variation), questions)`` in set order, then variation order.

    Raises:
        UnknownIdError: for an unknown set or variation number.
        ConfigError: for a negative size.
    """
    chosen = _select_sets(sets)
    size = _sizes(kb, sizes)
    plan: list[Variation] = []
    for s in chosen:
        vs = variations(kb, s)
        if only and s in only:
            numbers = {v.number: v for v in vs}
            for n in only[s]:
                if n not in numbers:
                    raise UnknownIdError(f"{s} has no variation {n}; valid: 1..{len(vs)}")
            vs = tuple(numbers[n] for n in sorted(set(only[s])))
        plan += vs
    idx = _Index(kb, cost)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(plan), unit="variation", desc="question sets")
    try:
        for var in plan:
            if bar is not None:
                bar.set_postfix_str(f"{var.set} v{var.number}")
            qs = _build_variation(idx, var, seed, size[var.set])
            logger.debug("%s variation %d: %d questions", var.set, var.number, len(qs))
            yield (var.set, var.number), qs
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def plan_counts(
    kb: KnowledgeBase,
    sets: Iterable[str] | None = None,
    *,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[tuple[str, int], int]:
    """Question counts a build would produce, computed from the option-set counts without sampling.

    A combination always gets ``min(target, cap, number of valid option sets)`` questions, so this is
    exact and takes a fraction of a second per set.

    Args:
        kb: Loaded knowledge base.
        sets: Set names (default: all).
        sizes: Optional per-variation target overrides.
        cost: Optional cost model.

    Returns:
        ``{(set, variation): count}`` in build order.
    """
    idx = _Index(kb, cost)
    size = _sizes(kb, sizes)
    out: dict[tuple[str, int], int] = {}
    for s in _select_sets(sets):
        for var in variations(kb, s):
            out[s, var.number] = sum(
                _count(target, *_strata(idx, var, u, t or "")) for u, t, target in _targets(idx, s, size[s])
            )
    return out


def _count(target: int, strata: Sequence[_Stratum], cap: int | None) -> int:
    return max(0, min(target, sum(st.weight for st in strata), target if cap is None else cap))


def build_sets(
    kb: KnowledgeBase,
    seed: int = 0,
    sets: Iterable[str] | None = None,
    progress: bool = True,
    *,
    only: Mapping[str, Iterable[int]] | None = None,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[tuple[str, int], list[Question]]:
    """Build question sets in memory.

    All six sets hold about 455K questions (~2.5 GB as pydantic objects); prefer :func:`write_sets`
    (which streams) or :func:`iter_sets` for the full build.

    Args:
        kb: Loaded knowledge base.
        seed: Master seed.
        sets: Set names (default: all).
        progress: Show a progress bar.
        only: Optional ``{set: [variation numbers]}`` restriction.
        sizes: Optional per-variation target overrides.
        cost: Optional cost model (default: built from ``kb``).

    Returns:
        ``{(set, variation): [Question, ...]}`` in build order.
    """
    return dict(iter_sets(kb, seed, sets, only=only, sizes=sizes, progress=progress, cost=cost))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def data_checksums(data_dir: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """SHA-256 of every COAT file the generator reads, keyed by path under ``coat/``."""
    root = resolve_data_dir(data_dir) / "coat"
    return {name: _sha256(root / name) for name in COAT_FILES}


def variation_path(out: str | os.PathLike[str], set_name: str, variation: int) -> Path:
    """Path of one variation's JSONL file under an output directory."""
    return Path(out) / set_name / f"variation_{variation}.jsonl"


def write_sets(
    kb: KnowledgeBase,
    out: str | os.PathLike[str],
    seed: int = 0,
    sets: Iterable[str] | None = None,
    progress: bool = True,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[str, Any]:
    """Build question sets and write them as JSONL files plus ``manifest.json``.

    Each file is written to a temporary name and renamed, so an interrupted build never leaves a
    truncated variation. When ``out`` already has a manifest from the same seed, generator version and
    data, its entries for sets not rebuilt now are kept; otherwise the manifest is replaced.

    Args:
        kb: Loaded knowledge base.
        out: Output directory (created if needed).
        seed: Master seed.
        sets: Set names (default: all).
        progress: Show a progress bar.
        data_dir: Data root for the checksums (default: the one the knowledge base was loaded from).
        sizes: Optional per-variation target overrides.
        cost: Optional cost model.

    Returns:
        The manifest written.
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    checksums = data_checksums(data_dir if data_dir is not None else kb.root)
    manifest: dict[str, Any] = {
        "generator": "planner.bench.datasets",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "sizes": _sizes(kb, sizes),
        "data_checksums": checksums,
        "counts": {},
        "files": {},
    }
    old = _read_manifest(root)
    if old and all(old.get(k) == manifest[k] for k in ("generator_version", "seed", "sizes", "data_checksums")):
        manifest["counts"] = old.get("counts", {})
        manifest["files"] = old.get("files", {})
    built = _select_sets(sets)
    for s in built:  # a rebuilt set replaces all of its old entries
        manifest["counts"].pop(s, None)
        for f in [f for f in manifest["files"] if f.startswith(f"{s}/")]:
            del manifest["files"][f]
    for (s, v), qs in iter_sets(kb, seed, built, sizes=sizes, progress=progress, cost=cost):
        path = variation_path(root, s, v)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            for q in qs:
                f.write(q.model_dump_json(exclude_none=True))
                f.write("\n")
        os.replace(tmp, path)
        manifest["counts"].setdefault(s, {})[str(v)] = len(qs)
        manifest["files"][path.relative_to(root).as_posix()] = {"questions": len(qs), "sha256": _sha256(path)}
    manifest["counts"] = {s: manifest["counts"][s] for s in QUESTION_SETS if s in manifest["counts"]}
    manifest["totals"] = {s: sum(c.values()) for s, c in manifest["counts"].items()}
    manifest["files"] = dict(sorted(manifest["files"].items()))
    tmp = root / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, root / MANIFEST)
    logger.info("wrote %d questions to %s", sum(manifest["totals"].values()), root)
    return manifest


def _read_manifest(root: Path) -> dict[str, Any] | None:
    path = root / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"not valid JSON ({e}); delete it and rebuild") from e
    if not isinstance(data, dict):
        raise DataError(path, "", "expected a JSON object")
    return data


def read_manifest(out: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return the manifest of an output directory, or None when it has none.

    Raises:
        DataError: if the manifest exists but is not valid JSON.
    """
    return _read_manifest(Path(out))


def _variation_files(root: Path, set_name: str | None, variation: int | None) -> list[Path]:
    if set_name is not None:
        _check_set(set_name)
    sets = [set_name] if set_name is not None else [s for s in QUESTION_SETS if (root / s).is_dir()]
    files: list[Path] = []
    for s in sets:
        if variation is not None:
            path = variation_path(root, s, variation)
            if not path.is_file():
                raise DataNotFoundError(f"no question file {path}; build it with `coat datasets build --set {s}`")
            files.append(path)
            continue
        found = []
        for p in (root / s).glob("variation_*.jsonl"):
            num = p.stem.removeprefix("variation_")
            if num.isdigit():
                found.append((int(num), p))
        if set_name is not None and not found:
            raise DataNotFoundError(
                f"no question files under {root / s}; build them with `coat datasets build --set {s}`"
            )
        files += [p for _, p in sorted(found)]
    if not files:
        raise DataNotFoundError(f"no question files under {root}; build them with `coat datasets build --out {root}`")
    return files


def load_questions(
    path: str | os.PathLike[str], set: str | None = None, variation: int | None = None
) -> list[Question]:
    """Load questions from one JSONL file or from an output directory of :func:`write_sets`.

    Args:
        path: A ``.jsonl`` file, or a directory laid out as ``<set>/variation_<N>.jsonl``.
        set: Only this set (for a directory: only its files; for a file: filter).
        variation: Only this variation number.

    Returns:
        The questions, in file order (sets in ``QUESTION_SETS`` order, variations in numeric order).

    Raises:
        DataNotFoundError: if the path, or the requested set / variation file, does not exist.
        DataError: for a line that is not a valid question, naming the file and line number.
        UnknownIdError: for an unknown set name.
    """
    root = Path(path)
    if root.is_dir():
        files = _variation_files(root, set, variation)
    elif root.is_file():
        if set is not None:
            _check_set(set)
        files = [root]
    else:
        raise DataNotFoundError(f"question file or directory {root} does not exist")
    out: list[Question] = []
    for file in files:
        with open(file, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    q = Question.model_validate_json(line)
                except ValidationError as e:
                    first = e.errors()[0]
                    where = ".".join(str(x) for x in first.get("loc", ())) or "<line>"
                    raise DataError(file, f"line {lineno}", f"invalid question at {where}: {first.get('msg')}") from e
                if (set is None or q.set == set) and (variation is None or q.variation == variation):
                    out.append(q)
    return out


__all__ = [
    "GENERATOR_VERSION",
    "MANIFEST",
    "PAPER_TOTALS",
    "TASK1_MIXES",
    "TASK2_MIXES",
    "Variation",
    "build_sets",
    "data_checksums",
    "iter_sets",
    "load_questions",
    "plan_counts",
    "read_manifest",
    "variation_path",
    "variations",
    "write_sets",
]
