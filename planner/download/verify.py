"""Checking a data directory against the recorded checksums."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError
from ..paths import expand_user
from .checksums import (
    CHECKSUMS_FILE,
    atomic_write,
    checksum_problem,
    load_checksums,
    load_fetched,
    rgb_sha256,
    sha256_bytes,
)
from .sources import COAT_CODE_REPO, COAT_REPO, DEFAULT_COMPONENTS, THOR_REPO, TRACES, manifest

log = logging.getLogger(__name__)

@dataclass
class VerifyReport:
    """Result of :func:`verify_dir`: output paths grouped by outcome."""

    root: Path
    ok: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when nothing is missing or mismatched."""
        return not (self.missing or self.mismatched)


def verify_dir(root: str | os.PathLike[str], components: Iterable[str] | None = None) -> VerifyReport:
    """Check every manifest file under ``root`` against the recorded checksums.

    Args:
        root: A data root (holding ``coat/`` and ``ai2thor/``).
        components: Parts to check; defaults to coat and ai2thor, plus traces when ``ai2thor/traces/`` exists.

    Returns:
        A :class:`VerifyReport`; PNG frames are ``unchecked`` when Pillow is not installed.
    """
    base = expand_user(root, "data directory")
    if components is None:
        components = DEFAULT_COMPONENTS + (("traces",) if (base / "ai2thor" / "traces").is_dir() else ())
    checksums = load_checksums()
    from .._optional import is_available

    can_decode = is_available("PIL")
    report = VerifyReport(root=base)
    for item in manifest(components, checksums):
        for out in item.outputs:
            f = base / out
            if not f.is_file():
                report.missing.append(out)
            elif checksums[out][0] == "rgb_sha256" and not can_decode:
                report.unchecked.append(out)
            elif checksum_problem(out, f.read_bytes(), checksums):
                report.mismatched.append(out)
            else:
                report.ok.append(out)
    return report


def _fetched_table(base: Path, path: str | os.PathLike[str]) -> dict[str, dict[str, int | str]]:
    """Size and SHA-256 of every upstream file: a copied one from its copy under ``base``; the generator sources
    and trace pickles (not in a data directory) kept from the table at ``path`` (else the packaged one), recorded
    when they were pinned."""
    old = load_fetched(path if Path(path).is_file() else CHECKSUMS_FILE)
    out: dict[str, dict[str, int | str]] = {}
    for item in manifest(("coat", "ai2thor", "traces"), checksums={}):
        for key in item.source_keys():
            if item.kind == "copy":
                data = (base / item.outputs[0]).read_bytes()
                out[key] = {"bytes": len(data), "sha256": sha256_bytes(data)}
            elif key in old:
                out[key] = {"bytes": old[key][1], "sha256": old[key][0]}
    return out


def write_checksums(root: str | os.PathLike[str], path: str | os.PathLike[str] = CHECKSUMS_FILE) -> Path:
    """Record the checksums of every manifest output found under ``root`` (a verified copy of the data).

    JSON files get ``sha256`` of their bytes, PNG frames ``rgb_sha256`` of their pixels. Trace files are
    taken from ``root/ai2thor/traces/<name>/`` as found, since their number is only known from the data.

    Returns:
        The path written.

    Raises:
        DataError: when a coat/ or ai2thor/ manifest file is missing under ``root``.
    """
    base = Path(root)
    table: dict[str, dict[str, str]] = {"sha256": {}, "rgb_sha256": {}}
    for item in manifest(("coat", "ai2thor"), checksums={}):
        for out in item.outputs:
            f = base / out
            if not f.is_file():
                raise DataError(f, "", "missing; cannot record its checksum")
            table["sha256"][out] = sha256_bytes(f.read_bytes())
    for name in TRACES:
        for f in sorted((base / "ai2thor" / "traces" / name).glob("*")):
            out = f.relative_to(base).as_posix()
            if f.suffix == ".png":
                table["rgb_sha256"][out] = rgb_sha256(f.read_bytes())
            elif f.suffix == ".json":
                table["sha256"][out] = sha256_bytes(f.read_bytes())
    doc = {
        "_comment": (
            "Checksums of every file `coat data download` writes, keyed by path under the data root. "
            "sha256: of the file's bytes. rgb_sha256: of 'RGB <w>x<h>\\n' + the decoded RGB pixels "
            "(PNG bytes depend on the encoder). Regenerate with planner.download.write_checksums(root). "
            "fetched: the sha256 and size of every upstream file fetched, keyed by <owner>/<repo>/<commit>/<path>; "
            "a fetched body is checked against it before anything parses or unpickles it, and no more than its size "
            "is read."
        ),
        "sources": {
            "coat": f"github.com/{COAT_REPO.slug}@{COAT_REPO.commit}",
            "coat/templates.json": f"compiled from github.com/{COAT_CODE_REPO.slug}@{COAT_CODE_REPO.commit}",
            "ai2thor": f"github.com/{THOR_REPO.slug}@{THOR_REPO.commit}",
        },
        **table,
        "fetched": _fetched_table(base, path),
    }
    dest = Path(path)
    atomic_write(dest, (json.dumps(doc, indent=1, sort_keys=False) + "\n").encode())
    return dest
