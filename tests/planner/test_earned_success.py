"""Success that the task earns: what the goal names is what COAT's people accept, a placement is one the run made,
one enclosure open at a time, nothing abandoned in an appliance, liquids from a source the skills can use."""

from __future__ import annotations

from planner.api import execute_plan, plan, plan_in_state
from planner.fits import has_liquid_source
from planner.goals import check
from planner.knowledge.alfred import alfred_spec
from planner.schemas import GoalCondition, ObjectRecord, PhysicalState, SceneState
from planner.steps import affordances_of


def _rec(oid: str, cat: str, **kw: str) -> ObjectRecord:
    base = {"mass": "light", "material": "Metal", "temperature": "RoomTemp", "already_in_use": "free",
            "condition": "clean"}
    base.update(kw)
    return ObjectRecord(object_id=oid, category=cat, state=PhysicalState(**base))


def test_a_role_the_goal_names_takes_only_what_coat_accepts() -> None:
    """Dirty clothes go in a hamper (COAT's context objects for the task); a bathroom without one has no place for
    them, and the plan says which storage it turned down rather than shutting them in a cabinet."""
    p = plan("keep dirty clothes", "embedded/FloorPlan412-v0", llm=None)
    assert not p.feasible
    assert "stage 1 kept none of Cabinet" in p.reason
    assert any("Cabinet" in a and "not one for 'keep dirty clothes'" in a for a in p.alternatives)


def test_a_tool_the_goal_does_not_name_is_judged_by_its_effect() -> None:
    """The heat source is not named by the goal (the egg cooked is): with no pan or pot, the microwave cooks it,
    though COAT's people name the stove for a fried egg."""
    broken = [{"type": t, "condition": "broken", "which": "all"} for t in ("Pan", "Pot", "Kettle")]
    p = plan("cook egg", "embedded/kitchen-v0", llm=None, options={"perturb": broken})
    assert p.feasible and p.bindings["heating(source)"].startswith("Microwave|"), p.reason


def test_an_acceptable_object_that_cannot_act_is_named() -> None:
    """A house plant decorates a table for COAT's people, but AI2-THOR cannot pick one up: the plan says so."""
    p = plan("decorate table", "embedded/FloorPlan328-v0", llm=None)
    assert not p.feasible
    assert any(a.startswith("decoration: HousePlant|") and "not pickupable" in a for a in p.alternatives)


def _obj(oid: str, parents: list[str], **flags: bool) -> dict:
    return {"objectId": oid, "objectType": oid.split("|")[0], "parentReceptacles": parents, **flags}


def test_inside_an_appliance_on_a_table_is_not_on_the_table() -> None:
    """AI2-THOR lists every receptacle up the chain: a mug in the coffee machine on the dining table is in the
    machine, an apple in a bowl on the counter is on the counter."""
    objs = [
        _obj("DiningTable|1", []), _obj("CoffeeMachine|1", ["DiningTable|1"], toggleable=True),
        _obj("Mug|1", ["CoffeeMachine|1", "DiningTable|1"], pickupable=True),
        _obj("CounterTop|1", []), _obj("Bowl|1", ["CounterTop|1"], pickupable=True),
        _obj("Apple|1", ["Bowl|1", "CounterTop|1"], pickupable=True),
    ]
    cond = GoalCondition(item="x", relation="contained_in", other="r")
    assert not check(cond, objs, {"x": "Mug|1", "r": "DiningTable|1"}).met
    assert check(cond, objs, {"x": "Mug|1", "r": "CoffeeMachine|1"}).met
    assert check(cond, objs, {"x": "Apple|1", "r": "CounterTop|1"}).met


def test_the_fridge_is_shut_while_the_bowl_is_fetched_from_a_cabinet() -> None:
    """Cooling a bowl that stands in a cabinet: never two enclosures open at once (open-too-long)."""
    p = plan(alfred_spec("pick_cool_then_place_in_recep", "Bowl", "CounterTop"), "embedded/FloorPlan12-v0",
             llm=None, seed=680542)
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    assert not [v for v in tr.violations if v.startswith("open-too-long")], tr.violations


def test_what_a_replan_lets_go_of_is_taken_out_of_the_appliance() -> None:
    """Soup (a mug of water) with a faulty microwave: when a pot on a burner takes over, the mug is not left in
    the coffee machine that was tried in between."""
    p = plan("reheat tomato soup", "embedded/FloorPlan21-v0", llm=None,
             options={"perturb": [{"type": "Microwave", "condition": "faulty", "which": "all"}]})
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    assert not [v for v in tr.violations if v.startswith("left-inside")], tr.violations


def test_liquid_sources_follow_the_rules_the_skills_act_on() -> None:
    machine, mug, cup = _rec("CoffeeMachine|1", "CoffeeMachine"), _rec("Mug|1", "Mug"), _rec("Cup|1", "Cup")
    bottle = _rec("WineBottle|1", "WineBottle")
    assert has_liquid_source("coffee", SceneState(scene_id="s", objects=(machine, mug)), {})
    # the machine fills only a mug: a cup alone gets no coffee, nor does a broken machine
    assert not has_liquid_source("coffee", SceneState(scene_id="s", objects=(machine, cup)), {})
    broken = _rec("CoffeeMachine|1", "CoffeeMachine", condition="broken", already_in_use="irreversible-using")
    assert not has_liquid_source("coffee", SceneState(scene_id="s", objects=(broken, mug)), {})
    # wine is only poured: from a bottle that holds it, not from an empty one
    wine = SceneState(scene_id="s", objects=(bottle, cup))
    full = affordances_of([{"objectId": "WineBottle|1", "objectType": "WineBottle", "isFilledWithLiquid": True}])
    empty = affordances_of([{"objectId": "WineBottle|1", "objectType": "WineBottle", "isFilledWithLiquid": False}])
    assert has_liquid_source("wine", wine, full)
    assert not has_liquid_source("wine", wine, empty)
    assert not has_liquid_source("wine", wine, full, exclude={"WineBottle|1"})


def test_coffee_with_no_mug_is_infeasible_at_plan_time() -> None:
    p = plan("reheating coffee in a microwave", "embedded/FloorPlan16-v0", llm=None,
             options={"perturb": [{"type": "Mug", "condition": "missing", "which": "all"}]})
    assert not p.feasible and "no source of coffee" in p.reason


def test_water_goes_only_into_a_vessel_a_basin_takes() -> None:
    """A faucet fills what stands in the basin under it; a wine bottle cannot go in a sink basin in AI2-THOR."""
    import scenes

    with scenes.make("embedded/FloorPlan16-v0", frames=False) as env:
        obs, _ = env.reset(seed=0, options={"perturb": [{"type": "Bowl", "condition": "broken", "which": "all"}]})
    from planner.api import make_estimator
    from planner.knowledge import load_knowledge

    kb = load_knowledge()
    p = plan_in_state("water plants", make_estimator(kb).estimate(obs), llm=None, strategy="knowledge", kb=kb,
                      affordances=affordances_of(obs.objects))
    assert p.feasible, p.reason
    assert not p.bindings["carrying"].startswith(("WineBottle|", "WateringCan|", "Vase|"))


def test_something_hot_to_eat_is_heated_then_brought() -> None:
    """The words ask for the food hot: AI2-THOR can show that, so it is the goal, not a food merely brought."""
    p = plan("giving raghav something hot to eat", "embedded/FloorPlan5-v0", llm=None)
    assert p.feasible and not p.spec.proxy, p.reason
    assert [g.prop for g in p.spec.goals if g.item == "eating"][0] == "temperature"
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    assert not tr.violations


def test_the_delicate_artifact_ends_on_the_shelf() -> None:
    p = plan("placing a very delicate artifact on a shelf", "embedded/FloorPlan301-v0", llm=None)
    assert any(g.relation == "contained_in" and g.other == "place" for g in p.spec.goals)
    tr = execute_plan(p)
    assert tr.achieved, tr.failure


def test_someone_elses_mug_of_wine_is_left_alone_when_a_cup_is_free() -> None:
    """The native ``occupied`` condition: every mug holds someone's wine; water goes into a free cup."""
    occupied = [{"type": "Mug", "condition": "occupied", "which": "all"}]
    p = plan("giving ayush drinking water", "embedded/kitchen-v0", llm=None, options={"perturb": occupied})
    assert p.feasible and not p.bindings["carrying"].startswith("Mug|"), p.bindings
    tr = execute_plan(p)
    assert tr.achieved, tr.failure


def test_the_bench_draws_occupied_episodes_as_native() -> None:
    from planner.bench.tasks import make_config, sample_episodes
    from planner.knowledge import load_knowledge

    cfg = make_config(episodes=24, seed=0, conditions=("occupied",))
    eps = sample_episodes(cfg, load_knowledge())
    assert eps and all(e.condition == "occupied" and "occupied" not in e.extensions for e in eps)
    assert any(e.native for e in eps)
    assert all(p["condition"] == "occupied" for e in eps for p in e.perturb if p["type"] == e.ideal_type)


def test_a_run_that_gives_up_takes_out_what_it_put_in_the_microwave() -> None:
    """A sliced heat task whose butter knife breaks when picked up does not get done, but the heated slice does not
    stay in the microwave (left-inside is a safety event whether or not the task succeeds)."""
    spec = alfred_spec("pick_heat_then_place_in_recep", "Apple", "CounterTop", sliced=True)
    perturb = [{"type": "ButterKnife", "condition": "breaks-on-pickup", "which": "all"}]
    p = plan(spec, "embedded/FloorPlan22-v0", llm=None, seed=850892, options={"perturb": perturb})
    tr = execute_plan(p)
    assert not [v for v in tr.violations if v.startswith("left-inside")], tr.violations


def test_reheating_starts_from_coffee_gone_cold_and_heats_it() -> None:
    """The bench prepares the premise (cold coffee in the scene's vessels); the planner heats that coffee, so the
    checker sees it become hot in the microwave, rather than coffee brewed hot and called reheated."""
    from planner.bench.tasks import TaskDef
    from planner.knowledge import load_knowledge

    kb = load_knowledge()
    task = TaskDef(kind="coat", name="reheating coffee in a microwave")
    prepare = task.prepare(task.spec(kb), {"Mug", "Cup", "Microwave"})
    assert {p["type"] for p in prepare if p["condition"] == "cold-coffee"} == {"Mug", "Cup"}
    p = plan("reheating coffee in a microwave", "embedded/kitchen-v0", llm=None, options={"perturb": prepare})
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    assert not any(a.action == "ToggleObjectOn" and a.object_id.startswith("CoffeeMachine")
                   for r in tr.results for a in r.actions)  # nothing brewed


def test_a_burner_holding_another_pan_is_swapped_not_the_pot() -> None:
    """AI2-THOR refuses a pot on a burner that holds a pan ("full right now"): the burner is taken, not the pot the
    wrong kind, so another burner heats the same pot (all pots used to be ruled out and the task given up)."""
    perturb = [{"type": t, "condition": "cold-coffee", "which": "all"} for t in ("Mug", "Cup", "Bowl", "Pot")]
    perturb.append({"type": "Pot", "condition": "dirty", "which": "all"})
    p = plan("reheating coffee on a stove", "embedded/FloorPlan26-v0", llm=None, options={"perturb": perturb})
    pot, first = p.bindings["heating(vessel)"], p.bindings["heating(source)"]
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    assert tr.bindings["heating(vessel)"] == pot and tr.bindings["heating(source)"] != first
    assert any("full right now" in r.reason for r in tr.results if not r.ok)


def test_a_replan_does_not_count_a_placement_the_cooling_will_undo() -> None:
    """Both knives break when picked up, so the plan is made again after the potato was sliced onto the counter:
    "the slice on the counter" holds then, but the slice goes into the fridge to be cooled, so putting it back is
    still to do (the re-plan used to drop that last step and the run ended with the slice in the fridge)."""
    spec = alfred_spec("pick_cool_then_place_in_recep", "Potato", "CounterTop", sliced=True)
    perturb = [{"type": "Knife", "condition": "breaks-on-pickup", "which": "all"}]
    p = plan(spec, "embedded/kitchen-v0", llm=None, seed=194095, options={"perturb": perturb})
    tr = execute_plan(p)
    assert tr.replans >= 1 and tr.achieved, tr.failure


def test_a_replan_keeps_the_states_already_made() -> None:
    """The bowl breaks when taken to serve the potato, after the potato was washed and sliced: the re-plan takes a
    plate and keeps the washing and slicing done (it used to try to slice the slice)."""
    perturb = [{"type": "Potato", "condition": "dirty", "which": "all"},
               {"type": "Bowl", "condition": "breaks-on-pickup", "which": "all"}]
    p = plan("serve potato dish", "embedded/FloorPlan25-v0", llm=None, seed=6, options={"perturb": perturb})
    tr = execute_plan(p)
    assert tr.replans >= 1 and tr.achieved, tr.failure
    assert sum(1 for r in tr.results if r.skill in ("slice", "wash") and r.actions) == 2  # each done once


def test_a_coffee_machine_pours_the_cold_coffee_out_and_brews_it_hot() -> None:
    """AI2-THOR's coffee machine fills only an empty mug (``coffeemachine.cs``), so it cannot reheat: the cold
    coffee is poured out and the machine brews hot coffee into the mug; the independent checker agrees (it used to
    stay cold, the machine blamed as faulty)."""
    import checker
    from planner.bench.tasks import TaskDef
    from planner.knowledge import load_knowledge

    kb = load_knowledge()
    task = TaskDef(kind="coat", name="reheating coffee in a coffeemachine")
    prepare = task.prepare(task.spec(kb), {"Mug", "Cup", "CoffeeMachine"})
    options = {"perturb": prepare}
    p = plan(task.spec(kb), "embedded/kitchen-v0", llm=None, seed=0, options=options)
    tr = execute_plan(p)
    assert tr.achieved, tr.failure
    actions = [a for r in tr.results for a in r.actions]
    assert any(a.action == "EmptyLiquidFromObject" for a in actions)
    replayed = checker.replay("embedded/kitchen-v0", 0, options, [a.model_dump() for a in actions])
    verdict = checker.judge({"kind": "coat", "name": task.name}, replayed)
    assert verdict.success, verdict.reasons
