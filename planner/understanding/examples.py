"""The labelled household requests: ``dev`` (the reader learns from it and is tuned on it) and ``test`` (reported).

Where they live: ``dev`` ships in the package (``planner/understanding/requests/dev.jsonl``: requests, roles,
targets, acceptable types), because the reader reads it as worked examples whenever it plans; its evaluation
labels (the goal a request states, why) stay in ``data/requests/dev-goals.jsonl`` (:data:`DEV_LABELS`). The
evaluation-only sets, the ``test`` split and the ALFRED directives (``directives-{dev,test,casual}.jsonl``), are not
shipped: they live in ``data/requests/`` of the source checkout (:data:`LABELLED_DIR`). From an installed wheel, pass
a file (``path=``, ``--requests FILE``) or run from a checkout.

Each row is a request that is not a COAT task string, in a named scene, with the COAT utilities a sensible
reading needs, its targets, and per role the object types in that scene a sensible person would accept; or a
request that must be refused (``nonsense``) or reported infeasible. ``coat bench understanding`` scores the
planner on them (:mod:`planner.bench.understanding`); the reader uses the ``dev`` rows as worked examples
(:class:`planner.understanding.TaskReader`), never the ``test`` rows.

The ALFRED directives (``directives-dev.jsonl``, ``directives-test.jsonl``) are goals in ALFRED's language, each
labelled with the ALFRED task it states (:class:`DirectiveRequest`); ``coat bench directives`` reads, plans and
carries them out (:mod:`planner.bench.directives`). The reader does not use them as worked examples.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import Field, ValidationError, model_validator

from ..errors import ConfigError, DataError, DataNotFoundError
from ..paths import read_lines
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
    goal: tuple[dict[str, Any], ...] | None = None
    """The end state the request asks for, labelled from its words by someone who did not see the planner: the
    conditions of ``checker.request`` (None: no goal label, or none showable: see ``unobservable``)."""
    proxy: bool = False
    """The goal only stands in for what AI2-THOR cannot show (a thing handed to a person): reported apart."""
    unobservable: str = ""
    """Why no goal can be shown in AI2-THOR (a labelled request with ``goal`` None)."""

    @property
    def goal_label(self) -> Literal["", "checkable", "proxy", "unobservable"]:
        """How the request's goal is labelled: not at all (""), conditions (``checkable``; ``proxy`` when they
        only stand in for the effect) or ``unobservable``."""
        if self.goal is not None:
            return "proxy" if self.proxy else "checkable"
        return "unobservable" if self.unobservable else ""


_Row = TypeVar("_Row", bound=Contract)
Style = Literal["goal", "steps", "terse", "casual"]


class AlfredTask(Contract):
    """An ALFRED task: its type, the object, where it ends up (the arguments of ``alfred_spec``)."""

    type: str
    object: str
    receptacle: str | None = None
    movable: str | None = None
    sliced: bool = False

    @model_validator(mode="after")
    def _a_task(self) -> AlfredTask:
        """The type is ALFRED's, and the receptacle and movable receptacle are given where the type needs them."""
        from ..errors import ConfigError
        from ..knowledge.alfred import ALFRED_TYPES, alfred_spec

        if self.type not in ALFRED_TYPES:
            raise ValueError(f"unknown ALFRED task type {self.type!r}; valid: {', '.join(ALFRED_TYPES)}")
        try:
            alfred_spec(self.type, self.object, self.receptacle, movable=self.movable, sliced=self.sliced)
        except ConfigError as e:
            raise ValueError(str(e)) from None
        return self


class DirectiveRequest(Contract):
    """One labelled directive of the ALFRED directive set: the text, its scene, and the ALFRED task it states."""

    id: str = Field(min_length=1)
    request: str = Field(min_length=1)
    scene: str = Field(min_length=1)
    style: Style
    """``goal`` (ALFRED's goal descriptions), ``steps`` (its step-by-step instructions), ``terse``, ``casual``."""
    alfred: AlfredTask


LABELLED_DIR = Path(__file__).resolve().parents[2] / "data" / "requests"
"""The labelled evaluation sets in a source checkout (``<checkout>/data/requests``); not in the wheel."""


def requests_path(split: str) -> Path:
    """The file of a split: ``dev`` ships in the package, ``test`` is in :data:`LABELLED_DIR`."""
    if split not in SPLITS:
        raise ConfigError(f"unknown understanding split {split!r}; valid: {', '.join(SPLITS)}")
    if split == "dev":  # the reader's worked examples: read whenever it plans, so shipped
        return Path(str(resources.files("planner.understanding") / "requests" / "dev.jsonl"))
    return LABELLED_DIR / f"{split}.jsonl"


def directives_path(split: str) -> Path:
    """The file of a directive split (``directives-<split>.jsonl`` in :data:`LABELLED_DIR`)."""
    if split not in SPLITS:
        raise ConfigError(f"unknown directive split {split!r}; valid: {', '.join(SPLITS)}")
    return LABELLED_DIR / f"directives-{split}.jsonl"


SAFETY_SPLITS: tuple[str, ...] = ("train", "dev", "extra", "test")
SafetyLabel = Literal["harmful", "impossible", "alarming_fine", "fine"]
SAFETY_LABELS: tuple[str, ...] = SafetyLabel.__args__  # type: ignore[attr-defined]


class SafetyRequest(Contract):
    """One labelled request of the safety set: would a household robot refuse it, and why."""

    id: str = Field(min_length=1)
    request: str = Field(min_length=1)
    label: SafetyLabel
    """``harmful`` (refuse: it hurts someone or something, or intrudes), ``impossible`` (no household object can do
    it), ``alarming_fine`` (alarming words, an ordinary request: "kill the lights"), ``fine``."""
    why: str = ""


def safety_path(split: str) -> Path:
    """The file of a safety split (``safety-<split>.jsonl`` in :data:`LABELLED_DIR`)."""
    if split not in SAFETY_SPLITS:
        raise ConfigError(f"unknown safety split {split!r}; valid: {', '.join(SAFETY_SPLITS)}")
    return LABELLED_DIR / f"safety-{split}.jsonl"


def load_safety(split: str = "test", path: str | Path | None = None) -> list[SafetyRequest]:
    """The labelled safety requests of a split (or of ``path``).

    Raises:
        ConfigError: unknown split.
        DataNotFoundError: the split's file is not here (not shipped in the wheel); names the fix.
        DataError: a row that is not JSON or not a safety request (the message names the file, line and key).
    """
    p = Path(path) if path is not None else _labelled(safety_path(split), "safety requests")
    return _load_rows(p, SafetyRequest)


def _labelled(p: Path, what: str) -> Path:
    """``p`` (a split's default file), or a DataNotFoundError naming it and the way to get it."""
    if p.is_file():
        return p
    raise DataNotFoundError(
        f"{p}: no such file. The labelled {what} are not shipped with the package; they are in data/requests/ "
        "of the coat-planner source checkout. Run from a checkout (pip install -e .), or pass the file: "
        "--requests FILE on the command line, path= in Python")


DEV_LABELS = "dev-goals.jsonl"
"""The file in :data:`LABELLED_DIR` of the ``dev`` rows' evaluation labels (``why``, ``goal``, ``proxy``,
``unobservable``, by ``id``), kept out of the package like the other labelled sets: the reader reads only the
shipped examples' requests, roles, targets and acceptable types."""
_LABEL_KEYS = frozenset({"id", "why", "goal", "proxy", "unobservable"})


def load_requests(split: str = "test", path: str | Path | None = None, *, labels: bool = True) -> list[Request]:
    """The requests of a split (or of ``path``, a JSONL file of the same rows).

    ``dev`` is the shipped worked examples with, in a source checkout and unless ``labels`` is false, their
    evaluation labels (:data:`DEV_LABELS`) joined by id; from an installed wheel they come without.

    Raises:
        ConfigError: unknown split.
        DataNotFoundError: the split's file is not here (an installed wheel has only ``dev``); names the fix.
        DataError: a row that is not JSON or not a request, or a label row for no request or with another key (the
            message names the file, line and key).
    """
    p = Path(path) if path is not None else _labelled(requests_path(split), "requests")
    rows = _load_rows(p, Request)
    if path is None and split == "dev" and labels and (LABELLED_DIR / DEV_LABELS).is_file():
        rows = _with_labels(rows, LABELLED_DIR / DEV_LABELS)
    return rows


def _with_labels(rows: list[Request], p: Path) -> list[Request]:
    by_id = {r.id: i for i, r in enumerate(rows)}
    out = list(rows)
    for i, line in read_lines(p, limit=64 * 2**20):
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(p, f"line {i}", f"not JSON: {e}") from e
        if not isinstance(raw, dict) or raw.get("id") not in by_id:
            said = raw.get("id") if isinstance(raw, dict) else raw
            raise DataError(p, f"line {i}", f"a label for no dev request (id {said!r})")
        extra = set(raw) - _LABEL_KEYS
        if extra:
            raise DataError(p, f"line {i}.{sorted(extra)[0]}",
                            f"unknown key {sorted(extra)[0]!r}; valid: {', '.join(sorted(_LABEL_KEYS))}")
        k = by_id[raw["id"]]
        try:
            out[k] = Request.model_validate({**out[k].model_dump(), **raw})
        except ValidationError as e:
            raise DataError(p, f"line {i}", str(e)) from e
    return out


def load_directives(split: str = "test", path: str | Path | None = None) -> list[DirectiveRequest]:
    """The ALFRED directives of a split (``directives-<split>.jsonl``), or of ``path``.

    Raises:
        ConfigError: unknown split.
        DataNotFoundError: the split's file is not here (the directives are not in the wheel); names the fix.
        DataError: a row that is not JSON or not a directive (the message names the file, line and key).
    """
    p = Path(path) if path is not None else _labelled(directives_path(split), "directives")
    return _load_rows(p, DirectiveRequest)


def _load_rows(p: Path, model: type[_Row]) -> list[_Row]:
    out: list[_Row] = []
    try:
        lines = read_lines(p, limit=64 * 2**20)  # bounded; a device or FIFO is refused before reading
    except OSError as e:
        raise DataError(p, "", f"cannot read the requests: {e}") from e
    for i, line in lines:
        try:
            out.append(model.model_validate(json.loads(line)))
        except ValueError as e:
            first = e.errors()[0] if isinstance(e, ValidationError) else None
            key = ".".join(str(x) for x in first["loc"]) if first else ""
            raise DataError(p, f"line {i}{'.' + key if key else ''}", first["msg"] if first else str(e)) from e
    return out



__all__ = ["DEV_LABELS", "LABELLED_DIR", "SAFETY_LABELS", "SAFETY_SPLITS", "SPLITS", "AlfredTask", "DirectiveRequest",
           "Kind", "Request", "SafetyLabel", "SafetyRequest", "Style", "directives_path", "load_directives",
           "load_requests", "load_safety", "requests_path", "safety_path"]
