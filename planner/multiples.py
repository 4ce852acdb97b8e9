"""Tasks on several objects: "two eggs", "both lamps", "all the lights", "the remote and my phone".

A target that stands for several objects (``Target.count`` > 1, or ``Target.every``) becomes that many targets once
the scene is known: copies (``Target.same_as``) of the first. Every copy, whether made here or read so ("put the
remote and my phone away": the phone is a copy of the remote with its own types), gets each goal of the target it
copies: "crack two eggs into a bowl" is two eggs, each cracked and each in the bowl. A copy of a sliced target is
another piece of the same object ("toast two slices of bread": one loaf, two slices, each toasted); any other copy
is a distinct object. "All" counts the scene's objects of the types.

Example:
    >>> from planner.schemas import GoalCondition, Target, TaskSpec
    >>> spec = TaskSpec(task="turn on both lamps", targets=(Target(name="target", types=("DeskLamp",), count=2),),
    ...                 goals=(GoalCondition(item="target", prop="isToggled", value=True),))
    >>> [g.item for g in expand_targets(spec, ["DeskLamp", "DeskLamp", "Sofa"]).goals]
    ['target', 'target2']
"""

from __future__ import annotations

from collections.abc import Iterable

from .schemas import Target, TaskSpec, canonical_object_name


def expand_targets(spec: TaskSpec, scene_types: Iterable[str]) -> TaskSpec:
    """``spec`` with a copy for each further object a target stands for, and every copy given its goals.

    Args:
        spec: The task.
        scene_types: The type of every object in the scene (one entry per object), for "all the X".

    Idempotent: a spec expanded once comes back equal.
    """
    have: dict[str, int] = {}
    for ty in scene_types:
        have[canonical_object_name(ty)] = have.get(canonical_object_name(ty), 0) + 1
    names = {t.name for t in spec.targets}
    targets: list[Target] = []
    for t in spec.targets:
        n = max(1, sum(have.get(canonical_object_name(ty), 0) for ty in t.types)) if t.every else t.count
        targets.append(t.model_copy(update={"count": 1, "every": False}) if n > 1 or t.every else t)
        for _ in range(n - 1):
            name = _free(t.name, names)
            names.add(name)
            targets.append(Target(name=name, types=t.types, sliced=t.sliced, same_as=t.name))
    goals = list(spec.goals)
    for t in targets:  # in order: a copy of a copy ("two forks" after "two plates") gets the goals copied before it
        if t.same_as is None:
            continue
        for g in list(goals):
            if g.item == t.same_as:
                said = f"as '{g.description}', for {t.name} ({' or '.join(t.types)})" if g.description else ""
                copy = g.model_copy(update={"item": t.name, "description": said})
                if copy not in goals:
                    goals.append(copy)
    if len(targets) == len(spec.targets) and len(goals) == len(spec.goals) and targets == list(spec.targets):
        return spec
    return spec.model_copy(update={"targets": tuple(targets), "goals": tuple(goals)})


def copies_of(spec: TaskSpec, name: str) -> list[str]:
    """``name`` and the targets that copy it, in the spec's order (``["target", "target2"]``)."""
    return [name, *(t.name for t in spec.targets if t.same_as == name)]


def _free(base: str, taken: set[str]) -> str:
    root = base.rstrip("0123456789") or base  # the copies of target2 are target3, target4 ...
    k = 2
    while f"{root}{k}" in taken:
        k += 1
    return f"{root}{k}"
