"""Learned selectors: deterministic training, the fold split, model files, the ``learned`` strategy.

Every test here uses a tiny fake encoder (hashed vectors) and a few epochs, so nothing loads MiniLM.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from planner.errors import ConfigError, DataError, DataNotFoundError  # noqa: E402
from planner.knowledge import load_knowledge  # noqa: E402
from planner.learned import (  # noqa: E402
    EmbeddingCache,
    FoldedModel,
    LearnedModel,
    combinations,
    fold_split,
    load_learned,
    train_dir,
    train_model,
)
from planner.learned.model import MODEL_FILE, fold_file  # noqa: E402
from planner.learned.train import featurizer  # noqa: E402
from planner.object_selector import ObjectSelector  # noqa: E402
from planner.pipeline import make_pipeline  # noqa: E402
from planner.state_selector import StateSelector  # noqa: E402

TINY = {"hidden": 8, "epochs1": 3, "epochs2": 3}


class HashEncoder:
    """Deterministic 8-d vectors from a text's hash; counts the texts it encoded."""

    model_id = "fake-hash-8"

    def __init__(self) -> None:
        self.encoded = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded += len(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) for t in texts]
        return (np.stack(rows).astype(np.float32) / 255.0) - 0.5


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> Any:
    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def trained(kb: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("learned")
    train_dir(kb, out, seed=0, folds=3, encoder=HashEncoder(), options=TINY, progress=False)
    return out


def _state(model: LearnedModel) -> dict[str, Any]:
    return {k: v.clone() for k, v in model.heads.state_dict().items()}


def test_training_is_deterministic_for_a_seed(kb: Any) -> None:
    feat = featurizer(kb, None, HashEncoder())
    a, b = (_state(train_model(kb, feat, seed=3, options=TINY)) for _ in range(2))
    c = _state(train_model(kb, feat, seed=4, options=TINY))
    assert all(bool((a[k] == b[k]).all()) for k in a)
    assert any(not bool((a[k] == c[k]).all()) for k in a)


def test_fold_split_partitions_and_never_trains_on_held_out(kb: Any) -> None:
    combos = combinations(kb)
    folds = fold_split(combos, 4, seed=0)
    flat = [c for f in folds for c in f]
    assert sorted(flat, key=str) == sorted(combos, key=str) and len(flat) == len(set(flat))
    assert fold_split(combos, 4, seed=0) == folds and fold_split(combos, 4, seed=1) != folds
    feat = featurizer(kb, None, HashEncoder())
    m = train_model(kb, feat, seed=0, held_out=folds[0], fold=0, options=TINY)
    n_objects = len({o for u in kb.utilities for o in kb.utility_objects(u)})
    assert m.manifest["n_suit"] == n_objects * (len(combos) - len(folds[0]))
    assert {tuple(c) for c in m.manifest["held_out"]} == set(folds[0])


def test_train_dir_writes_models_manifest_and_routes_folds(kb: Any, trained: Path) -> None:
    folded = load_learned(kb, trained, held_out=True, encoder=HashEncoder())
    assert isinstance(folded, FoldedModel) and len(folded.models) == 3
    for combo in combinations(kb):
        held = folded.model_for(combo[1], combo[0]).manifest["held_out"]
        assert list(combo) in held
    with pytest.raises(ConfigError, match="no fold holds out"):
        folded.model_for("not a task", "cutting")


def test_model_file_round_trip(kb: Any, trained: Path, tmp_path: Path) -> None:
    m = load_learned(kb, trained, encoder=HashEncoder())
    assert isinstance(m, LearnedModel)
    m.save(tmp_path / "copy.pt")
    again = LearnedModel.load(tmp_path / "copy.pt", m.featurizer)
    objs = ["Knife", "Pillow", "Bowl"]
    assert again.suits("cut cake", "cutting", objs) == m.suits("cut cake", "cutting", objs)
    assert again.manifest == m.manifest


@pytest.mark.parametrize("content", [b"not a torch file", b""])
def test_corrupt_model_file_is_a_clear_error(kb: Any, trained: Path, tmp_path: Path, content: bytes) -> None:
    feat = featurizer(kb, None, HashEncoder())
    bad = tmp_path / "model.pt"
    bad.write_bytes(content)
    with pytest.raises(DataError, match=r"model\.pt.*coat train"):
        LearnedModel.load(bad, feat)


def test_other_version_and_missing_model_are_clear_errors(kb: Any, trained: Path, tmp_path: Path) -> None:
    import torch

    feat = featurizer(kb, None, HashEncoder())
    blob = torch.load(trained / MODEL_FILE, weights_only=True)
    blob["version"] = 999
    torch.save(blob, tmp_path / "old.pt")
    with pytest.raises(DataError, match=r"old\.pt.*format 999.*coat train"):
        LearnedModel.load(tmp_path / "old.pt", feat)
    with pytest.raises(DataNotFoundError, match="coat train"):
        load_learned(kb, tmp_path / "nothing")
    assert (trained / fold_file(2)).is_file()


def test_embedding_cache_persists(tmp_path: Path) -> None:
    enc = HashEncoder()
    cache = EmbeddingCache(enc, tmp_path / "emb.npz")
    first = cache.embed(["cut cake", "a knife", "cut cake"])
    cache.save()
    enc2 = HashEncoder()
    again = EmbeddingCache(enc2, tmp_path / "emb.npz").embed(["a knife", "cut cake"])
    assert enc.encoded == 2 and enc2.encoded == 0
    assert np.array_equal(again, first[[1, 0]])
    (tmp_path / "bad.npz").write_bytes(b"junk")
    with pytest.raises(DataError, match="bad.npz"):
        EmbeddingCache(enc, tmp_path / "bad.npz")


def test_learned_strategy_through_make_pipeline(kb: Any, trained: Path) -> None:
    model = load_learned(kb, trained, encoder=HashEncoder())
    two = make_pipeline("two-stage", "learned", kb=kb, learned=model)
    d = two.select("cut cake", "cutting", ["Knife", "Pillow", "ButterKnife"])
    assert d.strategy == "learned" and d.chosen in d.labels and d.stage1 is not None
    assert d.stage1.method == "learned" and d.stage1.kept and d.model_id == model.model_id
    u, t = "cutting", kb.tasks("cutting")[0]
    configs = [c.config for c in kb.moderate(u, t)[:2]] + list(kb.ideal(u, t)[:1])
    for pipe in (two, make_pipeline("single", "learned", kb=kb, learned=model)):
        d = pipe.select(t, u, configs)
        assert d.chosen in d.labels and d.stage2 is not None and d.stage2.method == "learned"
    with pytest.raises(ConfigError, match="learned="):
        ObjectSelector("learned", kb=kb)
    with pytest.raises(ConfigError, match="learned="):
        StateSelector("learned", kb=kb)


def test_plan_decides_a_free_text_request_with_the_learned_strategy(kb: Any, trained: Path) -> None:
    from planner.api import plan

    model = load_learned(kb, trained, encoder=HashEncoder())
    p = plan("slice the apple for me", llm=None, strategy="learned", interpret="exact", kb=kb, learned=model)
    assert p.feasible and p.bindings["cutting"].split("|")[0] in ("Knife", "ButterKnife")
    assert p.decisions and all(d.model_id == model.model_id for d in p.decisions)
    with pytest.raises(DataNotFoundError, match="coat train"):
        plan("slice the apple", llm=None, strategy="learned", kb=kb, learned=trained / "nowhere")


def test_the_default_directory_is_trained_on_first_use_then_loaded(kb: Any, tmp_path: Path) -> None:
    from planner.learned.first_use import ensure_learned

    enc = HashEncoder()
    first = ensure_learned(kb, tmp_path / "cache", encoder=enc, options=TINY, progress=False)
    trained_texts = enc.encoded
    again = ensure_learned(kb, tmp_path / "cache", encoder=enc, options=TINY, progress=False)
    assert enc.encoded == trained_texts  # loaded, not trained again (its embeddings are cached too)
    assert again.model_id == first.model_id
    (tmp_path / "cache" / MODEL_FILE).write_bytes(b"not a model")
    with pytest.raises(DataError, match="coat train"):  # a corrupt file is never silently retrained
        ensure_learned(kb, tmp_path / "cache", encoder=enc, options=TINY, progress=False)
