"""Log-likelihoods the embedded models give to fixed texts after fixed prompts, shipped with the package.

:meth:`~planner.llm.local.LlamaCppChatModel.score_options` subtracts logL(option | neutral prompt) from
logL(option | prompt). The neutral half depends only on the model and the option text, and the option texts the
COAT question sets can produce are known in advance (each configuration's description, each object's name, each
utility's need phrase, Yes and No); so does stage 1's ``utility`` signal (logL(need phrase | "A <object> is ...")),
which does not depend on the question either. Computing them was about half of a decision's CPU time from an empty
model-call cache. ``scripts/shipped_scores.py`` computes them once per embedded model, with the same code that
computes them at run time, and writes ``planner/llm/scores/<model>.json``, as the models themselves are shipped.

A table is used only for the model file it was computed with and only for the exact prompt it holds:

* the model: the file's SHA-256 (and its name and size) must be the table's, and llama.cpp's chunk size
  (:data:`~planner.llm.local.CHUNK`) the one it was computed with; otherwise the table is ignored and the log says
  why;
* the prompt: entries are keyed by the prompt as the model reads it (after its chat template: the neutral prompt's
  wording, the system prompt and the template are all in the key) and the option as it is tokenized, so another
  wording or template finds no entry and is computed;
* the arithmetic: the first time a table is used in a process, one entry (the shortest) is computed and must match
  within :data:`PROBE_TOLERANCE` nats (another llama.cpp build whose numbers differ is refused).

A text that is not in the table is computed as before (the same number: the table was made by the same code).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError

log = logging.getLogger(__name__)

FORMAT = 1
DIRECTORY = Path(__file__).with_name("scores")
"""Where the tables are shipped: ``<model name>.json``."""
PROBE_TOLERANCE = 1e-4
"""Nats the probe entry may differ by when computed again (the same build gives the same number to the last digit)."""

_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file, memoized per (path, size, mtime) in the process (0.1 s for SmolLM2's 98 MB)."""
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        h = hashlib.sha256()
        with p.open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


@dataclass
class ScoreTable:
    """One model's shipped log-likelihoods: ``scores[prompt][option]`` (the prompt as the model reads it, the option
    as it is tokenized), and what they were computed with."""

    path: Path
    model: dict[str, Any]
    chunk: int
    scores: dict[str, dict[str, float]]
    note: str = ""
    probed: bool | None = field(default=None, compare=False)
    """None until the probe entry was computed again in this process; then whether it matched."""

    def get(self, prompt: str, option: str) -> float | None:
        """The shipped logL of ``option`` after ``prompt``, or None."""
        return self.scores.get(prompt, {}).get(option)

    def mismatch(self, model_path: str | os.PathLike[str], chunk: int) -> str:
        """Why this table does not belong to ``model_path`` evaluated in ``chunk``-token chunks, or ``""``."""
        p = Path(model_path)
        if p.stat().st_size != self.model["size"] or file_sha256(p) != self.model["sha256"]:
            return (f"{self.path} was computed with {self.model['file']} (sha256 {self.model['sha256'][:12]}...), "
                    f"not {p}")
        if chunk != self.chunk:
            return f"{self.path} was computed with prompts evaluated in chunks of {self.chunk} tokens, not {chunk}"
        return ""

    def probe(self) -> tuple[str, str, float]:
        """The entry checked before the table is used: the shortest prompt and option (cheapest to compute)."""
        prompt = min(self.scores, key=lambda p: (len(p), p))
        option = min(self.scores[prompt], key=lambda o: (len(o), o))
        return prompt, option, self.scores[prompt][option]


def table_path(model_name: str) -> Path:
    """The shipped table of a named embedded model (it may not exist)."""
    return DIRECTORY / f"{model_name}.json"


def parse(text: str, path: str | os.PathLike[str]) -> ScoreTable:
    """Read a table's text (``path`` names it in errors).

    Raises:
        DataError: not JSON, not format :data:`FORMAT`, or an entry that is not a finite number; the error names
            the file and the key.
    """
    try:
        data = json.loads(text)
    except ValueError as e:
        raise DataError(path, "", f"not JSON ({e}); reinstall coat-planner or rerun scripts/shipped_scores.py") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise DataError(path, "format", f"expected format {FORMAT}, got {got!r}; rerun scripts/shipped_scores.py")
    model = data.get("model")
    if not (isinstance(model, dict) and isinstance(model.get("file"), str) and isinstance(model.get("size"), int)
            and isinstance(model.get("sha256"), str) and len(model["sha256"]) == 64):
        raise DataError(path, "model", "expected {file, size, sha256} of the model file the table was computed with")
    if not isinstance(data.get("chunk"), int) or data["chunk"] < 1:
        raise DataError(path, "chunk", f"expected a positive number of tokens, got {data.get('chunk')!r}")
    raw = data.get("scores")
    if not isinstance(raw, dict) or not raw:
        raise DataError(path, "scores", "expected {prompt: {option: log-likelihood}} with at least one prompt")
    scores: dict[str, dict[str, float]] = {}
    for i, (prompt, options) in enumerate(raw.items()):
        if not isinstance(options, dict) or not options:
            raise DataError(path, f"scores/{i}", f"prompt {prompt[-40:]!r}: expected {{option: log-likelihood}}")
        for option, v in options.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v > 0:
                raise DataError(path, f"scores/{i}/{option}", f"expected a log-likelihood (a finite number <= 0), "
                                f"got {v!r}")
        scores[prompt] = {o: float(v) for o, v in options.items()}
    return ScoreTable(Path(path), model, int(data["chunk"]), scores, str(data.get("note", "")))


def load(path: str | os.PathLike[str]) -> ScoreTable:
    """Read the table at ``path`` (see :func:`parse`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise DataError(path, "", f"unreadable ({e}); reinstall coat-planner") from e
    return parse(text, path)


def dumps(model_path: str | os.PathLike[str], chunk: int, scores: Mapping[str, Mapping[str, float]],
          note: str) -> str:
    """A table's text, for the generator (``repr`` of each float: read back, the same number)."""
    p = Path(model_path)
    body = {"format": FORMAT, "note": note,
            "model": {"file": p.name, "size": p.stat().st_size, "sha256": file_sha256(p)}, "chunk": chunk,
            "scores": {pr: {o: float(v) for o, v in sorted(opts.items())} for pr, opts in sorted(scores.items())}}
    return json.dumps(body, indent=0, ensure_ascii=False) + "\n"


def lookup(table: ScoreTable | None, memo: Any, prompt: str, prefix: tuple[int, ...], options: Sequence[str],
           compute: Any, memo_size: int = 4096) -> list[float]:
    """logL of each option after a prompt: from ``table`` (keyed by the prompt's text), else ``memo`` (an
    OrderedDict keyed by ``(prefix tokens, option)``), else ``compute(missing options)`` (then kept in ``memo``)."""
    found: dict[str, float] = {}
    for o in options:
        v = table.get(prompt, o) if table is not None else None
        if v is None and (prefix, o) in memo:
            v = memo[prefix, o]
            memo.move_to_end((prefix, o))
        if v is not None:
            found[o] = v
    missing = [o for o in dict.fromkeys(options) if o not in found]
    if missing:
        for o, v in zip(missing, compute(missing), strict=True):
            found[o] = memo[prefix, o] = float(v)
        while len(memo) > memo_size:
            memo.popitem(last=False)
    return [found[o] for o in options]


__all__ = ["DIRECTORY", "FORMAT", "PROBE_TOLERANCE", "ScoreTable", "dumps", "file_sha256", "load", "lookup", "parse",
           "table_path"]
