"""Stage 1's shipped reference spreads: used only when computed from the same calls and model, else computed."""

from __future__ import annotations

import json
import logging
import statistics
from collections.abc import Sequence
from typing import Any

import pytest

from planner import reference_spreads
from planner.errors import DataError
from planner.llm import DeterministicLLM
from planner.object_selector import ObjectSelector

LOCAL_MODELS = ("local:smollm2", "local:gemma-270m")


@pytest.fixture(scope="module")
def kb(data_dir: Any) -> Any:
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


class ScoresLike:
    """A scoring model under an embedded model's id: the shipped probe score for a probe's call (or ``off`` away
    from it), another number for every other call; every call recorded."""

    supports_scoring = True

    def __init__(self, model_id: str, probes: dict[tuple[str, str], float], off: float = 0.0) -> None:
        self.model_id, self.probes, self.off = model_id, probes, off
        self.calls: list[tuple[str, str]] = []

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        self.calls.append((prompt, options[0]))
        if (prompt, options[0]) in self.probes:
            return [self.probes[prompt, options[0]] + self.off]
        return [len(prompt) / 10.0 + len(options[0]) / 100.0 for _ in options]


@pytest.fixture(scope="module")
def probes(kb: Any) -> dict[tuple[str, str], float]:
    """The shipped probe scores of SmolLM2 by call (the first reference object's prompt, the utility's phrase)."""
    sel = ObjectSelector("llm", DeterministicLLM(), kb)
    out = {}
    for u in kb.utilities:
        prompt, options, _ = sel.utility_requests(u, sel.reference_objects[:1])[0]
        out[prompt, options[0]] = reference_spreads.shipped()["local:smollm2", "utility", u]["probe"]["score"]
    return out


def test_every_utility_of_both_embedded_models_is_shipped_for_the_current_prompts(kb: Any) -> None:
    # a stage-1 prompt, a utility phrase or the object vocabulary changed: rerun scripts/reference_spreads.py
    sel = ObjectSelector("llm", DeterministicLLM(), kb)
    refs = list(sel.reference_objects)
    shipped = reference_spreads.shipped()
    for model_id in LOCAL_MODELS:
        for u in kb.utilities:
            e = shipped.get((model_id, "utility", u))
            assert e is not None, f"no shipped spread for {model_id} / {u}: run scripts/reference_spreads.py"
            assert e["prompts"] == reference_spreads.requests_hash(sel.utility_requests(u, refs)), (
                f"{model_id} / {u} was computed from other prompts: run scripts/reference_spreads.py")
            assert e["spread"] > 0 and e["probe"]["prompt"] == sel.utility_requests(u, refs[:1])[0][0]


def test_a_shipped_spread_costs_one_probe_call_instead_of_a_hundred(kb: Any, probes: Any) -> None:
    u = "cutting"
    llm = ScoresLike("local:smollm2", probes)
    sel = ObjectSelector("llm", llm, kb, signals=("utility",))  # type: ignore[arg-type]
    spread = sel.calibrate(None, u)["utility"]
    assert spread == reference_spreads.shipped()["local:smollm2", "utility", u]["spread"] and len(llm.calls) == 1
    assert sel.calibrate("cut cake", u)["utility"] == spread and len(llm.calls) == 1  # per utility, kept
    # off: every reference object is scored, and the spread is theirs
    off = ScoresLike("local:smollm2", probes)
    sel = ObjectSelector("llm", off, kb, signals=("utility",))  # type: ignore[arg-type]
    sel.shipped_spreads = False
    computed = sel.calibrate(None, u)["utility"]
    assert len(off.calls) == len(sel.reference_objects) == 100
    assert computed == statistics.pstdev(off.score(p, [o])[0] for p, o in off.calls[:100])


def test_another_model_other_prompts_or_other_numbers_compute_the_spread(kb: Any, probes: Any, caplog: Any) -> None:
    u = "cutting"
    sel = ObjectSelector("llm", DeterministicLLM(), kb)
    refs = list(sel.reference_objects)
    requests = sel.utility_requests(u, refs)
    entry = reference_spreads.shipped()["local:smollm2", "utility", u]
    ok = ScoresLike("local:smollm2", probes)
    assert reference_spreads.shipped_spread(ok, u, requests) == entry["spread"]
    assert reference_spreads.shipped_spread(ScoresLike("fake:other", {}), u, requests) is None  # nothing shipped
    fewer = ScoresLike("local:smollm2", probes)
    assert reference_spreads.shipped_spread(fewer, u, requests[:-1]) is None and not fewer.calls  # other objects
    with caplog.at_level(logging.WARNING, logger="planner.reference_spreads"):
        drift = ScoresLike("local:smollm2", probes, off=0.05)  # another model file or build
        assert reference_spreads.shipped_spread(drift, u, requests) is None and len(drift.calls) == 1
    assert "another model file or llama.cpp build" in caplog.text
    close = ScoresLike("local:smollm2", probes, off=0.001)  # the same model, other rounding
    assert reference_spreads.shipped_spread(close, u, requests) == entry["spread"]


def test_a_broken_spreads_file_is_a_data_error_naming_the_entry() -> None:
    good = {"model_id": "local:x", "signal": "utility", "utility": "cutting", "prompts": "ab", "spread": 1.5,
            "probe": {"prompt": "A knife is", "score": -1.25}}
    assert reference_spreads.parse(json.dumps({"format": 1, "spreads": [good]}))["local:x", "utility", "cutting"]
    for bad, where in (("{", "<root>"), (json.dumps({"format": 2, "spreads": []}), "format"),
                       (json.dumps({"format": 1, "spreads": [{**good, "spread": 0.0}]}), "spreads/0"),
                       (json.dumps({"format": 1, "spreads": [good, {**good, "probe": {}}]}), "spreads/1")):
        with pytest.raises(DataError, match=where):
            reference_spreads.parse(bad)
    with pytest.raises(ValueError, match="one value per request"):
        reference_spreads.entry("local:x", "cutting", [("p", ["o"], "n")], [1.0, 2.0])


@pytest.mark.llm_live  # runs the embedded SmolLM2 (about 12 s)
def test_the_shipped_spread_is_what_the_model_computes(kb: Any) -> None:
    from planner.llm import make_llm

    llm = make_llm("local:smollm2", cache=False)
    sel = ObjectSelector("llm", llm, kb, signals=("utility",))
    sel.shipped_spreads = False
    computed = sel.calibrate(None, "cutting")["utility"]
    shipped = reference_spreads.shipped()["local:smollm2", "utility", "cutting"]["spread"]
    assert computed == pytest.approx(shipped, abs=1e-3)
