"""The task skills on the embedded kitchen (and living room, for lamps): success paths and each failure mode."""

from __future__ import annotations

import pytest

import scenes
from planner.schemas import SkillCall
from scenes.base import Action
from skills import run_skill

from .conftest import object_id as _id
from .conftest import poke as _poke

GONE = "Plate|+09.00|+09.00|+09.00"



def _burner_with(obs, vessel: str) -> str:
    return next(o["objectId"] for o in obs.objects
                if o["objectType"] == "StoveBurner" and vessel in (o["receptacleObjectIds"] or []))


# ------------------------------------------------------------------ slice


def test_slice_fetches_the_tool_and_keeps_it_in_hand(kitchen) -> None:
    env, obs = kitchen
    apple, knife = _id(obs, "Apple"), _id(obs, "Knife", 1)
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": knife}))
    assert res.ok, res.reason
    ids = {o["objectId"] for o in obs.objects}
    assert f"{apple}|AppleSliced_0" in ids and obs.object(apple)["isSliced"]  # AI2-THOR keeps the whole, sliced
    assert not obs.object(apple)["visible"]
    assert obs.object(knife)["isPickedUp"]
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": knife}))
    assert res.ok and res.reason == "already sliced" and res.steps == 0


def test_slice_takes_an_egg_out_of_the_closed_fridge_and_shuts_it(kitchen) -> None:
    env, obs = kitchen
    egg, knife, fridge = _id(obs, "Egg"), _id(obs, "Knife", 1), _id(obs, "Fridge")
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=egg, args={"tool": knife}))
    assert res.ok, res.reason
    cracked = obs.object(f"{egg}|EggCracked_0")
    assert cracked["parentReceptacles"] and fridge not in cracked["parentReceptacles"]  # cut on a work surface
    assert not obs.object(fridge)["isOpen"] and res.opened == ()  # the fridge was shut again before cutting
    sent = [(a.action, a.object_id) for a in res.actions]
    assert sent.index(("CloseObject", fridge)) < sent.index(("SliceObject", egg))


def test_slice_with_a_missing_or_broken_tool_blames_the_tool(kitchen) -> None:
    env, obs = kitchen
    apple, knife = _id(obs, "Apple"), _id(obs, "Knife", 1)
    res, _ = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": "Knife|+09.00|+09.00|+09.00"}))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "missing", "Knife|+09.00|+09.00|+09.00", 0)
    obs = _poke(env, knife, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": knife}))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "broken", knife, 0)


def test_slice_with_a_knife_found_broken_after_pickup(kitchen, monkeypatch) -> None:
    env, obs = kitchen
    apple, knife = _id(obs, "Apple"), _id(obs, "Knife", 1)
    world = env.unwrapped.world
    pickup = world._a_PickupObject

    def hidden_defect(p):  # the knife looks fine until it is in the hand
        out = pickup(p)
        world.objs[p["objectId"]]["isBroken"] = True
        return out

    monkeypatch.setattr(world, "_a_PickupObject", hidden_defect)
    res, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": knife}))
    assert (res.ok, res.fault, res.blame) == (False, "broken", knife)
    assert "SliceObject" not in [a.action for a in res.actions] and not obs.object(apple)["isSliced"]
    assert obs.object(knife)["isBroken"] and not obs.object(knife)["isPickedUp"]  # set down again


def test_slice_of_something_someone_uses_is_in_use(kitchen) -> None:
    env, obs = kitchen
    bread, knife = _id(obs, "Bread"), _id(obs, "Knife")
    obs, *_ = env.step(Action(name="UseObject", object_id=bread, args={"irreversible": True}))
    res, _ = run_skill(env, obs, SkillCall(skill="slice", target=bread, args={"tool": knife}))
    assert (res.ok, res.fault, res.blame) == (False, "in-use", bread) and "irreversible" in res.reason


# ------------------------------------------------------------------ set_down, place


def test_set_down_on_the_nearest_surface_or_a_named_one(kitchen) -> None:
    env, obs = kitchen
    knife, plate = _id(obs, "Knife", 1), _id(obs, "Plate")
    res, _ = run_skill(env, obs, SkillCall(skill="set_down"))
    assert not res.ok and "nothing is held" in res.reason
    _, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    res, obs = run_skill(env, obs, SkillCall(skill="set_down"))
    assert res.ok, res.reason
    assert not obs.object(knife)["isPickedUp"] and obs.object(knife)["parentReceptacles"]
    _, obs = run_skill(env, obs, SkillCall(skill="pickup", target=knife))
    res, obs = run_skill(env, obs, SkillCall(skill="set_down", receptacle=plate))
    assert res.ok and plate in obs.object(knife)["parentReceptacles"]


def test_place_a_sliced_target_carries_its_first_piece(kitchen) -> None:
    env, obs = kitchen
    apple, knife, plate = _id(obs, "Apple"), _id(obs, "Knife", 1), _id(obs, "Plate")
    _, obs = run_skill(env, obs, SkillCall(skill="slice", target=apple, args={"tool": knife}))
    res, obs = run_skill(env, obs, SkillCall(skill="place", target=apple, receptacle=plate))  # knife set down first
    assert res.ok, res.reason
    assert plate in obs.object(f"{apple}|AppleSliced_0")["parentReceptacles"]
    assert not obs.object(knife)["isPickedUp"]


def test_place_into_the_fridge_opens_it_and_says_so(kitchen) -> None:
    env, obs = kitchen
    tomato, fridge = _id(obs, "Tomato"), _id(obs, "Fridge")
    res, obs = run_skill(env, obs, SkillCall(skill="place", target=tomato, receptacle=fridge))
    assert res.ok, res.reason
    assert fridge in obs.object(tomato)["parentReceptacles"] and obs.object(fridge)["isOpen"]
    assert res.opened == (fridge,)  # the planner closes it with a close step


def test_place_failures_blame_the_receptacle(kitchen) -> None:
    env, obs = kitchen
    apple, plate, pot, mw = _id(obs, "Apple"), _id(obs, "Plate"), _id(obs, "Pot"), _id(obs, "Microwave")
    res, _ = run_skill(env, obs, SkillCall(skill="place", target=apple, receptacle=GONE))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "missing", GONE, 0)
    obs = _poke(env, plate, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="place", target=apple, receptacle=plate))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "broken", plate, 0)
    res, _ = run_skill(env, obs, SkillCall(skill="place", target=pot, receptacle=mw))  # a Pot does not fit there
    assert (res.ok, res.fault, res.blame) == (False, "blocked", mw) and res.opened == (mw,)


# ------------------------------------------------------------------ fill


def test_fill_takes_water_from_the_faucet_and_coffee_from_the_machine(kitchen) -> None:
    env, obs = kitchen
    cup, mug = _id(obs, "Cup"), _id(obs, "Mug")
    res, obs = run_skill(env, obs, SkillCall(skill="fill", target=cup, args={"liquid": "water"}))
    assert res.ok, res.reason
    assert obs.object(cup)["isFilledWithLiquid"] and obs.object(cup)["fillLiquid"] == "water"
    sent = [a.action for a in res.actions]
    assert "FillObjectWithLiquid" not in sent and "ToggleObjectOn" in sent  # the faucet ran: nothing conjured
    res, obs = run_skill(env, obs, SkillCall(skill="fill", target=mug, args={"liquid": "coffee"}))
    assert res.ok and obs.object(mug)["fillLiquid"] == "coffee", res.reason
    assert "FillObjectWithLiquid" not in [a.action for a in res.actions]
    # a cup does not fit the coffee machine (AI2-THOR's placement table): the mug's coffee is poured into it
    res, obs = run_skill(env, obs, SkillCall(skill="fill", target=cup, args={"liquid": "coffee"}))
    assert res.ok and obs.object(cup)["fillLiquid"] == "coffee", res.reason
    assert not obs.object(mug)["isFilledWithLiquid"]  # poured, not conjured: the mug is empty now
    sent = [(a.action, a.object_id) for a in res.actions]
    assert sent.index(("EmptyLiquidFromObject", mug)) == sent.index(("FillObjectWithLiquid", cup)) - 1


def test_fill_without_a_source_conjures_nothing(kitchen) -> None:
    env, obs = kitchen
    cup = _id(obs, "Cup")
    res, obs = run_skill(env, obs, SkillCall(skill="fill", target=cup, args={"liquid": "wine"}))
    assert not res.ok and "no source of wine" in res.reason and res.steps == 0
    assert not obs.object(cup)["isFilledWithLiquid"]


def test_a_faucet_that_runs_no_water_is_faulty_and_nothing_is_conjured(kitchen) -> None:
    env, obs = kitchen
    cup = _id(obs, "Cup")
    for f in [o["objectId"] for o in obs.objects if o["objectType"] == "Faucet"]:
        env.unwrapped.world.set_faulty(f)
    res, obs = run_skill(env, obs, SkillCall(skill="fill", target=cup, args={"liquid": "water"}))
    assert not res.ok and "did not fill" in res.reason
    assert "FillObjectWithLiquid" not in [a.action for a in res.actions] and not obs.object(cup)["isFilledWithLiquid"]


def test_wash_goes_to_the_next_basin_when_the_first_faucet_runs_no_water() -> None:
    from skills.base import SkillContext
    from skills.tasks import water_sources

    env = scenes.make("embedded/FloorPlan402-v0", frames=False)
    obs, _ = env.reset(seed=0, options={"perturb": [{"type": "Cloth", "condition": "dirty", "which": "all"}]})
    first = water_sources(SkillContext(env=env, obs=obs))
    assert len(first) >= 2
    env.unwrapped.world.set_faulty(first[0][1]["objectId"])
    cloth = _id(obs, "Cloth")
    res, obs = run_skill(env, obs, SkillCall(skill="wash", target=cloth))
    env.close()
    assert res.ok and not obs.object(cloth)["isDirty"], res.reason
    assert any(a.action == "PutObject" and a.object_id == first[1][0]["objectId"] for a in res.actions)


def test_fill_refuses_bad_liquids_non_vessels_and_broken_vessels(kitchen) -> None:
    env, obs = kitchen
    cup, apple = _id(obs, "Cup"), _id(obs, "Apple")
    res, _ = run_skill(env, obs, SkillCall(skill="fill", target=cup, args={"liquid": "milk"}))
    assert not res.ok and "water, coffee, wine" in res.reason and res.steps == 0
    res, _ = run_skill(env, obs, SkillCall(skill="fill", target=apple))
    assert not res.ok and "cannot hold a liquid" in res.reason
    obs = _poke(env, cup, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="fill", target=cup))
    assert (res.ok, res.fault, res.blame) == (False, "broken", cup)


# ------------------------------------------------------------------ heat, cool


def test_heat_in_the_microwave_closes_it_cooks_and_switches_off(kitchen) -> None:
    env, obs = kitchen
    potato, mw = _id(obs, "Potato"), _id(obs, "Microwave")
    res, obs = run_skill(env, obs, SkillCall(skill="place", target=potato, receptacle=mw))
    assert res.ok and res.opened == (mw,)
    res, obs = run_skill(env, obs, SkillCall(skill="heat", target=mw, args={"object": potato, "until": "cooked"}))
    assert res.ok, res.reason
    assert obs.object(potato)["isCooked"] and obs.object(potato)["temperature"] == "Hot"
    assert not obs.object(mw)["isToggled"] and not obs.object(mw)["isOpen"]


def test_heat_water_on_a_burner_through_its_knob(kitchen) -> None:
    env, obs = kitchen
    kettle = _id(obs, "Kettle")
    burner = _burner_with(obs, kettle)
    _, obs = run_skill(env, obs, SkillCall(skill="fill", target=kettle))  # at the sink
    _, obs = run_skill(env, obs, SkillCall(skill="place", target=kettle, receptacle=burner))  # back on the burner
    res, obs = run_skill(env, obs, SkillCall(skill="heat", target=burner, args={"object": kettle}))
    assert res.ok, res.reason
    assert obs.object(kettle)["temperature"] == "Hot" and not obs.object(burner)["isToggled"]
    assert [a.object_id for a in res.actions if a.action.startswith("ToggleObject")][0].startswith("StoveKnob")


def test_heat_refuses_an_empty_microwave_and_a_bare_burner(kitchen) -> None:
    env, obs = kitchen
    potato, mw = _id(obs, "Potato"), _id(obs, "Microwave")
    res, _ = run_skill(env, obs, SkillCall(skill="heat", target=mw, args={"object": potato}))
    assert not res.ok and "refusing to switch on an empty Microwave" in res.reason and res.steps == 0
    bare = next(o["objectId"] for o in obs.objects if o["objectType"] == "StoveBurner" and not o["receptacleObjectIds"])
    res, _ = run_skill(env, obs, SkillCall(skill="heat", target=bare, args={"object": potato}))
    assert not res.ok and "no vessel" in res.reason and res.steps == 0
    pan_burner = _burner_with(obs, _id(obs, "Pan"))
    res, _ = run_skill(env, obs, SkillCall(skill="heat", target=pan_burner, args={"object": potato}))
    assert not res.ok and "place it there first" in res.reason and res.steps == 0


def test_a_microwave_that_never_heats_is_faulty_and_switched_off(kitchen) -> None:
    env, obs = kitchen
    apple, mw = _id(obs, "Apple"), _id(obs, "Microwave")
    world = env.unwrapped.world
    world._heat.remove(mw)  # the magnetron is dead: switched on, it heats nothing
    _, obs = run_skill(env, obs, SkillCall(skill="place", target=apple, receptacle=mw))
    res, obs = run_skill(env, obs, SkillCall(skill="heat", target=mw, args={"object": apple, "max_seconds": 90}))
    assert (res.ok, res.fault, res.blame) == (False, "faulty", mw)
    assert "90 s" in res.reason and not obs.object(mw)["isToggled"]
    assert [a.action for a in res.actions].count("Wait") == 3


def test_heat_on_a_burner_someone_uses_is_in_use() -> None:
    with scenes.make("embedded/kitchen-v0") as env:
        obs, _ = env.reset(seed=0, options={"scenario": "stove-in-use", "in_use_seconds": 120})
        kettle = _id(obs, "Kettle")
        burner = _burner_with(obs, kettle)
        res, _ = run_skill(env, obs, SkillCall(skill="heat", target=burner, args={"object": kettle}))
        assert (res.ok, res.fault, res.blame, res.steps) == (False, "in-use", burner, 0)
        assert "reversible-using" in res.reason


def test_cool_in_the_fridge_closes_it_and_waits_for_cold(kitchen) -> None:
    env, obs = kitchen
    tomato, fridge = _id(obs, "Tomato"), _id(obs, "Fridge")
    _, obs = run_skill(env, obs, SkillCall(skill="place", target=tomato, receptacle=fridge))
    res, obs = run_skill(env, obs, SkillCall(skill="cool", target=fridge, args={"object": tomato}))
    assert res.ok, res.reason
    assert obs.object(tomato)["temperature"] == "Cold" and not obs.object(fridge)["isOpen"]


def test_a_fridge_that_does_not_cool_is_faulty(kitchen) -> None:
    env, obs = kitchen
    tomato, fridge = _id(obs, "Tomato"), _id(obs, "Fridge")
    env.unwrapped.world._cold.remove(fridge)
    _, obs = run_skill(env, obs, SkillCall(skill="place", target=tomato, receptacle=fridge))
    res, _ = run_skill(env, obs, SkillCall(skill="cool", target=fridge, args={"object": tomato, "max_seconds": 60}))
    assert (res.ok, res.fault, res.blame) == (False, "faulty", fridge)
    res, _ = run_skill(env, obs, SkillCall(skill="cool", target=fridge, args={"object": _id(obs, "Apple")}))
    assert not res.ok and "place it there first" in res.reason


# ------------------------------------------------------------------ bring, hold_near_light


def test_bring_picks_up_or_goes_next_to(kitchen) -> None:
    env, obs = kitchen
    bread, fridge = _id(obs, "Bread"), _id(obs, "Fridge")
    res, obs = run_skill(env, obs, SkillCall(skill="bring", target=bread))
    assert res.ok and obs.object(bread)["isPickedUp"]
    res, obs = run_skill(env, obs, SkillCall(skill="bring", target=fridge))
    assert res.ok and obs.object(fridge)["distance"] <= 1.5
    res, _ = run_skill(env, obs, SkillCall(skill="bring", target=GONE))
    assert (res.ok, res.fault, res.blame) == (False, "missing", GONE)


@pytest.fixture()
def living_room():
    env = scenes.make("embedded/living-room-v0")
    obs, _ = env.reset(seed=0)
    yield env, obs
    env.close()


def test_hold_near_light_switches_the_lamp_on_and_stands_close(living_room) -> None:
    env, obs = living_room
    book, lamp = _id(obs, "Book"), _id(obs, "DeskLamp")
    _, obs = run_skill(env, obs, SkillCall(skill="toggle_off", target=lamp))
    res, obs = run_skill(env, obs, SkillCall(skill="hold_near_light", target=book, receptacle=lamp))
    assert res.ok, res.reason
    assert obs.object(book)["isPickedUp"] and obs.object(lamp)["isToggled"]


def test_hold_near_light_with_a_broken_or_dead_lamp(living_room, monkeypatch) -> None:
    env, obs = living_room
    book, lamp = _id(obs, "Book"), _id(obs, "DeskLamp")
    _, obs = run_skill(env, obs, SkillCall(skill="toggle_off", target=lamp))
    world = env.unwrapped.world
    monkeypatch.setattr(world, "_a_ToggleObjectOn", lambda p: None)  # the switch clicks, the bulb stays dark
    res, _ = run_skill(env, obs, SkillCall(skill="hold_near_light", target=book, receptacle=lamp))
    assert (res.ok, res.fault, res.blame) == (False, "faulty", lamp)
    obs = _poke(env, lamp, isBroken=True)
    res, _ = run_skill(env, obs, SkillCall(skill="hold_near_light", target=book, receptacle=lamp))
    assert (res.ok, res.fault, res.blame, res.steps) == (False, "broken", lamp, 0)
