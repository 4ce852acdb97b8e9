"""The LLM boundary: retry contract, tolerant parsing, scoring contract, spec parsing, fakes, cache use."""

from __future__ import annotations

import socket
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from planner.errors import ConfigError, SelectionError
from planner.llm import (
    SPEC_FORMS,
    DeterministicLLM,
    FakeLLM,
    HumanMessage,
    LangChainBackend,
    LLMBackend,
    ModelUnavailableError,
    make_llm,
    parse_reply,
)
from planner.llm.cache import LLMCache
from planner.schemas import ObjectChoice

CTX = {"candidate_ids": ["knife_1", "pillow_2", "scissors_3"]}
Q = [HumanMessage("Which object is best to cut a cake? Candidates: knife_1, pillow_2, scissors_3")]


class Letter(BaseModel):
    letter: Literal["A", "B", "C"]


# ---------------------------------------------------------------- retry contract


def test_bad_reply_is_reasked_with_the_validation_error_then_succeeds() -> None:
    llm = FakeLLM(['{"object_id": "cake_knife"}', '{"object_id": "knife_1", "rationale": "sharp"}'])
    choice = llm.structured(Q, ObjectChoice, context=CTX)
    assert choice == ObjectChoice(object_id="knife_1", rationale="sharp")
    assert len(llm.requests) == 2
    reask = llm.requests[1]
    # the second request is the first conversation + the bad reply + the error naming the candidates
    assert reask[-2].content == '{"object_id": "cake_knife"}'
    assert "'cake_knife' is not one of the candidates" in reask[-1].content
    assert "knife_1" in reask[-1].content
    assert llm.stats.calls == 2 and llm.stats.retries == 1


def test_every_reply_invalid_raises_selection_error_with_last_raw() -> None:
    llm = FakeLLM(["no idea", '{"object_id": "spoon"}', '{"wrong": 1}'], max_retries=2)
    with pytest.raises(SelectionError) as ei:
        llm.structured(Q, ObjectChoice, context=CTX)
    err = ei.value
    assert err.attempts == 3
    assert err.last_raw == '{"wrong": 1}'
    assert len(err.errors) == 3
    assert "object_id" in err.errors[-1]
    assert len(llm.requests) == 3  # no extra call, no silent guess


def test_max_retries_zero_means_one_attempt() -> None:
    llm = FakeLLM(['{"object_id": "spoon"}'], max_retries=0)
    with pytest.raises(SelectionError) as ei:
        llm.structured(Q, ObjectChoice, context=CTX)
    assert ei.value.attempts == 1


def test_text_mode_puts_the_json_schema_in_the_prompt() -> None:
    llm = FakeLLM(['{"object_id": "knife_1"}'])
    llm.structured(Q, ObjectChoice, context=CTX)
    sent = llm.requests[0][-1].content
    assert sent.startswith(Q[0].content)
    assert '"object_id"' in sent and "JSON schema" in sent


# ---------------------------------------------------------------- tolerant parsing


@pytest.mark.parametrize(
    "raw",
    [
        '{"object_id": "knife_1"}',
        'Sure! ```json\n{"object_id": "knife_1", "rationale": "cuts"}\n```',
        'The answer is {"object_id": "knife_1"} because it is sharp.',
        "knife_1",
        "Answer: knife_1.",
        "I would use knife_1 since it is sharp.",
    ],
)
def test_parse_reply_tolerates_prose_and_fences(raw: str) -> None:
    assert parse_reply(raw, ObjectChoice, CTX).object_id == "knife_1"


def test_parse_reply_letters() -> None:
    assert parse_reply("B", Letter).letter == "B"
    assert parse_reply("Answer: C", Letter).letter == "C"
    assert parse_reply('{"letter": "A"}', Letter).letter == "A"


@pytest.mark.parametrize("raw", ["", "I cannot decide between knife_1 and scissors_3", "a spoon would do"])
def test_parse_reply_rejects_ambiguous_or_empty(raw: str) -> None:
    with pytest.raises(ValueError):  # ValidationError is a ValueError too
        parse_reply(raw, ObjectChoice, CTX)


# ---------------------------------------------------------------- scoring contract


def test_scoring_only_when_the_model_can() -> None:
    llm = FakeLLM([])
    assert not llm.supports_scoring
    with pytest.raises(NotImplementedError, match="cannot score"):
        llm.score("cut a cake", ["Knife", "Pillow"])
    scoring = FakeLLM([], scores=[[-1.0, -5.0]])
    assert scoring.supports_scoring
    assert scoring.score("cut a cake", ["Knife", "Pillow"], neutral_prompt="") == [-1.0, -5.0]
    assert scoring.score_requests == [("cut a cake", ["Knife", "Pillow"], "")]


@pytest.mark.parametrize("options", [[], ["Knife", "Knife"]])
def test_score_rejects_empty_or_duplicate_options(options: list[str]) -> None:
    with pytest.raises(ConfigError):
        FakeLLM([], scores=[[0.0]]).score("q", options)
    with pytest.raises(ConfigError):
        DeterministicLLM().score("q", options)


# ---------------------------------------------------------------- cache use by the adapter


def test_adapter_caches_replies_and_scores(tmp_path) -> None:
    cache = LLMCache(tmp_path / "c.sqlite")
    first = FakeLLM(['{"object_id": "knife_1"}'], scores=[[0.5, 0.1]], cache=cache)
    assert first.structured(Q, ObjectChoice, context=CTX).object_id == "knife_1"
    assert first.score("p", ["a", "b"]) == [0.5, 0.1]
    # a second backend with an empty script would fail on any real call: everything comes from the cache
    second = FakeLLM([], scores=[], cache=cache)
    assert second.structured(Q, ObjectChoice, context=CTX).object_id == "knife_1"
    assert second.score("p", ["a", "b"]) == [0.5, 0.1]
    assert second.stats.calls == 0 and second.stats.cache_hits == 2
    # a different question misses
    with pytest.raises(RuntimeError, match="ran out of scripted replies"):
        second.structured([HumanMessage("another question")], ObjectChoice)


# ---------------------------------------------------------------- the deterministic `fake` spec


def test_fake_spec_is_deterministic_and_documented() -> None:
    llm = make_llm("fake")
    assert isinstance(llm, LLMBackend)
    assert llm.structured(Q, ObjectChoice, context=CTX).object_id == "knife_1"  # first candidate
    assert llm.structured(Q, Letter).letter == "A"  # first allowed value
    scores = llm.score("Find a knife to cut the cake", ["Pillow", "Knife", "Cake knife"])
    assert scores.index(max(scores)) == 2  # most shared words
    assert llm.score("x", ["a", "b"]) == [0.0, -0.001]  # ties: earlier option wins


# ---------------------------------------------------------------- make_llm


@pytest.mark.parametrize("spec", ["", "gpt-4", "openai", "openai:", "ollama:", "local:llama-70b", "hf:x"])
def test_unknown_spec_lists_valid_forms(spec: str) -> None:
    with pytest.raises(ConfigError) as ei:
        make_llm(spec, cache=False)
    for form in ("local", "openai:<model>", "ollama:<model>"):
        assert form in str(ei.value)


def test_spec_forms_documented() -> None:
    assert {"local", "local:gemma-270m", "openai:<model>", "ollama:<model>", "fake"} <= set(SPEC_FORMS)


def test_openai_spec_builds_langchain_backend(tmp_path) -> None:
    llm = make_llm("openai:my-model", base_url="http://127.0.0.1:9/v1", cache_path=tmp_path / "c.sqlite")
    assert isinstance(llm, LangChainBackend)
    assert llm.model_id == "openai:my-model"
    assert llm.use_tools  # ChatOpenAI supports tool calling
    assert not llm.supports_scoring
    assert llm.cache is not None and llm.cache.path == tmp_path / "c.sqlite"
    assert make_llm("openai:m", base_url="http://x/v1", cache=False).cache is None


def test_cache_path_from_env(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COAT_LLM_CACHE", str(tmp_path / "env.sqlite"))
    llm = make_llm("openai:m", base_url="http://127.0.0.1:9/v1")
    assert llm.cache is not None and llm.cache.path == tmp_path / "env.sqlite"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_server_down_is_a_clear_error_quickly_and_cache_intact(kind: str, tmp_path) -> None:
    url = f"http://127.0.0.1:{_free_port()}" + ("/v1" if kind == "openai" else "")
    cache = LLMCache(tmp_path / "c.sqlite")
    key = LLMCache.make_key("x", "generate", "q")
    cache.put(key, {"text": "kept"}, model_id="x", method="generate")
    llm = make_llm(f"{kind}:m", base_url=url, cache=cache, timeout=3)
    t0 = time.perf_counter()
    with pytest.raises(ModelUnavailableError) as ei:
        llm.structured(Q, ObjectChoice, context=CTX)
    assert time.perf_counter() - t0 < 10
    assert url in str(ei.value)
    assert cache.get(key) == {"text": "kept"} and len(cache) == 1


def test_silent_server_times_out_with_a_clear_error() -> None:
    # A socket that accepts connections but never answers: the request must time out, not hang.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        url = f"http://127.0.0.1:{srv.getsockname()[1]}/v1"
        llm = make_llm("openai:m", base_url=url, cache=False, timeout=1)
        t0 = time.perf_counter()
        with pytest.raises(ModelUnavailableError, match="127.0.0.1"):
            llm.structured(Q, ObjectChoice, context=CTX)
        assert time.perf_counter() - t0 < 15
