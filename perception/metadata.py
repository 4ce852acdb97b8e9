"""Estimate the five variables from AI2-THOR object metadata (no torch, no OpenCV).

The full mapping, with the reasons, is the table in ``docs/perception.md``. In short:

- **mass**: ``mass`` (kg) bucketed by :data:`LIGHT_MAX_KG`, :data:`MEDIUM_MAX_KG`, :data:`HEAVY_MAX_KG`.
  AI2-THOR only sets mass for pickupable or moveable objects (static ones report 0 kg, the Floor 1 kg),
  so for other objects mass is unknown and the type prior decides.
- **material**: ``salientMaterials`` mapped to COAT's 14 (``Leather`` -> ``Fabric``); with several
  materials the rule (:data:`MATERIAL_RULES`) picks one and the confidence is split.
- **temperature**: ``temperature`` as is (same three values).
- **condition**: ``isBroken`` -> broken, ``isDirty`` -> dirty, else clean.
- **already_in_use**: irreversible when broken, used up, sliced or cooked; reversible when a heat source
  is switched on, a portable receptacle or an appliance holds something, or a container holds liquid;
  the simulator's own in-use state (``obs.extra["in_use"]``) is merged in, the more severe value winning.
  Being held by the agent is *not* in use (the robot holds it to use it).

Example:
    >>> from scenes.base import SceneObs
    >>> mug = {"objectId": "Mug|1", "objectType": "Mug", "mass": 1.0, "pickupable": True, "receptacle": True,
    ...        "salientMaterials": ["Ceramic"], "temperature": "Hot", "isDirty": True,
    ...        "isFilledWithLiquid": True, "fillLiquid": "coffee", "receptacleObjectIds": []}
    >>> rec = MetadataEstimator().estimate(SceneObs(objects=(mug,))).objects[0]
    >>> rec.state.as_text()
    'mass: light, material: Ceramic, temperature: Hot, already_in_use: reversible-using, condition: dirty'
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any, Literal

from planner.errors import ConfigError
from planner.schemas import Condition, InUse, Mass, Material, Temperature
from scenes.base import RawObject, SceneObs

from .base import CompositeEstimator, VariableEstimate

log = logging.getLogger(__name__)

SOURCE = "metadata"

# ---------------------------------------------------------------- mass
LIGHT_MAX_KG = 1.0
"""Mass bucket upper bounds (kg), COAT's definition: light <= 1 < medium <= 5 < heavy <= 10 < super-heavy."""
MEDIUM_MAX_KG = 5.0
HEAVY_MAX_KG = 10.0
MASS_CONFIDENCE = 0.9


def mass_bucket(kg: float) -> Mass:
    """Bucket a mass in kg with COAT's thresholds.

    >>> mass_bucket(0.2).value, mass_bucket(1.0).value, mass_bucket(7).value, mass_bucket(28.3).value
    ('light', 'light', 'heavy', 'super-heavy')

    Raises:
        ConfigError: for a negative, NaN or non-numeric mass.
    """
    if isinstance(kg, bool) or not isinstance(kg, (int, float)) or math.isnan(kg) or kg < 0:
        raise ConfigError(f"mass must be a non-negative number of kg, got {kg!r}")
    if kg <= LIGHT_MAX_KG:
        return Mass.LIGHT
    if kg <= MEDIUM_MAX_KG:
        return Mass.MEDIUM
    if kg <= HEAVY_MAX_KG:
        return Mass.HEAVY
    return Mass.SUPER_HEAVY


class MassFromMetadata:
    """mass <- ``mass`` (kg) for pickupable/moveable objects; unknown for static ones (they report 0 kg)."""

    variable = "mass"
    source = SOURCE

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Bucket the reported kg, or unknown."""
        kg = obj.get("mass")
        if not (obj.get("pickupable") or obj.get("moveable")):
            return VariableEstimate.unknown(SOURCE, f"static object (reports {kg!r} kg)")
        if isinstance(kg, bool) or not isinstance(kg, (int, float)) or math.isnan(kg) or kg <= 0:
            return VariableEstimate.unknown(SOURCE, f"no usable mass ({kg!r})")
        return VariableEstimate(mass_bucket(float(kg)), MASS_CONFIDENCE, SOURCE, f"mass={kg:.3g} kg")


# ---------------------------------------------------------------- material
THOR_TO_COAT_MATERIAL: dict[str, Material] = {m.value: m for m in Material}
# AI2-THOR's 15th material. COAT has no Leather; Fabric is the nearest COAT value (a soft, flexible,
# non-conductive covering that can be cleaned but not washed in a sink, used on chairs and footstools).
THOR_TO_COAT_MATERIAL["Leather"] = Material.FABRIC

# Bulk density (kg/m^3) of each material, used to pick the dominant one ("densest" rule) and by
# perception.vision to turn a volume into kg. Handbook values for the solid material.
MATERIAL_DENSITY: dict[Material, float] = {
    Material.METAL: 7800.0,
    Material.STONE: 2600.0,
    Material.GLASS: 2500.0,
    Material.CERAMIC: 2300.0,
    Material.RUBBER: 1200.0,
    Material.SOAP: 1100.0,
    Material.FOOD: 1000.0,
    Material.PLASTIC: 950.0,
    Material.WAX: 900.0,
    Material.PAPER: 800.0,
    Material.ORGANIC: 700.0,
    Material.WOOD: 600.0,
    Material.FABRIC: 300.0,
    Material.SPONGE: 50.0,
}

MaterialRule = Literal["first", "densest", "prior"]
MATERIAL_RULES: tuple[str, ...] = ("first", "densest", "prior")
"""How to choose one material when AI2-THOR lists several:

- ``"first"`` (default): the first listed. AI2-THOR's asset lists are ordered, not alphabetical (``Metal,
  Plastic`` 212x vs ``Plastic, Metal`` 49x in the 120 scenes), and the first is the main body material.
- ``"densest"``: the densest listed material (it dominates the mass).
- ``"prior"``: the listed material that COAT's common values name for the type (else ``"first"``); uses
  COAT, so agreement with COAT measured with this rule is partly circular.
"""
MATERIAL_CONFIDENCE = 0.9


class MaterialFromMetadata:
    """material <- ``salientMaterials`` mapped to COAT's 14 values.

    Args:
        rule: One of :data:`MATERIAL_RULES`.
        priors: Type priors, used by the ``"prior"`` rule only.

    The chosen material's confidence is ``MATERIAL_CONFIDENCE`` times its share: ``1/k`` of k listed
    materials for ``"first"``/``"prior"``, its share of the summed densities for ``"densest"``.
    """

    variable = "material"
    source = SOURCE

    def __init__(self, rule: str = "first", priors: Any = None) -> None:
        if rule not in MATERIAL_RULES:
            raise ConfigError(f"unknown material rule {rule!r}; valid rules are {list(MATERIAL_RULES)}")
        self.rule = rule
        self._priors = priors

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Pick one COAT material, or unknown when none is listed or known."""
        raw = obj.get("salientMaterials")
        if not isinstance(raw, (list, tuple)) or not raw:
            return VariableEstimate.unknown(SOURCE, f"no salientMaterials ({raw!r})")
        mats: list[Material] = []
        for m in raw:
            cm = THOR_TO_COAT_MATERIAL.get(m) if isinstance(m, str) else None
            if cm is None:
                log.debug("unknown material %r on %s", m, obj.get("objectId"))
            elif cm not in mats:
                mats.append(cm)
        if not mats:
            return VariableEstimate.unknown(SOURCE, f"no known material in {list(raw)!r}")
        note = f"salientMaterials={list(raw)}; rule={self.rule}"
        if self.rule == "densest":
            pick = max(mats, key=MATERIAL_DENSITY.__getitem__)
            share = MATERIAL_DENSITY[pick] / sum(MATERIAL_DENSITY[m] for m in mats)
            return VariableEstimate(pick, MATERIAL_CONFIDENCE * share, SOURCE, note)
        pick = mats[0]
        if self.rule == "prior":
            from .base import object_category
            from .priors import default_priors

            priors = self._priors or default_priors()
            common = priors.coat_values(object_category(obj)) or {}
            pick = next((m for m in mats if m.value in common.get("material", ())), pick)
        return VariableEstimate(pick, MATERIAL_CONFIDENCE / len(mats), SOURCE, note)


# ---------------------------------------------------------------- temperature
TEMPERATURE_CONFIDENCE = 0.95


class TemperatureFromMetadata:
    """temperature <- ``temperature`` (``RoomTemp`` / ``Hot`` / ``Cold``, the COAT values)."""

    variable = "temperature"
    source = SOURCE

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Copy the value, or unknown when missing or not one of the three."""
        t = obj.get("temperature", obj.get("ObjectTemperature"))  # pre-5.0 builds used ObjectTemperature
        try:
            return VariableEstimate(Temperature(t), TEMPERATURE_CONFIDENCE, SOURCE, f"temperature={t}")
        except ValueError:
            return VariableEstimate.unknown(SOURCE, f"no usable temperature ({t!r})")


# ---------------------------------------------------------------- condition
CONDITION_CONFIDENCE = 0.95


class ConditionFromMetadata:
    """condition <- ``isBroken`` (broken) over ``isDirty`` (dirty), else clean."""

    variable = "condition"
    source = SOURCE

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Broken beats dirty; clean only when at least one of the flags is reported."""
        broken, dirty = obj.get("isBroken"), obj.get("isDirty")
        if broken is True:
            return VariableEstimate(Condition.BROKEN, CONDITION_CONFIDENCE, SOURCE, "isBroken")
        if dirty is True:
            return VariableEstimate(Condition.DIRTY, CONDITION_CONFIDENCE, SOURCE, "isDirty")
        if broken is False or dirty is False:
            return VariableEstimate(Condition.CLEAN, CONDITION_CONFIDENCE, SOURCE, "not broken, not dirty")
        return VariableEstimate.unknown(SOURCE, "no isBroken/isDirty")


# ---------------------------------------------------------------- already_in_use
IN_USE_EVIDENCE_CONFIDENCE = 0.9
"""Confidence when a flag shows the object is in use."""
FREE_CONFIDENCE = 0.7
"""Confidence of "free" from the absence of evidence (someone may still be about to use it)."""
SIMULATOR_IN_USE_CONFIDENCE = 1.0
IN_USE_EXTRA_KEY = "in_use"
"""``SceneObs.extra[IN_USE_EXTRA_KEY]``: {objectId: "reversible-using" | "irreversible-using"} from the simulator,
or {objectId: {"state": ..., ...}} as the embedded simulator reports it."""

_SEVERITY = {InUse.FREE: 0, InUse.REVERSIBLE: 1, InUse.IRREVERSIBLE: 2}


def _in_use_from_flags(obj: RawObject) -> tuple[InUse | None, str]:
    """(value, reason) from the metadata flags; value None when no flag is reported at all."""
    irreversible = [f for f in ("isBroken", "isUsedUp", "isSliced", "isCooked") if obj.get(f) is True]
    if irreversible:
        return InUse.IRREVERSIBLE, "+".join(irreversible)
    reasons: list[str] = []
    if obj.get("isToggled") is True and obj.get("isHeatSource") is True:
        reasons.append("heat source switched on")
    contents = obj.get("receptacleObjectIds")
    if isinstance(contents, (list, tuple)) and contents:
        # Portable receptacles (pan, plate, bowl...) holding something are being used; so are appliances
        # (heat sources: microwave, stove burner, toaster, coffee machine). Furniture, fridges and sinks
        # normally hold things.
        if obj.get("pickupable") is True or obj.get("isHeatSource") is True:
            reasons.append(f"holds {len(contents)} object(s)")
    if obj.get("isFilledWithLiquid") is True and obj.get("receptacle") is True:
        # A filled cup/bowl/pot is in use; a bottle or a watering can is full by design.
        reasons.append(f"filled with {obj.get('fillLiquid') or 'liquid'}")
    if reasons:
        return InUse.REVERSIBLE, "; ".join(reasons)
    known = any(
        isinstance(obj.get(f), bool) for f in ("isBroken", "isUsedUp", "isToggled", "isFilledWithLiquid", "isSliced")
    )
    return (InUse.FREE, "no in-use flag set (held by the agent does not count)") if known else (None, "no flags")


class InUseFromMetadata:
    """already_in_use <- metadata flags, merged with the simulator's in-use state (more severe wins)."""

    variable = "already_in_use"
    source = SOURCE

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Irreversible / reversible / free with the reason in ``note``."""
        value, why = _in_use_from_flags(obj)
        conf = FREE_CONFIDENCE if value is InUse.FREE else IN_USE_EVIDENCE_CONFIDENCE
        sim = _simulator_in_use(obs, obj.get("objectId"))
        if sim is not None and (value is None or _SEVERITY[sim] >= _SEVERITY[value]):
            value, conf, why = sim, SIMULATOR_IN_USE_CONFIDENCE, f"simulator in-use state {sim.value}"
        if value is None:
            return VariableEstimate.unknown(SOURCE, why)
        return VariableEstimate(value, conf, SOURCE, why)


def _simulator_in_use(obs: SceneObs, object_id: Any) -> InUse | None:
    table = obs.extra.get(IN_USE_EXTRA_KEY) if isinstance(obs.extra, Mapping) else None
    if not isinstance(table, Mapping) or not isinstance(object_id, str):
        return None
    raw = table.get(object_id)
    if isinstance(raw, Mapping):  # the embedded simulator's entry: {"state": ..., "remaining": s, "by": ...}
        raw = raw.get("state")
    if raw is None:
        return None
    try:
        return InUse(raw)
    except ValueError:
        log.warning("ignoring unknown in-use value %r for %s", raw, object_id)
        return None


# ---------------------------------------------------------------- the estimator
class MetadataEstimator(CompositeEstimator):
    """The five variables from AI2-THOR metadata; static objects' mass and materials come from priors.

    Args:
        material_rule: How to pick one of several materials (:data:`MATERIAL_RULES`). The default,
            ``"prior"``, picks the listed material COAT names for the type (a Microwave listed as Glass, Metal
            is Metal), so the planner's material penalties see COAT's vocabulary; the agreement benchmark
            reports every rule.
        priors: Type priors (default: COAT's common values + the derived table).
        visible_only: Only objects with ``visible=True`` (what a robot could see now).
    """

    def __init__(self, *, material_rule: str = "prior", priors: Any = None, visible_only: bool = False) -> None:
        super().__init__(
            {
                "mass": MassFromMetadata(),
                "material": MaterialFromMetadata(material_rule, priors),
                "temperature": TemperatureFromMetadata(),
                "already_in_use": InUseFromMetadata(),
                "condition": ConditionFromMetadata(),
            },
            priors=priors,
            include=(lambda o: o.get("visible") is True) if visible_only else None,
        )


# ---------------------------------------------------------------- an ai2thor Event or its metadata as an observation
def thor_metadata(source: Any) -> Mapping[str, Any] | None:
    """The AI2-THOR metadata ``source`` holds, or None.

    A mapping with an ``objects`` list is metadata itself (``event.metadata``, a recorded ``event_NN.json``); anything
    else with a ``.metadata`` mapping of that shape is an event (``ai2thor.server.Event`` of any version, duck-typed).
    """
    if not isinstance(source, Mapping):
        source = getattr(source, "metadata", None)
    if isinstance(source, Mapping) and isinstance(source.get("objects"), (list, tuple)):
        return source
    return None


def observation_from(source: Any, name: str = "scene") -> SceneObs:
    """An observation from an ``ai2thor.server.Event`` (or anything with its ``.metadata``) or a metadata dict.

    The objects are copied (perception never changes the caller's data); the scene's name is the metadata's
    ``sceneName`` when it has one.

    Example:
        >>> obs = observation_from({"sceneName": "FloorPlan1", "objects": [{"objectId": "Mug|1", "objectType": "Mug"}]})
        >>> obs.objects[0]["objectType"], obs.extra["scene_id"]
        ('Mug', 'FloorPlan1')

    Raises:
        TypeError: ``source`` holds no AI2-THOR metadata (no ``objects`` list).
        ConfigError: an object that is not a dict with a str ``objectId`` and ``objectType`` (the message names
            ``name``, the object's index and the fix).
    """
    meta = thor_metadata(source)
    if meta is None:
        raise TypeError(f"{name} must be an ai2thor Event or its metadata dict (with an 'objects' list), got "
                        f"{type(source).__name__}")
    objects = []
    for i, o in enumerate(meta["objects"]):
        where = f"{name}: metadata objects[{i}]"
        if not isinstance(o, Mapping):
            view = " (the Gymnasium view of a SceneObs: pass the SceneObs itself, or its .event)" if hasattr(
                o, "objectId") else ""
            raise ConfigError(f"{where} is a {type(o).__name__}, not an object's metadata dict{view}")
        bad = [k for k in ("objectId", "objectType") if not isinstance(o.get(k), str) or not o.get(k)]
        if bad:
            raise ConfigError(f"{where} has no {' or '.join(repr(k) for k in bad)} string: AI2-THOR metadata names "
                              "every object by both (a SceneState's JSON goes through SceneState.model_validate)")
        objects.append(dict(o))
    scene = meta.get("sceneName")
    extra = {"scene_id": scene} if isinstance(scene, str) and scene else {}
    return SceneObs(objects=tuple(objects), event=None if isinstance(source, Mapping) else source, extra=extra)


__all__ = [
    "HEAVY_MAX_KG",
    "IN_USE_EXTRA_KEY",
    "LIGHT_MAX_KG",
    "MATERIAL_DENSITY",
    "MATERIAL_RULES",
    "MEDIUM_MAX_KG",
    "THOR_TO_COAT_MATERIAL",
    "ConditionFromMetadata",
    "InUseFromMetadata",
    "MassFromMetadata",
    "MaterialFromMetadata",
    "MetadataEstimator",
    "TemperatureFromMetadata",
    "mass_bucket",
    "observation_from",
    "thor_metadata",
]
