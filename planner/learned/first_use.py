"""Train the learned selectors on first use: the ``learned`` strategy loads what ``coat train`` wrote, or, when
nothing is there yet, trains the full model (no folds) into that directory with a progress bar.

Training is deterministic for a seed and single-threaded; the full model takes about a minute on one core (the
MiniLM embeddings of COAT's texts are computed once and cached beside it). A corrupt or other-version file is
not retrained silently: it is a :class:`~planner.errors.DataError` that says to run ``coat train`` again.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DataError
from ..paths import data_checksums
from .model import MANIFEST_FILE
from .train import default_dir, load_learned, train_dir

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from .features import VectorEncoder
    from .model import LearnedModel

logger = logging.getLogger(__name__)


def ensure_learned(kb: KnowledgeBase, out: str | os.PathLike[str] | None = None, *, seed: int = 0,
                   encoder: VectorEncoder | None = None, options: dict[str, Any] | None = None,
                   progress: bool = True) -> LearnedModel:
    """The full learned model in ``out`` (default: the user cache), trained there first if nothing is there.

    Raises:
        DataError: a corrupt or other-version model file in ``out`` (run ``coat train`` to replace it).
    """
    out = Path(out) if out is not None else default_dir()
    sums = data_checksums(kb.root)
    if not (out / MANIFEST_FILE).is_file():
        logger.warning("no learned selectors in %s yet: training them now (first use; about a minute, "
                       "`coat train --seed %d --out %s` does the same)", out, seed, out)
        out.mkdir(parents=True, exist_ok=True)
        train_dir(kb, out, seed=seed, folds=1, encoder=encoder, options=options, checksums=sums, progress=progress)
    model = load_learned(kb, out, encoder=encoder)
    _check_data(out, sums)
    return model  # type: ignore[return-value]


def _check_data(out: Path, sums: dict[str, str]) -> None:
    """A model trained on other COAT files is a clear error, never used as if it were this data's."""
    try:
        recorded = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8")).get("data_checksums") or {}
    except (OSError, ValueError) as e:  # pragma: no cover - load_learned has read it already
        raise DataError(out / MANIFEST_FILE, "", f"unreadable ({e})") from e
    differ = sorted(k for k in recorded if k in sums and recorded[k] != sums[k])
    if differ:
        raise DataError(out / MANIFEST_FILE, "data_checksums", f"trained on other COAT data ({differ[0]} differs); "
                        f"move {out} away and run `coat train --seed 0 --out {out}` to train on this data (a "
                        "training never overwrites models of other data)")


__all__ = ["ensure_learned"]
