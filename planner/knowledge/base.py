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
import functools
import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ..errors import DataError, UnknownIdError
from ..paths import resolve_data_dir
from ..schemas import (
    VARIABLES,
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


# ---------------------------------------------------------------- raw file schemas (validated in one pass)

_FORBID = ConfigDict(extra="forbid")
_NonNeg = Annotated[int, Field(ge=0)]
_Name = Annotated[str, Field(min_length=1)]


class _RawConfig(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    id: _NonNeg
    object_name: _Name
    mass: Mass
    material: Material
    temperature: Temperature
    already_in_use: InUse
    condition: Condition


class _RawIdeal(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    object_name: _Name
    mass: Mass
    material: Material
    temperature: Temperature
    already_in_use: InUse
    condition: Condition


class _RawPoolEntry(_RawConfig):
    time_penalty: _NonNeg
    material_penalty: _NonNeg


class _RawPools(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    moderate: list[_RawPoolEntry]
    bad: list[_RawPoolEntry]


class _RawCommon(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    mass: list[Mass]
    material: list[Material]
    temperature: list[Temperature]
    already_in_use: list[InUse]
    condition: list[Condition]


class _RawPref(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    good: list[Material]
    bad: list[Material]


class _RawPrefTask(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    task: _Name
    items: dict[str, _RawPref]


class _RawPrefConcept(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    concept: _Name
    tasks: list[_RawPrefTask]


class _RawPrefFile(TypedDict):
    __pydantic_config__ = _FORBID  # type: ignore[misc]
    mat_gt: list[_RawPrefConcept]


@functools.cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


# File names relative to <root>/coat/.
F_UTILITIES = "utilities.json"
F_TASKS = "tasks.json"
F_OBJECTS = "objects.json"
F_ORACLE = "oracle.json"
F_TEMPLATES = "templates.json"
F_COMMON = "task-1/common_var_responses.json"
F_CONFIGS = "task-1/possible_configurations_v1.json"
F_IDEAL = "task-1/pouch_config_oracle.json"
F_POOLS = "task-2/pouch_suboptimal.json"
F_MATPREF = "task-2/material_preference.json"
OPTIONAL_FILES: tuple[str, ...] = ("task-1/choice_config_oracle.json", "task-2/3_var_ideal_config.json")
"""Per-object ideal values of temperature / already_in_use / condition; checked when present."""


# ---------------------------------------------------------------- helpers: reading, errors, names


def _json_path_at(text: str, pos: int) -> str:
    """Return the key path (``a/b/3``) of the JSON value being read at character ``pos``.

    Used to name where a truncated or malformed file breaks; it scans the text once, tracking the
    open objects/arrays, the last key read in each object and the element index in each array.
    """
    stack: list[list[Any]] = []  # [kind, key_or_index, expecting_key]
    i, n = 0, min(pos, len(text))
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if stack and stack[-1][0] == "{" and stack[-1][2]:
                try:
                    stack[-1][1] = json.loads(text[i : j + 1])
                except ValueError:
                    stack[-1][1] = text[i + 1 : j]
                stack[-1][2] = False
            i = j + 1
            continue
        if ch == "{":
            stack.append(["{", None, True])
        elif ch == "[":
            stack.append(["[", 0, False])
        elif ch in "}]":
            if stack:
                stack.pop()
        elif ch == "," and stack:
            if stack[-1][0] == "[":
                stack[-1][1] += 1
            else:
                stack[-1][2] = True
        i += 1
    return "/".join(str(f[1]) for f in stack if f[1] is not None)


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise DataError(path, "", "file is missing (run `coat data download`)") from e
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(path, "", f"cannot read file: {e}") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        truncated = " (the file looks truncated)" if e.pos >= len(text.rstrip()) else ""
        raise DataError(
            path,
            _json_path_at(text, e.pos),
            f"invalid JSON{truncated}: {e.msg} at line {e.lineno} column {e.colno}",
        ) from e


def _loc(parts: Iterable[Any]) -> str:
    return "/".join(str(p) for p in parts)


def _validate(path: Path, tp: Any, raw: Any, prefix: tuple[Any, ...] = ()) -> Any:
    """Validate ``raw`` against ``tp``; turn the first pydantic error into a DataError with its key path."""
    try:
        return _adapter(tp).validate_python(raw)
    except ValidationError as e:
        errs = e.errors(include_url=False)
        first = errs[0]
        problem = first["msg"]
        if first.get("type") not in ("missing", "extra_forbidden") and "input" in first:
            shown = repr(first["input"])
            problem += f" (got {shown[:80]}{'...' if len(shown) > 80 else ''})"
        if len(errs) > 1:
            problem += f" [and {len(errs) - 1} more error(s) in this file]"
        raise DataError(path, _loc(prefix + tuple(first["loc"])), problem) from None


def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def _unknown(kind: str, value: object, valid: Iterable[str], *, show: int = 25) -> UnknownIdError:
    valid = list(valid)
    close = difflib.get_close_matches(str(value), valid, n=3, cutoff=0.5)
    if not close:
        close = [v for v in valid if _norm(str(value)) in _norm(v)][:3]
    msg = f"unknown {kind} {value!r}"
    msg += f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "."
    plural = kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
    listed = ", ".join(repr(v) for v in valid[:show])
    more = f", ... ({len(valid)} in all)" if len(valid) > show else ""
    return UnknownIdError(f"{msg} Valid {plural}: {listed}{more}")


def _state_key(obj: str, d: Mapping[str, Any]) -> tuple[Any, ...]:
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
        self._by_key = {_state_key(c.object, c.state.__dict__): c for c in configurations}
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
            raise _unknown("utility", utility, self._utilities)
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
            raise _unknown("task", task, self._task_combos, show=12)
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
            raise _unknown("object", obj, self._objects, show=20)
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
        return self._by_key.get(_state_key(obj, st.__dict__))

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


# ---------------------------------------------------------------- loading


def _check_keys(path: Path, prefix: str, got: Iterable[str], want: Iterable[str], what: str, ref: str) -> None:
    got_l, want_l = list(got), list(want)
    extra = [g for g in got_l if g not in set(want_l)]
    if extra:
        key = f"{prefix}/{extra[0]}" if prefix else extra[0]
        raise DataError(path, key, f"{what} {extra[0]!r} is not in {ref} (files disagree)")
    missing = [w for w in want_l if w not in set(got_l)]
    if missing:
        raise DataError(path, prefix, f"missing {what} {missing[0]!r} that {ref} lists ({len(missing)} missing)")


def _load(root: Path) -> KnowledgeBase:
    coat = root / "coat"
    p = {name: coat / name for name in (F_UTILITIES, F_TASKS, F_OBJECTS, F_ORACLE, F_TEMPLATES, F_COMMON,
                                         F_CONFIGS, F_IDEAL, F_POOLS, F_MATPREF)}

    # -- vocabulary
    utilities = tuple(_validate(p[F_UTILITIES], list[_Name], _read_json(p[F_UTILITIES])))
    if len(set(utilities)) != len(utilities):
        dup = next(u for u in utilities if utilities.count(u) > 1)
        raise DataError(p[F_UTILITIES], str(utilities.index(dup)), f"duplicate utility {dup!r}")

    raw_tasks: dict[str, list[str]] = _validate(p[F_TASKS], dict[str, list[_Name]], _read_json(p[F_TASKS]))
    _check_keys(p[F_TASKS], "", raw_tasks, utilities, "utility", F_UTILITIES)
    combinations: list[Combination] = []
    for u, ts in raw_tasks.items():
        for i, t in enumerate(ts):
            if ts.index(t) != i:
                raise DataError(p[F_TASKS], f"{u}/{i}", f"duplicate task {t!r}")
            combinations.append(Combination(utility=u, task=t))
    tasks = {u: tuple(raw_tasks[u]) for u in utilities}
    combo_keys = [(c.utility, c.task) for c in combinations]

    raw_objects: dict[str, list[str]] = _validate(p[F_OBJECTS], dict[str, list[_Name]], _read_json(p[F_OBJECTS]))
    _check_keys(p[F_OBJECTS], "", raw_objects, utilities, "utility", F_UTILITIES)
    utility_objects = {u: tuple(raw_objects[u]) for u in utilities}
    universe = {o for objs in utility_objects.values() for o in objs}

    raw_oracle: dict[str, dict[str, list[str]]] = _validate(
        p[F_ORACLE], dict[str, dict[str, list[_Name]]], _read_json(p[F_ORACLE])
    )
    _check_keys(p[F_ORACLE], "", raw_oracle, utilities, "utility", F_TASKS)
    context: dict[tuple[str, str], tuple[str, ...]] = {}
    for u in utilities:
        _check_keys(p[F_ORACLE], u, raw_oracle[u], tasks[u], "task", F_TASKS)
        for t in tasks[u]:
            objs = raw_oracle[u][t]
            if not objs:
                raise DataError(p[F_ORACLE], f"{u}/{t}", "a combination needs at least one context object")
            for i, o in enumerate(objs):
                if o not in universe:
                    raise DataError(p[F_ORACLE], f"{u}/{t}/{i}", f"object {o!r} is not in {F_OBJECTS}")
                if objs.index(o) != i:
                    raise DataError(p[F_ORACLE], f"{u}/{t}/{i}", f"duplicate context object {o!r}")
            context[(u, t)] = tuple(objs)

    # -- common values and configurations
    raw_common: dict[str, _RawCommon] = _validate(p[F_COMMON], dict[str, _RawCommon], _read_json(p[F_COMMON]))
    common: dict[str, CommonValues] = {}
    for o, vals in raw_common.items():
        if o not in universe:
            # TargetCircle: an AI2-THOR type no utility uses, with empty value lists.
            logger.debug("%s: skipping %r, which no utility in %s uses", F_COMMON, o, F_OBJECTS)
            continue
        for var in VARIABLES:
            if not vals[var]:
                raise DataError(p[F_COMMON], f"{o}/{var}", "no common values listed for an object COAT uses")
        common[o] = CommonValues(**{v: tuple(vals[v]) for v in VARIABLES})  # type: ignore[arg-type]
    missing_common = [o for o in universe if o not in common]
    if missing_common:
        raise DataError(p[F_COMMON], "", f"no entry for object {sorted(missing_common)[0]!r} from {F_OBJECTS}")

    raw_configs: list[_RawConfig] = _validate(p[F_CONFIGS], list[_RawConfig], _read_json(p[F_CONFIGS]))
    configurations: list[ObjectConfig] = []
    by_key: dict[tuple[Any, ...], ObjectConfig] = {}
    by_id: dict[int, ObjectConfig] = {}
    for i, r in enumerate(raw_configs):
        obj = r["object_name"]
        if obj not in universe:
            raise DataError(p[F_CONFIGS], f"{i}/object_name", f"object {obj!r} is not in {F_OBJECTS}")
        if r["id"] in by_id:
            raise DataError(p[F_CONFIGS], f"{i}/id", f"duplicate id {r['id']}")
        try:
            state = PhysicalState(**{v: r[v] for v in VARIABLES})  # type: ignore[arg-type]
        except ValidationError as e:
            raise DataError(p[F_CONFIGS], str(i), e.errors(include_url=False)[0]["msg"]) from None
        cfg = ObjectConfig.model_construct(object=obj, state=state, id=r["id"])
        configurations.append(cfg)
        by_id[r["id"]] = cfg
        by_key[_state_key(obj, r)] = cfg

    def check_combos(path: Path, raw: Mapping[str, Mapping[str, Any]]) -> None:
        _check_keys(path, "", raw, utilities, "utility", F_TASKS)
        for u in utilities:
            _check_keys(path, u, raw[u], tasks[u], "task", F_TASKS)

    def check_object(path: Path, key: str, obj: str, combo: tuple[str, str]) -> None:
        if obj not in context[combo]:
            raise DataError(path, key, f"object {obj!r} is not a context object of {combo} in {F_ORACLE}")

    # -- ideal configurations
    raw_ideal: dict[str, dict[str, list[_RawIdeal]]] = _validate(
        p[F_IDEAL], dict[str, dict[str, list[_RawIdeal]]], _read_json(p[F_IDEAL])
    )
    check_combos(p[F_IDEAL], raw_ideal)
    ideal: dict[tuple[str, str], tuple[ObjectConfig, ...]] = {}
    for u, t in combo_keys:
        out: list[ObjectConfig] = []
        for i, r in enumerate(raw_ideal[u][t]):
            key = f"{u}/{t}/{i}"
            check_object(p[F_IDEAL], f"{key}/object_name", r["object_name"], (u, t))
            cfg = by_key.get(_state_key(r["object_name"], r))
            if cfg is None:
                raise DataError(p[F_IDEAL], key, f"not one of the configurations in {F_CONFIGS}")
            out.append(cfg)
        seen_objs = {c.object for c in out}
        lacking = [o for o in context[(u, t)] if o not in seen_objs]
        if lacking:
            raise DataError(p[F_IDEAL], f"{u}/{t}", f"context object {lacking[0]!r} has no ideal configuration")
        ideal[(u, t)] = tuple(out)

    # -- moderate and bad pools
    raw_pools: dict[str, dict[str, _RawPools]] = _validate(
        p[F_POOLS], dict[str, dict[str, _RawPools]], _read_json(p[F_POOLS])
    )
    check_combos(p[F_POOLS], raw_pools)
    moderate: dict[tuple[str, str], tuple[PoolEntry, ...]] = {}
    bad: dict[tuple[str, str], tuple[PoolEntry, ...]] = {}
    for u, t in combo_keys:
        for label, dest in (("moderate", moderate), ("bad", bad)):
            entries: list[PoolEntry] = []
            for i, r in enumerate(raw_pools[u][t][label]):
                key = f"{u}/{t}/{label}/{i}"
                check_object(p[F_POOLS], f"{key}/object_name", r["object_name"], (u, t))
                cfg = by_id.get(r["id"])
                if cfg is None or _state_key(cfg.object, cfg.state.__dict__) != _state_key(r["object_name"], r):
                    raise DataError(p[F_POOLS], f"{key}/id", f"id {r['id']} does not name this configuration in "
                                    f"{F_CONFIGS} ({cfg.as_text() if cfg else 'no such id'})")
                entries.append(PoolEntry.model_construct(
                    config=cfg, time_penalty=r["time_penalty"], material_penalty=r["material_penalty"]))
            dest[(u, t)] = tuple(entries)

    # -- material preferences: {"mat_gt": [{"concept", "tasks": [{"task", "items": {obj: {good, bad}}}]}]}
    raw_pref: _RawPrefFile = _validate(p[F_MATPREF], _RawPrefFile, _read_json(p[F_MATPREF]))
    matpref: dict[tuple[str, str], dict[str, MaterialPreference]] = {}
    for ci, concept in enumerate(raw_pref["mat_gt"]):
        u = concept["concept"]
        if u not in tasks:
            raise DataError(p[F_MATPREF], f"mat_gt/{ci}/concept", f"utility {u!r} is not in {F_TASKS}")
        for ti, card in enumerate(concept["tasks"]):
            t = card["task"]
            key = f"mat_gt/{ci}/tasks/{ti}"
            if (u, t) not in context:
                raise DataError(p[F_MATPREF], f"{key}/task", f"({u!r}, {t!r}) is not a combination in {F_TASKS}")
            if (u, t) in matpref:
                raise DataError(p[F_MATPREF], f"{key}/task", f"duplicate combination ({u!r}, {t!r})")
            _check_keys(p[F_MATPREF], f"{key}/items", card["items"], context[(u, t)], "context object", F_ORACLE)
            prefs: dict[str, MaterialPreference] = {}
            for o, pr in card["items"].items():
                if not pr["good"]:
                    raise DataError(p[F_MATPREF], f"{key}/items/{o}/good", "no good material listed")
                both = set(pr["good"]) & set(pr["bad"])
                if both:
                    raise DataError(p[F_MATPREF], f"{key}/items/{o}", f"{sorted(both)} listed as both good and bad")
                prefs[o] = MaterialPreference.model_construct(good=tuple(pr["good"]), bad=tuple(pr["bad"]))
            matpref[(u, t)] = prefs
    absent = [c for c in combo_keys if c not in matpref]
    if absent:
        raise DataError(p[F_MATPREF], "mat_gt", f"missing combination {absent[0]} that {F_TASKS} lists")

    # -- templates
    raw_templates = _read_json(p[F_TEMPLATES])
    if isinstance(raw_templates, dict) and isinstance(raw_templates.get("full_pipeline_variations"), dict):
        raw_templates = dict(raw_templates)
        raw_templates["full_pipeline_variations"] = {
            k: v for k, v in raw_templates["full_pipeline_variations"].items() if not k.startswith("_")
        }
    templates: Templates = _validate(p[F_TEMPLATES], Templates, raw_templates)
    _check_keys(p[F_TEMPLATES], "utility_phrases", templates.utility_phrases, utilities, "utility", F_UTILITIES)

    # -- optional per-object ideal values: must agree with the ideal configurations' temperatures
    for name in OPTIONAL_FILES:
        path = coat / name
        if not path.is_file():
            continue
        # Per object, the ideal temperature / already_in_use / condition (mass and material lists are empty).
        three: dict[str, _RawCommon] = _validate(path, dict[str, _RawCommon], _read_json(path))
        for (u, t), cfgs in ideal.items():
            for o in context[(u, t)]:
                if o not in three:
                    raise DataError(path, o, f"no entry for context object {o!r}")
                temps = list(dict.fromkeys(c.state.temperature for c in cfgs if c.object == o))
                if temps != list(three[o]["temperature"]):
                    raise DataError(path, f"{o}/temperature", f"{[x.value for x in three[o]['temperature']]} "
                                    f"disagrees with {F_IDEAL} {u}/{t} ({[x.value for x in temps]})")

    return KnowledgeBase(
        root=root,
        utilities=utilities,
        tasks=tasks,
        combinations=tuple(combinations),
        utility_objects=utility_objects,
        context=context,
        common=common,
        configurations=tuple(configurations),
        ideal=ideal,
        moderate=moderate,
        bad=bad,
        matpref=matpref,
        templates=templates,
    )


@functools.lru_cache(maxsize=8)
def _load_cached(root: str) -> KnowledgeBase:
    return _load(Path(root))


def load_knowledge(data_dir: str | os.PathLike[str] | None = None) -> KnowledgeBase:
    """Load (once per data directory) and validate the COAT knowledge base.

    Args:
        data_dir: Data root holding ``coat/``; None resolves it from ``$COAT_DATA_DIR`` or the user cache
            (see :func:`planner.paths.resolve_data_dir`).

    Returns:
        The knowledge base; the same object for repeated calls with the same resolved directory.

    Raises:
        DataNotFoundError: if no data directory with the COAT files is found.
        DataError: if a file is corrupt, truncated, of the wrong shape, or disagrees with another file;
            the message names the file and the key path.
    """
    root = resolve_data_dir(data_dir, need="coat")
    return _load_cached(str(root.resolve()))


load_knowledge.cache_clear = _load_cached.cache_clear  # type: ignore[attr-defined]


__all__ = [
    "CommonValues",
    "Combination",
    "KnowledgeBase",
    "MaterialPreference",
    "PoolEntry",
    "Templates",
    "load_knowledge",
]
