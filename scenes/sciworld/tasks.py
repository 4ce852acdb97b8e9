"""ScienceWorld's tasks and the variations that force a substitute (pure data: no JVM, no scienceworld import).

Facts from ScienceWorld 1.2.3 (``scienceworld/tasks.json``, ``TaskChangeOfState.scala``), checked live by
``tests/scenes/test_sciworld_live.py``: in the change-of-state family (boil, melt, freeze,
change-the-state-of-matter-of) every odd variation breaks the kitchen stove and variations 2 and 3 break the
kitchen sink. A broken device is not visible in the text; ``activate stove`` answers "The stove appears
broken, and can't be activated or deactivated." and the agent must use a substitute (oven, blast furnace,
fire pit; another sink, bathtub, toilet, fountain).
"""

from __future__ import annotations

from planner.errors import ConfigError

TASKS: dict[str, str] = {
    "1-1": "boil",
    "1-2": "melt",
    "1-3": "freeze",
    "1-4": "change-the-state-of-matter-of",
    "2-1": "use-thermometer",
    "2-2": "measure-melting-point-known-substance",
    "2-3": "measure-melting-point-unknown-substance",
    "3-1": "power-component",
    "3-2": "power-component-renewable-vs-nonrenewable-energy",
    "3-3": "test-conductivity",
    "3-4": "test-conductivity-of-unknown-substances",
    "4-1": "find-living-thing",
    "4-2": "find-non-living-thing",
    "4-3": "find-plant",
    "4-4": "find-animal",
    "5-1": "grow-plant",
    "5-2": "grow-fruit",
    "6-1": "chemistry-mix",
    "6-2": "chemistry-mix-paint-secondary-color",
    "6-3": "chemistry-mix-paint-tertiary-color",
    "7-1": "lifespan-longest-lived",
    "7-2": "lifespan-shortest-lived",
    "7-3": "lifespan-longest-lived-then-shortest-lived",
    "8-1": "identify-life-stages-1",
    "8-2": "identify-life-stages-2",
    "9-1": "inclined-plane-determine-angle",
    "9-2": "inclined-plane-friction-named-surfaces",
    "9-3": "inclined-plane-friction-unnamed-surfaces",
    "10-1": "mendelian-genetics-known-plant",
    "10-2": "mendelian-genetics-unknown-plant",
}
"""ScienceWorld task id -> task name (the 30 tasks of ScienceWorld 1.2)."""

SPLIT_SIZES: dict[str, tuple[int, int, int]] = {
    "boil": (14, 7, 9), "melt": (14, 7, 9), "freeze": (14, 7, 9), "change-the-state-of-matter-of": (14, 7, 9),
    "use-thermometer": (270, 135, 135), "measure-melting-point-known-substance": (218, 109, 109),
    "measure-melting-point-unknown-substance": (150, 75, 75), "power-component": (10, 5, 5),
    "power-component-renewable-vs-nonrenewable-energy": (10, 5, 5), "test-conductivity": (450, 225, 225),
    "test-conductivity-of-unknown-substances": (300, 150, 150), "find-living-thing": (150, 75, 75),
    "find-non-living-thing": (150, 75, 75), "find-plant": (150, 75, 75), "find-animal": (150, 75, 75),
    "grow-plant": (62, 31, 33), "grow-fruit": (62, 31, 33), "chemistry-mix": (16, 8, 8),
    "chemistry-mix-paint-secondary-color": (18, 9, 9), "chemistry-mix-paint-tertiary-color": (18, 9, 9),
    "lifespan-longest-lived": (62, 31, 32), "lifespan-shortest-lived": (62, 31, 32),
    "lifespan-longest-lived-then-shortest-lived": (62, 31, 32), "identify-life-stages-1": (6, 3, 5),
    "identify-life-stages-2": (4, 2, 4), "inclined-plane-determine-angle": (84, 42, 42),
    "inclined-plane-friction-named-surfaces": (692, 346, 348), "inclined-plane-friction-unnamed-surfaces": (80, 40, 42),
    "mendelian-genetics-known-plant": (60, 30, 30), "mendelian-genetics-unknown-plant": (240, 120, 120),
}
"""Variations per split (train, dev, test) of each task, as ScienceWorld 1.2.3's ``get_variations_*`` report
them; the splits are contiguous (train first, then dev, then test), checked live by
``tests/scenes/test_sciworld_live.py``."""


def split_variations(task: str, split: str) -> range:
    """The variations of ``task`` in ``split`` (``train``, ``dev``, ``test`` or ``all``), without a JVM.

    Example:
        >>> split_variations("find-animal", "test")
        range(225, 300)

    Raises:
        ConfigError: unknown task or split.
    """
    train, dev, test = SPLIT_SIZES[resolve_task(task)]
    ranges = {"train": range(0, train), "dev": range(train, train + dev),
              "test": range(train + dev, train + dev + test), "all": range(0, train + dev + test)}
    if split not in ranges:
        raise ConfigError(f"unknown split {split!r}; valid: {', '.join(ranges)}")
    return ranges[split]


SIMPLIFICATIONS: tuple[str, ...] = (
    "teleportAction",
    "selfWateringFlowerPots",
    "openContainers",
    "openDoors",
    "noElectricalAction",
)
"""Simplification flags; ``"easy"`` means all but openContainers and must not be combined with others."""

CHANGE_OF_STATE_TASKS: tuple[str, ...] = ("boil", "melt", "freeze", "change-the-state-of-matter-of")
"""The task family whose variations disable kitchen devices (ScienceWorld's TaskDisable)."""

ELECTRICAL_TASKS: tuple[str, ...] = (
    "power-component",
    "power-component-renewable-vs-nonrenewable-energy",
    "test-conductivity",
    "test-conductivity-of-unknown-substances",
)
"""Tasks that need ``connect`` actions: ``noElectricalAction`` is not allowed there."""


def tasks() -> list[str]:
    """Return the 30 task names, in ScienceWorld's order (1-1 ... 10-2)."""
    return list(TASKS.values())


def resolve_task(task: str) -> str:
    """Return the task name for a name or an id (``"boil"`` or ``"1-1"``).

    Raises:
        ConfigError: unknown task; the message lists the valid names.
    """
    name = TASKS.get(task, task)
    if name not in TASKS.values():
        raise ConfigError(f"unknown ScienceWorld task {task!r}; valid: {', '.join(tasks())} (or ids 1-1 ... 10-2)")
    return name


def check_simplification(task: str, simplification: str) -> str:
    """Validate a simplification string for ``task`` and return it normalised (no spaces).

    Raises:
        ConfigError: an unknown flag, ``easy`` combined with others (ScienceWorld then fails with
            "Unknown simplification label: easy"), or ``noElectricalAction`` on an electrical task.
    """
    flags = [f.strip() for f in simplification.split(",") if f.strip()]
    bad = [f for f in flags if f not in SIMPLIFICATIONS and f != "easy"]
    if bad:
        raise ConfigError(
            f"unknown ScienceWorld simplification {bad[0]!r}; valid: 'easy' alone, or a comma-separated subset of "
            f"{', '.join(SIMPLIFICATIONS)}"
        )
    if "easy" in flags and len(flags) > 1:
        raise ConfigError(
            f"simplification {simplification!r}: 'easy' cannot be combined with other flags in ScienceWorld 1.2; "
            "spell the list out instead, e.g. 'teleportAction,openDoors,selfWateringFlowerPots,noElectricalAction,"
            "openContainers'"
        )
    if "noElectricalAction" in flags and resolve_task(task) in ELECTRICAL_TASKS:
        raise ConfigError(f"task {task!r} needs electrical actions; drop 'noElectricalAction' from {simplification!r}")
    return ",".join(flags)


def has_teleport(simplification: str) -> bool:
    """True when a simplification string gives ScienceWorld's ``teleport to`` action (``easy`` or
    ``teleportAction``); without it the agent walks through doors."""
    flags = {f.strip() for f in str(simplification).split(",")}
    return bool(flags & {"easy", "teleportAction"})


def broken_devices(task: str, variation: int) -> tuple[str, ...]:
    """The devices a variation breaks, as ``"room:device"`` (empty for most tasks and variations).

    Example:
        >>> broken_devices("boil", 3)
        ('kitchen:sink', 'kitchen:stove')
    """
    name = resolve_task(task)
    if name not in CHANGE_OF_STATE_TASKS or variation < 0:
        return ()
    out = []
    if variation in (2, 3):
        out.append("kitchen:sink")
    if variation % 2 == 1:
        out.append("kitchen:stove")
    return tuple(out)


def substitute_variations(task: str, num_variations: int = 30) -> dict[int, tuple[str, ...]]:
    """Map each variation of ``task`` that breaks a device to the broken devices.

    Args:
        task: Task name or id.
        num_variations: How many variations to list (the change-of-state tasks have 30).

    Returns:
        ``{variation: ("kitchen:stove", ...)}``; empty for tasks that break nothing.
    """
    return {v: b for v in range(num_variations) if (b := broken_devices(task, v))}


__all__ = [
    "CHANGE_OF_STATE_TASKS",
    "SPLIT_SIZES",
    "ELECTRICAL_TASKS",
    "SIMPLIFICATIONS",
    "TASKS",
    "broken_devices",
    "check_simplification",
    "has_teleport",
    "resolve_task",
    "split_variations",
    "substitute_variations",
    "tasks",
]
