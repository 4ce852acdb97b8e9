"""Convert rl_ai2thor's recorded episodes (pickles) to JSON + PNG with a whitelist unpickler."""

from __future__ import annotations

import codecs
import copyreg
import io
import json
import logging
import pickle
from collections import OrderedDict
from typing import Any

from .._optional import require
from ..errors import DataError

log = logging.getLogger(__name__)

class _ThorEvent:
    """Inert stand-in for ``ai2thor.server.Event``: unpickling only fills its ``__dict__``."""


class _MetadataWrapper(dict):  # type: ignore[type-arg]
    """Inert stand-in for ``ai2thor.server.MetadataWrapper`` (a dict subclass)."""


def _allowed_globals() -> dict[tuple[str, str], Any]:
    import numpy as np

    try:
        from numpy._core.multiarray import _reconstruct, scalar  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.multiarray import _reconstruct, scalar  # type: ignore[no-redef]
    allowed: dict[tuple[str, str], Any] = {
        ("ai2thor.server", "Event"): _ThorEvent,
        ("ai2thor.server", "MetadataWrapper"): _MetadataWrapper,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("collections", "OrderedDict"): OrderedDict,
        ("builtins", "object"): object,
        ("builtins", "dict"): dict,
        ("builtins", "list"): list,
        # protocol 0/1 pickles rebuild plain objects through this; its arguments pass find_class too
        ("copyreg", "_reconstructor"): copyreg._reconstructor,  # type: ignore[attr-defined]
    }
    # arrays pickled under numpy 1.x name numpy.core, under 2.x numpy._core; both map to the same functions
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[(mod, "_reconstruct")] = _reconstruct
        allowed[(mod, "scalar")] = scalar
    try:
        from numpy._core.numeric import _frombuffer  # protocol-5 arrays
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.numeric import _frombuffer  # type: ignore[no-redef]
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        allowed[(mod, "_frombuffer")] = _frombuffer
    # protocol-2 pickles spell bytes as _codecs.encode(str, "latin1"): a pure function
    allowed[("_codecs", "encode")] = codecs.encode
    # two recordings (DoHomework, prepare_going_to_bed) name their actions with rl_thor's str enum: its value
    allowed[("rl_thor.envs.actions", "Ai2thorAction")] = _action_name
    return allowed


def _action_name(value: Any) -> str:
    """Inert stand-in for rl_thor's ``Ai2thorAction(value)`` (a str enum): the action's name itself."""
    if not isinstance(value, str):
        raise _Refused(f"Ai2thorAction of a {type(value).__name__}, not an action name")
    return value


class _Refused(pickle.UnpicklingError):
    """A pickle referenced a global that is not on the whitelist."""


class _WhitelistUnpickler(pickle.Unpickler):
    """Unpickler that resolves only the globals in ``_allowed_globals``; anything else is refused."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self._allowed = _allowed_globals()

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._allowed[(module, name)]
        except KeyError:
            raise _Refused(f"refusing global {module}.{name} (not on the trace whitelist)") from None


def safe_unpickle(data: bytes, where: str) -> Any:
    """Load a recorded-trace pickle with the whitelist unpickler.

    Raises:
        DataError: when the pickle references anything beyond AI2-THOR events and numpy arrays, or is corrupt.
    """
    try:
        return _WhitelistUnpickler(data).load()
    except _Refused as e:
        raise DataError(where, "", str(e)) from e
    except Exception as e:  # a truncated or garbled pickle raises many types (EOFError, ValueError, ...)
        raise DataError(where, "", f"corrupt pickle: {type(e).__name__}: {e}") from e


def _png(frame: Any) -> bytes:
    image_mod = require("PIL.Image", extra="traces")
    buf = io.BytesIO()
    image_mod.fromarray(frame).save(buf, format="PNG")
    return buf.getvalue()


def convert_trace(name: str, event_pickle: bytes, action_pickle: bytes) -> dict[str, bytes]:
    """Convert one rl_ai2thor recording into ``actions.json`` + ``event_NN.json`` + ``event_NN.png``.

    ``event_NN`` is the event after action NN. When the action list is longer than the event list (the
    recording started after some setup actions), the events belong to the last actions; every event's
    ``lastAction`` must match its action's name.

    Args:
        name: Trace name (directory under ``ai2thor/traces/``).
        event_pickle: Bytes of ``event_list.pkl`` (a list of ``ai2thor.server.Event``).
        action_pickle: Bytes of ``controller_action_list.pkl`` (a list of action dicts).

    Returns:
        ``{output path under the data root: bytes}``.

    Raises:
        DataError: when the recording does not have the expected shape.
    """
    import numpy as np

    ev_where, act_where = f"{name}/event_list.pkl", f"{name}/controller_action_list.pkl"
    events = safe_unpickle(event_pickle, ev_where)
    actions = safe_unpickle(action_pickle, act_where)
    if not (isinstance(events, list) and events):
        raise DataError(ev_where, "", f"expected a non-empty list of events, got {type(events).__name__}")
    if not (isinstance(actions, list) and all(isinstance(a, dict) and "action" in a for a in actions)):
        raise DataError(act_where, "", "expected a list of action dicts with an 'action' key")
    if len(actions) < len(events):
        raise DataError(act_where, "", f"{len(actions)} actions for {len(events)} events")
    actions = actions[len(actions) - len(events) :]

    prefix = f"ai2thor/traces/{name}/"
    out: dict[str, bytes] = {f"{prefix}actions.json": json.dumps(actions, indent=1).encode()}
    for i, (ev, act) in enumerate(zip(events, actions, strict=True)):
        key = f"[{i}]"
        meta = getattr(ev, "metadata", None) if isinstance(ev, _ThorEvent) else None
        frame = getattr(ev, "frame", None) if isinstance(ev, _ThorEvent) else None
        if not isinstance(meta, dict):
            raise DataError(ev_where, key, "not an AI2-THOR Event with a metadata dict")
        if meta.get("lastAction") != act["action"]:
            raise DataError(ev_where, f"{key}.lastAction", f"{meta.get('lastAction')!r} != action {act['action']!r}")
        if not (isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3):
            raise DataError(ev_where, f"{key}.frame", "expected an (H, W, 3) uint8 RGB frame")
        out[f"{prefix}event_{i:02d}.json"] = json.dumps(dict(meta)).encode()
        out[f"{prefix}event_{i:02d}.png"] = _png(frame)
    return out


