"""How many CPU threads the embedded model (llama.cpp) runs on by default."""

from __future__ import annotations

import functools
import os

from ..config import current_setting


def default_threads() -> int:
    """``$COAT_LLM_THREADS`` (the current settings' ``llm_threads``), else :func:`idle_threads` for this machine's
    cores and load, chosen once per process."""
    chosen = current_setting("llm_threads")  # $COAT_LLM_THREADS, read by planner.config.Settings.from_env
    if chosen is not None:
        return chosen
    return _threads_by_load()


@functools.cache
def _threads_by_load() -> int:
    # Once per process: a second model call must find the model its first call loaded, not load it again with
    # another thread count because the load moved.
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return idle_threads(n, _load_average())


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        return None


def idle_threads(cores: int, load: float | None) -> int:
    """llama.cpp threads for ``cores`` available cores under a 1-minute load average of ``load`` (this process's
    own work included): the cores no other process is using (``cores - round(load - 1)``), 1 to 4.

    llama.cpp's threads spin-wait at every layer, so a thread that has to share its core with another job slows
    every layer down: on 2 shared cores, 2 threads were 3x slower than 1 at the median (benchmarks/llm.md). On an
    idle 2-core machine 2 threads are faster: ``coat ablate --llm local --limit 50`` from an empty cache took
    137 s with 2 threads and 214 s with 1 (benchmarks/decision.md). Unknown load: half the cores. The cap of 4
    is a guess for bigger machines, not measured.
    """
    if load is None:
        return max(1, min(4, cores // 2))
    return max(1, min(4, cores - round(max(0.0, load - 1.0))))


__all__ = ["default_threads", "idle_threads"]
