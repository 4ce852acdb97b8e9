"""Fetching over HTTP(S) or ``file://`` with retries, and filling a data directory."""

from __future__ import annotations

import http.client
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._optional import require
from ..arguments import Range, check_number
from ..errors import ConfigError, DataError, DownloadError, FetchError
from ..paths import cache_data_dir, expand_user
from .checksums import CHECKSUMS_FILE, atomic_write, checksum_problem, load_checksums, load_fetched, sha256_bytes
from .sources import (
    DEFAULT_BASE_URL,
    DEFAULT_COMPONENTS,
    MIRROR_ENV_VAR,
    TEMPLATE_SOURCES,
    Item,
    manifest,
)
from .templates import compile_templates
from .traces import convert_trace

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})

class _ItemFailed(Exception):
    """One item's outputs failed their checksums; collected into the final DownloadError."""


MAX_FETCH_BYTES = 64 * 2**20
"""Largest body :func:`fetch` reads when the caller does not say (the largest pinned file is 3.5 MB)."""
DEADLINE = 600.0
"""Seconds one file may take, retries included (a server sending a byte every few seconds never times out)."""
_CHUNK = 1 << 16


class _Final(Exception):
    """A failure retrying would not mend (too large, past the deadline)."""


def fetch(url: str, *, retries: int = 3, backoff: float = 1.0, timeout: float = 60.0,
          max_bytes: int = MAX_FETCH_BYTES, deadline: float = DEADLINE) -> bytes:
    """GET ``url`` and return its body, retrying transient failures with exponential backoff.

    Client errors (404, 403, ...) fail at once; timeouts, connection errors and 5xx/429 are retried
    ``retries`` times, waiting ``backoff * 2**attempt`` seconds in between. A body is never read past
    ``max_bytes`` (an announced larger one is not read at all), and the whole fetch, retries included, stops
    ``deadline`` seconds after it started (each read also times out after ``timeout``).

    Raises:
        FetchError: with a one-line reason: after the last attempt, or at once for a body over ``max_bytes`` or
            a fetch past its ``deadline``.
    """
    req = urllib.request.Request(url, headers={"User-Agent": "coat-planner (coat data download)"})
    stop = time.monotonic() + deadline
    reason = "not tried"
    for attempt in range(retries + 1):
        left = stop - time.monotonic()
        if left <= 0:
            raise FetchError(f"not done after {deadline:g} s (the deadline per file); {reason}")
        try:
            with urllib.request.urlopen(req, timeout=min(timeout, left)) as resp:
                return _read_capped(resp, max_bytes, stop, deadline)
        except _Final as e:
            raise FetchError(str(e)) from None
        except urllib.error.HTTPError as e:
            reason = f"HTTP {e.code} {e.reason}"
            if e.code not in _RETRY_STATUS:
                raise FetchError(reason) from None
        except urllib.error.URLError as e:
            reason = f"{e.reason}"
            if isinstance(e.reason, FileNotFoundError):  # file:// mirror without that file
                raise FetchError(f"not found ({e.reason.strerror})") from None
        except (TimeoutError, ConnectionError, http.client.HTTPException) as e:
            reason = f"{type(e).__name__}: {e}"
        if attempt < retries:
            log.info("retrying %s after %s (attempt %d of %d)", url, reason, attempt + 2, retries + 1)
            time.sleep(backoff * 2**attempt)
    raise FetchError(f"{reason} (after {retries + 1} attempts)")


def _read_capped(resp: Any, max_bytes: int, stop: float, deadline: float) -> bytes:
    """The body, at most ``max_bytes`` of it, read before the monotonic time ``stop``."""
    announced = resp.headers.get("Content-Length") if getattr(resp, "headers", None) is not None else None
    if announced and announced.strip().isdigit() and int(announced) > max_bytes:
        raise _Final(f"{int(announced):,} bytes announced, more than the {max_bytes:,} expected; not read")
    read = getattr(resp, "read1", resp.read)  # what has arrived: read() would wait for the whole chunk
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > stop:
            raise _Final(f"not done after {deadline:g} s (the deadline per file); {size:,} bytes read")
        chunk = read(min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise _Final(f"more than the {max_bytes:,} bytes expected; the rest was not read")
        chunks.append(chunk)


def _present(root: Path, item: Item, checksums: Mapping[str, tuple[str, str]]) -> bool:
    """True when every output of ``item`` already exists under ``root`` with the right checksum."""
    for out in item.outputs:
        f = root / out
        if not f.is_file() or checksum_problem(out, f.read_bytes(), checksums) is not None:
            return False
    return bool(item.outputs)


def _produce(item: Item, base_url: str, fetch_kw: Mapping[str, Any],
             pins: Mapping[str, tuple[str, int]]) -> dict[str, bytes]:
    """Fetch an item's sources, each checked against its pinned size and SHA-256 before anything reads it (the
    generator sources are parsed, the trace pickles unpickled: only the pinned bytes ever are); then build its
    outputs."""
    urls = item.urls(base_url)
    bodies: list[bytes] = []
    for url, key in zip(urls, item.source_keys(), strict=True):
        if key not in pins:
            raise _ItemFailed(f"{url}: no pinned checksum for {key} in {CHECKSUMS_FILE.name}; not fetched")
        want, size = pins[key]
        try:
            body = fetch(url, max_bytes=size, **fetch_kw)
        except FetchError as e:
            raise FetchError(f"{url}: {e}") from None
        got = sha256_bytes(body)
        if got != want:
            raise _ItemFailed(f"{url}: checksum mismatch (expected sha256 {want[:16]}..., got {got[:16]}... for "
                              f"{len(body):,} bytes); nothing read from it")
        bodies.append(body)
    if item.kind == "copy":
        return {item.outputs[0]: bodies[0]}
    if item.kind == "templates":
        texts: dict[str, str] = {}
        for key, url, body in zip(TEMPLATE_SOURCES, urls, bodies, strict=True):
            try:
                texts[key] = body.decode("utf-8")
            except UnicodeDecodeError as e:
                raise DataError(url, "", f"not UTF-8 text: {e}") from e
        return {item.outputs[0]: compile_templates(texts, dict(zip(TEMPLATE_SOURCES, urls, strict=True)))}
    if item.kind == "trace":
        name = item.label.rstrip("/").rsplit("/", 1)[-1]
        produced = convert_trace(name, bodies[0], bodies[1])
        extra = sorted(set(produced) - set(item.outputs))
        if extra:
            raise DataError(urls[0], "", f"recording has more files than recorded checksums: {extra[:3]}")
        return produced
    raise ConfigError(f"unknown item kind {item.kind!r}; valid: copy, templates, trace")


def check_mirror(url: str, what: str = "--mirror") -> str:
    """``url`` when it can serve the pinned files: ``http(s)://host[/path]`` or ``file:///dir``.

    Raises:
        ConfigError: naming ``what`` and the URL otherwise (``bogus``, ``ftp://x``, ``http://``), before any fetch.
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:  # an unbalanced [ in the host
        parts = urlsplit("")
    if parts.scheme in ("http", "https") and parts.netloc or parts.scheme == "file" and parts.path:
        return url
    raise ConfigError(f"{what} {url!r} is not a mirror URL: give http(s)://host/path or file:///directory, laid out "
                      f"like {DEFAULT_BASE_URL} (<owner>/<repo>/<commit>/<path>)")


@dataclass
class DownloadReport:
    """What :func:`download` did: labels of items fetched and skipped (already present and verified)."""

    root: Path
    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def download(
    dest: str | os.PathLike[str] | None = None,
    *,
    components: Iterable[str] = DEFAULT_COMPONENTS,
    mirror: str | None = None,
    items: Sequence[Item] | None = None,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 60.0,
    deadline: float = DEADLINE,
    progress: bool = True,
) -> DownloadReport:
    """Fetch, verify and write the pinned reference data under ``dest``.

    Each fetched file is read up to its pinned size within a deadline and checked against its pinned SHA-256
    (``fetched`` in ``planner/download/checksums.json``) before anything parses or unpickles it; each output is
    checked against the same table before it is written (temporary file + rename), so a directory never holds a
    half-written or unverified file. Items whose outputs are already present
    with the right checksum are skipped. Failures do not stop the other items; they are reported together.

    Args:
        dest: Data root to fill (gets ``coat/`` and ``ai2thor/``); defaults to :func:`planner.paths.cache_data_dir`.
        components: Which parts to fetch: any of ``"coat"``, ``"ai2thor"``, ``"traces"``.
        mirror: Base URL replacing ``https://raw.githubusercontent.com``; defaults to ``$COAT_DOWNLOAD_MIRROR``.
        items: Explicit work items (a subset of :func:`manifest`); overrides ``components``.
        retries: Extra attempts per URL for transient failures.
        backoff: Seconds before the first retry; doubles each time.
        timeout: Socket timeout per request, in seconds.
        deadline: Seconds one file may take, retries included.
        progress: Show a tqdm progress bar on stderr.

    Returns:
        A :class:`DownloadReport`.

    Raises:
        DownloadError: listing every item that could not be fetched or failed its checksum.
        ConfigError: for an unknown component or a negative retry count / backoff.
        DependencyNotInstalled: when traces are requested and Pillow is missing.
    """
    check_number("retries", retries, Range(0, 20, integer=True))
    check_number("backoff", backoff, Range(0, 600))
    check_number("timeout", timeout, Range(0, 3600, low_open=True))
    check_number("deadline", deadline, Range(0, 86_400, low_open=True))
    root = expand_user(dest, "--dest") if dest is not None else cache_data_dir()
    base_url = check_mirror(mirror or os.environ.get(MIRROR_ENV_VAR) or DEFAULT_BASE_URL,
                            "--mirror" if mirror else MIRROR_ENV_VAR if os.environ.get(MIRROR_ENV_VAR) else "base URL")
    checksums = load_checksums()
    pins = load_fetched()
    todo = list(items) if items is not None else manifest(components, checksums)
    if any(i.kind == "trace" for i in todo):
        require("PIL.Image", extra="traces")  # fail before fetching anything
    from ..progress import progress as progress_bar

    report = DownloadReport(root=root)
    failures: list[tuple[str, str]] = []
    fetch_kw = {"retries": retries, "backoff": backoff, "timeout": timeout, "deadline": deadline}
    log.info("downloading %d items from %s into %s", len(todo), base_url, root)
    bar = progress_bar(todo, desc="coat data", unit="file", disable=not progress, leave=True)
    for item in bar:
        bar.set_postfix_str(item.label, refresh=False)
        if _present(root, item, checksums):
            report.skipped.append(item.label)
            continue
        try:
            produced = _produce(item, base_url, fetch_kw, pins)
            problems = [p for out, data in produced.items() if (p := checksum_problem(out, data, checksums))]
            missing = [o for o in item.outputs if o not in produced]
            if missing:
                problems.append(f"{item.label}: recording lacks {len(missing)} expected file(s), e.g. {missing[0]}")
            if problems:
                raise _ItemFailed("; ".join(problems) + f" [from {item.urls(base_url)[0]}]")
        except (FetchError, _ItemFailed, DataError) as e:
            failures.append((item.label, str(e)))
            log.warning("%s failed: %s", item.label, e)
            continue
        for out, data in produced.items():
            atomic_write(root / out, data)
        report.fetched.append(item.label)
    bar.close()
    if failures:
        lines = "\n".join(f"  {label}: {why}" for label, why in failures)
        raise DownloadError(
            f"coat data download: {len(failures)} of {len(todo)} item(s) failed; nothing was written for them "
            f"(verified files are kept; re-running skips them):\n{lines}\n"
            f"Check the network, or pass --mirror URL / set {MIRROR_ENV_VAR} to a mirror of {DEFAULT_BASE_URL}.",
            failures,
        )
    return report


