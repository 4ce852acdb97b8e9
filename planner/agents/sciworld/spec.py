"""A ScienceWorld task description read into a short task spec: what to find and focus on, where, the answer.

The reading is data: ``data/task_patterns.json`` holds, per task *shape* (``find``, ``power``...), the task
names it covers, one regular expression with named groups and an example description copied from
ScienceWorld. :func:`read_task` collapses whitespace, matches the shape of the task and fills a
:class:`TaskSpec`; the agent's plays (:mod:`.plays`) act on the spec, never on the raw text.

Example:
    >>> s = read_task("Your task is to find a(n) animal. First, focus on the thing. Then, move it to the "
    ...               "red box in the kitchen.", "find-animal")
    >>> (s.shape, s.kind, s.boxes["goal"], s.box_room, s.played)
    ('find', 'animal', 'red box', 'kitchen', True)
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from scenes.sciworld.tasks import resolve_task

from ...errors import ConfigError
from ...schemas import Contract

DATA_DIR = Path(__file__).with_name("data")
"""The agent's knowledge and task patterns, as data files with their sources."""


@functools.lru_cache(maxsize=8)
def load_data(name: str) -> dict[str, Any]:
    """One of the agent's data files (``kinds``, ``lifespans``, ``electrical``, ``traits``, ``task_patterns``)."""
    path = DATA_DIR / f"{name}.json"
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError) as e:
        raise ConfigError(f"cannot read the ScienceWorld agent's data file {path}: {e}") from e


class TaskSpec(Contract):
    """What one ScienceWorld task asks, as the agent acts on it.

    Attributes:
        task: ScienceWorld's task name.
        shape: The task shape (its play): ``change-state``, ``find``, ``thermometer``, ``melting-point``,
            ``power``, ``conductivity``, ``lifespan``; the other shapes are read but not played yet.
        text: The description, whitespace collapsed.
        target: The object or substance the task names (``unknown substance B``, ``red light bulb``).
        kind: A class the task asks for (``living thing``, ``renewable``, ``longest``), or "".
        room: Where the task says the target is ("" when it does not say).
        box_room: Where the answer boxes are.
        threshold_c: The temperature the answer depends on, if any.
        boxes: Outcome -> box (``goal``; ``above`` / ``below``; ``yes`` / ``no``).
        answer: How a box is answered: ``place`` the target in it, or ``focus`` on it.
        played: True when the agent has a play for this shape.
    """

    task: str
    shape: str
    text: str
    target: str = ""
    kind: str = ""
    room: str = ""
    box_room: str = ""
    threshold_c: float | None = None
    boxes: dict[str, str] = Field(default_factory=dict)
    answer: Literal["place", "focus", ""] = ""
    played: bool = False


def _shapes() -> list[dict[str, Any]]:
    return list(load_data("task_patterns")["shapes"])


def shape_of(task: str) -> str:
    """The shape of a task name or id (``boil`` -> ``change-state``), without reading a description."""
    name = resolve_task(task)
    for s in _shapes():
        if name in s["tasks"]:
            return str(s["shape"])
    raise ConfigError(f"no task shape covers {name!r}; add it to {DATA_DIR / 'task_patterns.json'}")


def played_shapes() -> frozenset[str]:
    """The shapes the agent plays."""
    return frozenset(load_data("task_patterns")["played"])


def is_played(task: str) -> bool:
    """True when the agent plays this task."""
    return shape_of(task) in played_shapes()


def read_task(description: str, task: str) -> TaskSpec:
    """Read a task description into a :class:`TaskSpec` using the pattern of the task's shape.

    Raises:
        ConfigError: the description does not match its shape's pattern (it is quoted in the message: an
            unreadable description is a counted failure, never a guess).
    """
    name = resolve_task(task)
    text = " ".join(description.replace("Task Description:", " ").split())
    shape = next(s for s in _shapes() if name in s["tasks"]) if any(name in s["tasks"] for s in _shapes()) \
        else None
    if shape is None:
        raise ConfigError(f"no task shape covers {name!r}")
    m = re.search(shape["pattern"], text + " ")
    if m is None:
        raise ConfigError(f"cannot read the {name} task description: {text[:200]!r}")
    g = {k: (v or "").strip() for k, v in m.groupdict().items()}
    boxes = {k: g[k] for k in ("above", "below", "yes", "no") if g.get(k)}
    if g.get("box"):
        boxes["goal"] = g["box"]
    kind = g.get("kind", "")
    if kind.startswith("longest life span, then"):
        kind = "longest-then-shortest"
    return TaskSpec(
        task=name, shape=shape["shape"], text=text, target=g.get("target", "").lower() if shape["shape"] ==
        "change-state" else g.get("target", ""), kind=kind, room=g.get("room", ""),
        box_room=g.get("box_room", ""),
        threshold_c=float(g["threshold"]) if g.get("threshold") else None, boxes=boxes,
        answer=shape.get("answer", ""), played=shape["shape"] in played_shapes(),
    )


__all__ = ["DATA_DIR", "TaskSpec", "is_played", "load_data", "played_shapes", "read_task", "shape_of"]
