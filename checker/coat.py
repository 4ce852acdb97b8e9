"""COAT's 75 tasks as goals, from the data table ``coat_tasks.json`` shipped beside this module.

Each entry says what a person would count as done, in AI2-THOR terms, and its category. A ``proxy`` entry
has no goal (``why`` says what AI2-THOR cannot show); the others list items, each with object types and checks:

| check | arguments | meaning (see :mod:`checker.checks`) |
|---|---|---|
| ``cut`` | ``tools`` (types, or null) | a piece cut (an egg cracked) during the run, with a tool in hand |
| ``became`` | ``key``, ``value`` | the field took that value during the run |
| ``cleaned`` | ``water`` (bool) | dirty at reset, clean at the end (washed under running water) |
| ``in`` | ``types``, ``fresh`` (default true), ``min_top`` | in such a receptacle at the end, put there by the run |
| ``heated_liquid`` | ``liquid``, ``devices`` | it became Hot holding the liquid (in a running device); liquid sourced |
| ``filled`` | ``liquid`` | holds the liquid at the end, filled during the run from a source |
| ``switched_on`` | | off (closed) at reset, on (open) at the end |
| ``taken_from`` | ``types`` | lay in such a receptacle at reset, picked up, out of it at the end |
| ``not_broken``, ``clean_at_end``, ``held_at_end`` | | the state at the end |
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources
from typing import Any

from .checks import (
    Became,
    Check,
    CleanAtEnd,
    Cleaned,
    Cut,
    Filled,
    HeatedLiquid,
    HeldAtEnd,
    InTypes,
    NotBroken,
    SwitchedOn,
    TakenFrom,
)
from .solver import Goal, Item

TABLE = "coat_tasks.json"


def _tuple(v: Any) -> tuple[str, ...] | None:
    return None if v is None else tuple(str(x) for x in v)


def make_check(spec: dict[str, Any]) -> Check:
    """One check from its table entry (``{"check": name, ...arguments}``).

    Raises:
        ValueError: an unknown check name.
    """
    kind = spec.get("check")
    if kind == "cut":
        return Cut(_tuple(spec["tools"]) if "tools" in spec else Cut().tools)
    if kind == "became":
        return Became(str(spec["key"]), spec["value"])
    if kind == "cleaned":
        return Cleaned(bool(spec.get("water", False)))
    if kind == "in":
        return InTypes(_tuple(spec["types"]) or (), bool(spec.get("fresh", True)), spec.get("min_top"))
    if kind == "heated_liquid":
        return HeatedLiquid(str(spec["liquid"]), _tuple(spec.get("devices")))
    if kind == "filled":
        return Filled(str(spec.get("liquid", "water")))
    if kind == "taken_from":
        return TakenFrom(_tuple(spec["types"]) or ())
    simple: dict[str, Check] = {"switched_on": SwitchedOn(), "not_broken": NotBroken(),
                                "clean_at_end": CleanAtEnd(), "held_at_end": HeldAtEnd()}
    if kind in simple:
        return simple[kind]
    raise ValueError(f"unknown check {kind!r} in {TABLE}")


@cache
def table() -> dict[str, dict[str, Any]]:
    """The COAT task table: task name -> entry (category, goal text, why or items)."""
    text = resources.files(__package__).joinpath(TABLE).read_text(encoding="utf-8")
    return dict(json.loads(text)["tasks"])


def _key(name: str) -> str:
    return " ".join(name.lower().split())


def entry(name: str) -> tuple[str, dict[str, Any]]:
    """The table entry of a COAT task (case and spacing ignored): (its name in the table, entry).

    Raises:
        KeyError: an unknown task (the message names the closest ones).
    """
    by_key = {_key(k): k for k in table()}
    k = by_key.get(_key(name))
    if k is None:
        close = difflib.get_close_matches(_key(name), list(by_key), n=3)
        raise KeyError(f"unknown COAT task {name!r}; closest: {', '.join(by_key[c] for c in close) or 'none'}")
    return k, table()[k]


def coat_goal(name: str) -> Goal | None:
    """The goal of a COAT task, or None for a proxy task."""
    _, e = entry(name)
    if e["category"] == "proxy":
        return None
    items = tuple(Item(str(i["name"]), tuple(i["types"]), tuple(make_check(c) for c in i["checks"]))
                  for i in e["items"])
    return Goal(str(e["goal"]), str(e["category"]), items)


__all__ = ["TABLE", "coat_goal", "entry", "make_check", "table"]
