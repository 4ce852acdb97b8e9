"""Fetch the pinned public COAT and AI2-THOR reference data into a data directory, and verify it.

This is tooling around the decision core, not part of it: ``coat data download`` / ``coat data verify``
call it, and the planner only ever reads the data directory it fills (:mod:`planner.paths`).

- :mod:`.sources`: the pinned repositories and the manifest of every output file;
- :mod:`.checksums`: the recorded checksums (``checksums.json`` beside this file);
- :mod:`.templates`: ``coat/templates.json`` compiled from COAT-code's generator sources (parsed, never run);
- :mod:`.traces`: rl_ai2thor's recorded episodes converted with a whitelist unpickler;
- :mod:`.fetch`: HTTP(S) / ``file://`` fetching with retries, and :func:`download`;
- :mod:`.verify`: :func:`verify_dir` and :func:`write_checksums`.
"""

from __future__ import annotations

from ..errors import DownloadError, FetchError
from .checksums import load_checksums, rgb_sha256
from .fetch import DownloadReport, download, fetch
from .sources import COMPONENTS, DEFAULT_BASE_URL, DEFAULT_COMPONENTS, MIRROR_ENV_VAR, Item, Repo, manifest
from .templates import compile_templates
from .traces import convert_trace, safe_unpickle
from .verify import VerifyReport, verify_dir, write_checksums

__all__ = [
    "COMPONENTS",
    "DEFAULT_BASE_URL",
    "DEFAULT_COMPONENTS",
    "MIRROR_ENV_VAR",
    "DownloadError",
    "DownloadReport",
    "FetchError",
    "Item",
    "Repo",
    "VerifyReport",
    "compile_templates",
    "convert_trace",
    "download",
    "fetch",
    "load_checksums",
    "manifest",
    "rgb_sha256",
    "safe_unpickle",
    "verify_dir",
    "write_checksums",
]
