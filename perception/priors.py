"""Per-type priors: the value of each variable to assume when no observation tells.

Two sources, in order:

1. **COAT's common values** (``task-1/common_var_responses.json``, read through ``planner.knowledge``): for
   each of COAT's 100 objects, the values each variable commonly takes. When COAT lists several values
   the prior picks one by a fixed rule (below) and its confidence is split between them.
2. **A small derived table** (:data:`THOR_TYPE_PRIORS`) for AI2-THOR types that COAT does not name
   (Faucet, Sink, StoveKnob, Pillow...). Values for types with real metadata are the AI2-THOR 5.0.0
   values (kg bucketed, first salient material) from the real scene dump summarised in
   ``shared/notes/ai2thor.md`` §2 (source: Kajiih/rl_ai2thor ``objects_metadata_samples``); values for
   static types (0 kg, no materials in AI2-THOR) are this project's judgement, marked ``judgement``.

Choice rules when COAT lists several values:

- mass, material: for material, :data:`TYPICAL_MATERIAL` (the AI2-THOR material listed first most often
  for that type, among COAT's values; ties broken by COAT's order), else COAT's first value. Mass lists
  are single-valued in COAT.
- temperature ``RoomTemp``, already_in_use ``free``, condition ``clean`` whenever COAT lists them: a
  prior never claims that an unseen object is hot, busy or broken.

Example:
    >>> p = TypePriors({"Pot": {"mass": ["heavy"], "material": ["Stone", "Metal"], "temperature": ["Hot", "RoomTemp"],
    ...                         "already_in_use": ["free"], "condition": ["clean"]}})
    >>> p.prior("Pot")["material"].value.value
    'Metal'
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.schemas import VARIABLE_ENUMS, VARIABLES, canonical_object_name

from .base import VariableEstimate

log = logging.getLogger(__name__)

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
    # `python -m perception.priors --derive`; types absent here fall back to COAT's first value.
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

    Args:
        common_values: object name -> {variable -> list of common values} (COAT's common values), or
            None to use only the derived table.
    """

    def __init__(self, common_values: Mapping[str, Mapping[str, Sequence[Any]]] | None = None) -> None:
        self._common: dict[str, dict[str, tuple[str, ...]]] = {}
        for name, vals in (common_values or {}).items():
            entry = {v: _values(vals.get(v) if isinstance(vals, Mapping) else getattr(vals, v, ())) for v in VARIABLES}
            if any(entry.values()):
                self._common[canonical_object_name(name)] = entry
        self._cache: dict[str, dict[str, VariableEstimate]] = {}

    @classmethod
    def from_knowledge(cls, data_dir: str | os.PathLike[str] | None = None) -> TypePriors:
        """Load COAT's common values (through ``planner.knowledge`` when available).

        Raises:
            DataNotFoundError: when the COAT data directory cannot be found.
        """
        try:
            from planner import knowledge  # type: ignore[attr-defined]
        except ImportError:
            knowledge = None
        if knowledge is not None and hasattr(knowledge, "load_knowledge"):
            kb = knowledge.load_knowledge(data_dir) if data_dir is not None else knowledge.load_knowledge()
            table: dict[str, Any] = {}
            for name in _coat_object_names(kb):
                try:
                    cv = kb.common_values(name)
                except Exception:  # noqa: BLE001 - a name without common values is simply skipped
                    continue
                table[name] = {v: getattr(cv, v, ()) for v in VARIABLES}
            if table:
                return cls(table)
        # planner.knowledge not available yet: read the one file it would read.
        from planner.paths import resolve_data_dir

        root = resolve_data_dir(data_dir, need="coat", files=("task-1/common_var_responses.json",))
        with open(Path(root) / "coat" / "task-1" / "common_var_responses.json", encoding="utf-8") as f:
            return cls(json.load(f))

    def coat_values(self, category: str) -> dict[str, tuple[str, ...]] | None:
        """COAT's common values for a type (None when COAT does not name it)."""
        return self._common.get(base_type(category))

    def knows(self, category: str) -> bool:
        """True when COAT or the derived table has this type."""
        name = base_type(category)
        return name in self._common or _thor_name(name) in THOR_TYPE_PRIORS

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
        table = THOR_TYPE_PRIORS.get(_thor_name(name))
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


def _thor_name(name: str) -> str:
    from planner.schemas import thor_object_name

    return thor_object_name(name)


def _coat_object_names(kb: Any) -> list[str]:
    # The knowledge base exposes its object list under one of these names; fall back to the COAT set.
    for attr in ("objects", "object_names", "all_objects"):
        v = getattr(kb, attr, None)
        v = v() if callable(v) else v
        if v:
            return [str(x) for x in v]
    return []


@functools.lru_cache(maxsize=1)
def default_priors() -> TypePriors:
    """COAT priors from the configured data directory; the derived table alone if the data is missing."""
    try:
        return TypePriors.from_knowledge()
    except Exception as e:  # noqa: BLE001 - perception must work (with weaker priors) without the data
        log.warning("COAT common values unavailable (%s); using the derived AI2-THOR table only", e)
        return TypePriors(None)


def derive_typical_material(floorplans_dir: Path, common: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[str, str]:
    """Recompute :data:`TYPICAL_MATERIAL` from the 120 AI2-THOR floorplan dumps (for ``--derive``)."""
    from collections import Counter, defaultdict

    first: dict[str, Counter[str]] = defaultdict(Counter)
    for f in sorted(floorplans_dir.glob("FloorPlan*_physics.json")):
        with open(f, encoding="utf-8") as fh:
            for o in json.load(fh).values():
                mats = o.get("salientMaterials")
                if mats:
                    first[canonical_object_name(o["objectType"])][mats[0]] += 1
    out: dict[str, str] = {}
    for name, vals in common.items():
        mats = list(vals.get("material", []))
        if len(mats) < 2:
            continue
        counts = first.get(name, Counter())
        best = sorted((m for m in mats if counts[m]), key=lambda m: (-counts[m], mats.index(m)))
        if best:
            out[name] = best[0]
    return out


if __name__ == "__main__":  # pragma: no cover - maintenance helper
    import sys

    from planner.paths import resolve_data_dir

    if "--derive" in sys.argv:
        root = resolve_data_dir(need="ai2thor")
        common = json.loads((root / "coat" / "task-1" / "common_var_responses.json").read_text())
        for k, v in derive_typical_material(root / "ai2thor" / "floorplans", common).items():
            sys.stdout.write(f'    "{k}": "{v}",\n')
