"""The task model and the plan: roles, targets, goal conditions (a TaskSpec), and what ``plan()`` returns.

A :class:`TaskSpec` names the **roles** the task needs (COAT utilities: something to cut, a heat source),
the **targets** it acts on (the apple, the bread, water: AI2-THOR object types, present in the scene or not),
and **goal conditions**: predicates over scene state the way rl_ai2thor's graph tasks and ALFRED's task types
state them: a property of an item (``isSliced``, ``isCooked``, ``temperature``, ``isDirty``, ``isToggled``,
``isOpen``, ``isFilledWithLiquid``, ``fillLiquid``, ``isPickedUp``) or a relation between two items
(``contained_in`` a receptacle, ``close_to`` a light that is on or the robot). Items are binding names: a
role's or a target's name, bound to an object id by the plan. :mod:`planner.goals` checks conditions on an
observation. A condition holds on the last observation (``when="end"``) or, for what a later step undoes, on some
observation of the run (``when="once"``: ALFRED's "heated" apple stays heated once it is in the fridge).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .core import Contract, Decision, ObjectChoice, SkillCall

MAX_COUNT = 8
"""The most objects one target may stand for (``Target.count``); "all the X" takes what the scene has."""

Property = Literal[
    "isSliced", "isCooked", "temperature", "isDirty", "isToggled", "isOpen", "isFilledWithLiquid", "fillLiquid",
    "isPickedUp", "isBroken",
]
PROPERTIES: tuple[str, ...] = Property.__args__  # type: ignore[attr-defined]
Relation = Literal["contained_in", "close_to"]
RELATIONS: tuple[str, ...] = Relation.__args__  # type: ignore[attr-defined]
ConditionKind = Literal["goal", "safety"]
When = Literal["end", "once"]
WHENS: tuple[str, ...] = When.__args__  # type: ignore[attr-defined]
BOOKED_PROPS: tuple[str, ...] = ("temperature",)
"""Properties whose changes an execution books after every step (:attr:`ExecutionTrace.booked`), so that a
``when="once"`` condition on them can be checked: temperature is the state a later step undoes (the fridge cools
the heated apple, the microwave warms the cooled one)."""



HEATING_UTILITIES = frozenset({"heating(source)", "heating(vessel)"})
"""Utilities whose effect is heat: whatever heats enough (or holds the thing while it heats) has it, so a proxy goal
that has such an object reached, for a thing AI2-THOR lacks (butter, wax), does not name it
(:meth:`TaskSpec.named_roles`)."""


class Role(Contract):
    """One thing the task needs an object for: a COAT utility, decided by the planner's two stages."""

    name: str = Field(min_length=1)
    """Binding name, unique in the spec (usually the utility: ``cutting``, ``heating(vessel)``)."""
    utility: str = Field(min_length=1)
    task: str | None = None
    """The COAT task whose annotations decide this role (None: the utility alone)."""
    types: tuple[str, ...] = ()
    """When not empty, only these AI2-THOR types may fill the role (ALFRED names the receptacle type; AI2-THOR
    slices only with a knife)."""
    needs: tuple[str, ...] = ()
    """AI2-THOR capability flags the object must have (``canFillWithLiquid`` for a vessel that holds water)."""
    prefer: tuple[str, ...] = ()
    """Types offered first, so they win a tie between equally good objects (the request's verb names them: toast ->
    Toaster); nothing is ruled out by them."""
    avoid: tuple[str, ...] = ()
    """Types the request rules out ("not on the floor", "don't put it in the fridge"): never offered."""


class Target(Contract):
    """What the task acts on: an object type (the apple), or a liquid held by a role's vessel (water)."""

    name: str = Field(min_length=1)
    types: tuple[str, ...] = Field(min_length=1)
    """AI2-THOR object types that count (``("Apple",)``; ``("Bread",)``); a liquid's own name (``("water",)``)."""
    liquid: bool = False
    """True for water, coffee, wine: not an object in AI2-THOR but a vessel's ``fillLiquid``."""
    sliced: bool = False
    """The task acts on a slice (ALFRED's sliced variants, serving sliced apple)."""
    count: int = Field(default=1, ge=1, le=MAX_COUNT)
    """How many such objects the task acts on ("two eggs", "both lamps"; a sliced target: that many pieces, "two
    slices of bread"). The planner makes copies of the target once it sees the scene (:mod:`planner.multiples`)."""
    every: bool = False
    """Every object of the types the scene has ("all the lights", "every window"): the count is the scene's."""
    same_as: str | None = None
    """The target this one is a copy of: it gets every goal of that one ("the remote and my phone" put away, the
    second of "two eggs"). A copy of a sliced target is another piece of the same object."""


class GoalCondition(Contract):
    """One predicate over scene state: ``item.prop == value``, or ``item relation other``."""

    item: str = Field(min_length=1)
    prop: Property | None = None
    value: bool | str | None = None
    relation: Relation | None = None
    other: str | None = None
    """The related item's binding name; for ``close_to`` also ``"light"`` (any light that is on) or ``"agent"``
    (the robot: AI2-THOR's per-object ``distance``)."""
    distance: float = Field(default=1.0, gt=0)
    """``close_to``: the largest distance in metres between the two objects' centres."""
    kind: ConditionKind = "goal"
    when: When = "end"
    """``end``: holds on the last observation. ``once``: a step of the run made it hold (booked), or it holds at
    the end (ALFRED books "heated" and "cooled" as events: an apple heated, then put in the fridge, was heated);
    only for the :data:`BOOKED_PROPS`."""
    description: str = ""

    @model_validator(mode="after")
    def _one_form(self) -> GoalCondition:
        if (self.prop is None) == (self.relation is None):
            raise ValueError("a goal condition is either a property (prop=, value=) or a relation (relation=, other=)")
        if self.relation is not None and not self.other:
            raise ValueError(f"relation {self.relation!r} needs other= (the related item)")
        if self.when == "once" and self.prop not in BOOKED_PROPS:
            raise ValueError(f"when='once' needs a booked property ({', '.join(BOOKED_PROPS)}), got "
                             f"{self.prop or self.relation!r}")
        return self

    def text(self) -> str:
        """A short human-readable form (``target.isSliced == True``, ``target contained_in carrying``)."""
        if self.description:
            return self.description
        if self.prop is not None:
            return f"{self.item}.{self.prop} == {self.value!r}"
        return f"{self.item} {self.relation} {self.other}"


class TaskSpec(Contract):
    """Roles, targets and goal conditions of one task (see the module docstring)."""

    task: str = Field(min_length=1)
    family: str = ""
    """The kind of task (``cut``, ``heat``, ``serve``, ``store``, ``clean``, ``light``, ``bring``, an ALFRED type)."""
    roles: tuple[Role, ...] = ()
    targets: tuple[Target, ...] = ()
    goals: tuple[GoalCondition, ...] = ()
    note: str = ""
    """What AI2-THOR cannot show of this task and what the goal checks instead (empty when nothing is missing)."""
    proxy: bool = False
    """The goals stand in for an effect AI2-THOR cannot show: the seat reached for "watch movie", hot water for
    tomato soup, the heat source brought for "melting butter". Such a task is checkable but its success is not
    the task done: benchmarks report it apart, never in the headline."""

    @model_validator(mode="after")
    def _names_resolve(self) -> TaskSpec:
        names = [r.name for r in self.roles] + [t.name for t in self.targets]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"binding names must be unique; {dupes} appear twice")
        known = set(names)
        for t in self.targets:
            if t.same_as is not None and (t.same_as == t.name or t.same_as not in {x.name for x in self.targets}):
                raise ValueError(f"target {t.name!r} is a copy of {t.same_as!r}, which is no other target of the spec "
                                 f"(targets: {sorted(x.name for x in self.targets)})")
        for g in self.goals:
            for ref in (g.item, g.other):
                if ref is not None and ref not in ("light", "agent") and ref not in known:
                    raise ValueError(f"goal {g.text()!r} names {ref!r}, which is neither a role nor a target "
                                     f"(roles and targets: {sorted(known)})")
        return self

    def role(self, name: str) -> Role | None:
        """The role with this binding name, or None."""
        return next((r for r in self.roles if r.name == name), None)

    def target(self, name: str) -> Target | None:
        """The target with this binding name, or None."""
        return next((t for t in self.targets if t.name == name), None)

    def named_roles(self) -> frozenset[str]:
        """The roles the goal conditions name (where the clothes end up, what is brought): the goal holds only with
        what the task means there, so a stand-in must be one the object selector accepts for the task. A tool or
        device the goal does not name is judged by its effect (the egg cooked), and so is a heating object that a
        proxy goal only has reached (:data:`HEATING_UTILITIES`): the heat source of "melting butter" stands for the
        butter melted, which AI2-THOR cannot show, so an oven melts it when the stove is broken. What a person is
        handed (the towel after a bath, the knife for the cake) stays named: the person judges it."""
        names = {r.name for r in self.roles}
        heating = {r.name for r in self.roles if r.utility in HEATING_UTILITIES} if self.proxy else set()
        return frozenset(n for c in self.goals for n in (c.item, c.other)
                         if n in names and not (n in heating and c.relation == "close_to" and c.other == "agent"))


class GoalStatus(Contract):
    """One goal condition checked on one observation."""

    condition: GoalCondition
    met: bool
    detail: str = ""


class ModelAsked(Contract):
    """How a generating model was asked to read a request (the model reader, ``interpret="model"``)."""

    decoding: str
    """How its replies were constrained: ``grammar``, ``json_object``, ``json_schema``, ``prompt`` or ``structured``
    (:mod:`planner.llm.constrained`)."""
    asked: int = Field(ge=0)
    """Replies asked for: the first and every re-ask."""
    reasked: int = Field(ge=0)
    """Re-asks after a reply that failed validation."""
    failed: bool
    """No reply validated: the request counts as not understood."""
    seconds: float = Field(ge=0.0)
    """Wall time of the asking."""


class TaskReading(Contract):
    """How a task text was read: its TaskSpec, or why it was not understood (never a guess dressed as a plan).

    ``confidence`` is the reader's calibrated probability that the text is a household request it read right;
    below the reader's threshold ``understood`` is False, ``spec`` is None and ``closest`` lists the known tasks
    nearest to the text.
    """

    text: str
    understood: bool
    confidence: float = Field(ge=0.0, le=1.0)
    spec: TaskSpec | None = None
    method: Literal["exact", "reader", "directive", "structured", "given"] = "reader"
    """``exact``: a COAT task; ``reader``: the offline reader; ``directive``: an ALFRED goal the offline reader
    recognised ("put a washed apple in the fridge"); ``structured``: a model's structured output; ``given``: the
    caller's TaskSpec."""
    language: str = "en"
    """The language the text looks like (``en``, or the guess that made it refused)."""
    closest: tuple[str, ...] = ()
    """COAT tasks nearest to the text, best first."""
    evidence: tuple[str, ...] = ()
    """Why each role and target was read (the verb, a named type, the nearest COAT task)."""
    reason: str = ""
    """Why the text was not understood (empty when it was)."""
    asked: ModelAsked | None = None
    """How a generating model was asked, when one read the text (None: no model was asked)."""


class Plan(Contract):
    """What ``plan()`` returns: the task's spec, the object chosen for each role, and the steps that reach the goal.

    ``decisions`` keeps each role's full Decision (both stages, rankings, model usage) for inspection,
    ``considered`` the scene objects each decision ranked; ``bindings`` maps every role and target of ``spec``
    to the object id that fills it. ``feasible`` is False with a ``reason`` (and ``alternatives``) when a role
    has no usable object or a target is absent. ``scene_id``, ``seed`` and ``options`` (with what a random
    scenario drew) let ``execute_plan(plan)`` rebuild exactly the scene the plan was made in.
    """

    task: str
    utility: str | None = None
    steps: tuple[SkillCall, ...] = ()
    choices: tuple[ObjectChoice, ...] = ()
    feasible: bool = True
    reason: str = ""
    decisions: tuple[Decision, ...] = ()
    considered: tuple[tuple[str, ...], ...] = ()
    """Per decision, the object ids behind its labels (``decisions[i].labels[j]`` is ``considered[i][j]``)."""
    scene_id: str | None = None
    """The perceived scene's name (``SceneState.scene_id``)."""
    env_id: str | None = None
    """The registered scene id the plan was made in (``embedded/kitchen-v0``), when ``plan()`` built it."""
    seed: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    """Reset options, including the scenario a ``random`` one drew."""
    spec: TaskSpec | None = None
    bindings: dict[str, str] = Field(default_factory=dict)
    alternatives: tuple[str, ...] = ()
    """When infeasible: the nearest things that could be done instead (other objects, other tasks)."""
    reading: TaskReading | None = None
    """How the task text was read (its ``spec`` is left out: it is the plan's ``spec``); ``reading.understood``
    is False for a plan that did not understand its task
    (then ``feasible`` is False and ``alternatives`` lists the closest known tasks)."""

    @property
    def understood(self) -> bool:
        """False when the task text was not understood (nothing was decided); in JSON, ``reading.understood``."""
        return self.reading is None or self.reading.understood


# ---------------------------------------------------------------- execution


Fault = Literal["missing", "broken", "in-use", "faulty", "blocked"]
"""Why an object made a step fail.

- ``missing``: the object is not (or no longer) in the scene;
- ``broken``: its ``isBroken`` is True (found before or after picking it up);
- ``in-use``: someone else uses it (``obs.extra["in_use"]``); the reason says reversible or irreversible;
- ``faulty``: it did not do its job although the action succeeded (a heat source that never heated);
- ``blocked``: something is in the way: the robot found no place to stand (``blame`` None), or a receptacle
  refused the object or would not open (``blame`` the receptacle).
"""
FAULTS: tuple[str, ...] = Fault.__args__  # type: ignore[attr-defined]


class ActionOutcome(Contract):
    """One low-level action a skill sent, and what the simulator said."""

    action: str
    object_id: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    success: bool
    error: str = ""


class SkillResult(Contract):
    """The outcome of one skill call.

    Attributes:
        skill: The skill's name.
        target: The call's target.
        ok: True when the preconditions held, the skill ran and every postcondition holds afterwards.
        reason: Why it failed (``postcondition not met: ...`` for a postcondition), or a note on success.
        fault: On failure, what kind of object fault caused it (:data:`Fault`), or None when no object is to
            blame (navigation, a wrong plan, an exhausted step budget).
        blame: The object id whose state caused the failure (None with ``fault`` None or when unknown).
        opened: Objects this call opened and left open (``place`` into a fridge, ``pickup`` from a drawer).
        actions: Every low-level action sent, in order.
    """

    skill: str
    target: str | None = None
    ok: bool
    reason: str = ""
    fault: Fault | None = None
    blame: str | None = None
    opened: tuple[str, ...] = ()
    actions: tuple[ActionOutcome, ...] = ()

    @property
    def steps(self) -> int:
        """Number of simulator steps the skill used."""
        return len(self.actions)


class ExecutionTrace(Contract):
    """Everything an execution did, and whether the task got done.

    ``achieved`` is True when every goal condition holds on the last observation, or for a ``when="once"``
    condition was booked during the run (``goals``; ``goals_before``
    is the same check on the first one). ``replans`` counts the times a role was decided again after its
    object turned out unusable (``excluded``: object id -> why); ``violations`` the safety and tidiness
    violations (an appliance left on, something left open, a heater switched on empty, someone else's object
    used). ``final_objects`` is the last observation's object metadata, for checking the world yourself.
    """

    task: str
    results: tuple[SkillResult, ...] = ()
    ok: bool
    failure: str = ""
    achieved: bool = False
    goals: tuple[GoalStatus, ...] = ()
    goals_before: tuple[GoalStatus, ...] = ()
    replans: int = 0
    violations: tuple[str, ...] = ()
    bindings: dict[str, str] = Field(default_factory=dict)
    excluded: dict[str, str] = Field(default_factory=dict)
    notes: tuple[str, ...] = ()
    time: float = 0.0
    """Simulated seconds at the end (the backend's clock)."""
    final_objects: tuple[dict[str, Any], ...] = ()
    booked: dict[str, dict[str, tuple[Any, ...]]] = Field(default_factory=dict)
    """Object id -> property -> the values of :data:`BOOKED_PROPS` a step changed it to (what ``when="once"``
    conditions are checked against; an object's state at the start is not booked)."""

    @property
    def steps(self) -> int:
        """Simulator steps over all skills."""
        return sum(r.steps for r in self.results)

    @property
    def goal_rate(self) -> float:
        """Share of goal conditions met (ALFRED's goal-condition success); 0 when there are none."""
        return sum(g.met for g in self.goals) / len(self.goals) if self.goals else 0.0


__all__ = [
    "PROPERTIES",
    "ActionOutcome",
    "ExecutionTrace",
    "FAULTS",
    "Fault",
    "SkillResult",
    "ModelAsked",
    "TaskReading",
    "RELATIONS",
    "BOOKED_PROPS",
    "ConditionKind",
    "GoalCondition",
    "GoalStatus",
    "Plan",
    "Property",
    "Relation",
    "Role",
    "Target",
    "HEATING_UTILITIES",
    "TaskSpec",
    "WHENS",
    "When",
]
