"""llama.cpp's OpenAI-compatible server (``python -m llama_cpp.server``) running the embedded SmolLM2 on 127.0.0.1,
for the live tests that talk to a served model: started on a free port, waited for, and stopped."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT = 90.0
ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve_smollm2(log_dir: Path, n_ctx: int, start_timeout: float = START_TIMEOUT) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:<port>/v1``) once it lists the model as :data:`ALIAS`; the test
    fails with the server's log when it exits or does not come up in time."""
    from planner.llm.local import smollm2_path

    port = free_port()
    log_path = log_dir / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", "1", "--model_alias", ALIAS]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    assert json.load(r)["data"][0]["id"] == ALIAS
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server not up after {start_timeout}s:\n{log_path.read_text()[-2000:]}")
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
