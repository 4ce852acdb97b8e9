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
- ``random``: one of the above, drawn with the seed.

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

from .world import World

SCENARIOS: tuple[str, ...] = ("knife-dirty", "no-knife", "stove-in-use", "mug-broken")
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
        ``{"name": ..., "changed": {objectId: description}}`` (``changed`` is empty when the scene has no such
        object, e.g. ``mug-broken`` in a bathroom).

    Raises:
        ConfigError: unknown scenario name or bad ``in_use_seconds``.
    """
    if not isinstance(in_use_seconds, (int, float)) or in_use_seconds <= 0:
        raise ConfigError(f"in_use_seconds must be > 0, got {in_use_seconds!r}")
    rng = random.Random(0 if seed is None else seed)
    if name == "random":
        name = rng.choice(SCENARIOS)
    if name not in SCENARIOS:
        raise ConfigError(f"unknown scenario {name!r}; valid: {', '.join(SCENARIOS)}, random")
    changed: dict[str, str] = {}
    if name == "knife-dirty":
        knives = _of_type(world, "Knife") or _of_type(world, "ButterKnife")
        if knives:
            k = rng.choice(knives)
            world.objs[k]["dirtyable"] = True
            world.objs[k]["isDirty"] = True
            changed[k] = "dirty"
    elif name == "no-knife":
        for k in _of_type(world, "Knife", "ButterKnife"):
            world.remove_object(k)
            changed[k] = "removed"
    elif name == "stove-in-use":
        burners = _of_type(world, "StoveBurner")
        knobs = _of_type(world, "StoveKnob")
        for k in burners + knobs:
            world.set_in_use(k, in_use_seconds)
            changed[k] = f"reversible-using for {in_use_seconds:g} s"
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
                world.set_in_use(knob, in_use_seconds, switch_off=(knob,))
                changed[knob] = changed[knob] + ", on"
    elif name == "mug-broken":
        mugs = [m for m in _of_type(world, "Mug") if world.objs[m]["breakable"]]
        if mugs:
            m = rng.choice(mugs)
            o = world.objs[m]
            o["isBroken"] = True
            o["isFilledWithLiquid"] = False
            o["fillLiquid"] = None
            changed[m] = "broken"
    world.touch()
    return {"name": name, "seed": seed, "changed": changed}


__all__ = ["SCENARIOS", "apply_scenario"]
