"""Physical-state cost model: how costly it is to use a configuration for a (utility, task) combination.

:class:`CostModel` computes COAT's ``time_penalty`` and ``material_penalty`` and the class (ideal /
moderate / bad) of ANY configuration of a context object, from the annotations alone (ideal
configurations and material preferences); it never looks at ``pouch_suboptimal.json``. It reproduces
every one of COAT's 4,813 pool entries and 280 ideal configurations, with one documented exception
(below), and also prices configurations COAT never listed (a robot's plastic knife, a metal pot).

The rules (checked against the data; they are those of COAT's generator
``gt-gen/task_2_subop_ranking_gt.py``, which differ from the simplified summary in ``notes/coat.md`` in
the material part):

1. **Ideal.** A configuration that matches one of the combination's ideal configurations in material,
   temperature, availability and condition (mass never enters the penalties) costs 0/0, label ``ideal``.
2. **time_penalty** = availability (free 0, reversible-using 80, irreversible-using 500)
   + condition (clean 0, dirty 50, broken 500)
   + temperature against the object's *reference* temperature, the temperature of its last ideal
   configuration in the combination (COAT compares against that one only):
   equal 0; Hot or Cold when RoomTemp is wanted 100 (wait for it to warm or cool naturally);
   RoomTemp when Hot or Cold is wanted 30; Hot when Cold is wanted, or Cold when Hot is wanted, 60.
   Only "eating / giving raghav something hot to eat" has reference temperatures other than RoomTemp,
   which is why the notes call its 0/30/60 an exception.
3. **material_penalty**, from the object's material preference ``good`` (ascending, n materials) and
   ``bad`` lists. An object with a single listed material (COAT's common values have one material) costs
   0 for it. Otherwise, with k = 1 if n <= 3, 2 if n <= 5, else 3:
   a ``bad`` material 500; one of the k *least* preferred good materials 200 (checked first, so the lone
   good material of an object whose other materials are all bad costs 200); one of the k most preferred
   0; any good material in between ``10 * (n - index)`` (20, 30 or 40 in the data).
   A material in neither list (never seen by COAT's annotators) costs ``unlisted_material_penalty``
   (200 by default: usable but not preferred).
4. **label**: ``bad`` when either penalty is 500 or more (irreversible-using, broken, or a bad material),
   else ``moderate``. Every moderate total is at most 430, below every bad total.

Where the rules and COAT's own files disagree:

- Lettuce (Hot, free, clean) for "eating / giving raghav something hot to eat" is annotated ideal (Lettuce
  has two ideal temperatures, Hot and Cold) but also sits in the moderate pool with time_penalty 60
  (COAT's generator compared against the last ideal temperature, Cold). Rule 1 wins: it is ideal, 0/0.
  It is the only one of the 4,813 pool entries not reproduced.
- Four ideal configurations would not be free of material penalty under rule 3 (Fork/Metal for three
  breaking tasks: a lone good material; Bowl/Glass for "carrying / serve potato dish": 40), and 19
  configurations cost 0/0 under rules 2-3 without being annotated ideal (e.g. Plate/Ceramic for "carrying /
  cooking & serving toast"; COAT's ideal file was made from an earlier material ranking). The annotation
  decides the label: the former are ideal, the latter are ``moderate`` with 0/0, so they rank right after
  the ideal ones. :meth:`CostModel.is_ideal` therefore agrees with COAT's Task-1 ground truth.

Example:
    >>> from planner.knowledge import load_knowledge                     # doctest: +SKIP
    >>> cm = CostModel(load_knowledge())                                 # doctest: +SKIP
    >>> s = PhysicalState(mass="light", material="Metal", temperature="RoomTemp",
    ...                   already_in_use="reversible-using", condition="dirty")  # doctest: +SKIP
    >>> cm.penalty("cutting", "cut apple", ObjectConfig(object="Knife", state=s))  # doctest: +SKIP
    Penalty(time_penalty=130, material_penalty=0, label='moderate')
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import UnknownIdError
from ..schemas import Condition, InUse, Material, ObjectConfig, Penalty, PhysicalState, Temperature
from .base import KnowledgeBase, MaterialPreference
from .loader import load_knowledge

AVAILABILITY_PENALTY: Mapping[InUse, int] = {InUse.FREE: 0, InUse.REVERSIBLE: 80, InUse.IRREVERSIBLE: 500}
"""Time to free an object that is in use (irreversible: it cannot be had in time)."""

CONDITION_PENALTY: Mapping[Condition, int] = {Condition.CLEAN: 0, Condition.DIRTY: 50, Condition.BROKEN: 500}
"""Time to clean a dirty object; a broken one is unusable."""

NATURAL_TEMPERATURE_CHANGE = 100
"""Waiting for a hot or cold object to reach room temperature."""
APPLIANCE_TEMPERATURE_CHANGE = 30
"""Heating or cooling a room-temperature object with an appliance (stove, fridge)."""
APPLIANCE_TEMPERATURE_SWING = 60
"""Heating a cold object, or chilling a hot one, with an appliance."""

TEMPERATURE_PENALTY: Mapping[tuple[Temperature, Temperature], int] = {
    (Temperature.HOT, Temperature.ROOM): NATURAL_TEMPERATURE_CHANGE,
    (Temperature.COLD, Temperature.ROOM): NATURAL_TEMPERATURE_CHANGE,
    (Temperature.ROOM, Temperature.HOT): APPLIANCE_TEMPERATURE_CHANGE,
    (Temperature.ROOM, Temperature.COLD): APPLIANCE_TEMPERATURE_CHANGE,
    (Temperature.COLD, Temperature.HOT): APPLIANCE_TEMPERATURE_SWING,
    (Temperature.HOT, Temperature.COLD): APPLIANCE_TEMPERATURE_SWING,
}
"""(configuration temperature, reference temperature) -> time penalty; equal temperatures cost 0."""

BAD_MATERIAL_PENALTY = 500
LEAST_PREFERRED_PENALTY = 200
UNLISTED_MATERIAL_PENALTY = 200
BAD_THRESHOLD = 500
"""A penalty at or above this makes a configuration ``bad``."""

LABEL_ORDER: Mapping[str, int] = {"ideal": 0, "moderate": 1, "bad": 2}


def preferred_count(n_good: int) -> int:
    """How many of the most preferred good materials count as ideal (COAT: 1, 2 or 3 by list length)."""
    return 1 if n_good <= 3 else 2 if n_good <= 5 else 3


def material_penalties(pref: MaterialPreference) -> dict[Material, int]:
    """Material penalty of every material the preference lists (rule 3 of the module docstring)."""
    good = list(pref.good)
    if len(good) + len(pref.bad) == 1:
        return {good[0]: 0}
    k = preferred_count(len(good))
    out: dict[Material, int] = {m: BAD_MATERIAL_PENALTY for m in pref.bad}
    for i, m in enumerate(good):
        if i < k:
            out[m] = LEAST_PREFERRED_PENALTY
        elif i >= len(good) - k:
            out[m] = 0
        else:
            out[m] = 10 * (len(good) - i)
    return out


@dataclass(frozen=True)
class ObjectRule:
    """How one context object of one combination is priced: its ideal (material, temperature, availability,
    condition) keys, its reference temperature (rule 2) and its material penalties (rule 3)."""

    ideal: frozenset[tuple[Material, Temperature, InUse, Condition]]
    reference_temperature: Temperature
    materials: Mapping[Material, int]

    def penalty(self, state: PhysicalState, *, unlisted_material_penalty: int = UNLISTED_MATERIAL_PENALTY,
                material_penalty: float | None = None) -> Penalty:
        """Penalty and class of an object in ``state`` under this rule (rules 1-4 of the module docstring).

        ``material_penalty``, when given, replaces the rule's value for a material it does not list (instead
        of ``unlisted_material_penalty``); it is rounded to an integer penalty."""
        if (state.material, state.temperature, state.already_in_use, state.condition) in self.ideal:
            return Penalty(time_penalty=0, material_penalty=0, label="ideal")
        time_penalty = (
            AVAILABILITY_PENALTY[state.already_in_use]
            + CONDITION_PENALTY[state.condition]
            + TEMPERATURE_PENALTY.get((state.temperature, self.reference_temperature), 0)
        )
        if state.material in self.materials:
            mat = self.materials[state.material]
        else:
            mat = unlisted_material_penalty if material_penalty is None else int(round(material_penalty))
        bad = time_penalty >= BAD_THRESHOLD or mat >= BAD_THRESHOLD
        return Penalty(time_penalty=time_penalty, material_penalty=mat, label="bad" if bad else "moderate")

    def to_json(self) -> dict[str, object]:
        """Plain JSON (lists and strings) for model manifests; :meth:`from_json` reads it back."""
        return {"ideal": sorted([str(v) for v in key] for key in self.ideal),
                "reference_temperature": str(self.reference_temperature),
                "materials": {str(m): int(v) for m, v in sorted(self.materials.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ObjectRule:
        """The rule :meth:`to_json` wrote.

        Raises:
            KeyError, ValueError, TypeError: a missing key or a value that is not one of the variables' values.
        """
        ideal = frozenset((Material(a), Temperature(b), InUse(c), Condition(d))
                          for a, b, c, d in data["ideal"])  # type: ignore[attr-defined]
        mats = {Material(m): int(v) for m, v in data["materials"].items()}  # type: ignore[attr-defined]
        return cls(ideal=ideal, reference_temperature=Temperature(data["reference_temperature"]), materials=mats)


def _ideal_key(config: ObjectConfig) -> tuple[Material, Temperature, InUse, Condition]:
    s = config.state
    return (s.material, s.temperature, s.already_in_use, s.condition)


class CostModel:
    """COAT's physical-state cost for context objects of annotated combinations.

    Args:
        kb: The knowledge base (ideal configurations and material preferences are read from it).
        unlisted_material_penalty: Material penalty for a material COAT's annotators never listed for the
            object (neither good nor bad), e.g. a robot's wooden mug. Must be >= 0.
    """

    def __init__(self, kb: KnowledgeBase, *, unlisted_material_penalty: int = UNLISTED_MATERIAL_PENALTY) -> None:
        if unlisted_material_penalty < 0:
            raise ValueError(f"unlisted_material_penalty must be >= 0, got {unlisted_material_penalty}")
        self.kb = kb
        self.unlisted_material_penalty = unlisted_material_penalty
        self._rules: dict[tuple[str, str], dict[str, ObjectRule]] = {}
        for c in kb.combinations:
            ideal = kb.ideal(c.utility, c.task)
            rules: dict[str, ObjectRule] = {}
            for obj in kb.context_objects(c.utility, c.task):
                mine = [cfg for cfg in ideal if cfg.object == obj]
                pref = kb.material_preference(c.utility, c.task, obj)
                if pref is None or not mine:  # load_knowledge guarantees both; keep the invariant explicit
                    raise ValueError(f"{obj!r} lacks ideal configurations or preferences for {c}")
                rules[obj] = ObjectRule(
                    ideal=frozenset(_ideal_key(cfg) for cfg in mine),
                    reference_temperature=mine[-1].state.temperature,
                    materials=material_penalties(pref),
                )
            self._rules[(c.utility, c.task)] = rules

    @classmethod
    def load(cls, data_dir: str | os.PathLike[str] | None = None, **kwargs: int) -> CostModel:
        """Build from :func:`planner.knowledge.load_knowledge` (``data_dir`` as there)."""
        return cls(load_knowledge(data_dir), **kwargs)

    # ------------------------------------------------------------ coverage

    def _rule(self, utility: str, task: str, obj: str) -> ObjectRule:
        u, t = self.kb.resolve_utility(utility), self.kb.resolve_task(task)
        rules = self._rules.get((u, t))
        if rules is None:
            self.kb.context_objects(u, t)  # raises the "not an annotated combination" error
            raise UnknownIdError(f"({u!r}, {t!r}) is not an annotated combination")  # pragma: no cover
        o = self.kb.resolve_object(obj)
        rule = rules.get(o)
        if rule is None:
            raise UnknownIdError(
                f"{o!r} is not a context object of ({u!r}, {t!r}); the cost model covers only "
                f"{list(rules)}. Check CostModel.covers() first and rank other objects another way."
            )
        return rule

    def covers(self, utility: str, task: str, obj: str) -> bool:
        """True when the cost model can price ``obj`` for (utility, task): an annotated combination and a
        context object of it. Unknown names give False, never an error."""
        try:
            self._rule(utility, task, obj)
        except UnknownIdError:
            return False
        return True

    def object_rule(self, utility: str, task: str, obj: str) -> ObjectRule:
        """The rule that prices ``obj`` for (utility, task) (the learned stage 2 borrows these).

        Raises:
            UnknownIdError: as :meth:`penalty` (see :meth:`covers`).
        """
        return self._rule(utility, task, obj)

    # ------------------------------------------------------------ penalties

    def penalty(self, utility: str, task: str, config: ObjectConfig) -> Penalty:
        """Time and material penalty and class of ``config`` for the combination.

        Args:
            utility: A COAT utility (case and spacing ignored).
            task: A task annotated for that utility.
            config: Any configuration of a context object, in COAT or not.

        Returns:
            The penalty; ``label`` is ideal, moderate or bad.

        Raises:
            UnknownIdError: for unknown names, a pair that is not annotated, or an object that is not a
                context object of it (see :meth:`covers`).
        """
        return self._rule(utility, task, config.object).penalty(
            config.state, unlisted_material_penalty=self.unlisted_material_penalty)

    def is_ideal(self, utility: str, task: str, config: ObjectConfig) -> bool:
        """True when ``config`` is one of the combination's ideal configurations (mass ignored)."""
        return _ideal_key(config) in self._rule(utility, task, config.object).ideal

    def rank(self, utility: str, task: str, configs: Iterable[ObjectConfig]) -> list[tuple[ObjectConfig, Penalty]]:
        """Order configurations best first: ideal, then moderate, then bad; within a class by total
        penalty; ties keep the input order.

        Raises:
            UnknownIdError: as :meth:`penalty`, for the first configuration it cannot price.
        """
        scored = [(c, self.penalty(utility, task, c)) for c in configs]
        return sorted(scored, key=lambda cp: (LABEL_ORDER[cp[1].label], cp[1].total))

    def explain(self, utility: str, task: str, config: ObjectConfig) -> str:
        """One line saying where the penalty comes from, for logs and plan rationales."""
        rule = self._rule(utility, task, config.object)
        p = self.penalty(utility, task, config)
        if p.label == "ideal":
            return f"{config.object}: ideal configuration for {task!r} (0/0)"
        s = config.state
        temp = TEMPERATURE_PENALTY.get((s.temperature, rule.reference_temperature), 0)
        listed = "" if s.material in rule.materials else " (material not in COAT's lists)"
        return (
            f"{config.object}: {p.label}, time {p.time_penalty} = {s.already_in_use.value} "
            f"{AVAILABILITY_PENALTY[s.already_in_use]} + {s.condition.value} {CONDITION_PENALTY[s.condition]} + "
            f"{s.temperature.value} vs {rule.reference_temperature.value} {temp}; "
            f"material {s.material.value} {p.material_penalty}{listed}"
        )


_SHARED: dict[int, tuple[KnowledgeBase, CostModel]] = {}


def shared_cost_model(kb: KnowledgeBase) -> CostModel:
    """``CostModel(kb)`` with the default penalties, built once per knowledge base and process (it only reads ``kb``,
    and building it walks every annotated combination: a plan's selectors share one instead of each building one)."""
    got = _SHARED.get(id(kb))
    if got is None or got[0] is not kb:
        if len(_SHARED) >= 8:  # a process that loads many knowledge bases keeps the last few
            _SHARED.pop(next(iter(_SHARED)))
        got = (kb, CostModel(kb))
        _SHARED[id(kb)] = got
    return got[1]


__all__ = [
    "AVAILABILITY_PENALTY",
    "BAD_THRESHOLD",
    "CONDITION_PENALTY",
    "TEMPERATURE_PENALTY",
    "CostModel",
    "ObjectRule",
    "material_penalties",
    "preferred_count",
    "shared_cost_model",
]
