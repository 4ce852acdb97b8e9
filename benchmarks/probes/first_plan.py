"""The first plan and later ones, side by side for several checkouts (issue 26, item 7: "Fast first plan").

Cold: ``coat plan "cut cake" --execute`` in a fresh interpreter, ``--runs`` times per checkout, the checkouts
interleaved (A B A B ...) so that they share the machine's load; wall time, CPU time (user + sys) and peak RSS from
``/usr/bin/time``. Each checkout gets its own reader cache (``--cache-root``/<name>), filled by a first run that is
not counted, so every counted run starts warm on disk, as a user's second command does.

Cold, new text: the same, for a request no earlier run read (:data:`NEW_TEXTS`, one per run), so that nothing
about it is kept on disk yet: its parse loads spaCy.

Warm: one interpreter per checkout plans once, then times ``--n`` plans: ``plan("cut cake")`` (the scene id: made,
reset and closed each time), ``plan("cut cake", env)`` (an open embedded kitchen, reset each time) and
``plan(text, env)`` over ``--n`` different dev requests (each read for the first time, planned in the kitchen).
Wall and CPU (process time) medians.

CPU time is what a quiet 2-core machine would take in wall time; on a loaded one wall time is longer and varies,
so compare the checkouts' ratios and read the load average printed with the table.

Run:
    python benchmarks/probes/first_plan.py --checkout before=../base --checkout after=. --runs 3
    python benchmarks/probes/first_plan.py --checkout after=. --phases   # where a first plan's time goes
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

COMMAND = ["-m", "planner.cli", "plan", "cut cake", "--execute"]
NEW_TEXTS = ["cut a piece of the cake", "please cut some cake", "cut me a slice of cake", "could you cut the cake",
             "cut up the cake", "slice some cake", "cut the cake for me", "cut the cake with a knife"]
"""Cold runs of a text no earlier run read (one per run, the same for every checkout): its parse and embedding are
not kept yet. Texts the reader plans and carries out (one it refuses stops early, which would flatter the time)."""

_WARM = r"""
import json, statistics, sys, time
import scenes
from planner.api import plan
from planner.understanding.examples import load_requests

def timed(fn, n):
    fn()
    wall, cpu = [], []
    for i in range(n):
        w, c = time.perf_counter(), time.process_time()
        fn(i)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return {"wall_ms": 1000 * statistics.median(wall), "cpu_ms": 1000 * statistics.median(cpu)}

n = int(sys.argv[1])
out = {}
out["plan('cut cake')"] = timed(lambda i=0: plan("cut cake"), n)
env = scenes.make("embedded/kitchen-v0")
out["plan('cut cake', env)"] = timed(lambda i=0: plan("cut cake", env), n)
texts = [r.request for r in load_requests("dev")][:n + 1]
out["plan(new dev request, env)"] = timed(lambda i=n: plan(texts[i], env), n)
print("@@" + json.dumps(out))
"""


_PHASES = r"""
import time
T = [time.process_time()]
def lap(name):
    now = time.process_time()
    print(f"| {name} | {now - T[0]:.3f} |")
    T[0] = now
import planner.cli
lap("import planner.cli")
planner.cli.build_parser()
lap("the argument parser")
import planner.api as api
lap("import planner.api")
import scenes, perception.metadata
lap("import scenes, perception")
from planner.knowledge import load_knowledge
kb = load_knowledge(None)
lap("load the knowledge base")
env, obs, state = api.observe()
env.close()
lap("observe (make the scene, reset, perceive)")
import planner.scene_planner as sp
reader = sp.reader_for(kb)
lap("build the reader")
reader.read("cut cake")
lap("read 'cut cake'")
p = api.plan("cut cake")
lap("plan()")
from planner.agents.household import HouseholdLoop
env, obs = api.open_plan_scene(p)
HouseholdLoop(env, api.make_estimator(kb), kb).run(p, obs)
env.close()
lap("carry it out (closed loop)")
"""


def _env(checkout: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "COAT_READER")}
    env.update(PYTHONPATH=str(checkout), COAT_READER_CACHE=str(cache))
    return env


def cold_run(checkout: Path, cache: Path, command: list[str] = COMMAND) -> dict[str, float]:
    """One ``coat plan "cut cake" --execute`` (or ``command``) in a fresh interpreter: wall s, cpu s, peak RSS MiB."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as f:
        proc = subprocess.run(["/usr/bin/time", "-o", f.name, "-f", "%e %U %S %M", sys.executable, *command],
                              cwd=checkout, env=_env(checkout, cache), capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{checkout}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        wall, user, sys_, rss = f.read().split()[-4:]
    return {"wall_s": float(wall), "cpu_s": float(user) + float(sys_), "rss_mib": int(rss) / 1024}


def warm(checkout: Path, cache: Path, n: int) -> dict[str, dict[str, float]]:
    proc = subprocess.run([sys.executable, "-c", _WARM, str(n)], cwd=checkout, env=_env(checkout, cache),
                          capture_output=True, text=True)
    head, _, tail = proc.stdout.rpartition("@@")
    if not tail:
        raise SystemExit(f"{checkout}: the warm run failed\n{proc.stdout}\n{proc.stderr}")
    return json.loads(tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkout", action="append", required=True, metavar="NAME=DIR")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--cache-root", default=None, help="reader caches, one folder per checkout (default: a temp dir)")
    ap.add_argument("--phases", action="store_true",
                    help="only print the CPU seconds of each step of a first plan, per checkout (cache filled)")
    args = ap.parse_args()
    checkouts = {c.split("=", 1)[0]: Path(c.split("=", 1)[1]).resolve() for c in args.checkout}
    root = Path(args.cache_root or tempfile.mkdtemp(prefix="first-plan-"))
    caches = {name: root / name for name in checkouts}
    if args.phases:
        for name, where in checkouts.items():
            caches[name].mkdir(parents=True, exist_ok=True)
            cold_run(where, caches[name])
            out = subprocess.run([sys.executable, "-c", _PHASES], cwd=where, env=_env(where, caches[name]),
                                 capture_output=True, text=True)
            print(f"{name}:\n| phase | CPU s |\n|---|---|\n{out.stdout}{out.stderr[-2000:]}")
        return
    print(f"load average before: {os.getloadavg()}", flush=True)
    for name, where in checkouts.items():  # fills the reader cache (word index, known texts' embeddings)
        caches[name].mkdir(parents=True, exist_ok=True)
        cold_run(where, caches[name])
    if args.runs > len(NEW_TEXTS):
        raise SystemExit(f"--runs {args.runs}: at most {len(NEW_TEXTS)} (one new text per run)")
    cold: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    new: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for i in range(args.runs):
        for name, where in checkouts.items():
            cold[name].append(cold_run(where, caches[name]))
            new[name].append(cold_run(where, caches[name], [*COMMAND[:3], NEW_TEXTS[i], "--execute"]))
            print(name, cold[name][-1], "new text:", new[name][-1], flush=True)
    warm_runs = {name: warm(where, caches[name], args.n) for name, where in checkouts.items()}
    print(f"load average after: {os.getloadavg()}")
    print("\n| checkout | cold wall s | cold CPU s | peak RSS MiB | cold, new text: wall s / RSS MiB | " +
          " | ".join(f"{k} wall / CPU ms" for k in next(iter(warm_runs.values()))) + " |")
    print("|---|---|---|---|---|" + "---|" * len(next(iter(warm_runs.values()))))
    for name in checkouts:
        med = {k: statistics.median(r[k] for r in cold[name]) for k in ("wall_s", "cpu_s", "rss_mib")}
        fresh = {k: statistics.median(r[k] for r in new[name]) for k in ("wall_s", "rss_mib")}
        cells = " | ".join(f"{v['wall_ms']:.1f} / {v['cpu_ms']:.1f}" for v in warm_runs[name].values())
        print(f"| {name} | {med['wall_s']:.2f} | {med['cpu_s']:.2f} | {med['rss_mib']:.0f} | "
              f"{fresh['wall_s']:.2f} / {fresh['rss_mib']:.0f} | {cells} |")
    print(json.dumps({"cold": cold, "new_text": new, "warm": warm_runs}))


if __name__ == "__main__":
    main()
