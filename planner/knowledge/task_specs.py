"""A TaskSpec for every COAT-annotated task and for ALFRED's seven task types (with their sliced variants).

COAT names the utilities a task needs, not its goal state; the goal comes from each utility's effect on the
task's target, checked in AI2-THOR terms (see :mod:`planner.goals`):

| utility | with a target | without one |
|---|---|---|
| cutting | the target is sliced | the cutter is brought |
| breaking | the egg is cracked | the tool is brought |
| heating(source), heating(vessel) | the target is cooked, or the vessel's liquid hot | the source is reached |
| carrying | the target is in / on the carrier, or the carrier holds the liquid | the carrier is brought |
| washing, cleaning | the target is clean | the cleaning object is brought |
| storage, disposing | the target is in the receptacle | the receptacle is reached |
| light_source, entertainment | the device is switched on (when AI2-THOR can switch it) | |
| everything else | the target is on / in the chosen object | the object is brought to the robot |

Where AI2-THOR cannot show the effect (comfort, height, mixing, drying, a target type it lacks such as
butter or soup) the spec's ``note`` says what is checked instead. Safety and tidiness conditions (switched
off, closed) are added by the step planner for the objects a plan switches on or opens.

``TASK_TARGETS`` below is a table of data (one line per COAT task), the one place a task's targets are named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ..errors import UnknownIdError
from ..safety import STANDABLE
from ..schemas import GoalCondition, Role, Target, TaskSpec
from ..schemas.thor_rules import COOKABLE, piece_type
from .base import KnowledgeBase, close_matches

EXTENSION_TYPES: tuple[str, ...] = ("Cake",)
"""Object types the embedded scenes add beyond AI2-THOR (clearly marked there; fidelity checks skip them)."""


class _T(NamedTuple):
    types: tuple[str, ...]
    liquid: bool = False
    sliced: bool = False
    name: str = "target"


W = _T(("water",), liquid=True)
COFFEE = _T(("coffee",), liquid=True)
WINE = _T(("wine",), liquid=True)

# COAT task -> (targets, place, note). ``place`` is a receptacle type the result must be put on / in.
TASK_TARGETS: dict[str, tuple[tuple[_T, ...], tuple[str, ...], str]] = {
    "reheating coffee": ((COFFEE,), (), ""),
    "reheating coffee in a coffeemachine": ((COFFEE,), (), ""),
    "reheating coffee in a microwave": ((COFFEE,), (), ""),
    "reheating coffee on a stove": ((COFFEE,), (), ""),
    "cooking & serving toast": ((_T(("Bread",), sliced=True),), (), ""),
    "cooking & serving fried egg": ((_T(("Egg",)),), (), ""),
    "cooking & serving omlette": ((_T(("Egg",)),), (), "mixing has no AI2-THOR effect: egg cracked, cooked, served"),
    "reheat tomato soup": ((W,), (), "AI2-THOR has no soup: a vessel of water stands for it"),
    "reheat tomato soup in microwave": ((W,), (), "AI2-THOR has no soup: a vessel of water stands for it"),
    "reheat tomato soup on stoveburner": ((W,), (), "AI2-THOR has no soup: a vessel of water stands for it"),
    "boil water": ((W,), (), ""),
    "boil water on stoveburner": ((W,), (), ""),
    "boil water in microwave": ((W,), (), ""),
    "melting envelope wax": ((), (), "AI2-THOR has no wax: the heat source is reached"),
    "melting butter": ((), (), "AI2-THOR has no butter: the heat source is reached"),
    "preparing & serving sliced apple": ((_T(("Apple",), sliced=True),), (), ""),
    "serve potato dish": ((_T(("Potato",), sliced=True),), (), ""),
    "serving wine": ((WINE,), (), ""),
    "water plants": ((W, _T(("HousePlant",), name="plant")), (), ""),
    "giving ayush drinking water": ((W,), (), ""),
    "serving cake": ((_T(("Cake",), sliced=True),), (), ""),
    "washing dishes": ((_T(("Plate", "Bowl", "Mug", "Cup", "Pan", "Pot")),), (), ""),
    "drying washed dishes": ((), (), "AI2-THOR has no wet state: the drying cloth is brought"),
    "throw away unused apple pie": ((_T(("Apple",)),), (), "AI2-THOR has no apple pie: an apple stands for it"),
    "clean spilled milk": ((), (), "AI2-THOR has no spills: the cleaning objects are brought"),
    "clean mirror": ((_T(("Mirror",)),), (), ""),
    "clean fridge": ((), (), "an AI2-THOR fridge cannot be dirty: the cleaning object is brought"),
    "clean blinds": ((), (), "AI2-THOR blinds cannot be dirty: the cleaning object is brought"),
    "cleaning showerhead": ((), (), "an AI2-THOR shower head cannot be dirty: the objects are brought"),
    "helping ayush, he just returned after a bath": ((), (), ""),
    "helping dianbo, he returned after washing his face": ((), (), ""),
    "dusting the statue": ((), (), "AI2-THOR statues cannot be dirty: the duster is brought"),
    "cleaning toilet": ((), (), "an AI2-THOR toilet cannot be dirty: the brush is brought"),
    "cleaning floor": ((), (), "an AI2-THOR floor cannot be dirty: the cleaning object is brought"),
    "washing your face": ((), (), "washing has no AI2-THOR effect on a person: the basin and towel are reached"),
    "throw away used soap bottle": ((_T(("SoapBottle",)),), (), ""),
    "throwing toiletpaper": ((_T(("ToiletPaper",)),), (), ""),
    "cut apple": ((_T(("Apple",)),), (), ""),
    "open envelope": ((), (), "AI2-THOR has no envelope: the cutter is brought"),
    "apply butter": ((), (), "AI2-THOR has no butter: the knife is brought"),
    "taking a bite of cake": ((), (), "AI2-THOR slices only with a knife: the fork (or spoon) is brought"),
    "store fruits and vegetables": ((_T(("Apple", "Tomato", "Potato", "Lettuce")),), (), ""),
    "store clean utensils": ((_T(("Fork", "Spoon", "Knife", "ButterKnife", "Spatula", "Ladle")),), (), ""),
    "packing  books for house shifting": ((_T(("Book",)),), (), ""),
    "keep sporting equipment": ((_T(("BaseballBat", "BasketBall", "TennisRacket", "Dumbbell")),), (), ""),
    "storing important documents": ((_T(("Book", "Newspaper")),), (), "a book or newspaper stands for documents"),
    "storing cereal box": ((_T(("Box",)),), (), "AI2-THOR has no cereal: a box stands for it"),
    "keep dirty clothes": ((_T(("Cloth", "Towel", "HandTowel")),), (), ""),
    "storing dog treats": ((), (), "AI2-THOR has no dog treats: the receptacle is reached"),
    "watch movie": ((), (), "comfort has no AI2-THOR effect: the seat is reached"),
    "listen songs": ((), (), ""),
    "surf internet": ((), (), ""),
    "suggesting where can raghav play mario": ((), (), ""),
    "read me to sleep": ((), (), ""),
    "hanging poster": ((), (), "height has no AI2-THOR effect: the object to stand on is reached"),
    "hanging painting": ((), (), "height has no AI2-THOR effect: the object to stand on is reached"),
    "getting a book from shelf": ((), (), "height has no AI2-THOR effect: the object to stand on is reached"),
    "placing a very delicate artifact on a shelf": ((_T(("Statue", "Vase")),), ("Shelf", "ShelvingUnit"),
                                                    "height has no AI2-THOR effect: the object to stand on is "
                                                    "brought; the artifact is put on the shelf"),
    "fixing light bulb outside your house": ((), (), "height has no AI2-THOR effect: the object is reached"),
    "put objects on high shelf": ((), (), "height has no AI2-THOR effect: the object to stand on is reached"),
    "tell me the time": ((), (), ""),
    "giving raghav something hot to eat": ((), (), ""),
    "giving ayush something to workout": ((), (), ""),
    "get dianbo something to hit a ball": ((), (), ""),
    "getting ayush something to write a thought on a paper": ((), (), ""),
    "getting raghav something to e-mail someone": ((), (), ""),
    "keep laptop": ((_T(("Laptop",)),), (), ""),
    "keeping a display-statue": ((_T(("Statue",)),), (), ""),
    "eat dinner on": ((_T(("Plate", "Bowl")),), (), ""),
    "increase brightness of room": ((), (), ""),
    "decorate table": ((), ("DiningTable", "CoffeeTable", "SideTable"), ""),
    "decorate bed": ((), ("Bed",), ""),
    "decorate wall": ((), (), "AI2-THOR objects cannot be hung on a wall: the decoration is brought"),
    "decorate lobby": ((), (), "the decoration is brought"),
    "crack eggs": ((_T(("Egg",)),), (), ""),
}  # fmt: skip

HEATED_ROLES: dict[str, str] = {"giving raghav something hot to eat": "eating"}
"""COAT tasks whose words ask for the chosen object hot ("something hot to eat"): a heat source is added and the
object must become Hot during the run (an ALFRED-style event), then be brought; the handing over is not shown."""

SWITCHED = frozenset({"light_source", "entertainment"})
"""Utilities whose effect is a device switched on (when the chosen object is toggleable)."""
STATE_WORDS: dict[tuple[str, bool], str] = {("isToggled", True): "on", ("isToggled", False): "off",
                                            ("isOpen", True): "open", ("isOpen", False): "closed"}
"""A switch or open state (AI2-THOR's property and value) -> the word a goal's description uses for it."""
CONTAINING = ("carrying", "storage", "disposing", "surface_support")
"""Utilities whose effect is the target in / on the chosen object, in the order the last such step runs."""
ACTS_ON_TARGET = frozenset({"cutting", "breaking", "washing", "cleaning", "heating(source)", "heating(vessel)",
                            "mixing(tool)", "mixing(vessel)", *CONTAINING})
"""Utilities whose goals are a target's state (:func:`_role_goals`, :func:`_heating_goals`): without a target, a
role of these has no goal but being brought to the robot."""


def _heating_goals(spec_roles: dict[str, Role], targets: list[Target]) -> list[GoalCondition]:
    vessel = "heating(vessel)" if "heating(vessel)" in spec_roles else None
    out: list[GoalCondition] = []
    for t in targets:
        if t.liquid:
            holder = vessel or ("carrying" if "carrying" in spec_roles else None)
            if holder:
                out.append(GoalCondition(item=holder, prop="temperature", value="Hot",
                                         description=f"the {t.types[0]} in the {holder} object is hot"))
        elif t.name == "target":
            out.append(GoalCondition(item=t.name, prop="isCooked", value=True,
                                     description=f"the {t.types[0]} is cooked"))
    return out


def _liquid_goals(spec_roles: dict[str, Role], targets: list[Target]) -> list[GoalCondition]:
    out: list[GoalCondition] = []
    for t in targets:
        if not t.liquid:
            continue
        holder = next((r for r in ("heating(vessel)", "carrying") if r in spec_roles), None)
        if holder is None:
            continue
        out.append(GoalCondition(item=holder, prop="fillLiquid", value=t.types[0],
                                 description=f"the {holder} object holds {t.types[0]}"))
    return out


def _role_goals(role: Role, solids: list[Target], has_liquid: bool, spec_roles: dict[str, Role]) -> list[GoalCondition]:
    u = role.utility
    main = next((t for t in solids if t.name == "target"), None)
    if u == "cutting" and main is not None:
        return [GoalCondition(item="target", prop="isSliced", value=True, description=f"the {main.types[0]} is sliced")]
    if u == "breaking" and main is not None and "Egg" in main.types:
        return [GoalCondition(item="target", prop="isSliced", value=True, description="the egg is cracked")]
    if u in ("washing", "cleaning") and main is not None and "disposing" not in spec_roles:
        return [GoalCondition(item="target", prop="isDirty", value=False, description=f"the {main.types[0]} is clean")]
    if u in SWITCHED:
        return [GoalCondition(item=role.name, prop="isToggled", value=True, description=f"the {u} object is on")]
    if u == "carrying" and has_liquid:
        return []  # the liquid goals say what the carrier holds
    if has_liquid and main is None and u in ("surface_support", "storage") and "carrying" in spec_roles:
        return [GoalCondition(item="carrying", relation="contained_in", other=role.name,  # "a glass of water on the
                              description=f"the carrying object is in / on the {u} object")]  # dining table"
    last_container = next((c for c in reversed(CONTAINING) if c in spec_roles), None)
    if (u == "mixing(vessel)" and last_container is None and main is not None and "Egg" in main.types
            and "breaking" in spec_roles):  # "crack two eggs into a bowl": they end in it
        return [GoalCondition(item="target", relation="contained_in", other=role.name,
                              description="the egg is in the mixing(vessel) object")]
    if u == last_container and main is not None:
        return [GoalCondition(item="target", relation="contained_in", other=role.name,
                              description=f"the {main.types[0]} is in / on the {u} object")]
    if (u.startswith("heating") or u.startswith("mixing") or u in CONTAINING) and (main is not None or has_liquid):
        return []  # heating goals are computed for the task; a container used on the way has no end state
    return [GoalCondition(item=role.name, relation="close_to", other="agent", distance=1.5,
                          description=f"the {u} object is brought to the robot")]


KNIVES: tuple[str, ...] = ("Knife", "ButterKnife")
"""AI2-THOR slices only with a knife in hand: a cutting role that must slice is one of these."""
FILLABLE = "canFillWithLiquid"
RECEPTACLE = "receptacle"
PICKUPABLE = "pickupable"
SWITCHABLE = "switchable"
"""Toggleable or openable (:data:`planner.steps.SWITCHABLE`, the affordance the observation gives)."""


def physical_roles(roles: list[Role], targets: list[Target], *, placed: Iterable[str] = ()) -> list[Role]:
    """Restrict roles to what AI2-THOR can do with them: knives slice, fillable objects hold liquids, receptacles
    take what is put in them, and what must be carried somewhere (``placed`` role names) can be picked up; and to
    what is safe: one stands only on what is made for it (:data:`planner.safety.STANDABLE`) to reach higher."""
    slicing = any(not t.liquid and t.name == "target" for t in targets)
    liquid = any(t.liquid for t in targets)
    holder = next((u for u in ("heating(vessel)", "carrying") if any(r.utility == u for r in roles)), None)
    receiving = {"carrying", "storage", "disposing", "surface_support", "heating(vessel)"} if slicing else set()
    if slicing or holder is not None:
        receiving.add("heating(source)")  # something is put in / on the source to heat it
    out = []
    for r in roles:
        if r.utility == "increasing_height" and not r.types:
            r = r.model_copy(update={"types": tuple(sorted(STANDABLE))})  # nobody stands on a bed or a side table
        if r.utility in ("cutting", "breaking") and slicing and not r.types:
            knives = tuple(k for k in KNIVES if k not in r.avoid) or KNIVES  # "not the big knife": the butter knife
            r = r.model_copy(update={"types": knives,  # AI2-THOR slices and cracks only with a knife in hand
                                     "prefer": tuple(p for p in r.prefer if p in knives)})
        if liquid and r.utility == holder and FILLABLE not in r.needs:
            r = r.model_copy(update={"needs": (*r.needs, FILLABLE)})
        if r.utility in receiving and not (liquid and r.utility == holder) and RECEPTACLE not in r.needs:
            r = r.model_copy(update={"needs": (*r.needs, RECEPTACLE)})
        if r.name in placed and PICKUPABLE not in r.needs:
            r = r.model_copy(update={"needs": (*r.needs, PICKUPABLE)})
        if r.utility in SWITCHED and SWITCHABLE not in r.needs:
            r = r.model_copy(update={"needs": (*r.needs, SWITCHABLE)})  # it is switched on: the window cannot be
        out.append(r)
    return out


def build_spec(task: str, roles: list[Role], targets: list[Target], place: tuple[str, ...] = (),
               note: str = "", family: str = "", placed: str = "",
               states: Mapping[str, tuple[str, bool]] | None = None, brought: Iterable[str] = ()) -> TaskSpec:
    """A TaskSpec from roles and targets, with the goal conditions their utilities imply (module table).

    ``place``: the types of a place target; a decoration role goes there, else the target named ``placed`` (the
    first solid target by default). ``states``: target name -> the (property, value) it ends in, set by AI2-THOR's
    toggle and open actions ("turn off the lamp": ``isToggled`` false). ``brought``: targets fetched for the person
    ("bring me the mug"), each ends with the robot unless a goal puts it somewhere."""
    roles, targets = _cut_to_cook(roles, targets)
    dec = next((r.name for r in roles if r.utility == "decoration"), None)
    roles = physical_roles(roles, targets, placed=[dec] if place and dec else [])
    by_name = {r.utility: r for r in roles}
    solids = [t for t in targets if not t.liquid]
    has_liquid = any(t.liquid for t in targets)
    goals: list[GoalCondition] = []
    goals += _liquid_goals(by_name, targets)
    if any(u.startswith("heating") for u in by_name):
        goals += _heating_goals(by_name, targets)
    for r in roles:
        goals += _role_goals(r, solids, has_liquid, by_name)
    plant = next((t for t in targets if t.name == "plant"), None)
    if plant is not None:
        # the carrier's water ends up in the plant: only the plant's state is the goal
        goals = [g for g in goals if g.prop != "fillLiquid"]
        goals.append(GoalCondition(item="plant", prop="isFilledWithLiquid", value=True,
                                   description="the plant is watered"))
    kinds = {t.name: t.types[0] for t in targets}
    for name, (prop, value) in (states or {}).items():
        goals.append(GoalCondition(item=name, prop=prop, value=value,
                                   description=f"the {kinds[name]} is {STATE_WORDS[(prop, value)]}"))
    for name in brought:
        if not any(g.item == name and g.relation == "contained_in" for g in goals):
            goals.append(GoalCondition(item=name, relation="close_to", other="agent", distance=1.5,
                                       description=f"the {kinds[name]} is brought to the robot"))
    all_targets = list(targets)
    if place:
        all_targets.append(Target(name="place", types=place))
        dec = next((r for r in roles if r.utility == "decoration"), None)
        if dec is not None:
            goals = [g for g in goals if g.item != dec.name]
            goals.append(GoalCondition(item=dec.name, relation="contained_in", other="place",
                                       description=f"the decoration is on the {place[0]}"))
        elif solids:  # a place COAT gives no utility ("the towel on the towel holder"): the thing ends up there
            thing = next((t for t in solids if t.name == placed), solids[0])
            if not any(g.relation == "contained_in" and g.item == thing.name for g in goals):
                goals.append(GoalCondition(item=thing.name, relation="contained_in", other="place",
                                           description=f"the {thing.types[0]} is in / on the {place[0]}"))
    if not goals:
        note = note or "nothing checkable in AI2-THOR: the plan's objects are made ready"
    return TaskSpec(task=task, family=family or _family(by_name, solids, has_liquid), roles=tuple(roles),
                    targets=tuple(all_targets), goals=tuple(dict.fromkeys(goals)), note=note)


def _cut_to_cook(roles: list[Role], targets: list[Target]) -> tuple[list[Role], list[Target]]:
    """A target heated to be cooked that AI2-THOR cooks only in pieces is cut first: its type is not cookable, its
    piece is (Bread -> BreadSliced: toast is a cooked slice; Egg -> EggCracked), by AI2-THOR's type table."""
    if not any(r.utility == "heating(source)" for r in roles):
        return roles, targets
    out = []
    for t in targets:
        ty = t.types[0]
        if (t.name == "target" and not t.liquid and not t.sliced and ty not in COOKABLE
                and piece_type(ty) in COOKABLE):
            t = t.model_copy(update={"sliced": True})
            if not any(r.utility in ("cutting", "breaking") for r in roles):
                roles = [*roles, Role(name="cutting", utility="cutting")]
        out.append(t)
    return roles, out


def is_proxy(goals: Iterable[GoalCondition], note: str = "") -> bool:
    """Whether a COAT task's goals only stand in for the task (:attr:`~planner.schemas.TaskSpec.proxy`): none at all, an
    object brought to the robot (the effect itself, comfort or height or melting, has no AI2-THOR state), or a
    target that stands for one AI2-THOR lacks (the note says "stands for": water for soup, an apple for a pie).
    A request that asks for the object ("bring me the remote") is no proxy: the reader's specs are not marked."""
    goals = list(goals)
    return (not goals or any(g.relation == "close_to" and g.other == "agent" for g in goals)
            or "stands for" in note)


def _family(roles: dict[str, Role], solids: list[Target], has_liquid: bool) -> str:
    for u, fam in (("heating(source)", "heat"), ("cutting", "cut"), ("storage", "store"), ("disposing", "dispose"),
                   ("washing", "clean"), ("cleaning", "clean"), ("carrying", "serve"), ("light_source", "light")):
        if u in roles and (solids or has_liquid or fam in ("light", "heat")):
            return fam
    return "bring"


def coat_spec(task: str, kb: KnowledgeBase) -> TaskSpec:
    """The TaskSpec of a COAT-annotated task: its utilities as roles, the table's targets, the implied goals.

    Raises:
        UnknownIdError: ``task`` is not one of COAT's annotated tasks (the message lists close ones).
    """
    roles = [Role(name=u, utility=u, task=t) for u in kb.utilities for t in kb.tasks(u) if _same(t, task)]
    if not roles:
        known = sorted({t for u in kb.utilities for t in kb.tasks(u)})
        raise UnknownIdError(f"{task!r} is not a COAT task; close ones: {close_matches(task, known)}")
    name = roles[0].task or task
    targets, place, note = TASK_TARGETS.get(name, ((), (), ""))
    specs = [Target(name=t.name, types=t.types, liquid=t.liquid, sliced=t.sliced) for t in targets]
    spec = build_spec(name, roles + implied_roles(name, roles, specs), specs, place, note)
    hot = HEATED_ROLES.get(name)
    if hot is not None and spec.role(hot) is not None:
        source = Role(name="heating(source)", utility="heating(source)", needs=(RECEPTACLE,))
        goal = GoalCondition(item=hot, prop="temperature", value="Hot", when="once",
                             description=f"the {hot} object was heated")
        roles = tuple(r.model_copy(update={"needs": (*r.needs, PICKUPABLE)}) if r.name == hot and PICKUPABLE not in
                      r.needs else r for r in spec.roles)  # it goes into the heat source
        spec = spec.model_copy(update={"roles": (*roles, source), "goals": (goal, *spec.goals), "family": "heat"})
        return spec  # the heating is the task, shown in AI2-THOR: no proxy (only the handing over is not shown)
    return spec.model_copy(update={"proxy": is_proxy(spec.goals, spec.note)})


# A task that names its device ("boil water in microwave") lists only the vessel among its COAT utilities.
_NAMED_SOURCES = (("microwave", ("Microwave",)), ("coffeemachine", ("CoffeeMachine",)),
                  ("stove", ("StoveBurner",)))


def implied_roles(task: str, roles: list[Role], targets: list[Target]) -> list[Role]:
    """Roles the steps need that COAT's annotation of the task leaves out (none of them decide the goal)."""
    have = {r.utility for r in roles}
    out: list[Role] = []
    if any(t.sliced for t in targets) and "cutting" not in have:
        out.append(Role(name="cutting", utility="cutting"))  # toast: a knife slices the bread first
    liquid = any(t.liquid for t in targets)
    if liquid and "heating(source)" in have and "heating(vessel)" not in have and "carrying" not in have:
        out.append(Role(name="heating(vessel)", utility="heating(vessel)"))  # boil water: something to hold it
    if "heating(vessel)" in have and "heating(source)" not in have:
        types = next((ty for word, ty in _NAMED_SOURCES if word in task.replace(" ", "")), ())
        out.append(Role(name="heating(source)", utility="heating(source)", types=types))
    if liquid and "carrying" not in have and "heating(vessel)" not in have and not out:
        out.append(Role(name="carrying", utility="carrying"))
    return out


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


__all__ = [
    "ACTS_ON_TARGET", "EXTENSION_TYPES", "KNIVES", "TASK_TARGETS", "build_spec", "coat_spec", "implied_roles",
    "is_proxy", "physical_roles",
]
