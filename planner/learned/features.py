"""Features of the learned selectors: sentence embeddings of texts (cached on disk) and the five variables.

Every text the heads read (the task, the utility's phrase, ``a <object>``) is embedded once by a
:class:`~planner.llm.embedding.EmbeddingCache` (shared with the task reader), which keeps the vectors in
memory and, when given a path, in an ``.npz`` file keyed by the encoder id and the text, so training reruns
and decisions after the first never call the encoder for a known text. An encoder here is anything with
``model_id`` and ``encode(texts) -> array (n, dim)``; :class:`MiniLMVectors` adapts the embedded MiniLM.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..llm.embedding import EmbeddingCache, VectorEncoder
from ..schemas import Condition, InUse, Mass, Material, PhysicalState, Temperature

log = logging.getLogger(__name__)

VARIABLES: tuple[tuple[str, list[str]], ...] = (
    ("mass", Mass.values()),
    ("material", Material.values()),
    ("temperature", Temperature.values()),
    ("already_in_use", InUse.values()),
    ("condition", Condition.values()),
)
STATE_DIM = sum(len(v) for _, v in VARIABLES)
"""Length of :func:`state_vector` (one-hot of each of the five variables)."""


class MiniLMVectors:
    """The embedded all-MiniLM-L6-v2 (normalized embeddings), loaded on first use."""

    def __init__(self) -> None:
        from ..llm.embedding import MINILM_ID

        self.model_id = MINILM_ID
        self._model: Any = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalized embeddings of ``texts``."""
        if self._model is None:
            from ..llm.embedding import default_encoder

            self._model = default_encoder()
        return np.asarray(self._model.embed(list(texts)), dtype=np.float32)


def task_text(task: str | None) -> str:
    """The text embedded for a task (Task-u questions have none)."""
    return task if task else "any task"


def object_text(obj: str) -> str:
    """The text embedded for an object type."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", obj).lower()  # StoveBurner -> stove burner
    return f"a {words}"


def state_vector(state: PhysicalState | None) -> np.ndarray:
    """One-hot of the five variables (all zeros for no state)."""
    out = np.zeros(STATE_DIM, dtype=np.float32)
    if state is None:
        return out
    offset = 0
    for name, values in VARIABLES:
        out[offset + values.index(str(getattr(state, name)))] = 1.0
        offset += len(values)
    return out


__all__ = ["STATE_DIM", "VARIABLES", "EmbeddingCache", "MiniLMVectors", "VectorEncoder", "object_text",
           "state_vector", "task_text"]
