"""Per-type priors: the value of each variable to assume when no observation tells.

Two sources, in order:

1. **COAT's common values**: for each of COAT's 100 objects, the values each variable commonly takes.
   Perception does not load the knowledge base: the composition root passes them in
   (:meth:`TypePriors.from_common_values`, from ``planner.knowledge.KnowledgeBase``); code without a
   knowledge base reads the same file, the data directory's ``coat/task-1/common_var_responses.json``
   (:meth:`TypePriors.from_data_dir`, :func:`default_priors`). When COAT lists several values the prior
   picks one by a fixed rule (below) and its confidence is split between them.
2. **A small derived table** (:data:`THOR_TYPE_PRIORS`) for AI2-THOR types that COAT does not name
   (Faucet, Sink, StoveKnob, Pillow...). Values for types with real metadata are the AI2-THOR 5.0.0
   values (kg bucketed, first salient material) from the real scene dump, the data directory's
   ``ai2thor/floorplans/`` (source: Kajiih/rl_ai2thor ``objects_metadata_samples``); values for
   static types (0 kg, no materials in AI2-THOR) are this project's judgement, marked ``judgement``.

Choice rules when COAT lists several values:

- mass, material: for material, :data:`TYPICAL_MATERIAL` (the AI2-THOR material listed first most often
  for that type, among COAT's values; ties broken by COAT's order), else COAT's first value. Mass lists
  are single-valued in COAT.
- temperature ``RoomTemp``, already_in_use ``free``, condition ``clean`` whenever COAT lists them: a
  prior never claims that an unseen object is hot, busy or broken.

Example:
    >>> p = TypePriors.from_common_values({"Pot": {"mass": ["heavy"], "material": ["Stone", "Metal"],
    ...     "temperature": ["Hot", "RoomTemp"], "already_in_use": ["free"], "condition": ["clean"]}})
    >>> p.prior("Pot")["material"].value.value
    'Metal'
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Mapping
from typing import Any

from planner.errors import ConfigError, DataError, DataNotFoundError
from planner.paths import resolve_data_dir
from planner.schemas import VARIABLE_ENUMS, VARIABLES, canonical_object_name, thor_object_name

from .estimates import VariableEstimate

log = logging.getLogger(__name__)

COMMON_VALUES_FILE = "task-1/common_var_responses.json"
"""COAT's common values, relative to the data directory's ``coat/`` (the file the knowledge base validates)."""

# Confidence of a prior. Mass and material come from COAT's per-object judgement (split when COAT lists
# several values); the three states of an unseen object are only the usual case.
COAT_PRIOR_CONFIDENCE = 0.6
TABLE_PRIOR_CONFIDENCE = 0.4
STATE_PRIOR_CONFIDENCE = 0.3
FALLBACK_CONFIDENCE = 0.0

# Preferred prior value of the three state variables, when COAT lists it.
_STATE_DEFAULTS: dict[str, tuple[str, ...]] = {
    "temperature": ("RoomTemp", "Cold", "Hot"),
    "already_in_use": ("free", "reversible-using", "irreversible-using"),
    "condition": ("clean", "dirty", "broken"),
}

TYPICAL_MATERIAL: dict[str, str] = {
    # COAT objects with several common materials -> the one AI2-THOR 5.0.0 lists first most often among
    # COAT's values (real scene dump, 120 floorplans; ties broken by COAT's order). Generated once with
    # `python scripts/gen_type_priors.py`; types absent here fall back to COAT's first value.
    "Vase": "Ceramic",
    "Bottle": "Glass",
    "Cup": "Glass",
    "Mug": "Ceramic",
    "Pot": "Metal",
    "Kettle": "Metal",
    "Bowl": "Glass",
    "Plate": "Ceramic",
    "TissueBox": "Paper",
    "ButterKnife": "Metal",
    "Fork": "Metal",
    "Spatula": "Metal",
    "Ladle": "Metal",
    "Spoon": "Metal",
    "Chair": "Wood",
    "Footstool": "Wood",
    "Stool": "Wood",
    "Dumbell": "Metal",
    "Pencil": "Wood",
    "Statue": "Metal",
    "HousePlant": "Ceramic",
    "TableTopDecor": "Glass",
}

THOR_TYPE_PRIORS: dict[str, tuple[str, str, str]] = {
    # AI2-THOR type -> (mass bucket, material, origin). "dump": AI2-THOR 5.0.0 real values (kg bucketed by
    # perception.metadata thresholds, first salientMaterial); "judgement": static type with 0 kg and no
    # materials in AI2-THOR, value chosen by this project (by analogy with COAT's Sink/BathTubBasin...).
    "AluminumFoil": ("light", "Metal", "dump 0.9 kg Metal,Paper"),
    "Boots": ("light", "Plastic", "dump 0.7 kg Plastic"),
    "CreditCard": ("light", "Plastic", "dump 0.006 kg Plastic"),
    "GarbageBag": ("medium", "Plastic", "dump 3.5 kg Plastic"),
    "KeyChain": ("light", "Metal", "dump 0.075 kg Metal,Plastic"),
    "PepperShaker": ("light", "Metal", "dump 0.14-0.24 kg Metal,Glass"),
    "Pillow": ("light", "Fabric", "dump 0.7 kg Fabric"),
    "SaltShaker": ("light", "Metal", "dump 0.4-0.6 kg Metal,Glass"),
    "TVStand": ("super-heavy", "Wood", "dump 11 kg Wood,Metal,Glass,Plastic"),
    "Bathtub": ("super-heavy", "Stone", "judgement: like COAT BathTubBasin"),
    "Sink": ("super-heavy", "Stone", "judgement: like COAT SinkBasin"),
    "Faucet": ("medium", "Metal", "judgement"),
    "ShowerHead": ("light", "Metal", "judgement"),
    "StoveKnob": ("light", "Plastic", "judgement"),
    "HandTowelHolder": ("light", "Metal", "judgement"),
    "TowelHolder": ("light", "Metal", "judgement"),
    "ToiletPaperHanger": ("light", "Metal", "judgement"),
    "Mirror": ("medium", "Glass", "judgement"),
    "ShowerDoor": ("heavy", "Glass", "judgement"),
    "ShowerGlass": ("heavy", "Glass", "judgement"),
    "ShowerCurtain": ("light", "Plastic", "judgement"),
}

# Objects AI2-THOR derives from others keep the parent's physical kind.
_DERIVED_SUFFIXES: tuple[str, ...] = ("Sliced", "Cracked")

# When nothing is known the record still needs a value; these carry confidence 0 and are flagged unknown.
FALLBACK_VALUES: dict[str, str] = {
    "mass": "light",
    "material": "Plastic",
    "temperature": "RoomTemp",
    "already_in_use": "free",
    "condition": "clean",
}


def base_type(category: str) -> str:
    """COAT spelling of the physical kind behind a type: ``AppleSliced`` -> ``Apple``, ``EggCracked`` -> ``Egg``."""
    name = canonical_object_name(category)
    for suf in _DERIVED_SUFFIXES:
        if name.endswith(suf) and len(name) > len(suf):
            return canonical_object_name(name[: -len(suf)])
    return name


def _values(raw: Any) -> tuple[str, ...]:
    # CommonValues may hold enum members or strings; keep the dataset strings.
    out: list[str] = []
    for v in raw or ():
        out.append(str(getattr(v, "value", v)))
    return tuple(out)


class TypePriors:
    """Prior values per object type.

    Build it with :meth:`from_common_values` (values passed in, checked) or :meth:`from_data_dir`.

    Args:
        common_values: object name -> {variable -> list of common values} (COAT's common values), or
            None to use only the derived table.
    """

    def __init__(self, common_values: Mapping[str, Any] | None = None) -> None:
        self._common: dict[str, dict[str, tuple[str, ...]]] = {}
        for name, vals in (common_values or {}).items():
            entry = {v: _values(vals.get(v) if isinstance(vals, Mapping) else getattr(vals, v, ())) for v in VARIABLES}
            if any(entry.values()):
                self._common[canonical_object_name(name)] = entry
        self._cache: dict[str, dict[str, VariableEstimate]] = {}

    @classmethod
    def from_common_values(cls, common_values: Mapping[str, Any]) -> TypePriors:
        """Priors from COAT's common values, passed in by the caller (the one loader is the knowledge base's).

        Args:
            common_values: object type -> the five variables' common values, either a mapping per type
                (``{"mass": ["heavy"], "material": ["Stone", "Metal"], ...}``, the file's shape) or an object
                with one attribute per variable (``planner.knowledge.CommonValues``).

        Returns:
            The priors.

        Raises:
            ConfigError: a value is not one of its variable's values (the message lists the valid ones).

        Example:
            >>> from planner.knowledge import load_knowledge                      # doctest: +SKIP
            >>> kb = load_knowledge()                                              # doctest: +SKIP
            >>> TypePriors.from_common_values({o: kb.common_values(o) for o in kb.objects})  # doctest: +SKIP
        """
        priors = cls(common_values)
        priors._check_values()
        return priors

    @classmethod
    def from_data_dir(cls, data_dir: str | os.PathLike[str] | None = None) -> TypePriors:
        """Priors from the data directory's COAT common-values file, for code that has no knowledge base.

        Reads :data:`COMMON_VALUES_FILE` under ``coat/``, the file the knowledge base reads for its common
        values (without the knowledge base's cross-file checks).

        Args:
            data_dir: Data root holding ``coat/``; None resolves it from ``$COAT_DATA_DIR`` or the user cache.

        Raises:
            DataNotFoundError: when no data directory with the file is found.
            DataError: when the file is not valid JSON, not an object, or holds a value outside a variable's values.
        """
        root = resolve_data_dir(data_dir, need="coat", files=(COMMON_VALUES_FILE,))
        path = root / "coat" / COMMON_VALUES_FILE
        try:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
        except json.JSONDecodeError as e:
            raise DataError(path, "", f"invalid JSON: {e}") from e
        if not isinstance(raw, Mapping) or not all(isinstance(v, Mapping) for v in raw.values()):
            raise DataError(path, "", "expected an object of object type -> {variable: [values]}")
        try:
            return cls.from_common_values(raw)
        except ConfigError as e:
            raise DataError(path, "", str(e)) from e

    def _check_values(self) -> None:
        for name, entry in self._common.items():
            for var, vals in entry.items():
                enum = VARIABLE_ENUMS[var]
                bad = [v for v in vals if v not in enum.values()]  # type: ignore[attr-defined]
                if bad:
                    raise ConfigError(
                        f"common {var} of {name} has {bad}; valid values are {enum.values()}"  # type: ignore[attr-defined]
                    )

    def coat_values(self, category: str) -> dict[str, tuple[str, ...]] | None:
        """COAT's common values for a type (None when COAT does not name it)."""
        return self._common.get(base_type(category))

    def knows(self, category: str) -> bool:
        """True when COAT or the derived table has this type."""
        name = base_type(category)
        return name in self._common or thor_object_name(name) in THOR_TYPE_PRIORS

    def prior(self, category: str) -> dict[str, VariableEstimate]:
        """The prior estimate of every variable for ``category`` (source ``"prior"``)."""
        name = base_type(category)
        hit = self._cache.get(name)
        if hit is None:
            hit = self._cache[name] = self._build(name)
        return hit

    def _build(self, name: str) -> dict[str, VariableEstimate]:
        out: dict[str, VariableEstimate] = {}
        coat = self._common.get(name)
        table = THOR_TYPE_PRIORS.get(thor_object_name(name))
        for var in VARIABLES:
            vals = coat.get(var, ()) if coat else ()
            if var in _STATE_DEFAULTS:
                pick = next((d for d in _STATE_DEFAULTS[var] if d in vals), None)
                if pick is None and not vals:
                    pick = _STATE_DEFAULTS[var][0]
                pick = pick or vals[0]
                conf = STATE_PRIOR_CONFIDENCE
                note = f"COAT common {var}={list(vals)}" if vals else "usual state"
            elif vals:
                pick = TYPICAL_MATERIAL.get(name) if var == "material" else None
                pick = pick if pick in vals else vals[0]
                conf = COAT_PRIOR_CONFIDENCE / len(vals)
                note = f"COAT common {var}={list(vals)}"
            elif table is not None:
                pick = table[0] if var == "mass" else table[1]
                conf = TABLE_PRIOR_CONFIDENCE
                note = f"derived table ({table[2]})"
            else:
                pick, conf, note = FALLBACK_VALUES[var], FALLBACK_CONFIDENCE, "no prior for this type"
            out[var] = VariableEstimate(VARIABLE_ENUMS[var](pick), conf, "prior", note)
        return out


def default_priors() -> TypePriors:
    """The priors an estimator uses when none is passed in: COAT's common values from the configured data directory.

    Composition roots pass priors built from the knowledge base (:meth:`TypePriors.from_common_values`);
    this default serves an estimator built on its own. It reads the file with :meth:`TypePriors.from_data_dir`,
    once per data directory (the running command's ``--data-dir``, else ``$COAT_DATA_DIR`` or the user cache:
    the directory is resolved on every call, so a run never gets another directory's priors from the cache).
    When no data directory is found it logs a warning and returns the derived AI2-THOR table alone
    (perception still works, with weaker priors, e.g. for ScienceWorld without the COAT data); a corrupt
    file raises.

    Raises:
        DataError: the common-values file is corrupt.
    """
    try:
        root = resolve_data_dir(None, need="coat", files=(COMMON_VALUES_FILE,))
    except DataNotFoundError as e:
        return _table_only(str(e))
    return _priors_of(str(root.resolve()))


@functools.lru_cache(maxsize=4)
def _priors_of(root: str) -> TypePriors:
    return TypePriors.from_data_dir(root)


@functools.lru_cache(maxsize=1)
def _table_only(why: str) -> TypePriors:
    log.warning("COAT common values unavailable (%s); using the derived AI2-THOR table only", why)
    return TypePriors(None)


__all__ = [
    "COMMON_VALUES_FILE",
    "FALLBACK_VALUES",
    "THOR_TYPE_PRIORS",
    "TYPICAL_MATERIAL",
    "TypePriors",
    "base_type",
    "default_priors",
]
