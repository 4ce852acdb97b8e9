"""The learned selectors' model: two small torch heads over cached sentence embeddings.

:class:`LearnedModel` answers both stages:

* ``suits(task, utility, objects) -> [logit]``: does each object suit (utility, task) (stage 1);
* ``rank(task, utility, candidates) -> [score]``: higher is a better configuration (stage 2).

A model file is a torch checkpoint (tensors and plain values only, read with ``weights_only``) holding
:data:`FORMAT_VERSION`, the head sizes, the weights and a manifest (encoder id, data checksums, seed, fold,
held-out combinations or object types). :class:`FoldedModel` routes each question to the fold model for
which it is held out, for honest evaluation. torch is imported on first use only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

from .._optional import require
from ..errors import ConfigError, DataError, DataNotFoundError
from ..schemas import PhysicalState, Question
from .data import Combo
from .features import STATE_DIM, EmbeddingCache, object_text, state_vector, task_text
from .neighbours import SuitExtras, n_extra
from .rules import RuleRanker

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
MODEL_FILE = "model.pt"
MANIFEST_FILE = "manifest.json"
EMBEDDINGS_FILE = "embeddings.npz"
_RETRAIN = "run `coat train --seed 0 --folds 5` to (re)build it"


NEUTRAL_OPTIONS: dict[str, Any] = {"keep_logit": 0.0, "stage2": "mlp", "rules_k": 10, "rules_temp": 0.1,
                                   "rules_utility": 0.5, "batch1": 0}
"""Options added after models were already trained, with the value an older manifest (without them) means.
:func:`options_tag` leaves such an option out while it has that value, so a model trained before the option
existed and one trained after with the same behaviour share an id."""

DEFAULT_KEEP_LOGIT = 0.0
"""Stage-1 keep threshold of a model whose options do not set ``keep_logit`` (models trained before it)."""


def options_tag(options: Mapping[str, Any]) -> str:
    """``o`` + 8 hex digits of a hash of the training options (sorted JSON): equal options, equal tag.

    An option of :data:`NEUTRAL_OPTIONS` at its neutral value is left out of the hash."""
    kept = {k: v for k, v in options.items() if not (k in NEUTRAL_OPTIONS and v == NEUTRAL_OPTIONS[k])}
    blob = json.dumps(kept, sort_keys=True, default=str)
    return "o" + hashlib.sha256(blob.encode()).hexdigest()[:8]


def fold_file(i: int) -> str:
    """File name of fold ``i``'s model."""
    return f"fold-{i}.pt"


def _torch() -> Any:
    return require("torch", "torch")


@functools.cache
def _dropout_class() -> Any:
    torch = _torch()
    shifts = torch.arange(8, dtype=torch.uint8)
    scaled = ((torch.arange(256, dtype=torch.uint8).unsqueeze(-1) >> shifts) & 1).float() * 2  # byte -> 8 of 0 or 2

    class Dropout(torch.nn.Dropout):  # type: ignore[misc, name-defined]
        """``nn.Dropout`` drawing its mask from ``generator`` (a model's own while ``coat train`` trains several at
        once; None: torch's global one). At p = 0.5 (the default) the mask is drawn as random bits, eight per byte:
        the same Bernoulli(0.5) distribution as torch's own draw, about ten times cheaper on a CPU where torch draws
        a Bernoulli mask one element at a time (it does unless MKL's generator is used, on Intel CPUs only). On an
        input that needs no gradient (the stage-1 rows, ~90 MB) the mask and the result are written into the same
        two tensors every step instead of new ones, whose fresh pages cost more than the product: the result is
        valid until the next call with an input of that shape (a training step's backward pass). No parameters:
        model files are the same either way."""

        generator: Any = None

        def forward(self, x: Any) -> Any:
            if not self.training or self.p == 0:
                return x
            if self.p != 0.5:
                keep = torch.rand(x.shape, generator=self.generator, dtype=x.dtype) >= self.p
                return x * keep / (1 - self.p)
            n = x.numel()
            bits = torch.randint(0, 256, ((n + 7) // 8,), dtype=torch.uint8, generator=self.generator).int()
            table = scaled.to(x.dtype)
            if x.requires_grad:  # a hidden layer's activations: autograd keeps what the backward pass needs
                return x * table.index_select(0, bits).view(-1)[:n].view(x.shape)
            key = (tuple(x.shape), x.dtype)
            scratch = self.__dict__.setdefault("_scratch", {})
            if key not in scratch:
                scratch[key] = (torch.empty(((n + 7) // 8, 8), dtype=x.dtype), torch.empty_like(x))
            mask, out = scratch[key]
            torch.index_select(table, 0, bits, out=mask)
            return torch.mul(x, mask.view(-1)[:n].view(x.shape), out=out)  # kept values scaled by 1 / (1 - p)

    return Dropout


def use_generator(heads: Any, generator: Any) -> None:
    """Draw every dropout mask of ``heads`` from ``generator``; None: from torch's global generator again, and the
    tensors kept for training's steps are let go."""
    for m in heads.modules():
        if isinstance(m, _dropout_class()):
            m.generator = generator
            if generator is None:
                m.__dict__.pop("_scratch", None)


def _dropout(p: float) -> Any:
    return _dropout_class()(p)


def _extra_head(dim: int, hidden: int, dropout: float, extra_inputs: int) -> Any:
    """Stage 1 with ``extra_inputs`` scalar inputs after the 5 x dim embedding features: the scalars skip the input
    dropout, enter the hidden layer and also add to the logit linearly."""
    nn = _torch().nn
    torch = _torch()

    class SuitsWithExtras(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.drop_in = _dropout(dropout)
            self.hidden = nn.Linear(5 * dim + extra_inputs, hidden)
            self.drop = _dropout(dropout)
            self.out = nn.Linear(hidden, 1)
            self.skip = nn.Linear(extra_inputs, 1, bias=False)

        def forward(self, x: Any) -> Any:
            emb, extra = x[:, : 5 * dim], x[:, 5 * dim:]
            h = torch.relu(self.hidden(torch.cat([self.drop_in(emb), extra], dim=1)))
            return self.out(self.drop(h)) + self.skip(extra)

    return SuitsWithExtras()


def build_heads(dim: int, hidden: int, dropout: float = 0.0, extra_inputs: int = 0) -> Any:
    """The two heads: stage 1 over 5 x dim features (plus ``extra_inputs`` scalars, see
    :mod:`planner.learned.neighbours`), stage 2 over 4 x dim + the state one-hot."""
    nn = _torch().nn
    suits = (_extra_head(dim, hidden, dropout, extra_inputs) if extra_inputs else
             nn.Sequential(_dropout(dropout), nn.Linear(5 * dim, hidden), nn.ReLU(), _dropout(dropout),
                           nn.Linear(hidden, 1)))
    return nn.ModuleDict({
        "suits": suits,
        "rank": nn.Sequential(nn.Linear(4 * dim + STATE_DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden // 2),
                              nn.ReLU(), nn.Linear(hidden // 2, 1)),
    })


class Featurizer:
    """Feature rows for the heads, from an :class:`EmbeddingCache`."""

    def __init__(self, cache: EmbeddingCache, phrases: Mapping[str, str]) -> None:
        self.cache = cache
        self.phrases = dict(phrases)

    def _parts(self, task: str | None, utility: str, objects: Sequence[str]) -> tuple[np.ndarray, ...]:
        texts = [task_text(task), self.phrases.get(utility, utility), *(object_text(o) for o in objects)]
        emb = self.cache.embed(texts)
        n = len(objects)
        return np.repeat(emb[:1], n, 0), np.repeat(emb[1:2], n, 0), emb[2:]

    def suits(self, task: str | None, utility: str, objects: Sequence[str]) -> np.ndarray:
        """Rows [task, utility, object, task*object, utility*object]."""
        t, u, o = self._parts(task, utility, objects)
        return np.concatenate([t, u, o, t * o, u * o], axis=1)

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> np.ndarray:
        """Rows [task, utility, object, task*object, state one-hot]."""
        t, u, o = self._parts(task, utility, [p[0] for p in pairs])
        s = np.stack([state_vector(p[1]) for p in pairs])
        return np.concatenate([t, u, o, t * o, s], axis=1)


class LearnedModel:
    """Trained heads plus the featurizer; see the module docstring."""

    def __init__(self, heads: Any, featurizer: Featurizer, manifest: Mapping[str, Any]) -> None:
        self.heads = heads.eval()
        self.featurizer = featurizer
        self.manifest = dict(manifest)
        opts = self.manifest.get("options") or {}
        self.extras = (SuitExtras(self.manifest.get("neighbours") or {}, featurizer.cache, featurizer.phrases, opts)
                       if n_extra(opts) else None)
        self.ranker = (RuleRanker(self.manifest.get("rules") or [], featurizer.cache, k=int(opts["rules_k"]),
                                  temp=float(opts["rules_temp"]), utility_bonus=float(opts["rules_utility"]))
                       if opts.get("stage2") == "rules" else None)

    def __repr__(self) -> str:
        return f"LearnedModel(seed={self.manifest.get('seed')}, fold={self.manifest.get('fold')})"

    @property
    def model_id(self) -> str:
        """A short id recorded in decisions: version, seed, a hash of the training options, fold.

        The options hash (:func:`options_tag`) keeps models trained with different ``--option`` values apart in
        anything keyed by the id."""
        m = self.manifest
        return (f"learned-v{FORMAT_VERSION}-seed{m.get('seed')}-{options_tag(m.get('options') or {})}"
                + (f"-fold{m['fold']}" if m.get("fold") is not None else ""))

    @property
    def keep_logit(self) -> float:
        """Stage-1 keep threshold this model was tuned with (option ``keep_logit``): the ``learned`` strategy keeps
        every object whose logit is at least this (and always the best)."""
        return float((self.manifest.get("options") or {}).get("keep_logit", DEFAULT_KEEP_LOGIT))

    def _run(self, head: str, x: np.ndarray) -> list[float]:
        torch = _torch()
        with torch.no_grad():
            return [float(v) for v in self.heads[head](torch.from_numpy(x)).squeeze(-1)]

    def suit_rows(self, task: str | None, utility: str, objects: Sequence[str]) -> np.ndarray:
        """Stage-1 input rows: the featurizer's, then this model's extra inputs (if its options ask for any)."""
        x = self.featurizer.suits(task, utility, objects)
        if self.extras is None:
            return x
        return np.concatenate([x, self.extras.rows(task, utility, objects)], axis=1)

    def suits(self, task: str | None, utility: str, objects: Sequence[str]) -> list[float]:
        """Stage 1 logits (> 0: suits) for each object."""
        return self._run("suits", self.suit_rows(task, utility, objects))

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> list[float]:
        """Stage 2 scores (higher is better) for each (object, state)."""
        if self.ranker is not None:
            return self.ranker.rank(task, utility, pairs)
        return self._run("rank", self.featurizer.rank(task, utility, pairs))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the checkpoint (weights, version, head sizes, manifest)."""
        torch = _torch()
        blob = {"version": FORMAT_VERSION, "dim": int(self.manifest["dim"]), "hidden": int(self.manifest["hidden"]),
                "dropout": float(self.manifest.get("dropout", 0.0)),
                "n_extra": n_extra(self.manifest.get("options") or {}), "state": self.heads.state_dict(),
                "manifest": json.dumps(self.manifest, sort_keys=True)}
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")  # written whole, then renamed: never seen half written
        torch.save(blob, tmp)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], featurizer: Featurizer) -> LearnedModel:
        """Read a checkpoint written by :meth:`save`.

        Raises:
            DataNotFoundError: no such file.
            DataError: the file is not a model of this version (corrupt, truncated, other format).
        """
        torch = _torch()
        path = Path(path)
        if not path.is_file():
            raise DataNotFoundError(f"{path}: no learned model here; {_RETRAIN}")
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:  # torch raises many types for a bad file (pickle, zip, EOF)
            # only the type: torch's text for a bad file suggests weights_only=False, which is unsafe here
            raise DataError(path, "", f"not a readable learned model ({type(e).__name__}); {_RETRAIN}") from e
        if not isinstance(blob, dict) or blob.get("version") != FORMAT_VERSION:
            got = blob.get("version") if isinstance(blob, dict) else type(blob).__name__
            raise DataError(path, "", f"learned model format {got!r}, this planner reads {FORMAT_VERSION}; {_RETRAIN}")
        try:
            heads = build_heads(int(blob["dim"]), int(blob["hidden"]), float(blob.get("dropout", 0.0)),
                                int(blob.get("n_extra", 0)))
            heads.load_state_dict(blob["state"])
            manifest = json.loads(blob["manifest"])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise DataError(path, "", f"learned model does not match its declared shape ({e}); {_RETRAIN}") from e
        bad = [k for k, t in blob["state"].items() if not bool(torch.isfinite(t).all())]
        if bad:
            raise DataError(path, f"state/{bad[0]}", f"NaN or infinite weights (training diverged); {_RETRAIN}")
        check_recorded_options(path, manifest.get("options"))
        enc = manifest.get("encoder")
        if enc != featurizer.cache.model_id:
            raise ConfigError(f"{path}: trained on encoder {enc!r}, not {featurizer.cache.model_id!r}; {_RETRAIN}")
        try:
            return cls(heads, featurizer, manifest)
        except (KeyError, ValueError, TypeError, AttributeError) as e:  # a rule table that is missing or corrupt
            raise DataError(path, "rules", f"learned model's stage-2 rules are unreadable ({e}); {_RETRAIN}") from e


def check_recorded_options(path: Path, options: Any) -> None:
    """A manifest's training options are finite and in range (:data:`planner.learned.train.OPTION_RANGES`): a
    NaN ``keep_logit`` would keep no object, silently.

    Raises:
        DataError: naming the file and the option.
    """
    from .train import option_value

    if options is None:
        return
    if not isinstance(options, dict):
        raise DataError(path, "options", f"expected an object of training options; {_RETRAIN}")
    for key, value in options.items():
        try:
            option_value(key, value)
        except ConfigError as e:
            if "is not a training option" not in str(e):  # an option of another version is kept as it is
                raise DataError(path, f"options/{key}", f"{e}; {_RETRAIN}") from None


class FoldedModel:
    """Fold models; each question goes to the fold model for which it is held out.

    ``split="combinations"``: the model whose held-out combinations include the question's (utility, task);
    :meth:`suits` / :meth:`rank` route by their (utility, task) arguments.

    ``split="objects"``: the model whose held-out object types include the object of the question's correct
    option (the other options' objects may have been seen in training). The answer is not among
    :meth:`suits` / :meth:`rank`'s arguments, so a question is routed with :meth:`routing` (which
    :meth:`planner.pipeline.DecisionPipeline.decide` enters for every question); outside it they raise.
    """

    def __init__(self, models: Sequence[LearnedModel], split: str = "combinations") -> None:
        from .data import check_split

        self.models = list(models)
        self.split = check_split(split)
        self._route: dict[Combo, LearnedModel] = {}
        self._by_object: dict[str, LearnedModel] = {}
        for m in self.models:
            for u, t in m.manifest.get("held_out", []):
                self._route[(u, t)] = m
            for o in m.manifest.get("held_out_objects", []):
                self._by_object[o] = m
        self._current: ContextVar[LearnedModel | None] = ContextVar(f"coat_fold_route_{id(self)}", default=None)
        keeps = sorted({m.keep_logit for m in self.models})
        if len(keeps) > 1:
            raise ConfigError(f"fold models with different stage-1 keep thresholds (keep_logit {keeps}): retrain them "
                              "together with one `coat train --folds K`")

    def __repr__(self) -> str:
        return f"FoldedModel({len(self.models)} folds, split={self.split})"

    @property
    def model_id(self) -> str:
        """The folds' shared id (``-objects`` for the object split)."""
        base = self.models[0].model_id.rsplit("-fold", 1)[0] + f"-heldout{len(self.models)}"
        return base + ("-objects" if self.split == "objects" else "")

    @property
    def keep_logit(self) -> float:
        """The folds' shared stage-1 keep threshold (:attr:`LearnedModel.keep_logit`)."""
        return self.models[0].keep_logit

    def fold_for(self, question: Question) -> LearnedModel:
        """The fold model for which ``question`` is held out (see the class docstring for the rule).

        Raises:
            ConfigError: no fold holds out the question's combination (or its correct option's object).
        """
        if self.split != "objects":
            return self._by_combo(question.task, question.utility)
        obj = question.option(question.answer).object
        m = self._by_object.get(obj)
        if m is None:
            raise ConfigError(f"no fold holds out object {obj!r} (the correct option of question {question.id!r}): "
                              "held-out evaluation by objects covers COAT's object types only")
        return m

    @contextmanager
    def routing(self, question: Question) -> Iterator[LearnedModel]:
        """Within this block (in this thread), :meth:`suits` and :meth:`rank` use :meth:`fold_for` ``(question)``."""
        token = self._current.set(self.fold_for(question))
        try:
            yield self._current.get()  # type: ignore[misc]
        finally:
            self._current.reset(token)

    def _by_combo(self, task: str | None, utility: str) -> LearnedModel:
        m = self._route.get((utility, task))
        if m is None:
            raise ConfigError(f"no fold holds out ({utility!r}, {task!r}): held-out evaluation covers COAT's "
                              "combinations only")
        return m

    def model_for(self, task: str | None, utility: str) -> LearnedModel:
        """The fold model answering (utility, task) now: the one :meth:`routing` chose, else (combination
        split) the one that never saw (utility, task).

        Raises:
            ConfigError: no fold holds this combination out (it is not one of COAT's), or the object split
                outside :meth:`routing` (only a question's answer says which fold holds it out).
        """
        m = self._current.get()
        if m is not None:
            return m
        if self.split == "objects":
            raise ConfigError("held-out models split by objects answer whole questions only (the fold is the one "
                              "that held out the correct option's object): use decide(question), not select()")
        return self._by_combo(task, utility)

    def suits(self, task: str | None, utility: str, objects: Sequence[str]) -> list[float]:
        """:meth:`LearnedModel.suits` of the routed fold."""
        return self.model_for(task, utility).suits(task, utility, objects)

    def rank(self, task: str | None, utility: str, pairs: Sequence[tuple[str, PhysicalState | None]]) -> list[float]:
        """:meth:`LearnedModel.rank` of the routed fold."""
        return self.model_for(task, utility).rank(task, utility, pairs)


__all__ = ["DEFAULT_KEEP_LOGIT", "EMBEDDINGS_FILE", "FORMAT_VERSION", "MANIFEST_FILE", "MODEL_FILE", "Featurizer",
           "FoldedModel", "LearnedModel", "NEUTRAL_OPTIONS", "build_heads", "fold_file", "options_tag"]
