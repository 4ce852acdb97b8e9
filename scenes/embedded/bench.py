"""Speed of the embedded simulator on a realistic, seeded action mix (``coat scenes bench``).

The mix imitates an agent doing household tasks: 20 % PickupObject, 20 % PutObject, 10 % Open/CloseObject,
10 % ToggleObjectOn/Off (all with ``forceAction`` on objects of the right kind, so some fail as in real use: hand
full, nothing held...), 15 % Teleport to a reachable position, 15 % MoveAhead/Rotate/Look, 10 % Pass. Every step
builds the full observation (42-key metadata for every object, an ``ai2thor.server.Event`` when ai2thor is
installed); frames only with ``frames=True``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from ..base import Action
from .env import EmbeddedEnv


@dataclass(frozen=True)
class BenchResult:
    """One benchmark run."""

    scene: str
    actions: int
    seconds: float
    cpu_seconds: float
    succeeded: int
    frames: bool
    events: bool
    objects: int

    @property
    def actions_per_second(self) -> float:
        """Wall-clock rate (depends on what else runs on the machine)."""
        return self.actions / self.seconds if self.seconds > 0 else float("inf")

    @property
    def actions_per_cpu_second(self) -> float:
        """Rate per second of CPU time used by this process (what one free core would do)."""
        return self.actions / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")


def action_mix(env: EmbeddedEnv, n: int, seed: int = 0) -> list[Action]:
    """A seeded list of ``n`` actions for ``env`` (reset first)."""
    w = env.world
    if w is None:
        raise RuntimeError("reset the env before building the action mix")
    objs = list(w.objs.values())
    pick = [o["objectId"] for o in objs if o["pickupable"]]
    rec = [o["objectId"] for o in objs if o["receptacle"]]
    opn = [o["objectId"] for o in objs if o["openable"]] or rec
    tog = [o["objectId"] for o in objs if o["toggleable"]] or rec
    grid = w.reachable()
    rng = random.Random(seed)
    force: dict[str, Any] = {"forceAction": True}
    out: list[Action] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.2:
            out.append(Action(name="PickupObject", object_id=rng.choice(pick), args=force))
        elif r < 0.4:
            out.append(Action(name="PutObject", object_id=rng.choice(rec), args=force))
        elif r < 0.5:
            out.append(Action(name=rng.choice(["OpenObject", "CloseObject"]), object_id=rng.choice(opn), args=force))
        elif r < 0.6:
            name = rng.choice(["ToggleObjectOn", "ToggleObjectOff"])
            out.append(Action(name=name, object_id=rng.choice(tog), args=force))
        elif r < 0.75 and len(grid):
            x, z = grid[rng.randrange(len(grid))]
            rot = {"x": 0.0, "y": float(rng.choice([0, 90, 180, 270])), "z": 0.0}
            out.append(
                Action(name="Teleport", args={"position": {"x": float(x), "y": 0.9, "z": float(z)}, "rotation": rot})
            )
        elif r < 0.9:
            out.append(Action(name=rng.choice(["MoveAhead", "RotateLeft", "RotateRight", "LookDown", "LookUp"])))
        else:
            out.append(Action(name="Pass"))
    return out


def benchmark(
    scene: str = "FloorPlan1",
    *,
    n_actions: int = 5000,
    seed: int = 0,
    frames: bool = False,
    events: bool = True,
    data_dir: str | None = None,
) -> BenchResult:
    """Time ``n_actions`` steps of the action mix on ``scene`` (the mix is built before the clock starts)."""
    env = EmbeddedEnv(scene, frames=frames, events=events, data_dir=data_dir)
    env.reset(seed=seed)
    acts = action_mix(env, n_actions, seed)
    ok = 0
    c0, t0 = time.process_time(), time.perf_counter()
    for a in acts:
        ok += env.step(a)[4]["action_success"]
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert env.world is not None
    n_obj = len(env.world.objs)
    env.close()
    return BenchResult(scene, n_actions, dt, cpu, ok, env.frames, events, n_obj)


__all__ = ["BenchResult", "action_mix", "benchmark"]
