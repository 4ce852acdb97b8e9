"""Learned selectors: small torch heads over cached MiniLM embeddings, trained on COAT's annotations.

Stage 1 learns whether an object suits (utility, task); stage 2 learns to rank configurations ideal >
moderate > bad by the cost model's penalty. Held-out fold models are split by combinations or by whole object
types (:data:`SPLITS`). ``coat train`` trains them; the ``learned`` strategy uses them.
torch loads only when a model is trained or loaded.
"""

from .data import (
    SPLITS,
    combinations,
    fold_split,
    make_folds,
    object_split,
    rank_examples,
    suit_examples,
    training_examples,
)
from .features import EmbeddingCache, MiniLMVectors, VectorEncoder
from .model import FORMAT_VERSION, FoldedModel, LearnedModel
from .train import default_dir, load_learned, train_dir, train_model

__all__ = ["FORMAT_VERSION", "SPLITS", "EmbeddingCache", "FoldedModel", "LearnedModel", "MiniLMVectors",
           "VectorEncoder", "combinations", "default_dir", "fold_split", "load_learned", "make_folds", "object_split",
           "rank_examples", "suit_examples", "train_dir", "train_model", "training_examples"]
