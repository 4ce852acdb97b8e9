"""A COAT question set generated on demand: a sample of it builds only the combinations it draws from.

``coat eval`` and ``coat ablate`` answer a few hundred questions of sets that hold 60,000 to 155,000. Generating a
whole set, and hashing every question of it for the run's identity, took 3 to 13 s per set on 2 cores, and an
ablation did it twice per set: most of ``coat ablate --llm fake``'s time. :func:`generated_set` gives each
variation as a :class:`GeneratedVariation`, a sequence whose length comes from the option-set counts
(:func:`~planner.bench.sampling.variation_plan`, nothing drawn) and whose questions are built one combination at a
time: the questions, in the order and with the ids the full build gives them
(``tests/planner/test_datasets.py::test_a_set_generated_on_demand_is_the_built_set``).

What identifies such a set (:func:`generated_fingerprint`, recorded with a run's rows so a resume never mixes two
sets) is what decides its questions: the set, the variations, the seed, the per-variation size, every variation's
count, the generator's version and the checksums of the COAT files, plus the first question of every variation
(built, so a change of the generator that did not bump :data:`~planner.bench.datasets.GENERATOR_VERSION` is still
caught in most cases).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any, overload

from ..errors import UnknownIdError
from ..schemas import Question
from .sampling import SamplingIndex, Variation, build_group, check_set, variation_plan, variations

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase


class GeneratedVariation(Sequence[Question]):
    """The questions of one variation, built one combination at a time as they are read (and kept)."""

    def __init__(self, idx: SamplingIndex, var: Variation, seed: int, size: int) -> None:
        self.variation = var
        self.seed = seed
        self.size = size
        self._idx = idx
        self._plan = variation_plan(idx, var, size)
        self._starts = list(accumulate((count for _, _, count, _ in self._plan), initial=0))
        self._built: dict[int, list[Question]] = {}

    def __repr__(self) -> str:
        return f"GeneratedVariation({self.variation.set!r}, {self.variation.number}, seed={self.seed}, n={len(self)})"

    def __len__(self) -> int:
        return self._starts[-1]

    def _group(self, g: int) -> list[Question]:
        built = self._built.get(g)
        if built is None:
            u, t, count, strata = self._plan[g]
            built = self._built[g] = build_group(self._idx, self.variation, self.seed, u, t, strata, count,
                                                 self._starts[g])
        return built

    @overload
    def __getitem__(self, i: int) -> Question: ...

    @overload
    def __getitem__(self, i: slice) -> list[Question]: ...

    def __getitem__(self, i: int | slice) -> Question | list[Question]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        k = i + n if i < 0 else i
        if not 0 <= k < n:
            raise IndexError(f"question {i} of {n}")
        g = bisect_right(self._starts, k) - 1
        return self._group(g)[k - self._starts[g]]

    def __iter__(self) -> Iterator[Question]:
        for g in range(len(self._plan)):
            yield from self._group(g)

    def identity(self) -> dict[str, Any]:
        """What decides these questions besides the generator and the data (see the module docstring)."""
        return {"set": self.variation.set, "variation": self.variation.number, "seed": self.seed, "size": self.size,
                "count": len(self), "first": self[0].model_dump(mode="json") if len(self) else None}


def generated_set(kb: KnowledgeBase, set_name: str, seed: int = 0, *, variation: int | None = None,
                  size: int | None = None) -> dict[int, GeneratedVariation]:
    """The variations of a set (or one of them), generated on demand from ``kb`` with ``seed``.

    Args:
        kb: Loaded knowledge base.
        set_name: One of :data:`~planner.schemas.QUESTION_SETS`.
        seed: Master seed, as for :func:`~planner.bench.datasets.iter_sets`.
        variation: Only this variation.
        size: Per-variation target (default: ``templates.json`` ``sizes``, as the build).

    Raises:
        UnknownIdError: unknown set or variation.
    """
    from .datasets import set_sizes

    check_set(set_name)
    vs = variations(kb, set_name)
    if variation is not None:
        vs = tuple(v for v in vs if v.number == variation)
        if not vs:
            raise UnknownIdError(f"{set_name} has no variation {variation}; valid: 1..{len(variations(kb, set_name))}")
    idx = SamplingIndex(kb)
    n = set_sizes(kb)[set_name] if size is None else size
    return {v.number: GeneratedVariation(idx, v, seed, n) for v in vs}


def generated_fingerprint(kb: KnowledgeBase, groups: Mapping[int, GeneratedVariation]) -> str:
    """The fingerprint of a generated set (see the module docstring); the data's checksums are read from ``kb.root``."""
    from ..paths import data_checksums
    from ..results import fingerprint
    from .datasets import GENERATOR_VERSION

    return fingerprint({"generated": [g.identity() for _, g in sorted(groups.items())],
                        "generator": GENERATOR_VERSION, "data": data_checksums(kb.root)})


__all__ = ["GeneratedVariation", "generated_fingerprint", "generated_set"]
