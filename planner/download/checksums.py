"""The recorded checksum of every output file, and checking bytes against it."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from .._optional import require
from ..errors import ConfigError, DataError
from ..paths import writing

log = logging.getLogger(__name__)

CHECKSUMS_FILE = Path(__file__).with_name("checksums.json")

def load_checksums(path: str | os.PathLike[str] = CHECKSUMS_FILE) -> dict[str, tuple[str, str]]:
    """Return ``{output path: (algorithm, hex digest)}``; algorithm is ``"sha256"`` or ``"rgb_sha256"``.

    Raises:
        DataError: when the table is missing or malformed.
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"cannot read the checksum table: {e}") from e
    out: dict[str, tuple[str, str]] = {}
    for algo in ("sha256", "rgb_sha256"):
        table = raw.get(algo, {})
        if not isinstance(table, dict):
            raise DataError(path, algo, "expected an object mapping paths to hex digests")
        for key, digest in table.items():
            if not (isinstance(digest, str) and len(digest) == 64):
                raise DataError(path, f"{algo}.{key}", f"expected a 64-character hex digest, got {digest!r}")
            out[key] = (algo, digest)
    return out


def load_fetched(path: str | os.PathLike[str] = CHECKSUMS_FILE) -> dict[str, tuple[str, int]]:
    """Return ``{<owner>/<repo>/<commit>/<path>: (sha256 hex, size in bytes)}`` of every upstream file fetched.

    Raises:
        DataError: when the table is missing or malformed.
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8")).get("fetched", {})
    except (OSError, ValueError, AttributeError) as e:
        raise DataError(path, "fetched", f"cannot read the table of fetched files: {e}") from e
    out: dict[str, tuple[str, int]] = {}
    for key, pin in raw.items():
        digest_, size = (pin.get("sha256"), pin.get("bytes")) if isinstance(pin, dict) else (None, None)
        if not (isinstance(digest_, str) and len(digest_) == 64 and isinstance(size, int) and size >= 0):
            raise DataError(path, f"fetched/{key}", f"expected {{sha256: 64 hex digits, bytes: a size}}, got {pin!r}")
        out[key] = (digest_, size)
    return out


def sha256_bytes(data: bytes) -> str:
    """Return the hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def rgb_sha256(png: bytes) -> str:
    """Return the hex SHA-256 of an image's decoded RGB pixels (prefixed by its size), independent of encoder.

    Raises:
        DependencyNotInstalled: when Pillow is missing.
        ValueError: when ``png`` is not a readable image.
    """
    image_mod = require("PIL.Image", extra="traces")
    try:
        with image_mod.open(io.BytesIO(png)) as im:
            rgb = im.convert("RGB")
    except Exception as e:  # Pillow raises several unrelated types for a broken file
        raise ValueError(f"not a readable image: {e}") from e
    w, h = rgb.size
    return hashlib.sha256(f"RGB {w}x{h}\n".encode() + rgb.tobytes()).hexdigest()


def digest(algo: str, data: bytes) -> str:
    """Return ``data``'s digest under ``algo`` (``"sha256"`` or ``"rgb_sha256"``)."""
    if algo == "sha256":
        return sha256_bytes(data)
    if algo == "rgb_sha256":
        return rgb_sha256(data)
    raise ConfigError(f"unknown checksum algorithm {algo!r}; valid: sha256, rgb_sha256")


def checksum_problem(out: str, data: bytes, checksums: Mapping[str, tuple[str, str]]) -> str | None:
    if out not in checksums:
        return f"{out}: no checksum recorded in {CHECKSUMS_FILE.name}"
    algo, want = checksums[out]
    try:
        got = digest(algo, data)
    except ValueError as e:
        return f"{out}: {e}"
    if got != want:
        return f"{out}: checksum mismatch (expected {algo} {want[:16]}..., got {got[:16]}...)"
    return None


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with writing(path), open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
