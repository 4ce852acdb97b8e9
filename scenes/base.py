"""The one environment interface every backend implements: a ``gymnasium.Env``.

Actions use AI2-THOR 5.0.0 action names and parameters (``PickupObject`` with ``objectId``, ``PutObject``
with ``objectId`` as the receptacle, ``Teleport`` with ``position``...): the embedded simulator and the
AI2-THOR adapter speak them natively, and the ScienceWorld adapter maps the subset that exists there (or
takes a raw text command as ``Action(name="Text", args={"command": "..."})`` or a plain string).
``step`` takes an :class:`Action` or what the env's ``action_space`` holds (``controller.step`` kwargs as a dict;
a text command for ScienceWorld).

The observation is a :class:`SceneObs`: as a dict it is the Gymnasium observation (the keys of the env's
``observation_space``, see :mod:`scenes.spaces`); its attributes hold the full AI2-THOR metadata, frames and
text the planner reads.

Simulator failures are outcomes, never exceptions: ``info["action_success"]`` is False and
``info["error"]`` says why (AI2-THOR's ``lastActionSuccess`` / ``errorMessage``).

Example:
    >>> import gymnasium, scenes
    >>> from scenes import Action
    >>> with gymnasium.make("coat/kitchen-v0", frames=False) as env:
    ...     obs, info = env.reset(seed=0)
    ...     obs, reward, terminated, truncated, info = env.step(Action(name="Pass"))
    ...     info["action_success"], obs in env.observation_space, obs.objects[0]["objectId"] == obs["objects"][0][0]
    (True, True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import FrozenInstanceError
from typing import Any, TypeVar

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import data_equivalence
from pydantic import Field

from planner.errors import ConfigError
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
    def from_thor(cls, step: Mapping[str, Any]) -> Action:
        """Build from ``controller.step`` kwargs such as ``{"action": "OpenObject", "objectId": ...}`` (an
        ``objectId`` of "" or None means no object, as in the env's ``action_space``)."""
        d = dict(step)
        name = d.pop("action")
        oid = d.pop("objectId", None)
        return cls(name=name, object_id=oid or None, args=d)

    @classmethod
    def coerce(cls, action: Any) -> Action:
        """An :class:`Action` from an Action or ``controller.step`` kwargs.

        Raises:
            ConfigError: anything else (the message says what step takes).
        """
        if isinstance(action, Action):
            return action
        if isinstance(action, Mapping) and isinstance(action.get("action"), str) and action["action"]:
            return cls.from_thor(action)
        raise ConfigError(
            f"step() takes a scenes.Action or a dict of controller.step kwargs with a non-empty 'action' "
            f"(e.g. {{'action': 'OpenObject', 'objectId': 'Fridge|...'}}), got {type(action).__name__} {action!r:.80}"
        )


_FIELDS = ("objects", "rgb", "depth", "instance_masks", "text", "event", "time", "extra")


class SceneObs(dict):  # type: ignore[type-arg]
    """What a backend observes after reset/step: the Gymnasium observation, with the full view as attributes.

    As a dict, a SceneObs holds the keys of the env's ``observation_space`` (see :mod:`scenes.spaces`), so it is
    what Gymnasium's checker, wrappers and vector envs see; the attributes are read-only. A backend may pass the
    dict as a function (``view=lambda: {...}``): it is built the first time the dict is read, so code that reads
    only the attributes (the planner) does not pay for it.

    Attributes:
        objects: Object metadata dicts (AI2-THOR schema); empty for text-only backends.
        rgb: HxWx3 uint8 frame, when the backend renders.
        depth: HxW float32 depth in metres, when available.
        instance_masks: objectId -> HxW bool mask, when available.
        text: Observation text (ScienceWorld), when available.
        event: The ``ai2thor.server.Event`` (embedded and THOR backends), else None.
        time: Simulated seconds since reset.
        extra: Backend-specific facts (see each backend).
    """

    __slots__ = (*_FIELDS, "_pending")
    __hash__ = None  # type: ignore[assignment]

    objects: tuple[RawObject, ...]
    rgb: np.ndarray | None
    depth: np.ndarray | None
    instance_masks: dict[str, np.ndarray] | None
    text: str | None
    event: Any
    time: float
    extra: dict[str, Any]

    def __init__(
        self,
        objects: tuple[RawObject, ...] = (),
        rgb: np.ndarray | None = None,
        depth: np.ndarray | None = None,
        instance_masks: dict[str, np.ndarray] | None = None,
        text: str | None = None,
        event: Any = None,
        time: float = 0.0,
        extra: dict[str, Any] | None = None,
        *,
        view: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        lazy = callable(view)
        super().__init__({} if lazy or view is None else view)  # type: ignore[arg-type]
        object.__setattr__(self, "_pending", view if lazy else None)
        values = (objects, rgb, depth, instance_masks, text, event, time, {} if extra is None else extra)
        for name, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def _fill(self) -> None:
        """Build the dict now if the backend passed it as a function."""
        pending = self._pending
        if pending is not None:
            object.__setattr__(self, "_pending", None)
            dict.update(self, pending())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __bool__(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        """Same Gymnasium view, objects, text, time, extra and frames (the event is not compared)."""
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, SceneObs)
        self._fill()
        other._fill()
        mine = (dict(self), self.objects, self.text, self.time, self.extra, self.rgb, self.depth)
        theirs = (dict(other), other.objects, other.text, other.time, other.extra, other.rgb, other.depth)
        return data_equivalence(mine, theirs, exact=True)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __reduce__(self) -> tuple[Any, ...]:
        self._fill()
        return (type(self), tuple(getattr(self, f) for f in _FIELDS), None, None, iter(dict.items(self)))

    def __repr__(self) -> str:
        text = None if self.text is None else f"{self.text[:40]!r}..."
        return f"SceneObs(objects=<{len(self.objects)}>, text={text}, time={self.time}, keys={list(self)})"

    def object(self, object_id: str) -> RawObject:
        """Return one object's metadata by id."""
        for o in self.objects:
            if o.get("objectId") == object_id:
                return o
        raise KeyError(f"no object {object_id!r}")


def _filled(name: str) -> Callable[..., Any]:
    method = getattr(dict, name)

    def read(self: SceneObs, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        return method(self, *args, **kwargs)

    read.__name__ = read.__qualname__ = name
    read.__doc__ = method.__doc__
    return read


# Every way of reading or changing the dict builds it first (overriding __iter__ also makes dict(obs) and {**obs}
# go through keys() and __getitem__).
for _name in ("__getitem__", "__iter__", "__len__", "__contains__", "__reversed__", "__or__", "__ror__", "__ior__",
              "__setitem__", "__delitem__", "keys", "values", "items", "get", "copy", "pop", "popitem", "setdefault",
              "update", "clear"):
    setattr(SceneObs, _name, _filled(_name))


ObsT = TypeVar("ObsT")
ActT = TypeVar("ActT")


class SceneEnv(gymnasium.Env[ObsT, ActT]):
    """A scene backend: ``gymnasium.Env`` with the project's contract on ``info``.

    ``step``'s ``info`` always has ``action_success`` (bool) and ``error`` (str, empty on success); an
    impossible action is a failed step, never an exception. ``render_mode`` defaults to the backend's own mode
    (``rgb_array`` or ``ansi``) so ``render()`` returns a picture or text; pass ``render_mode=None`` for none.

    A backend sets ``observation_space`` and ``action_space`` in ``__init__`` (before starting a simulator, so they
    are known even when it cannot start), calls ``super().reset(seed=seed)`` in ``reset`` and returns SceneObs
    whose dict is inside ``observation_space``; :func:`scenes.checker.check_scene_env` checks all of it.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def _set_render_mode(self, render_mode: str | None) -> None:
        modes = list(self.metadata.get("render_modes", []))
        if render_mode is not None and render_mode not in modes:
            raise ConfigError(
                f"{type(self).__name__} cannot render as {render_mode!r}; valid render_mode: "
                f"{', '.join(map(repr, modes)) or 'none here'} or None"
            )
        self.render_mode = render_mode


__all__ = ["Action", "ActT", "ObsT", "RawObject", "SceneEnv", "SceneObs"]
