"""Where the COAT annotations and AI2-THOR reference data live.

The project never ships this data. It is found, in order, at:

1. the ``--data-dir`` option (``data_dir=`` argument),
2. the ``COAT_DATA_DIR`` environment variable,
3. the user cache directory (``coat data download`` fills it).

A data directory has ``coat/`` (the COAT annotations) and, for scenes and perception, ``ai2thor/``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import DataNotFoundError

ENV_VAR = "COAT_DATA_DIR"

COAT_FILES: tuple[str, ...] = (
    "utilities.json",
    "tasks.json",
    "objects.json",
    "oracle.json",
    "templates.json",
    "task-1/common_var_responses.json",
    "task-1/possible_configurations_v1.json",
    "task-1/pouch_config_oracle.json",
    "task-2/pouch_suboptimal.json",
    "task-2/material_preference.json",
)
"""Files under ``coat/`` that the knowledge base needs."""


def cache_data_dir() -> Path:
    """The per-user cache directory that ``coat data download`` writes to."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("coat-planner")) / "data"


def candidate_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """Return the (origin, path) pairs searched, in resolution order."""
    out: list[tuple[str, Path]] = []
    if data_dir is not None:
        out.append(("--data-dir", Path(data_dir).expanduser()))
    env = os.environ.get(ENV_VAR)
    if env:
        out.append((ENV_VAR, Path(env).expanduser()))
    out.append(("user cache", cache_data_dir()))
    return out


def _missing(root: Path, sub: str, files: tuple[str, ...]) -> list[str]:
    return [f for f in files if not (root / sub / f).is_file()]


def resolve_data_dir(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    need: str = "coat",
    files: tuple[str, ...] | None = None,
) -> Path:
    """Return the first data directory that has everything ``need`` requires.

    An explicit ``data_dir`` is authoritative: when it is given but incomplete, the environment variable
    and the cache are not tried, so a typo never silently falls back to other data.

    Args:
        data_dir: Explicit directory (the ``--data-dir`` option), or None.
        need: Sub-directory that must be present: ``"coat"`` or ``"ai2thor"``.
        files: Files that must exist under ``<root>/<need>/``; defaults to COAT_FILES for ``"coat"``.

    Returns:
        The data root (the directory that contains ``coat/`` and ``ai2thor/``).

    Raises:
        DataNotFoundError: naming every directory searched, what was missing, and the fix.
    """
    required = files if files is not None else (COAT_FILES if need == "coat" else ())
    searched: list[str] = []
    cands = candidate_dirs(data_dir)
    if data_dir is not None:
        cands = cands[:1]
    for origin, root in cands:
        if not (root / need).is_dir():
            searched.append(f"  {root} ({origin}): no {need}/ directory")
            continue
        missing = _missing(root, need, required)
        if not missing:
            return root
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        searched.append(f"  {root} ({origin}): {need}/ is incomplete, missing {shown}")
    raise DataNotFoundError(
        f"COAT planner data ({need}/) not found. Searched:\n"
        + "\n".join(searched)
        + f"\nFix: run `coat data download`, or point --data-dir / {ENV_VAR} at a directory holding {need}/."
    )
