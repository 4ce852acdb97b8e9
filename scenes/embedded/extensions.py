"""Object types the embedded simulator adds beyond AI2-THOR 5.0.0 (extensions), merged at runtime.

AI2-THOR has no cake, yet "cut cake" and "serving cake" are COAT's standard tasks. This small hand-written
table adds such types next to the generated AI2-THOR table (:mod:`scenes.embedded._types`, which is never edited
by hand); :data:`ALL_TYPES` is the two merged (with the few corrections of :data:`COMPATIBLE_FIXES`), and
every part of the simulator that looks a type up uses it.

Extension objects are marked by their type (:func:`is_extension`): fidelity replays leave them out (real
recordings never contain them), real iTHOR scene dumps (``FloorPlanN``) refuse them, and observations list them
in ``SceneObs.extra["extension_objects"]``. Only the hand-written embedded scenes place them.

- ``Cake`` (pickupable, sliceable; Food; 1.0 kg; about 24 x 12 x 24 cm): ``SliceObject`` turns it into
  :data:`EXTENSION_SLICES` ``CakeSliced`` pieces, exactly as Bread becomes ``BreadSliced`` (ids
  ``<cake id>|CakeSliced_i``); it rests where Bread rests (Bread's compatible receptacles; without
  ``forceAction``, AI2-THOR's placement row of Bread, :data:`EXTENSION_PLACEMENT`).
- ``CakeSliced`` (pickupable; not cookable): the pieces; they go where Bread slices go, except the Toaster.

Example:
    >>> from scenes.embedded.extensions import ALL_TYPES, is_extension
    >>> "sliceable" in ALL_TYPES["Cake"].flags, is_extension("Cake"), is_extension("Bread")
    (True, True, False)
"""

from __future__ import annotations

from planner.schemas import THOR_COMPATIBLE_FIXES
from planner.schemas.thor_rules import PLACEMENT_RESTRICTIONS

from ._types import TYPES, TypeInfo

_BREAD = TYPES["Bread"]

EXTENSION_TYPES: dict[str, TypeInfo] = {
    "Cake": TypeInfo(("pickupable", "sliceable"), 1.0, ("Food",), (0.24, 0.12, 0.24), _BREAD.compatible, None),
    "CakeSliced": TypeInfo(("pickupable",), 0.125, ("Food",), (0.1, 0.1, 0.1), _BREAD.compatible, None),
}
"""Types AI2-THOR lacks: same fields as :class:`~scenes.embedded._types.TypeInfo`."""

EXTENSION_SLICES: dict[str, int] = {"Cake": 8}
"""Number of pieces ``SliceObject`` makes of an extension type."""

EXTENSION_PLACEMENT: dict[str, frozenset[str]] = {
    "Cake": PLACEMENT_RESTRICTIONS["Bread"],
    "CakeSliced": PLACEMENT_RESTRICTIONS["BreadSliced"] - {"Toaster"},
}
"""The receptacle types an extension type may go into without ``forceAction`` (its model type's row of AI2-THOR's
``ReceptacleRestrictions.PlacementRestrictions``)."""

COMPATIBLE_FIXES = THOR_COMPATIBLE_FIXES
"""See :data:`planner.schemas.THOR_COMPATIBLE_FIXES` (shared with the planner, which checks fits before acting)."""


def _fixed(types: dict[str, TypeInfo]) -> dict[str, TypeInfo]:
    out = dict(types)
    for t, extra in COMPATIBLE_FIXES.items():
        info = out[t]
        out[t] = info._replace(compatible=(*info.compatible, *(r for r in extra if r not in info.compatible)))
    return out


ALL_TYPES: dict[str, TypeInfo] = _fixed({**TYPES, **EXTENSION_TYPES})
"""AI2-THOR's generated type table with :data:`COMPATIBLE_FIXES` applied, plus the extension types (an extension
never overrides an AI2-THOR type)."""


def is_extension(object_type: str) -> bool:
    """True for a type that is not AI2-THOR's (so no recording or real scene has it)."""
    return object_type in EXTENSION_TYPES and object_type not in TYPES


__all__ = [
    "ALL_TYPES", "COMPATIBLE_FIXES", "EXTENSION_PLACEMENT", "EXTENSION_SLICES", "EXTENSION_TYPES", "is_extension",
]  # fmt: skip
