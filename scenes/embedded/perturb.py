"""Generic perturbations: put any object type of a scene in a condition at reset (``options["perturb"]``).

A benchmark that samples seeded episodes needs more than the named scenarios: any role's object unavailable
or in a bad state. Each perturbation is a dict::

    {"type": "Mug", "condition": "broken", "which": "one"}      # "which": "one" (default) | "all"
    {"type": "StoveBurner", "condition": "busy", "seconds": 60}  # "seconds": only for "busy"
    {"type": "Book", "condition": "displaced", "from": ["Shelf"]}  # "from": only (and always) for "displaced"

``type`` is an object type of the scene or of AI2-THOR's type table (plus the extension types). A type the scene
lacks is already ``missing`` (nothing changes); any other condition on it is a ``ConfigError`` naming the scene's
types, so an experiment never runs believing it broke a laptop the room does not have. ``which="one"`` picks one
object of the type with the seed (preferring one no earlier perturbation touched), ``"all"`` takes every one.
Conditions:

- ``missing``: removed from the scene;
- ``dirty``: ``isDirty`` True; a type AI2-THOR does not make dirtyable (knives...) is made ``dirtyable`` first,
  as the ``knife-dirty`` scenario does (a documented deviation from AI2-THOR);
- ``busy``: someone else uses it for ``seconds`` (default: the reset option ``in_use_seconds``, 300 s), then
  it is free again (reversible-using; the simulator's :class:`~scenes.embedded.world.UseClaim`);
- ``busy-for-good``: someone else uses it and never stops (irreversible-using);
- ``broken``: ``isBroken`` True (also for a type AI2-THOR cannot break; ``breakable`` is left as the type has
  it), liquid spilled, switched off, and an irreversible use claim (``by="nobody: it is broken"``), so
  ``extra["in_use"]`` reports it irreversible-using as COAT does;
- ``faulty``: an appliance (heat or cold source, Faucet, ShowerHead, StoveKnob) that switches on but does
  nothing (:mod:`scenes.embedded.world.faults`; an extension beyond AI2-THOR);
- ``breaks-on-pickup``: looks fine; broken and irreversible-using once the robot picks it up (extension);
- ``taken-on-approach``: someone takes it for good when the robot comes within reach (extension);
- ``off``: switched off (``isToggled`` False, with what it controls), as AI2-THOR's ``ToggleObjectOff`` leaves it,
  or, for what opens but does not switch (blinds, curtains), closed as ``CloseObject`` leaves it: rl_ai2thor's
  scene preparation for a goal that switches something on (the lamp of look-in-light);
- ``occupied``: a vessel someone is using, natively: filled with someone's wine, as AI2-THOR's
  ``FillObjectWithLiquid`` leaves it (someone's drink in the mug). Only for types that can hold a liquid
  (``canFillWithLiquid``); the robot must empty it (``EmptyLiquidFromObject``) or take another;
- ``on``, ``open``, ``closed``: switched on (with what it controls), opened or closed, as AI2-THOR's
  ``SetObjectStates`` leaves it; a microwave is switched on only when closed and opened only when off (else left
  as it is): the premises of "turn off the lamp", "close the fridge";
- ``cold-coffee``: a vessel holding coffee gone cold (room temperature): the premise of a reheating task (coffee
  poured into a vessel is hot at once in AI2-THOR, so only coffee that has cooled can be *re*-heated);
- ``displaced``: a pickupable object lying (directly, or in something that can be carried) in a receptacle of the
  ``from`` types is moved, with what it holds, to another receptacle of the scene, as AI2-THOR's ``SetObjectPoses``
  / ``InitialRandomSpawn`` move objects at reset: the premise of "put the book back on the shelf" where the book
  already is on the shelf. The place is :func:`displacement_target`: a receptacle of the object type's compatible
  receptacles in AI2-THOR's type table that ``PutObject`` would also accept (its placement row, an object-specific
  receptacle's types, room in a pickupable one), neither of the ``from`` types nor lying in one; the nearest, a
  place where it lies in view and as it was (not closed away, not in a heat or cold source, a basin, a holder or
  the bin) before any other. An object with no such place, or lying in none of the ``from`` types, stays (and is
  not reported). ``which="one"`` picks among the objects that lie in a ``from`` type.

The result ``{objectId: condition}`` is reported as ``info["perturbed"]`` and ``SceneObs.extra["perturbed"]``:
the ground truth of the episode, for benchmarks and tests; a robot's perception should not read it (hidden
faults would not be hidden).

Native or extension. Only these conditions are states AI2-THOR 5.0.0 itself can be in: ``missing``, ``off``,
``on``, ``open``, ``closed``, ``occupied``, ``displaced``, ``dirty`` on an object AI2-THOR makes dirtyable,
``broken`` on an object AI2-THOR can break. Every other condition, and dirt or breakage forced on a type AI2-THOR
cannot give it, is one of the simulator's COAT extensions. ``info["perturbation_kinds"]`` (and
``SceneObs.extra["perturbation_kinds"]``) maps every perturbed objectId to ``"native"`` or ``"extension"``
(:func:`perturbation_kinds`), so a benchmark can tell AI2-THOR-native episodes from extension ones.

Extension situations in force. Every observation lists, in ``SceneObs.extra["extensions"]``, the objects whose
situation AI2-THOR could not produce, with one or more of these labels (:func:`extension_situations`; an object
with none is left out, so ``{}`` means the episode is AI2-THOR-native at that step):

- ``dirty-not-dirtyable``: made dirtyable (and dirty) although AI2-THOR never makes its type dirtyable (knives,
  forks...); the label stays after cleaning, since its ``dirtyable`` flag is still not AI2-THOR's;
- ``broken-not-breakable``: ``isBroken`` on an object AI2-THOR cannot break;
- ``broken-unusable``: broken and, as COAT's irreversible-using, refusing every action (``perturb`` ``broken`` and
  breaks-on-pickup add this use claim; AI2-THOR lets actions on a broken object proceed);
- ``busy-timer``: someone else uses it for a while (reversible-using; ``busy``, ``stove-in-use``, ``UseObject``);
- ``busy-for-good``: someone else uses it and never stops (irreversible-using; ``busy-for-good``);
- ``faulty``: an appliance that switches on but does nothing;
- ``breaks-on-pickup``: armed to break when picked up; ``broke-on-pickup``: it did;
- ``taken-on-approach``: armed to be taken when the robot comes near; ``taken-by-someone``: it was;
- ``extension-type``: an object of a type AI2-THOR lacks (Cake, CakeSliced).

Example:
    >>> from scenes.embedded import EmbeddedEnv
    >>> env = EmbeddedEnv("kitchen", frames=False)
    >>> obs, info = env.reset(seed=1, options={"perturb": [{"type": "Microwave", "condition": "faulty"}]})
    >>> list(info["perturbed"].values())
    ['faulty']
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planner.errors import ConfigError
from planner.schemas.thor_rules import (
    MUST_BE_CLOSED_TO_TURN_ON,
    MUST_BE_OFF_TO_OPEN,
    MUST_BE_OPEN_TO_PLACE_OBJECTS_IN,
    OBJECT_SPECIFIC_RECEPTACLES,
)

from .extensions import ALL_TYPES, is_extension
from .metadata import box_of
from .world import World
from .world.constants import BASINS, WATER_SOURCES
from .world.faults import BROKEN_BY
from .world.manipulation import placement_row

CONDITIONS: tuple[str, ...] = (
    "missing", "dirty", "busy", "busy-for-good", "broken", "faulty", "breaks-on-pickup", "taken-on-approach", "off",
    "occupied", "cold-coffee", "on", "open", "closed", "displaced",
)  # fmt: skip
"""Valid ``condition`` values."""
WHICH: tuple[str, ...] = ("one", "all")
"""Valid ``which`` values (default ``one``)."""
SPEC_KEYS: tuple[str, ...] = ("type", "condition", "which", "seconds", "from")


@dataclass(frozen=True)
class Perturbation:
    """One validated perturbation."""

    type: str
    condition: str
    which: str = "one"
    seconds: float | None = None
    leave: tuple[str, ...] = ()
    """``displaced``: the receptacle types (the spec's ``from``) the object must leave."""


def appliance_types() -> tuple[str, ...]:
    """Types ``faulty`` applies to: heat and cold sources, running-water sources, and StoveKnob."""
    flagged = {t for t, i in ALL_TYPES.items() if {"isHeatSource", "isColdSource"} & set(i.flags)}
    return tuple(sorted(flagged | set(WATER_SOURCES) | {"StoveKnob"}))


def _bad(i: int, key: str, value: Any, valid: Sequence[str], extra: str = "") -> ConfigError:
    near = difflib.get_close_matches(str(value), list(valid), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return ConfigError(f"perturb[{i}].{key}: unknown value {value!r}{hint}; valid: {', '.join(valid)}{extra}")


def parse_perturbations(world: World, specs: Any) -> list[Perturbation]:
    """Validate ``options["perturb"]`` against the scene.

    Raises:
        ConfigError: not a list of dicts, an unknown key, type, condition or ``which`` (the message names the
            bad value and the valid ones), a condition other than ``missing`` on a type the scene lacks, ``faulty``
            on a type that is no appliance, ``breaks-on-pickup`` on a type that cannot be picked up, or bad
            ``seconds``, or a ``from`` that is not a non-empty list of object types or comes without
            ``displaced`` (or ``displaced`` without it, or on a type that cannot be picked up).
    """
    if isinstance(specs, dict):
        specs = [specs]
    if not isinstance(specs, (list, tuple)):
        raise ConfigError(f"perturb must be a list of {{'type', 'condition', 'which'}} dicts, got {specs!r}")
    scene_types = sorted({o["objectType"] for o in world.objs.values()})
    out = []
    for i, s in enumerate(specs):
        if not isinstance(s, dict):
            raise ConfigError(f"perturb[{i}] must be a dict with 'type' and 'condition', got {s!r}")
        unknown = sorted(set(s) - set(SPEC_KEYS))
        if unknown:
            raise _bad(i, "key", unknown[0], SPEC_KEYS)
        t, cond, which = s.get("type"), s.get("condition"), s.get("which", "one")
        if t not in ALL_TYPES and t not in scene_types:
            raise _bad(i, "type", t, scene_types, " (the scene's types), or any AI2-THOR object type")
        if cond not in CONDITIONS:
            raise _bad(i, "condition", cond, CONDITIONS)
        if t not in scene_types and cond != "missing":
            raise ConfigError(f"perturb[{i}]: no {t} in scene {world.scene_name!r} to make {cond!r}; the scene's "
                              f"types: {', '.join(scene_types)}")
        if which not in WHICH:
            raise _bad(i, "which", which, WHICH)
        if cond == "faulty" and t not in appliance_types():
            raise ConfigError(f"perturb[{i}]: 'faulty' needs an appliance type, not {t!r}; valid: "
                              f"{', '.join(appliance_types())}")
        if cond == "breaks-on-pickup" and t in ALL_TYPES and "pickupable" not in ALL_TYPES[t].flags:
            raise ConfigError(f"perturb[{i}]: 'breaks-on-pickup' needs a pickupable type; {t!r} is not pickupable")
        seconds = s.get("seconds")
        if seconds is not None and (cond != "busy" or isinstance(seconds, bool)
                                    or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf")):
            raise ConfigError(f"perturb[{i}].seconds: only for condition 'busy', a number > 0; got {seconds!r}")
        leave = _leave(i, s, cond, t, scene_types)
        out.append(Perturbation(t, cond, which, None if seconds is None else float(seconds), leave))
    return out


def _leave(i: int, s: dict[str, Any], cond: str, t: str, scene_types: Sequence[str]) -> tuple[str, ...]:
    """The validated ``from`` of spec ``s`` (``displaced`` only, and needed there)."""
    got = s.get("from")
    if cond != "displaced":
        if got is not None:
            raise ConfigError(f"perturb[{i}].from: only for condition 'displaced' (the receptacle types the object "
                              f"must leave); got {got!r} with {cond!r}")
        return ()
    if isinstance(got, str):
        got = [got]
    if not isinstance(got, (list, tuple)) or not got:
        raise ConfigError(f"perturb[{i}]: 'displaced' needs 'from', a non-empty list of the receptacle types the "
                          f"{t} must leave (e.g. ['Shelf']); got {got!r}")
    valid = sorted(set(scene_types) | {k for k, info in ALL_TYPES.items() if "receptacle" in info.flags})
    for r in got:
        if r not in ALL_TYPES and r not in scene_types:
            raise _bad(i, "from", r, valid, " (receptacle types), or any AI2-THOR object type")
    if t in ALL_TYPES and "pickupable" not in ALL_TYPES[t].flags:
        raise ConfigError(f"perturb[{i}]: 'displaced' moves an object that can be picked up; {t!r} is not pickupable")
    return tuple(dict.fromkeys(str(r) for r in got))


AWKWARD: frozenset[str] = frozenset({"GarbageCan", *BASINS})
"""Receptacle types a displaced object goes into only when nothing else takes it (beside closed ones, heat and cold
sources and object-specific holders): the bin, and basins a running faucet would fill what lies in."""


def containers(world: World, oid: str) -> set[str]:
    """Every receptacle ``oid`` lies in: those listing it or listed as its parents, and what holds any of them that
    can be carried (what holds a plate holds what lies on it; a counter does not hold what is in its microwave)."""
    objs = world.objs
    parents: dict[str, set[str]] = {}

    def of(k: str) -> set[str]:
        if k not in parents:
            parents[k] = {p for p in objs[k]["parentReceptacles"] or [] if p in objs}
            parents[k] |= {r for r, o in objs.items() if k in (o["receptacleObjectIds"] or [])}
        return parents[k]

    seen: set[str] = set()
    stack = list(of(oid))
    while stack:
        p = stack.pop()
        if p in seen or p == oid:
            continue
        seen.add(p)
        if objs[p].get("pickupable"):
            stack.extend(of(p))
    return seen


def _accepts(world: World, r: dict[str, Any], o: dict[str, Any]) -> bool:
    """``PutObject`` (without ``forceAction``) would set ``o`` in ``r``, open or not: its placement row, an
    object-specific receptacle's types and emptiness, room in a pickupable receptacle, no use claim, not broken."""
    rt, t = r["objectType"], o["objectType"]
    if r["isBroken"] or r["isPickedUp"] or r["objectId"] in world.in_use:
        return False
    if rt in OBJECT_SPECIFIC_RECEPTACLES:
        return t in OBJECT_SPECIFIC_RECEPTACLES[rt] and not world.contents(r["objectId"], recursive=False)
    row = placement_row(t)
    return (row is None or rt in row) and world._has_room(r, o)


def displacement_target(world: World, oid: str, leave: Sequence[str]) -> str | None:
    """Where ``displaced`` moves ``oid``: a receptacle of its type's compatible receptacles (AI2-THOR's type table)
    that ``PutObject`` would accept, not of the ``leave`` types, not lying in one (nor on a floor of them) and not
    the object or what it holds; the nearest (box centres), preferring a place where it lies in view and as it was
    (neither closed, nor a heat or cold source, an object-specific holder or :data:`AWKWARD`). None: nowhere.
    Deterministic: the same world gives the same place."""
    objs = world.objs
    o = objs[oid]
    info = ALL_TYPES.get(o["objectType"])
    compatible = set(info.compatible) if info is not None else set()
    leave = set(leave)
    skip = {oid, *world.contents(oid)}
    c0, _ = box_of(o)
    ranked: list[tuple[int, float, str]] = []
    for rid, r in objs.items():
        rt = r["objectType"]
        if rid in skip or not r["receptacle"] or rt in leave or rt not in compatible or not _accepts(world, r, o):
            continue
        around = containers(world, rid) if r.get("pickupable") else set()
        around |= {f for f in world.floors if rid in (objs[f]["receptacleObjectIds"] or [])}
        if any(objs[k]["objectType"] in leave for k in around if k in objs) or around & skip:
            continue
        flags = ALL_TYPES[rt].flags if rt in ALL_TYPES else ()
        closed = r["openable"] and rt in MUST_BE_OPEN_TO_PLACE_OBJECTS_IN and not r["isOpen"]
        awkward = (closed or rt in AWKWARD or rt in OBJECT_SPECIFIC_RECEPTACLES
                   or bool({"isHeatSource", "isColdSource"} & set(flags)))
        c, _ = box_of(r)
        ranked.append((int(awkward), round(sum((a - b) ** 2 for a, b in zip(c, c0, strict=True)) ** 0.5, 6), rid))
    return min(ranked)[2] if ranked else None


def lies_in(world: World, oid: str, types: Sequence[str]) -> bool:
    """``oid`` lies in a receptacle of ``types`` (:func:`containers`)."""
    return any(world.objs[k]["objectType"] in types for k in containers(world, oid) if k in world.objs)


def displace(world: World, oid: str, leave: Sequence[str]) -> str | None:
    """Move ``oid`` out of the ``leave`` receptacle types to :func:`displacement_target` (``World.relocate``);
    the receptacle it went to, or None (it lies in none of them, or has nowhere else to go: left as it is)."""
    if not lies_in(world, oid, leave):
        return None
    rid = displacement_target(world, oid, leave)
    if rid is None:
        return None
    world.relocate(oid, rid)
    return rid


def apply_condition(
    world: World, oid: str, condition: str, *, seconds: float = 300.0, group: str | None = None,
    leave: Sequence[str] = (),
) -> None:
    """Put one object in ``condition`` (one of :data:`CONDITIONS`); ``group`` arms breaks-on-pickup jointly;
    ``leave``: the receptacle types ``displaced`` moves it out of."""
    o = world.objs[oid]
    if condition == "missing":
        world.remove_object(oid)
    elif condition == "dirty":
        o["dirtyable"] = True
        o["isDirty"] = True
    elif condition == "busy":
        world.set_in_use(oid, seconds)
    elif condition == "busy-for-good":
        world.set_in_use(oid, None)
    elif condition == "broken":
        world.mark_broken(oid)
    elif condition == "faulty":
        world.set_faulty(oid)
    elif condition == "breaks-on-pickup":
        world.break_on_pickup[oid] = group or oid
    elif condition == "taken-on-approach":
        world.take_on_approach.add(oid)
    elif condition == "off":
        if o["isToggled"]:
            o["isToggled"] = False
            for c in o.get("controlledObjects") or []:
                if c in world.objs:
                    world.objs[c]["isToggled"] = False
        elif o["openable"] and not o["toggleable"] and o["isOpen"]:  # blinds, curtains: closed, letting no light in
            o["isOpen"] = False
            o["openness"] = 0.0
            world.open_version += 1
    elif condition == "on":  # AI2-THOR's SetObjectStates isToggled; a microwave turns on only when closed
        if o["toggleable"] and not o["isToggled"] and not (o["objectType"] in MUST_BE_CLOSED_TO_TURN_ON
                                                           and o["isOpen"]):
            o["isToggled"] = True
            for c in o.get("controlledObjects") or []:
                if c in world.objs:
                    world.objs[c]["isToggled"] = True
    elif condition in ("open", "closed"):  # SetObjectStates isOpen; a microwave opens only when off
        want = condition == "open"
        if o["openable"] and o["isOpen"] != want and not (want and o["objectType"] in MUST_BE_OFF_TO_OPEN
                                                          and o["isToggled"]):
            o["isOpen"] = want
            o["openness"] = 1.0 if want else 0.0
            world.open_version += 1
    elif condition == "occupied":
        if not o.get("canFillWithLiquid"):
            raise ConfigError(f"condition 'occupied' fills a vessel with someone's wine, and a {o['objectType']} "
                              "cannot hold a liquid (canFillWithLiquid is false)")
        if not o["isFilledWithLiquid"]:
            world._fill(oid, OCCUPIED_LIQUID)  # what FillObjectWithLiquid does
    elif condition == "cold-coffee":
        if not o.get("canFillWithLiquid"):
            raise ConfigError(f"condition 'cold-coffee' fills a vessel with coffee gone cold, and a {o['objectType']} "
                              "cannot hold a liquid (canFillWithLiquid is false)")
        if not o["isFilledWithLiquid"]:
            world._fill(oid, "coffee")  # what FillObjectWithLiquid does: hot coffee ...
        o["temperature"] = "RoomTemp"  # ... left to go cold (a fridge and then the room bring it there in AI2-THOR)
        world.temp_clock.pop(oid, None)
    elif condition == "displaced":
        if not leave:
            raise ConfigError("condition 'displaced' needs the receptacle types the object must leave (leave=...)")
        displace(world, oid, leave)
    else:
        raise ConfigError(f"unknown condition {condition!r}; valid: {', '.join(CONDITIONS)}")


def apply_perturbations(
    world: World, specs: Any, *, seed: int | None = None, busy_seconds: float = 300.0
) -> dict[str, str]:
    """Validate and apply ``options["perturb"]`` to a freshly reset ``world``, in order.

    Args:
        world: The world, before its first observation.
        specs: A list of perturbation dicts (or one dict); see the module docstring.
        seed: Seeds every ``which="one"`` choice (None behaves like 0).
        busy_seconds: Default duration of ``busy``.

    Returns:
        ``{objectId: condition}`` of every object changed (a later perturbation of the same object wins).

    Raises:
        ConfigError: invalid specs (:func:`parse_perturbations`).
    """
    parsed = parse_perturbations(world, specs)
    rng = random.Random(f"perturb:{0 if seed is None else seed}")
    done: dict[str, str] = {}
    for p in parsed:
        ids = sorted(k for k, o in world.objs.items() if o["objectType"] == p.type)
        if p.condition == "displaced":  # only what lies where it must not is a candidate; what has no other place stays
            ids = [k for k in ids if lies_in(world, k, p.leave)]
        if not ids:
            continue
        if p.which == "one":
            fresh = [k for k in ids if k not in done]
            ids = [rng.choice(fresh or ids)]
        for k in ids:
            if p.condition == "displaced":
                if displace(world, k, p.leave) is not None:
                    done[k] = p.condition
                continue
            apply_condition(world, k, p.condition, seconds=p.seconds or busy_seconds)
            done[k] = p.condition
    world.touch()
    return done


NATIVE_ALWAYS: frozenset[str] = frozenset({"missing", "off", "occupied", "cold-coffee", "on", "open", "closed",
                                          "displaced"})
"""Conditions that are AI2-THOR states on any type they apply to."""
OCCUPIED_LIQUID = "wine"
"""What an ``occupied`` vessel holds: someone's wine (not coffee, which AI2-THOR makes hot: a vessel hot from it
would never *become* hot when water is boiled in it after emptying)."""
NATIVE = "native"
EXTENSION = "extension"


def perturbation_kinds(world: World, perturbed: dict[str, str]) -> dict[str, str]:
    """``{objectId: "native" | "extension"}`` for the perturbations ``perturbed`` (``{objectId: condition}``).

    Native: the conditions of :data:`NATIVE_ALWAYS` (``missing``, ``off``, ``occupied``, ``displaced`` ...);
    ``dirty`` on an object the scene made dirtyable; ``broken`` on an object it made breakable (AI2-THOR's own flags,
    before any perturbation). Everything else is an extension.
    """
    out = {}
    for oid, cond in perturbed.items():
        dirtyable, breakable = world.native_flags.get(oid, (False, False))
        native = cond in NATIVE_ALWAYS or (cond == "dirty" and dirtyable) or (cond == "broken" and breakable)
        out[oid] = NATIVE if native else EXTENSION
    return out


def extension_candidates(world: World) -> set[str]:
    """Objects that may be in an extension situation by their flags alone (checked once, after reset): extension
    types, flags changed from the scene's, broken objects AI2-THOR cannot break. Actions never change these flags;
    what they change later (use claims, faults, fired faults) :func:`extension_situations` reads from the world."""
    native = world.native_flags
    out = set()
    for oid, o in world.objs.items():
        if (is_extension(o["objectType"]) or (o["dirtyable"] and not native.get(oid, (True, True))[0])
                or (o["isBroken"] and not o["breakable"])):
            out.add(oid)
    return out


def extension_situations(world: World, candidates: set[str] | None = None) -> dict[str, list[str]]:
    """The extension situations in force now: ``{objectId: [label, ...]}`` (labels in the module docstring).

    Args:
        world: The world.
        candidates: :func:`extension_candidates` of the world after reset (None: compute it now); the objects
            with a use claim, a fault or a fired fault are added.
    """
    if candidates is None:
        candidates = extension_candidates(world)
    ids = candidates | set(world.in_use) | world.faulty | set(world.break_on_pickup) | world.take_on_approach
    ids |= set(world.fired)
    out: dict[str, list[str]] = {}
    native = world.native_flags
    for oid in sorted(ids):
        o = world.objs.get(oid)
        if o is None:
            continue
        labels = []
        if is_extension(o["objectType"]):
            labels.append("extension-type")
        if o["dirtyable"] and not native.get(oid, (True, True))[0]:
            labels.append("dirty-not-dirtyable")
        if o["isBroken"] and not o["breakable"]:
            labels.append("broken-not-breakable")
        claim = world.in_use.get(oid)
        fired = world.fired.get(oid, ())
        if claim is not None:
            if claim.by == BROKEN_BY:
                labels.append("broken-unusable")
            elif "taken-by-someone" not in fired:
                labels.append("busy-for-good" if claim.irreversible else "busy-timer")
        if oid in world.faulty:
            labels.append("faulty")
        if oid in world.break_on_pickup:
            labels.append("breaks-on-pickup")
        if oid in world.take_on_approach:
            labels.append("taken-on-approach")
        labels.extend(sorted(fired))
        if labels:
            out[oid] = labels
    return out


__all__ = [
    "AWKWARD", "CONDITIONS", "EXTENSION", "NATIVE", "SPEC_KEYS", "WHICH", "Perturbation", "appliance_types",
    "apply_condition", "apply_perturbations", "containers", "displace", "displacement_target", "extension_candidates",
    "extension_situations", "lies_in", "parse_perturbations", "perturbation_kinds",
]  # fmt: skip
