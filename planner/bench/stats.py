"""Statistics a paper can cite for an ablation: accuracy with a bootstrap interval, and two pipelines compared on
the same questions (the paired difference with its interval, and McNemar's exact test).

The numbers come from scipy (extra ``stats``): :func:`scipy.stats.bootstrap` for the intervals (BCa, 9,999
resamples, a seeded generator, so a rerun gives the same interval to the last digit) and
:func:`scipy.stats.binomtest` for McNemar's exact p-value (under the null the discordant pairs split 1/2 : 1/2).

Two cases a bootstrap cannot handle are decided here, and documented where they show:

* every value equal (every answer right, or none; or, for the difference, no discordant pair): the bootstrap
  distribution is a single point, so the interval is that point (``method="point"``), and the sample size beside
  it says how much it is worth;
* BCa undefined for another reason (scipy returns NaN): the percentile interval of the same resamples
  (``method="percentile"``).

Example:
    >>> a = accuracy([True] * 12 + [False] * 8, seed=0)            # doctest: +SKIP
    >>> a.estimate, a.low, a.high                                 # doctest: +SKIP
    (60.0, 40.0, 80.0)
    >>> mcnemar_exact(1, 6)                                       # doctest: +SKIP
    0.125
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .._optional import require
from ..errors import ConfigError, DataError

CONFIDENCE = 0.95
"""Confidence level of every interval."""
N_RESAMPLES = 9_999
"""Bootstrap resamples (scipy's default)."""
METHOD = "BCa"
"""Bootstrap interval method: bias-corrected and accelerated."""


def require_stats() -> Any:
    """Import ``scipy.stats``, or raise :class:`~planner.errors.DependencyNotInstalled` with the install line."""
    require("scipy", "stats")
    import scipy.stats

    return scipy.stats


@dataclass(frozen=True)
class Interval:
    """An estimate in percent (or percentage points) with its confidence interval.

    Attributes:
        estimate: The sample mean x 100.
        low: Lower end of the interval.
        high: Upper end of the interval.
        method: ``BCa``, ``percentile`` (BCa undefined) or ``point`` (every value equal; see the module docstring).
    """

    estimate: float
    low: float
    high: float
    method: str


def bootstrap_mean(values: Sequence[float], *, seed: int, confidence: float = CONFIDENCE,
                   n_resamples: int = N_RESAMPLES) -> Interval | None:
    """The mean of ``values`` x 100 with its bootstrap interval; None for no values.

    Args:
        values: One number per question (1/0 for right/wrong; -1/0/1 for a paired difference).
        seed: Seeds the resampling (``numpy.random.default_rng(seed)``): the same values and seed give the same
            interval.
        confidence: Confidence level, in (0, 1).
        n_resamples: Bootstrap resamples.

    Raises:
        ConfigError: a value that is not a finite number, or a confidence level outside (0, 1).
        DependencyNotInstalled: scipy is missing.
    """
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence must be in (0, 1), got {confidence!r}")
    xs = [float(v) for v in values]
    if not all(math.isfinite(v) for v in xs):
        raise ConfigError("bootstrap_mean() needs finite numbers; got NaN or infinity")
    if not xs:
        return None
    mean = 100.0 * math.fsum(xs) / len(xs)
    if min(xs) == max(xs):
        return Interval(mean, mean, mean, "point")
    import warnings

    import numpy as np

    stats = require_stats()
    data = (np.asarray(xs),)
    method = METHOD
    with warnings.catch_warnings():  # BCa's NaN case is handled below, not printed
        warnings.simplefilter("ignore")
        res = stats.bootstrap(data, np.mean, n_resamples=n_resamples, confidence_level=confidence, method=METHOD,
                              rng=np.random.default_rng(seed))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if not (math.isfinite(low) and math.isfinite(high)):
            method = "percentile"
            res = stats.bootstrap(data, np.mean, n_resamples=n_resamples, confidence_level=confidence,
                                  method="percentile", rng=np.random.default_rng(seed))
            low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return Interval(mean, 100.0 * low, 100.0 * high, method)


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact two-sided p-value for ``b`` and ``c`` discordant pairs (a binomial test of b in b + c at 1/2).

    No discordant pair (``b + c == 0``) is no evidence of a difference: p = 1.

    Raises:
        ConfigError: a negative or non-integer count.
    """
    for name, v in (("b", b), ("c", c)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ConfigError(f"mcnemar_exact() needs counts >= 0, got {name}={v!r}")
    if b + c == 0:
        return 1.0
    return float(require_stats().binomtest(b, b + c, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class Accuracy:
    """Accuracy of ``n`` questions in percent, with its interval (None when ``n == 0``)."""

    n: int
    correct: int
    interval: Interval | None


def accuracy(correct: Iterable[bool], *, seed: int) -> Accuracy:
    """Accuracy (percent) of right/wrong answers with its bootstrap interval (see :func:`bootstrap_mean`)."""
    xs = [bool(x) for x in correct]
    return Accuracy(len(xs), sum(xs), bootstrap_mean([float(x) for x in xs], seed=seed))


@dataclass(frozen=True)
class Paired:
    """Two pipelines, A and B, on the questions both answered.

    Attributes:
        n: Questions both answered (the pairs).
        both_right, only_a, only_b, both_wrong: The 2 x 2 table.
        a, b: Accuracy of each on the pairs.
        difference: B - A in percentage points with its interval (the mean of the per-question differences,
            bootstrapped over questions), None without pairs.
        mcnemar_p: McNemar's exact p-value on ``only_a`` vs ``only_b`` (None without pairs).
        unpaired: Questions only one of them answered (left out of everything above).
    """

    n: int
    both_right: int
    only_a: int
    only_b: int
    both_wrong: int
    a: Accuracy
    b: Accuracy
    difference: Interval | None
    mcnemar_p: float | None
    unpaired: int


def _by_question(rows: Sequence[Mapping[str, Any]], what: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for i, r in enumerate(rows):
        qid, ok = r.get("question_id"), r.get("correct")
        if not isinstance(qid, str) or not isinstance(ok, bool):
            raise DataError(what, f"row {i + 1}", "a result row needs a question_id (text) and correct (true/false)")
        if qid in out:
            raise DataError(what, f"row {i + 1}", f"question {qid!r} is answered twice; one row per question")
        out[qid] = ok
    return out


def paired(a_rows: Sequence[Mapping[str, Any]], b_rows: Sequence[Mapping[str, Any]], *, seed: int,
           sources: tuple[str, str] = ("A rows", "B rows")) -> Paired:
    """Compare two pipelines' result rows on the questions both answered (matched by ``question_id``).

    No question in common is an empty result, not an error: ``n == 0`` and every estimate None (the report shows
    ``-``).

    Args:
        a_rows, b_rows: Result rows (``question_id``, ``correct``), e.g. of ``coat ablate``'s single and two-stage.
        seed: Bootstrap seed (:func:`bootstrap_mean`).
        sources: Where each list of rows comes from (its file), named in errors.

    Raises:
        DataError: a row without a question id or a right/wrong, or a question answered twice by one pipeline.
    """
    a, b = _by_question(a_rows, sources[0]), _by_question(b_rows, sources[1])
    ids = [q for q in a if q in b]
    unpaired = len(a) + len(b) - 2 * len(ids)
    cells = {(x, y): 0 for x in (True, False) for y in (True, False)}
    for q in ids:
        cells[a[q], b[q]] += 1
    only_a, only_b = cells[True, False], cells[False, True]
    return Paired(
        n=len(ids), both_right=cells[True, True], only_a=only_a, only_b=only_b, both_wrong=cells[False, False],
        a=accuracy((a[q] for q in ids), seed=seed), b=accuracy((b[q] for q in ids), seed=seed),
        difference=bootstrap_mean([float(b[q]) - float(a[q]) for q in ids], seed=seed),
        mcnemar_p=mcnemar_exact(only_b, only_a) if ids else None, unpaired=unpaired,
    )


def as_dict(value: Accuracy | Paired | Interval | None) -> dict[str, Any] | None:
    """A result as JSON-able data (percentages to 2 decimals; the p-value as computed)."""
    if value is None:
        return None
    return _rounded(asdict(value))


def _rounded(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _rounded(v) if k != "mcnemar_p" else v for k, v in x.items()}
    if isinstance(x, float):
        return round(x, 2)
    return x


__all__ = ["CONFIDENCE", "METHOD", "N_RESAMPLES", "Accuracy", "Interval", "Paired", "accuracy", "as_dict",
           "bootstrap_mean", "mcnemar_exact", "paired", "require_stats"]
