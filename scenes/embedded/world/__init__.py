"""The embedded household simulator's state and rules, in AI2-THOR 5.0.0's vocabulary.

:class:`World` holds object metadata dicts with exactly AI2-THOR's 42 keys and applies AI2-THOR actions to them
(``PickupObject``, ``PutObject``, ``ToggleObjectOn``...) with the preconditions and error messages of AI2-THOR's
C# (``docs/conformance.md``; tables in :mod:`planner.schemas.thor_rules`). Failed actions are outcomes: for an
impossible action or a bad argument :meth:`World.step` returns ``(False, errorMessage, ...)``; only a bug in the
simulator itself raises. After every action the contextual rules run (:meth:`World.settle`):
fridge -> Cold; running microwave, lit burner (via its StoveKnob), toaster -> Hot and cooked (the microwave does
not toast bread); running coffee machine -> the mug at its attach point fills with hot coffee; running
faucet/shower over a basin -> clean and fill with water; time passing -> reversible use ends and hot/cold objects
return to RoomTemp.

Where AI2-THOR's behaviour comes from physics (where exactly an object lands, trigger volumes), the rule is an
approximation chosen to match the recorded traces; each is listed in ``benchmarks/scenes.md``.

Copy-on-write discipline: nested values of an object dict (position, lists, boxes) are replaced, never mutated,
so the per-step metadata snapshots can share them with the live state.

Layout: :class:`World` (``core``) combines one mixin per concern over the shared :class:`~.state.WorldState`:
``geometry`` (floor plan, obstacles, reachable grid, poses), ``containment`` (receptacle lists, moving objects),
``visibility``, ``availability`` (objects in use by someone else), ``faults`` (faults that show only on use:
faulty appliances, breaks-on-pickup, taken-on-approach; extensions beyond AI2-THOR), ``rules`` (contextual state
changes), and the action handlers ``navigation``, ``manipulation`` and ``state_changes``; ``constants`` holds
the tuning values.
"""

from __future__ import annotations

from .constants import AGENT_RADIUS, ROOM_TEMP_AFTER, STEP_SECONDS
from .core import World
from .state import ActionFailed, UseClaim

__all__ = ["AGENT_RADIUS", "ROOM_TEMP_AFTER", "STEP_SECONDS", "ActionFailed", "UseClaim", "World"]
