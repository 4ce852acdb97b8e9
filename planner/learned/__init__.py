"""Learned selectors from COAT's annotations, over cached MiniLM embeddings.

Stage 1 is a small torch head: does an object suit (utility, task). Stage 2 prices a configuration with the cost
rules of the most similar training (combination, object) pairs (:mod:`planner.learned.rules`, the default), or
with a second torch head trained to rank configurations ideal > moderate > bad (``stage2=mlp``). Held-out fold
models are split by combinations or by whole object types (:data:`SPLITS`). ``coat train`` trains them; the
``learned`` strategy uses them. torch loads only when a model is trained or loaded.
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
