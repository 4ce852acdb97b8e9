"""Throughput of a served scoring model under ``coat eval --concurrency``, with the in-process model as reference.

Starts llama.cpp's server (``python -m llama_cpp.server``, the embedded SmolLM2-135M, ``--n_threads 1``) on
127.0.0.1 and answers the same Task-u questions (single prompt, ``--strategy llm``: one score call per question)
with, in this order and in one run:

* ``local`` (in-process, concurrency 1): the reference;
* ``served:<url>#smollm2&template=local:smollm2`` (the same rendering as ``local``) at concurrency 1, 2 and 4.

Every run has its own empty model-call cache and is preceded by one warm-up question (another cache), so none
pays for a cold start. Prints a markdown table (questions per second, seconds per question, the 1-minute load
average before and after, and whether the choices equal the reference's).

Run:
    COAT_DATA_DIR=../shared PYTHONPATH=. python benchmarks/probes/served_throughput.py --limit 4
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """llama.cpp's server with the embedded SmolLM2 on a free port; returns once it lists its model."""
    from planner.llm.local import smollm2_path

    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path()), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", "1024", "--n_threads", "1", "--model_alias", "smollm2"]
    proc = subprocess.Popen(cmd, stdout=log_path.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited:\n{log_path.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return proc, url
        except OSError:
            if time.monotonic() > deadline:
                proc.terminate()
                raise SystemExit(f"llama_cpp.server not up after 120 s:\n{log_path.read_text()[-2000:]}") from None
            time.sleep(0.3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=4, help="Task-u questions per run (stratified over variations)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4])
    args = ap.parse_args()

    from planner.bench.evaluate import load_set, run_eval, sample_questions
    from planner.knowledge import load_knowledge
    from planner.llm import make_llm
    from planner.pipeline import make_pipeline

    kb = load_knowledge(None)
    qs = sample_questions(load_set(kb, "task_u", seed=0), args.limit, seed=0)
    warm = sample_questions(load_set(kb, "task_u", seed=1), 1, seed=1)
    tmp = Path(tempfile.mkdtemp(prefix="served-throughput-"))
    proc, url = start_server(tmp / "server.log")
    served = f"served:{url}#smollm2&template=local:smollm2"
    results = []
    try:
        runs = [("local", "local", 1)] + [("served", served, n) for n in args.concurrency]
        for i, (name, spec, n) in enumerate(runs):
            run = {"set": "task_u", "pipeline": "single", "strategy": "llm", "llm": spec, "seed": 0, "stage1": None}
            warm_llm = make_llm(spec, cache_path=tmp / f"warm{i}.sqlite", timeout=600)
            run_eval(warm, make_pipeline("single", "llm", warm_llm, kb), run=run, progress=False)
            llm = make_llm(spec, cache_path=tmp / f"cache{i}.sqlite", timeout=600)
            load0 = os.getloadavg()[0]
            t0 = time.perf_counter()
            rows = run_eval(qs, make_pipeline("single", "llm", llm, kb), run=run, progress=False, concurrency=n)
            took = time.perf_counter() - t0
            results.append({"run": name, "concurrency": n, "questions": len(rows), "seconds": round(took, 1),
                            "q_per_s": round(len(rows) / took, 4), "s_per_q": round(took / len(rows), 1),
                            "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
                            "chosen": [r["chosen"] for r in rows], "unparsed": sum(r["unparsed"] for r in rows)})
            print(json.dumps(results[-1]), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    ref = results[0]["chosen"]
    print("\n| run | --concurrency | questions | seconds | questions/s | s/question | load before -> after "
          "| choices = local's |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['run']} | {r['concurrency']} | {r['questions']} | {r['seconds']} | {r['q_per_s']} | "
              f"{r['s_per_q']} | {r['load_before']} -> {r['load_after']} | {'yes' if r['chosen'] == ref else 'no'} |")


if __name__ == "__main__":
    main()
