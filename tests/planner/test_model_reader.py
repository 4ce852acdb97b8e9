"""The model reader, offline: its JSON schema, validation, re-asking and counting with scripted fakes, how each kind
of model is told to decode under the schema, the checks of the words, and the issue's bad input through plan()."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from planner._optional import is_available
from planner.api import plan
from planner.bench.understanding import Request, model_figures, sample_requests, score, summarize
from planner.llm import LLMStats
from planner.llm.constrained import decoding_of, invoke_kwargs
from planner.llm.fakes import DeterministicLLM, FakeLLM
from planner.understanding.model_reader import (
    MAX_ROLES,
    ModelReading,
    ask_for_reading,
    named_types,
    nearest_examples,
    read_with_model,
    reading_messages,
    reading_schema,
    role_types,
)
from planner.understanding.request_checks import contradiction, says_what_to_do


def _reply(understood: bool = True, roles: Any = (), targets: Any = (), place: Any = (), states: Any = ()) -> str:
    return json.dumps({"understood": understood, "roles": [{"utility": u, "types": list(t)} for u, t in roles],
                       "targets": list(targets), "place": list(place),
                       "states": [{"thing": t, "state": w} for t, w in states]})


# ---------------------------------------------------------------- the schema


def test_the_schema_is_pydantic_s_with_the_utilities_and_the_named_types_as_enums(kb) -> None:
    schema = reading_schema(kb.utilities, ["Apple", "Knife"])
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    assert schema["required"] == ["understood", "roles", "targets", "place", "states"]
    assert schema["additionalProperties"] is False  # a Contract forbids unknown fields, and so does the grammar
    role = schema["properties"]["roles"]
    assert role["maxItems"] == MAX_ROLES and role["items"]["properties"]["utility"]["enum"] == list(kb.utilities)
    assert role["items"]["properties"]["types"]["items"]["enum"] == ["Apple", "Knife"]
    assert schema["properties"]["targets"]["items"]["enum"] == ["Apple", "Knife"]
    state = schema["properties"]["states"]["items"]
    assert state["required"] == ["thing", "state"] and state["properties"]["thing"]["enum"] == ["Apple", "Knife"]
    assert state["properties"]["state"]["enum"] == ["on", "off", "open", "closed"]
    none = reading_schema(kb.utilities, [])  # a request that names nothing: every list stays empty
    empty = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    assert none["properties"]["targets"] == empty
    assert none["properties"]["roles"]["items"]["properties"]["types"] == empty
    assert none["properties"]["states"]["maxItems"] == 0


@pytest.mark.skipif(not is_available("llama_cpp"), reason="llama-cpp-python (the local-llm extra) is not installed")
def test_llama_cpp_turns_the_schema_into_a_grammar(kb) -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    for names in (["Apple", "Knife", "water"], []):
        gbnf = json_schema_to_gbnf(json.dumps(reading_schema(kb.utilities, names)))
        assert '\\"heating(source)\\"' in gbnf and '\\"understood\\"' in gbnf
        assert "value ::=" not in gbnf  # no part of the reply falls back to free JSON
    assert invoke_kwargs("grammar", reading_schema(kb.utilities, ["Apple"]))["grammar"] is not None


def test_validation_names_what_is_wrong(kb) -> None:
    ctx = {"utilities": list(kb.utilities), "names": ["Apple", "Knife"]}
    ok = ModelReading.model_validate_json(_reply(roles=[("cutting", ["Knife", "Knife"]), ("cutting", [])],
                                                 targets=["Apple"]), context=ctx)
    assert [(r.utility, r.types) for r in ok.roles] == [("cutting", ("Knife",))]  # repeats merged
    cases = [(_reply(roles=[("slicing", [])], targets=["Apple"]), "unknown utility 'slicing'"),
             (_reply(roles=[("cutting", ["Fork"])], targets=["Apple"]), "object type 'Fork' is not one the request"),
             (_reply(roles=[("cutting", [])], targets=["Bread"]), "the target 'Bread' is not one the request names"),
             (_reply(roles=[("cutting", [])]), "names Apple, Knife: say what each is for"),
             (_reply(states=[("Apple", "dim")]), "unknown state 'dim'; valid: on, off, open, closed"),
             (_reply(states=[("Fridge", "closed")]), "the thing 'Fridge' is not one the request names")]
    for raw, why in cases:
        with pytest.raises(ValidationError, match=why.replace("(", r"\(").replace(")", r"\)")):
            ModelReading.model_validate_json(raw, context=ctx)
    assert not ModelReading.model_validate_json('{"understood": false}', context=ctx).understood


def test_a_role_s_types_are_those_coat_knows_objects_of(kb, reader) -> None:
    names = named_types("scrub the shower head with the sponge", reader)
    assert names == ["ShowerHead", "DishSponge"] and role_types(names, reader) == ["DishSponge"]
    schema = reading_schema(kb.utilities, names, role_types(names, reader))
    assert schema["properties"]["roles"]["items"]["properties"]["types"]["items"]["enum"] == ["DishSponge"]
    assert schema["properties"]["targets"]["items"]["enum"] == ["ShowerHead", "DishSponge"]
    ctx = {"utilities": list(kb.utilities), "names": names, "role_types": ["DishSponge"]}
    with pytest.raises(ValidationError, match="object type 'ShowerHead' is not one"):
        ModelReading.model_validate_json(_reply(roles=[("cleaning", ["ShowerHead"])]), context=ctx)
    ok = ModelReading.model_validate_json(_reply(roles=[("cleaning", ["DishSponge"])], targets=["ShowerHead"]),
                                          context=ctx)
    assert ok.targets == ("ShowerHead",)


def test_the_question_shows_the_nearest_worked_examples_and_the_named_types(reader) -> None:
    text = "slice the apple on the counter"
    shown = nearest_examples(text, reader, 3)
    assert len(shown) == 3 and all(request.casefold() != text for request, _ in shown)
    assert all(set(reply) == {"understood", "roles", "targets", "place", "states"} for _, reply in shown)
    msgs = reading_messages(text, reader, named_types(text, reader))
    assert msgs[0].type == "system" and "- cutting:" in msgs[0].content
    assert [m.type for m in msgs[1:]] == ["human", "ai"] * 2 + ["human"]
    assert msgs[-1].content == ("Request: slice the apple on the counter\n"
                                "Object types and liquids it names: Apple, CounterTop")
    assert reading_messages("xyzzy plugh", reader, [])[1].content.startswith("Request: slice the bread")  # none near


# ---------------------------------------------------------------- asking, re-asking, counting


class _Refusing:
    """A backend whose server refuses every constrained request."""

    model_id = "test:refusing"

    def __init__(self) -> None:
        self.stats = LLMStats()

    def structured(self, *a: Any, **k: Any) -> Any:  # pragma: no cover - constrained() is used
        raise AssertionError

    def constrained(self, messages: Any, schema: Any) -> tuple[None, str]:
        self.stats.calls += 1
        return None, "json_object"


def test_an_invalid_reply_is_re_asked_with_the_error_then_counted(kb, reader) -> None:
    text = "cut the apple"
    names = named_types(text, reader)
    ctx = {"utilities": list(kb.utilities), "names": names}
    schema = reading_schema(kb.utilities, names)
    msgs = reading_messages(text, reader, names)
    llm = FakeLLM(["not json", _reply(roles=[("cutting", [])], targets=["Apple"])])
    got, asked, errors = ask_for_reading(llm, msgs, schema, ctx, reasks=1)
    assert got is not None and [r.utility for r in got.roles] == ["cutting"]
    assert (asked.decoding, asked.asked, asked.reasked, asked.failed) == ("prompt", 2, 1, False)
    assert llm.stats.retries == 1 and "neither a JSON object" in llm.requests[1][-1].content and len(errors) == 1
    assert '"enum":["heating(source)"' in llm.requests[0][-1].content  # the schema is in the prompt
    never = FakeLLM(["not json", "not json either"])
    got, asked, errors = ask_for_reading(never, msgs, schema, ctx, reasks=1)
    assert got is None and (asked.asked, asked.reasked, asked.failed) == (2, 1, True) and len(errors) == 2
    once = FakeLLM(["not json"])
    assert ask_for_reading(once, msgs, schema, ctx, reasks=0)[1].asked == 1  # re-asks configured: none
    got, asked, errors = ask_for_reading(_Refusing(), msgs, schema, ctx, reasks=3)  # a refusal is not re-asked
    assert got is None and (asked.decoding, asked.asked, asked.failed) == ("json_object", 1, True)
    assert errors == ["the server refused the request"]


def test_a_failed_reading_is_not_understood_with_the_reason_and_the_counts(reader) -> None:
    r = read_with_model("cut the apple", FakeLLM(["?"] * 2, max_retries=1), reader)
    assert not r.understood and r.spec is None and "gave no valid reading in 2 replies" in r.reason
    assert r.asked is not None and r.asked.failed and r.asked.reasked == 1
    thrice = FakeLLM(["?"] * 3, max_retries=2)
    assert read_with_model("cut the apple", thrice, reader).asked.asked == 3
    assert len(thrice.requests[2]) == len(thrice.requests[1]) == len(thrice.requests[0]) + 2  # only the last reply
    refused = read_with_model("cut the apple", _Refusing(), reader)
    assert not refused.understood and "the server refused the request" in refused.reason
    no_role = read_with_model("cut the apple", FakeLLM([_reply(targets=["Apple"])]), reader)
    assert not no_role.understood and "read no object role" in no_role.reason and not no_role.asked.failed


def test_a_valid_reading_becomes_the_spec_the_offline_reader_would_build(reader) -> None:
    llm = FakeLLM([_reply(roles=[("cutting", ["Knife"])], targets=["Apple"])])
    r = read_with_model("please cut the apple with a knife", llm, reader)
    assert r.understood and r.method == "structured" and r.asked.asked == 1 and r.asked.decoding == "prompt"
    assert [(x.utility, x.types) for x in r.spec.roles] == [("cutting", ("Knife",))]
    assert [t.types for t in r.spec.targets] == [("Apple",)] and r.spec.goals[0].text() == "the Apple is sliced"
    assert r.spec.roles[0].task  # borrows the nearest COAT task's annotations, as the offline reader's roles do
    toast = read_with_model("toast bread", FakeLLM([_reply(roles=[("heating(source)", [])], targets=["Bread"])]),
                            reader)
    assert len(toast.spec.roles) > 1 and all(r.task for r in toast.spec.roles)  # the cutting the spec adds too
    water = read_with_model("water the plants", FakeLLM([_reply(roles=[("carrying", [])],
                                                                targets=["HousePlant", "water"])]), reader)
    assert {t.name: t.liquid for t in water.spec.targets} == {"plant": False, "liquid": True}


@pytest.mark.parametrize(("text", "word", "state"), [
    ("turn off the lamp", "off", ("isToggled", False)), ("close the fridge", "closed", ("isOpen", False)),
    ("open the laptop", "open", ("isOpen", True)), ("switch on the microwave", "on", ("isToggled", True))])
def test_a_thing_set_to_a_state_is_a_switched_target_as_the_offline_reader_reads_it(
        reader, text: str, word: str, state: tuple[str, bool]) -> None:
    thing = named_types(text, reader)[0]
    r = read_with_model(text, FakeLLM([_reply(states=[(thing, word)])]), reader)
    assert r.understood and r.spec.roles == () and [(t.name, t.types) for t in r.spec.targets] == [("switched",
                                                                                                  (thing,))]
    goals = [(g.item, g.prop, g.value) for g in r.spec.goals]
    assert goals == [("switched", *state)] == [(g.item, g.prop, g.value) for g in reader.read(text).spec.goals]


def test_a_state_set_beside_a_role_keeps_the_role_s_target(reader) -> None:
    text = "turn on the tap and wash the mug"  # the tap is switched, the mug washed
    r = read_with_model(text, FakeLLM([_reply(roles=[("washing", [])], targets=["Mug"], states=[("Faucet", "on")])]),
                        reader)
    assert {t.name: t.types for t in r.spec.targets} == {"target": ("Mug",), "switched": ("Faucet",)}
    assert {("target", "isDirty", False), ("switched", "isToggled", True)} <= {(g.item, g.prop, g.value)
                                                                              for g in r.spec.goals}
    tv = read_with_model("turn on the tv", FakeLLM([_reply(roles=[("entertainment", ["Television"])],
                                                           states=[("Television", "on")])]), reader)
    assert [t.name for t in tv.spec.targets] == []  # a screen switched on to be used is its role's object
    assert [(g.item, g.prop, g.value) for g in tv.spec.goals] == [("entertainment", "isToggled", True)]


def test_a_backend_without_constrained_decoding_reads_through_its_structured(reader) -> None:
    r = read_with_model("cut the apple", DeterministicLLM(), reader)  # the simplest valid reply: understood false
    assert not r.understood and "not a household request" in r.reason
    assert r.asked.decoding == "structured" and r.asked.asked == 1 and not r.asked.failed
    with pytest.raises(TypeError, match="model backend"):
        read_with_model("cut the apple", object(), reader)  # type: ignore[arg-type]


def test_constrained_replies_are_cached_with_their_schema(tmp_path, kb) -> None:
    from langchain_core.messages import HumanMessage

    from planner.llm.cache import LLMCache

    llm = FakeLLM(["{}", "{}"], cache=LLMCache(tmp_path / "c.sqlite"))
    q = [HumanMessage("cut the apple")]
    for _ in range(2):
        assert llm.constrained(q, reading_schema(kb.utilities, ["Apple"])) == ("{}", "prompt")
    assert llm.stats.calls == 1 and llm.stats.cache_hits == 1
    llm.constrained(q, reading_schema(kb.utilities, ["Knife"]))  # another schema is another question
    assert llm.stats.calls == 2


# ---------------------------------------------------------------- how each model decodes under the schema


def test_each_kind_of_model_is_told_how_to_decode(kb) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    from planner.llm.local import LlamaCppChatModel

    schema = reading_schema(kb.utilities, ["Apple"])
    assert decoding_of(LlamaCppChatModel(model_path="unused.gguf")) == "grammar"  # nothing is loaded
    assert decoding_of(GenericFakeChatModel(messages=iter(()))) == "prompt" and invoke_kwargs("prompt", schema) == {}
    assert invoke_kwargs("json_object", schema) == {"extra_body": {"response_format": {"type": "json_object",
                                                                                        "schema": schema}}}
    fmt = invoke_kwargs("json_schema", schema)["extra_body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == schema


@pytest.mark.skipif(not is_available("langchain_openai"), reason="langchain-openai (the openai extra) is not installed")
def test_served_and_openai_models_get_the_server_s_structured_output(kb) -> None:
    from planner.llm.served import ServedSpec, served_chat_model

    served = served_chat_model(ServedSpec("http://127.0.0.1:9/v1", "m"))  # a model name: no request is made
    assert decoding_of(served) == "json_object"
    chat_openai = type(served).__mro__[1]
    assert decoding_of(chat_openai(model="m", base_url="http://127.0.0.1:9/v1", api_key="x")) == "json_schema"
    payload = served._get_request_payload([("user", "hi")], **invoke_kwargs("json_object", {"type": "object"}))
    assert payload["extra_body"]["response_format"] == {"type": "json_object", "schema": {"type": "object"}}


# ---------------------------------------------------------------- the words, and the bad input


@pytest.mark.parametrize(("text", "says"), [
    ("the blue mug", False), ("apples", False), ("kitchen table", False), ("cut the apple", True),
    ("toast pls", True), ("coffee please", True), ("lamp on", True), ("it's so dark in here", True),
    ("Put Sam's basketball away in the drawer", True),
])
def test_a_request_says_what_to_do(text, says) -> None:
    assert says_what_to_do(text) is says


@pytest.mark.parametrize(("text", "why"), [
    ("heat the milk and keep it cold", "both 'heat' and 'cold' of the milk"),
    ("turn the light on and keep it off", "both 'on' and 'off' of the light"),
    ("wash the plate but do not wash it", "to wash the plate and not to"),
    ("keep the fridge open and shut it", "both 'open' and 'shut' of the fridge"),
    ("turn off the stove and turn on the light", ""), ("open the fridge, take the milk and close it", ""),
    ("heat up the cold soup", ""), ("boil the water then let it cool", ""), ("cut the apple", ""),
])
def test_a_request_that_contradicts_itself(text, why) -> None:
    assert contradiction(text) == (f"it asks {why}" if why and "not to" in why else
                                   f"it asks for {why}" if why else "")


@pytest.mark.parametrize(("text", "why"), [
    ("couper le gâteau en tranches", "it looks like language 'fr'"),
    ("the blue mug", "does not say what to do (no verb)"),
    ("heat the milk and keep it cold", "contradicts itself"),
    ("cut the cake " * 40, "at most 100 are read"),
])
def test_bad_input_is_not_understood_before_any_model_is_asked(text, why, data_dir) -> None:
    llm = FakeLLM([])  # any call would fail: nothing scripted
    p = plan(text, llm=llm, strategy="knowledge", interpret="model", data_dir=data_dir)
    assert not p.understood and not p.feasible and why in p.reason and not p.decisions and not p.steps
    assert llm.requests == [] and p.reading.asked is None


def test_a_request_naming_what_the_scene_lacks_is_infeasible_with_the_reason(data_dir) -> None:
    llm = FakeLLM([_reply(roles=[("cutting", [])], targets=["Apple"])])
    p = plan("cut the apple", "embedded/bathroom-v0", llm=llm, strategy="knowledge", interpret="model",
             data_dir=data_dir)
    assert p.understood and not p.feasible and "no Apple" in p.reason and not p.steps


def test_a_model_that_ignores_what_the_request_names_never_gives_a_plan(data_dir) -> None:
    llm = FakeLLM([_reply(roles=[("cutting", [])])] * 3)  # the apple is left out every time
    p = plan("cut the apple", llm=llm, strategy="knowledge", interpret="model", data_dir=data_dir)
    assert not p.understood and "names Apple: say what each is for" in p.reason and p.reading.asked.asked == 3


# ---------------------------------------------------------------- the bench counts


def test_the_bench_counts_what_reading_with_a_model_cost(data_dir) -> None:
    req = Request(id="a", request="cut the apple", scene="embedded/kitchen-v0", kind="task", roles=("cutting",),
                  targets=("Apple",), acceptable={"cutting": ("Knife", "ButterKnife")})
    good = plan(req.request, llm=FakeLLM(["?", _reply(roles=[("cutting", [])], targets=["Apple"])]),
                strategy="knowledge", interpret="model", data_dir=data_dir)
    bad = plan(req.request, llm=FakeLLM(["?"] * 3), strategy="knowledge", interpret="model", data_dir=data_dir)
    rule = plan(req.request, strategy="knowledge", data_dir=data_dir)
    rows = [score(req, p, 0.5) for p in (good, bad, rule)]
    assert [(r.asked, r.reasked, r.parse_failed) for r in rows] == [(2, 1, False), (3, 2, True), (0, 0, False)]
    figures = model_figures(rows)
    assert {k: figures[k] for k in ("model_read", "model_replies", "reasked", "parse_failed")} == {
        "model_read": 2, "model_replies": 5, "reasked": 3, "parse_failed": 1}
    assert figures["parse_failed_rate"] == 50.0 and summarize(rows)["parse_failed"] == 1
    assert model_figures(rows[2:])["model_mean_s"] is None


def test_a_limited_run_draws_the_same_rows_whatever_reads_them() -> None:
    reqs = [Request(id=str(i), request="cut the apple", scene="embedded/kitchen-v0", kind="nonsense")
            for i in range(20)]
    a, b = sample_requests(reqs, 5, seed=3), sample_requests(reqs, 5, seed=3)
    assert [r.id for r in a] == [r.id for r in b] and len(a) == 5
    assert [int(r.id) for r in a] == sorted(int(r.id) for r in a)  # in file order
    assert sample_requests(reqs, 0) == reqs and sample_requests(reqs, 50) == reqs
