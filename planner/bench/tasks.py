"""The household task benchmark: seeded episodes of ALFRED task types and COAT tasks, each in a condition.

An episode is a (scene, task, condition) triple drawn from the seed. The scenes are the 120 iTHOR floorplans
and the four embedded scenes; the tasks are ALFRED's task types that need a device or a tool (sliced variants,
heat, cool, clean, look at an object in light), with the object and receptacle types drawn among the scene's,
and COAT's annotated tasks. Only (scene, task) pairs whose plan is feasible in the unperturbed scene are kept.

"The ideal object" of an episode is what the knowledge strategy (no model) chooses for the task's first
perturbable role in the unperturbed scene; the condition then perturbs **every object of that type**:

| condition | reset perturbation of the ideal type | a usable substitute |
|---|---|---|
| ``present`` | none | (the ideal object itself) |
| ``missing`` | ``missing`` | an object of another candidate type |
| ``dirty`` | ``dirty`` (pickupable types: they can be washed) | the ideal object, washed |
| ``occupied`` | ``occupied``: someone's wine in it (vessels only; AI2-THOR-native) | another vessel, or it emptied |
| ``busy`` | ``busy`` for :data:`BUSY_SECONDS` | the ideal object after the wait, or another |
| ``broken`` | ``broken`` | an object of another candidate type |
| ``faulty`` | ``faulty`` (appliances) or ``breaks-on-pickup`` (tools) | an object of another candidate type |
| ``none-usable`` | every candidate type of the role ``broken`` or ``missing`` | none: the plan must be infeasible |

Episode ``i`` of seed ``s`` has condition ``conditions[i % len(conditions)]`` (so every condition is covered
evenly) and draws its scene and task from ``random.Random(f"{s}:{i}")``; the same seed and config give the same
episodes. :mod:`.task_runs` runs them, :mod:`.task_report` summarizes.

Example:
    >>> cfg = TaskBenchConfig(episodes=8, seed=0)                  # doctest: +SKIP
    >>> [e.condition for e in sample_episodes(cfg, kb)]            # doctest: +SKIP
    ['present', 'missing', 'dirty', 'occupied', 'busy', 'broken', 'faulty', 'none-usable']
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import ConfigError
from ..goals import LIGHT_TYPES
from ..schemas import canonical_object_name

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from ..schemas import TaskSpec

CONDITIONS: tuple[str, ...] = ("present", "missing", "dirty", "occupied", "busy", "broken", "faulty", "none-usable")
"""Episode conditions, in report order."""
SUBSTITUTE_CONDITIONS: tuple[str, ...] = CONDITIONS[:-1]
"""Conditions in which a usable object exists (success is measured there)."""
EMBEDDED_SCENES: tuple[str, ...] = (
    "embedded/kitchen-v0", "embedded/living-room-v0", "embedded/bedroom-v0", "embedded/bathroom-v0",
)
BUSY_SECONDS = 60.0
"""How long someone else uses the ideal objects in the ``busy`` condition."""
MAX_DRAWS = 400
"""Draws per episode before giving up on finding a feasible (scene, task) pair for its condition."""
BENCH_VERSION = 5
"""Bumped when sampling or metrics change (part of the config hash). 3: scenes prepared so the goal does not hold
at reset, episodes labelled AI2-THOR-native or COAT extension, proxy tasks apart. 4: the native ``occupied``
condition; a role the goal names has only COAT's context objects as substitutes. 5: reheating tasks start with
coffee gone cold; light tasks with blinds and curtains closed."""
STRUCTURAL: frozenset[str] = frozenset({"Floor"})
"""Types no condition perturbs (the room itself; removing the floor is no household situation)."""

# ALFRED's object and receptacle types per task type (the common ones of its demonstrations)
RECEPTACLES = ("CounterTop", "DiningTable", "SideTable", "Shelf", "Desk", "Dresser", "CoffeeTable")
SLICEABLE = ("Apple", "Bread", "Lettuce", "Potato", "Tomato")
ALFRED_OBJECTS: dict[str, tuple[str, ...]] = {
    "pick_heat_then_place_in_recep": ("Apple", "Potato", "Tomato", "Egg", "Bread", "Mug", "Cup", "Plate"),
    "pick_cool_then_place_in_recep": ("Apple", "Potato", "Tomato", "Egg", "Bread", "Lettuce", "Mug", "Cup",
                                      "Pan", "Pot", "Plate", "Bowl", "WineBottle"),
    "pick_clean_then_place_in_recep": ("Mug", "Cup", "Plate", "Bowl", "Pan", "Pot", "Fork", "Spoon", "Ladle",
                                       "Spatula", "Lettuce", "Apple", "Tomato", "Potato", "Cloth", "SoapBar"),
    "look_at_obj_in_light": ("Book", "CD", "CellPhone", "AlarmClock", "Bowl", "Box", "CreditCard", "KeyChain",
                             "Laptop", "Mug", "Pen", "Pencil", "Pillow", "RemoteControl", "Statue", "Vase",
                             "Watch", "BasketBall", "TennisRacket", "BaseballBat", "Newspaper", "TissueBox"),
    "pick_and_place_simple": SLICEABLE,          # sliced variant only (the plain one needs no tool)
    "pick_and_place_with_movable_recep": SLICEABLE,  # sliced variant only
}
MOVABLES = ("Plate", "Bowl", "Pan", "Pot")
REHEAT_VESSELS = ("Mug", "Cup", "Bowl", "Pot", "Kettle")
"""Vessels that hold coffee gone cold at reset in a reheating task (its premise): the mug for a microwave or a
coffee machine, the pot or kettle for a stove."""
SWITCHED_ON = ("DeskLamp", "FloorLamp", "LightSwitch", "Candle", "Television", "Laptop", "Desktop", "CellPhone",
               "Blinds", "Curtains")
"""Types switched off at reset when a goal switches a role's object on and the role names no types (a COAT light
or entertainment task: rl_ai2thor's preparation turns TV and laptops off, lights off and blinds and curtains
closed for light tasks)."""


class TaskBenchConfig(BaseModel):
    """What a ``coat bench tasks`` run measures (everything but ``episodes`` enters the config hash)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episodes: int = Field(default=140, gt=0)
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    llm: str | None = None
    """Model spec (None: knowledge only)."""
    strategy: str = "knowledge"
    scenes: tuple[str, ...] = ()
    """Scene ids; empty means the 120 iTHOR floorplans and the four embedded scenes."""
    conditions: tuple[str, ...] = CONDITIONS
    max_replans: int = Field(default=3, ge=0)
    version: int = BENCH_VERSION

    @field_validator("conditions")
    @classmethod
    def _known_conditions(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in v if c not in CONDITIONS]
        if bad or not v:
            raise ValueError(f"unknown condition {bad[0] if bad else ''!r}; valid: {', '.join(CONDITIONS)}")
        return tuple(dict.fromkeys(v))

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, v: str) -> str:
        if v not in ("knowledge", "llm", "hybrid"):
            raise ValueError(f"unknown strategy {v!r}; valid: knowledge, llm, hybrid")
        return v

    def scene_ids(self) -> tuple[str, ...]:
        """The scenes episodes are drawn from."""
        if self.scenes:
            return self.scenes
        import scenes

        return tuple(f"embedded/{s}-v0" for s in scenes.ITHOR_SCENES) + EMBEDDED_SCENES

    def hash(self) -> str:
        """A short hash of every setting that changes an episode (not the episode count)."""
        data = self.model_dump(exclude={"episodes"})
        data["scenes"] = list(self.scene_ids())
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]

    @property
    def model_id(self) -> str:
        """The model the planner decides with (``knowledge`` without one)."""
        return self.llm or "knowledge"


def make_config(**kw: Any) -> TaskBenchConfig:
    """A config from keyword arguments, with pydantic's errors turned into one clear ConfigError."""
    from pydantic import ValidationError

    try:
        return TaskBenchConfig(**kw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "config"
        raise ConfigError(f"{where}: {err.get('msg', e)}") from None


# ---------------------------------------------------------------- tasks


@dataclass(frozen=True)
class TaskDef:
    """One benchmark task: an ALFRED task (type, object, receptacle...) or a COAT task by name."""

    kind: str
    """``alfred`` or ``coat``."""
    name: str
    """The COAT task, or the ALFRED task type."""
    obj: str | None = None
    recep: str | None = None
    movable: str | None = None
    sliced: bool = False

    def spec(self, kb: KnowledgeBase) -> TaskSpec:
        """The task's TaskSpec."""
        if self.kind == "coat":
            from ..knowledge.task_specs import coat_spec

            return coat_spec(self.name, kb)
        from ..knowledge.alfred import alfred_spec

        assert self.obj is not None
        return alfred_spec(self.name, self.obj, self.recep, movable=self.movable, sliced=self.sliced)

    @property
    def label(self) -> str:
        """How the task appears in rows and tables."""
        if self.kind == "coat":
            return self.name
        parts = [self.name + (" sliced" if self.sliced else ""), ": ", str(self.obj)]
        if self.movable:
            parts.append(f" in {self.movable}")
        if self.recep:
            parts.append(f" -> {self.recep}")
        return "".join(parts)

    def prepare(self, spec: TaskSpec | None = None, types: Collection[str] = ()) -> list[dict[str, Any]]:
        """Reset perturbations that keep the goal from holding at the start (rl_ai2thor's scene preparation).

        Every object of a clean goal's target types is dirty; every light a goal wants on is off (the lamps of
        look-in-light, the devices a COAT task switches on); a task that heats coffee finds it gone cold in every
        vessel of :data:`REHEAT_VESSELS` (reheating presumes it: coffee poured into a vessel is hot at once).
        ``types``: the scene's object types (only those are prepared); ``spec``: the task's spec (without it, only
        ALFRED's clean task is known).
        """
        if spec is None:
            if self.kind == "alfred" and self.name == "pick_clean_then_place_in_recep":
                return [{"type": self.obj, "condition": "dirty", "which": "all"}]
            return []
        present = set(types)
        dirty: dict[str, None] = {}
        off: dict[str, None] = {}
        for g in spec.goals:
            if g.prop == "isDirty" and g.value is False:
                t = spec.target(g.item)
                dirty.update(dict.fromkeys(ty for ty in (t.types if t else ()) if ty in present))
            elif g.prop == "isToggled" and g.value is True:
                r = spec.role(g.item)
                off.update(dict.fromkeys(ty for ty in (r.types if r and r.types else SWITCHED_ON) if ty in present))
            elif g.relation == "close_to" and g.other == "light":
                off.update(dict.fromkeys(ty for ty in LIGHT_TYPES if ty in present))
        cold: list[str] = []
        if any(t.liquid and t.types[0] == "coffee" for t in spec.targets) and spec.role("heating(source)"):
            cold = [t for t in REHEAT_VESSELS if t in present]  # reheating presumes coffee gone cold
        return ([{"type": t, "condition": "dirty", "which": "all"} for t in sorted(dirty)]
                + [{"type": t, "condition": "off", "which": "all"} for t in sorted(off)]
                + [{"type": t, "condition": "cold-coffee", "which": "all"} for t in cold])


def alfred_tasks(types: set[str], rng: random.Random, compat: dict[str, frozenset[str]] | None = None) -> list[TaskDef]:
    """ALFRED tasks that need a tool or device, on object and receptacle types the scene has (one per type).

    With ``compat`` (AI2-THOR's compatible receptacles per type) only placeable tasks are drawn: the object (its
    slice, for a sliced variant) fits the receptacle, or the movable receptacle and that the receptacle.
    """
    out: list[TaskDef] = []
    for task_type, objs in ALFRED_OBJECTS.items():
        have = sorted(o for o in objs if o in types)
        if not have:
            continue
        obj = rng.choice(have)
        light = task_type == "look_at_obj_in_light"
        sliced = task_type in ("pick_and_place_simple", "pick_and_place_with_movable_recep") or (
            task_type in ("pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep")
            and obj in SLICEABLE and rng.random() < 0.3)
        piece = f"{obj}Sliced" if sliced else obj
        movable = None
        if task_type == "pick_and_place_with_movable_recep":
            movables = sorted(m for m in MOVABLES if m in types and _fits(compat, piece, m))
            if not movables:
                continue
            movable = rng.choice(movables)
        held = movable or piece
        receps = sorted(r for r in RECEPTACLES if r in types and _fits(compat, held, r))
        if not light and not receps:
            continue
        recep = None if light else rng.choice(receps)
        out.append(TaskDef("alfred", task_type, obj, recep, movable, sliced))
    return out


def _fits(compat: dict[str, frozenset[str]] | None, obj: str, recep: str) -> bool:
    return compat is None or recep in compat.get(obj, frozenset())


@functools.lru_cache(maxsize=2)
def _coat_tasks(kb: KnowledgeBase) -> tuple[TaskDef, ...]:
    names = sorted({t for u in kb.utilities for t in kb.tasks(u)})
    return tuple(TaskDef("coat", n) for n in names)


# ---------------------------------------------------------------- scenes


@dataclass
class SceneInfo:
    """One scene observed unperturbed: its objects, perceived state, affordances and types."""

    scene: str
    objects: tuple[dict[str, Any], ...]
    state: Any
    affordances: dict[str, frozenset[str]]
    types: set[str] = field(default_factory=set)
    plans: dict[str, Any] = field(default_factory=dict)
    """Task label -> the knowledge strategy's plan in this scene (a cache)."""

    def type_of(self, oid: str) -> str:
        return next((str(o["objectType"]) for o in self.objects if o.get("objectId") == oid), "")


def observe_scene(scene: str, seed: int, kb: KnowledgeBase, estimator: Any) -> SceneInfo:
    """Reset ``scene`` unperturbed and perceive it."""
    import scenes

    from ..steps import affordances_of

    with scenes.make(scene, frames=False, data_dir=kb.root) as env:  # the knowledge base's data directory
        obs, _ = env.reset(seed=seed)
    objs = tuple(dict(o) for o in obs.objects)
    return SceneInfo(scene, objs, estimator.estimate(obs), affordances_of(objs),
                     {str(o.get("objectType")) for o in objs})


# ---------------------------------------------------------------- episodes


class Episode(BaseModel):
    """One drawn episode: where, what, in which condition, and the reset options that make the condition."""

    model_config = ConfigDict(frozen=True)

    index: int
    key: str
    seed: int
    scene: str
    task: str
    kind: str
    task_type: str
    condition: str
    role: str
    ideal: str
    ideal_type: str
    perturb: tuple[dict[str, Any], ...] = ()
    taskdef: dict[str, Any] = Field(default_factory=dict)
    goal_kind: str = "state-change"
    """:data:`GOAL_KINDS`: reported apart (a proxy task is never in the headline)."""
    extensions: tuple[str, ...] = ()
    """The COAT extensions the episode rests on (:func:`extensions`); empty when AI2-THOR could produce it."""

    @property
    def native(self) -> bool:
        """Every situation of the episode is one AI2-THOR 5.0.0 can produce."""
        return not self.extensions

    @property
    def options(self) -> dict[str, Any] | None:
        """The scene's reset options (None when unperturbed)."""
        return {"perturb": [dict(p) for p in self.perturb]} if self.perturb else None

    def task_def(self) -> TaskDef:
        return TaskDef(**self.taskdef)


class Sampler:
    """Draws episodes (see the module docstring); caches each scene's observation and plans."""

    def __init__(self, cfg: TaskBenchConfig, kb: KnowledgeBase, estimator: Any = None) -> None:
        from ..api import make_estimator

        self.cfg = cfg
        self.kb = kb
        from ..knowledge.alfred import compatible_receptacles

        self.compat = compatible_receptacles(str(kb.root))
        self.estimator = estimator or make_estimator(kb)
        self.scenes = cfg.scene_ids()
        self._info: dict[str, SceneInfo] = {}

    def info(self, scene: str) -> SceneInfo:
        if scene not in self._info:
            self._info[scene] = observe_scene(scene, self.cfg.seed, self.kb, self.estimator)
        return self._info[scene]

    def episode(self, index: int) -> Episode:
        """Episode ``index`` of the config's seed.

        Raises:
            ConfigError: no scene of the config has a feasible task for the episode's condition.
        """
        conds = self.cfg.conditions
        condition = conds[index % len(conds)]
        rng = random.Random(f"{self.cfg.seed}:{index}")
        for _ in range(MAX_DRAWS):
            scene = rng.choice(self.scenes)
            info = self.info(scene)
            pool = alfred_tasks(info.types, rng, self.compat) if rng.random() < 0.5 else list(_coat_tasks(self.kb))
            if not pool:
                continue
            task = rng.choice(pool)
            ep = self._make(index, info, task, condition, rng)
            if ep is not None:
                return ep
        raise ConfigError(f"no feasible (scene, task) pair for condition {condition!r} in {MAX_DRAWS} draws over "
                          f"scenes {', '.join(self.scenes[:4])}{'...' if len(self.scenes) > 4 else ''}")

    def _plan(self, info: SceneInfo, task: TaskDef) -> Any:
        if task.label not in info.plans:
            from ..scene_planner import plan_in_state

            info.plans[task.label] = plan_in_state(task.spec(self.kb), info.state, llm=None, strategy="knowledge",
                                                   kb=self.kb, affordances=info.affordances)
        return info.plans[task.label]

    def _make(self, index: int, info: SceneInfo, task: TaskDef, condition: str,
              rng: random.Random) -> Episode | None:
        if task.prepare() and not _prepared_ok(info, task):
            return None
        plan = self._plan(info, task)
        if not plan.feasible or plan.spec is None or not plan.spec.goals:
            return None
        spec = plan.spec
        prepare = task.prepare(task.spec(self.kb), info.types)  # the task's goals, before the plan fits them
        if not prepare and _holds_at_reset(spec, plan.bindings, info, self.kb):
            return None  # nothing to do: the goal already holds (an apple that starts in the fridge)
        target_types = {ty for t in spec.targets for ty in t.types}
        for role in spec.roles:
            ideal = plan.bindings.get(role.name)
            if ideal is None:
                continue
            ideal_type = info.type_of(ideal)
            if ideal_type in target_types or ideal_type in STRUCTURAL:
                continue
            from ..fits import misfits

            others_bound = {n: oid for n, oid in plan.bindings.items() if n != role.name}
            unfit = set(misfits(spec, role.name, others_bound, info.state, self.kb))
            perturb = perturbation(condition, role, ideal, ideal_type, info, self.kb, target_types, rng, unfit,
                                   named=role.name in spec.named_roles())
            if perturb is None:
                continue
            perturb = prepare + perturb
            return Episode(
                index=index, key=f"{self.cfg.seed}:{index}", seed=self.cfg.seed, scene=info.scene, task=task.label,
                kind=task.kind, task_type=task_type(task, spec), condition=condition, role=role.name, ideal=ideal,
                ideal_type=ideal_type, perturb=tuple(perturb),
                taskdef={"kind": task.kind, "name": task.name, "obj": task.obj, "recep": task.recep,
                         "movable": task.movable, "sliced": task.sliced},
                goal_kind=goal_kind(spec), extensions=extensions(perturb, spec, str(self.kb.root)),
            )
        return None


def _holds_at_reset(spec: TaskSpec, bindings: dict[str, str], info: SceneInfo, kb: KnowledgeBase) -> bool:
    """Every goal condition of ``spec`` holds in the unperturbed scene under some assignment of objects: the bound
    ones, or any candidate of a role (a laptop already on the dining table needs no work when the coffee table it
    was meant for is broken)."""
    from ..goals import check_any

    candidates: dict[str, tuple[str, ...]] = {t.name: t.types for t in spec.targets if not t.liquid}
    named = spec.named_roles()
    for n, oid in bindings.items():
        role = spec.role(n)
        if n not in candidates:
            candidates[n] = (info.type_of(oid), *sorted(role_types(role, info, kb, named=n in named) if role else ()))
    return all(g.met for g in check_any(spec.goals, candidates, info.objects))


STATE_PROPS = frozenset({"isSliced", "isCooked", "temperature", "isDirty", "isToggled", "fillLiquid",
                         "isFilledWithLiquid", "isOpen", "isBroken"})
GOAL_KINDS: tuple[str, ...] = ("state-change", "placement", "proxy")
"""How an episode's goal is reported: a change of state the task names, a placement only, or a proxy (the
spec's goals stand in for an effect AI2-THOR cannot show: never in the headline)."""


def goal_kind(spec: TaskSpec) -> str:
    """The spec's :data:`GOAL_KINDS` entry."""
    if spec.proxy:
        return "proxy"
    if any(g.kind == "goal" and (g.prop in STATE_PROPS or g.other == "light") for g in spec.goals):
        return "state-change"
    return "placement"


def extensions(perturb: Sequence[dict[str, Any]], spec: TaskSpec, data_dir: str | None = None) -> tuple[str, ...]:
    """What of an episode AI2-THOR 5.0.0 cannot produce (the COAT extensions it rests on); empty: AI2-THOR-native.

    Native: an object missing or switched off, dirty where its type is dirtyable, broken where it is breakable.
    Extensions: dirt or breakage on other types, someone else using it with a timer (``busy``), a faulty
    appliance, a tool that breaks when picked up, an object taken on approach, a type AI2-THOR lacks (Cake).
    """
    from scenes.embedded.perturb import NATIVE_ALWAYS

    from ..knowledge.alfred import types_with
    from ..knowledge.task_specs import EXTENSION_TYPES

    dirtyable = types_with("dirtyable", data_dir) - set(EXTENSION_TYPES)
    breakable = types_with("breakable", data_dir) - set(EXTENSION_TYPES)
    out: dict[str, None] = {}
    for p in perturb:
        cond, ty = str(p.get("condition")), str(p.get("type"))
        native = cond in NATIVE_ALWAYS or (cond == "dirty" and ty in dirtyable) or (
            cond == "broken" and ty in breakable)
        if native:
            continue
        out[{"dirty": "dirty-not-dirtyable", "broken": "broken-not-breakable"}.get(cond, cond)] = None
    named = {ty for t in spec.targets for ty in t.types} | {ty for r in spec.roles for ty in r.types}
    if named & set(EXTENSION_TYPES):
        out["extension-type"] = None
    return tuple(out)


def _prepared_ok(info: SceneInfo, task: TaskDef) -> bool:
    """A clean task's object type must be dirtyable or pickupable (the reset makes it dirty)."""
    return any(o.get("objectType") == task.obj and (o.get("dirtyable") or o.get("pickupable")) for o in info.objects)


def task_type(task: TaskDef, spec: TaskSpec) -> str:
    """The report's task type: the ALFRED type (``+sliced``), or ``coat:<family>``."""
    if task.kind == "alfred":
        return task.name + ("+sliced" if task.sliced else "")
    return f"coat:{spec.family}"


def role_types(role: Any, info: SceneInfo, kb: KnowledgeBase, unfit: set[str] = frozenset(), *,
               named: bool = False) -> set[str]:
    """The scene's object types that could fill ``role`` (its fixed types, or its utility's objects and its COAT
    task's context objects, with its needs; not the ``unfit`` objects, which AI2-THOR's compatible receptacles rule
    out for what the role holds). A role the goal names (``named``: where the clothes end up) takes only the context
    objects of its annotated COAT task: what COAT's people accept there, as the checker does."""
    allowed = set(role.types) if role.types else set(kb.utility_objects(role.utility))
    if not role.types and role.task and kb.is_annotated(role.utility, role.task):
        context = set(kb.context_objects(role.utility, role.task))
        allowed = context if named else allowed | context
    allowed = {canonical_object_name(t) for t in allowed}  # COAT's BaseBallBat is AI2-THOR's BaseballBat
    out = set()
    for o in info.objects:
        ty = str(o.get("objectType"))
        oid = str(o.get("objectId"))
        fits = oid not in unfit and set(role.needs) <= info.affordances.get(oid, frozenset())
        if canonical_object_name(ty) in allowed and fits:
            out.add(ty)
    return out


def perturbation(condition: str, role: Any, ideal: str, ideal_type: str, info: SceneInfo, kb: KnowledgeBase,
                 target_types: set[str], rng: random.Random,
                 unfit: set[str] = frozenset(), *, named: bool = False) -> list[dict[str, Any]] | None:
    """The reset perturbations that put ``role`` in ``condition``, or None when the condition does not apply."""
    from scenes.embedded.perturb import OCCUPIED_LIQUID, appliance_types

    aff = info.affordances.get(ideal, frozenset())
    others = role_types(role, info, kb, unfit, named=named) - {ideal_type}
    if condition == "present":
        return []
    if condition == "none-usable":
        every = role_types(role, info, kb, named=named)  # every candidate, fitting or not: nothing may be left to use
        if not every or every & (target_types | STRUCTURAL):
            return None
        how = rng.choice(("broken", "missing"))
        return [{"type": t, "condition": how, "which": "all"} for t in sorted(every)]
    if condition == "dirty":
        # washable where there is a basin and a faucet; otherwise only another type can serve
        washable = bool(info.types & {"SinkBasin", "BathtubBasin"}) and "Faucet" in info.types
        usable = washable or bool(others - target_types)
        ok = "pickupable" in aff and usable
        return [{"type": ideal_type, "condition": "dirty", "which": "all"}] if ok else None
    if condition == "occupied":  # someone's wine in every mug: emptied, or another vessel taken
        ok = {"canFillWithLiquid", "pickupable"} <= aff and not {OCCUPIED_LIQUID, "coffee"} & target_types
        return [{"type": ideal_type, "condition": "occupied", "which": "all"}] if ok else None
    if condition == "busy":
        return [{"type": ideal_type, "condition": "busy", "which": "all", "seconds": BUSY_SECONDS}]
    if not others - target_types:
        return None  # missing, broken, faulty: a substitute of another type must exist
    if condition == "faulty":
        if ideal_type in appliance_types():
            return [{"type": ideal_type, "condition": "faulty", "which": "all"}]
        if "pickupable" in aff:
            return [{"type": ideal_type, "condition": "breaks-on-pickup", "which": "all"}]
        return None
    return [{"type": ideal_type, "condition": condition, "which": "all"}]


def sample_episodes(cfg: TaskBenchConfig, kb: KnowledgeBase, *, sampler: Sampler | None = None,
                    indices: Sequence[int] | None = None) -> list[Episode]:
    """The config's episodes (or only ``indices``), deterministic in the seed."""
    s = sampler or Sampler(cfg, kb)
    return [s.episode(i) for i in (indices if indices is not None else range(cfg.episodes))]


__all__ = [
    "BUSY_SECONDS", "CONDITIONS", "EMBEDDED_SCENES", "GOAL_KINDS", "SUBSTITUTE_CONDITIONS", "Episode", "Sampler",
    "SceneInfo", "TaskBenchConfig", "TaskDef", "alfred_tasks", "extensions", "goal_kind", "make_config", "perturbation",
    "role_types", "sample_episodes",
]
