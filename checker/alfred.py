"""ALFRED's seven task types as goals (Shridhar et al., CVPR 2020), strict and on one instance.

Each type's final-state conditions, with ALFRED's events (cleaned, heated, cooled) read off the recorded
states instead of being booked by a wrapper:

- ``pick_and_place_simple``: X in R, put there by the run;
- ``pick_two_obj_and_place``: two distinct X in R;
- ``pick_and_place_with_movable_recep``: X in a movable M (put there by the run), that same M in R;
- ``pick_clean_then_place_in_recep``: the same X cleaned (dirtyable: dirty at reset, clean at the end; else
  it lay in a basin under a running faucet), then in R;
- ``pick_heat_then_place_in_recep``: the same X became Hot during the run, and is in R at the end;
- ``pick_cool_then_place_in_recep``: the same X became Cold during the run, and is in R at the end;
- ``look_at_obj_in_light``: X held at the end with a DeskLamp/FloorLamp on within 1 m that the run lit.

Sliced variants: X is a piece (``<id>|AppleSliced_i``; an Egg gives ``EggCracked``) cut during the run with a
knife in hand, and every other condition holds on that same piece.
"""

from __future__ import annotations

from .checks import Became, Check, Cleaned, Cooled, Cut, HeldAtEnd, Inside, InTypes, LitNearby
from .solver import Goal, Item

ALFRED_TYPES = (
    "pick_and_place_simple", "pick_two_obj_and_place", "pick_and_place_with_movable_recep",
    "pick_clean_then_place_in_recep", "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep",
    "look_at_obj_in_light",
)
"""ALFRED's task types."""
TREATMENT: dict[str, tuple[str, Check]] = {
    "pick_clean_then_place_in_recep": ("cleaned", Cleaned()),
    "pick_heat_then_place_in_recep": ("heated (became Hot during the run)", Became("temperature", "Hot")),
    "pick_cool_then_place_in_recep": ("cooled (became Cold during the run, or shut in a fridge by the run)",
                                      Cooled()),
}


def _a(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def piece_type(obj: str) -> str:
    """The type of the pieces cutting ``obj`` makes (``AppleSliced``; an Egg cracks: ``EggCracked``)."""
    return "EggCracked" if obj == "Egg" else f"{obj}Sliced"


def alfred_goal(name: str, obj: str, recep: str | None = None, movable: str | None = None,
                sliced: bool = False) -> Goal:
    """The goal of one ALFRED task.

    Raises:
        ValueError: an unknown task type, or a placing type without its receptacle / movable receptacle.
    """
    if name not in ALFRED_TYPES:
        raise ValueError(f"unknown ALFRED task type {name!r}; valid: {', '.join(ALFRED_TYPES)}")
    x_types = (piece_type(obj),) if sliced else (obj,)
    x_word = f"{_a(piece_type(obj))} cut during the run with a knife" if sliced else _a(obj)
    cut: tuple[Check, ...] = (Cut(),) if sliced else ()
    category = "placement"
    if name == "look_at_obj_in_light":
        return Goal(f"{x_word}, held at the end, with a DeskLamp/FloorLamp on within 1 m that the run switched on",
                    "state-change", (Item("x", x_types, (*cut, HeldAtEnd(), LitNearby())),))
    if recep is None:
        raise ValueError(f"{name} needs a receptacle (recep)")
    place = InTypes((recep,))
    if sliced:
        category = "state-change"
    if name == "pick_and_place_simple":
        return Goal(f"{x_word}, put in {_a(recep)} by the run", category, (Item("x", x_types, (*cut, place)),))
    if name == "pick_two_obj_and_place":
        return Goal(f"two distinct objects, each {x_word}, put in {_a(recep)} by the run", category,
                    (Item("x", x_types, (*cut, place)), Item("x2", x_types, (*cut, place))))
    if name == "pick_and_place_with_movable_recep":
        if movable is None:
            raise ValueError(f"{name} needs a movable receptacle (movable)")
        return Goal(f"{x_word}, put by the run in {_a(movable)} that is in {_a(recep)} at the end", category,
                    (Item("x", x_types, cut), Item("m", (movable,), (InTypes((recep,), fresh=False),))),
                    (Inside("x", "m"),))
    word, treat = TREATMENT[name]
    return Goal(f"{x_word}, {word}, then in {_a(recep)} at the end (the same object)", "state-change",
                (Item("x", x_types, (*cut, treat, place)),))


__all__ = ["ALFRED_TYPES", "alfred_goal", "piece_type"]
