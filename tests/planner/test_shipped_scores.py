"""The embedded models' shipped log-likelihoods (planner/llm/scores/): used for the model file and prompt they were
computed with, computed (the same number) for anything else, and a corrupt table named with its key.

The default run needs no model: a stand-in llama (bytes as tokens, no chat template) and a stand-in computation
show what :meth:`LlamaCppChatModel.score_options` reads from where. The tests marked ``llm_live`` load SmolLM2 and
check that the shipped numbers are the ones computed here, to the last digit.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from planner.errors import DataError
from planner.llm import DeterministicLLM
from planner.llm import local as local_llm
from planner.llm import shipped_scores as ss

ROOT = Path(__file__).resolve().parents[2]


class TokenLlama:
    """What score_options needs of a llama.cpp model: a tokenizer (one token per byte) and no chat template."""

    metadata: dict[str, str] = {}

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return ([1] if add_bos else []) + list(text)


def computed(prefix: Sequence[int], option: str) -> float:
    """The stand-in model's log-likelihood of ``option`` after the prompt tokens ``prefix``."""
    return -(len(option) + 0.01 * (sum(prefix) % 97)) / 10


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A LlamaCppChatModel over the stand-in llama; ``model.computed`` lists every (prompt tokens, option) computed."""
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF tiny model")
    shared = local_llm._Shared(TokenLlama())
    m = local_llm.LlamaCppChatModel(model_path=str(gguf), model_name="tiny")
    calls: list[tuple[tuple[int, ...], str]] = []

    def logprobs(self: Any, sh: Any, prefix: list[int], options: Sequence[str]) -> list[float]:
        calls.extend((tuple(prefix), o) for o in options)
        return [computed(prefix, o) for o in options]

    monkeypatch.setattr(local_llm.LlamaCppChatModel, "_shared", lambda self: shared)
    monkeypatch.setattr(local_llm.LlamaCppChatModel, "_logprobs", logprobs)
    monkeypatch.setattr(ss, "DIRECTORY", tmp_path / "scores")
    m.__dict__["computed"] = calls
    return m


def tokens(m: Any, prompt: str) -> tuple[int, ...]:
    return tuple(TokenLlama().tokenize(m.format_prompt(prompt).encode(), add_bos=True))


def ship(m: Any, entries: dict[str, dict[str, float]], **change: Any) -> Path:
    """Write the stand-in model's table: ``entries[user message][option] = logL`` (keys as the model reads them)."""
    scores = {m.format_prompt(p): {m._option_text(o): v for o, v in opts.items()} for p, opts in entries.items()}
    text = ss.dumps(m.model_path, local_llm.CHUNK, scores, "test")
    data = {**json.loads(text), **change}
    path = ss.table_path("tiny")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def truth(m: Any, prompt: str, neutral: str, options: Sequence[str]) -> list[float]:
    return [computed(tokens(m, prompt), " " + o) - computed(tokens(m, neutral), " " + o) for o in options]


def test_the_shipped_neutral_scores_are_read_not_computed(model: Any) -> None:
    neutral = "It is"
    ship(model, {neutral: {o: computed(tokens(model, neutral), " " + o) for o in ("knife", "pillow")}})
    got = model.score_options("Cut bread with a", ["knife", "pillow"], neutral_prompt=neutral)
    assert got == truth(model, "Cut bread with a", neutral, ["knife", "pillow"])
    computed_prefixes = {p for p, _ in model.computed}
    # the question's prompt, and the probe entry (once per loaded model): never the neutral prompt's options
    assert tokens(model, "Cut bread with a") in computed_prefixes
    assert [o for p, o in model.computed if p == tokens(model, neutral)] == [" knife"]  # the probe: the shortest
    model.computed.clear()
    model.score_options("Spread butter with a", ["pillow", "knife"], neutral_prompt=neutral)
    assert {p for p, _ in model.computed} == {tokens(model, "Spread butter with a")}


def test_a_text_not_shipped_is_computed_and_gives_the_same_number(model: Any) -> None:
    neutral = "It is"
    ship(model, {neutral: {"knife": computed(tokens(model, neutral), " knife")}})
    got = model.score_options("Cut bread with a", ["knife", "bread knife"], neutral_prompt=neutral)
    assert got == truth(model, "Cut bread with a", neutral, ["knife", "bread knife"])
    assert (tokens(model, neutral), " bread knife") in model.computed


def test_a_question_asked_again_after_the_same_prompt_is_not_computed_again(model: Any) -> None:
    # an ablation: two-stage's stage 2 scores some of the single prompt's options after the same prompt
    first = model.score_options("Cut bread with a", ["knife", "pillow", "towel"], neutral_prompt="It is")
    model.computed.clear()
    again = model.score_options("Cut bread with a", ["towel", "knife"], neutral_prompt="It is")
    assert model.computed == [] and again == [first[2], first[0]]


def test_another_model_file_is_refused(model: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    neutral = "It is"
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF another model")
    ship(model, {neutral: {"knife": -99.0}}, model={"file": other.name, "size": model_size(model),
                                                  "sha256": ss.file_sha256(other)})
    with caplog.at_level(logging.WARNING, logger="planner.llm.local"):
        got = model.score_options("Cut bread with a", ["knife"], neutral_prompt=neutral)
    assert got == truth(model, "Cut bread with a", neutral, ["knife"])  # -99 was not used
    assert "other.gguf" in caplog.text and "not using the shipped scores" in caplog.text


def model_size(m: Any) -> int:
    return Path(m.model_path).stat().st_size


def test_another_chunk_size_or_a_probe_that_differs_is_refused(model: Any, caplog: pytest.LogCaptureFixture) -> None:
    neutral = "It is"
    ship(model, {neutral: {"knife": -99.0}}, chunk=local_llm.CHUNK * 2)
    with caplog.at_level(logging.WARNING, logger="planner.llm.local"):
        assert model.score_options("Cut", ["knife"], neutral_prompt=neutral) == truth(model, "Cut", neutral, ["knife"])
    assert f"chunks of {local_llm.CHUNK * 2} tokens" in caplog.text

    model._shared().table_checked = False  # as a fresh load of the model would
    ship(model, {neutral: {"knife": -99.0}})  # the right file, but the probe scores otherwise here
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="planner.llm.local"):
        assert model.score_options("Cut", ["knife"], neutral_prompt=neutral) == truth(model, "Cut", neutral, ["knife"])
    assert "another llama.cpp build" in caplog.text


def test_another_template_or_wording_finds_no_entry(model: Any) -> None:
    # keys are the prompt as the model reads it: a table made under another template or wording has no such key
    ship(model, {"It is:": {"knife": -99.0, "a": computed(tokens(model, "It is:"), " a")}})
    assert model.score_options("Cut", ["knife"], neutral_prompt="It is") == truth(model, "Cut", "It is", ["knife"])


def test_shipped_scores_off_computes_everything(model: Any) -> None:
    ship(model, {"It is": {"knife": -99.0}})
    model.shipped_scores = False
    assert model.score_options("Cut", ["knife"], neutral_prompt="It is") == truth(model, "Cut", "It is", ["knife"])


@pytest.mark.parametrize(("change", "key"), [
    ({"scores": {"<s>It is\nAnswer:": {" knife": "x"}}}, "scores/0/ knife"),
    ({"scores": {"<s>It is\nAnswer:": {" knife": 1.5}}}, "scores/0/ knife"),
    ({"scores": {"<s>It is\nAnswer:": []}}, "scores/0"),
    ({"format": 99}, "format"),
    ({"model": {"file": "tiny.gguf"}}, "model"),
    ({"chunk": 0}, "chunk"),
])
def test_a_corrupt_table_raises_naming_the_file_and_the_key(model: Any, change: dict[str, Any], key: str) -> None:
    path = ship(model, {"It is": {"knife": -1.0}}, **change)
    with pytest.raises(DataError) as e:
        model.score_options("Cut", ["knife"], neutral_prompt="It is")
    assert e.value.path == str(path) and e.value.key == key and str(path) in str(e.value)


def test_a_table_that_is_not_json_names_the_file(model: Any) -> None:
    path = ship(model, {"It is": {"knife": -1.0}})
    path.write_text('{"format": 1, "scores": {', encoding="utf-8")
    with pytest.raises(DataError, match="not JSON") as e:
        model.score_options("Cut", ["knife"], neutral_prompt="It is")
    assert e.value.path == str(path)


# ---------------------------------------------------------------- the shipped tables cover what the pipelines ask


def generator() -> Any:
    spec = importlib.util.spec_from_file_location("shipped_scores_script", ROOT / "scripts" / "shipped_scores.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Recording(DeterministicLLM):
    """The fake model, remembering every score request."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, list[str], str | None]] = []

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        self.asked.append((prompt, list(options), neutral_prompt))
        return super().score(prompt, options, neutral_prompt=neutral_prompt)


class Words:
    model_id = "words"

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        q = set(query.lower().split())
        return [len(q & set(t.lower().split())) / (1 + len(t)) for t in texts]


def test_the_generator_covers_every_fixed_prompt_the_pipelines_score(data_dir: Any) -> None:
    from planner.bench.evaluate import load_set, sample_questions
    from planner.knowledge import load_knowledge
    from planner.pipeline import make_pipeline
    from planner.schemas import QUESTION_SETS

    kb = load_knowledge(data_dir)
    wanted = generator().requests(kb)
    llm = Recording()
    pipes = [make_pipeline("single", "llm", llm, kb), make_pipeline("two-stage", "llm", llm, kb, encoder=Words())]
    for name in QUESTION_SETS:
        for q in sample_questions(load_set(kb, name, seed=0, lazy=True), 12, 0):
            for p in pipes:
                p.decide(q)
    assert llm.asked
    for prompt, options, neutral in llm.asked:
        assert neutral is not None and set(options) <= wanted[neutral], (neutral, options)
        if prompt in wanted:  # stage 1's utility prompts do not depend on the question
            assert set(options) <= wanted[prompt], (prompt, options)
    assert any(p in wanted for p, _, _ in llm.asked)


@pytest.mark.parametrize("name", ["smollm2", "gemma-270m"])
def test_the_shipped_tables_hold_what_the_generator_asks_now(data_dir: Any, name: str) -> None:
    # a prompt, a description or the COAT data changed: rerun scripts/shipped_scores.py (else those are computed)
    from planner.knowledge import load_knowledge

    wanted = generator().requests(load_knowledge(data_dir))
    table = ss.load(ss.table_path(name))
    assert sum(len(v) for v in table.scores.values()) == sum(len(v) for v in wanted.values())
    for message, options in wanted.items():
        keys = [k for k in table.scores if message in k]
        assert keys, f"{name}: no prompt holds {message!r}"
        key = min(keys, key=len)  # "It is" is inside "An apple is"'s rendering too: the shortest is its own
        assert {o.strip() for o in table.scores[key]} == options, message


# ---------------------------------------------------------------- with the real model


@pytest.mark.llm_live  # loads a real model
def test_smollm2_shipped_numbers_are_the_computed_ones(data_dir: Any) -> None:
    pytest.importorskip("llama_cpp")
    from planner import prompting
    from planner.knowledge import load_knowledge

    m = local_llm.LlamaCppChatModel.from_name("smollm2", shipped_scores=False)
    table = ss.load(ss.table_path("smollm2"))
    assert table.mismatch(m.model_path, local_llm.CHUNK) == ""
    kb = load_knowledge(data_dir)
    neutral = prompting.neutral_prompt("option")
    texts = [prompting.describe_state(c.object, c.state) for c in kb.configurations[:: len(kb.configurations) // 6]]
    shipped = [table.get(m.format_prompt(neutral), m._option_text(t)) for t in texts]
    assert shipped == m.option_logprobs(neutral, texts)  # the same number, to the last digit
    on = local_llm.LlamaCppChatModel.from_name("smollm2")
    q = "A household robot is doing the task \"cut bread\". It needs a tool to cut.\nThe best object for it is a"
    with_table = on.score_options(q, texts, neutral_prompt=neutral)
    m._shared().memo.clear()  # both instances share the loaded model and its memo
    assert with_table == m.score_options(q, texts, neutral_prompt=neutral)
