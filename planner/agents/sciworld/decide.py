"""The agent's decisions: COAT picks heat sources and vessels; rules rank coolers and water sources.

COAT has a heating utility (``heating(source)``, ``heating(vessel)``) but no cooling utility and no "get
water" utility, so coolers and water sources are ranked by a rule (:func:`rank_coolers`,
:func:`rank_water_sources`), not by COAT.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from ...schemas import Plan, SceneState
from .contracts import DeviceChoice, TaskWording
from .facts import COAT_ROLES, COOLER_MIN_C, ROOM_ORDER, WATER_SOURCES, cooler_too_weak, device_kind
from .memory import RoomMemory, SeenObject

if TYPE_CHECKING:
    from ...knowledge import KnowledgeBase
    from ...llm import LLMBackend

Role = Literal["heater", "cooler", "water", "vessel"]


def rank_coolers(memory: RoomMemory, need_c: float | None, excluded: dict[str, str], *,
                 specs: bool) -> list[SeenObject]:
    """Usable coolers, best first (a rule: COAT has no cooling utility).

    Rule: leave out broken, excluded and (with ``specs``) too-warm coolers; then nearest first in room order
    (the kitchen's), and among one room's the colder one (faster). Too-warm ones are added to ``excluded``.
    """
    out = []
    for e in memory.entries():
        kind = device_kind(e.obj.name)
        if e.room == "inventory" or (kind not in COOLER_MIN_C and e.record.category != "Fridge"):
            continue
        if e.gid in excluded or memory.is_broken(e.gid):
            continue
        if specs and cooler_too_weak(e.obj.name, need_c):
            excluded[e.gid] = cooler_too_weak(e.obj.name, need_c)
            continue
        out.append(e)
    order = {r: i for i, r in enumerate(ROOM_ORDER)}
    return sorted(out, key=lambda e: (order.get(e.room, 99), COOLER_MIN_C.get(device_kind(e.obj.name), 0.0)))


def rank_water_sources(memory: RoomMemory, excluded: dict[str, str]) -> list[SeenObject]:
    """Usable water sources (sinks), kitchen first (a rule: COAT has no "get water" utility)."""
    return [
        e for e in memory.entries()
        if e.room != "inventory" and device_kind(e.obj.name) in WATER_SOURCES
        and e.gid not in excluded and not memory.is_broken(e.gid)
    ]


def decision_method(p: Plan) -> str:
    """``coat-knowledge`` when COAT's annotations decided every stage, else ``coat-llm``."""
    methods = {st.method for d in p.decisions for st in (d.stage1, d.stage2) if st is not None}
    return "coat-knowledge" if methods <= {"knowledge"} else "coat-llm"


def coat_task(key: str, substance: str, wording: TaskWording) -> tuple[str, str]:
    """(utility, task) put to COAT for a phase key (``heat:gas``) or ``vessel``."""
    utility, mapped_task = COAT_ROLES[key]
    if wording == "mapped":
        return utility, mapped_task
    verb = {"heat:gas": "boil", "heat:liquid": "melt", "heat:solid": "melt"}.get(key, "heat")
    return utility, f"{verb} {substance}"


def coat_choice(
    role: Role,
    key: str,
    memory: RoomMemory,
    keep: Callable[[SeenObject], bool],
    excluded: dict[str, str],
    *,
    substance: str,
    wording: TaskWording,
    kb: KnowledgeBase | None,
    llm: LLMBackend | None,
    phase: str = "",
) -> tuple[DeviceChoice, bool]:
    """Ask :func:`planner.api.plan_in_state` for the object of one role; re-plan without unusable ones.

    Args:
        role: The role the object plays.
        key: The phase key (``heat:gas``) or ``vessel`` (:data:`~.facts.COAT_ROLES`).
        memory: What the agent has seen; ``keep`` chooses the objects COAT may consider.
        keep: Filter over the seen objects (it may add reasons to ``excluded``).
        excluded: Object id -> why it is left out; broken objects are added here.
        substance: The task's substance (for the literal task wording).
        wording: How the phase is put to COAT.
        kb: The COAT knowledge base.
        llm: A model for the hybrid strategy, or None (COAT's annotations only).
        phase: The phase key recorded in the choice.

    Returns:
        The choice, and whether COAT's first choice had to be made again because objects were broken.
    """
    from ...api import plan_in_state

    utility, task = coat_task(key, substance, wording)
    strategy = "hybrid" if llm is not None else "knowledge"
    state = memory.state(keep)
    # "literal" wording leaves ScienceWorld's own words to the model: no borrowed annotations
    kw: dict[str, Any] = {"llm": llm, "strategy": strategy, "utility": utility, "kb": kb, "interpret": "exact"}
    p = plan_in_state(task, state, **kw)
    replanned = False
    if not p.feasible:
        # COAT's stage 1 keeps the task's context objects (the stove for "boil water"); when those are all
        # broken, stage 2 has nothing usable. Re-plan over the usable objects only (the oven is then ranked).
        usable_objects = tuple(r for r in state.objects if not r.state.unusable_reason())
        usable = SceneState(scene_id=state.scene_id, objects=usable_objects)
        for r in state.objects:
            if r.state.unusable_reason():
                excluded.setdefault(r.object_id, "broken")
        p2 = plan_in_state(task, usable, **kw)
        if p2.feasible or p2.choices:
            replanned = any(r.state.unusable_reason() for r in state.objects)
            p = p2
    oid = p.choices[0].object_id if p.choices else None
    choice = DeviceChoice(role=role, phase=phase, object_id=oid, method=decision_method(p), coat_task=task,
                          utility=utility, excluded=dict(excluded),
                          reason=p.reason or (p.choices[0].rationale if p.choices else ""), plan=p)
    return choice, replanned


__all__ = ["Role", "coat_choice", "coat_task", "decision_method", "rank_coolers", "rank_water_sources"]
