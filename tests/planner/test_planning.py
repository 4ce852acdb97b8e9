"""The Planner: built once from a frozen config, planning through read -> decide -> steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from planner.config import PlannerConfig, Settings, current_settings
from planner.errors import ConfigError
from planner.planning import Assignment, Planner, World
from planner.schemas import ObjectRecord, PhysicalState, Plan, SceneState, TaskReading

TASKS = ("cut apple", "serving cake", "boil water", "slice bread please", "put the apple in the fridge",
         "dance the tango")
"""COAT tasks, free text the reader understands, and text it does not."""


@pytest.fixture(scope="module")
def kitchen() -> tuple[SceneState, dict[str, Any]]:
    """The embedded kitchen as perceived, with what its objects afford."""
    from planner.api import observe
    from planner.steps import affordances_of

    env, obs, state = observe("embedded/kitchen-v0")
    env.close()
    return state, affordances_of(obs.objects)


def _config(**fields: Any) -> PlannerConfig:
    """A config that reads free text by word overlap, as the default suite does (no MiniLM load)."""
    return PlannerConfig(settings=Settings(reader="lexical"), **fields)


def _dump(p: Plan) -> dict[str, Any]:
    return p.model_dump(mode="json", exclude={"decisions": {"__all__": {"seconds"}}})


def _rec(oid: str, cat: str, **kw: str) -> ObjectRecord:
    base = {"mass": "light", "material": "Metal", "temperature": "RoomTemp", "already_in_use": "free",
            "condition": "clean"}
    return ObjectRecord(object_id=oid, category=cat, state=PhysicalState(**{**base, **kw}))


def test_a_planner_built_twice_from_one_config_plans_identically(kitchen) -> None:
    state, affordances = kitchen
    config = _config(strategy="knowledge")
    first, second = Planner(config), Planner(config)
    for task in TASKS:
        a = first.plan(task, state, affordances=affordances)
        b = second.plan(task, state, affordances=affordances)
        assert _dump(a) == _dump(b), task
        assert _dump(first.plan(task, state, affordances=affordances)) == _dump(a)  # and again, the same


def test_the_stages_can_be_called_one_by_one(kitchen) -> None:
    state, affordances = kitchen
    planner = Planner(_config(strategy="knowledge"))
    world = planner.world(state, affordances=affordances)
    for task in TASKS[:5]:
        reading = planner.read(task)
        assert isinstance(reading, TaskReading) and reading.understood and reading.spec is not None
        chosen = planner.decide(reading, world)
        assert isinstance(chosen, Assignment) and chosen.feasible, chosen.notes
        with pytest.raises(ValidationError, match="frozen"):
            chosen.feasible = False  # type: ignore[misc]
        assert set(chosen.bindings) >= {r.name for r in chosen.spec.roles}
        p = planner.steps(reading, chosen, world)
        assert _dump(p) == _dump(planner.plan(task, state, affordances=affordances)), task
        assert p.steps and p.bindings == chosen.bindings


def test_the_world_is_read_only_and_checked() -> None:
    state = SceneState(scene_id="s", objects=(_rec("k", "Knife"),))
    exclude = {"k": "broken"}
    world = Planner.world(state, exclude=exclude)
    assert world.exclude == exclude and world.fixed == {} and world.affordances is None
    with pytest.raises(TypeError):
        world.exclude["k2"] = "taken"  # type: ignore[index]
    exclude["k3"] = "later"
    assert "k3" not in world.exclude  # a copy: the caller's mapping is not the world's
    with pytest.raises(TypeError, match="state must be a planner.schemas.SceneState"):
        Planner.world(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="exclude must be a mapping"):
        Planner.world(state, exclude=["k"])  # type: ignore[arg-type]
    assert isinstance(world, World)


def test_deciding_a_reading_that_was_not_understood_is_refused(kitchen) -> None:
    state, _ = kitchen
    planner = Planner(_config(strategy="knowledge"))
    reading = planner.read("dance the tango")
    assert not reading.understood
    with pytest.raises(ConfigError, match="not understood"):
        planner.decide(reading, planner.world(state))
    p = planner.plan("dance the tango", state)
    assert not p.feasible and not p.understood and not p.choices


def test_plan_in_state_is_a_planner_made_for_the_call(kitchen) -> None:
    from planner.api import plan_in_state

    state, affordances = kitchen
    knowledge = Planner(PlannerConfig.from_env(strategy="knowledge"))  # plan_in_state's settings: the environment's
    fake = Planner(PlannerConfig.from_env(llm="fake", interpret="exact"))
    apple = next(r.object_id for r in state.objects if r.category == "Apple")
    for task in ("cut apple", "slice bread please"):
        for kw in ({}, {"affordances": affordances}, {"affordances": affordances, "exclude": {apple: "taken"}}):
            got = plan_in_state(task, state, llm=None, strategy="knowledge", **kw)
            assert _dump(got) == _dump(knowledge.plan(task, state, **kw)), (task, kw)
            got = plan_in_state(task, state, llm="fake", interpret="exact", **kw)
            assert _dump(got) == _dump(fake.plan(task, state, **kw)), (task, kw)


def test_the_planner_acts_on_its_own_settings(kitchen, monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.planning as planning

    state, _ = kitchen
    monkeypatch.setenv("COAT_READER_CACHE", "/nonexistent/from-env")
    seen: list[Settings] = []
    real = planning.plan_steps

    def spy(*a: Any, **k: Any) -> Any:
        seen.append(current_settings())
        return real(*a, **k)

    monkeypatch.setattr(planning, "plan_steps", spy)
    settings = Settings(reader="lexical", reader_cache="off")
    planner = Planner(PlannerConfig(strategy="knowledge", settings=settings))
    assert planner.reader.method == "lexical"
    assert planner.plan("cut apple", state).feasible
    assert seen == [settings]  # the stages ran under the config's settings, not the environment's
    assert current_settings().reader_cache == Path("/nonexistent/from-env")  # and left them as they were


def test_a_planner_refuses_what_it_cannot_use(kitchen) -> None:
    state, _ = kitchen
    with pytest.raises(TypeError, match="config must be a planner.config.PlannerConfig"):
        Planner({"strategy": "knowledge"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="llm must be None"):
        Planner(_config(), llm=5)  # type: ignore[arg-type]
    planner = Planner(_config(strategy="knowledge"))
    with pytest.raises(ConfigError, match="empty task"):
        planner.plan("  ", state)
    with pytest.raises(TypeError, match="utility must be"):
        planner.plan("cut apple", state, utility=3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="strategy 'knowledge' needs COAT's annotations"):
        Planner(_config(strategy="knowledge", interpret="exact")).plan("slice bread please", state)


def test_plan_keeps_one_planner_per_config(data_dir) -> None:
    from planner.api import planner_for
    from planner.knowledge import load_knowledge
    from planner.llm import make_llm

    kb = load_knowledge(data_dir)
    first = planner_for(kb=kb, strategy="knowledge")
    assert planner_for(kb=kb, strategy="knowledge") is first
    assert first.kb is kb and first.config.data_dir == kb.root and first.llm is None
    assert planner_for(kb=kb, strategy="hybrid") is not first
    fake = planner_for(kb=kb, llm="fake")
    assert fake is planner_for(kb=kb, llm="fake") and fake.config.llm == "fake" and fake.llm is not None
    backend = make_llm("fake")
    own = planner_for(kb=kb, llm=backend)  # a model object: a planner of its own, not kept
    assert own.llm is backend and own is not planner_for(kb=kb, llm=backend) and own.config.llm is None


@pytest.mark.parametrize(("task", "lit", "chosen", "note"), [
    ("turn off the lamp", ("FloorLamp|1",), "FloorLamp|1", ""),  # the lamp that is on is the one to turn off
    ("turn off the lamp", ("DeskLamp|1",), "DeskLamp|1", ""),
    ("turn off the lamp", (), "DeskLamp|1", "the DeskLamp is already off (every one here is): the goal holds"),
    ("close the laptop", ("Laptop|1",), "Laptop|2", ""),  # isOpen here: the closed laptop stays as it is
])
def test_a_target_a_goal_switches_is_one_whose_state_the_goal_changes(task: str, lit: tuple[str, ...], chosen: str,
                                                                     note: str) -> None:
    from planner.steps import affordances_of

    objs = [{"objectId": "DeskLamp|1", "objectType": "DeskLamp", "toggleable": True},
            {"objectId": "FloorLamp|1", "objectType": "FloorLamp", "toggleable": True},
            {"objectId": "Laptop|1", "objectType": "Laptop", "toggleable": True, "openable": True, "isOpen": False},
            {"objectId": "Laptop|2", "objectType": "Laptop", "toggleable": True, "openable": True, "isOpen": True}]
    for o in objs:
        o["isToggled"] = o["objectId"] in lit and o["objectType"].endswith("Lamp")
    state = SceneState(scene_id="two lamps", objects=tuple(_rec(o["objectId"], o["objectType"]) for o in objs))
    p = Planner(_config(strategy="knowledge")).plan(task, state, affordances=affordances_of(objs))
    assert p.feasible and p.bindings["switched"] == chosen
    assert (note in p.reason) if note else "already" not in p.reason


@pytest.mark.parametrize(("name", "general", "is_kind"), [
    ("SoapBottle", "Bottle", True), ("WineBottle", "Bottle", True), ("ButterKnife", "Knife", True),
    ("HandTowel", "Towel", True), ("Bottle", "Bottle", False), ("SoapBottle", "SoapBottle", False),
    ("DeskLamp", "Bottle", False), ("TowelHolder", "Towel", False)])
def test_a_kind_is_named_by_a_word_before_the_general_type(name: str, general: str, is_kind: bool) -> None:
    from planner.binding import kind_of

    assert kind_of(name, general) is is_kind


def test_a_general_type_the_scene_lacks_is_bound_to_a_kind_of_it(data_dir: Any) -> None:
    from planner.api import plan

    p = plan("throw away the empty plastic bottle", "embedded/FloorPlan411-v0", llm=None, strategy="knowledge",
             data_dir=data_dir)
    assert p.feasible and p.bindings["target"].split("|")[0] in ("SoapBottle", "SprayBottle"), p.reason
    assert "no Bottle here: the SoapBottle or SprayBottle is one" in p.reason
    named = plan("throw away the empty shampoo bottle", "embedded/FloorPlan411-v0", llm=None, strategy="knowledge",
                 data_dir=data_dir)  # a kind the words name ("shampoo": the vocabulary's SoapBottle) is that kind
    assert named.feasible and named.bindings["target"].startswith("SoapBottle|"), named.reason


def test_coffee_to_make_comes_from_the_coffee_machine_into_a_mug(data_dir: Any) -> None:
    from planner.binding import made_here
    from planner.knowledge import load_knowledge
    from planner.schemas import Role, Target, TaskSpec

    kb = load_knowledge(data_dir)
    spec = TaskSpec(task="brew me a coffee", targets=(Target(name="liquid", types=("coffee",), liquid=True),),
                    roles=(Role(name="heating(source)", utility="heating(source)"),
                           Role(name="heating(vessel)", utility="heating(vessel)"),
                           Role(name="carrying", utility="carrying")))
    state = SceneState(scene_id="s", objects=(_rec("Microwave|1", "Microwave"), _rec("Mug|1", "Mug"),
                                              _rec("CoffeeMachine|1", "CoffeeMachine"), _rec("Cup|1", "Cup")))
    made = made_here(spec, state, {}, kb)
    assert {r.name: r.types for r in made.roles} == {"heating(source)": ("CoffeeMachine",),
                                                     "heating(vessel)": ("Mug",), "carrying": ("Mug",)}
    # cold coffee already in a mug is reheated with whatever heats: the roles stay open
    assert made_here(spec, state, {"Mug|1": frozenset({"holds:coffee"})}, kb) is spec
    water = spec.model_copy(update={"targets": (Target(name="liquid", types=("water",), liquid=True),)})
    assert made_here(water, state, {}, kb) is water  # water runs from a tap: no heat source makes it


def test_coffee_to_heat_is_not_made_again(data_dir: Any) -> None:
    from planner.api import plan

    brew = plan("brew me a coffee", "embedded/kitchen-v0", llm=None, strategy="knowledge", data_dir=data_dir)
    assert brew.bindings["heating(source)"].startswith("CoffeeMachine|")
    heat = plan("my coffee's gone cold, heat it up", "embedded/kitchen-v0", llm=None, strategy="knowledge",
                data_dir=data_dir)
    assert not heat.bindings["heating(source)"].startswith("CoffeeMachine|")
