"""How the question sets are drawn: variations, stratified sampling without repeats, and per-set recipes.

:mod:`planner.bench.datasets` is the public side (build, write, read the sets); this module holds the
machinery it runs: a view of the knowledge base indexed for sampling, each set's strata of option sets, and
the seeded draw.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, combinations, product
from typing import TYPE_CHECKING, Any

from ..errors import DataError, UnknownIdError
from ..schemas import LETTERS, QUESTION_SETS, VARIABLES, ObjectConfig, Option, PhysicalState, Question

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from ..knowledge.cost import CostModel

logger = logging.getLogger(__name__)

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
SIZE_KEY = {
    "task_u": "task_u_questions_per_variation",
    "task0": "task_0_target_per_variation",
    "task1": "task_1_target_per_variation",
    "task2": "task_2_target_per_variation",
    # COAT sizes the full-pipeline sets like Task-1 (same per-combination shares)
    "full_ideal": "task_1_target_per_variation",
    "full_moderate": "task_1_target_per_variation",
}
DEFAULT_SIZES = {
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
    check_set(set_name)
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


def check_set(set_name: str) -> None:
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
class Stratum:
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


def _draw(rng: random.Random, strata: Sequence[Stratum], target: int) -> list[tuple[_Cand, list[_Cand]]]:
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


class SamplingIndex:
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


def targets_for(idx: SamplingIndex, set_name: str, size: int) -> list[tuple[str, str | None, int]]:
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


def _utility_shares(idx: SamplingIndex, size: int) -> dict[str, int]:
    counts = [len(idx.utility_objects[u]) for u in idx.utilities]
    total = sum(counts)
    shares = {u: int(c / total * size) for u, c in zip(idx.utilities, counts, strict=True)}
    shares[idx.utilities[-1]] += size - sum(shares.values())  # COAT gives the rounding remainder to the last
    return shares


def strata_for(idx: SamplingIndex, var: Variation, u: str, t: str) -> tuple[list[Stratum], int | None]:
    """The option sets of one combination as strata, and an extra cap on the question count (or None)."""
    n = var.n_options
    if var.set == "task_u":  # here t is "" and unused: Task-u questions are per utility
        group = _Group(tuple(idx.object_cand(o, "other") for o in idx.other_objects(u)), n - 1)
        return [Stratum(idx.object_cand(o, "utility"), (group,)) for o in idx.utility_objects[u]], None
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
        return [Stratum(idx.object_cand(o, "context"), groups) for o in ctx], cap
    c = idx.combo(u, t)
    if var.set == "task2":
        (_, m), (_, b) = var.mix
        # stratum = the lowest moderate; the others are strictly worse, so ties never occur
        return [Stratum(x, (_Group(c.worse("moderate", x.total), m - 1), _Group(c.bad, b))) for x in c.moderate], None
    if var.set == "task1":
        (_, s), (_, d) = var.mix
        return [
            Stratum(
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
        return [Stratum(x, (context, concept, rand)) for x in c.ideal], None
    # full_moderate: context distractors are pool entries strictly worse than the correct moderate
    return [Stratum(x, (_Group(c.worse("entries", x.total), a), concept, rand)) for x in c.moderate], None


def _question_text(idx: SamplingIndex, set_name: str, u: str, t: str | None) -> str:
    tpl = idx.kb.templates.question_templates[_TEMPLATE_KEY[set_name]]
    return tpl.format(phrase=idx.kb.templates.utility_phrases[u], utility=u, task=t)


def variation_plan(idx: SamplingIndex, var: Variation, size: int) -> list[tuple[str, str | None, int, list[Stratum]]]:
    """A variation's combinations in generation order: ``(utility, task, questions, option sets)``, nothing drawn.

    The counts are exact (:func:`question_count`), and each combination draws from its own stream, so any one of
    them can be built alone (:func:`build_group`) with the questions and ids the whole variation would give it.
    """
    out: list[tuple[str, str | None, int, list[Stratum]]] = []
    for u, t, target in targets_for(idx, var.set, size):
        if target <= 0:
            continue
        strata, cap = strata_for(idx, var, u, t or "")
        count = question_count(target, strata, cap)
        if count < target:
            logger.debug("%s v%d %s / %s: %d of %d questions", var.set, var.number, u, t, count, target)
        out.append((u, t, count, strata))
    return out


def build_group(idx: SamplingIndex, var: Variation, seed: int, u: str, t: str | None, strata: Sequence[Stratum],
                count: int, first: int) -> list[Question]:
    """The ``count`` questions of one combination of a variation, numbered from ``first + 1``."""
    rng = _sub_rng(seed, var.set, var.number, u, t or "")
    text = _question_text(idx, var.set, u, t)
    out: list[Question] = []
    for correct, distractors in _draw(rng, strata, count):
        cands = [correct, *distractors]
        rng.shuffle(cands)
        out.append(
            Question(
                id=f"{var.set}-v{var.number:02d}-{first + len(out) + 1:05d}",
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


def build_variation(idx: SamplingIndex, var: Variation, seed: int, size: int) -> list[Question]:
    """Every question of a variation, in generation order."""
    out: list[Question] = []
    for u, t, count, strata in variation_plan(idx, var, size):
        out += build_group(idx, var, seed, u, t, strata, count, len(out))
    return out


def question_count(target: int, strata: Sequence[Stratum], cap: int | None) -> int:
    return max(0, min(target, sum(st.weight for st in strata), target if cap is None else cap))
