"""Reset-time perturbations, faults that show only on use, the fault scenarios, and the Cake extension."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import ConfigError, DataError
from scenes.base import Action, SceneObs
from scenes.embedded import EmbeddedEnv
from scenes.embedded.extensions import ALL_TYPES, is_extension
from scenes.embedded.perturb import CONDITIONS
from scenes.embedded.scenarios import RANDOM_SCENARIOS, SCENARIOS


def ids(obs: SceneObs, *types: str) -> list[str]:
    return sorted(o["objectId"] for o in obs.objects if o["objectType"] in types)


def step(env: EmbeddedEnv, name: str, object_id: str | None = None, **args: Any) -> tuple[SceneObs, dict[str, Any]]:
    args.setdefault("forceAction", True)
    obs, _, _, _, info = env.step(Action(name=name, object_id=object_id, args=args))
    return obs, info


@pytest.fixture
def env() -> EmbeddedEnv:
    return EmbeddedEnv("kitchen", frames=False)


def reset(env: EmbeddedEnv, *specs: dict[str, Any], seed: int = 0, **options: Any) -> tuple[SceneObs, dict]:
    return env.reset(seed=seed, options={"perturb": list(specs), **options})


# --------------------------------------------------------------------------- options and their errors


def test_each_condition_on_one_object(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Knife", "condition": "missing"})
    ((k, cond),) = info["perturbed"].items()
    assert cond == "missing" and k not in ids(obs, "Knife") and len(ids(obs, "Knife")) == 1
    assert obs.extra["perturbed"] == info["perturbed"]

    obs, info = reset(env, {"type": "Fork", "condition": "dirty"})
    (k,) = info["perturbed"]
    assert obs.object(k)["dirtyable"] and obs.object(k)["isDirty"]  # forks are not dirtyable in AI2-THOR

    obs, info = reset(env, {"type": "Pot", "condition": "busy", "seconds": 20})
    (k,) = info["perturbed"]
    assert obs.extra["in_use"][k]["state"] == "reversible-using" and obs.extra["in_use"][k]["remaining"] == 20
    assert not step(env, "PickupObject", k)[1]["action_success"]
    step(env, "Wait", seconds=21)
    assert step(env, "PickupObject", k)[1]["action_success"]

    obs, info = reset(env, {"type": "Pot", "condition": "busy-for-good"})
    (k,) = info["perturbed"]
    assert obs.extra["in_use"][k]["state"] == "irreversible-using"

    obs, info = reset(env, {"type": "Knife", "condition": "broken"})
    (k,) = info["perturbed"]
    assert obs.object(k)["isBroken"] and not obs.object(k)["breakable"]  # set even where AI2-THOR cannot break
    assert obs.extra["in_use"][k]["state"] == "irreversible-using"


def test_which_all_and_default_busy_seconds(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Mug", "condition": "busy", "which": "all"}, in_use_seconds=50)
    assert set(info["perturbed"]) == set(ids(obs, "Mug")) and len(info["perturbed"]) == 2
    assert all(obs.extra["in_use"][m]["remaining"] == 50 for m in ids(obs, "Mug"))


def test_one_prefers_an_object_not_yet_perturbed(env: EmbeddedEnv) -> None:
    _, info = reset(env, {"type": "Mug", "condition": "dirty"}, {"type": "Mug", "condition": "broken"})
    assert sorted(info["perturbed"].values()) == ["broken", "dirty"]


def test_perturbations_are_seeded(env: EmbeddedEnv) -> None:
    spec = {"type": "Knife", "condition": "broken"}
    chosen = {s: tuple(reset(env, spec, seed=s)[1]["perturbed"]) for s in range(8)}
    assert len(set(chosen.values())) == 2  # both knives get picked over the seeds
    obs1, info1 = reset(env, spec, seed=5)
    obs2, info2 = reset(env, spec, seed=5)
    assert obs1.objects == obs2.objects and info1 == info2


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"type": "Knif", "condition": "broken"}, r"'Knif'.*did you mean 'Knife'.*valid: .*Knife"),
        ({"type": "Knife", "condition": "rusty"}, "'rusty'.*valid: missing, dirty, busy"),
        ({"type": "Knife", "condition": "broken", "which": "some"}, "'some'.*valid: one, all"),
        ({"type": "Knife", "condition": "broken", "color": "red"}, "'color'.*valid: type, condition"),
        ({"type": "Knife", "condition": "faulty"}, "appliance.*Microwave"),
        ({"type": "Fridge", "condition": "breaks-on-pickup"}, "pickupable"),
        ({"type": "Knife", "condition": "broken", "seconds": 3}, "only for condition 'busy'"),
        ({"type": "Knife", "condition": "busy", "seconds": -1}, "seconds"),
        ({"type": "Book", "condition": "displaced"}, r"'displaced' needs 'from'.*types the Book must leave"),
        ({"type": "Book", "condition": "displaced", "from": []}, "non-empty list"),
        ({"type": "Book", "condition": "displaced", "from": ["Shelff"]},
         r"perturb\[0\]\.from: unknown value 'Shelff' \(did you mean 'Shelf'\?\); valid: .*CounterTop.*Shelf"),
        ({"type": "Book", "condition": "dirty", "from": ["Shelf"]}, "from: only for condition 'displaced'"),
        ({"type": "Fridge", "condition": "displaced", "from": ["Floor"]}, "'Fridge' is not pickupable"),
    ],
)
def test_bad_perturbations_name_the_value_and_the_valid_ones(env: EmbeddedEnv, spec: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        reset(env, spec)


def test_bad_option_shapes(env: EmbeddedEnv) -> None:
    with pytest.raises(ConfigError, match="list"):
        env.reset(seed=0, options={"perturb": "Knife"})
    with pytest.raises(ConfigError, match="perturb, in_use_seconds"):
        env.reset(seed=0, options={"perturbs": []})
    with pytest.raises(ConfigError, match="in_use_seconds"):
        env.reset(seed=0, options={"in_use_seconds": 0})


def test_a_valid_type_the_scene_lacks_changes_nothing() -> None:
    env = EmbeddedEnv("bathroom", frames=False)
    obs, info = env.reset(seed=0, options={"perturb": [{"type": "Knife", "condition": "missing"}]})
    assert info["perturbed"] == {} and obs.extra["perturbed"] == {}
    assert "Knife" in ALL_TYPES and set(CONDITIONS) >= {"faulty", "breaks-on-pickup", "taken-on-approach"}


@pytest.mark.parametrize("condition", [c for c in CONDITIONS if c != "missing"])
def test_any_other_condition_on_a_type_the_scene_lacks_names_the_scene_s_types(condition: str) -> None:
    """Breaking a knife the bathroom does not have would let an experiment run believing it had: refused."""
    env = EmbeddedEnv("bathroom", frames=False)
    spec = {"type": "Knife", "condition": condition, **({"seconds": 5} if condition == "busy" else {})}
    with pytest.raises(ConfigError, match=r"no Knife in scene .* to make .*; the scene's types: .*Toilet"):
        env.reset(seed=0, options={"perturb": [spec]})


# --------------------------------------------------------------------------- faults that show only on use


def test_a_faulty_microwave_switches_on_but_never_heats(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Microwave", "condition": "faulty"})
    (mw,) = info["perturbed"]
    mug = ids(obs, "Mug")[0]
    for a, o in (("PickupObject", mug), ("OpenObject", mw), ("PutObject", mw), ("CloseObject", mw),
                 ("ToggleObjectOn", mw), ("Wait", None)):
        obs, i = step(env, a, o, seconds=30) if a == "Wait" else step(env, a, o)
        assert i["action_success"], (a, i["error"])
    assert obs.object(mw)["isToggled"] and obs.object(mug)["temperature"] == "RoomTemp"


@pytest.mark.parametrize(("appliance", "put", "check"), [
    ("Toaster", None, None),
    ("Fridge", "Apple", "temperature"),
    ("Faucet", "Plate", "isDirty"),
    ("StoveKnob", "Pot", "temperature"),
])
def test_other_faulty_appliances_do_nothing(env: EmbeddedEnv, appliance: str, put: str | None,
                                            check: str | None) -> None:
    obs, info = reset(env, {"type": appliance, "condition": "faulty", "which": "all"})
    assert set(info["perturbed"]) == set(ids(obs, appliance))
    w = env.world
    assert w is not None and set(info["perturbed"]) <= w.faulty
    if appliance == "StoveKnob":  # the burners a faulty knob controls are faulty too
        assert set(ids(obs, "StoveBurner")) <= w.faulty
    if put is None:
        return
    target = ids(obs, put)[0]
    if put == "Plate":
        step(env, "DirtyObject", target)
    step(env, "PickupObject", target)
    receptacle = {"Fridge": "Fridge", "Faucet": "SinkBasin", "StoveKnob": "StoveBurner"}[appliance]
    # a free burner (a burner holds one Pot, Pan or Kettle); a closed fridge takes nothing, even with forceAction
    r = [k for k in ids(obs, receptacle) if receptacle != "StoveBurner" or not w.contents(k, recursive=False)][-1]
    if appliance == "Fridge":
        step(env, "OpenObject", r)
    assert step(env, "PutObject", r)[1]["action_success"]
    if appliance != "Fridge":
        switch = ids(obs, appliance)[0] if appliance == "Faucet" else next(
            o["objectId"] for o in obs.objects if r in (o["controlledObjects"] or []))
        assert step(env, "ToggleObjectOn", switch)[1]["action_success"]
    obs, _ = step(env, "Wait", seconds=5)
    assert obs.object(target)[check] == {"temperature": "RoomTemp", "isDirty": True}[check]


def test_breaks_on_pickup_looks_fine_until_picked_up(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Mug", "condition": "breaks-on-pickup", "which": "all"})
    mugs = ids(obs, "Mug")
    assert set(info["perturbed"]) == set(mugs)
    assert not any(obs.object(m)["isBroken"] for m in mugs) and not obs.extra["in_use"]
    obs, i = step(env, "PickupObject", mugs[0])
    assert i["action_success"] and obs.object(mugs[0])["isPickedUp"]
    assert obs.object(mugs[0])["isBroken"] and obs.extra["in_use"][mugs[0]]["state"] == "irreversible-using"
    step(env, "PutObject", ids(obs, "CounterTop")[0])
    obs, _ = step(env, "PickupObject", mugs[1])  # armed one by one: the second mug breaks as well
    assert obs.object(mugs[1])["isBroken"]


def test_taken_on_approach_when_the_agent_comes_within_reach(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Toaster", "condition": "taken-on-approach"})
    (t,) = info["perturbed"]
    assert not obs.extra["in_use"]
    obs, _ = step(env, "Teleport", position={"x": 0.0, "y": 0.9, "z": 0.0})
    assert not obs.extra["in_use"]  # still out of reach (> 1.5 m)
    obs, i = step(env, "Teleport", position={"x": 1.75, "y": 0.9, "z": -1.5})
    assert i["action_success"] and obs.extra["in_use"][t]["state"] == "irreversible-using"
    assert not step(env, "ToggleObjectOn", t)[1]["action_success"]


def test_taken_on_approach_by_an_action_aimed_at_it(env: EmbeddedEnv) -> None:
    obs, info = reset(env, {"type": "Toaster", "condition": "taken-on-approach"})
    (t,) = info["perturbed"]
    obs, i = step(env, "ToggleObjectOn", t)  # forceAction from afar: reaching for it is enough
    assert not i["action_success"] and "in use" in i["error"] and not obs.object(t)["isToggled"]


# --------------------------------------------------------------------------- named fault scenarios


def test_scenario_microwave_faulty(env: EmbeddedEnv) -> None:
    obs, info = env.reset(seed=0, options={"scenario": "microwave-faulty"})
    assert info["perturbed"] == {m: "faulty" for m in ids(obs, "Microwave")} and info["perturbed"]
    assert info["scenario"]["name"] == info["scenario"]["requested"] == "microwave-faulty"


def test_scenario_knife_breaks_breaks_only_the_first_knife_picked_up(env: EmbeddedEnv) -> None:
    obs, info = env.reset(seed=0, options={"scenario": "knife-breaks"})
    knives = ids(obs, "Knife", "ButterKnife")
    assert set(info["perturbed"]) == set(knives) and set(info["perturbed"].values()) == {"breaks-on-pickup"}
    first, second = knives[-1], knives[0]
    obs, i = step(env, "PickupObject", first)
    assert i["action_success"] and obs.object(first)["isBroken"]
    step(env, "PutObject", ids(obs, "CounterTop")[0])
    obs, i = step(env, "PickupObject", second)
    assert i["action_success"] and not obs.object(second)["isBroken"]


def test_scenario_burner_taken_while_walking_to_the_stove(env: EmbeddedEnv) -> None:
    obs, info = env.reset(seed=0, options={"scenario": "burner-taken"})
    burners = ids(obs, "StoveBurner")
    assert set(info["perturbed"]) == set(burners) and not obs.extra["in_use"]
    obs, _ = step(env, "Teleport", position={"x": 0.5, "y": 0.9, "z": -1.5})
    assert {b for b, u in obs.extra["in_use"].items() if u["state"] == "irreversible-using"} == set(burners)


def test_scenario_burner_taken_through_its_knob() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    obs, _ = env.reset(seed=0, options={"scenario": "burner-taken"})
    knob = ids(obs, "StoveKnob")[0]
    burner = obs.object(knob)["controlledObjects"][0]
    obs, i = step(env, "ToggleObjectOn", knob)
    assert not i["action_success"] and burner in obs.extra["in_use"]


@pytest.mark.parametrize("name", ["microwave-faulty", "knife-breaks", "burner-taken"])
def test_fault_scenarios_are_seeded_and_listed(name: str) -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    a = env.reset(seed=3, options={"scenario": name})
    b = env.reset(seed=3, options={"scenario": name})
    assert a[0].objects == b[0].objects and a[1] == b[1] and name in SCENARIOS


def test_random_names_what_it_drew_and_keeps_its_old_draw() -> None:
    env = EmbeddedEnv("kitchen", frames=False)
    drawn = []
    for s in range(12):
        _, info = env.reset(seed=s, options={"scenario": "random"})
        assert info["scenario"]["requested"] == "random" and info["scenario"]["name"] in RANDOM_SCENARIOS
        drawn.append(info["scenario"]["name"])
    import random

    assert drawn == [random.Random(s).choice(RANDOM_SCENARIOS) for s in range(12)]
    assert RANDOM_SCENARIOS == ("knife-dirty", "no-knife", "stove-in-use", "mug-broken")


def test_scenario_and_perturb_combine(env: EmbeddedEnv) -> None:
    obs, info = env.reset(seed=0, options={"scenario": "no-knife",
                                           "perturb": [{"type": "Microwave", "condition": "faulty"}]})
    assert sorted(set(info["perturbed"].values())) == ["faulty", "missing"]


# --------------------------------------------------------------------------- the Cake extension


def test_the_kitchen_has_a_cake_on_a_counter_that_slices_like_bread(env: EmbeddedEnv) -> None:
    obs, _ = env.reset(seed=0)
    (cake,) = ids(obs, "Cake")
    c = obs.object(cake)
    assert len(c) == 42 and c["sliceable"] and c["salientMaterials"] == ["Food"]
    assert obs.object(c["parentReceptacles"][0])["objectType"] == "CounterTop"
    assert obs.extra["extension_objects"] == [cake] and is_extension("Cake") and not is_extension("Bread")
    obs, i = step(env, "SliceObject", cake)
    assert i["action_success"]
    pieces = [o for o in obs.objects if o["objectId"].startswith(cake + "|CakeSliced_")]
    assert len(pieces) == 8 and all(p["objectType"] == "CakeSliced" and p["pickupable"] for p in pieces)
    # the whole cake stays in the metadata, sliced and deactivated, as a sliced loaf does
    assert set(obs.extra["extension_objects"]) == {cake} | {p["objectId"] for p in pieces}
    assert obs.object(cake)["isSliced"] and not obs.object(cake)["visible"]


def test_real_floorplan_dumps_refuse_extension_types(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from scenes.embedded.loader import load_scene_file

    obs, _ = EmbeddedEnv("kitchen", frames=False).reset(seed=0)
    cake = next(o for o in obs.objects if o["objectType"] == "Cake")
    path = tmp_path / "FloorPlan1_physics.json"
    import json

    path.write_text(json.dumps({cake["objectId"]: cake}))
    with pytest.raises(DataError, match="extension"):
        load_scene_file(path)


def test_fidelity_never_compares_extension_objects() -> None:
    from scenes.embedded.fidelity import _is_extension_object

    assert _is_extension_object({"objectType": "CakeSliced"}, None)
    assert not _is_extension_object({"objectType": "Bread"}, None)


@pytest.mark.parametrize("scene", ["FloorPlan1", "FloorPlan201"])
def test_perturbations_and_fault_scenarios_on_real_floorplans(scene: str, data_dir) -> None:  # type: ignore[no-untyped-def]
    env = EmbeddedEnv(scene, frames=False, data_dir=data_dir)
    here, absent = ({"type": "Microwave", "condition": "faulty"}, {"type": "Sofa", "condition": "busy"})
    if scene != "FloorPlan1":
        here, absent = absent, here
    obs, info = env.reset(seed=2, options={"perturb": [here]})
    kinds = {obs.object(k)["objectType"]: c for k, c in info["perturbed"].items()}
    assert kinds == {here["type"]: here["condition"]}
    with pytest.raises(ConfigError, match=f"no {absent['type']} in scene"):
        env.reset(seed=2, options={"perturb": [absent]})
    assert obs.extra["extension_objects"] == [] and not ids(obs, "Cake")
    for name in ("knife-breaks", "burner-taken", "microwave-faulty"):
        _, info = env.reset(seed=2, options={"scenario": name})
        assert bool(info["perturbed"]) is (scene == "FloorPlan1")


def test_a_faucet_whose_basin_is_missing_runs_into_nothing() -> None:
    """Removing a basin leaves its faucet: switching the faucet on must not fail on the basin that is gone."""
    import scenes

    with scenes.make("embedded/FloorPlan404-v0", frames=False) as env:
        obs, _ = env.reset(seed=0, options={"perturb": [{"type": "BathtubBasin", "condition": "missing",
                                                          "which": "all"}]})
        assert not [o for o in obs.objects if o["objectType"] == "BathtubBasin"]
        for tap in [o["objectId"] for o in obs.objects if o["objectType"] in ("Faucet", "ShowerHead")]:
            _, _, _, _, info = env.step(Action(name="ToggleObjectOn", object_id=tap, args={"forceAction": True}))
            assert info["action_success"] or "already on" in info["error"], info["error"]


def test_occupied_is_someones_wine_and_native(env: EmbeddedEnv) -> None:
    """A vessel in use, as AI2-THOR can show it: filled with wine (native, no extension label); emptying it
    (EmptyLiquidFromObject) frees it. A type that cannot hold a liquid is refused, naming why."""
    obs, info = reset(env, {"type": "Mug", "condition": "occupied", "which": "all"})
    mugs = ids(obs, "Mug")
    assert set(info["perturbed"]) == set(mugs) and set(info["perturbation_kinds"].values()) == {"native"}
    for m in mugs:
        o = obs.object(m)
        assert o["isFilledWithLiquid"] and o["fillLiquid"] == "wine"
        assert m not in obs.extra["extensions"]
    obs, info = step(env, "EmptyLiquidFromObject", mugs[0])
    assert info["action_success"] and not obs.object(mugs[0])["isFilledWithLiquid"]
    with pytest.raises(ConfigError, match="Plate cannot hold a liquid"):
        reset(env, {"type": "Plate", "condition": "occupied"})


def test_off_closes_what_lets_light_in_but_does_not_switch() -> None:
    """Blinds cannot be switched: ``off`` closes them (a brightness goal must not hold at reset), natively."""
    env = EmbeddedEnv("FloorPlan226", frames=False)
    obs, info = reset(env, {"type": "Blinds", "condition": "off", "which": "all"})
    blinds = ids(obs, "Blinds")
    assert blinds and all(not obs.object(b)["isOpen"] for b in blinds)
    assert set(info["perturbation_kinds"].values()) == {"native"}


def test_on_open_and_closed_set_the_state_natively_within_ai2thors_rules() -> None:
    """The premises of "turn off the lamp", "close the fridge", "open the blinds": AI2-THOR's own states
    (SetObjectStates), so native; a microwave is switched on only when closed and opened only when off, and a type
    without the state is left as it is."""
    env = EmbeddedEnv("FloorPlan1", frames=False)
    obs, info = reset(env, {"type": "Fridge", "condition": "open", "which": "all"},
                      {"type": "Faucet", "condition": "on", "which": "all"}, {"type": "Apple", "condition": "on"})
    assert all(obs.object(f)["isOpen"] for f in ids(obs, "Fridge"))
    assert all(obs.object(f)["isToggled"] for f in ids(obs, "Faucet"))
    assert not any(obs.object(a)["isToggled"] for a in ids(obs, "Apple"))
    assert set(info["perturbation_kinds"].values()) == {"native"}
    obs, _ = reset(env, {"type": "Microwave", "condition": "open", "which": "all"},
                   {"type": "Microwave", "condition": "on", "which": "all"})
    assert all(obs.object(m)["isOpen"] and not obs.object(m)["isToggled"] for m in ids(obs, "Microwave"))
    obs, _ = reset(env, {"type": "Fridge", "condition": "open", "which": "all"})
    obs, _ = reset(env, {"type": "Fridge", "condition": "closed", "which": "all"})
    assert not any(obs.object(f)["isOpen"] for f in ids(obs, "Fridge"))
    bedroom = EmbeddedEnv("FloorPlan301", frames=False)
    obs, _ = reset(bedroom, {"type": "DeskLamp", "condition": "off", "which": "all"})
    obs, _ = reset(bedroom, {"type": "DeskLamp", "condition": "on", "which": "all"})
    assert ids(obs, "DeskLamp") and all(obs.object(d)["isToggled"] for d in ids(obs, "DeskLamp"))


def test_cold_coffee_is_coffee_at_room_temperature(env: EmbeddedEnv) -> None:
    """The premise of a reheating task: coffee in the mug, gone cold (poured coffee is hot at once in AI2-THOR)."""
    obs, info = reset(env, {"type": "Mug", "condition": "cold-coffee", "which": "all"})
    for m in ids(obs, "Mug"):
        o = obs.object(m)
        assert o["isFilledWithLiquid"] and o["fillLiquid"] == "coffee" and o["temperature"] == "RoomTemp"
    assert set(info["perturbation_kinds"].values()) == {"native"}


def _lies_consistently(obs: SceneObs, oid: str) -> list[str]:
    """``oid``'s parents, each listing it, and no other receptacle listing it (AI2-THOR's containment both ways)."""
    parents = obs.object(oid)["parentReceptacles"] or []
    assert all(oid in (obs.object(p)["receptacleObjectIds"] or []) for p in parents)
    assert not [o["objectId"] for o in obs.objects
                if o["objectId"] not in parents and oid in (o["receptacleObjectIds"] or [])]
    return parents


def test_displaced_moves_what_lies_in_the_receptacle_to_another_it_may_go_in(env: EmbeddedEnv) -> None:
    """The premise of "put the book back on the shelf": the book that lies on the shelf is moved, at reset, to a
    receptacle its type may go in (AI2-THOR's type table and PutObject's placement row), of another type, with the
    containment updated both ways; natively (SetObjectPoses), the same place on every reset."""
    from planner.schemas.thor_rules import PLACEMENT_RESTRICTIONS

    (book,) = ids(env.reset(seed=0)[0], "Book")
    spec = {"type": "Book", "condition": "displaced", "from": ["Shelf"], "which": "all"}
    obs, info = reset(env, spec)
    assert info["perturbed"] == {book: "displaced"} and info["perturbation_kinds"] == {book: "native"}
    parents = _lies_consistently(obs, book)
    types = {obs.object(p)["objectType"] for p in parents}
    assert parents and "Shelf" not in types
    assert all(t in ALL_TYPES["Book"].compatible and t in PLACEMENT_RESTRICTIONS["Book"] for t in types - {"Floor"})
    assert not any(book in (obs.object(s)["receptacleObjectIds"] or []) for s in ids(obs, "Shelf"))
    assert book not in obs.extra["extensions"]
    again, _ = reset(env, spec, seed=7)
    assert again.object(book)["parentReceptacles"] == obs.object(book)["parentReceptacles"]  # not seeded
    assert again.object(book)["position"] == obs.object(book)["position"]
    # the robot can take it from there and put it back on its shelf
    (shelf,) = env.reset(seed=0)[0].object(book)["parentReceptacles"]
    reset(env, spec)
    _, picked = step(env, "PickupObject", book)
    obs, put = step(env, "PutObject", shelf)
    assert picked["action_success"] and put["action_success"], put["error"]
    assert _lies_consistently(obs, book) == [shelf]


def test_displaced_leaves_every_type_it_names_and_skips_what_lies_elsewhere(env: EmbeddedEnv) -> None:
    obs, _ = env.reset(seed=0)
    mugs = ids(obs, "Mug")  # one on a counter, one on the shelf
    obs, info = reset(env, {"type": "Mug", "condition": "displaced", "from": ["Shelf", "CounterTop"], "which": "all"})
    assert set(info["perturbed"]) == set(mugs)
    for m in mugs:
        assert {obs.object(p)["objectType"] for p in _lies_consistently(obs, m)}.isdisjoint({"Shelf", "CounterTop"})
    # a book on no counter stays; "one" picks among the mugs that lie in a "from" type
    obs, info = reset(env, {"type": "Book", "condition": "displaced", "from": ["CounterTop"]},
                      {"type": "Mug", "condition": "displaced", "from": ["Shelf"]})
    assert list(info["perturbed"]) == ["Mug|-02.35|+01.51|+00.20"]


def test_displaced_leaves_an_object_with_no_other_place() -> None:
    """Every receptacle the book may go in is one it must leave: it stays where it is, and is not reported."""
    env = EmbeddedEnv("kitchen", frames=False)
    (book,) = ids(env.reset(seed=0)[0], "Book")
    before = env.reset(seed=0)[0].object(book)
    obs, info = reset(env, {"type": "Book", "condition": "displaced", "from": list(ALL_TYPES["Book"].compatible)})
    assert info["perturbed"] == {} and obs.object(book)["position"] == before["position"]
    assert obs.object(book)["parentReceptacles"] == before["parentReceptacles"]


def test_a_displaced_receptacle_carries_what_it_holds(env: EmbeddedEnv) -> None:
    """A bowl holding an apple leaves the table with the apple in it (PickupObject's bookkeeping, then PutObject's):
    the table lists neither, the apple's only parent is the bowl."""
    from scenes.embedded.perturb import apply_perturbations

    obs, _ = env.reset(seed=0)
    (bowl,), (apple,) = ids(obs, "Bowl"), ids(obs, "Apple")
    step(env, "PickupObject", apple)
    step(env, "PutObject", bowl)
    done = apply_perturbations(env.world, [{"type": "Bowl", "condition": "displaced", "from": ["DiningTable"]}])
    assert done == {bowl: "displaced"}
    w = env.world
    table = w.objs[bowl]["parentReceptacles"]
    assert table and not any(w.objs[p]["objectType"] == "DiningTable" for p in table)
    assert w.objs[apple]["parentReceptacles"] == [bowl] and apple in w.objs[bowl]["receptacleObjectIds"]
    assert not any(k in (o["receptacleObjectIds"] or []) for o in w.objs.values() if o["objectType"] == "DiningTable"
                   for k in (bowl, apple))
    c = w.objs[bowl]["axisAlignedBoundingBox"]["center"]
    a = w.objs[apple]["axisAlignedBoundingBox"]["center"]
    assert abs(c["x"] - a["x"]) < 0.2 and abs(c["z"] - a["z"]) < 0.2  # the apple travelled with the bowl
