"""Recorded AI2-THOR 5.0.0 episodes: load them and turn their metadata into genuine ``ai2thor.server.Event``s.

A trace lives at ``<data root>/ai2thor/traces/<name>/``: ``actions.json`` (the ``controller.step`` kwargs
sent, in order), ``event_NN.json`` (``event.metadata`` after action NN) and ``event_NN.png`` (its 300x300
RGB frame). The data root is resolved by :func:`planner.paths.resolve_data_dir` (``--data-dir``,
``$COAT_DATA_DIR``, user cache).

Example:
    >>> from scenes.thor.traces import load_trace
    >>> trace = load_trace("pickup_mug")                      # doctest: +SKIP
    >>> trace.actions[1].name, trace.events[1]["lastActionSuccess"]
    ('PickupObject', True)
    >>> trace.event(1).frame.shape                           # a real ai2thor.server.Event
    (300, 300, 3)
"""

from __future__ import annotations

import copy
import logging
import os
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planner._optional import is_available, require
from planner.errors import DataError, DataNotFoundError, UnknownIdError
from planner.paths import resolve_data_dir

from ..base import Action
from ..embedded.validation import ActionRecord, EventMeta, read_json, validate

logger = logging.getLogger(__name__)

_EVENT_RE = re.compile(r"^event_(\d+)\.json$")


@dataclass(frozen=True)
class Trace:
    """One recorded episode.

    Attributes:
        name: The trace directory name, e.g. ``"pickup_mug"``.
        actions: The actions sent, in order (``sequenceId`` dropped: it is transport, not action).
        events: ``event.metadata`` after each action (same length as ``actions``).
        frames: The RGB frame (HxWx3 uint8) after each action, or None where no PNG was recorded
            (or frames were not requested).
        path: The trace directory it was read from (None for a trace built in memory).
    """

    name: str
    actions: list[Action]
    events: list[dict[str, Any]]
    frames: list[np.ndarray | None]
    path: Path | None = None

    def __len__(self) -> int:
        return len(self.events)

    @property
    def scene(self) -> str:
        """The scene name as AI2-THOR reports it, e.g. ``"FloorPlan1_physics"``."""
        return str(self.events[0].get("sceneName", ""))

    def event(self, i: int) -> Any:
        """Return event ``i`` as a genuine ``ai2thor.server.Event`` (metadata deep-copied, frame attached)."""
        return event_from_metadata(self.events[i], frame=self.frames[i])


def traces_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return ``<data root>/ai2thor/traces``.

    Raises:
        DataNotFoundError: when no data directory with ``ai2thor/traces`` is found.
    """
    root = resolve_data_dir(data_dir, need="ai2thor", files=())
    d = root / "ai2thor" / "traces"
    if not d.is_dir():
        raise DataNotFoundError(f"{root / 'ai2thor'} has no traces/ directory; run `coat data download`")
    return d


def trace_names(data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Return the names of the recorded traces, sorted."""
    d = traces_dir(data_dir)
    return sorted(p.name for p in d.iterdir() if (p / "actions.json").is_file())


def load_trace(name: str, data_dir: str | os.PathLike[str] | None = None, *, frames: bool = True) -> Trace:
    """Load one recorded AI2-THOR episode by name.

    Args:
        name: Trace directory name (see :func:`trace_names`).
        data_dir: Data root (contains ``ai2thor/``); None resolves it as usual.
        frames: Decode the PNG frames (OpenCV when installed, else a small built-in PNG reader).

    Returns:
        The trace, with one action, one metadata dict and one frame (or None) per step.

    Raises:
        UnknownIdError: ``name`` is not a trace; the message lists the available ones.
        DataError: a file is missing or corrupt; the message names the file.
        DataNotFoundError: the data directory is not found.
    """
    d = traces_dir(data_dir) / name
    if not (d / "actions.json").is_file():
        raise UnknownIdError(f"unknown trace {name!r}; available: {', '.join(trace_names(data_dir))}")
    return read_trace(d, frames=frames)


def load_traces(data_dir: str | os.PathLike[str] | None = None, *, frames: bool = True) -> list[Trace]:
    """Load every recorded trace (in :func:`trace_names` order).

    Raises:
        DataError: a file is missing or corrupt; the message names the file.
        DataNotFoundError: the data directory is not found.
    """
    d = traces_dir(data_dir)
    return [read_trace(d / name, frames=frames) for name in trace_names(data_dir)]


def read_trace(directory: str | os.PathLike[str], *, frames: bool = True) -> Trace:
    """Read a trace directory (``actions.json``, ``event_NN.json``, ``event_NN.png``) wherever it lies.

    Args:
        directory: The trace directory; its name becomes the trace's name.
        frames: Decode the PNG frames (see :func:`load_trace`).

    Raises:
        DataError: a file is missing or corrupt, or actions and events do not line up; the message names the file.
    """
    d = Path(directory)
    actions = _read_actions(d / "actions.json")
    numbered = sorted((int(m.group(1)), p) for p in d.iterdir() if (m := _EVENT_RE.match(p.name)))
    if [n for n, _ in numbered] != list(range(len(numbered))):
        raise DataError(d, "event_NN.json", f"event files are not numbered 0..{len(numbered) - 1}")
    # read every event before comparing counts, so that a corrupt file is the error that is reported
    events = [_read_event(p) for _, p in numbered]
    if len(events) != len(actions):
        raise DataError(d / "actions.json", "", f"{len(events)} events for {len(actions)} actions")
    imgs: list[np.ndarray | None] = []
    for n, _ in numbered:
        png = d / f"event_{n:02d}.png"
        imgs.append(read_png(png) if frames and png.is_file() else None)
    return Trace(name=d.name, actions=actions, events=events, frames=imgs, path=d)


def _read_actions(path: Path) -> list[Action]:
    raw_actions = validate(path, list[ActionRecord], read_json(path))
    return [Action.from_thor({k: v for k, v in a.items() if k != "sequenceId"}) for a in raw_actions]


def _read_event(path: Path) -> dict[str, Any]:
    """The event metadata as recorded (every key kept), once it is known to match :class:`EventMeta`."""
    meta = read_json(path)
    validate(path, EventMeta, meta)
    return meta  # type: ignore[no-any-return]


def event_from_metadata(
    metadata: dict[str, Any],
    *,
    frame: np.ndarray | None = None,
    depth: np.ndarray | None = None,
    copy_metadata: bool = True,
) -> Any:
    """Build a genuine ``ai2thor.server.Event`` from a metadata dict (needs only numpy and ai2thor).

    Args:
        metadata: ``event.metadata`` as recorded (AI2-THOR 5.0.0 keys).
        frame: RGB frame to attach as ``event.frame``.
        depth: Depth in metres to attach as ``event.depth_frame``.
        copy_metadata: Deep-copy the metadata so the caller's dict is never mutated through the event.

    Returns:
        An ``ai2thor.server.Event``.
    """
    server = require("ai2thor.server", "thor")
    meta = copy.deepcopy(metadata) if copy_metadata else metadata
    ev = server.Event(meta)
    ev.frame = frame
    ev.depth_frame = depth
    ev.process_colors()
    return ev


def read_png(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an 8-bit RGB/RGBA PNG as an HxWx3 uint8 RGB array.

    Uses OpenCV when it is installed; otherwise a small pure-numpy decoder (non-interlaced, 8-bit
    grey/RGB/RGBA only, which covers the recorded traces) so that loading traces needs no extra.

    Raises:
        DataError: the file is not a PNG this reader understands.
    """
    path = Path(path)
    if is_available("cv2"):
        cv2 = require("cv2", "vision")
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise DataError(path, "", "not a readable image")
        return np.ascontiguousarray(img[:, :, ::-1])  # OpenCV decodes to BGR
    return _decode_png(path)


def _decode_png(path: Path) -> np.ndarray:
    try:
        data = path.read_bytes()
        return _decode_png_bytes(path, data)
    except DataError:
        raise
    except (OSError, ValueError, struct.error, zlib.error) as e:  # a short, damaged or truncated file
        raise DataError(path, "", f"cannot decode the PNG: {e}") from e


def _decode_png_bytes(path: Path, data: bytes) -> np.ndarray:
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise DataError(path, "", "not a PNG file")
    pos, idat, header = 8, bytearray(), None
    while pos + 8 <= len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise DataError(path, "IHDR", "missing PNG header")
    w, h, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise DataError(
            path, "IHDR", f"unsupported PNG (bit depth {depth}, colour type {colour}, interlace {interlace})"
        )
    raw = np.frombuffer(zlib.decompress(bytes(idat)), dtype=np.uint8)
    stride = w * channels
    rows = raw.reshape(h, stride + 1)
    out = np.zeros((h, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for r in range(h):
        ftype, line = rows[r, 0], rows[r, 1:].astype(np.int32)
        if ftype == 0:
            cur = line
        elif ftype == 2:  # Up
            cur = (line + prev) & 0xFF
        elif ftype == 1:  # Sub: a running sum per channel, vectorised
            cur = np.cumsum(line.reshape(w, channels), axis=0).reshape(-1) & 0xFF
        elif ftype in (3, 4):  # Average / Paeth depend on the decoded left pixel: pixel by pixel
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(w):
                s = slice(x * channels, (x + 1) * channels)
                a = cur[(x - 1) * channels : x * channels] if x else np.zeros(channels, np.int32)
                b = prev[s]
                if ftype == 3:
                    cur[s] = (line[s] + (a + b) // 2) & 0xFF
                else:
                    c = prev[(x - 1) * channels : x * channels] if x else np.zeros(channels, np.int32)
                    p = a + b - c
                    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
                    pred = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
                    cur[s] = (line[s] + pred) & 0xFF
        else:
            raise DataError(path, f"row {r}", f"unknown PNG filter type {ftype}")
        out[r] = cur
        prev = cur
    img = out.reshape(h, w, channels)
    if channels == 1:
        return np.repeat(img, 3, axis=2)
    return np.ascontiguousarray(img[:, :, :3])


__all__ = [
    "Trace",
    "event_from_metadata",
    "load_trace",
    "load_traces",
    "read_png",
    "read_trace",
    "trace_names",
    "traces_dir",
]
