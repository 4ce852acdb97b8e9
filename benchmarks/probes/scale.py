"""Serial runs beside ``--ray`` runs of the same commands (issue 25, item 4: "Scale out on Ray").

Each case is one ``coat`` command, run three ways one after the other on this machine, each into a fresh output:

- ``serial``: the command as it is;
- ``ray-local``: with ``--ray --ray-actors N``, a Ray started by the command itself (its start and stop counted);
- ``ray-head``: with ``--ray 127.0.0.1:PORT --ray-actors N`` on a Ray head this probe started before the runs
  (``ray start --head --block``, ended by its process id after them), as on a cluster whose head is up.

For each run: wall seconds, and the 1-minute load average sampled every 2 s while it ran (the machine is shared).
After the runs the probe checks that every Ray run wrote the serial run's rows (timing fields aside) and prints
the table with the ratios serial / Ray.

Run from a checkout, with ``COAT_DATA_DIR`` set and the ``ray`` extra installed::

    python benchmarks/probes/scale.py --actors 2 --json /tmp/scale.json
    python benchmarks/probes/scale.py --cases tasks --modes serial ray-head
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # the checkout's planner, as the commands below run it

from planner.bench.scale import untimed  # noqa: E402 - after the checkout is on the path

CASES: dict[str, tuple[list[str], str, Callable[[dict[str, Any]], str]]] = {
    # name: (coat arguments with OUT for the output, rows file inside OUT ("" when OUT is the file), row key)
    "tasks": (["bench", "tasks", "--episodes", "140", "--seed", "0", "--no-progress", "--json", "--out", "OUT"],
              "episodes.jsonl", lambda r: r["key"]),
    "eval-llm": (["eval", "--set", "task2", "--strategy", "llm", "--llm", "local", "--no-cache", "--limit", "40",
                  "--seed", "0", "--no-progress", "--out", "OUT"], "", lambda r: r["question_id"]),
    "eval-llm-single": (["eval", "--set", "task2", "--pipeline", "single", "--strategy", "llm", "--llm", "local",
                         "--no-cache", "--limit", "40", "--seed", "0", "--no-progress", "--out", "OUT"], "",
                        lambda r: r["question_id"]),
    "eval-knowledge": (["eval", "--set", "task2", "--strategy", "knowledge", "--limit", "3000", "--seed", "0",
                        "--no-progress", "--out", "OUT"], "", lambda r: r["question_id"]),
    "understanding": (["bench", "understanding", "--split", "test", "--no-progress", "--json", "--out", "OUT"],
                      "requests.jsonl", lambda r: r["id"]),
    "sciworld": (["sciworld", "--tasks", "boil", "melt", "freeze", "change-the-state-of-matter-of", "--limit", "2",
                  "--no-progress", "--out", "OUT"], "episodes.jsonl",
                 lambda r: json.dumps([r["task"], r["variation"], r["policy"]])),
}
MODES = ("serial", "ray-local", "ray-head")


class LoadSampler:
    """The 1-minute load average every ``every`` seconds while a run lasts."""

    def __init__(self, every: float = 2.0) -> None:
        self.every, self.values = every, [self._now()]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _now() -> float:
        return os.getloadavg()[0]

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.values.append(self._now())

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.values.append(self._now())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Head:
    """A Ray head on 127.0.0.1 for the ``ray-head`` runs, in its own session, ended by its process id."""

    def __init__(self, cpus: int) -> None:
        self.port = _free_port()
        self.temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths stay under 108 bytes
        log = Path(self.temp) / "head.log"
        cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--node-ip-address", "127.0.0.1",
               "--port", str(self.port), "--num-cpus", str(cpus), "--include-dashboard", "false",
               "--disable-usage-stats", "--temp-dir", self.temp, "--block"]
        with log.open("w") as out:  # a head on the loopback for this probe only: no token
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                         env={**os.environ, "RAY_AUTH_MODE": "disabled"})
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise SystemExit(f"the Ray head did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        shutil.rmtree(self.temp, ignore_errors=True)


def _rows(path: Path, key: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
    return {key(r): untimed(r) for r in map(json.loads, path.read_text().splitlines())}


def run(case: str, mode: str, actors: int, root: Path, head: Head | None) -> dict[str, Any]:
    """One run of a case: its wall seconds and the load while it ran."""
    argv, rows_name, _key = CASES[case]
    out = root / f"{case}-{mode}"
    target = out / (rows_name or "rows.jsonl")
    args = [str(out) if a == "OUT" else a for a in argv]
    if not rows_name:
        args = [str(target) if a == str(out) else a for a in args]
    if mode == "ray-local":
        args += ["--ray", "--ray-actors", str(actors)]
    elif mode == "ray-head":
        assert head is not None
        args += ["--ray", head.address, "--ray-actors", str(actors)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t0 = time.perf_counter()
    with LoadSampler() as load:
        done = subprocess.run([sys.executable, "-m", "planner.cli", *args], capture_output=True, text=True, env=env,
                              cwd=root)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{case} {mode} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return {"case": case, "mode": mode, "wall_s": round(wall, 1), "load_min": round(min(load.values), 2),
            "load_max": round(max(load.values), 2), "rows": str(target), "command": "coat " + " ".join(args)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--actors", type=int, default=2, help="actors of the Ray runs")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the runs as JSON here")
    p.add_argument("--keep", default=None, metavar="DIR", help="write the runs' outputs here (default: a temp dir)")
    args = p.parse_args(argv)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="coat-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    head = Head(os.cpu_count() or 1) if "ray-head" in args.modes else None
    runs: list[dict[str, Any]] = []
    try:
        for case in args.cases:
            for mode in args.modes:
                r = run(case, mode, args.actors, root, head)
                runs.append(r)
                print(f"{case:15} {mode:10} {r['wall_s']:7.1f} s  load {r['load_min']}-{r['load_max']}", flush=True)
    finally:
        if head is not None:
            head.close()
    print("\n| case | serial s | Ray here s (ratio) | Ray on a running head s (ratio) | load | rows equal |")
    print("|---|---|---|---|---|---|")
    for case in args.cases:
        by_mode = {r["mode"]: r for r in runs if r["case"] == case}
        base = by_mode.get("serial")
        cells = []
        for mode in ("ray-local", "ray-head"):
            r = by_mode.get(mode)
            cells.append("-" if r is None else f"{r['wall_s']} ({base['wall_s'] / r['wall_s']:.2f}x)" if base
                         else str(r["wall_s"]))
        same = "-"
        if base:
            key = CASES[case][2]
            want = _rows(Path(base["rows"]), key)
            same = "yes" if all(_rows(Path(r["rows"]), key) == want for r in by_mode.values()) else "NO"
        lo = min(r["load_min"] for r in by_mode.values())
        hi = max(r["load_max"] for r in by_mode.values())
        print(f"| {case} | {base['wall_s'] if base else '-'} | {cells[0]} | {cells[1]} | {lo}-{hi} | {same} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"actors": args.actors, "cpus": os.cpu_count(), "runs": runs},
                                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
