"""The one environment interface every backend implements (Gymnasium-style).

Actions use AI2-THOR 5.0.0 action names and parameters (``PickupObject`` with ``objectId``, ``PutObject``
with ``objectId`` as the receptacle, ``Teleport`` with ``position``...): the embedded simulator and the
AI2-THOR adapter speak them natively, and the ScienceWorld adapter maps the subset that exists there (or
takes a raw text command as ``Action(name="Text", args={"command": "..."})``).

Simulator failures are outcomes, never exceptions: ``info["action_success"]`` is False and
``info["error"]`` says why (AI2-THOR's ``lastActionSuccess`` / ``errorMessage``).

Example:
    >>> import scenes
    >>> with scenes.make("embedded/kitchen-v0") as env:              # doctest: +SKIP
    ...     obs, info = env.reset(seed=0)
    ...     obs, reward, terminated, truncated, info = env.step(Action(name="Pass"))
    ...     info["action_success"]
    True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from pydantic import Field

from planner.schemas import Contract

RawObject = dict[str, Any]
"""One object's metadata, with AI2-THOR 5.0.0's 42 keys (``objectId``, ``objectType``, ``isDirty``...)."""


class Action(Contract):
    """A backend-neutral action: an AI2-THOR action name plus its parameters.

    ``object_id`` becomes ``objectId``; everything else goes in ``args`` with AI2-THOR's parameter names.
    """

    name: str = Field(min_length=1)
    object_id: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)

    def to_thor(self) -> dict[str, Any]:
        """The keyword arguments of ``controller.step(...)`` for this action."""
        out: dict[str, Any] = {"action": self.name}
        if self.object_id is not None:
            out["objectId"] = self.object_id
        out.update(self.args)
        return out

    @classmethod
    def from_thor(cls, step: dict[str, Any]) -> Action:
        """Build from a ``controller.step`` kwargs dict such as ``{"action": "OpenObject", "objectId": ...}``."""
        d = dict(step)
        name = d.pop("action")
        oid = d.pop("objectId", None)
        return cls(name=name, object_id=oid, args=d)


@dataclass(frozen=True)
class SceneObs:
    """What a backend observes after reset/step.

    Attributes:
        objects: Object metadata dicts (AI2-THOR schema); empty for text-only backends.
        rgb: HxWx3 uint8 frame, when the backend renders.
        depth: HxW float32 depth in metres, when available.
        instance_masks: objectId -> HxW bool mask, when available.
        text: Observation text (ScienceWorld), when available.
        event: The ``ai2thor.server.Event`` (embedded and THOR backends), else None.
        time: Simulated seconds since reset.
    """

    objects: tuple[RawObject, ...] = ()
    rgb: np.ndarray | None = None
    depth: np.ndarray | None = None
    instance_masks: dict[str, np.ndarray] | None = None
    text: str | None = None
    event: Any = None
    time: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def object(self, object_id: str) -> RawObject:
        """Return one object's metadata by id."""
        for o in self.objects:
            if o.get("objectId") == object_id:
                return o
        raise KeyError(f"no object {object_id!r}")


ObsT = TypeVar("ObsT")
ActT = TypeVar("ActT")


class SceneEnv(ABC, Generic[ObsT, ActT]):
    """Gymnasium-style environment: ``reset`` / ``step`` / ``render`` / ``close`` and a context manager."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    spec_id: str | None = None

    @abstractmethod
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsT, dict[str, Any]]:
        """Start an episode. Same seed and options give the same initial observation."""

    @abstractmethod
    def step(self, action: ActT) -> tuple[ObsT, float, bool, bool, dict[str, Any]]:
        """Apply one action; returns (obs, reward, terminated, truncated, info).

        ``info`` always has ``action_success`` (bool) and ``error`` (str, empty on success).
        """

    def render(self) -> np.ndarray | str | None:
        """Return a picture (HxWx3 uint8) or text of the current state, or None."""
        return None

    def close(self) -> None:  # noqa: B027  (optional hook; idempotent)
        """Release resources. Safe to call more than once."""

    def __enter__(self) -> SceneEnv[ObsT, ActT]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Action", "ActT", "ObsT", "RawObject", "SceneEnv", "SceneObs"]
