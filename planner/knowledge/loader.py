"""Loading the COAT files into a :class:`~planner.knowledge.base.KnowledgeBase`, all or nothing.

Each file is validated against its raw schema (:mod:`.files`), then checked against the files read
before it: the vocabulary first (utilities, tasks, objects, context objects), then the common values and
configurations, the ideal configurations, the pools, the material preferences, the templates and the
optional per-object ideal values. The first disagreement raises a DataError naming the file and key.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import DataError
from ..paths import read_json, resolve_data_dir, validate
from ..schemas import VARIABLES, ObjectConfig, PhysicalState
from .base import Combination, CommonValues, KnowledgeBase, MaterialPreference, PoolEntry, Templates, state_key
from .files import (
    F_COMMON,
    F_CONFIGS,
    F_IDEAL,
    F_MATPREF,
    F_OBJECTS,
    F_ORACLE,
    F_POOLS,
    F_TASKS,
    F_TEMPLATES,
    F_UTILITIES,
    OPTIONAL_FILES,
    Names,
    RawCommon,
    RawConfig,
    RawIdealFile,
    RawPools,
    RawPrefFile,
    RawTemplates,
    check_keys,
)

logger = logging.getLogger(__name__)

Combo = tuple[str, str]


class _Loader:
    """One pass over the files of ``<root>/coat/``; each ``_read_*`` step fills the fields the next needs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.coat = root / "coat"
        self.p = {name: self.coat / name for name in (F_UTILITIES, F_TASKS, F_OBJECTS, F_ORACLE, F_TEMPLATES,
                                                      F_COMMON, F_CONFIGS, F_IDEAL, F_POOLS, F_MATPREF)}

    def _read(self, name: str, tp: Any) -> Any:
        return validate(self.p[name], tp, read_json(self.p[name]))

    def load(self) -> KnowledgeBase:
        self._read_vocabulary()
        self._read_context()
        self._read_common()
        self._read_configurations()
        self._read_ideal()
        self._read_pools()
        self._read_material_preferences()
        self._read_templates()
        self._check_optional_files()
        return KnowledgeBase(
            root=self.root,
            utilities=self.utilities,
            tasks=self.tasks,
            combinations=tuple(self.combinations),
            utility_objects=self.utility_objects,
            context=self.context,
            common=self.common,
            configurations=tuple(self.configurations),
            ideal=self.ideal,
            moderate=self.moderate,
            bad=self.bad,
            matpref=self.matpref,
            templates=self.templates,
        )

    # -- vocabulary

    def _read_vocabulary(self) -> None:
        p = self.p
        utilities = tuple(self._read(F_UTILITIES, Names))
        if len(set(utilities)) != len(utilities):
            dup = next(u for u in utilities if utilities.count(u) > 1)
            raise DataError(p[F_UTILITIES], str(utilities.index(dup)), f"duplicate utility {dup!r}")
        self.utilities = utilities

        raw_tasks: dict[str, list[str]] = self._read(F_TASKS, dict[str, Names])
        check_keys(p[F_TASKS], "", raw_tasks, utilities, "utility", F_UTILITIES)
        self.combinations: list[Combination] = []
        for u, ts in raw_tasks.items():
            for i, t in enumerate(ts):
                if ts.index(t) != i:
                    raise DataError(p[F_TASKS], f"{u}/{i}", f"duplicate task {t!r}")
                self.combinations.append(Combination(utility=u, task=t))
        self.tasks = {u: tuple(raw_tasks[u]) for u in utilities}
        self.combo_keys = [(c.utility, c.task) for c in self.combinations]

        raw_objects: dict[str, list[str]] = self._read(F_OBJECTS, dict[str, Names])
        check_keys(p[F_OBJECTS], "", raw_objects, utilities, "utility", F_UTILITIES)
        self.utility_objects = {u: tuple(raw_objects[u]) for u in utilities}
        self.universe = {o for objs in self.utility_objects.values() for o in objs}

    def _read_context(self) -> None:
        path = self.p[F_ORACLE]
        raw_oracle: dict[str, dict[str, list[str]]] = self._read(F_ORACLE, dict[str, dict[str, Names]])
        check_keys(path, "", raw_oracle, self.utilities, "utility", F_TASKS)
        self.context: dict[Combo, tuple[str, ...]] = {}
        for u in self.utilities:
            check_keys(path, u, raw_oracle[u], self.tasks[u], "task", F_TASKS)
            for t in self.tasks[u]:
                objs = raw_oracle[u][t]
                if not objs:
                    raise DataError(path, f"{u}/{t}", "a combination needs at least one context object")
                for i, o in enumerate(objs):
                    if o not in self.universe:
                        raise DataError(path, f"{u}/{t}/{i}", f"object {o!r} is not in {F_OBJECTS}")
                    if objs.index(o) != i:
                        raise DataError(path, f"{u}/{t}/{i}", f"duplicate context object {o!r}")
                self.context[(u, t)] = tuple(objs)

    # -- common values and configurations

    def _read_common(self) -> None:
        path = self.p[F_COMMON]
        raw_common: dict[str, RawCommon] = self._read(F_COMMON, dict[str, RawCommon])
        self.common: dict[str, CommonValues] = {}
        for o, vals in raw_common.items():
            if o not in self.universe:
                # TargetCircle: an AI2-THOR type no utility uses, with empty value lists.
                logger.debug("%s: skipping %r, which no utility in %s uses", F_COMMON, o, F_OBJECTS)
                continue
            for var in VARIABLES:
                if not vals[var]:
                    raise DataError(path, f"{o}/{var}", "no common values listed for an object COAT uses")
            self.common[o] = CommonValues(**{v: tuple(vals[v]) for v in VARIABLES})  # type: ignore[arg-type]
        missing_common = [o for o in self.universe if o not in self.common]
        if missing_common:
            raise DataError(path, "", f"no entry for object {sorted(missing_common)[0]!r} from {F_OBJECTS}")

    def _read_configurations(self) -> None:
        path = self.p[F_CONFIGS]
        raw_configs: list[RawConfig] = self._read(F_CONFIGS, list[RawConfig])
        self.configurations: list[ObjectConfig] = []
        self.by_key: dict[tuple[Any, ...], ObjectConfig] = {}
        self.by_id: dict[int, ObjectConfig] = {}
        for i, r in enumerate(raw_configs):
            obj = r["object_name"]
            if obj not in self.universe:
                raise DataError(path, f"{i}/object_name", f"object {obj!r} is not in {F_OBJECTS}")
            if r["id"] in self.by_id:
                raise DataError(path, f"{i}/id", f"duplicate id {r['id']}")
            try:
                state = PhysicalState(**{v: r[v] for v in VARIABLES})  # type: ignore[arg-type]
            except ValidationError as e:
                raise DataError(path, str(i), e.errors(include_url=False)[0]["msg"]) from None
            cfg = ObjectConfig.model_construct(object=obj, state=state, id=r["id"])
            self.configurations.append(cfg)
            self.by_id[r["id"]] = cfg
            self.by_key[state_key(obj, r)] = cfg

    def _check_combos(self, path: Path, raw: Mapping[str, Mapping[str, Any]]) -> None:
        check_keys(path, "", raw, self.utilities, "utility", F_TASKS)
        for u in self.utilities:
            check_keys(path, u, raw[u], self.tasks[u], "task", F_TASKS)

    def _check_object(self, path: Path, key: str, obj: str, combo: Combo) -> None:
        if obj not in self.context[combo]:
            raise DataError(path, key, f"object {obj!r} is not a context object of {combo} in {F_ORACLE}")

    # -- ideal configurations and the pools

    def _read_ideal(self) -> None:
        path = self.p[F_IDEAL]
        raw_ideal: RawIdealFile = self._read(F_IDEAL, RawIdealFile)
        self._check_combos(path, raw_ideal)
        self.ideal: dict[Combo, tuple[ObjectConfig, ...]] = {}
        for u, t in self.combo_keys:
            out: list[ObjectConfig] = []
            for i, r in enumerate(raw_ideal[u][t]):
                key = f"{u}/{t}/{i}"
                self._check_object(path, f"{key}/object_name", r["object_name"], (u, t))
                cfg = self.by_key.get(state_key(r["object_name"], r))
                if cfg is None:
                    raise DataError(path, key, f"not one of the configurations in {F_CONFIGS}")
                out.append(cfg)
            seen_objs = {c.object for c in out}
            lacking = [o for o in self.context[(u, t)] if o not in seen_objs]
            if lacking:
                raise DataError(path, f"{u}/{t}", f"context object {lacking[0]!r} has no ideal configuration")
            self.ideal[(u, t)] = tuple(out)

    def _read_pools(self) -> None:
        path = self.p[F_POOLS]
        raw_pools: dict[str, dict[str, RawPools]] = self._read(F_POOLS, dict[str, dict[str, RawPools]])
        self._check_combos(path, raw_pools)
        self.moderate: dict[Combo, tuple[PoolEntry, ...]] = {}
        self.bad: dict[Combo, tuple[PoolEntry, ...]] = {}
        for u, t in self.combo_keys:
            for label, dest in (("moderate", self.moderate), ("bad", self.bad)):
                entries: list[PoolEntry] = []
                for i, r in enumerate(raw_pools[u][t][label]):
                    key = f"{u}/{t}/{label}/{i}"
                    self._check_object(path, f"{key}/object_name", r["object_name"], (u, t))
                    cfg = self.by_id.get(r["id"])
                    if cfg is None or state_key(cfg.object, cfg.state.__dict__) != state_key(r["object_name"], r):
                        raise DataError(path, f"{key}/id", f"id {r['id']} does not name this configuration in "
                                        f"{F_CONFIGS} ({cfg.as_text() if cfg else 'no such id'})")
                    entries.append(PoolEntry.model_construct(
                        config=cfg, time_penalty=r["time_penalty"], material_penalty=r["material_penalty"]))
                dest[(u, t)] = tuple(entries)

    # -- material preferences: {"mat_gt": [{"concept", "tasks": [{"task", "items": {obj: {good, bad}}}]}]}

    def _read_material_preferences(self) -> None:
        path = self.p[F_MATPREF]
        raw_pref: RawPrefFile = self._read(F_MATPREF, RawPrefFile)
        self.matpref: dict[Combo, dict[str, MaterialPreference]] = {}
        for ci, concept in enumerate(raw_pref["mat_gt"]):
            u = concept["concept"]
            if u not in self.tasks:
                raise DataError(path, f"mat_gt/{ci}/concept", f"utility {u!r} is not in {F_TASKS}")
            for ti, card in enumerate(concept["tasks"]):
                t = card["task"]
                key = f"mat_gt/{ci}/tasks/{ti}"
                if (u, t) not in self.context:
                    raise DataError(path, f"{key}/task", f"({u!r}, {t!r}) is not a combination in {F_TASKS}")
                if (u, t) in self.matpref:
                    raise DataError(path, f"{key}/task", f"duplicate combination ({u!r}, {t!r})")
                check_keys(path, f"{key}/items", card["items"], self.context[(u, t)], "context object", F_ORACLE)
                self.matpref[(u, t)] = {o: self._preference(f"{key}/items/{o}", pr) for o, pr in card["items"].items()}
        absent = [c for c in self.combo_keys if c not in self.matpref]
        if absent:
            raise DataError(path, "mat_gt", f"missing combination {absent[0]} that {F_TASKS} lists")

    def _preference(self, key: str, pr: Mapping[str, Any]) -> MaterialPreference:
        if not pr["good"]:
            raise DataError(self.p[F_MATPREF], f"{key}/good", "no good material listed")
        both = set(pr["good"]) & set(pr["bad"])
        if both:
            raise DataError(self.p[F_MATPREF], key, f"{sorted(both)} listed as both good and bad")
        return MaterialPreference.model_construct(good=tuple(pr["good"]), bad=tuple(pr["bad"]))

    # -- templates, and the optional per-object ideal values

    def _read_templates(self) -> None:
        path = self.p[F_TEMPLATES]
        raw_templates = read_json(path)
        if isinstance(raw_templates, dict) and isinstance(raw_templates.get("full_pipeline_variations"), dict):
            raw_templates = dict(raw_templates)
            raw_templates["full_pipeline_variations"] = {
                k: v for k, v in raw_templates["full_pipeline_variations"].items() if not k.startswith("_")
            }
        self.templates: Templates = validate(path, Templates, validate(path, RawTemplates, raw_templates))
        check_keys(path, "utility_phrases", self.templates.utility_phrases, self.utilities, "utility", F_UTILITIES)

    def _check_optional_files(self) -> None:
        """The optional per-object ideal values must agree with the ideal configurations' temperatures."""
        for name in OPTIONAL_FILES:
            path = self.coat / name
            if not path.is_file():
                continue
            # Per object, the ideal temperature / already_in_use / condition (mass and material lists are empty).
            three: dict[str, RawCommon] = validate(path, dict[str, RawCommon], read_json(path))
            for (u, t), cfgs in self.ideal.items():
                for o in self.context[(u, t)]:
                    if o not in three:
                        raise DataError(path, o, f"no entry for context object {o!r}")
                    temps = list(dict.fromkeys(c.state.temperature for c in cfgs if c.object == o))
                    if temps != list(three[o]["temperature"]):
                        raise DataError(path, f"{o}/temperature", f"{[x.value for x in three[o]['temperature']]} "
                                        f"disagrees with {F_IDEAL} {u}/{t} ({[x.value for x in temps]})")


@functools.lru_cache(maxsize=8)
def _load_cached(root: str) -> KnowledgeBase:
    return _Loader(Path(root)).load()


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


__all__ = ["load_knowledge"]
