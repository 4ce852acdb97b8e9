"""The labelled household requests: ``dev`` (the reader learns from it and is tuned on it) and ``test`` (reported).

Each row is a request that is not a COAT task string, in a named scene, with the COAT utilities a sensible
reading needs, its targets, and per role the object types in that scene a sensible person would accept; or a
request that must be refused (``nonsense``) or reported infeasible. ``coat bench understanding`` scores the
planner on them (:mod:`planner.bench.understanding`); the reader uses the ``dev`` rows as worked examples
(:class:`planner.understanding.TaskReader`), never the ``test`` rows.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from ..errors import ConfigError, DataError
from ..schemas import Contract

SPLITS: tuple[str, ...] = ("dev", "test")
Kind = Literal["task", "nonsense", "infeasible"]


class Request(Contract):
    """One labelled request of the understanding set."""

    id: str = Field(min_length=1)
    request: str
    scene: str = Field(min_length=1)
    kind: Kind
    roles: tuple[str, ...] = ()
    optional_roles: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    acceptable: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    why: str = ""


def requests_path(split: str) -> Path:
    """The shipped file of a split."""
    if split not in SPLITS:
        raise ConfigError(f"unknown understanding split {split!r}; valid: {', '.join(SPLITS)}")
    return Path(str(resources.files("planner.understanding") / "requests" / f"{split}.jsonl"))


def load_requests(split: str = "test", path: str | Path | None = None) -> list[Request]:
    """The requests of a split (or of ``path``, a JSONL file of the same rows).

    Raises:
        ConfigError: unknown split.
        DataError: a row that is not JSON or not a request (the message names the file, line and key).
    """
    p = Path(path) if path is not None else requests_path(split)
    out: list[Request] = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Request.model_validate(json.loads(line)))
        except ValueError as e:
            key = ".".join(str(x) for x in e.errors()[0]["loc"]) if isinstance(e, ValidationError) else ""
            raise DataError(p, f"line {i}{'.' + key if key else ''}", str(e).splitlines()[0]) from e
    return out



__all__ = ["SPLITS", "Kind", "Request", "load_requests", "requests_path"]
