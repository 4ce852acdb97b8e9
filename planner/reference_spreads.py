"""Stage 1's reference spreads for the embedded models, shipped with the package (``reference_spreads.json``).

The ``ensemble`` keep rule divides the ``utility`` signal by its spread over COAT's 100 object types, a number per
model and utility (:meth:`planner.object_selector.ObjectSelector.calibrate`). Computing it takes about 100 scoring
calls, 10 to 12 s per utility with the embedded models on 2 cores: from an empty model-call cache it was most of the
time of a short evaluation (``benchmarks/decision.md``). The spreads of the embedded models are computed once, by
``scripts/reference_spreads.py``, and shipped here, as the models themselves are.

A shipped spread is used only when it was computed from the same thing the selector would compute it from now:

* the same calls: every reference object's prompt, the utility's need phrase and the neutral prompt hash to the
  recorded ``prompts`` (other COAT data, another wording or another object vocabulary do not);
* the same model and arithmetic: one of those calls, the first reference object's, is made and must give the
  recorded score within :data:`PROBE_TOLERANCE` nats (another model file under the same name, or a llama.cpp
  build whose numbers differ, does not).

Otherwise the spread is computed as before (and its calls cached), and the log says why.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import DataError
from .prompting import prompt_hash

log = logging.getLogger(__name__)

FILE = "reference_spreads.json"
FORMAT = 1
PROBE_TOLERANCE = 0.01
"""Nats the probe call may differ by from its recorded score (llama.cpp's kernels differ by far less on one
machine; another model differs by far more)."""

Request = tuple[str, Sequence[str], str]
"""One scoring call: ``(prompt, options, neutral prompt)``."""


def requests_hash(requests: Sequence[Request]) -> str:
    """A hash of every call a spread is computed from, in order."""
    return prompt_hash(*(json.dumps([p, list(o), n]) for p, o, n in requests))


@lru_cache(maxsize=1)
def shipped() -> dict[tuple[str, str, str], dict[str, Any]]:
    """The shipped entries by ``(model id, signal, utility)``.

    Raises:
        DataError: the file is not the format this code reads (a broken install).
    """
    return parse(resources.files("planner").joinpath(FILE).read_text(encoding="utf-8"))


def parse(text: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Entries by ``(model id, signal, utility)`` of a spreads file's text (see :func:`shipped`)."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise DataError(FILE, "", f"not JSON ({e}); reinstall coat-planner") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("spreads"), list):
        raise DataError(FILE, "format", f"expected format {FORMAT} with a list of spreads; reinstall coat-planner")
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for i, e in enumerate(data["spreads"]):
        keys = ("model_id", "signal", "utility", "prompts")
        ok = (isinstance(e, dict) and all(isinstance(e.get(k), str) for k in keys)
              and isinstance(e.get("spread"), float) and math.isfinite(e["spread"]) and e["spread"] > 0
              and isinstance(e.get("probe"), dict) and isinstance(e["probe"].get("score"), float))
        if not ok:
            raise DataError(FILE, f"spreads/{i}", "an entry needs model_id, signal, utility, prompts, a spread > 0 "
                            "and a probe score")
        out[e["model_id"], e["signal"], e["utility"]] = e
    return out


def shipped_spread(llm: Any, utility: str, requests: Sequence[Request], *, signal: str = "utility") -> float | None:
    """The shipped spread of ``signal`` for ``llm`` and ``utility`` if it was computed from ``requests`` (one per
    reference object) with this model (one probe call; see the module docstring), else None."""
    model_id = getattr(llm, "model_id", None)
    entry = shipped().get((str(model_id), signal, utility))
    if entry is None:
        return None
    if entry["prompts"] != requests_hash(requests):
        log.info("stage 1: the shipped %s spread of %s for %r was computed from other prompts or objects; computing "
                 "it", signal, model_id, utility)
        return None
    prompt, options, neutral = requests[0]
    (score,) = llm.score(prompt, list(options), neutral_prompt=neutral)
    if not abs(float(score) - entry["probe"]["score"]) <= PROBE_TOLERANCE:
        log.warning("stage 1: %s scores the probe of the shipped %s spread for %r at %.4f, not %.4f: another model "
                    "file or llama.cpp build; computing the spread", model_id, signal, utility, score,
                    entry["probe"]["score"])
        return None
    return float(entry["spread"])


def entry(model_id: str, utility: str, requests: Sequence[Request], values: Sequence[float], *,
          signal: str = "utility") -> dict[str, Any]:
    """A shipped entry for the spread of ``values`` (one per request, as the selector computed them)."""
    import statistics

    if len(values) != len(requests) or len(values) < 2:
        raise ValueError(f"need one value per request (at least 2), got {len(values)} for {len(requests)}")
    return {"model_id": model_id, "signal": signal, "utility": utility, "spread": statistics.pstdev(values),
            "prompts": requests_hash(requests), "probe": {"prompt": requests[0][0], "score": float(values[0])}}


def dumps(entries: Sequence[Mapping[str, Any]], note: str) -> str:
    """The file's text (sorted, one entry per line group), for the generator."""
    rows = sorted(entries, key=lambda e: (e["model_id"], e["signal"], e["utility"]))
    return json.dumps({"format": FORMAT, "note": note, "spreads": rows}, indent=1) + "\n"


__all__ = ["FILE", "FORMAT", "PROBE_TOLERANCE", "dumps", "entry", "parse", "requests_hash", "shipped", "shipped_spread"]
