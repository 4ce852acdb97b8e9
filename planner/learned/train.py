"""Training the learned selectors, deterministically for a seed, and reading a trained directory back.

``train_dir(kb, out, seed=0, folds=5)`` writes ``model.pt`` (trained on every combination), ``fold-<i>.pt``
(trained without fold i's combinations, or with ``split="objects"`` without any example of fold i's object
types), ``embeddings.npz`` (the embedding cache) and ``manifest.json`` (which records the split).
``load_learned(out)`` gives the full model, ``load_learned(out, held_out=True)`` a
:class:`~planner.learned.model.FoldedModel`.

Stage 1 minimises a class-weighted binary cross-entropy; stage 2 a pairwise logistic (RankNet) loss over
every pair of configurations of the same combination whose cost differs, so ideal > moderate > bad and,
within moderate, lower total penalty first.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ..arguments import Range
from ..errors import ConfigError, DataError, DataNotFoundError
from ..knowledge import KnowledgeBase
from ..paths import data_checksums, read_json, writing
from ..results import ResultsDir, RunIdentity, fingerprint
from .data import (
    SPLITS,
    Combo,
    RankExample,
    SuitExample,
    check_split,
    combinations,
    make_folds,
    training_examples,
    vocabulary,
)
from .features import EmbeddingCache, MiniLMVectors, VectorEncoder
from .model import (
    _RETRAIN,
    EMBEDDINGS_FILE,
    FORMAT_VERSION,
    MANIFEST_FILE,
    MODEL_FILE,
    Featurizer,
    FoldedModel,
    LearnedModel,
    build_heads,
    check_recorded_options,
    fold_file,
    use_generator,
)
from .neighbours import n_extra, neighbour_table
from .rules import rule_table

logger = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {"hidden": 128, "epochs1": 300, "batch1": 0, "epochs2": 200, "lr": 3e-3,
                           "weight_decay": 1e-4, "dropout": 0.5, "hard_weight": 1.0, "pair_weight": 0.0,
                           "knn_temp": 0.0, "cos_features": 0, "keep_logit": 0.0, "stage2": "rules", "rules_k": 10,
                           "rules_temp": 0.1, "rules_utility": 0.5}
"""Training options. ``hard_weight``: stage-1 BCE weight of a hard negative (an object of the utility that is not
a context object of the task) relative to other rows; ``batch1``: stage-1 rows per optimizer step (shuffled
minibatches, ``epochs1`` passes over the rows; 0 = every row in one step per epoch, the default: fewer passes in
minibatches lost held-out Task-u accuracy, ``benchmarks/learned.md``); ``pair_weight``: weight of an added stage-1
pairwise logistic loss, context object above hard negative, within each (utility, task); ``knn_temp``: > 0 adds the
neighbour inputs of :mod:`planner.learned.neighbours` to stage 1 (softmax temperature over task cosines; 0 =
off); ``cos_features``: 1 adds the task . object and phrase . object cosines to stage 1; ``keep_logit``: the
stage-1 keep threshold the model is used with (the ``learned`` strategy keeps every object whose logit is at
least this, and always the best; it does not change training); ``stage2``: ``rules`` (the default: borrowed cost
rules, :mod:`planner.learned.rules`, with ``rules_k``, ``rules_temp`` and ``rules_utility``; the stage-2 head is
then not trained) or ``mlp`` (the pairwise-trained head, the default before; see ``benchmarks/learned.md``). The
options are in every model's manifest and (hashed, see :func:`~planner.learned.model.options_tag`) in its id."""


_RNG_LOCK = threading.Lock()
"""Held while a model seeds torch's global generator and draws its initial weights from it."""

STAGE2: tuple[str, ...] = ("mlp", "rules")
"""Values of the ``stage2`` training option."""


OPTION_RANGES: dict[str, Range] = {
    "hidden": Range(2, 4096, integer=True), "epochs1": Range(0, 100_000, integer=True),
    "batch1": Range(0, 10_000_000, integer=True),
    "epochs2": Range(0, 100_000, integer=True), "lr": Range(0, 1, low_open=True), "weight_decay": Range(0, 1),
    "dropout": Range(0, 1, high_open=True), "hard_weight": Range(0, 1000), "pair_weight": Range(0, 1000),
    "knn_temp": Range(0, 100), "cos_features": Range(0, 1, integer=True), "keep_logit": Range(),
    "rules_k": Range(1, 10_000, integer=True), "rules_temp": Range(0, 1000, low_open=True), "rules_utility": Range(),
}
"""What each numeric training option accepts: an infinite ``lr`` trains NaN weights, a NaN ``keep_logit`` keeps no
object; every value is checked before training starts (and read back from a manifest)."""


def option_value(key: str, value: Any) -> Any:
    """A training option's value, checked and converted to its default's type (``3.0`` for an integer option is 3).

    Raises:
        ConfigError: an unknown key, a value out of :data:`OPTION_RANGES` (NaN and infinities included) or not one
            of :data:`STAGE2`; the message names the option, the value and what is accepted.
    """
    if key not in DEFAULTS:
        raise ConfigError(f"{key!r} is not a training option; accepted: {', '.join(DEFAULTS)}")
    if key == "stage2":
        if value not in STAGE2:
            raise ConfigError(f"option stage2 must be one of {', '.join(STAGE2)}, got {value!r}")
        return value
    accepted = OPTION_RANGES[key]
    if accepted.integer and isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        accepted.check(f"option {key}", value)
    except TypeError as e:
        raise ConfigError(str(e)) from None
    return type(DEFAULTS[key])(value)


def resolve_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """:data:`DEFAULTS` updated by ``options``, each value checked (:func:`option_value`) and converted to its
    default's type (so ``3`` and ``3.0`` make the same model id); keys this planner does not know are kept as
    they are (a manifest written by another version).

    Raises:
        ConfigError: a value that is not accepted.
    """
    opt = {**DEFAULTS, **(options or {})}
    return {k: (option_value(k, v) if k in DEFAULTS else v) for k, v in opt.items()}


def _check_trained(heads: Any, opt: dict[str, Any]) -> None:
    """Refuse a model whose training diverged (a NaN or infinite weight) instead of saving it."""
    torch = require("torch", "torch")
    bad = [name for name, p in heads.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        shown = ", ".join(f"{k}={opt[k]}" for k in ("lr", "weight_decay", "hard_weight", "pair_weight"))
        raise ConfigError(f"training diverged: non-finite weights in {', '.join(bad[:3])} ({shown}); nothing was "
                          "saved. Lower --option lr (default 0.003)")


def _suit_data(model: LearnedModel, examples: Sequence[SuitExample]) -> tuple[np.ndarray, np.ndarray]:
    """Stage-1 rows as ``model`` computes them (its extra inputs come from its own neighbour table, which never
    lists a combination as its own neighbour) and the labels."""
    xs, ys = [], []
    by_combo: dict[Combo, list[Any]] = {}
    for ex in examples:
        by_combo.setdefault(ex.combo, []).append(ex)
    for (u, t), exs in by_combo.items():
        xs.append(model.suit_rows(t, u, [e.obj for e in exs]))
        ys += [e.label for e in exs]
    return np.concatenate(xs), np.asarray(ys, dtype=np.float32)


def _hard_negatives(kb: KnowledgeBase, examples: Sequence[SuitExample]) -> tuple[np.ndarray, np.ndarray]:
    """Stage-1 rows (in :func:`_suit_data`'s order) that are *hard* negatives (an object of the utility that is
    not a context object of the (utility, task)), and the (positive, hard negative) row pairs of a combination."""
    by_combo: dict[Combo, list[SuitExample]] = {}
    for ex in examples:
        by_combo.setdefault(ex.combo, []).append(ex)
    hard: list[bool] = []
    pairs, base = [], 0
    for (u, t), exs in by_combo.items():
        mine = set(kb.utility_objects(u)) if t is not None else set()
        h = np.asarray([e.label == 0.0 and e.obj in mine for e in exs])
        pos = np.asarray([e.label == 1.0 for e in exs])
        i, j = np.nonzero(pos[:, None] & h[None, :])
        pairs.append(np.stack([i + base, j + base], axis=1))
        hard += h.tolist()
        base += len(exs)
    return np.asarray(hard, dtype=bool), np.concatenate(pairs)


def _rank_data(feat: Featurizer | None, examples: Sequence[RankExample]) -> tuple[np.ndarray | None, np.ndarray]:
    """Feature rows (None without a featurizer: the rules ranker trains nothing) and the (better, worse) index
    pairs."""
    by_combo: dict[Combo, list[Any]] = {}
    for ex in examples:
        by_combo.setdefault(ex.combo, []).append(ex)
    xs, pairs, base = [], [], 0
    for (u, t), exs in by_combo.items():
        if feat is not None:
            xs.append(feat.rank(t, u, [(e.obj, e.state) for e in exs]))
        cost = np.asarray([e.cost for e in exs])
        i, j = np.nonzero(cost[:, None] < cost[None, :])
        pairs.append(np.stack([i + base, j + base], axis=1))
        base += len(exs)
    return (np.concatenate(xs) if xs else None), np.concatenate(pairs)


def _batches(n: int, size: int, gen: Any) -> Iterator[Any]:
    """Row indices of one stage-1 epoch: shuffled minibatches of ``size`` rows (the last one smaller), or a single
    None (every row, in order) for ``size`` 0 or ``size`` >= ``n``."""
    torch = require("torch", "torch")
    if size <= 0 or size >= n:
        yield None
        return
    yield from torch.randperm(n, generator=gen).split(size)


def _pairs_in(pairs: Any, idx: Any, n: int) -> Any:
    """The (positive, hard negative) row pairs whose rows are both in minibatch ``idx``, as positions in it."""
    torch = require("torch", "torch")
    where = torch.full((n,), -1, dtype=torch.long)
    where[idx] = torch.arange(len(idx))
    both = where[pairs]
    return both[(both >= 0).all(dim=1)]


def train_model(kb: KnowledgeBase, feat: Featurizer, *, seed: int, held_out: Sequence[Combo] = (),
                held_out_objects: Sequence[str] = (), fold: int | None = None, options: dict[str, Any] | None = None,
                progress: Any = None, on_epoch: Callable[[LearnedModel, int], None] | None = None) -> LearnedModel:
    """Train both heads on every combination not in ``held_out``, without any example whose object is in
    ``held_out_objects`` (:func:`~planner.learned.data.training_examples`); deterministic for ``seed``.

    Stage 1 takes ``epochs1`` passes over its rows, in shuffled minibatches of ``batch1`` rows (0: the whole set in
    one step per epoch). ``on_epoch(model, epoch)`` is called after each stage-1 epoch with the heads in eval mode
    (for probes that draw the early-stopping curve; it does not change the training)."""
    torch = require("torch", "torch")
    opt = resolve_options(options)
    torch.set_num_threads(1)
    hold = set(held_out)
    drop = sorted(set(held_out_objects))
    suit, ranked = training_examples(kb, hold, drop)
    dim = feat.cache.embed(["x"]).shape[1]
    with _RNG_LOCK:  # the initial weights come from torch's global generator, seeded here
        torch.manual_seed(seed)
        heads = build_heads(dim, int(opt["hidden"]), float(opt["dropout"]), n_extra(opt))
        gen = torch.Generator()
        gen.set_state(torch.get_rng_state())
    # every later draw (dropout masks, minibatch order) continues that stream on the model's own generator: models
    # trained at once on several threads draw exactly what each draws alone
    use_generator(heads, gen)
    manifest = {"version": FORMAT_VERSION, "encoder": feat.cache.model_id, "seed": seed, "fold": fold,
                "dim": int(dim), "hidden": int(opt["hidden"]), "dropout": float(opt["dropout"]), "options": opt,
                "held_out": [list(c) for c in sorted(hold, key=lambda c: (c[0], c[1] or ""))],
                **({"held_out_objects": drop} if drop else {}),
                **({"neighbours": neighbour_table(suit)} if n_extra(opt) else {}),
                **({"rules": rule_table(kb, {ex.combo for ex in suit}, drop)}
                   if opt["stage2"] == "rules" else {})}
    model = LearnedModel(heads, feat, manifest)
    heads.train()
    # foreach: one kernel per step over all tensors (the same numbers as the per-tensor loop, fewer dispatches)
    adam = torch.optim.Adam(heads.parameters(), lr=opt["lr"], weight_decay=opt["weight_decay"], foreach=True)
    x1, y1 = (torch.from_numpy(a) for a in _suit_data(model, suit))
    pos_weight = torch.tensor((len(y1) - float(y1.sum())) / max(1.0, float(y1.sum())))
    hard_w, pair_w = float(opt["hard_weight"]), float(opt["pair_weight"])
    weight = None
    hard, hp = _hard_negatives(kb, suit)
    if hard_w != 1.0:
        weight = torch.from_numpy(np.where(hard, hard_w, 1.0).astype(np.float32))
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    hp_t = torch.from_numpy(hp)
    rows, pairs = _rank_data(None if opt["stage2"] == "rules" else feat, ranked)  # rules: no stage-2 features
    x2, p2 = (None if rows is None else torch.from_numpy(rows)), torch.from_numpy(pairs)
    n = len(y1)
    for epoch in range(int(opt["epochs1"])):
        for idx in _batches(n, int(opt["batch1"]), gen):
            adam.zero_grad()
            xb, yb, wb, hb = ((x1, y1, weight, hp_t) if idx is None else
                              (x1[idx], y1[idx], None if weight is None else weight[idx], _pairs_in(hp_t, idx, n)))
            s1 = heads["suits"](xb).squeeze(-1)
            loss = bce(s1, yb, weight=wb, pos_weight=pos_weight)
            if pair_w and len(hb):
                loss = loss + pair_w * torch.nn.functional.softplus(s1[hb[:, 1]] - s1[hb[:, 0]]).mean()
            loss.backward()
            adam.step()
        if on_epoch is not None:
            heads.eval()
            on_epoch(model, epoch + 1)
            heads.train()
        if progress is not None:
            progress.update(1)
    for _ in range(int(opt["epochs2"])):
        if opt["stage2"] == "rules":  # nothing to fit: the rules are in the manifest
            if progress is not None:
                progress.update(1)
            continue
        assert x2 is not None  # stage2 "mlp": its features were made above
        adam.zero_grad()
        s = heads["rank"](x2).squeeze(-1)
        loss = torch.nn.functional.softplus(s[p2[:, 1]] - s[p2[:, 0]]).mean()
        loss.backward()
        adam.step()
        if progress is not None:
            progress.update(1)
    model.manifest.update({"n_suit": len(y1), "n_rank_pairs": len(p2)})
    use_generator(heads, None)
    heads.eval()
    _check_trained(heads, opt)
    return model


def featurizer(kb: KnowledgeBase, cache_path: str | os.PathLike[str] | None,
               encoder: VectorEncoder | None = None) -> Featurizer:
    """A featurizer over an embedding cache at ``cache_path`` (MiniLM unless ``encoder`` is given)."""
    return Featurizer(EmbeddingCache(encoder or MiniLMVectors(), cache_path), kb.templates.utility_phrases)


def train_dir(kb: KnowledgeBase, out: str | os.PathLike[str], *, seed: int = 0, folds: int = 1,
              split: str = "combinations", encoder: VectorEncoder | None = None,
              options: dict[str, Any] | None = None, checksums: dict[str, str] | None = None,
              progress: bool = True, workers: int | None = None) -> dict[str, Any]:
    """Train the full model and, with ``folds > 1``, one model per fold of ``split`` (:data:`SPLITS`:
    ``combinations`` or ``objects``); write them to ``out``, through the results writer.

    ``out`` is locked while training (a second training into it is refused at once) and records the training's
    identity (:func:`training_identity`: seed, options, encoder and the COAT data) in ``results.run.json``. A
    directory trained with another identity is refused, naming both, never overwritten; one trained with the same
    identity is resumed: a model already there is kept (one that cannot be read is trained again), only the missing
    ones are trained, and fold models already there of another split or count are refused.

    The models are trained ``workers`` at a time (default: one per CPU core, at most :data:`MAX_WORKERS`), each on
    its own thread, single-threaded and drawing from its own generator: the files are the same for any number of
    workers.

    Returns:
        The manifest written to ``out/manifest.json`` (``split`` and the folds' held-out combinations or
        object types).

    Raises:
        ConfigError: an unknown ``split``, ``folds`` more than the split has combinations / object types,
            ``workers`` below 1, another training holds ``out``, or ``out`` holds models of another identity or other
            folds.
    """
    check_split(split)
    _workers(workers, 1)  # a bad number is refused before anything is locked or read
    out = Path(out)
    opt = resolve_options(options)
    enc = encoder or MiniLMVectors()
    sums = checksums or data_checksums(kb.root)
    groups = make_folds(kb, split, folds, seed) if folds > 1 else []
    with ResultsDir(out, training_identity(seed, opt, enc.model_id, sums), survey=_survey) as results:
        old = read_json(out / MANIFEST_FILE) if results.resumed and (out / MANIFEST_FILE).is_file() else {}
        old = old if isinstance(old, dict) else {}
        _check_folds(out, old, len(groups), split)
        feat = featurizer(kb, out / EMBEDDINGS_FILE, enc)
        todo = [(MODEL_FILE, {})] + [
            (fold_file(i), {"fold": i, **({"held_out_objects": held} if split == "objects" else {"held_out": held})})
            for i, held in enumerate(groups)]
        todo = [(name, kw) for name, kw in todo if not (results.resumed and _readable(out / name, feat))]
        _train_all(kb, feat, out, todo, seed=seed, options=opt, workers=_workers(workers, len(todo)),
                   progress=progress)
        feat.cache.save()
        manifest = {"version": FORMAT_VERSION, "encoder": feat.cache.model_id, "seed": seed, "folds": len(groups),
                    "split": split, "options": opt, "data_checksums": sums, "model": MODEL_FILE,
                    "fold_models": [fold_file(i) for i in range(len(groups))]}
        if split == "objects":
            manifest["fold_objects"] = [list(held) for held in groups]
        else:
            manifest["fold_combinations"] = [[list(c) for c in held] for held in groups]
        if not groups and old.get("fold_models"):  # a run without folds keeps the folds trained before
            manifest.update({k: old[k] for k in FOLD_KEYS if k in old})
        with writing(out / MANIFEST_FILE):
            (out / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


FOLD_KEYS = ("folds", "split", "fold_models", "fold_objects", "fold_combinations")
"""The keys of a trained directory's manifest that describe its fold models."""


def training_identity(seed: int, options: dict[str, Any], encoder: str, checksums: dict[str, str]) -> RunIdentity:
    """What decides the models a training writes: the seed, the (resolved) options and the encoder, and the COAT
    data's checksums. The folds are not in it: fold models are added to a directory trained without them."""
    return RunIdentity({"results": "learned selectors", "seed": seed, "options": options, "encoder": encoder},
                       fingerprint(checksums), of="data")


def _survey(out: Path) -> tuple[bool, RunIdentity | None]:
    """Whether ``out`` holds trained models, and their training's identity when a manifest records it."""
    has = (out / MANIFEST_FILE).is_file() or any(out.glob("*.pt"))
    if not (out / MANIFEST_FILE).is_file():
        return has, None
    m = read_json(out / MANIFEST_FILE)
    if not isinstance(m, dict):
        raise DataError(out / MANIFEST_FILE, "", f"expected a JSON object; move the directory away ({_RETRAIN})")
    try:
        opt = resolve_options(recorded(m.get("options")))
    except ConfigError as e:
        raise DataError(out / MANIFEST_FILE, "options", str(e)) from None
    return has, training_identity(m.get("seed"), opt, m.get("encoder"), m.get("data_checksums") or {})


def _check_folds(out: Path, old: dict[str, Any], folds: int, split: str) -> None:
    """Fold models of another count or split are not overwritten."""
    had, old_split = len(old.get("fold_models") or []), old.get("split", "combinations")
    if folds and had and (had, old_split) != (folds, split):
        raise ConfigError(f"{out} holds {had} fold models by {old_split}; this run makes {folds} by {split}: give "
                          "another --out (or move the directory away)")


def _readable(path: Path, feat: Featurizer) -> bool:
    """Whether a model file already there is a model this planner reads (one that is not is trained again)."""
    if not path.is_file():
        return False
    try:
        LearnedModel.load(path, feat)
    except (DataError, ConfigError) as e:
        logger.warning("%s is not a readable model (%s); training it again", path, e)
        return False
    return True


def _train_all(kb: KnowledgeBase, feat: Featurizer, out: Path, jobs: list[tuple[str, dict[str, Any]]], *, seed: int,
               options: dict[str, Any], workers: int, progress: bool) -> None:
    """Train and save each ``(file name, hold-out)`` job, ``workers`` at a time, under one progress bar."""
    from concurrent.futures import ThreadPoolExecutor

    from ..progress import progress as progress_bar

    if not jobs:
        return
    _embed_all(kb, feat)  # every text the models read, before any thread asks for one
    per = int(options["epochs1"]) + int(options["epochs2"])
    with progress_bar(total=per * len(jobs), desc="coat train", unit="epoch", disable=not progress) as bar:
        bar_lock = threading.Lock()

        class _Bar:  # one bar for every thread
            def update(self, n: int) -> None:
                with bar_lock:
                    bar.update(n)

        def train(name: str, hold: dict[str, Any]) -> None:
            train_model(kb, feat, seed=seed, options=options, progress=_Bar(), **hold).save(out / name)

        if workers == 1:
            for name, hold in jobs:
                train(name, hold)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="coat-train") as ex:
                for f in [ex.submit(train, name, hold) for name, hold in jobs]:
                    f.result()


MAX_WORKERS = 4
"""Most models ``train_dir`` trains at once by default (each holds its ~100 MB of stage-1 rows and activations)."""


def _workers(workers: int | None, jobs: int) -> int:
    if workers is None:
        return max(1, min(os.cpu_count() or 1, MAX_WORKERS, jobs))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be an integer >= 1 (models trained at once), got {workers!r}")
    return min(workers, jobs)


def _embed_all(kb: KnowledgeBase, feat: Featurizer) -> None:
    """Embed every text training reads (tasks, utility phrases, objects), so the models' threads only read the
    cache."""
    from .features import object_text, task_text

    combos = combinations(kb)
    feat.cache.embed(["x", *dict.fromkeys(task_text(t) for _, t in combos),
                      *dict.fromkeys(feat.phrases.get(u, u) for u, _ in combos),
                      *(object_text(o) for o in vocabulary(kb))])


def recorded(options: dict[str, Any] | None) -> dict[str, Any]:
    """A manifest's training options, with an option added after it was trained set to what the model was trained
    with (:data:`~planner.learned.model.NEUTRAL_OPTIONS`: a model from before ``stage2`` has the trained head)."""
    from .model import NEUTRAL_OPTIONS

    return {**NEUTRAL_OPTIONS, **(options or {})}


def set_keep_logit(src: str | os.PathLike[str], dst: str | os.PathLike[str], keep_logit: float) -> dict[str, Any]:
    """Copy the trained directory ``src`` to ``dst`` with option ``keep_logit`` set in every manifest (the
    directory's and each model file's); the weights are unchanged, since the option does not change training.

    The copy is what ``coat train --option keep_logit=<t>`` with ``src``'s other options would write (the same
    weights for the same seed), without training again; its model ids carry the new options hash.

    Returns:
        The manifest written to ``dst/manifest.json``.

    Raises:
        DataNotFoundError: nothing trained in ``src``.
        ConfigError: ``dst`` is ``src`` or already holds a trained directory.
    """
    import shutil

    from ..errors import ConfigError

    torch = require("torch", "torch")
    src, dst = Path(src), Path(dst)
    if not (src / MANIFEST_FILE).is_file():
        raise DataNotFoundError(f"{src / MANIFEST_FILE}: no trained learned selectors here")
    if dst.resolve() == src.resolve() or (dst / MANIFEST_FILE).exists():
        raise ConfigError(f"{dst}: already a trained directory; give a new one")
    manifest = json.loads((src / MANIFEST_FILE).read_text(encoding="utf-8"))
    names = [manifest.get("model", MODEL_FILE), *(manifest.get("fold_models") or [])]
    dst.mkdir(parents=True, exist_ok=True)
    if (src / EMBEDDINGS_FILE).is_file():
        shutil.copy2(src / EMBEDDINGS_FILE, dst / EMBEDDINGS_FILE)
    for name in names:
        blob = torch.load(src / name, map_location="cpu", weights_only=True)
        inner = json.loads(blob["manifest"])
        inner["options"] = resolve_options({**recorded(inner.get("options")), "keep_logit": keep_logit})
        blob["manifest"] = json.dumps(inner, sort_keys=True)
        torch.save(blob, dst / name)
    manifest["options"] = resolve_options({**recorded(manifest.get("options")), "keep_logit": keep_logit})
    manifest["keep_logit_from"] = str(src)
    (dst / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def load_learned(kb: KnowledgeBase, out: str | os.PathLike[str], *, held_out: bool = False,
                 encoder: VectorEncoder | None = None) -> LearnedModel | FoldedModel:
    """The full model of a trained directory, or (``held_out``) its fold models.

    Raises:
        DataNotFoundError: nothing trained there (or no folds for ``held_out``).
        DataError: a corrupt or other-version file (named in the message).
    """
    out = Path(out)
    mpath = out / MANIFEST_FILE
    if not mpath.is_file():
        raise DataNotFoundError(
            f"{mpath}: no trained learned selectors here; run `coat train --seed 0 --folds 5 --out {out}`"
        )
    manifest = read_json(mpath)
    if not isinstance(manifest, dict):
        raise DataError(mpath, "", f"expected a JSON object; {_RETRAIN}")
    check_recorded_options(mpath, manifest.get("options"))
    if manifest.get("version") != FORMAT_VERSION:
        got = manifest.get("version")
        raise DataError(mpath, "", f"format {got!r}, this planner reads {FORMAT_VERSION}; {_RETRAIN}")
    feat = featurizer(kb, out / EMBEDDINGS_FILE, encoder)
    if not held_out:
        return LearnedModel.load(out / MODEL_FILE, feat)
    names = manifest.get("fold_models") or []
    if not names:
        raise DataNotFoundError(f"{mpath}: trained without folds; held-out evaluation needs `coat train --folds 5`")
    split = manifest.get("split", "combinations")  # manifests written before the object split had no "split"
    if split not in SPLITS:
        raise DataError(mpath, "", f"unknown split {split!r} (this planner reads {', '.join(SPLITS)}); {_RETRAIN}")
    return FoldedModel([LearnedModel.load(out / n, feat) for n in names], split=split)


def default_dir() -> Path:
    """Where ``coat train`` writes and ``--strategy learned`` reads by default (the user cache)."""
    from ..paths import cache_data_dir

    return cache_data_dir().parent / "learned"


__all__ = ["DEFAULTS", "MAX_WORKERS", "default_dir", "featurizer", "load_learned", "recorded", "resolve_options",
           "set_keep_logit", "train_dir", "train_model", "training_identity"]
