"""Deciding whether a trait is dominant from observed crosses: Mendel's model, computed over a pedigree.

The rule the genetics play uses (:mod:`.genetics`), derived from Mendel's laws, with nothing else assumed:

- one gene with two alleles decides the trait: ``V`` (the asked value, e.g. *tall*) and ``o`` (the other);
- a plant shows V when it carries V twice under "V recessive", and when it carries V at least once under
  "V dominant" (complete dominance, as in Mendel's pea traits);
- every seed gets one allele from its mother and one from its father, each parent's two alleles equally
  likely (segregation). ScienceWorld's plants do not self-pollinate (a single plant with bees set no seed
  on train variation 30 of mendelian-genetics-known-plant), so a seed's father is another flowering plant:
  the other parent, or, once offspring flower too, any of them (a mixture, each equally likely);
- the parents' genotypes are not seen: a founder plant's genotype has the prior of a population with both
  alleles equally common (1/4 VV, 1/2 Vo, 1/4 oo), then conditioned on the trait it shows.

:func:`dominance_probability` returns P(V is dominant | every phenotype seen), the two hypotheses equally
likely beforehand, by summing the likelihood over the unseen genotypes. What it gives on the usual
experiments (``n`` offspring seen):

- parents showing different values, every offspring shows V: P = 1 - 1/(2^(n-1) + 2) (n = 4: 0.90); if V were
  recessive, the parent showing the other value would have to carry V and pass it ``n`` times in a row;
- parents both showing V, an offspring shows the other value: P = 1 (a value absent in both parents and
  present in a child is recessive);
- Mendel's F2 (two F1 plants of the same value, offspring 3:1): the majority value is dominant;
- parents showing different values, offspring half and half (a test cross): P stays near 1/2 (no decision).

Example:
    >>> p = Pedigree()
    >>> a, b = p.add(shows=True), p.add(shows=False)
    >>> for _ in range(4):
    ...     _ = p.add(shows=True, parents=(a, b))
    >>> round(dominance_probability(p), 3)
    0.9
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

FOUNDER_PRIOR: tuple[float, float, float] = (0.25, 0.5, 0.25)
"""P(the plant carries V 0, 1, 2 times) for a plant of unknown parents: both alleles equally common."""


@dataclass(frozen=True)
class Plant:
    """One individual: whether it shows the asked value (None: not seen yet), its mother and its possible
    fathers (a founder has neither). Several fathers: any of them, equally likely (bees carry pollen from
    every flowering plant)."""

    shows: bool | None
    mother: int | None = None
    fathers: tuple[int, ...] = ()

    @property
    def parents(self) -> tuple[int, ...]:
        """Mother and possible fathers."""
        return () if self.mother is None else (self.mother, *self.fathers)


@dataclass
class Pedigree:
    """The individuals of one experiment, founders first (a parent is added before its offspring)."""

    plants: list[Plant] = field(default_factory=list)

    def add(self, shows: bool | None, parents: tuple[int, int] | None = None, *, mother: int | None = None,
            fathers: tuple[int, ...] = ()) -> int:
        """Add an individual: ``parents=(mother, father)``, or a ``mother`` and her possible ``fathers``; its index.

        Raises:
            ValueError: a parent not added yet, or a mother without a father (no selfing).
        """
        if parents is not None:
            mother, fathers = parents[0], (parents[1],)
        ids = () if mother is None else (mother, *fathers)
        if not all(0 <= i < len(self.plants) for i in ids) or (mother is not None and not fathers):
            raise ValueError(f"mother {mother}, fathers {fathers}: parents must be added before their offspring, "
                             "and a mother needs a father (no selfing)")
        self.plants.append(Plant(shows, mother, tuple(fathers)))
        return len(self.plants) - 1


def _shows_value(copies: int, dominant: bool) -> bool:
    return copies >= 1 if dominant else copies == 2


def _child_copies(mother: int, father: int) -> tuple[float, float, float]:
    """P(a child carries V 0, 1, 2 times) given its parents' copies (each passes V with probability copies/2)."""
    m, f = mother / 2, father / 2
    return ((1 - m) * (1 - f), m * (1 - f) + (1 - m) * f, m * f)


def _prior(p: Plant, g: dict[int, int]) -> tuple[float, float, float]:
    if p.mother is None:
        return FOUNDER_PRIOR
    each = [_child_copies(g[p.mother], g[f]) for f in p.fathers]
    return tuple(sum(c[k] for c in each) / len(each) for k in range(3))  # type: ignore[return-value]


def _fits(p: Plant, copies: int, dominant: bool) -> float:
    return 1.0 if p.shows is None or p.shows == _shows_value(copies, dominant) else 0.0


def likelihood(pedigree: Pedigree, dominant: bool) -> float:
    """P(every phenotype seen | V dominant or recessive), summed over the genotypes nobody sees.

    Plants with offspring in the pedigree are enumerated jointly (few in a greenhouse: the parents and the
    F1 plants crossed again); a plant without offspring is summed out alone, given its parents.
    """
    plants = pedigree.plants
    parents_of = {i for p in plants for i in p.parents}
    inner = sorted(parents_of)
    total = 0.0
    for combo in itertools.product(range(3), repeat=len(inner)):
        g = dict(zip(inner, combo, strict=True))
        w = 1.0
        for i in inner:
            p = plants[i]
            w *= _prior(p, g)[g[i]] * _fits(p, g[i], dominant)
            if w == 0.0:
                break
        if w == 0.0:
            continue
        for i, p in enumerate(plants):
            if i in g:
                continue
            prior = _prior(p, g)
            w *= sum(prior[c] * _fits(p, c, dominant) for c in range(3))
            if w == 0.0:
                break
        total += w
    return total


def dominance_probability(pedigree: Pedigree) -> float | None:
    """P(the asked value is dominant | what was seen); None when neither hypothesis explains the observations
    (e.g. a misread trait, or a trait that is not inherited the simple way)."""
    dom, rec = likelihood(pedigree, True), likelihood(pedigree, False)
    if dom + rec == 0.0:
        return None
    return dom / (dom + rec)


__all__ = ["FOUNDER_PRIOR", "Pedigree", "Plant", "dominance_probability", "likelihood"]
