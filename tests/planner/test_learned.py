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
from planner.learned.data import make_folds, object_split, training_examples, vocabulary  # noqa: E402
from planner.learned.model import MODEL_FILE, fold_file, options_tag  # noqa: E402
from planner.learned.train import featurizer, resolve_options  # noqa: E402
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


# ---------------------------------------------------------------- the whole-object split


def _question(kb: Any, utility: str, task: str, answer_obj: str, other: str) -> Any:
    from planner.schemas import Option, Question

    opts = (Option(letter="A", object=other, pool="random"), Option(letter="B", object=answer_obj, pool="context"))
    return Question(id="q-test", set="task0", variation=1, utility=utility, task=task, text="?", options=opts,
                    answer="B")


def test_object_split_is_deterministic_and_covers_every_object_once(kb: Any) -> None:
    objs = vocabulary(kb)
    folds = make_folds(kb, "objects", 5, seed=0)
    flat = [o for f in folds for o in f]
    assert sorted(flat) == objs and len(flat) == len(set(flat)) == len(objs)
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    assert make_folds(kb, "objects", 5, seed=0) == folds == object_split(list(reversed(objs)), 5, seed=0)
    assert make_folds(kb, "objects", 5, seed=1) != folds
    assert make_folds(kb, "combinations", 5, seed=0) == fold_split(combinations(kb), 5, seed=0)
    with pytest.raises(ConfigError, match=r"'pairs'.*combinations, objects"):
        make_folds(kb, "pairs", 5, seed=0)
    with pytest.raises(ConfigError, match=r"1 to 100 .*object types.*101"):
        object_split(objs, 101, seed=0)


def test_object_fold_training_data_holds_none_of_its_objects(kb: Any) -> None:
    everything = training_examples(kb)
    for held in make_folds(kb, "objects", 5, seed=0):
        suit, ranked = training_examples(kb, held_out_objects=held)
        assert suit and ranked
        assert not {e.obj for e in suit} & set(held) and not {e.obj for e in ranked} & set(held)
        # everything else stays: every combination, every other object's rows and configurations
        assert len(suit) == sum(e.obj not in held for e in everything[0])
        assert len(ranked) == sum(e.obj not in held for e in everything[1])
        assert {e.combo for e in suit} == set(combinations(kb))


def test_object_split_trains_routes_by_the_answer_and_records_the_split(
        kb: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    import json

    out = tmp_path_factory.mktemp("learned-objects")
    manifest = train_dir(kb, out, seed=0, folds=3, split="objects", encoder=HashEncoder(), options=TINY,
                         progress=False)
    assert manifest["split"] == "objects" and "fold_combinations" not in manifest
    assert manifest["fold_objects"] == make_folds(kb, "objects", 3, seed=0)
    folded = load_learned(kb, out, held_out=True, encoder=HashEncoder())
    assert isinstance(folded, FoldedModel) and folded.split == "objects"
    assert folded.model_id.endswith("-heldout3-objects")
    n_combos = len(combinations(kb))
    for i, m in enumerate(folded.models):
        assert m.manifest["held_out_objects"] == manifest["fold_objects"][i] and m.manifest["held_out"] == []
        assert m.manifest["n_suit"] == n_combos * (len(vocabulary(kb)) - len(manifest["fold_objects"][i]))
    u, t = "cutting", kb.tasks("cutting")[0]
    for i, held in enumerate(manifest["fold_objects"]):
        q = _question(kb, u, t, held[0], manifest["fold_objects"][(i + 1) % 3][0])
        assert folded.fold_for(q) is folded.models[i]
        with folded.routing(q) as m:
            assert m is folded.models[i] and folded.model_for(t, u) is m
    with pytest.raises(ConfigError, match="correct option's object"):
        folded.suits(t, u, ["Knife"])  # outside routing: no answer to route by
    # decide() routes each question by its answer; the two-stage and single pipelines both work
    q = _question(kb, u, t, "Knife", "Pillow")
    for name in ("two-stage", "single"):
        d = make_pipeline(name, "learned", kb=kb, learned=folded).decide(q)
        assert d.chosen in ("A", "B") and d.model_id == folded.model_id
    # a manifest written before the split existed (no "split") means combinations
    comb = tmp_path_factory.mktemp("learned-old")
    train_dir(kb, comb, seed=0, folds=2, encoder=HashEncoder(), options=TINY, progress=False)
    mf = json.loads((comb / "manifest.json").read_text())
    assert mf["split"] == "combinations"
    del mf["split"]
    (comb / "manifest.json").write_text(json.dumps(mf))
    old = load_learned(kb, comb, held_out=True, encoder=HashEncoder())
    assert isinstance(old, FoldedModel) and old.split == "combinations"
    assert list(old.fold_for(q).manifest["held_out"]).count([u, t]) == 1
    mf["split"] = "tasks"
    (comb / "manifest.json").write_text(json.dumps(mf))
    with pytest.raises(DataError, match="'tasks'"):
        load_learned(kb, comb, held_out=True, encoder=HashEncoder())
    with pytest.raises(ConfigError, match=r"'tasks'.*accepted: combinations, objects"):
        train_dir(kb, comb, seed=0, folds=2, split="tasks", encoder=HashEncoder(), options=TINY, progress=False)


@pytest.mark.parametrize(("argv", "needle"), [(["--split", "tasks", "--folds", "5"], "'tasks'.*combinations, objects"),
                                              (["--split", "objects"], "--folds K with K >= 2")])
def test_train_cli_rejects_bad_split_flags(tmp_path: Path, capsys: Any, argv: list[str], needle: str) -> None:
    import re

    from planner import cli

    assert cli.main(["train", "--out", str(tmp_path / "m"), "--no-progress", *argv]) == 1
    assert re.search(needle, capsys.readouterr().err)


# ---------------------------------------------------------------- coat ablate with the learned strategy


@pytest.mark.parametrize("split", ["combinations", "objects"])
def test_ablate_cli_with_held_out_learned_models(kb: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 split: str) -> None:
    from planner import cli
    from planner.bench import ablation
    from planner.bench.datasets import write_sets
    from planner.bench.evaluate import read_rows

    model = tmp_path / "model"
    train_dir(kb, model, seed=0, folds=3, split=split, encoder=HashEncoder(), options=TINY, progress=False)
    qs = tmp_path / "qs"
    write_sets(kb, qs, 0, sets=["task0", "task2"], progress=False, sizes={"task0": 8, "task2": 20})
    monkeypatch.setattr("planner.learned.train.MiniLMVectors", HashEncoder)  # the CLI loads with MiniLM otherwise
    monkeypatch.setattr(ablation, "plot_comparison", lambda *a, **k: False)  # no matplotlib: keep it fast
    out = tmp_path / "ablate"
    argv = ["ablate", "--strategy", "learned", "--held-out", "--model", str(model), "--limit", "5", "--sets",
            "task0", "task2", "--questions", str(qs), "--out", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    report = (out / "report.md").read_text()
    suffix = "-objects" if split == "objects" else ""
    tag = options_tag(resolve_options(TINY))
    assert f"Model: learned-v1-seed0-{tag}-heldout3{suffix};" in report and "strategy: learned" in report
    assert f"--model {model} --held-out" in report
    for s in ("task0", "task2"):
        for p in ("single", "two-stage"):
            assert f"| {s} | {p} | 5 |" in report
            rows = read_rows(out / f"{s}-{p}.jsonl")
            assert len(rows) == 5 and {r["model_id"] for r in rows} == {f"learned-v1-seed0-{tag}-heldout3{suffix}"}


def test_hard_negative_options_weight_the_utility_s_other_objects(kb: Any) -> None:
    from planner.learned.train import _hard_negatives

    u, t = "cutting", kb.tasks("cutting")[0]
    suit, _ = training_examples(kb, held_out=[c for c in combinations(kb) if c not in {(u, t), (u, None)}])
    hard, pairs = _hard_negatives(kb, suit)
    ctx, mine = set(kb.context_objects(u, t)), set(kb.utility_objects(u))
    assert {e.obj for e, h in zip(suit, hard, strict=True) if h} == mine - ctx
    assert all(suit[i].combo == (u, t) for i in pairs.ravel())  # (utility, None) has no hard negatives
    assert {(suit[i].obj, suit[j].obj) for i, j in pairs} == {(p, n) for p in ctx for n in mine - ctx}
    feat = featurizer(kb, None, HashEncoder())
    base = _state(train_model(kb, feat, seed=0, options=TINY))
    for extra in ({"hard_weight": 3.0}, {"pair_weight": 1.0}):
        other = _state(train_model(kb, feat, seed=0, options={**TINY, **extra}))
        assert any(not bool((base[k] == other[k]).all()) for k in base if k.startswith("suits"))


def test_train_cli_options_are_parsed_and_checked() -> None:
    from planner.cli.train import parse_options

    assert parse_options(["hard_weight=3", "epochs1=5", "pair_weight = 0.5"]) == {
        "hard_weight": 3.0, "epochs1": 5, "pair_weight": 0.5}
    for bad, needle in (("hard_weight", "KEY=VALUE"), ("width=3", r"'width'.*accepted: hidden, epochs1"),
                        ("epochs1=2.5", "must be an integer >= 0"),
                        ("lr=fast", "must be a finite number > 0 and <= 1"),
                        ("dropout=1", r"dropout=1: must be a finite number >= 0 and < 1, got '1'"),
                        ("hidden=1", ">= 2")):
        with pytest.raises(ConfigError, match=needle):
            parse_options([bad])


def test_a_model_trained_on_other_coat_data_is_refused(kb: Any, tmp_path: Path) -> None:
    import json

    from planner.learned.first_use import ensure_learned

    out = tmp_path / "cache"
    ensure_learned(kb, out, encoder=HashEncoder(), options=TINY, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["data_checksums"]  # first-use training records what it was trained on
    name = next(iter(manifest["data_checksums"]))
    manifest["data_checksums"][name] = "0" * 64
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DataError, match="trained on other COAT data"):
        ensure_learned(kb, out, encoder=HashEncoder(), options=TINY, progress=False)


# ---------------------------------------------------------------- neighbour inputs and the options in the id

KNN = {**TINY, "knn_temp": 0.3, "cos_features": 1}


def test_neighbour_inputs_by_hand(kb: Any) -> None:
    from planner.learned.features import task_text
    from planner.learned.neighbours import SuitExtras

    cache = EmbeddingCache(HashEncoder())
    table = {"cutting": [["cut bread", ["Knife"]], ["cut cake", ["ButterKnife", "Knife"]], ["slice ham", []]]}
    ex = SuitExtras(table, cache, kb.templates.utility_phrases, {"knn_temp": 0.5})
    objs = ["Knife", "ButterKnife", "Pillow"]
    rows = ex.rows("cut cake", "cutting", objs)  # its own row is not a neighbour
    e = cache.embed([task_text(t) for t in ("cut bread", "slice ham", "cut cake")])
    w = np.exp(e[:2] @ e[2] / 0.5)
    w /= w.sum()
    assert rows.shape == (3, 3)
    assert np.allclose(rows[:, 0], [w[0], 0.0, 0.0], atol=1e-6)  # knn: only "cut bread" has Knife
    assert np.allclose(rows[:, 1], [0.5, 0.0, 0.0]) and np.allclose(rows[:, 2], 1.0)  # base, has
    new = ex.rows("peel an apple", "cutting", objs)  # an unseen task: all three are neighbours
    assert new[0, 1] == pytest.approx(2 / 3) and new[1, 1] == pytest.approx(1 / 3) and new[2, 0] == 0.0
    assert not ex.rows("cut cake", "slicing-nothing", objs).any()  # no neighbours: zeros
    cos = SuitExtras(table, cache, kb.templates.utility_phrases, {"cos_features": 1}).rows("cut cake", "cutting", objs)
    t, o = cache.embed(["cut cake"]), cache.embed(["a knife"])
    assert cos.shape == (3, 2) and cos[0, 0] == pytest.approx(float(o[0] @ t[0]), abs=1e-6)


def test_neighbours_come_only_from_the_fold_s_training_combinations(kb: Any) -> None:
    from planner.learned.neighbours import SuitExtras

    folds = fold_split(combinations(kb), 3, seed=0)
    feat = featurizer(kb, None, HashEncoder())
    m = train_model(kb, feat, seed=0, held_out=folds[0], fold=0, options=KNN)
    table = m.manifest["neighbours"]
    listed = {(u, t) for u, rows in table.items() for t, _ in rows}
    assert listed == {c for c in combinations(kb) if c[1] is not None and c not in set(folds[0])}
    for u, rows in table.items():
        for t, objs in rows:
            assert objs == sorted(kb.context_objects(u, t))
    # a training combination's inputs are leave-one-combination-out: the same as with its row removed
    u, t = next((u, t) for u, t in sorted(listed) if len(table[u]) > 2)
    objs = vocabulary(kb)
    loo = {**table, u: [r for r in table[u] if r[0] != t]}
    other = SuitExtras(loo, feat.cache, feat.phrases, KNN)
    assert np.array_equal(m.extras.rows(t, u, objs), other.rows(t, u, objs))
    # object split: no held-out object is anyone's neighbour
    drop = make_folds(kb, "objects", 3, 0)[0]
    mo = train_model(kb, feat, seed=0, held_out_objects=drop, fold=0, options=KNN)
    assert not {o for rows in mo.manifest["neighbours"].values() for _, objs in rows for o in objs} & set(drop)


def test_a_neighbour_model_round_trips_and_its_options_are_in_the_id(kb: Any, tmp_path: Path) -> None:
    import torch

    out = tmp_path / "knn"
    train_dir(kb, out, seed=0, folds=2, encoder=HashEncoder(), options=KNN, progress=False)
    folded = load_learned(kb, out, held_out=True, encoder=HashEncoder())
    full = load_learned(kb, out, encoder=HashEncoder())
    assert isinstance(full, LearnedModel) and full.extras is not None and full.extras.width == 5
    assert full.manifest["options"]["knn_temp"] == 0.3 and full.manifest["options"]["cos_features"] == 1
    feat = featurizer(kb, None, HashEncoder())
    fresh = train_model(kb, feat, seed=0, options=KNN)  # the same training in memory gives the same logits
    objs = ["Knife", "Pillow", "Bowl"]
    assert np.allclose(full.suits("cut cake", "cutting", objs), fresh.suits("cut cake", "cutting", objs), atol=1e-5)
    assert full.model_id == fresh.model_id
    plain = train_model(kb, feat, seed=0, options=TINY)
    assert plain.extras is None and plain.model_id != full.model_id
    assert plain.model_id.startswith("learned-v1-seed0-o") and options_tag(plain.manifest["options"]) in plain.model_id
    same = train_model(kb, feat, seed=0, options={**TINY, "hard_weight": 1})  # 1 and 1.0: one model, one id
    assert same.model_id == plain.model_id
    hw = train_model(kb, feat, seed=0, options={**TINY, "hard_weight": 2.0})
    assert hw.model_id != plain.model_id
    assert folded.model_id.endswith("-heldout2") and options_tag(full.manifest["options"]) in folded.model_id
    u, t = folded.models[0].manifest["held_out"][0]
    assert [u, t] not in [[u2, r[0]] for u2, rows in folded.models[0].manifest["neighbours"].items() for r in rows]
    # a checkpoint written before the neighbour inputs (no "n_extra") still loads as the plain head
    plain.save(tmp_path / "plain.pt")
    blob = torch.load(tmp_path / "plain.pt", weights_only=True)
    del blob["n_extra"]
    torch.save(blob, tmp_path / "old.pt")
    assert LearnedModel.load(tmp_path / "old.pt", feat).suits("cut cake", "cutting", objs) == plain.suits(
        "cut cake", "cutting", objs)


def test_neighbour_options_parse_on_the_cli() -> None:
    from planner.cli.train import parse_options

    assert parse_options(["knn_temp=0.3", "cos_features=1"]) == {"knn_temp": 0.3, "cos_features": 1}
    for bad, needle in (("knn_temp=-1", "knn_temp=-1: must be a finite number >= 0"),
                        ("cos_features=2", "an integer >= 0 and <= 1, got '2'")):
        with pytest.raises(ConfigError, match=needle):
            parse_options([bad])


# ---------------------------------------------------------------- the stage-1 keep threshold a model carries


class _Fixed:
    """A learned scorer with fixed stage-1 logits and an optional keep threshold."""

    model_id = "fixed"

    def __init__(self, logits: dict[str, float], keep_logit: float | None = None) -> None:
        self.logits = logits
        if keep_logit is not None:
            self.keep_logit = keep_logit

    def suits(self, task: Any, utility: str, objects: Sequence[str]) -> list[float]:
        return [self.logits[o] for o in objects]

    def rank(self, task: Any, utility: str, pairs: Any) -> list[float]:
        return [0.0 for _ in pairs]


def test_stage1_keeps_by_the_scorer_s_keep_logit() -> None:
    logits = {"Knife": 2.0, "Fork": -0.7, "Pillow": -3.0}
    names = list(logits)
    assert ObjectSelector("learned", learned=_Fixed(logits))("cut cake", "cutting", names).kept == ("Knife",)
    sel = ObjectSelector("learned", learned=_Fixed(logits, keep_logit=-1.0))("cut cake", "cutting", names)
    assert sel.kept == ("Knife", "Fork") and "logit >= -1" in sel.reason
    assert ObjectSelector("learned", learned=_Fixed(logits, keep_logit=5.0))(
        "cut cake", "cutting", names).kept == ("Knife",)  # always the best


def test_keep_logit_is_a_model_option_in_its_manifest_and_id(kb: Any) -> None:
    feat = featurizer(kb, None, HashEncoder())
    plain = train_model(kb, feat, seed=0, options=TINY)
    zero = train_model(kb, feat, seed=0, options={**TINY, "keep_logit": 0})
    low = train_model(kb, feat, seed=0, options={**TINY, "keep_logit": -1.5})
    assert plain.keep_logit == 0.0 and low.keep_logit == -1.5 and low.manifest["options"]["keep_logit"] == -1.5
    assert zero.model_id == plain.model_id != low.model_id  # 0 is today's rule: the id of a model without the option
    before = {k: v for k, v in plain.manifest["options"].items() if k != "keep_logit"}  # a manifest from before it
    assert options_tag(before) == options_tag(plain.manifest["options"])
    a, b = _state(low), _state(plain)
    assert all(bool((a[k] == b[k]).all()) for k in a)  # the threshold does not change training
    old = LearnedModel(plain.heads, feat, {**plain.manifest, "options": before})
    assert old.keep_logit == 0.0


def test_set_keep_logit_copies_a_trained_dir_with_the_new_threshold(kb: Any, trained: Path, tmp_path: Path) -> None:
    from planner.learned.train import set_keep_logit

    out = tmp_path / "keep"
    manifest = set_keep_logit(trained, out, -1.0)
    assert manifest["options"]["keep_logit"] == -1.0 and manifest["keep_logit_from"] == str(trained)
    src = load_learned(kb, trained, held_out=True, encoder=HashEncoder())
    cp = load_learned(kb, out, held_out=True, encoder=HashEncoder())
    full = load_learned(kb, out, encoder=HashEncoder())
    assert isinstance(cp, FoldedModel) and cp.keep_logit == -1.0 and full.keep_logit == -1.0 and src.keep_logit == 0
    assert cp.model_id != src.model_id and cp.model_id.endswith("-heldout3")
    u, t = src.models[0].manifest["held_out"][0]
    objs = ["Knife", "Pillow", "Bowl"]
    assert cp.suits(t, u, objs) == src.suits(t, u, objs)
    held = [tuple(c) for c in src.models[0].manifest["held_out"]]
    assert cp.models[0].model_id == train_model(kb, featurizer(kb, None, HashEncoder()), seed=0, held_out=held,
                                                fold=0, options={**TINY, "keep_logit": -1.0}).model_id
    with pytest.raises(ConfigError, match="already a trained directory"):
        set_keep_logit(trained, out, -2.0)
    with pytest.raises(ConfigError, match="different stage-1 keep thresholds"):
        FoldedModel([src.models[0], cp.models[1]])


def test_keep_logit_parses_on_the_cli_and_may_be_negative() -> None:
    from planner.cli.train import parse_options

    assert parse_options(["keep_logit=-1.5"]) == {"keep_logit": -1.5}
    with pytest.raises(ConfigError, match="keep_logit=low: must be a finite number, got 'low'"):
        parse_options(["keep_logit=low"])


# ---------------------------------------------------------------- stage 2 by borrowed cost rules (stage2=rules)

RULES = {**TINY, "stage2": "rules"}


def test_object_rule_round_trips_and_prices_like_the_cost_model(kb: Any) -> None:
    from planner.knowledge import CostModel, ObjectRule
    from planner.schemas import ObjectConfig

    cost = CostModel(kb)
    for u, t in [("cutting", "cut apple"), ("heating(vessel)", "reheating coffee in a microwave")]:
        for o in kb.context_objects(u, t):
            rule = cost.object_rule(u, t, o)
            again = ObjectRule.from_json(rule.to_json())
            assert again == rule
            for c in kb.configurations_of(o):
                assert again.penalty(c.state) == cost.penalty(u, t, ObjectConfig(object=o, state=c.state))


def test_rule_ranker_by_hand(kb: Any) -> None:
    """One borrowed rule: the score is minus its cost in hundreds; an unlisted material takes the nearest listing
    rule's penalty; a pair without a state scores as a moderate one with no penalty."""
    from planner.knowledge import CostModel
    from planner.learned.rules import RuleRanker, rule_table
    from planner.schemas import PhysicalState

    cost = CostModel(kb)
    table = rule_table(kb, [("cutting", "cut apple")], cost=cost)
    assert [r["object"] for r in table] == sorted(kb.context_objects("cutting", "cut apple"))
    knife = next(r for r in table if r["object"] == "Knife")
    ranker = RuleRanker([knife], EmbeddingCache(HashEncoder()), k=3, temp=0.1, utility_bonus=0.5)
    free = PhysicalState(mass="light", material="Metal", temperature="RoomTemp", already_in_use="free",
                         condition="clean")
    dirty = free.model_copy(update={"condition": "dirty"})
    busy = free.model_copy(update={"already_in_use": "irreversible-using"})
    wood = free.model_copy(update={"material": "Wood", "condition": "dirty"})  # Knife lists only Metal
    got = ranker.rank("slice a pear", "cutting", [("Knife", free), ("Knife", dirty), ("Knife", busy), ("Cup", wood),
                                                 ("Knife", None)])
    rule = cost.object_rule("cutting", "cut apple", "Knife")
    assert got[0] == 0.0  # ideal under the borrowed rule
    assert got[1] == pytest.approx(-(1000 + rule.penalty(dirty).total) / 100)
    assert got[2] == pytest.approx(-(2000 + rule.penalty(busy).total) / 100)
    assert got[3] == pytest.approx(-(1000 + 50 + 200) / 100)  # Wood listed nowhere: COAT's unlisted penalty
    assert got[4] == -10.0  # no state: a moderate configuration with no penalty, below the ideal one
    assert ranker.explain("slice a pear", "cutting", "Cup") == [("cutting", "cut apple", "Knife", 1.0)]


def test_a_rules_model_borrows_only_from_its_training_rules_and_round_trips(kb: Any, tmp_path: Path) -> None:
    out = tmp_path / "rules"
    train_dir(kb, out, seed=0, folds=2, encoder=HashEncoder(), options=RULES, progress=False)
    folded = load_learned(kb, out, held_out=True, encoder=HashEncoder())
    for m in folded.models:
        held = {tuple(c) for c in m.manifest["held_out"]}
        borrowed = {(r["utility"], r["task"]) for r in m.manifest["rules"]}
        assert borrowed and not borrowed & held
        assert m.ranker is not None and m.model_id != train_model(
            kb, featurizer(kb, None, HashEncoder()), seed=0, options=TINY).model_id
    full = load_learned(kb, out, encoder=HashEncoder())
    pairs = [(c.object, c.state) for c in kb.configurations_of("Knife")[:4]]
    fresh = train_model(kb, featurizer(kb, None, HashEncoder()), seed=0, options=RULES)
    assert full.rank("cut cake", "cutting", pairs) == fresh.rank("cut cake", "cutting", pairs)
    # the object split: no held-out object's rule is borrowed
    drop = make_folds(kb, "objects", 3, 0)[0]
    mo = train_model(kb, featurizer(kb, None, HashEncoder()), seed=0, held_out_objects=drop, options=RULES)
    assert not {r["object"] for r in mo.manifest["rules"]} & set(drop)


def test_stage2_options_are_checked() -> None:
    from planner.cli.train import parse_options

    assert parse_options(["stage2=rules", "rules_k=5"]) == {"stage2": "rules", "rules_k": 5}
    with pytest.raises(ConfigError, match="stage2=tree: must be one of mlp, rules, got 'tree'"):
        parse_options(["stage2=tree"])
    with pytest.raises(ConfigError, match="option stage2 must be one of mlp, rules, got 'tree'"):
        resolve_options({"stage2": "tree"})
    with pytest.raises(ConfigError, match="rules_temp must be a finite number > 0"):
        resolve_options({"stage2": "rules", "rules_temp": 0})
    # a model with the trained head keeps the id it had before the option existed; the default (rules) has its own
    mlp = resolve_options({"stage2": "mlp"})
    assert options_tag(mlp) == options_tag({k: v for k, v in mlp.items() if not k.startswith(("stage2", "rules_"))})
    assert resolve_options({})["stage2"] == "rules" and options_tag(resolve_options({})) != options_tag(mlp)


def test_an_old_model_keeps_its_trained_head_through_set_keep_logit_and_bad_rules_are_a_clear_error(
        kb: Any, tmp_path: Path) -> None:
    """A directory trained before ``stage2`` existed (no such option in its manifests) is the trained head: a copy
    with another keep threshold must stay so, and a corrupt rule table names the file."""
    import json as _json

    import torch

    from planner.learned.train import set_keep_logit

    old = tmp_path / "old"
    train_dir(kb, old, seed=0, folds=1, encoder=HashEncoder(), options={**TINY, "stage2": "mlp"}, progress=False)
    blob = torch.load(old / MODEL_FILE, weights_only=True)  # as a model trained before the option was written
    inner = _json.loads(blob["manifest"])
    inner["options"] = {k: v for k, v in inner["options"].items() if not k.startswith(("stage2", "rules_"))}
    blob["manifest"] = _json.dumps(inner)
    torch.save(blob, old / MODEL_FILE)
    manifest = _json.loads((old / "manifest.json").read_text())
    manifest["options"] = inner["options"]
    (old / "manifest.json").write_text(_json.dumps(manifest))
    copy = tmp_path / "copy"
    set_keep_logit(old, copy, -0.5)
    m = load_learned(kb, copy, encoder=HashEncoder())
    assert m.ranker is None and m.keep_logit == -0.5 and m.manifest["options"]["stage2"] == "mlp"
    rules = tmp_path / "rules"
    train_dir(kb, rules, seed=0, folds=1, encoder=HashEncoder(), options=RULES, progress=False)
    blob = torch.load(rules / MODEL_FILE, weights_only=True)
    inner = _json.loads(blob["manifest"])
    inner["rules"][0]["rule"]["materials"] = {"Wod": 0}
    blob["manifest"] = _json.dumps(inner)
    torch.save(blob, rules / MODEL_FILE)
    with pytest.raises(DataError, match="stage-2 rules are unreadable"):
        load_learned(kb, rules, encoder=HashEncoder())


class RecordingScorer:
    """A scoring model whose affinity is scripted per object name; records the prompts it was asked."""

    model_id = "fake:affinity"
    supports_scoring = True

    def __init__(self, by_name: dict[str, float]) -> None:
        self.by_name, self.asked = by_name, []

    def score(self, prompt: str, options: Sequence[str], *, neutral_prompt: str | None = None) -> list[float]:
        self.asked.append((prompt, list(options), neutral_prompt))
        return [self.by_name.get(o, 0.0) for o in options]


def test_the_llm_blend_adds_the_weighted_affinity_for_tasks_only(kb: Any, trained: Path) -> None:
    from planner.learned.blend import TEMPLATES, LLMBlend, task_affinity

    head = load_learned(kb, trained, encoder=HashEncoder())
    llm = RecordingScorer({"knife": 3.0, "butter knife": -1.0})
    blend = LLMBlend(head, llm, kb.templates.utility_phrases, weight=0.5)
    objs = ["Knife", "ButterKnife", "Pillow"]
    base = head.suits("cut cake", "cutting", objs)
    got = blend.suits("cut cake", "cutting", objs)
    assert got == pytest.approx([base[0] + 1.5, base[1] - 0.5, base[2]])
    prompt, options, neutral = llm.asked[-1]
    assert options == ["knife", "butter knife", "pillow"]  # the object names, as words
    assert prompt == TEMPLATES["task"][0].format(task="cut cake") and neutral == TEMPLATES["task"][1]
    assert blend.suits(None, "cutting", objs) == head.suits(None, "cutting", objs)  # Task-u: no task, no call
    assert len(llm.asked) == 1
    assert blend.rank("cut cake", "cutting", [("Knife", None)]) == head.rank("cut cake", "cutting", [("Knife", None)])
    assert blend.keep_logit == head.keep_logit
    kept = LLMBlend(head, llm, kb.templates.utility_phrases, weight=1, keep_logit=2.5)
    assert kept.keep_logit == 2.5 and "-k2.5" in kept.model_id and kept.model_id.startswith(head.model_id)
    assert "fake:affinity-task-w0.5" in blend.model_id
    two = make_pipeline("two-stage", "learned", kb=kb, learned=blend)
    assert two.select("cut cake", "cutting", objs).stage1.scores["Knife"] == pytest.approx(got[0])
    assert task_affinity(llm, "cut cake", "x", ["Knife"], "utility") == [3.0]
    assert "I need x" in llm.asked[-1][0]


def test_the_llm_blend_refuses_bad_settings(kb: Any, trained: Path) -> None:
    from planner.learned.blend import LLMBlend, task_affinity

    head = load_learned(kb, trained, encoder=HashEncoder())
    llm = RecordingScorer({})
    phrases = kb.templates.utility_phrases
    for kw, needle in (({"weight": -1}, "weight >= 0"), ({"weight": 1, "scale": 0}, "scale > 0"),
                       ({"weight": 1, "template": "poem"}, "unknown affinity template 'poem'"),
                       ({"weight": 1, "keep_logit": float("nan")}, "finite"),
                       ({"weight": float("inf")}, "finite weight")):
        with pytest.raises(ConfigError, match=needle):
            LLMBlend(head, llm, phrases, **kw)
    with pytest.raises(ConfigError, match="no phrase for utility 'flying'"):
        LLMBlend(head, llm, phrases, weight=1).affinity("fly", "flying", ["Knife"])
    generating = RecordingScorer({})
    generating.supports_scoring = False
    with pytest.raises(ConfigError, match="cannot score"):
        task_affinity(generating, "cut cake", "x", ["Knife"])
    with pytest.raises(ConfigError, match="cannot score"):
        LLMBlend(head, generating, phrases, weight=1)


def test_eval_cli_blend_flags_are_checked(kb: Any, trained: Path, capsys: Any) -> None:
    from planner import cli

    base = ["eval", "--set", "task0", "--limit", "2", "--no-progress"]
    assert cli.main([*base, "--strategy", "knowledge", "--blend", "1"]) != 0
    assert "apply to --strategy learned only" in capsys.readouterr().err
    assert cli.main([*base, "--strategy", "learned", "--model", str(trained), "--blend-keep", "2"]) != 0
    assert "--blend-keep needs --blend" in capsys.readouterr().err
    assert cli.main([*base, "--strategy", "learned", "--model", str(trained), "--blend-template", "utility"]) != 0
    assert "--blend-template needs --blend" in capsys.readouterr().err
    assert cli.main([*base, "--strategy", "learned", "--model", str(trained), "--blend", "1"]) != 0
    assert "--blend needs --llm" in capsys.readouterr().err


# --- training speed: the same models, faster (models on threads, cheap dropout masks, optional minibatches)


def _files(out: Path) -> dict[str, dict[str, Any]]:
    import torch

    return {p.name: torch.load(p, weights_only=True)["state"] for p in sorted(out.glob("*.pt"))}


def test_train_dir_writes_the_same_models_for_any_number_of_workers(kb: Any, tmp_path: Path) -> None:
    folds = {}
    for workers in (1, 3):
        out = tmp_path / f"w{workers}"
        train_dir(kb, out, seed=2, folds=3, encoder=HashEncoder(), options={**TINY, "dropout": 0.5}, progress=False,
                  workers=workers)
        folds[workers] = _files(out)
    assert sorted(folds[1]) == ["fold-0.pt", "fold-1.pt", "fold-2.pt", "model.pt"]
    for name, state in folds[1].items():
        assert all(bool((state[k] == folds[3][name][k]).all()) for k in state), name
    with pytest.raises(ConfigError, match="workers must be an integer >= 1"):
        train_dir(kb, tmp_path / "w0", folds=2, encoder=HashEncoder(), options=TINY, progress=False, workers=0)


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_dropout_keeps_each_value_with_probability_1_minus_p_and_scales_it(p: float) -> None:
    import torch

    from planner.learned.model import build_heads, use_generator

    heads = build_heads(4, 8, p)
    drop = heads["suits"][0]
    x = torch.ones(400, 500)
    gen = torch.Generator("cpu").manual_seed(7)
    use_generator(heads, gen)
    y = drop.train()(x).clone()  # the result is rewritten by the next call (the rows' dropout keeps its tensors)
    kept = y != 0
    assert abs(float(kept.float().mean()) - (1 - p)) < 0.005  # 200,000 draws
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / (1 - p)))
    assert not torch.equal(drop(x), y)  # a new mask each call ...
    use_generator(heads, torch.Generator("cpu").manual_seed(7))
    assert torch.equal(drop(x), y)  # ... and the same ones from the same generator state
    assert torch.equal(drop.eval()(x), x)


def test_minibatch_training_is_deterministic_and_keeps_pairs_inside_the_batch(kb: Any) -> None:
    import torch

    from planner.learned.train import _pairs_in

    feat = featurizer(kb, None, HashEncoder())
    opts = {**TINY, "batch1": 500, "pair_weight": 1.0, "hard_weight": 2.0}
    a, b = (_state(train_model(kb, feat, seed=1, options=opts)) for _ in range(2))
    full = _state(train_model(kb, feat, seed=1, options={**opts, "batch1": 0}))
    assert all(bool((a[k] == b[k]).all()) for k in a)
    assert any(not bool((a[k] == full[k]).all()) for k in a)
    pairs = torch.tensor([[0, 1], [2, 5], [5, 3], [4, 0]])
    idx = torch.tensor([5, 0, 3, 1])  # rows 5, 0, 3, 1 are batch positions 0..3
    assert _pairs_in(pairs, idx, 6).tolist() == [[1, 3], [0, 2]]
