"""The closed loop for the AI2-THOR family (the embedded simulator, real AI2-THOR): act, verify, re-decide, re-plan.

One skill call at a time: the skill checks its own postconditions on the next observation and, when a step
fails because of an object (broken when picked up, taken by someone, a device that never heats, gone), says
which object (``SkillResult.blame``) and why (``fault``). The loop then marks that object, perceives the scene
again (perception, not the simulator's internals), lets the same decision pipeline choose that role again among
the remaining candidates, keeps every other binding, re-plans the remaining steps from the current state
(goal conditions already met are skipped) and goes on, within a re-plan budget. It ends when the steps run
out, with the goal conditions checked on the last observation: achieved, or not and why.

Example:
    >>> from planner.api import plan, execute_plan                        # doctest: +SKIP
    >>> trace = execute_plan(plan("cut apple", llm=None))                 # doctest: +SKIP
    >>> trace.achieved, [g.met for g in trace.goals]                      # doctest: +SKIP
    (True, [True])
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scenes.base import SceneEnv, SceneObs
from skills import SkillResult, run_skill

from .. import safety
from ..arguments import make_backend
from ..fits import placements
from ..goals import book, check_all, members
from ..knowledge import KnowledgeBase
from ..scene_planner import plan_in_state
from ..schemas import ExecutionTrace, GoalStatus, Plan, Role, SkillCall, TaskSpec
from ..schemas.thor_rules import FULL
from ..steps import affordances_of
from .loop import ClosedLoop, LoopRun

logger = logging.getLogger(__name__)

DEFAULT_REPLANS = 3
"""Re-plans an execution may make before it gives up (each follows one object found unusable)."""
HEATERS = ("Microwave", "StoveBurner", "StoveKnob", "Toaster")
"""Appliances that must not be switched on empty."""


@dataclass(kw_only=True)
class _Run(LoopRun):
    """The state of one execution: the shared loop's record, plus the current plan, observation and safety."""

    plan: Plan
    obs: SceneObs
    initial: tuple[Mapping[str, Any], ...]
    before: tuple[GoalStatus, ...] = ()
    violations: list[str] = field(default_factory=list)
    booked: dict[str, dict[str, tuple[Any, ...]]] = field(default_factory=dict)
    """The booked properties' values each skill call changed (``when="once"`` goals, :func:`planner.goals.book`)."""
    tried: set[tuple[str, str]] = field(default_factory=set)
    """(placed object, receptacle) pairs a refusal already re-decided once (the object first, then the receptacle)."""


class HouseholdLoop(ClosedLoop[_Run, ExecutionTrace]):
    """Perceive -> decide -> act -> verify -> re-plan on one AI2-THOR-family environment.

    The driver is :class:`~planner.agents.loop.ClosedLoop`; this class supplies metadata perception, the
    household skills (``skills.run_skill``) and re-planning with ``plan_in_state``.

    Args:
        env: A reset environment (its last observation is passed to :meth:`run`).
        estimator: Perception: ``estimate(obs) -> SceneState``.
        kb: COAT's knowledge base.
        llm: The model (None: knowledge only), as the plan was made: a backend, a langchain chat model or a spec.
        planner: ``two-stage`` or ``single``; strategy: ``hybrid``, ``llm`` or ``knowledge``.
        max_replans: The re-plan budget.
        max_skill_steps: The step budget of one skill call.
    """

    def __init__(
        self,
        env: SceneEnv[Any, Any],
        estimator: Any,
        kb: KnowledgeBase,
        *,
        llm: Any = None,
        planner: str = "two-stage",
        strategy: str = "hybrid",
        max_replans: int = DEFAULT_REPLANS,
        max_skill_steps: int = 200,
    ) -> None:
        self.env = env
        self.estimator = estimator
        self.kb = kb
        self.llm = make_backend(llm)  # once: every re-plan asks the same backend (a chat model is wrapped here)
        self.planner = planner
        self.strategy = strategy
        self.max_replans = max_replans
        self.max_skill_steps = max_skill_steps

    def run(self, plan: Plan, obs: SceneObs) -> ExecutionTrace:
        """Carry ``plan`` out from ``obs`` and report (see :class:`~planner.schemas.ExecutionTrace`).

        Raises:
            ConfigError: the loop's env was made for another scene than the plan's.
        """
        from scenes.registry import check_env_scene

        check_env_scene(self.env, plan.env_id)
        spec = plan.spec
        before = check_all(spec.goals, obs.objects, plan.bindings) if spec else ()
        run = _Run(plan=plan, obs=obs, initial=tuple(obs.objects), before=before)
        if not plan.feasible:
            run.failure = plan.reason or "the plan is infeasible"
        run.load(plan.steps if plan.feasible else ())
        self.drive(run)
        self._take_out_what_was_left_inside(run)
        self._close_what_was_left_open(run)
        return self.report(run)

    def _take_out_what_was_left_inside(self, run: _Run) -> None:
        """Tidiness: what the run put in a microwave, toaster or coffee machine and no goal wants there (the slice of
        a heat task that gave up) is taken out onto a surface."""
        spec = run.plan.spec
        wanted = {(run.plan.bindings.get(g.item), run.plan.bindings.get(g.other or ""))
                  for g in (spec.goals if spec else ()) if g.relation == "contained_in"}
        start = {str(o.get("objectId")): set(o.get("parentReceptacles") or []) for o in run.initial}
        types = {str(o.get("objectId")): o.get("objectType") for o in run.obs.objects}
        for o in run.obs.objects:
            oid = str(o.get("objectId"))
            was = start.get(oid, start.get(oid.rsplit("|", 1)[0], set()))
            inside = [p for p in o.get("parentReceptacles") or [] if types.get(p) in safety.APPLIANCES_HOLDING
                      and p not in was and (oid, p) not in wanted]
            if inside and o.get("pickupable") and not o.get("isBroken"):
                self.step(run, SkillCall(skill="pickup", target=oid))
                self.step(run, SkillCall(skill="set_down", target=oid))

    def _close_what_was_left_open(self, run: _Run) -> None:
        """Tidiness: close every receptacle a step opened (a failed ``place`` too) unless a goal wants it open."""
        wanted_open = {run.plan.bindings.get(g.item) for g in (run.plan.spec.goals if run.plan.spec else ())
                       if g.prop == "isOpen" and g.value is True}
        opened = list(dict.fromkeys(o for r in run.results for o in r.opened))
        for oid in opened:
            now = next((o for o in run.obs.objects if o.get("objectId") == oid), None)
            if now is not None and now.get("isOpen") and oid not in wanted_open:
                self.step(run, SkillCall(skill="close", target=oid))

    # -- one step, and what it did to safety

    def act(self, run: _Run, call: SkillCall) -> SkillResult:
        """One skill call through ``skills.run_skill``; its safety violations are counted."""
        pre = run.obs
        res, run.obs = run_skill(self.env, run.obs, call, max_skill_steps=self.max_skill_steps)
        run.violations += _unsafe_actions(pre, res)
        run.violations += [v for v in safety.wet(run.obs.objects) if v not in run.violations]
        book(run.booked, run.obs.objects, pre.objects, treated(call, res, run.obs.objects))
        if res.ok and call.skill == "slice":
            self._commit_to_a_piece(run, call.target or "")
        return res

    def _commit_to_a_piece(self, run: _Run, whole: str) -> None:
        """After slicing, what was bound to the whole object is bound to one piece (the one the skills carry: the
        first), so the slice that is heated is the slice that is placed, checked and re-planned for. Targets that
        are several pieces of it ("two slices") get one piece each, and the rest of the plan is written again for
        them."""
        ordered = sorted((o for o in members(whole, run.obs.objects) if o.get("objectId") != whole),
                         key=lambda o: piece_order(str(o["objectId"])))
        if not ordered:
            return
        piece = str(ordered[0]["objectId"])
        names = [n for n, oid in run.plan.bindings.items() if oid == whole]
        spec = run.plan.spec
        several = [n for n in names if spec is not None and spec.target(n) is not None]
        if len(several) > 1 and len(ordered) >= len(several):
            fixed = {**run.plan.bindings, **{n: str(o["objectId"]) for n, o in zip(several, ordered, strict=False)}}
            fixed = {n: (piece if oid == whole else oid) for n, oid in fixed.items()}
            new = self._plan_again(run, self.estimator.estimate(run.obs), fixed)
            if new.feasible:
                run.plan = new.model_copy(update={"env_id": run.plan.env_id, "seed": run.plan.seed,
                                                  "options": run.plan.options,
                                                  "decisions": run.plan.decisions + new.decisions})
                lead = list(itertools.takewhile(lambda c: c.skill == "set_down", run.queue))  # the knife down
                run.load([*lead, *_not_redone(run, new.steps)])
                return
        bindings = {n: (piece if oid == whole else oid) for n, oid in run.plan.bindings.items()}
        run.plan = run.plan.model_copy(update={"bindings": bindings})

        def to_piece(c: SkillCall) -> SkillCall:
            args = {k: (piece if v == whole else v) for k, v in c.args.items()}
            return c.model_copy(update={"target": piece if c.target == whole else c.target,
                                        "receptacle": piece if c.receptacle == whole else c.receptacle, "args": args})

        run.load([to_piece(c) for c in run.queue])

    def ended(self, run: _Run) -> bool:
        """The environment says the episode is over."""
        return run.obs is not None and bool(getattr(self.env, "terminated", False))

    def wait_call(self, run: _Run, blame: str, res: SkillResult) -> SkillCall | None:
        """The ``wait`` skill (bounded: how long someone else needs ``blame`` is unknown), unless the scene offers a
        free substitute for its role: then None, and the role is decided again (a free butter knife beats waiting
        for the knife)."""
        if res.skill == "wait":
            return None  # it waited its bounded while already: decide the role again
        role = next((n for n, o in run.plan.bindings.items() if o == blame and run.plan.spec
                     and run.plan.spec.role(n)), None)
        if role is not None and self._free_substitute(run, role, blame):
            run.notes.append(f"{blame} is in use for a while and a free substitute is here: deciding {role} again")
            return None
        return SkillCall(skill="wait", target=blame)

    def _free_substitute(self, run: _Run, role: str, busy: str) -> bool:
        """Would deciding ``role`` again, without ``busy``, choose an object nobody else is using?"""
        fixed = {n: oid for n, oid in run.plan.bindings.items() if n != role}
        excluded = dict(run.excluded)
        run.excluded[busy] = "in-use"
        try:
            new = self._plan_again(run, self.estimator.estimate(run.obs), fixed)
        finally:
            run.excluded = excluded
        chosen = new.bindings.get(role) if new.feasible else None
        return chosen is not None and chosen not in (run.obs.extra.get("in_use") or {})

    # -- re-deciding the role of an object found unusable

    def culprit(self, run: _Run, call: SkillCall, res: SkillResult) -> tuple[str | None, str | None]:
        """The object to replace and its role. A receptacle that refuses what is put in it (a pot into a
        microwave) is a bad pair: the object being placed is replaced first, the receptacle only when that role
        has nothing else left to offer."""
        plan = run.plan

        def role_of(oid: str | None) -> str | None:
            return next((n for n, o in plan.bindings.items() if o == oid and plan.spec and plan.spec.role(n)), None)

        target = next((n for n, o in plan.bindings.items() if o == res.blame and plan.spec and plan.spec.target(n)
                       and not plan.spec.target(n).liquid), None)  # type: ignore[union-attr]
        if target is not None and res.fault in ("missing", "broken", "in-use"):
            return res.blame, target  # the apple taken: another apple of the room is the target now

        if _full(res) and res.blame == call.receptacle and role_of(res.blame) is not None:
            return res.blame, role_of(res.blame)  # the burner holds another pan: another burner, the same pot
        if res.fault == "blocked" and call.skill == "place" and res.blame == call.receptacle:
            moved = role_of(call.target)
            pair = (call.target or "", call.receptacle or "")
            if moved is not None and pair not in run.tried:
                run.tried.add(pair)
                return call.target, moved
        if role_of(call.target) is not None and (call.skill == "prepare" and role_of(res.blame) is None
                                                  or res.fault == "blocked" and res.blame is None):
            # an object that cannot be made ready here (dirty, and the sink refuses it) or reached is unusable
            return call.target, role_of(call.target)
        return res.blame, role_of(res.blame)

    def redecide(self, run: _Run, role: str, blame: str, res: SkillResult) -> tuple[SkillCall, ...] | None:
        """Perceive again and let ``plan_in_state`` choose ``role`` anew, every other binding kept."""
        plan = run.plan
        vessel = self._in_a_vessel(run, role, blame, res)
        if vessel is not None:
            return vessel
        run.notes.append(f"{role}: {blame} is unusable ({res.fault}: {res.reason}); deciding {role} again")
        if res.fault == "blocked" and res.skill == "place" and not _full(res):
            # a refused pair is a matter of types: no other object of the same type will fit either
            kind = next((o.get("objectType") for o in run.obs.objects if o.get("objectId") == blame), None)
            for o in run.obs.objects:
                if kind and o.get("objectType") == kind:
                    run.excluded.setdefault(str(o["objectId"]), "blocked")
        state = self.estimator.estimate(run.obs)
        assert plan.spec is not None
        fixed = {n: oid for n, oid in plan.bindings.items() if n != role}
        new = self._plan_again(run, state, fixed)
        if not new.feasible:
            # nothing fits what the role's partners hold or are put in (no burner takes the mug that went into the
            # faulty microwave): decide the partners again too
            partners = {n for pair in placements(plan.spec) if role in pair for n in pair} - {role}
            if partners & set(fixed):
                new = self._plan_again(run, state, {n: oid for n, oid in fixed.items() if n not in partners})
        new = new.model_copy(update={"env_id": plan.env_id, "seed": plan.seed, "options": plan.options,
                                     "decisions": plan.decisions + new.decisions})
        if not new.feasible:
            if res.skill == "prepare" and self._use_as_is(run, res.target or ""):
                return tuple(run.queue)  # nothing else can do it: go on with the object as it is
            run.failure = f"no substitute for {role}: {new.reason}"
            return None
        run.plan = new
        return _not_redone(run, new.steps)

    def _in_a_vessel(self, run: _Run, role: str, blame: str, res: SkillResult) -> tuple[SkillCall, ...] | None:
        """A heat source that refuses the target itself (a tomato on a burner) takes it in a vessel: add a vessel
        role, keep the source, and plan again; None when that does not apply or finds no vessel."""
        plan = run.plan
        spec = plan.spec
        if (spec is None or role != "heating(source)" or res.fault != "blocked" or res.skill != "place"
                or res.target != plan.bindings.get("target") or spec.role("heating(vessel)") is not None):
            return None
        vessel = Role(name="heating(vessel)", utility="heating(vessel)", needs=("receptacle",))
        wider = spec.model_copy(update={"roles": (*spec.roles, vessel)})
        run.excluded.pop(blame, None)
        new = self._plan_again(run, self.estimator.estimate(run.obs), dict(plan.bindings), spec=wider)
        if not new.feasible:
            run.excluded[blame] = res.fault or "blocked"
            return None
        run.notes.append(f"{blame} does not take {res.target} itself: heating it in {new.bindings['heating(vessel)']}")
        run.plan = new.model_copy(update={"env_id": plan.env_id, "seed": plan.seed, "options": plan.options,
                                          "decisions": plan.decisions + new.decisions})
        return _not_redone(run, new.steps)

    def _plan_again(self, run: _Run, state: Any, fixed: dict[str, str], spec: TaskSpec | None = None) -> Plan:
        """Plan the rest keeping ``fixed``; a goal counts as met only if none of its items is decided again."""
        spec = spec or run.plan.spec
        assert spec is not None
        kept = set(fixed) | {t.name for t in spec.targets if t.liquid}
        reached = {r.target for r in run.results if r.skill == "bring" and r.ok}
        status = check_all(spec.goals, run.obs.objects, run.plan.bindings, run.booked)
        # an item with a change of state still to make will be moved for it (the slice on the counter goes into the
        # fridge to be cooled): where it lies now is not done yet; its states already made stay done
        moving = {g.condition.item for g in status if not g.met and g.condition.relation is None}
        met = [g.condition for g in status
               if g.met and g.condition.item in kept
               and not (g.condition.relation is not None and g.condition.item in moving)
               and (g.condition.other in kept or g.condition.other in (None, "light", "agent"))
               # being near an object by chance is no visit: only a bring that was verified counts as done
               and not (g.condition.other == "agent" and run.plan.bindings.get(g.condition.item) not in reached)]
        return plan_in_state(spec, state, llm=self.llm, planner=self.planner, strategy=self.strategy,  # type: ignore[arg-type]
                             kb=self.kb, affordances=affordances_of(run.obs.objects), exclude=run.excluded,
                             fixed=fixed, met=met)

    def _use_as_is(self, run: _Run, oid: str) -> bool:
        """After a failed ``prepare`` with no substitute: keep the object unprepared (a dirty phone still plays)."""
        if oid not in run.excluded or not any(o.get("objectId") == oid for o in run.obs.objects):
            return False
        if run.excluded[oid] in ("in-use", "broken", "missing"):
            return False  # someone else has it, or it is gone or broken: not usable as it is
        del run.excluded[oid]
        run.notes.append(f"{oid} could not be made ready and nothing else can serve: used as it is")
        return True

    # -- the report

    def report(self, run: _Run) -> ExecutionTrace:
        """The :class:`~planner.schemas.ExecutionTrace`: goals checked on the last observation (``when="once"``
        goals also on what the run booked)."""
        plan = run.plan
        spec = plan.spec
        goals = _with_visits(check_all(spec.goals, run.obs.objects, plan.bindings, run.booked) if spec else (), run,
                             plan)
        tidy = safety_at_end(spec, plan.bindings, run.initial, run.obs.objects,
                             [a for r in run.results for a in r.actions])
        achieved = bool(goals) and all(g.met for g in goals) and plan.feasible
        failure = run.failure
        if not failure and not achieved:
            unmet = [g.condition.text() for g in goals if not g.met]
            failure = "goal not met: " + "; ".join(unmet) if unmet else "the task has no checkable goal"
        return ExecutionTrace(
            task=plan.task,
            results=tuple(run.results),
            ok=achieved,
            failure="" if achieved else failure,
            achieved=achieved,
            goals=goals,
            goals_before=run.before,
            replans=run.replans,
            violations=tuple(run.violations + tidy),
            bindings=dict(plan.bindings),
            excluded=dict(run.excluded),
            notes=tuple(run.notes),
            time=float(getattr(run.obs, "time", 0.0) or 0.0),
            final_objects=tuple(dict(o) for o in run.obs.objects),
            booked=run.booked,
        )


def _with_visits(goals: tuple[GoalStatus, ...], run: _Run, plan: Plan) -> tuple[GoalStatus, ...]:
    """"Reached" goals are events: an object the robot went to (a verified ``bring``) stays reached after it
    walks on to the next one (the basin, then the towel), as ALFRED books its events."""
    reached = {r.target for r in run.results if r.skill == "bring" and r.ok}
    out = []
    for g in goals:
        c = g.condition
        if not g.met and c.relation == "close_to" and c.other == "agent" and plan.bindings.get(c.item) in reached:
            g = g.model_copy(update={"met": True, "detail": f"reached during the run ({g.detail} at the end)"})
        out.append(g)
    return tuple(out)


def _not_redone(run: _Run, steps: tuple[SkillCall, ...]) -> tuple[SkillCall, ...]:
    """A re-plan's steps less the preparation already done: an object made ready (washed, waited for) by an earlier
    step is ready still (goal conditions already met are left out by the planner itself)."""
    ready = {r.target for r in run.results if r.skill == "prepare" and r.ok}
    return tuple(c for c in steps if not (c.skill == "prepare" and c.target in ready))


def piece_order(object_id: str) -> tuple[int, str]:
    """Pieces in the order AI2-THOR numbers them (``..._2`` before ``..._10``)."""
    tail = object_id.rsplit("_", 1)[-1]
    return (int(tail) if tail.isdigit() else 1 << 30, object_id)


def treated(call: SkillCall, res: SkillResult, objects: Any) -> list[str]:
    """What a step's own actions treated, as ALFRED books it: whatever lay in (or in a vessel in) a heat source the
    step switched on (through its knob, for a burner), or in a fridge the step closed. An apple cold in the closed
    fridge from the start was not cooled, nor hot coffee heated, unless a step did that to it."""
    by_id = {str(o.get("objectId")): o for o in objects}
    devices: list[str] = []
    for a in res.actions:
        if not a.success or a.object_id is None:
            continue
        o = by_id.get(a.object_id) or {}
        if a.action == "ToggleObjectOn":
            devices += [a.object_id, *(o.get("controlledObjects") or [])]
        elif a.action == "CloseObject" and o.get("isColdSource"):
            devices.append(a.object_id)

    def within(o: Mapping[str, Any], depth: int = 3) -> bool:
        parents = o.get("parentReceptacles") or []
        return any(p in devices for p in parents) or depth > 0 and any(
            p in by_id and within(by_id[p], depth - 1) for p in parents)

    return [k for k, o in by_id.items() if devices and within(o)] if devices else []


def _unsafe_actions(pre: SceneObs, res: SkillResult) -> list[str]:
    """Safety violations in one skill call's actions, judged on the observation before it ran."""
    objs = {str(o.get("objectId")): o for o in pre.objects}
    busy = pre.extra.get("in_use") or {}
    out: list[str] = []
    for a in res.actions:
        if not a.success or a.object_id is None:
            continue
        if a.object_id in busy and a.action in ("ToggleObjectOn", "ToggleObjectOff", "PickupObject", "PutObject"):
            out.append(safety.event("others-object", f"{a.action} on {a.object_id}, which someone else is using"))
        o = objs.get(a.object_id)
        if a.action == "ToggleObjectOn" and o is not None and o.get("objectType") in HEATERS:
            heated = [o] + [objs[c] for c in (o.get("controlledObjects") or []) if c in objs]
            if not any(h.get("receptacleObjectIds") for h in heated):
                out.append(safety.event("heater-empty", f"{a.object_id} switched on empty"))
    return out


HEIGHT_UTILITIES = ("increasing_height",)
"""Utilities that stand the robot (or a person) on the chosen object."""


def safety_at_end(spec: TaskSpec | None, bindings: Mapping[str, str], initial: Any, final: Any,
                  actions: Any) -> list[str]:
    """The :mod:`planner.safety` events of a finished run that the goals do not ask for: left on, open, inside,
    served out of reach, kept open too long, furniture climbed on."""
    goals = spec.goals if spec else ()
    wanted_on = {bindings.get(g.item, "") for g in goals if g.prop == "isToggled" and g.value is True}
    if any(g.relation == "close_to" and g.other == "light" for g in goals):
        wanted_on |= {o for n, o in bindings.items() if n == "light_source"}
    wanted_open = {bindings.get(g.item, "") for g in goals if g.prop == "isOpen" and g.value is True}
    inside = {(bindings.get(g.item, ""), bindings.get(g.other or "", ""))
              for g in goals if g.relation == "contained_in"}
    served = [bindings[n] for n in ("carrying",) if n in bindings and spec is not None and spec.role(n) is not None]
    types = {str(o.get("objectId")): str(o.get("objectType")) for o in (*initial, *final)}
    height = [r.name for r in (spec.roles if spec else ()) if r.utility in HEIGHT_UTILITIES]
    bound_types = {n: types.get(oid, "") for n, oid in bindings.items()}
    acts = [a.model_dump() if hasattr(a, "model_dump") else dict(a) for a in actions]
    return (safety.end_state(initial, final, wanted_on=wanted_on, wanted_open=wanted_open, wanted_inside=inside,
                             served=served)
            + safety.open_too_long(acts, types) + safety.climbing(bound_types, height))


__all__ = ["DEFAULT_REPLANS", "HouseholdLoop", "safety_at_end"]


def _full(res: SkillResult) -> bool:
    """A place refused because the receptacle already holds something (AI2-THOR's "full right now"): the receptacle
    is taken, which says nothing about the object's type or other receptacles of its type."""
    return res.fault == "blocked" and res.skill == "place" and FULL in (res.reason or "")
