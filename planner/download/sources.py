"""Fetch the pinned public COAT and AI2-THOR reference data into a data directory.

Usage:
    coat data download                              # COAT + AI2-THOR floorplans into the user cache
    coat data download --only traces                # the nine recorded AI2-THOR episodes (needs Pillow)
    coat data download --dest /data/coat --mirror http://mirror.local/raw
    coat data verify --data-dir /data/coat

What is fetched; every output file's checksum is recorded in ``planner/download/checksums.json``:

- ``coat/`` (component ``coat``): every annotation file of github.com/Ayush8120/COAT at commit 28b00d9,
  byte for byte, plus ``coat/templates.json``. That file is not in the COAT repository: it is compiled from
  the dataset generators of github.com/Ayush8120/COAT-code at commit 396c569 (question wording from the
  ``question = f"..."`` lines, utility phrases from ``phrases.py``, full-pipeline option mixes from
  ``full_pipeline_datasets_helper.py``, question counts and seed from ``constants.py``). The generators are
  parsed with :mod:`ast` and never executed; the compiled bytes are checked against the recorded checksum.
- ``ai2thor/`` (component ``ai2thor``): ``floorplans/FloorPlanN_physics.json`` for all 120 iTHOR scenes and
  ``object_types.json``, byte for byte from github.com/Kajiih/rl_ai2thor at commit 5907c98.
- ``ai2thor/traces/`` (component ``traces``, opt-in): nine recorded episodes converted from the pickles in
  rl_ai2thor ``tests/data/test_tasks/<name>/`` to ``actions.json`` + ``event_NN.json`` + ``event_NN.png``.
  The pickles are read by a whitelist unpickler that resolves only the AI2-THOR ``Event`` classes (to inert
  stand-ins) and numpy's array constructors, so loading them runs no code from the file. PNG bytes depend on
  the encoder, so frames are checked by the SHA-256 of their decoded RGB pixels; JSON files by their bytes.

A mirror (``--mirror`` / ``COAT_DOWNLOAD_MIRROR``) replaces ``https://raw.githubusercontent.com`` and keeps
its layout: ``<mirror>/<owner>/<repo>/<commit>/<path>`` (``http(s)://`` or ``file://``).

Every fetched file is pinned too (``fetched``: SHA-256 and size by ``<owner>/<repo>/<commit>/<path>``) and checked
before anything parses or unpickles it. After pinning new commits, regenerate the checksums from a verified copy of
the data:
    python -c "from planner.download import write_checksums; write_checksums('/path/to/data')"
It records the copied files' pins from the data; the generator sources' and trace pickles' pins (they are not in a
data directory) are kept from the table, so record those of new commits by hand from the files at those commits.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import ConfigError
from .checksums import load_checksums

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
MIRROR_ENV_VAR = "COAT_DOWNLOAD_MIRROR"

COMPONENTS: tuple[str, ...] = ("coat", "ai2thor", "traces")
DEFAULT_COMPONENTS: tuple[str, ...] = ("coat", "ai2thor")
"""Traces are opt-in: the planner does not need them, and converting them needs Pillow."""


@dataclass(frozen=True)
class Repo:
    """A public GitHub repository pinned at one commit."""

    slug: str
    commit: str

    def url(self, path: str, base_url: str = DEFAULT_BASE_URL) -> str:
        """Return the raw-file URL of ``path`` at the pinned commit under ``base_url``."""
        return f"{base_url.rstrip('/')}/{self.slug}/{self.commit}/{path}"


COAT_REPO = Repo("Ayush8120/COAT", "28b00d9ee8bdde590a7c61cc839dd416a93dbca9")
COAT_CODE_REPO = Repo("Ayush8120/COAT-code", "396c569edc32526ffcbb2b2c92c3e3f3646f04f4")
THOR_REPO = Repo("Kajiih/rl_ai2thor", "5907c98545245efc0f060db55e5d2307de8801d2")

COAT_UPSTREAM_FILES: tuple[str, ...] = (
    "utilities.json",
    "tasks.json",
    "objects.json",
    "oracle.json",
    "task-1/choice_config_oracle.json",
    "task-1/common_var_responses.json",
    "task-1/possible_configurations_v1.json",
    "task-1/pouch_config_oracle.json",
    "task-2/material_preference.json",
    "task-2/pouch_suboptimal.json",
)
"""The annotation files of the COAT repository (its README and images are not data)."""

TEMPLATE_SOURCES: dict[str, str] = {
    "phrases": "thortils/data/phrases.py",
    "mixes": "thortils/data/full_pipeline_datasets_helper.py",
    "constants": "thortils/data/constants.py",
    "task_u": "thortils/data/task_u_dataset_gen.py",
    "task_012": "thortils/data/task_0-1-2_dataset_gen.py",
    "full": "thortils/data/full-pipeline-dataset-creation.py",
}
"""COAT-code generator files that ``coat/templates.json`` is compiled from."""

FLOORPLANS: tuple[str, ...] = tuple(f"FloorPlan{base + n}" for base in (0, 200, 300, 400) for n in range(1, 31))
THOR_FLOORPLAN_DIR = "dev/data/objects_metadata_samples"
THOR_OBJECT_TYPES = "src/rl_thor/data/object_types_data.json"
THOR_TRACE_DIR = "tests/data/test_tasks"
TRACES: tuple[str, ...] = (
    "CleanToilets",
    "DoHomework",
    "WashCutleryTask",
    "clean_up_bathroom",
    "clean_up_kitchen",
    "clean_up_living_room",
    "open_fridge",
    "pickup_mug",
    "prepare_going_to_bed",
)

# HTTP statuses worth retrying; any other error status is final (a 404 will not go away)


# --------------------------------------------------------------------------------------------- manifest


@dataclass(frozen=True)
class Item:
    """One unit of download work: upstream file(s) turned into output file(s) under the data root.

    Attributes:
        component: ``"coat"``, ``"ai2thor"`` or ``"traces"``.
        kind: ``"copy"`` (one file, byte for byte), ``"templates"`` (compiled) or ``"trace"`` (converted).
        label: Short name used in progress and error messages (an output path or trace directory).
        outputs: Paths under the data root that this item writes.
        sources: ``(repo, upstream path)`` pairs fetched to produce the outputs.
    """

    component: str
    kind: str
    label: str
    outputs: tuple[str, ...]
    sources: tuple[tuple[Repo, str], ...]

    def urls(self, base_url: str = DEFAULT_BASE_URL) -> tuple[str, ...]:
        """Return the URLs this item fetches, in ``sources`` order."""
        return tuple(repo.url(path, base_url) for repo, path in self.sources)

    def source_keys(self) -> tuple[str, ...]:
        """``<owner>/<repo>/<commit>/<path>`` of each source: its key in the table of fetched files' checksums."""
        return tuple(f"{repo.slug}/{repo.commit}/{path}" for repo, path in self.sources)


def _copy(component: str, out: str, repo: Repo, path: str) -> Item:
    return Item(component, "copy", out, (out,), ((repo, path),))


def manifest(
    components: Iterable[str] = DEFAULT_COMPONENTS, checksums: Mapping[str, tuple[str, str]] | None = None
) -> list[Item]:
    """Return the work items for ``components``, in download order.

    Args:
        components: Any of ``"coat"``, ``"ai2thor"``, ``"traces"``.
        checksums: The checksum table (defaults to ``planner/download/checksums.json``); it lists each trace's files.

    Returns:
        The items; together their outputs are exactly the checksum table's entries for those components.

    Raises:
        ConfigError: for an unknown component.
    """
    wanted = list(dict.fromkeys(components))
    unknown = [c for c in wanted if c not in COMPONENTS]
    if unknown:
        raise ConfigError(f"unknown data component(s) {unknown}; valid: {', '.join(COMPONENTS)}")
    items: list[Item] = []
    if "coat" in wanted:
        items += [_copy("coat", f"coat/{p}", COAT_REPO, p) for p in COAT_UPSTREAM_FILES]
        srcs = tuple((COAT_CODE_REPO, p) for p in TEMPLATE_SOURCES.values())
        items.append(Item("coat", "templates", "coat/templates.json", ("coat/templates.json",), srcs))
    if "ai2thor" in wanted:
        items.append(_copy("ai2thor", "ai2thor/object_types.json", THOR_REPO, THOR_OBJECT_TYPES))
        for fp in FLOORPLANS:
            name = f"{fp}_physics.json"
            items.append(_copy("ai2thor", f"ai2thor/floorplans/{name}", THOR_REPO, f"{THOR_FLOORPLAN_DIR}/{name}"))
    if "traces" in wanted:
        table = load_checksums() if checksums is None else checksums
        for name in TRACES:
            prefix = f"ai2thor/traces/{name}/"
            outs = tuple(sorted(k for k in table if k.startswith(prefix)))
            srcs = (
                (THOR_REPO, f"{THOR_TRACE_DIR}/{name}/event_list.pkl"),
                (THOR_REPO, f"{THOR_TRACE_DIR}/{name}/controller_action_list.pkl"),
            )
            items.append(Item("traces", "trace", prefix, outs, srcs))
    return items


