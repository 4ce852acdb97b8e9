"""Train the learned selectors on first use: the ``learned`` strategy loads what ``coat train`` wrote, or, when
nothing is there yet, trains the full model (no folds) into that directory with a progress bar.

Training is deterministic for a seed and single-threaded; the full model takes a few minutes on 2 cores (the
MiniLM embeddings of COAT's texts are computed once and cached beside it). A corrupt or other-version file is
not retrained silently: it is a :class:`~planner.errors.DataError` that says to run ``coat train`` again.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    if not (out / MANIFEST_FILE).is_file():
        logger.warning("no learned selectors in %s yet: training them now (first use; a few minutes, "
                       "`coat train --seed %d --out %s` does the same)", out, seed, out)
        out.mkdir(parents=True, exist_ok=True)
        train_dir(kb, out, seed=seed, folds=1, encoder=encoder, options=options, progress=progress)
    return load_learned(kb, out, encoder=encoder)  # type: ignore[return-value]


__all__ = ["ensure_learned"]
