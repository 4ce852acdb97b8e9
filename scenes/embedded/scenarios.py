"""Seeded scenario generator: perturb a scene's initial state with COAT's common situations.

COAT's questions are about objects that are unavailable or in a bad state (``task-1/common_var_responses.json``:
a knife may be ``dirty``, a stove ``reversible-using``, a mug ``broken``...). Each scenario sets such a state on
the scene's objects, with a seeded choice of which object, so the same seed gives the same scene:

- ``knife-dirty``: one knife (Knife, else ButterKnife) is dirty. AI2-THOR knives are not dirtyable (real
  5.0.0 dumps; trace WashCutleryTask), so the chosen knife becomes ``dirtyable`` first — a documented deviation;
- ``no-knife``: every Knife and ButterKnife is removed from the scene;
- ``stove-in-use``: every StoveBurner and StoveKnob is used by someone else for ``in_use_seconds``
  (reversible), and one burner is lit with a pot or pan on it when there is one;
- ``mug-broken``: one mug (seeded choice) is broken (and empty);
- ``microwave-faulty``: every Microwave is faulty: it switches on but never heats (an extension beyond AI2-THOR,
  :mod:`scenes.embedded.world.faults`);
- ``knife-breaks``: the first knife the robot picks up turns out broken. Every Knife and ButterKnife is armed
  ``breaks-on-pickup`` in one group: whichever is picked up first is broken (and irreversible-using) once in
  the hand, and the others are then fine (extension);
- ``burner-taken``: someone takes the stove while the robot walks to it. Every StoveBurner is armed
  ``taken-on-approach``: the first action after which the agent is within reach (``visibility_distance``) of a
  burner, or that aims at the burner or at its StoveKnob, leaves that burner irreversible-using (extension;
  burners sit close together, so the whole stove usually goes at once);
- ``random``: one of ``knife-dirty``, ``no-knife``, ``stove-in-use``, ``mug-broken`` (:data:`RANDOM_SCENARIOS`),
  drawn with the seed. The three fault scenarios are not in the draw: adding them would change what ``random``
  draws for existing seeds. ``info["scenario"]["name"]`` is the drawn scenario and ``["requested"]`` is
  ``"random"``.

Every result also maps each changed object to its condition (``"perturbed"``, the vocabulary of
:mod:`scenes.embedded.perturb`), which the env reports as ``info["perturbed"]``.

Example:
    >>> from scenes.embedded import EmbeddedEnv
    >>> env = EmbeddedEnv("kitchen", frames=False)
    >>> obs, info = env.reset(seed=3, options={"scenario": "mug-broken"})
    >>> [o["isBroken"] for o in obs.objects if o["objectType"] == "Mug"].count(True)
    1
"""

from __future__ import annotations

import random
from typing import Any

from planner.errors import ConfigError

from .perturb import apply_condition
from .world import World

RANDOM_SCENARIOS: tuple[str, ...] = ("knife-dirty", "no-knife", "stove-in-use", "mug-broken")
"""What ``random`` draws from (kept as it was, so a seed draws the same scenario as before)."""
SCENARIOS: tuple[str, ...] = (*RANDOM_SCENARIOS, "microwave-faulty", "knife-breaks", "burner-taken")
"""Named scenarios (plus ``random``)."""


def _of_type(world: World, *types: str) -> list[str]:
    return sorted(k for k, o in world.objs.items() if o["objectType"] in types)


def apply_scenario(
    world: World, name: str, *, seed: int | None = None, in_use_seconds: float = 300.0
) -> dict[str, Any]:
    """Apply scenario ``name`` to ``world`` in place.

    Args:
        world: A freshly reset world.
        name: One of :data:`SCENARIOS` or ``"random"``.
        seed: Seeds every choice (None behaves like 0, so resets stay reproducible).
        in_use_seconds: How long ``stove-in-use`` keeps the stove busy.

    Returns:
        ``{"name": ..., "requested": ..., "seed": ..., "changed": {objectId: description}, "perturbed":
        {objectId: condition}}`` (``changed`` is empty when the scene has no such object, e.g. ``mug-broken``
        in a bathroom; ``name`` is the scenario applied, ``requested`` the one asked for, e.g. ``random``).

    Raises:
        ConfigError: unknown scenario name or bad ``in_use_seconds``.
    """
    if not isinstance(in_use_seconds, (int, float)) or in_use_seconds <= 0:
        raise ConfigError(f"in_use_seconds must be > 0, got {in_use_seconds!r}")
    requested = name
    rng = random.Random(0 if seed is None else seed)
    if name == "random":
        name = rng.choice(RANDOM_SCENARIOS)
    if name not in SCENARIOS:
        raise ConfigError(f"unknown scenario {name!r}; valid: {', '.join(SCENARIOS)}, random")
    changed: dict[str, str] = {}
    perturbed: dict[str, str] = {}
    _APPLY[name](world, rng, in_use_seconds, changed, perturbed)
    world.touch()
    return {"name": name, "requested": requested, "seed": seed, "changed": changed, "perturbed": perturbed}


def _knife_dirty(world: World, rng: random.Random, seconds: float, changed: dict[str, str],
                 perturbed: dict[str, str]) -> None:
    knives = _of_type(world, "Knife") or _of_type(world, "ButterKnife")
    if knives:
        k = rng.choice(knives)
        world.objs[k]["dirtyable"] = True
        world.objs[k]["isDirty"] = True
        changed[k] = perturbed[k] = "dirty"


def _no_knife(world: World, rng: random.Random, seconds: float, changed: dict[str, str],
              perturbed: dict[str, str]) -> None:
    for k in _of_type(world, "Knife", "ButterKnife"):
        world.remove_object(k)
        changed[k] = "removed"
        perturbed[k] = "missing"


def _stove_in_use(world: World, rng: random.Random, seconds: float, changed: dict[str, str],
                  perturbed: dict[str, str]) -> None:
    burners = _of_type(world, "StoveBurner")
    knobs = _of_type(world, "StoveKnob")
    for k in burners + knobs:
        world.set_in_use(k, seconds)
        changed[k] = f"reversible-using for {seconds:g} s"
        perturbed[k] = "busy"
    # someone is cooking: light a burner that has a pot or pan on it (or the first one)
    busy = [
        b
        for b in burners
        if any(world.objs[c]["objectType"] in ("Pot", "Pan", "Kettle") for c in world.contents(b))
    ]
    lit = (busy or burners)[:1]
    for knob in knobs:
        ctl = world.objs[knob]["controlledObjects"] or []
        if any(b in ctl for b in lit):
            world.objs[knob]["isToggled"] = True
            for b in ctl:
                world.objs[b]["isToggled"] = True
            # the cook switches the burner off when done cooking
            world.set_in_use(knob, seconds, switch_off=(knob,))
            changed[knob] = changed[knob] + ", on"


def _mug_broken(world: World, rng: random.Random, seconds: float, changed: dict[str, str],
                perturbed: dict[str, str]) -> None:
    mugs = [m for m in _of_type(world, "Mug") if world.objs[m]["breakable"]]
    if mugs:
        m = rng.choice(mugs)
        o = world.objs[m]
        o["isBroken"] = True
        o["isFilledWithLiquid"] = False
        o["fillLiquid"] = None
        changed[m] = perturbed[m] = "broken"


def _on_every(types: tuple[str, ...], condition: str, note: str, group: str | None = None) -> Any:
    """A scenario that puts ``condition`` (a :mod:`.perturb` condition) on every object of ``types``."""

    def apply(world: World, rng: random.Random, seconds: float, changed: dict[str, str],
              perturbed: dict[str, str]) -> None:
        for k in _of_type(world, *types):
            apply_condition(world, k, condition, **({"group": group} if group else {}))
            changed[k] = note
            perturbed[k] = condition

    return apply


_microwave_faulty = _on_every(("Microwave",), "faulty", "faulty: switches on but never heats")
_knife_breaks = _on_every(("Knife", "ButterKnife"), "breaks-on-pickup",
                          "breaks on pickup if it is the first knife picked up", group="knife-breaks")
_burner_taken = _on_every(("StoveBurner",), "taken-on-approach", "taken for good when the robot comes within reach")


_APPLY = {
    "knife-dirty": _knife_dirty,
    "no-knife": _no_knife,
    "stove-in-use": _stove_in_use,
    "mug-broken": _mug_broken,
    "microwave-faulty": _microwave_faulty,
    "knife-breaks": _knife_breaks,
    "burner-taken": _burner_taken,
}


__all__ = ["RANDOM_SCENARIOS", "SCENARIOS", "apply_scenario"]
