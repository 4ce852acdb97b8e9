"""ALFRED directives in words: the directive reader, its place in the reader, goals checked under any assignment,
and the directive benchmark (a directive read, planned, carried out and checked against its label)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.api import execute_plan, plan
from planner.bench.directives import exact, gold_spec, reset_options, run_directive, summarize
from planner.cli import main
from planner.errors import ConfigError, DataError
from planner.goals import check_any
from planner.knowledge.alfred import object_types, types_with
from planner.schemas import GoalCondition
from planner.understanding.directives import read_directive, tokens
from planner.understanding.examples import DirectiveRequest, load_directives
from planner.understanding.reader import MAX_WORDS
from planner.understanding.vocabulary import Vocabulary

SCENE = "embedded/FloorPlan1-v0"


@pytest.fixture(scope="module")
def vocab(data_dir):
    return Vocabulary(object_types(str(data_dir)))


@pytest.fixture(scope="module")
def props(data_dir):
    root = str(data_dir)
    return {"pickupable": types_with("pickupable", root), "sliceable": types_with("sliceable", root),
            "receptacles": types_with("receptacle", root)}


def _read(text, vocab, props):
    d = read_directive(text, vocab, **props)
    return None if d is None else (d.task_type, d.obj[0], d.recep[0] if d.recep else None,
                                   d.movable[0] if d.movable else None, d.sliced)


@pytest.mark.parametrize(("text", "want"), [
    # ALFRED's goal descriptions
    ("Put a rinsed spatula in the drawer.", ("pick_clean_then_place_in_recep", "Spatula", "Drawer", None, False)),
    ("Place a warm potato on the counter", ("pick_heat_then_place_in_recep", "Potato", "CounterTop", None, False)),
    ("Set a cold slice of apple on the table", ("pick_cool_then_place_in_recep", "Apple", "DiningTable", None, True)),
    ("Move two spoons to the drawer.", ("pick_two_obj_and_place", "Spoon", "Drawer", None, False)),
    ("Put a pan with a potato slice in it on the stove top",
     ("pick_and_place_with_movable_recep", "Potato", "StoveBurner", "Pan", True)),
    ("Leave a piece of tomato in the fridge.", ("pick_and_place_simple", "Tomato", "Fridge", None, True)),
    ("Inspect the watch under the desk lamp.", ("look_at_obj_in_light", "Watch", None, None, False)),
    # step-by-step instructions, with navigation
    ("Walk to the sink. Pick up the cup. Rinse it under the tap. Put the cup on the shelf.",
     ("pick_clean_then_place_in_recep", "Cup", "Shelf", None, False)),
    ("Go to the counter and take the egg. Open the fridge, put the egg inside and close it. Take the egg back out "
     "and put it on the counter.", ("pick_cool_then_place_in_recep", "Egg", "CounterTop", None, False)),
    ("Pick up the remote. Walk over to the floor lamp and switch it on.",
     ("look_at_obj_in_light", "RemoteControl", None, None, False)),
    # terse and casual
    ("heat mug -> coffee maker", ("pick_heat_then_place_in_recep", "Mug", "CoffeeMachine", None, False)),
    ("tomato slice in bowl, bowl in fridge", ("pick_and_place_with_movable_recep", "Tomato", "Fridge", "Bowl", True)),
    ("2 pencils -> desk", ("pick_two_obj_and_place", "Pencil", "Desk", None, False)),
    ("could you give the ladle a quick rinse and pop it in a drawer?",
     ("pick_clean_then_place_in_recep", "Ladle", "Drawer", None, False)),
    ("drop a hot egg in the sink", ("pick_heat_then_place_in_recep", "Egg", "SinkBasin", None, False)),
    ("throw away a chilled tomato", ("pick_cool_then_place_in_recep", "Tomato", "GarbageCan", None, False)),
    # found by a review: modifiers, compounds, counts after the noun, unsliced movable receptacles
    ("Heat the egg and put it on the kitchen counter.", ("pick_heat_then_place_in_recep", "Egg", "CounterTop", None,
                                                          False)),
    ("Put a warm potato on the glass table.", ("pick_heat_then_place_in_recep", "Potato", "DiningTable", None, False)),
    ("Put a washed egg in the egg cup.", ("pick_clean_then_place_in_recep", "Egg", "Cup", None, False)),
    ("pens x2 -> desk", ("pick_two_obj_and_place", "Pen", "Desk", None, False)),
    ("microwave potato -> table", ("pick_heat_then_place_in_recep", "Potato", "DiningTable", None, False)),
    ("A heated mug on the coffee table.", ("pick_heat_then_place_in_recep", "Mug", "CoffeeTable", None, False)),
    ("Put a pencil in a mug and put the mug on the desk.",
     ("pick_and_place_with_movable_recep", "Pencil", "Desk", "Mug", False)),
    ("Pick up a pen and put it in the drawer. Go back for the second pen and put it in the drawer too.",
     ("pick_two_obj_and_place", "Pen", "Drawer", None, False)),
    # casual and indirect (session 10): wishes, where a thing ends up, polite questions, a question as context
    ("I'd like a washed tomato on the dining table for the salad.",
     ("pick_clean_then_place_in_recep", "Tomato", "DiningTable", None, False)),
    ("A warmed mug on the dining table would be ace.", ("pick_heat_then_place_in_recep", "Mug", "DiningTable", None,
                                                        False)),
    ("There's a dirty fork lying about. Once it's been washed it belongs in the drawer.",
     ("pick_clean_then_place_in_recep", "Fork", "Drawer", None, False)),
    ("Could I get a slice of potato, heated through, on the dining table?",
     ("pick_heat_then_place_in_recep", "Potato", "DiningTable", None, True)),
    ("Is there a dent in the laptop lid? Examine it under the desk lamp.",
     ("look_at_obj_in_light", "Laptop", None, None, False)),
    ("That pot needs cooling in the fridge before it goes on the dining table.",
     ("pick_cool_then_place_in_recep", "Pot", "DiningTable", None, False)),
    # session 11: an indirect question is context, the object's head word said again, holding under a lit lamp in
    # either order, a look as a noun, a pronoun's goal, a state as a noun, "should be in", a verb before a
    # determiner, "fridge" as a verb, a put whose verb is left out, a place named first, a purpose with a modifier
    ("Want to know if the watch is running: switch on the floor lamp and examine the watch under it.",
     ("look_at_obj_in_light", "Watch", None, None, False)),
    ("Check whether the remote has batteries by looking at it under the desk lamp.",
     ("look_at_obj_in_light", "RemoteControl", None, None, False)),
    ("Turn the desk lamp on, then hold the credit card under it.",
     ("look_at_obj_in_light", "CreditCard", None, None, False)),
    ("The tennis racket looks frayed; switch on the floor lamp and inspect the racket.",
     ("look_at_obj_in_light", "TennisRacket", None, None, False)),
    ("Carry the vase over to the floor lamp, switch it on and give the vase a close look.",
     ("look_at_obj_in_light", "Vase", None, None, False)),
    ("The cup is sticky. Could it get rinsed and end up on the shelf?",
     ("pick_clean_then_place_in_recep", "Cup", "Shelf", None, False)),
    ("The spatula needs a scrub before it goes in the drawer.",
     ("pick_clean_then_place_in_recep", "Spatula", "Drawer", None, False)),
    ("There's mud on the potato, give it a wash and leave it on the counter.",
     ("pick_clean_then_place_in_recep", "Potato", "CounterTop", None, False)),
    ("Both pillows should be on the sofa.", ("pick_two_obj_and_place", "Pillow", "Sofa", None, False)),
    ("The mug has to be properly chilled and waiting on the dining table.",
     ("pick_cool_then_place_in_recep", "Mug", "DiningTable", None, False)),
    ("Please cool the pot off in the fridge and then set it on the stove.",
     ("pick_cool_then_place_in_recep", "Pot", "StoveBurner", None, False)),
    ("Slice a tomato and fridge it, then leave it on the counter.",
     ("pick_cool_then_place_in_recep", "Tomato", "CounterTop", None, True)),
    ("Put the apple slice in a bowl and then the bowl in the fridge.",
     ("pick_and_place_with_movable_recep", "Apple", "Fridge", "Bowl", True)),
    ("Put the egg in a pot and then the pot on the counter.",
     ("pick_and_place_with_movable_recep", "Egg", "CounterTop", "Pot", False)),
    ("The pencil should live in the mug, and the mug on the desk.",
     ("pick_and_place_with_movable_recep", "Pencil", "Desk", "Mug", False)),
    ("Could the potato get warmed up? On the counter when it's done.",
     ("pick_heat_then_place_in_recep", "Potato", "CounterTop", None, False)),
    ("For the fruit salad I need a slice of apple that's been chilled. Put it on the dining table.",
     ("pick_cool_then_place_in_recep", "Apple", "DiningTable", None, True)),
    # session 11: a plain put the general reader read as a fetch: carried "to" a place, where it belongs, a wish
    ("Bring the laptop to the bed.", ("pick_and_place_simple", "Laptop", "Bed", None, False)),
    ("Could you carry the pillow over to the armchair?", ("pick_and_place_simple", "Pillow", "ArmChair", None, False)),
    ("The bowl should be in the cabinet.", ("pick_and_place_simple", "Bowl", "Cabinet", None, False)),
    ("I'd like the book on the desk for later.", ("pick_and_place_simple", "Book", "Desk", None, False)),
    # session 11, after a review: a slice put in a movable receptacle as it is named, a terse state after "should be"
    ("A slice of potato in a bowl, with the bowl left on the counter.",
     ("pick_and_place_with_movable_recep", "Potato", "CounterTop", "Bowl", True)),
    ("The apple should be on the counter, chilled.", ("pick_cool_then_place_in_recep", "Apple", "CounterTop", None,
                                                      False)),
    ("Turn on the desk lamp, pick up the watch and hold it under the lamp.",
     ("look_at_obj_in_light", "Watch", None, None, False)),
    # "if" as politeness, not a condition
    ("Could you rinse the cup and put it on the shelf, if you don't mind?",
     ("pick_clean_then_place_in_recep", "Cup", "Shelf", None, False)),
    ("A warm potato on the counter, if it's no trouble.", ("pick_heat_then_place_in_recep", "Potato", "CounterTop",
                                                           None, False)),
    ("It would be lovely if a mug got chilled and put on the desk.",
     ("pick_cool_then_place_in_recep", "Mug", "Desk", None, False)),
])
def test_directives_are_read_as_their_alfred_task(text, want, vocab, props) -> None:
    assert _read(text, vocab, props) == want


@pytest.mark.parametrize("text", [
    "put the apple in the fridge",                                   # a plain put: the general reader's
    "beat two eggs in a bowl with a fork",                           # no verb of putting
    "toast two slices of bread and put them on a plate",             # toast is no ALFRED type
    "Put the clean mugs on the top shelf.",                          # already clean (plural)
    "heat the soup up in the pot and ladle it into a bowl",          # the soup is no object type
    "warm up the tomato soup and put it in a bowl",                  # a dish
    "I want to light a candle and read on the sofa",                 # no lamp, no object examined
    "I need to study: turn on the desk lamp and find me a pencil",   # nothing examined
    "I intend to take a long, hot bath, set the candle on the side table",  # "hot" is the bath's
    "put the apples in the fridge, throw that stale bread in the bin",      # two tasks
    "rinse the cloth in the sink, not in the bathtub",               # no place to end up in
    "put the mug in the microwave to heat it",                       # the general reader's heating role
    "heat the mug in the microwave",
    # found by a review
    "put the book near the lamp",                                    # a put, not a look
    "turn on the desk lamp and grab the book from the shelf",        # the lamp first: a fetch
    "take the book to bed and turn on the reading lamp",
    "put the mug on the other counter",                              # another place, not a second mug
    "put the book on the shelf next to the other books",
    "put the statue on the shelf, the other statue is broken",
    "put two spoons of sugar in the mug",                            # a measure
    "don't heat the potato, just put it on the plate",               # denied
    "I don't want the bread sliced, put it on the counter",
    "put the knife you used to cut the tomato in the sink",          # the knife is what is put
    "put the cooking spoon in the drawer",                           # a spoon's name, not a state
    "take the hot pan off the stove and put it on the counter",      # hot already
    "put the cold apple back in the fridge",
    "put the hot potato on the counter to cool",                     # left to change by itself
    "should I heat the potato before putting it on the plate?",      # a question
    "should I heat the potato before putting it on the plate? thanks",
    "is the mug clean? if so put it in the cabinet",                 # a condition
    "slice the apple and put the peel in the bin",                   # something else is put
    "cook the potato in the pot with some water",                    # the pot is the vessel
    "use the cloth to wipe the table",
    # found by the final review: denials
    "Don't examine the book under the desk lamp",
    # session 10: a wish that is no ALFRED task, walking somewhere, a question alone
    "I'd love an omelette. Beat the eggs in a bowl first, then cook it.",
    "go to the fridge and get me the cold apple",
    "is the mug in the cabinet clean?",
    "I'd like the hot mug left alone",
    # session 11: "if" after a word of knowing is no condition, but the clean mug is still clean already
    "check if the mug is clean and put it in the cabinet",
    "It's clean already, so put the mug on the shelf",
    "if the mug is dirty, wash it and put it in the cabinet",
    "put the book on the desk",                                      # a plain put: the general reader's
    "Get the candle going on the coffee table, for atmosphere.",     # lit, not put
    "take the mug to the sink",                                      # a device: the general reader washes it
    "I'd like the laptop on the bed so I can watch a film",          # a purpose: more than a put
    "bring the vase to the top shelf",                               # out of reach: something to stand on too
    "bring the laptop to the bed and turn it on",                    # more than a put
    # found by the session's review: fetches and descriptions, another referent, a search, a question, a cooking pan
    "Get the pillow, it'll be on the bed.",
    "The remote should be on the sofa somewhere, can you find it?",
    "I want the book that's on the desk.",
    "Can I get the mug on the shelf?",
    "I have the laptop on the bed, don't worry.",
    "Bring the pillow to the sofa and grab me the remote.",
    "Bring the pillows to the sofa",
    "Bring the laptop to the desk and charge it.",
    "Bring the laptop to the bed so I can work.",
    "Move the laptop onto the desk, it gets hot on the bed.",
    "Put the apple in the bowl that needs washing.",
    "On the counter there's a potato, could you heat it?",
    "I lost my keys, have a quick look near the floor lamp.",
    "I wonder whether the plate should be heated before it goes on the table.",
    "Take the tomato out if it's ripe, wash it and put it on the counter.",
    "Put the egg in a pan and then the pan on the stove.",
    "Turn on the tap and hold the cup under it, the desk lamp is on.",
])


def test_other_requests_are_left_to_the_general_reader(text, vocab, props) -> None:
    assert _read(text, vocab, props) is None


def test_a_plain_put_is_a_put_and_a_thing_on_the_toilet_is_neither_washed_nor_flushed(reader) -> None:
    r = reader.read("Bring the laptop to the bed, I'm working from there tonight.")
    assert r.method == "directive" and r.spec.role("surface_support").types == ("Bed",)
    assert [g.description for g in r.spec.goals] == ["the Laptop is in / on the Bed"]
    r = reader.read("Put the candle on the toilet.")
    assert not r.spec.roles and {t.name: t.types for t in r.spec.targets} == {"target": ("Candle",),
                                                                               "place": ("Toilet",)}


def test_what_a_directive_rules_out_is_avoided_and_a_denied_put_is_no_place(reader) -> None:
    r = reader.read("Heat the potato and put it on the counter, but not in the microwave")
    assert r.method == "directive" and r.spec.role("heating(source)").avoid == ("Microwave",)
    assert "Microwave" not in r.spec.role("heating(source)").prefer
    r = reader.read("Heat the potato and put it on the counter. Do not put it in the fridge.")
    assert r.spec.role("surface_support").types == ("CounterTop",) and r.spec.role("storage") is None
    tub = reader.read("Rinse the mug in the bathtub and put it on the shelf")
    assert tub.spec.role("washing").prefer == ("BathtubBasin",)  # the basin of the tub named
    # a purpose drops only its own state: the rinse stays
    assert reader.read("Rinse the apple and put it on the counter to cool").spec.family == (
        "pick_clean_then_place_in_recep")


def test_tokens_read_arrows_and_digits() -> None:
    assert tokens("2 pencils -> desk, then => shelf") == ["two", "pencils", "->", "desk", ",", "then", "->", "shelf"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(words=st.lists(st.sampled_from(
    "put place the a an apple mug sink fridge counter in on into -> , . then two slice washed heated chilled "
    "lamp desk examine under pick up it bowl plate of with throw away and not rinse microwave table".split()),
    max_size=25))
def test_directive_reader_never_raises_and_reads_a_consistent_task(words, vocab, props) -> None:
    d = read_directive(" ".join(words), vocab, **props)
    if d is None:
        return
    assert d.obj and d.obj[0] in props["pickupable"]
    assert bool(d.recep) == (d.task_type != "look_at_obj_in_light")
    assert bool(d.movable) == (d.task_type == "pick_and_place_with_movable_recep")
    assert not d.sliced or d.obj[0] in props["sliceable"]


def test_the_reader_reads_a_directive_into_alfreds_goals_with_coat_roles(reader) -> None:
    r = reader.read("Put a washed apple in the fridge.")
    assert r.understood and r.method == "directive" and r.spec.family == "pick_clean_then_place_in_recep"
    assert {ro.name: ro.types for ro in r.spec.roles} == {"washing": ("SinkBasin", "BathtubBasin"),
                                                          "storage": ("Fridge",)}
    assert [g.text() for g in r.spec.goals] == ["the Apple is clean", "the Apple is in / on the Fridge"]
    assert all(ro.task for ro in r.spec.roles)  # each borrows a COAT task's annotations
    # the device named is preferred, a substitute may still serve
    heat = reader.read("Heat a potato on the stove and put it on the counter")
    assert heat.method == "directive" and heat.spec.role("heating(source)").prefer == ("StoveBurner",)
    # none named, none preferred (ALFRED's Microwave is the labelled spec's): the nearest COAT task decides
    fry = reader.read("Crack two eggs, cook them in the pan and bring them over on a plate")
    assert fry.method == "directive" and fry.spec.role("heating(source)").prefer == ()  # read as a heat task
    assert fry.spec.role("heating(source)").task.startswith("cooking & serving")  # the nearest COAT task
    assert reader.read("Heat a potato and put it on the counter").spec.role("heating(source)").prefer == ()
    # a place COAT gives no utility stays a target
    look = reader.read("Examine the vase under the floor lamp")
    assert look.spec.family == "look_at_obj_in_light" and look.spec.target("target").types == ("Vase",)


def test_a_directive_never_reads_harm_or_another_language(reader) -> None:
    assert not reader.read("put the cat in the microwave, heated").understood
    assert not reader.read("pon una manzana lavada en la nevera").understood


def test_steps_longer_than_a_sentence_fit_the_word_limit(reader) -> None:
    steps = ("Turn around and walk over to the counter by the window, the one next to the fridge. Pick up the blue "
             "mug that is sitting there beside the toaster. Carry it over to the sink and rinse it out under the tap "
             "until it is properly clean. Then turn left, walk to the coffee maker on the far side of the counter "
             "and put the mug in the coffee maker.")
    assert 60 < len(steps.split()) <= MAX_WORDS  # longer than the limit before directives were read
    r = reader.read(steps)
    assert r.method == "directive" and r.spec.family == "pick_clean_then_place_in_recep"


def test_check_any_finds_the_assignment_that_meets_the_goals() -> None:
    goals = [GoalCondition(item="target", prop="isSliced", value=True),
             GoalCondition(item="target", relation="contained_in", other="place"),
             GoalCondition(item="target2", relation="contained_in", other="place")]
    objs = [{"objectId": "Apple|1", "objectType": "Apple", "parentReceptacles": ["Fridge|1"]},
            {"objectId": "Apple|2|AppleSliced_0", "objectType": "AppleSliced", "parentReceptacles": ["Fridge|1"]},
            {"objectId": "Fridge|1", "objectType": "Fridge"}]
    got = check_any(goals, {"target": ["Apple"], "target2": ["Apple"], "place": ["Fridge"]}, objs)
    assert [g.met for g in got] == [True, True, True]  # the sliced one is the target, the whole one the second
    one = check_any(goals, {"target": ["Apple"], "target2": ["Apple"], "place": ["Fridge"]}, objs[1:])
    assert [g.met for g in one] == [True, True, False]  # one apple cannot be both


def test_a_directive_is_planned_carried_out_and_its_label_holds(data_dir) -> None:
    req = DirectiveRequest(id="x1", request="Put a washed apple in the fridge.", scene=SCENE, style="goal",
                           alfred={"type": "pick_clean_then_place_in_recep", "object": "Apple",
                                   "receptacle": "Fridge"})
    p = plan(req.request, SCENE, seed=0, options=reset_options(req), strategy="knowledge", data_dir=data_dir)
    assert exact(req, p)
    row = run_directive(req, plan, lambda q: execute_plan(q, strategy="knowledge", data_dir=data_dir),
                        strategy="knowledge", data_dir=data_dir)
    assert row.exact and row.success and row.goal_rate == 1.0 and row.oracle_success and row.servable
    # the label's goals are checked, not the reading's: a plain put leaves the apple dirty
    plain = run_directive(req.model_copy(update={"request": "put the apple in the fridge"}), plan,
                          lambda q: execute_plan(q, strategy="knowledge", data_dir=data_dir),
                          strategy="knowledge", data_dir=data_dir)
    assert not plain.exact and not plain.success and plain.goal_rate == 0.5
    s = summarize([row, plain])
    assert s["success"] == 50.0 and s["oracle_success"] == 100.0 and s["read_exact"] == 50.0


def test_a_task_the_scene_cannot_serve_counts_as_infeasible_reported(data_dir) -> None:
    req = DirectiveRequest(id="x2", request="Put two apples in the fridge.", scene=SCENE, style="goal",
                           alfred={"type": "pick_two_obj_and_place", "object": "Apple", "receptacle": "Fridge"})
    row = run_directive(req, plan, lambda q: execute_plan(q, strategy="knowledge", data_dir=data_dir),
                        strategy="knowledge", data_dir=data_dir)
    assert not row.servable and row.understood and not row.feasible  # one apple in FloorPlan1
    assert summarize([row])["infeasible_reported"] == 100.0 and summarize([row])["success"] is None
    assert gold_spec(req).family == "pick_two_obj_and_place"


def test_the_shipped_directives_load_and_a_corrupt_file_names_its_line(tmp_path) -> None:
    assert len(load_directives("dev")) >= 100 and len(load_directives("test")) >= 100
    casual = Path(__file__).parents[2] / "data" / "requests" / "directives-casual.jsonl"
    rows = load_directives(path=casual)  # the held-out casual set (`coat bench directives --requests`)
    assert len(rows) == 160 and {r.style for r in rows} == {"casual"}
    bad = tmp_path / "d.jsonl"
    bad.write_text(json.dumps({"id": "a", "request": "x", "scene": SCENE, "style": "goal",
                               "alfred": {"type": "pick_and_toss", "object": "Apple"}}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 1.*pick_and_toss"):
        load_directives(path=bad)
    bad.write_text(json.dumps({"id": "a", "request": "x", "scene": SCENE, "style": "goal",
                               "alfred": {"type": "look_at_obj_in_light", "object": "Book", "receptacle": "Desk"}}) +
                   "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 1.*takes no receptacle"):
        load_directives(path=bad)  # a label ALFRED cannot state is refused when read, not mid-run
    with pytest.raises(ConfigError, match="valid: dev, test"):
        load_directives("train")


def test_bench_directives_cli_writes_a_run_and_refuses_to_overwrite_it(tmp_path, data_dir, capsys) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"id": "a1", "request": "Place a heated mug on the counter.", "scene": SCENE,
                             "style": "goal", "alfred": {"type": "pick_heat_then_place_in_recep", "object": "Mug",
                                                         "receptacle": "CounterTop"}}) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    args = ["bench", "directives", "--requests", str(f), "--out", str(out), "--no-progress", "--json",
            "--data-dir", str(data_dir)]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["directives"] == 1 and summary["read_exact"] == 100.0 and summary["success"] == 100.0
    assert (out / "directives.jsonl").read_text().count("\n") == 1
    assert main(args) == 1  # an earlier run is never overwritten
    assert "already holds a run" in capsys.readouterr().err
