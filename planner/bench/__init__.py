"""Benchmarks of the decision core: COAT's question sets, evaluation and ablation runs.

- :mod:`.datasets`: build, write and read the six question sets from the annotations (seeded);
- :mod:`.sampling`: the machinery of the draw (variations, strata, per-set recipes);
- :mod:`.evaluate`: run a pipeline over a set, resumable JSONL rows, summaries and tables.

A composition root: it builds pipelines and models and may import anything in the project.
"""
