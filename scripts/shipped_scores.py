"""Compute the log-likelihoods shipped for the embedded models; write planner/llm/scores/<model>.json.

For every embedded model (``smollm2``, ``gemma-270m``), with the code that computes them at run time
(:meth:`planner.llm.local.LlamaCppChatModel.option_logprobs`), every prompt that does not depend on the question and
every option text the COAT question sets can give it (:func:`requests`):

* each neutral prompt (``planner/prompts/neutral_*.txt``) with the texts scored against it: the description of each
  of COAT's object configurations and each object's name (stage 2 and the single prompt), each object's name (stage
  1's cloze), each utility's need phrase (stage 1's utility signal), Yes and No;
* stage 1's utility prompt of each of COAT's objects ("A knife is") with each utility's need phrase.

Rerun after changing a prompt, the object descriptions, the COAT data or a model file: entries whose prompt or text
changed are no longer found and are computed at run time (``tests/planner/test_shipped_scores.py`` says so). Takes
about 10 minutes for SmolLM2 and 30 for Gemma on one thread; the models named are rewritten, the others kept.

    COAT_LLM_THREADS=1 COAT_DATA_DIR=<data root> python scripts/shipped_scores.py [--models smollm2 gemma-270m]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any

from tqdm import tqdm

from planner import prompting
from planner.knowledge import load_knowledge
from planner.llm import DeterministicLLM
from planner.llm import shipped_scores as ss
from planner.llm.local import CHUNK, LlamaCppChatModel
from planner.object_selector import ObjectSelector


def requests(kb: Any) -> dict[str, set[str]]:
    """Every question-independent scoring request of the pipelines: user message -> option texts."""
    sel = ObjectSelector("llm", DeterministicLLM(), kb)
    objects = sorted({*kb.objects, *sel.reference_objects, *(c.object for c in kb.configurations)})
    names = {prompting.humanize_object(o) for o in objects}
    needs: set[str] = set()
    out: dict[str, set[str]] = defaultdict(set)
    for u in kb.utilities:
        for prompt, options, neutral in sel.utility_requests(u, objects):
            out[prompt].update(options)
            out[neutral].update(options)
            needs.update(options)
    out[prompting.neutral_prompt("option")].update(
        names, (prompting.describe_state(c.object, c.state) for c in kb.configurations))
    out[prompting.neutral_prompt("object")].update(names)
    out[prompting.neutral_prompt("yesno")].update(("Yes", "No"))
    return dict(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2", "gemma-270m"])
    args = ap.parse_args()
    todo = requests(load_knowledge())
    n = sum(len(v) for v in todo.values())
    for name in args.models:
        model = LlamaCppChatModel.from_name(name, shipped_scores=False)
        scores: dict[str, dict[str, float]] = {}
        t0 = time.perf_counter()
        for prompt, options in tqdm(sorted(todo.items()), desc=name):
            opts = sorted(options)
            values = model.option_logprobs(prompt, opts)
            scores[model.format_prompt(prompt)] = {model._option_text(o): v for o, v in zip(opts, values, strict=True)}
        print(f"{name}: {n} log-likelihoods after {len(todo)} prompts in {time.perf_counter() - t0:.0f} s")
        note = (f"log-likelihoods of {name} ({model.model_path.rsplit('/', 1)[-1]}) by scripts/shipped_scores.py: "
                "the neutral prompts' and stage 1's utility prompts' options; see planner/llm/shipped_scores.py")
        out = ss.table_path(name)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(ss.dumps(model.model_path, CHUNK, scores, note), encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
