"""The perception contract: ``estimate(obs) -> SceneState``, built from per-variable estimators.

A :class:`StateEstimator` turns one :class:`scenes.base.SceneObs` into a :class:`planner.schemas.SceneState`
whose records carry a full :class:`~planner.schemas.PhysicalState`, the ``source`` that decided it, a
``confidence`` per variable and the variables that were ``unknown`` (filled from priors).

Inside perception every variable is estimated on its own by a :class:`VariableEstimator`, which returns a
:class:`VariableEstimate` (a value or None for "unknown", a confidence and a source). A
:class:`CompositeEstimator` holds one estimator per variable, so an ablation can swap the source of a
single variable (``est.replace("mass", PriorVariable("mass"))``) without touching the others.

Example:
    >>> from scenes.base import SceneObs
    >>> from perception.metadata import MetadataEstimator
    >>> apple = {"objectId": "Apple|1", "objectType": "Apple", "mass": 0.2, "pickupable": True,
    ...          "salientMaterials": ["Food"], "temperature": "Cold", "isDirty": False, "isBroken": False}
    >>> scene = MetadataEstimator().estimate(SceneObs(objects=(apple,)))
    >>> scene.objects[0].state.as_text()
    'mass: light, material: Food, temperature: Cold, already_in_use: free, condition: clean'
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from planner.errors import ConfigError
from planner.schemas import (
    VARIABLES,
    Condition,
    InUse,
    ObjectRecord,
    PhysicalState,
    SceneState,
    canonical_object_name,
)
from scenes.base import RawObject, SceneObs

from .estimates import SOURCES, VariableEstimate, check_variable
from .priors import TypePriors, default_priors

log = logging.getLogger(__name__)

# When a record mixes sources, its single ``source`` field names the strongest observation that went in.
_SOURCE_RANK = {"metadata": 0, "vision": 1, "text": 2, "prior": 3}


@dataclass
class ObjectEstimate:
    """The per-variable estimates of one object, before priors fill the gaps."""

    object_id: str
    category: str
    estimates: dict[str, VariableEstimate] = field(default_factory=dict)

    def get(self, variable: str) -> VariableEstimate:
        """The estimate of ``variable`` (unknown from "prior" when absent)."""
        return self.estimates.get(variable) or VariableEstimate.unknown("prior", "not estimated")


@runtime_checkable
class StateEstimator(Protocol):
    """Anything that turns an observation into a scene state.

    Example:
        >>> from perception.metadata import MetadataEstimator
        >>> isinstance(MetadataEstimator(), StateEstimator)
        True
    """

    def estimate(self, obs: SceneObs) -> SceneState:
        """Return one ObjectRecord per object the estimator can see."""
        ...


class VariableEstimator(Protocol):
    """Estimates one variable of one object from its metadata dict and the whole observation."""

    variable: str
    source: str

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Return the estimate; unknown (value None) when this source cannot tell. Never raises on bad data."""
        ...


class PriorVariable:
    """A variable estimator that always says "unknown", so the type prior decides (ablation baseline)."""

    source = "prior"

    def __init__(self, variable: str) -> None:
        """Args: variable: One of the five variable names."""
        self.variable = check_variable(variable)

    def estimate(self, obj: RawObject, obs: SceneObs) -> VariableEstimate:
        """Always unknown."""
        return VariableEstimate.unknown("prior", "prior only")


def object_category(obj: RawObject) -> str:
    """COAT spelling of an object's type; ``objectType``, else the prefix of ``objectId``, else ``"Unknown"``."""
    t = obj.get("objectType")
    if not isinstance(t, str) or not t:
        oid = obj.get("objectId")
        t = oid.split("|", 1)[0] if isinstance(oid, str) and oid else "Unknown"
    return canonical_object_name(t)


def scene_id_of(obs: SceneObs) -> str:
    """Best available scene name: ``extra["scene_id"]``, the event's ``sceneName``, else ``"scene"``."""
    sid = obs.extra.get("scene_id") if isinstance(obs.extra, Mapping) else None
    if isinstance(sid, str) and sid:
        return sid
    meta = getattr(obs.event, "metadata", None)
    if isinstance(meta, Mapping) and isinstance(meta.get("sceneName"), str):
        return str(meta["sceneName"])
    return "scene"


def to_record(est: ObjectEstimate, priors: TypePriors) -> ObjectRecord:
    """Fill unknown variables from the type prior, enforce COAT's invariants, and build the record.

    COAT's invariant: ``condition='broken'`` implies ``already_in_use='irreversible-using'`` (a broken
    object is unusable). When the condition says broken, the in-use value is raised to irreversible with
    the condition's confidence and source, whatever the in-use estimator said.

    Args:
        est: The per-variable estimates.
        priors: Type priors used for the unknown variables.

    Returns:
        A valid ObjectRecord; ``unknown`` lists the variables the prior filled.
    """
    prior = priors.prior(est.category)
    chosen: dict[str, VariableEstimate] = {}
    unknown: list[str] = []
    for var in VARIABLES:
        e = est.get(var)
        if e.value is None:
            e = prior[var]
            unknown.append(var)
        chosen[var] = e
    cond = chosen["condition"]
    if cond.value is Condition.BROKEN and chosen["already_in_use"].value is not InUse.IRREVERSIBLE:
        chosen["already_in_use"] = VariableEstimate(
            InUse.IRREVERSIBLE, cond.confidence, cond.source, "broken implies irreversible-using"
        )
        if "already_in_use" in unknown:
            unknown.remove("already_in_use")
    state = PhysicalState(**{v: chosen[v].value for v in VARIABLES})
    observed = [chosen[v].source for v in VARIABLES if v not in unknown]
    source = min(observed, key=_SOURCE_RANK.__getitem__) if observed else "prior"
    return ObjectRecord(
        object_id=est.object_id,
        category=est.category,
        state=state,
        source=source,  # type: ignore[arg-type]
        confidence={v: round(chosen[v].confidence, 4) for v in VARIABLES},
        unknown=tuple(unknown),
    )


def merge_estimates(layers: Sequence[Mapping[str, ObjectEstimate]]) -> dict[str, ObjectEstimate]:
    """Fuse several sources per object and variable: the first layer with a value wins.

    Layers are in priority order (e.g. metadata, then vision). Objects seen by any layer are kept, in
    first-seen order.
    """
    out: dict[str, ObjectEstimate] = {}
    for layer in layers:
        for oid, oe in layer.items():
            cur = out.get(oid)
            if cur is None:
                out[oid] = ObjectEstimate(oid, oe.category, dict(oe.estimates))
                continue
            for var, e in oe.estimates.items():
                if not cur.get(var).known and e.known:
                    cur.estimates[var] = e
    return out


class CompositeEstimator:
    """A StateEstimator made of one VariableEstimator per variable over ``obs.objects``.

    Args:
        estimators: variable name -> estimator; missing variables come from the prior.
        priors: Type priors for unknown variables (default: :func:`perception.priors.default_priors`).
        include: Optional predicate on the raw object; objects for which it is False are skipped
            (e.g. only visible objects).
    """

    def __init__(
        self,
        estimators: Mapping[str, VariableEstimator],
        *,
        priors: TypePriors | None = None,
        include: Any = None,
    ) -> None:
        for var, e in estimators.items():
            check_variable(var)
            if getattr(e, "variable", var) != var:
                raise ConfigError(f"estimator {e!r} estimates {e.variable!r}, but was given for {var!r}")
        self.estimators: dict[str, VariableEstimator] = dict(estimators)
        self._priors = priors
        self.include = include
        self.timing: dict[str, float] = {"objects": 0, "seconds": 0.0}

    @property
    def priors(self) -> TypePriors:
        """The type priors (loaded on first use)."""
        if self._priors is None:
            self._priors = default_priors()
        return self._priors

    def replace(self, variable: str, estimator: VariableEstimator) -> CompositeEstimator:
        """Return a copy whose ``variable`` comes from ``estimator`` (ablations)."""
        check_variable(variable)
        if getattr(estimator, "variable", variable) != variable:
            raise ConfigError(f"estimator {estimator!r} estimates {estimator.variable!r}, not {variable!r}")
        new = copy.copy(self)
        new.estimators = {**self.estimators, variable: estimator}
        new.timing = {"objects": 0, "seconds": 0.0}
        return new

    def _objects(self, obs: SceneObs) -> Iterable[RawObject]:
        for o in obs.objects:
            if not isinstance(o, Mapping):
                log.warning("skipping object metadata that is not a mapping: %r", type(o).__name__)
                continue
            if self.include is not None and not self.include(o):
                continue
            yield o

    def estimate_object(self, obj: RawObject, obs: SceneObs) -> ObjectEstimate:
        """Run every variable estimator on one object; a crashing estimator counts as unknown."""
        oid = obj.get("objectId")
        category = object_category(obj)
        oe = ObjectEstimate(oid if isinstance(oid, str) and oid else category, category)
        for var, e in self.estimators.items():
            try:
                oe.estimates[var] = e.estimate(obj, obs)
            except Exception as exc:  # noqa: BLE001 - a perception bug must not crash the planning loop
                log.warning("%s estimator failed on %s: %r", var, oe.object_id, exc)
                oe.estimates[var] = VariableEstimate.unknown(getattr(e, "source", "prior"), f"error: {exc!r}")
        return oe

    def estimate_objects(self, obs: SceneObs) -> dict[str, ObjectEstimate]:
        """Per-variable estimates of every included object, keyed by object id."""
        t0 = time.perf_counter()
        out: dict[str, ObjectEstimate] = {}
        for o in self._objects(obs):
            oe = self.estimate_object(o, obs)
            if oe.object_id in out:
                log.warning("duplicate objectId %r; keeping the first", oe.object_id)
                continue
            out[oe.object_id] = oe
        self.timing["objects"] += len(out)
        self.timing["seconds"] += time.perf_counter() - t0
        return out

    def estimate(self, obs: SceneObs) -> SceneState:
        """Return the scene state for ``obs`` (unknown variables filled from priors)."""
        ests = self.estimate_objects(obs)
        return SceneState(scene_id=scene_id_of(obs), objects=tuple(to_record(e, self.priors) for e in ests.values()))


class FusedEstimator:
    """Several estimators in priority order: per object and variable, the first one with a value wins.

    ``FusedEstimator([MetadataEstimator(), VisionEstimator()])`` is "metadata wins when present; frames fill
    what is missing". Every member must offer ``estimate_objects(obs) -> dict[str, ObjectEstimate]``.
    """

    def __init__(self, estimators: Sequence[Any], *, priors: TypePriors | None = None) -> None:
        """Args: estimators: Members in priority order. priors: Type priors for what nobody knows."""
        if not estimators:
            raise ConfigError("FusedEstimator needs at least one estimator")
        for e in estimators:
            if not callable(getattr(e, "estimate_objects", None)):
                raise ConfigError(f"{e!r} has no estimate_objects(obs); it cannot be fused")
        self.estimators = list(estimators)
        self._priors = priors

    @property
    def priors(self) -> TypePriors:
        """The type priors (loaded on first use)."""
        if self._priors is None:
            self._priors = default_priors()
        return self._priors

    def estimate_objects(self, obs: SceneObs) -> dict[str, ObjectEstimate]:
        """Fused per-variable estimates."""
        return merge_estimates([e.estimate_objects(obs) for e in self.estimators])

    def estimate(self, obs: SceneObs) -> SceneState:
        """Return the fused scene state."""
        ests = self.estimate_objects(obs)
        return SceneState(scene_id=scene_id_of(obs), objects=tuple(to_record(e, self.priors) for e in ests.values()))


__all__ = [
    "SOURCES",
    "CompositeEstimator",
    "FusedEstimator",
    "ObjectEstimate",
    "PriorVariable",
    "StateEstimator",
    "VariableEstimate",
    "VariableEstimator",
    "check_variable",
    "merge_estimates",
    "object_category",
    "scene_id_of",
    "to_record",
]
