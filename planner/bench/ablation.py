"""``coat ablate``'s report: the single prompt vs two-stage, per set and overall, with intervals and a paired test.

For every set and for all sets pooled: each pipeline's accuracy with its 95 % bootstrap interval, and the two
pipelines on the same questions: the 2 x 2 table (both right, only single, only two-stage, both wrong), the
difference two-stage - single in percentage points with its interval, and McNemar's exact p-value
(:mod:`planner.bench.stats`). The numbers are deterministic: the bootstrap is seeded with the run's ``--seed``.

What it writes into the run's directory (the rows files beside them go through :mod:`planner.results`):

* ``summary.json``: every number of the comparison (and each pipeline's other metrics: chance, bad rate, unparsed
  rate, calls, latency), also printed by ``coat ablate --json``;
* ``report.md``: the comparison table, the figure, each pipeline's metrics, and each set's accuracy per
  variation (tables only: a variation holds a few questions, too few for a bar each);
* ``comparison.png``: one figure, accuracy per set with intervals and the paired difference with intervals
  (needs the ``report`` extra; without it the report says so and the numbers are all there).

A set in which the two pipelines share no question (rows of other samples) is reported with ``n`` 0 and ``-``
for every estimate, not refused: the table shows what there is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..paths import writing
from . import stats
from .evaluate import format_summary, markdown_table, summarize

log = logging.getLogger(__name__)

PAIR: tuple[str, str] = ("single", "two-stage")
"""The pipelines compared on the same questions: the baseline first."""
OVERALL = "overall"
"""The row of every set's questions pooled (resampled together)."""
PLOT_FILE = "comparison.png"
COLORS = {"single": "#c44e52", "two-stage": "#4c72b0", "single+prior": "#55a868"}

Rows = Sequence[Mapping[str, Any]]


def _pipeline_stats(rows: Rows, seed: int) -> dict[str, Any]:
    o = summarize(rows)["overall"]
    acc = stats.accuracy((bool(r["correct"]) for r in rows), seed=seed)
    keep = ("chance", "bad_rate", "bad_chance", "unparsed_rate", "stage1_unparsed_rate", "stage1_recall",
            "stage1_kept_mean", "calls_per_q", "latency_p50", "latency_p95")
    return {"n": acc.n, "correct": acc.correct, "accuracy": stats.as_dict(acc.interval),
            **{k: o.get(k) for k in keep}}


def _paired(by_pipe: Mapping[str, Rows], seed: int, sources: tuple[str, str]) -> dict[str, Any] | None:
    if not all(p in by_pipe for p in PAIR):
        return None
    p = stats.paired(by_pipe[PAIR[0]], by_pipe[PAIR[1]], seed=seed, sources=sources)
    return {"n": p.n, "both_right": p.both_right, "only_single": p.only_a, "only_two_stage": p.only_b,
            "both_wrong": p.both_wrong, "difference": stats.as_dict(p.difference), "mcnemar_p": p.mcnemar_p,
            "unpaired": p.unpaired}


def compare(results: Mapping[str, Mapping[str, Rows]], *, seed: int, out: Path | None = None) -> dict[str, Any]:
    """The comparison of every set and of all of them pooled (see the module docstring), as JSON-able data.

    Args:
        results: ``{set: {pipeline: rows}}``, e.g. what ``coat ablate`` ran.
        seed: Bootstrap seed.
        out: The run's directory, to name the rows files in errors.

    Raises:
        DataError: a row without a question id or a right/wrong, or a question answered twice by one pipeline.
        DependencyNotInstalled: scipy is missing (the ``stats`` extra).
    """

    def where(set_name: str) -> tuple[str, str]:
        return tuple(str(out / f"{set_name}-{p}.jsonl") if out is not None else f"{set_name} {p} rows"
                     for p in PAIR)  # type: ignore[return-value]

    pipelines = list(dict.fromkeys(p for by in results.values() for p in by))
    sets: dict[str, Any] = {}
    for set_name, by_pipe in results.items():
        sets[set_name] = {"pipelines": {p: _pipeline_stats(rows, seed) for p, rows in by_pipe.items()},
                          "paired": _paired(by_pipe, seed, where(set_name))}
    pooled = {p: [r for by in results.values() for r in by.get(p, ())] for p in pipelines}
    return {
        "confidence": stats.CONFIDENCE,
        "bootstrap": {"method": stats.METHOD, "n_resamples": stats.N_RESAMPLES, "seed": seed},
        "test": "McNemar, exact (binomial) two-sided",
        "sets": sets,
        OVERALL: {"pipelines": {p: _pipeline_stats(rows, seed) for p, rows in pooled.items()},
                  "paired": _paired(pooled, seed, where("*"))},
    }


# ---------------------------------------------------------------- tables


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def _ci(interval: Mapping[str, Any] | None, signed: bool = False) -> str:
    if interval is None:
        return "-"
    sign = "+" if signed else ""
    return f"{interval['estimate']:{sign}.1f} [{interval['low']:{sign}.1f}, {interval['high']:{sign}.1f}]"


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _rows(summary: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [*summary["sets"].items(), (OVERALL, summary[OVERALL])]


def comparison_table(summary: Mapping[str, Any]) -> str:
    """The comparison as a markdown table: one row per set, then the pooled row."""
    pct = round(100 * summary["confidence"])
    header = ["set", "n", f"single acc % [{pct} % CI]", f"two-stage acc % [{pct} % CI]", "both right", "only single",
              "only two-stage", "both wrong", f"two-stage - single pp [{pct} % CI]", "McNemar exact p"]
    body = []
    for name, entry in _rows(summary):
        pipes, pr = entry["pipelines"], entry["paired"] or {}
        acc = [_ci((pipes.get(p) or {}).get("accuracy")) for p in PAIR]
        body.append([name, pr.get("n"), *acc, pr.get("both_right"), pr.get("only_single"), pr.get("only_two_stage"),
                     pr.get("both_wrong"), _ci(pr.get("difference"), signed=True), _p(pr.get("mcnemar_p"))])
    b = summary["bootstrap"]
    unpaired = sum((e["paired"] or {}).get("unpaired", 0) for _, e in summary["sets"].items())
    notes = [f"{pct} % {b['method']} bootstrap intervals ({b['n_resamples']:,} resamples over questions, seed "
             f"{b['seed']}); p: {summary['test']}, on the questions only one pipeline answered right. The {OVERALL} "
             "row pools every set's questions."]
    if unpaired:
        notes.append(f"{unpaired} questions answered by one pipeline only are left out of n and the paired columns.")
    return markdown_table(header, body) + "\n\n" + " ".join(notes)


def pipeline_table(summary: Mapping[str, Any]) -> str:
    """Each pipeline's accuracy interval and other metrics, per set and pooled."""
    header = ["set", "pipeline", "n", "acc % [CI]", "chance %", "bad %", "bad chance %", "unparsed %",
              "s1 unparsed %", "s1 recall %", "calls/q", "p50 s", "p95 s"]
    body = []
    for name, entry in _rows(summary):
        for p, s in entry["pipelines"].items():
            body.append([name, p, s["n"], _ci(s["accuracy"]), s["chance"], s["bad_rate"], s["bad_chance"],
                         s["unparsed_rate"], s["stage1_unparsed_rate"], s["stage1_recall"], s["calls_per_q"],
                         s["latency_p50"], s["latency_p95"]])
    return markdown_table(header, body)


# ---------------------------------------------------------------- the figure


def plot_comparison(summary: Mapping[str, Any], path: Path) -> bool:
    """One figure: accuracy per set with intervals (left), the paired difference with intervals (right).

    Returns:
        False (and a logged warning) when matplotlib is not installed.
    """
    try:
        from .._optional import require

        matplotlib = require("matplotlib", "report")
    except ImportError as e:
        log.warning("no comparison plot: %s", e)
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = _rows(summary)
    names = [n for n, _ in entries]
    ys = list(range(len(entries)))[::-1]  # the first set on top, the pooled row last
    pct = round(100 * summary["confidence"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 0.55 * len(entries) + 1.8), sharey=True)
    pipelines = list(dict.fromkeys(p for _, e in entries for p in e["pipelines"]))
    step = 0.5 / max(1, len(pipelines))
    for k, p in enumerate(pipelines):
        off = (k - (len(pipelines) - 1) / 2) * step
        for y, (_, e) in zip(ys, entries, strict=True):
            acc = (e["pipelines"].get(p) or {}).get("accuracy")
            if acc is None:
                continue
            err = [[acc["estimate"] - acc["low"]], [acc["high"] - acc["estimate"]]]
            left.errorbar(acc["estimate"], y - off, xerr=err, fmt="o", color=COLORS.get(p), capsize=3,
                          label=p if y == ys[0] else None)
    for y, (_, e) in zip(ys, entries, strict=True):
        chance = next(iter(e["pipelines"].values()), {}).get("chance")
        if chance is not None:
            left.plot([chance, chance], [y - 0.35, y + 0.35], color="black", linestyle="dashed", linewidth=1,
                      label="chance" if y == ys[0] else None)
    left.set_xlim(0, 100)
    left.set_xlabel(f"accuracy % ({pct} % CI)")
    left.set_yticks(ys, names)
    left.legend(fontsize=8, loc="lower right")
    for y, (_, e) in zip(ys, entries, strict=True):
        d = (e["paired"] or {}).get("difference")
        if d is None:
            continue
        right.errorbar(d["estimate"], y, xerr=[[d["estimate"] - d["low"]], [d["high"] - d["estimate"]]], fmt="s",
                       color="black" if y == ys[-1] else COLORS["two-stage"], capsize=3)
        right.annotate(f"p {_p(e['paired']['mcnemar_p'])}", (d["high"], y), xytext=(5, 0), textcoords="offset points",
                       va="center", fontsize=8)
    right.axvline(0, color="gray", linewidth=1)
    right.set_xlabel(f"two-stage - single, points ({pct} % CI)")
    lim = max([10.0] + [abs(v) for _, e in entries for v in
                        (((e["paired"] or {}).get("difference") or {}).get(k, 0) for k in ("low", "high"))])
    right.set_xlim(-lim * 1.15, lim * 1.35)
    fig.suptitle("Single prompt vs two-stage, paired on the same questions", fontsize=10)
    fig.tight_layout()
    with writing(path):
        fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- the report


def _variation_table(by_pipe: Mapping[str, Rows], labels: Mapping[int, str]) -> str:
    summaries = {p: summarize(rows) for p, rows in by_pipe.items()}
    var_ids = sorted({v for s in summaries.values() for v in s["by_variation"]})
    header = ["variation", "n", *(f"{p} acc %" for p in summaries), "chance %"]
    body = []
    for v in var_ids:
        groups = [s["by_variation"].get(v, {}) for s in summaries.values()]
        body.append([f"{v} ({labels.get(v, '')})", max(g.get("n", 0) for g in groups),
                     *(g.get("accuracy") for g in groups), groups[0].get("chance")])
    return markdown_table(header, body)


def write_report(results: Mapping[str, Mapping[str, Rows]], meta: Mapping[str, Any], out: Path, *, seed: int,
                 labels: Mapping[str, Mapping[int, str]] | None = None) -> dict[str, Any]:
    """Write ``summary.json``, ``comparison.png`` and ``report.md`` into ``out``; return the summary.

    Args:
        results: ``{set: {pipeline: rows}}``.
        meta: The run: ``command``, ``model_id``, ``strategy``, ``seed``, ``limit`` (recorded in the summary).
        out: The run's directory (locked by the caller).
        seed: Bootstrap seed.
        labels: ``{set: {variation: label}}`` for the per-variation tables.
    """
    summary = {"run": dict(meta), **compare(results, seed=seed, out=out)}
    with writing(out / "summary.json"):
        (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    plotted = plot_comparison(summary, out / PLOT_FILE)
    lines = ["# Single prompt vs two-stage", "", f"Command: `{meta['command']}`", "",
             f"Model: {meta['model_id']}; strategy: {meta['strategy']}; seed {meta['seed']}; {meta['limit']} questions "
             "per set (stratified over variations).", "", "## Paired comparison", "", comparison_table(summary), ""]
    lines += [f"![accuracy and paired difference per set]({PLOT_FILE})" if plotted else
              "(no figure: matplotlib is not installed; `pip install 'coat-planner[report]'`)", ""]
    lines += ["## Each pipeline", "", pipeline_table(summary), ""]
    for set_name, by_pipe in results.items():
        set_labels = (labels or {}).get(set_name, {})
        lines += [f"## {set_name}: accuracy per variation", "", _variation_table(by_pipe, set_labels), ""]
        for p, rows in by_pipe.items():
            lines += [f"<details><summary>{set_name} / {p}: full table</summary>", "",
                      format_summary(summarize(rows), set_labels), "", "</details>", ""]
    # a path in the command is written as given, undecodable bytes (surrogate escapes) included
    with writing(out / "report.md"):
        (out / "report.md").write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    return summary


__all__ = ["OVERALL", "PAIR", "PLOT_FILE", "compare", "comparison_table", "pipeline_table", "plot_comparison",
           "write_report"]
