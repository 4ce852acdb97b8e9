"""The COAT knowledge base: every annotation file under ``<data root>/coat/``, validated into contracts.

``load_knowledge()`` reads the COAT files once per data directory and returns a read-only
:class:`KnowledgeBase`: utilities, tasks, (utility, task) combinations, utility and context objects,
common variable values, the 1,584 configurations, the ideal configurations, the moderate and bad pools,
material preferences and the question templates.

Validation is all or nothing. A truncated file, a wrong type, a value outside an enum, or two files that
disagree (a combination in one file and not in another, a pool entry whose id names a different
configuration) raises :class:`~planner.errors.DataError` naming the file and the key path, for example
``.../coat/task-2/pouch_suboptimal.json: at cutting/cut cake/moderate/3/mass: Input should be 'light', ...``.
Nothing is cached after an error.

Object names accept AI2-THOR spellings (``BaseballBat`` for ``BaseBallBat`` ...); utility, task and object
names are also matched ignoring case and repeated spaces (COAT's task ``"packing  books for house
shifting"`` has two spaces). Unknown names raise :class:`~planner.errors.UnknownIdError` listing close
matches and valid values.

Data facts worth knowing (all checked at load time):

- ``common_var_responses.json`` has 101 entries: the 100 objects plus ``TargetCircle``, an AI2-THOR type that
  no utility uses and whose value lists are all empty. It is skipped.
- ``tasks.json``, ``oracle.json``, ``pouch_config_oracle.json``, ``pouch_suboptimal.json`` and
  ``material_preference.json`` all hold the same 96 combinations, and the context objects agree between
  ``oracle.json``, the ideal configurations and the material preferences. Any disagreement is refused
  with a DataError: the question sets and the cost model assume one consistent annotation set.
- ``Desktop`` is a context object of ``time / tell me the time`` but ``objects.json`` does not list it
  under ``time``; both files are kept as they are, so ``context_objects("time", "tell me the time")``
  includes Desktop while ``utility_objects("time")`` and ``utilities_of("Desktop")`` do not.
- The ideal configurations carry no ``id`` in the file; each is matched to its configuration in
  ``possible_configurations_v1.json`` so every :class:`ObjectConfig` here has an id.
- One configuration (Lettuce, Hot, free, clean for ``eating / giving raghav something hot to eat``) is
  both ideal and in the moderate pool (time_penalty 60); see ``planner.knowledge.cost``.

Example:
    >>> kb = load_knowledge()                                    # doctest: +SKIP
    >>> kb.context_objects("cutting", "cut cake")                 # doctest: +SKIP
    ('Knife', 'ButterKnife')
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from ..errors import UnknownIdError
from ..schemas import (
    Condition,
    Contract,
    InUse,
    Mass,
    Material,
    ObjectConfig,
    PhysicalState,
    Temperature,
    canonical_object_name,
    thor_object_name,
)

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------- public contracts


class Combination(Contract):
    """A (utility, task) pair that COAT annotates."""

    utility: str
    task: str


class PoolEntry(Contract):
    """A moderate or bad configuration of a combination with COAT's penalties."""

    config: ObjectConfig
    time_penalty: int = Field(ge=0)
    material_penalty: int = Field(ge=0)

    @property
    def total(self) -> int:
        """time_penalty + material_penalty."""
        return self.time_penalty + self.material_penalty


class MaterialPreference(Contract):
    """Material judgement for one context object of a combination.

    ``good`` is in ascending preference (the last is the most preferred); ``bad`` materials are
    unsuitable.
    """

    good: tuple[Material, ...]
    bad: tuple[Material, ...] = ()


class CommonValues(Contract):
    """The values of each variable commonly seen for an object type, in file order."""

    mass: tuple[Mass, ...]
    material: tuple[Material, ...]
    temperature: tuple[Temperature, ...]
    already_in_use: tuple[InUse, ...]
    condition: tuple[Condition, ...]


class Templates(Contract):
    """Question wording, utility phrases, full-pipeline option mixes and set sizes (``templates.json``)."""

    source: str = ""
    question_templates: dict[str, str]
    utility_phrases: dict[str, str]
    full_pipeline_variations: dict[int, tuple[tuple[int, int, int], ...]]
    """options count -> (context, concept, random) distractor mixes; the correct option is extra."""
    sizes: dict[str, int]




def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def close_matches(value: object, valid: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` valid names close to ``value`` (spelling first, then containment, ignoring case)."""
    valid = list(valid)
    close = difflib.get_close_matches(str(value), valid, n=n, cutoff=0.5)
    return close or [v for v in valid if _norm(str(value)) in _norm(v)][:n]


def unknown_id(kind: str, value: object, valid: Iterable[str], *, show: int = 25) -> UnknownIdError:
    """The error for an unknown name: close matches first, then the valid names (``show`` of them)."""
    valid = list(valid)
    close = close_matches(value, valid)
    msg = f"unknown {kind} {value!r}"
    msg += f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "."
    plural = kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
    listed = ", ".join(repr(v) for v in valid[:show])
    more = f", ... ({len(valid)} in all)" if len(valid) > show else ""
    return UnknownIdError(f"{msg} Valid {plural}: {listed}{more}")


def state_key(obj: str, d: Mapping[str, Any]) -> tuple[Any, ...]:
    """The lookup key of a configuration: the object and its five values."""
    return (obj, d["mass"], d["material"], d["temperature"], d["already_in_use"], d["condition"])


# ---------------------------------------------------------------- the knowledge base


class KnowledgeBase:
    """Read-only view of the COAT annotations with name-tolerant lookups.

    Build it with :func:`load_knowledge`. Every collection it returns is a tuple of frozen contracts,
    in the order of the source files.
    """

    __slots__ = (
        "_bad",
        "_by_id",
        "_by_key",
        "_combinations",
        "_common",
        "_configs_of",
        "_configurations",
        "_context",
        "_ideal",
        "_matpref",
        "_moderate",
        "_norm_objects",
        "_norm_tasks",
        "_norm_utilities",
        "_objects",
        "_root",
        "_task_combos",
        "_tasks",
        "_templates",
        "_utilities",
        "_utilities_of",
        "_utility_objects",
    )

    def __init__(
        self,
        *,
        root: Path,
        utilities: tuple[str, ...],
        tasks: dict[str, tuple[str, ...]],
        combinations: tuple[Combination, ...],
        utility_objects: dict[str, tuple[str, ...]],
        context: dict[tuple[str, str], tuple[str, ...]],
        common: dict[str, CommonValues],
        configurations: tuple[ObjectConfig, ...],
        ideal: dict[tuple[str, str], tuple[ObjectConfig, ...]],
        moderate: dict[tuple[str, str], tuple[PoolEntry, ...]],
        bad: dict[tuple[str, str], tuple[PoolEntry, ...]],
        matpref: dict[tuple[str, str], dict[str, MaterialPreference]],
        templates: Templates,
    ) -> None:
        """Assemble from already validated parts (use :func:`load_knowledge`)."""
        self._root = root
        self._utilities = utilities
        self._tasks = tasks
        self._combinations = combinations
        self._utility_objects = utility_objects
        self._context = context
        self._common = common
        self._configurations = configurations
        self._ideal = ideal
        self._moderate = moderate
        self._bad = bad
        self._matpref = matpref
        self._templates = templates

        objects: dict[str, None] = {}
        utilities_of: dict[str, list[str]] = {}
        for u in utilities:
            for o in utility_objects[u]:
                objects.setdefault(o)
                utilities_of.setdefault(o, []).append(u)
        self._objects = tuple(objects)
        self._utilities_of = {o: tuple(us) for o, us in utilities_of.items()}
        task_combos: dict[str, list[Combination]] = {}
        for c in combinations:
            task_combos.setdefault(c.task, []).append(c)
        self._task_combos = {t: tuple(cs) for t, cs in task_combos.items()}
        configs_of: dict[str, list[ObjectConfig]] = {}
        for c in configurations:
            configs_of.setdefault(c.object, []).append(c)
        self._configs_of = {o: tuple(cs) for o, cs in configs_of.items()}
        self._by_id = {c.id: c for c in configurations}
        self._by_key = {state_key(c.object, c.state.__dict__): c for c in configurations}
        self._norm_utilities = {_norm(u): u for u in utilities}
        self._norm_tasks = {_norm(t): t for t in self._task_combos}
        self._norm_objects = {_norm(o): o for o in self._objects}
        # AI2-THOR spellings in any case ("baseballbat") resolve too.
        for o in self._objects:
            self._norm_objects.setdefault(_norm(thor_object_name(o)), o)

    def __repr__(self) -> str:
        return (
            f"KnowledgeBase(root={str(self._root)!r}, utilities={len(self._utilities)}, "
            f"combinations={len(self._combinations)}, objects={len(self._objects)}, "
            f"configurations={len(self._configurations)})"
        )

    # ------------------------------------------------------------ collections

    @property
    def root(self) -> Path:
        """The data root this knowledge base was loaded from (contains ``coat/``)."""
        return self._root

    @property
    def utilities(self) -> tuple[str, ...]:
        """The 22 utilities, in ``utilities.json`` order."""
        return self._utilities

    @property
    def combinations(self) -> tuple[Combination, ...]:
        """The 96 annotated (utility, task) pairs, in ``tasks.json`` order."""
        return self._combinations

    @property
    def objects(self) -> tuple[str, ...]:
        """All 100 objects (COAT spelling), in order of first appearance in ``objects.json``."""
        return self._objects

    @property
    def templates(self) -> Templates:
        """Question wording, utility phrases and option mixes from ``templates.json``."""
        return self._templates

    @property
    def configurations(self) -> tuple[ObjectConfig, ...]:
        """The 1,584 configurations of ``possible_configurations_v1.json``, each with its id."""
        return self._configurations

    @property
    def all_tasks(self) -> tuple[str, ...]:
        """The 75 distinct task strings, in order of first appearance in ``tasks.json``."""
        return tuple(self._task_combos)

    # ------------------------------------------------------------ name resolution

    def resolve_utility(self, utility: str) -> str:
        """Return the COAT spelling of a utility name (case and spacing are ignored).

        Raises:
            UnknownIdError: if no utility matches; the message lists the valid utilities.
        """
        if utility in self._tasks:
            return utility
        hit = self._norm_utilities.get(_norm(str(utility)))
        if hit is None:
            raise unknown_id("utility", utility, self._utilities)
        return hit

    def resolve_task(self, task: str) -> str:
        """Return the COAT spelling of a task string (case and spacing are ignored).

        Raises:
            UnknownIdError: if no task matches; the message lists close matches and valid tasks.
        """
        if task in self._task_combos:
            return task
        hit = self._norm_tasks.get(_norm(str(task)))
        if hit is None:
            raise unknown_id("task", task, self._task_combos, show=12)
        return hit

    def resolve_object(self, obj: str) -> str:
        """Return the COAT spelling of an object name; AI2-THOR spellings and any case are accepted.

        Raises:
            UnknownIdError: if the object is not one of COAT's 100 objects.
        """
        name = canonical_object_name(str(obj))
        if name in self._utilities_of:
            return name
        hit = self._norm_objects.get(_norm(name))
        if hit is None:
            raise unknown_id("object", obj, self._objects, show=20)
        return hit

    def _combo(self, utility: str, task: str) -> tuple[str, str]:
        u = self.resolve_utility(utility)
        t = self.resolve_task(task)
        if (u, t) not in self._context:
            under = [c.utility for c in self._task_combos[t]]
            raise UnknownIdError(
                f"({u!r}, {t!r}) is not an annotated combination: COAT annotates task {t!r} only for "
                f"utilities {under}. Tasks of {u!r}: {list(self._tasks[u])}"
            )
        return u, t

    # ------------------------------------------------------------ lookups

    def tasks(self, utility: str) -> tuple[str, ...]:
        """Tasks annotated for a utility, in ``tasks.json`` order."""
        return self._tasks[self.resolve_utility(utility)]

    def utility_objects(self, utility: str) -> tuple[str, ...]:
        """Objects that have this utility (``objects.json``)."""
        return self._utility_objects[self.resolve_utility(utility)]

    def utilities_of(self, obj: str) -> tuple[str, ...]:
        """Utilities an object has according to ``objects.json``, in utility order."""
        return self._utilities_of[self.resolve_object(obj)]

    def is_annotated(self, utility: str, task: str) -> bool:
        """True when (utility, task) is one of the 96 combinations; False otherwise.

        A task COAT never annotated (free text such as "cut cake") is simply not annotated: planners ask
        this before deciding whether the annotations or a model decides.

        Raises:
            UnknownIdError: if the utility is unknown (utilities are a fixed vocabulary of 22).
        """
        u = self.resolve_utility(utility)
        t = task if task in self._task_combos else self._norm_tasks.get(_norm(str(task)))
        return t is not None and (u, t) in self._context

    def context_objects(self, utility: str, task: str) -> tuple[str, ...]:
        """Objects humans judged appropriate for the combination (``oracle.json``), in file order.

        Raises:
            UnknownIdError: for an unknown utility or task, or a pair that is not a combination.
        """
        return self._context[self._combo(utility, task)]

    def combinations_for_task(self, task: str) -> tuple[Combination, ...]:
        """Every combination whose task is ``task`` (a task may serve several utilities)."""
        return self._task_combos[self.resolve_task(task)]

    def common_values(self, obj: str) -> CommonValues:
        """Commonly seen values of the five variables for an object type."""
        return self._common[self.resolve_object(obj)]

    def configurations_of(self, obj: str) -> tuple[ObjectConfig, ...]:
        """All COAT configurations of an object, in id order."""
        return self._configs_of[self.resolve_object(obj)]

    def configuration(self, id: int) -> ObjectConfig:  # noqa: A002 - COAT calls it id
        """The configuration with this id (1 to 1,584).

        Raises:
            UnknownIdError: if no configuration has this id.
        """
        try:
            return self._by_id[id]
        except (KeyError, TypeError):
            ids = sorted(i for i in self._by_id if i is not None)
            raise UnknownIdError(
                f"unknown configuration id {id!r}; valid ids are {ids[0]} to {ids[-1]}"
            ) from None

    def find_configuration(self, config: ObjectConfig | str, state: PhysicalState | None = None) -> ObjectConfig | None:
        """Return COAT's configuration (with id) for an object and state, or None if COAT has none.

        Args:
            config: An ObjectConfig, or an object name together with ``state``.
            state: The physical state when ``config`` is a name.
        """
        if isinstance(config, ObjectConfig):
            obj, st = config.object, config.state
        else:
            if state is None:
                raise TypeError("find_configuration(name, state): state is required with an object name")
            obj, st = canonical_object_name(config), state
        return self._by_key.get(state_key(obj, st.__dict__))

    def ideal(self, utility: str, task: str) -> tuple[ObjectConfig, ...]:
        """Ideal configurations of the combination (``pouch_config_oracle.json``), with ids."""
        return self._ideal[self._combo(utility, task)]

    def moderate(self, utility: str, task: str) -> tuple[PoolEntry, ...]:
        """The moderate pool of the combination (``pouch_suboptimal.json``), in file order."""
        return self._moderate[self._combo(utility, task)]

    def bad(self, utility: str, task: str) -> tuple[PoolEntry, ...]:
        """The bad pool of the combination (``pouch_suboptimal.json``), in file order."""
        return self._bad[self._combo(utility, task)]

    def material_preference(self, utility: str, task: str, obj: str) -> MaterialPreference | None:
        """Material preference of a context object for the combination; None if it is not a context object.

        Raises:
            UnknownIdError: for an unknown utility, task or object, or a pair that is not a combination.
        """
        combo = self._combo(utility, task)
        return self._matpref[combo].get(self.resolve_object(obj))
