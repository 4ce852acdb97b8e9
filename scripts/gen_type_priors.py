"""Regenerate ``perception.priors.TYPICAL_MATERIAL`` from the 120 AI2-THOR floorplan dumps.

For every COAT object with several common materials, the table holds the one AI2-THOR 5.0.0 lists first
most often among COAT's values (ties broken by COAT's order). Paste the printed lines into the table.

Usage:
    python scripts/gen_type_priors.py [--data-dir DIR]      # print the table's entries
    python scripts/gen_type_priors.py --check               # exit 1 when the table is out of date

Requires: the data directory's ``coat/`` and ``ai2thor/floorplans/``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

# Run from a checkout: import this repository's packages, not an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perception.priors import COMMON_VALUES_FILE, TYPICAL_MATERIAL  # noqa: E402
from planner.paths import resolve_data_dir  # noqa: E402
from planner.schemas import canonical_object_name  # noqa: E402


def derive_typical_material(floorplans_dir: Path, common: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[str, str]:
    """Recompute ``TYPICAL_MATERIAL`` from the floorplan dumps in ``floorplans_dir`` and COAT's common values."""
    first: dict[str, Counter[str]] = defaultdict(Counter)
    for f in sorted(floorplans_dir.glob("FloorPlan*_physics.json")):
        with open(f, encoding="utf-8") as fh:
            for o in json.load(fh).values():
                mats = o.get("salientMaterials")
                if mats:
                    first[canonical_object_name(o["objectType"])][mats[0]] += 1
    out: dict[str, str] = {}
    for name, vals in common.items():
        mats = list(vals.get("material", []))
        if len(mats) < 2:
            continue
        counts = first.get(name, Counter())
        best = sorted((m for m in mats if counts[m]), key=lambda m: (-counts[m], mats.index(m)))
        if best:
            out[name] = best[0]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the derived table (or, with ``--check``, compare it with the one in the code)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None, help="data root with coat/ and ai2thor/")
    p.add_argument("--check", action="store_true", help="exit 1 when TYPICAL_MATERIAL differs from the data")
    args = p.parse_args(argv)
    root = resolve_data_dir(args.data_dir, need="ai2thor")
    common = json.loads((root / "coat" / COMMON_VALUES_FILE).read_text(encoding="utf-8"))
    table = derive_typical_material(root / "ai2thor" / "floorplans", common)
    if args.check:
        if table != TYPICAL_MATERIAL:
            sys.stderr.write("TYPICAL_MATERIAL is out of date; rerun without --check and paste the lines\n")
            return 1
        return 0
    for k, v in table.items():
        sys.stdout.write(f'    "{k}": "{v}",\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
