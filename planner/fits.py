"""What AI2-THOR lets a plan's objects do together, for the scene planner: what goes in / on what (the C#
placement table, :data:`planner.schemas.thor_rules`), which heat sources can cook a target, which vessel makes a
source fit, where a liquid can come from, and why an object people accept for a role is still turned down.

Pure: task specs, bindings and a :class:`~planner.schemas.SceneState` in, names and reasons out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .knowledge import KnowledgeBase
from .schemas import ObjectRecord, Role, SceneState, TaskSpec, thor_object_name
from .schemas.thor_rules import HEAT_ZONE_TOASTS_BREAD, piece_type
from .steps import heated_role


def placements(spec: TaskSpec) -> list[tuple[str, str]]:
    """(receiver, placed) binding names: what the steps put into / onto what."""
    names = {r.name for r in spec.roles}
    pairs = [(g.other, g.item) for g in spec.goals if g.relation == "contained_in" and g.other]
    liquid = any(t.liquid for t in spec.targets)
    vessel = "heating(vessel)" if "heating(vessel)" in names else None
    if vessel is None and liquid and "carrying" in names:
        vessel = "carrying"
    if "heating(source)" in names:
        if vessel and not liquid:
            pairs.append(("heating(vessel)", "target"))
        if vessel:
            pairs.append(("heating(source)", vessel))
        elif not liquid and any(t.name == "target" for t in spec.targets):
            # the target on the source itself (bread in the toaster), or in a vessel the plan adds (an egg in a pan
            # on a burner): :func:`misfits` rules out a source neither way fits
            pairs.append(("heating(source)", "target"))
    hot = heated_role(spec)
    if hot is not None and "heating(source)" in names and vessel is None:
        pairs.append(("heating(source)", hot))  # the food chosen for "something hot to eat" goes in the source
    if "cooling" in names:
        pairs.append(("cooling", "target"))
    return pairs


def misfits(spec: TaskSpec, role: str, bindings: Mapping[str, str], state: SceneState,
             kb: KnowledgeBase) -> dict[str, str]:
    """Objects that cannot take what this role receives (or cannot go where this role is put), by AI2-THOR's
    compatible receptacles, each with why ("in AI2-THOR a CreditCard cannot go in or on a Safe; it goes in or on
    Box, Drawer here"); types the table does not know (extensions) are not constrained."""
    from .knowledge.alfred import compatible_receptacles

    compat = compatible_receptacles(str(kb.root))
    by_id = {r.object_id: r for r in state.objects}
    sliced = {t.name for t in spec.targets if t.sliced}

    def kind(name: str, oid: str) -> str | None:
        """The AI2-THOR type of what is bound (its pieces' type once it is sliced); None when it is gone."""
        rec = by_id.get(oid) or next((r for r in state.objects if r.object_id.startswith(oid + "|")), None)
        if rec is None:
            return None
        t = thor_object_name(rec.category)
        return piece_type(t) if name in sliced and rec.object_id == oid else t

    here = sorted({thor_object_name(r.category) for r in state.objects})
    vessels = [v for v in VESSEL_TYPES if v in here]
    no_vessel = spec.role("heating(vessel)") is None
    cooked = any(g.item == "target" and g.prop == "isCooked" and g.value is True for g in spec.goals)
    out: dict[str, str] = {}
    if role == "heating(source)" and cooked and "target" in bindings and kind("target", bindings["target"]) == \
            "BreadSliced":
        for r in state.objects:
            t = thor_object_name(r.category)
            if not HEAT_ZONE_TOASTS_BREAD.get(t, True):  # AI2-THOR's HeatZone.CanToastBread
                out[r.object_id] = f"in AI2-THOR a {t} heats a bread slice but does not toast it"
    out.update(_no_tap_fill(spec, role, state, compat, here))
    for receiver, placed in placements(spec):
        thing = kind(placed, bindings[placed]) if receiver == role and placed in bindings else None
        into = kind(receiver, bindings[receiver]) if placed == role and receiver in bindings else None
        if thing is None and into is None:
            continue
        for r in state.objects:
            t = thor_object_name(r.category)
            if thing is not None:
                if (receiver == "heating(source)" and placed == "target" and no_vessel and thing in compat
                        and vessel_for(thing, t, vessels)):
                    continue  # a vessel the plan adds takes it there (an egg in a pan on the burner)
                if thing in compat and t not in compat[thing]:
                    out[r.object_id] = no_fit(thing, t, compat, here)
            elif into is not None:
                mine = piece_type(t) if role in sliced else t
                if mine in compat and into not in compat[mine]:
                    out[r.object_id] = no_fit(mine, into, compat, ())
    return out


BASIN_TYPES: tuple[str, ...] = ("SinkBasin", "BathtubBasin")


def _no_tap_fill(spec: TaskSpec, role: str, state: SceneState, compat: Mapping[str, frozenset[str]],
                 here: list[str]) -> dict[str, str]:
    """For the vessel that holds a water target: the objects no basin here takes, since a faucet fills only what
    stands in the basin under it (a wine bottle cannot go in a sink basin in AI2-THOR)."""
    names = {r.name for r in spec.roles}
    if not any(t.liquid and t.types[0] == "water" for t in spec.targets):
        return {}
    vessel = "heating(vessel)" if "heating(vessel)" in names else "carrying"
    basins = [b for b in BASIN_TYPES if b in here]
    if role != vessel or not basins:
        return {}
    out: dict[str, str] = {}
    for r in state.objects:
        t = thor_object_name(r.category)
        if t in compat and not set(basins) & compat[t]:
            out[r.object_id] = f"in AI2-THOR a {t} cannot go in a {' or '.join(basins)}, where a faucet fills it"
    return out


VESSEL_TYPES: tuple[str, ...] = ("Pan", "Pot", "Kettle", "Bowl", "Plate", "Mug", "Cup")
"""AI2-THOR's movable receptacles that a heated thing may go in (a pan on a burner, a bowl in a microwave)."""


def vessel_for(thing: str, source: str, vessels: Iterable[str], data_dir: Any = None) -> str | None:
    """A vessel type among ``vessels`` that takes ``thing`` and goes in / on ``source`` (AI2-THOR's compatible
    receptacles), when ``source`` does not take ``thing`` itself; None otherwise (it does, or nothing helps)."""
    from .knowledge.alfred import compatible_receptacles

    compat = compatible_receptacles(data_dir)
    if source in compat.get(thing, frozenset()):
        return None
    return next((v for v in vessels if v in compat.get(thing, ()) and source in compat.get(v, ())), None)


def no_fit(thing: str, place: str, compat: Mapping[str, frozenset[str]], here: Iterable[str]) -> str:
    """Why ``thing`` cannot be put in / on ``place`` (AI2-THOR types), with the types ``here`` that would take it."""
    fits = [h for h in here if h in compat.get(thing, ())]
    return f"in AI2-THOR a {thing} cannot go in or on a {place}" + (
        f"; it goes in or on {', '.join(fits)} here" if fits else "")


LIQUID_SOURCES: dict[str, tuple[tuple[tuple[str, ...], ...], ...]] = {
    "water": ((("Faucet", "ShowerHead"), ("SinkBasin", "BathtubBasin")),),
    "coffee": ((("CoffeeMachine",), ("Mug",)),),
}
"""Per liquid, the alternative sets of object types a scene needs to make it, each set's groups all present: water
runs from a faucet (or shower head) over a basin; coffee from a coffee machine, which AI2-THOR fills only into a
mug (its ``ObjectSpecificReceptacle``). Any other liquid (wine) is only poured from a vessel that holds it.
AI2-THOR's ``FillObjectWithLiquid`` conjures any of them; the planner never uses it to make one."""
LIQUID_SOURCE_WORDS = ("water runs from a faucet over a sink or bathtub basin, coffee from a coffee machine into a "
                       "mug, any liquid is poured from a vessel that holds it, and the planner conjures none")


def has_liquid_source(liquid: str, state: SceneState, affordances: Mapping[str, Collection[str]],
                      exclude: Collection[str] = ()) -> bool:
    """The scene has a usable source of ``liquid``, by the rules the skills act on: water from a faucet (or shower
    head) over a basin; coffee from a coffee machine, which AI2-THOR fills only into a mug
    (``ObjectSpecificReceptacle``), so a usable mug too; any liquid poured from a vessel that holds it (the
    ``holds:<liquid>`` affordance of :func:`planner.steps.affordances_of`: a wine bottle starts empty in most
    scenes). Broken objects and the ``exclude``d ones (found faulty or taken) do not count."""
    usable = [r for r in state.objects if r.object_id not in exclude and not r.state.unusable_reason()]
    if any(f"holds:{liquid}" in affordances.get(r.object_id, ()) for r in usable):
        return True
    here = {thor_object_name(r.category) for r in usable}
    return any(all(here & set(group) for group in alt) for alt in LIQUID_SOURCES.get(liquid, ()))


WHY_ONLY: dict[str, str] = {
    "cutting": "AI2-THOR slices and cracks only with a Knife or ButterKnife in hand (SliceObject)",
    "breaking": "AI2-THOR slices and cracks only with a Knife or ButterKnife in hand (SliceObject)",
    "increasing_height": "only what is made for standing on is safe to stand on",
}
"""Why a role whose types the planner restricts (:func:`~planner.knowledge.task_specs.physical_roles`) turns down
objects COAT accepts for it."""


def acceptable_but_unable(role: Role, task: str | None, state: SceneState, kb: KnowledgeBase,
                           offered: list[ObjectRecord]) -> list[str]:
    """Objects here that COAT's people accept for the role but that the role's type restriction turns down (the
    fork for cutting cake: AI2-THOR slices only with a knife), each with why."""
    if not role.types:
        return []
    accepted = set(kb.utility_objects(role.utility))
    if task and kb.is_annotated(role.utility, task):
        accepted |= set(kb.context_objects(role.utility, task))
    seen = {r.object_id for r in offered}
    why = WHY_ONLY.get(role.utility, f"the task needs a {' or '.join(role.types)}")
    return [f"{role.name}: {r.object_id} is a {r.category} COAT accepts for {role.utility}, but {why}"
            for r in state.objects if r.category in accepted and r.object_id not in seen
            and thor_object_name(r.category) not in role.types][:5]


__all__ = ["LIQUID_SOURCES", "LIQUID_SOURCE_WORDS", "VESSEL_TYPES", "WHY_ONLY", "acceptable_but_unable",
           "has_liquid_source", "misfits", "no_fit", "placements", "vessel_for"]
