"""Features of the learned selectors: sentence embeddings of texts (cached on disk) and the five variables.

Every text the heads read (the task, the utility's phrase, ``a <object>``) is embedded once by a
:class:`EmbeddingCache`, which keeps the vectors in memory and, when given a path, in an ``.npz`` file keyed
by the encoder id and the text, so training reruns and decisions after the first never call the encoder
for a known text. An encoder here is anything with ``model_id`` and ``encode(texts) -> array (n, dim)``;
:class:`MiniLMVectors` adapts the embedded MiniLM.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import DataError
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


@runtime_checkable
class VectorEncoder(Protocol):
    """Texts -> one embedding row per text."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Array of shape (len(texts), dim)."""
        ...


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

            self._model = default_encoder().model
        return np.asarray(self._model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False),
                          dtype=np.float32)


def _key(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\n{text}".encode()).hexdigest()[:32]


class EmbeddingCache:
    """Embeddings by text, computed once per (encoder id, text); persisted to ``path`` (npz) when given.

    Raises:
        DataError: ``path`` exists but is not a readable cache (the message says to delete it).
    """

    def __init__(self, encoder: VectorEncoder, path: str | os.PathLike[str] | None = None) -> None:
        self.encoder = encoder
        self.path = Path(path) if path is not None else None
        self._vecs: dict[str, np.ndarray] = {}
        self._dirty = False
        if self.path is not None and self.path.exists():
            try:
                with np.load(self.path) as z:
                    self._vecs = {k: z[k] for k in z.files}
            except (OSError, ValueError, zipfile.BadZipFile) as e:
                raise DataError(self.path, "", f"not a readable embedding cache ({e}); delete it to rebuild") from e

    @property
    def model_id(self) -> str:
        """The encoder's id (part of every cache key)."""
        return self.encoder.model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts`` in order; unknown texts are encoded in one batch."""
        keys = [_key(self.model_id, t) for t in texts]
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self._vecs))
        if missing:
            rows = self.encoder.encode(missing)
            for t, row in zip(missing, rows, strict=True):
                self._vecs[_key(self.model_id, t)] = np.asarray(row, dtype=np.float32)
            self._dirty = True
        return np.stack([self._vecs[k] for k in keys])

    def save(self) -> None:
        """Write the cache to ``path`` (atomically) if anything was added."""
        if self.path is None or not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, **self._vecs)
        os.replace(tmp, self.path)
        self._dirty = False


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
