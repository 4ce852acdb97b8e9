"""Calling a model server: which provider errors are worth a retry, and bounded retries with backoff.

Provider clients (openai, ollama, httpx) raise their own exception types; this module reads them by
their shape (an HTTP status, a connection or timeout error, a body that is not JSON) so no provider
package is imported. What a failure becomes:

* ``transient``: the server could not be reached, timed out, was overloaded (HTTP 408/409/425/429/5xx) or
  answered with a body that is not JSON. Retried with exponential backoff; after the last try it is a
  :class:`~planner.errors.ModelUnavailableError` naming the URL (an eval stops cleanly and resumes later).
* ``refused``: the server refused this one request (HTTP 400/413/422, e.g. a prompt longer than its
  context). Not retried; the caller counts it as an unusable answer.
* ``fatal``: any other HTTP status (401, 403, 404...): a configuration problem, raised at once as
  :class:`~planner.errors.ModelUnavailableError`.
* ``other``: not a provider error (a bug): re-raised unchanged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Literal, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
Failure = Literal["transient", "refused", "fatal", "other"]

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
REFUSED_STATUS = frozenset({400, 413, 422})
BACKOFF_BASE = 0.5
"""Seconds before the first retry; doubled for each further retry."""
BACKOFF_MAX = 8.0


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and all(e is not x for x in out):
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def status_of(exc: BaseException) -> int | None:
    """The HTTP error status (4xx, 5xx) carried by a provider error or one it was raised from, if any."""
    for e in _chain(exc):
        for v in (getattr(e, "status_code", None), getattr(getattr(e, "response", None), "status_code", None)):
            if isinstance(v, int) and 400 <= v < 600:  # a 2xx seen on the way is not the failure
                return v
    return None


def classify(exc: BaseException) -> Failure:
    """What a provider's exception means for the caller (see the module docstring)."""
    status = status_of(exc)
    if status is not None:
        if status in TRANSIENT_STATUS or status >= 500:
            return "transient"
        if status in REFUSED_STATUS:
            return "refused"
        return "fatal"
    for e in _chain(exc):
        name = type(e).__name__
        if isinstance(e, (ConnectionError, TimeoutError)) or "Connect" in name or "Timeout" in name:
            return "transient"
        if isinstance(e, (json.JSONDecodeError, UnicodeDecodeError)) or "ResponseValidation" in name:
            return "transient"  # a body that is not the API's JSON: a proxy page, a crashed worker
    return "other"


def describe(exc: BaseException) -> str:
    """A one-line account of a provider failure for error messages."""
    status = status_of(exc)
    what = f"HTTP {status}" if status is not None else type(exc).__name__
    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    if any(isinstance(e, (json.JSONDecodeError, UnicodeDecodeError)) for e in _chain(exc)):
        text = f"the response body is not JSON ({text})"
    return f"{what}: {text}" if text else what


def with_retries(
    call: Callable[[], T],
    *,
    retries: int,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call``, retrying ``transient`` provider failures up to ``retries`` times with backoff.

    Raises:
        Exception: the last failure, unchanged, when it is not transient or the retries ran out; the
            caller maps it with :func:`classify`.
    """
    for attempt in range(retries + 1):
        try:
            return call()
        except Exception as exc:
            if attempt >= retries or classify(exc) != "transient":
                raise
            delay = min(BACKOFF_MAX, BACKOFF_BASE * 2**attempt)
            log.warning("%s failed (%s); retry %d/%d in %.1f s", what, describe(exc), attempt + 1, retries, delay)
            sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


__all__ = ["BACKOFF_BASE", "BACKOFF_MAX", "classify", "describe", "status_of", "with_retries"]
