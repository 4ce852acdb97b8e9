"""plan() on every labelled request (and ALFRED directive) in every embedded room: nothing may raise (a request is
understood, refused or infeasible, never a traceback).

    COAT_DATA_DIR=<data root> PYTHONPATH=. python benchmarks/probes/plan_robustness.py [--split dev]

Prints the number of plans and of exceptions, with the most common exceptions and one request for each.
"""

from __future__ import annotations

import argparse
import collections

from planner.api import plan
from planner.understanding.examples import load_directives, load_requests

ROOMS = ("embedded/kitchen-v0", "embedded/living-room-v0", "embedded/bedroom-v0", "embedded/bathroom-v0")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", choices=("dev", "test"))
    args = ap.parse_args()
    reqs = [r.request for r in load_requests(args.split)] + [d.request for d in load_directives(args.split)]
    errors: collections.Counter[str] = collections.Counter()
    example: dict[str, tuple[str, str]] = {}
    for scene in ROOMS:
        for r in reqs:
            try:
                plan(r, scene)
            except Exception as e:  # noqa: BLE001 - counting every kind is the point
                key = f"{type(e).__name__}: {str(e)[:100]}"
                errors[key] += 1
                example.setdefault(key, (r, scene))
    print(f"{sum(errors.values())} exceptions in {len(ROOMS) * len(reqs)} plans")
    for key, n in errors.most_common(10):
        print(n, key, example[key])


if __name__ == "__main__":
    main()
