"""Perception: estimate the five COAT variables of each object from metadata, frames or text.

``import perception`` is cheap: OpenCV and torch are imported only when a vision estimator or classifier is
built (``VisionEstimator`` needs the ``vision`` extra; ``TorchStateClassifier`` also torch).

Example:
    >>> from perception import MetadataEstimator, StateEstimator
    >>> isinstance(MetadataEstimator(), StateEstimator)
    True
"""

from __future__ import annotations

from .base import (
    CompositeEstimator,
    FusedEstimator,
    ObjectEstimate,
    PriorVariable,
    StateEstimator,
    VariableEstimate,
    VariableEstimator,
)
from .metadata import MetadataEstimator, mass_bucket
from .priors import TypePriors, default_priors
from .state_classifiers import (
    OpenCVStateClassifier,
    SchematicStateClassifier,
    StateClassifier,
    TorchStateClassifier,
)
from .text import TextEstimator
from .vision import VisionEstimator

__all__ = [
    "CompositeEstimator",
    "FusedEstimator",
    "MetadataEstimator",
    "ObjectEstimate",
    "OpenCVStateClassifier",
    "PriorVariable",
    "SchematicStateClassifier",
    "StateClassifier",
    "StateEstimator",
    "TextEstimator",
    "TorchStateClassifier",
    "TypePriors",
    "VisionEstimator",
    "VariableEstimate",
    "VariableEstimator",
    "default_priors",
    "mass_bucket",
]
