"""Perception: estimate the five COAT variables of each object from metadata, frames or text.

``import perception`` is cheap: OpenCV and torch are imported only when a vision estimator is built.

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

__all__ = [
    "CompositeEstimator",
    "FusedEstimator",
    "MetadataEstimator",
    "ObjectEstimate",
    "PriorVariable",
    "StateEstimator",
    "TypePriors",
    "VariableEstimate",
    "VariableEstimator",
    "default_priors",
    "mass_bucket",
]
