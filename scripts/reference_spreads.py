"""Compute stage 1's reference spreads for the embedded models; write them to planner/reference_spreads.json.

For every embedded model (``local:smollm2``, ``local:gemma-270m``) and every COAT utility: the ``utility`` signal of
each of COAT's 100 object types (the model's calibrated likelihood of the utility's phrase after "A <object> is"),
exactly as :class:`planner.object_selector.ObjectSelector` computes it, and their standard deviation, recorded with
a hash of the calls and the first object's score (the probe checked before a shipped spread is used; see
:mod:`planner.reference_spreads`). Rerun after changing a stage-1 prompt, the utility phrases or a model: the
selector computes, rather than uses, a spread whose calls no longer match (``tests/planner/test_reference_spreads.py``
says so). Takes about 4 minutes per model on 2 cores; a fresh model-call cache is used, so the numbers are the
model's; the entries of models not named are kept.

    COAT_DATA_DIR=<data root> python scripts/reference_spreads.py [--models smollm2 gemma-270m]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from planner import reference_spreads
from planner.knowledge import load_knowledge
from planner.llm import make_llm
from planner.llm.cache import LLMCache
from planner.object_selector import ObjectSelector
from planner.selection import PromptLog

OUT = Path(__file__).resolve().parents[1] / "planner" / reference_spreads.FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2", "gemma-270m"])
    args = ap.parse_args()
    kb = load_knowledge()
    wanted = {f"local:{m}" for m in args.models}
    entries = [e for e in reference_spreads.shipped().values() if e["model_id"] not in wanted]
    tmp = tempfile.TemporaryDirectory()
    for name in args.models:
        llm = make_llm(f"local:{name}", cache=LLMCache(Path(tmp.name) / f"{name}.sqlite"))
        sel = ObjectSelector("llm", llm, kb, signals=("utility",))
        sel.shipped_spreads = False
        refs = list(sel.reference_objects)
        t0 = time.perf_counter()
        for utility in tqdm(kb.utilities, desc=name):
            values = sel._signal("utility", None, utility, refs, PromptLog())
            spread = sel.calibrate(None, utility)["utility"]  # the selector's own number, from the same calls
            assert spread == statistics.pstdev(values), (utility, spread)
            entries.append(reference_spreads.entry(llm.model_id, utility, sel.utility_requests(utility, refs), values))
        print(f"{llm.model_id}: {len(kb.utilities)} utilities in {time.perf_counter() - t0:.0f} s")
    note = ("stage 1's utility-signal spreads over COAT's object types, by scripts/reference_spreads.py "
            f"({', '.join(args.models)}); see planner/reference_spreads.py")
    OUT.write_text(reference_spreads.dumps(entries, note), encoding="utf-8")
    print(f"wrote {len(entries)} spreads to {OUT}")


if __name__ == "__main__":
    main()
