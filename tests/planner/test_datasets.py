"""COAT question-set generator: recipes, invariants, determinism, files, CLI.

The small sets (Task-u, Task-0) are built in full; for the big ones a few variations per set are built
(each takes a fraction of a second) and counts are checked with ``plan_counts``, which is exact. The full
build of every set is behind ``-m slow``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from planner.bench.datasets import (
    MANIFEST,
    PAPER_TOTALS,
    TASK1_MIXES,
    TASK2_MIXES,
    build_sets,
    iter_sets,
    load_questions,
    plan_counts,
    read_manifest,
    variation_path,
    variations,
    write_sets,
)
from planner.cli import main
from planner.errors import ConfigError, DataError, DataNotFoundError, UnknownIdError
from planner.knowledge import KnowledgeBase, load_knowledge
from planner.knowledge.cost import CostModel
from planner.schemas import QUESTION_SETS, VARIABLES, PhysicalState, Question

REPO = Path(__file__).resolve().parents[2]

# variations built for the big sets in the default run: every option count and every kind of mix
SAMPLE = {
    "task1": [3, 6, 10, 12],
    "task2": [1, 7, 8, 14],
    "full_ideal": [3, 10, 29],
    "full_moderate": [2, 11, 20],
}
# chi-square critical values at p = 0.001 for df = n_options - 1
CHI2_CRIT = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47}


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> KnowledgeBase:
    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def cost(kb: KnowledgeBase) -> CostModel:
    return CostModel(kb)


@pytest.fixture(scope="module")
def built(kb: KnowledgeBase) -> dict[tuple[str, int], list[Question]]:
    """Task-u and Task-0 in full, plus SAMPLE variations of the other sets (seed 0)."""
    out = build_sets(kb, 0, ["task_u", "task0"], progress=False)
    out.update(build_sets(kb, 0, list(SAMPLE), progress=False, only=SAMPLE))
    return out


def _of(built: dict[tuple[str, int], list[Question]], set_name: str) -> list[Question]:
    return [q for (s, _), qs in built.items() if s == set_name for q in qs]


def _key(obj: str, state: PhysicalState | None) -> tuple[str, ...]:
    # plain tuples: hashing frozen pydantic states is slow over 100K options
    return (obj,) if state is None else (obj, *(getattr(state, v).value for v in VARIABLES))


def _lookups(kb: KnowledgeBase) -> tuple[dict[Any, set[Any]], dict[Any, dict[Any, tuple[str, int, int]]]]:
    """Per combination: the ideal keys, and pool entry key -> (label, time, material)."""
    ideal, pooled = {}, {}
    for c in kb.combinations:
        ut = (c.utility, c.task)
        ideal[ut] = {_key(x.object, x.state) for x in kb.ideal(*ut)}
        pooled[ut] = {
            _key(e.config.object, e.config.state): (lab, e.time_penalty, e.material_penalty)
            for lab in ("moderate", "bad")
            for e in getattr(kb, lab)(*ut)
        }
    return ideal, pooled


def _dump(qs: Iterable[Question]) -> str:
    return "".join(q.model_dump_json(exclude_none=True) + "\n" for q in qs)


# ---------------------------------------------------------------- variations and counts


def test_variations_follow_the_recipes(kb: KnowledgeBase) -> None:
    n_vars = {s: len(variations(kb, s)) for s in QUESTION_SETS}
    assert n_vars == {"task_u": 4, "task0": 4, "task1": 12, "task2": 14, "full_ideal": 31, "full_moderate": 31}
    assert [v.n_options for v in variations(kb, "task_u")] == [2, 3, 4, 5]
    assert [(v.n_options, v.mix) for v in variations(kb, "task1")][2] == (5, (("same", 2), ("different", 2)))
    assert [v.mix[0][1] + v.mix[1][1] for v in variations(kb, "task2")] == [m + b for m, b in TASK2_MIXES]
    assert len(TASK1_MIXES) == 12
    # full-pipeline variations: option counts ascending, mixes in templates.json order
    expected = [
        (n, tuple(mix))
        for n in sorted(kb.templates.full_pipeline_variations)
        for mix in kb.templates.full_pipeline_variations[n]
    ]
    got = [(v.n_options, tuple(k for _, k in v.mix)) for v in variations(kb, "full_moderate")]
    assert got == expected
    assert variations(kb, "full_ideal")[9].label == "1 context + 1 concept + 1 random"
    with pytest.raises(UnknownIdError, match="valid sets"):
        variations(kb, "task3")


def test_counts_within_5_percent_of_the_paper(kb: KnowledgeBase) -> None:
    counts = plan_counts(kb)
    totals = Counter()
    for (s, _), n in counts.items():
        totals[s] += n
    for s, paper in PAPER_TOTALS.items():
        assert abs(totals[s] - paper) / paper < 0.05, (s, totals[s], paper)
    assert all(counts["task_u", v] == 500 for v in (1, 2, 3, 4))
    # no variation is empty, and none exceeds its target
    assert all(0 < n <= 5000 for (s, _), n in counts.items() if s not in ("task_u", "task0"))
    assert all(0 < n <= 10_000 for (s, _), n in counts.items() if s == "task0")


def test_plan_counts_match_what_is_built(kb: KnowledgeBase, built: dict[tuple[str, int], list[Question]]) -> None:
    counts = plan_counts(kb)
    for key, qs in built.items():
        assert len(qs) == counts[key], key


def test_sizes_override_and_bad_input(kb: KnowledgeBase) -> None:
    small = build_sets(kb, 0, ["task2"], progress=False, only={"task2": [7]}, sizes={"task2": 200})
    assert 150 <= len(small["task2", 7]) <= 200
    with pytest.raises(UnknownIdError, match="no variation 15"):
        build_sets(kb, 0, ["task2"], progress=False, only={"task2": [15]})
    with pytest.raises(UnknownIdError):
        build_sets(kb, 0, ["task9"], progress=False)


# ---------------------------------------------------------------- invariants


def test_every_question_is_well_formed(built: dict[tuple[str, int], list[Question]], kb: KnowledgeBase) -> None:
    for (s, v), qs in built.items():
        var = variations(kb, s)[v - 1]
        ids = [q.id for q in qs]
        assert len(set(ids)) == len(ids)
        for q in qs:
            assert q.set == s and q.variation == v and len(q.options) == var.n_options
            assert (q.task is None) == (s == "task_u")
            if s in ("task_u", "task0"):
                assert all(o.state is None for o in q.options)
            else:
                assert all(o.state is not None for o in q.options)
    q = built["task_u", 1][0]
    assert q.text == kb.templates.question_templates["task_u"].format(phrase=kb.templates.utility_phrases[q.utility])
    q = built["full_ideal", 3][0]
    assert q.text.startswith("Which of the following objects is best suitable as '")


def test_no_repeated_option_sets(built: dict[tuple[str, int], list[Question]]) -> None:
    for key, qs in built.items():
        seen = set()
        for q in qs:
            opts = frozenset(_key(o.object, o.state) for o in q.options)
            assert len(opts) == len(q.options), (key, q.id)  # no option twice in one question
            seen.add((q.utility, q.task, opts))
        assert len(seen) == len(qs), key


def test_task_u_has_exactly_one_object_of_the_utility(built, kb: KnowledgeBase) -> None:
    for q in _of(built, "task_u"):
        right = [o for o in q.options if q.utility in kb.utilities_of(o.object)]
        assert [o.letter for o in right] == [q.answer]
        assert {o.pool for o in q.options} == {"utility", "other"}
        assert q.option(q.answer).pool == "utility"
        # Desktop tells the time in COAT's oracle without being a `time` object: never a wrong answer there
        if q.utility == "time":
            assert "Desktop" not in [o.object for o in q.options]


def test_task0_has_exactly_one_context_object(built, kb: KnowledgeBase) -> None:
    for q in _of(built, "task0"):
        ctx = kb.context_objects(q.utility, q.task)
        assert [o.letter for o in q.options if o.object in ctx] == [q.answer]
        for o in q.options:
            if o.letter != q.answer:
                in_utility = o.object in kb.utility_objects(q.utility)
                assert o.pool == ("concept" if in_utility else "random")
    # random objects only top up when there are too few concept objects
    concept_count = {
        (c.utility, c.task): sum(o not in kb.context_objects(c.utility, c.task) for o in kb.utility_objects(c.utility))
        for c in kb.combinations
    }
    for q in _of(built, "task0"):
        pools = Counter(o.pool for o in q.options)
        assert pools["concept"] == min(concept_count[q.utility, q.task], len(q.options) - 1)


def test_task1_correct_is_ideal_and_distractors_are_not(built, kb: KnowledgeBase) -> None:
    ideals, pools = _lookups(kb)
    for (s, v), qs in built.items():
        if s != "task1":
            continue
        same, diff = (k for _, k in variations(kb, s)[v - 1].mix)
        for q in qs:
            ideal, pooled = ideals[q.utility, q.task], pools[q.utility, q.task]
            correct = q.option(q.answer)
            assert correct.pool == "ideal" and _key(correct.object, correct.state) in ideal
            wrong = [o for o in q.options if o.letter != q.answer]
            assert all(_key(o.object, o.state) not in ideal for o in wrong)
            for o in wrong:
                assert o.pool == pooled.get(_key(o.object, o.state), ("context",))[0]
            assert sum(o.object == correct.object for o in wrong) == same
            assert sum(o.object != correct.object for o in wrong) == diff


def test_task2_options_come_from_the_pools(built, kb: KnowledgeBase) -> None:
    _, pools = _lookups(kb)
    for (s, v), qs in built.items():
        if s != "task2":
            continue
        (_, m), (_, b) = variations(kb, s)[v - 1].mix
        for q in qs:
            entries = pools[q.utility, q.task]
            for o in q.options:
                assert entries[_key(o.object, o.state)] == (o.pool, o.time_penalty, o.material_penalty)
            assert Counter(o.pool for o in q.options) == Counter({"moderate": m, "bad": b}) - Counter()
            assert q.option(q.answer).pool == "moderate"


def test_full_sets_draw_from_context_concept_and_random(built, kb: KnowledgeBase) -> None:
    ideals, _ = _lookups(kb)
    for (s, v), qs in built.items():
        if not s.startswith("full"):
            continue
        (_, a), (_, b), (_, r) = variations(kb, s)[v - 1].mix
        for q in qs:
            ctx = kb.context_objects(q.utility, q.task)
            correct = q.option(q.answer)
            assert correct.object in ctx
            assert correct.pool == ("ideal" if s == "full_ideal" else "moderate")
            wrong = [o for o in q.options if o.letter != q.answer]
            assert sum(o.object in ctx for o in wrong) == a
            concept = [o for o in wrong if o.pool == "concept"]
            rand = [o for o in wrong if o.pool == "random"]
            assert len(concept) == b and len(rand) == r
            assert all(o.object in kb.utility_objects(q.utility) and o.object not in ctx for o in concept)
            assert all(o.object not in kb.utility_objects(q.utility) and o.object not in ctx for o in rand)
            assert all(o.time_penalty is None for o in concept + rand)
            if s == "full_ideal":
                ideal = ideals[q.utility, q.task]
                assert [o.letter for o in q.options if _key(o.object, o.state) in ideal] == [q.answer]


def test_correct_option_is_the_strict_cost_model_minimum(built, kb: KnowledgeBase, cost: CostModel) -> None:
    """Every option of a context object carries penalties that agree with the cost model, and the
    correct option has the unique lowest total among them (ties are never generated)."""
    checked = 0
    for (s, _), qs in built.items():
        if s in ("task_u", "task0"):
            continue
        for q in qs:
            ctx = kb.context_objects(q.utility, q.task)
            totals = {}
            for o in q.options:
                if o.object not in ctx:
                    continue
                p = cost.penalty(q.utility, q.task, o.config())
                assert (o.time_penalty, o.material_penalty) == (p.time_penalty, p.material_penalty), (q.id, o)
                if o.pool in ("ideal", "moderate", "bad"):
                    assert o.pool == p.label, (q.id, o)
                totals[o.letter] = p.total
            best = min(totals.values())
            assert totals[q.answer] == best and list(totals.values()).count(best) == 1, q.id
            checked += 1
    assert checked > 20_000


def test_lettuce_that_is_both_ideal_and_pooled_is_not_a_task2_option(kb: KnowledgeBase) -> None:
    u, t = "eating", "giving raghav something hot to eat"
    both = ("Lettuce", "light", "Food", "Hot", "free", "clean")
    assert both in {_key(c.object, c.state) for c in kb.ideal(u, t)}
    assert both in {_key(e.config.object, e.config.state) for e in kb.moderate(u, t)}
    qs = build_sets(kb, 0, ["task2", "full_moderate"], progress=False, only={"task2": [5, 6], "full_moderate": [11]})
    seen = {
        _key(o.object, o.state) for qs_ in qs.values() for q in qs_ if (q.utility, q.task) == (u, t) for o in q.options
    }
    assert len(seen) > 20 and both not in seen


def test_correct_letter_is_uniform_over_positions(built) -> None:
    by_n: dict[tuple[str, int], Counter[str]] = {}
    for (s, _), qs in built.items():
        for q in qs:
            by_n.setdefault((s, len(q.options)), Counter())[q.answer] += 1
    for (s, n), counts in by_n.items():
        total = sum(counts.values())
        expected = total / n
        chi2 = sum((counts[letter] - expected) ** 2 / expected for letter in "ABCDE"[:n])
        assert chi2 < CHI2_CRIT[n - 1], (s, n, dict(counts))


# ---------------------------------------------------------------- determinism


def test_same_seed_same_questions_other_seed_different(kb: KnowledgeBase) -> None:
    small = {"only": {"task2": [7]}, "sizes": {"task2": 1000}, "progress": False}
    a = build_sets(kb, 0, ["task_u", "task2"], **small)
    b = build_sets(kb, 0, ["task_u", "task2"], **small)
    c = build_sets(kb, 1, ["task_u", "task2"], **small)
    assert _dump(q for qs in a.values() for q in qs) == _dump(q for qs in b.values() for q in qs)
    for key in a:
        assert _dump(a[key]) != _dump(c[key]), key
        assert len(a[key]) == len(c[key])  # counts never depend on the seed


def test_one_variation_alone_equals_the_same_variation_in_a_full_set(kb: KnowledgeBase, built) -> None:
    alone = build_sets(kb, 0, ["task0"], progress=False, only={"task0": [3]})
    assert _dump(alone["task0", 3]) == _dump(built["task0", 3])


def test_bytes_identical_in_a_process_with_another_hash_seed(kb: KnowledgeBase, data_dir: Path, tmp_path: Path) -> None:
    here = tmp_path / "here"
    write_sets(kb, here, seed=3, sets=["task_u", "task0"], progress=False)
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO), "COAT_DATA_DIR": str(data_dir)}
    there = tmp_path / "there"
    cmd = [sys.executable, "-m", "planner.cli", "datasets", "build", "--seed", "3", "--out", str(there)]
    cmd += ["--set", "task_u", "--set", "task0", "--no-progress"]
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=120)
    files = sorted(p.relative_to(here) for p in here.rglob("*") if p.is_file())
    assert len(files) == 10  # 8 variations, the manifest and the build's identity (results.run.json)
    for rel in files:
        assert (here / rel).read_bytes() == (there / rel).read_bytes(), rel


# ---------------------------------------------------------------- files


def test_write_and_load_round_trip(kb: KnowledgeBase, built, tmp_path: Path, data_dir: Path) -> None:
    manifest = write_sets(kb, tmp_path, seed=0, sets=["task_u"], progress=False)
    assert manifest["seed"] == 0 and manifest["totals"] == {"task_u": 2000}
    assert manifest["counts"]["task_u"] == {"1": 500, "2": 500, "3": 500, "4": 500}
    assert set(manifest["data_checksums"]) >= {"oracle.json", "task-2/pouch_suboptimal.json", "templates.json"}
    assert read_manifest(tmp_path) == json.loads((tmp_path / MANIFEST).read_text())
    f = variation_path(tmp_path, "task_u", 2)
    assert manifest["files"]["task_u/variation_2.jsonl"]["questions"] == 500
    assert f.read_text() == _dump(built["task_u", 2])
    assert '"state"' not in f.read_text()  # None fields are left out
    assert load_questions(f) == built["task_u", 2]
    everything = load_questions(tmp_path)
    assert everything == [q for v in (1, 2, 3, 4) for q in built["task_u", v]]
    assert load_questions(tmp_path, set="task_u", variation=4) == built["task_u", 4]
    assert load_questions(f, variation=3) == []


def test_manifest_keeps_other_sets_only_for_the_same_build(kb: KnowledgeBase, tmp_path: Path) -> None:
    write_sets(kb, tmp_path, seed=0, sets=["task_u"], progress=False)
    m = write_sets(kb, tmp_path, seed=0, sets=["task0"], progress=False)
    assert list(m["counts"]) == ["task_u", "task0"]
    before = {f: f.read_bytes() for f in tmp_path.rglob("*") if f.is_file()}
    with pytest.raises(ConfigError, match="another run.*seed 0 there, 1 here"):  # never overwritten by another build
        write_sets(kb, tmp_path, seed=1, sets=["task0"], progress=False)
    assert {f: f.read_bytes() for f in tmp_path.rglob("*") if f.is_file()} == before


def test_load_errors_name_the_file_and_line(kb: KnowledgeBase, tmp_path: Path) -> None:
    write_sets(kb, tmp_path, seed=0, sets=["task_u"], progress=False)
    f = variation_path(tmp_path, "task_u", 1)
    lines = f.read_text().splitlines(keepends=True)
    f.write_text("".join(lines[:2]) + lines[2][:40] + "\n" + "".join(lines[3:]))
    with pytest.raises(DataError, match=r"variation_1\.jsonl: at line 3: invalid question"):
        load_questions(f)
    bad = json.loads(lines[0])
    bad["answer"] = "Z"
    f.write_text(json.dumps(bad) + "\n")
    with pytest.raises(DataError, match="line 1.*answer"):
        load_questions(tmp_path, set="task_u", variation=1)
    with pytest.raises(DataNotFoundError, match="--set task0"):
        load_questions(tmp_path, set="task0")
    with pytest.raises(DataNotFoundError):
        load_questions(tmp_path / "nowhere")
    with pytest.raises(UnknownIdError):
        load_questions(tmp_path, set="task7")


# ---------------------------------------------------------------- CLI


def test_cli_build_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    out = tmp_path / "qs"
    argv = ["datasets", "build", "--seed", "0", "--out", str(out), "--set", "task_u", "--no-progress"]
    assert main([*argv, "--data-dir", str(data_dir)]) == 0
    assert "wrote 2,000 questions (task_u)" in capsys.readouterr().out
    assert len(load_questions(out, set="task_u")) == 2000

    assert main(["datasets", "stats", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "task_u total" in text and "paper ~2,000 (+0.0%)" in text
    assert "task2" in text and "(not built)" in text

    assert main(["datasets", "stats", "--set", "task1", "--set", "task2"]) == 0
    text = capsys.readouterr().out
    assert "computed in memory" in text
    assert "task1 total" in text and "58,659" in text and "paper ~58,700" in text

    assert main(["datasets", "stats", "--out", str(tmp_path / "empty")]) == 1
    assert "no manifest.json" in capsys.readouterr().err
    assert main(["datasets"]) == 2


# ---------------------------------------------------------------- full build (slow)


@pytest.mark.slow
def test_full_build_invariants(kb: KnowledgeBase, cost: CostModel) -> None:
    counts = plan_counts(kb)
    for (s, v), qs in iter_sets(kb, 0):
        assert len(qs) == counts[s, v]
        seen = {(q.utility, q.task, frozenset(_key(o.object, o.state) for o in q.options)) for q in qs}
        assert len(seen) == len(qs)
        for q in qs:
            if s in ("task_u", "task0"):
                continue
            ctx = kb.context_objects(q.utility, q.task)
            totals = [cost.penalty(q.utility, q.task, o.config()).total for o in q.options if o.object in ctx]
            best = cost.penalty(q.utility, q.task, q.option(q.answer).config()).total
            assert best == min(totals) and totals.count(best) == 1, q.id


# ---------------------------------------------------------------- a set generated on demand


@pytest.mark.parametrize("set_name", QUESTION_SETS)
def test_a_set_generated_on_demand_is_the_built_set(kb: KnowledgeBase, set_name: str) -> None:
    from planner.bench.generated import generated_set

    size = 40 if set_name in ("task_u", "task0") else 25
    built = build_sets(kb, 4, [set_name], progress=False, sizes={set_name: size})
    lazy = generated_set(kb, set_name, 4, size=size)
    assert sorted(lazy) == [v for _, v in built]
    for (_, v), qs in built.items():
        assert len(lazy[v]) == len(qs)
        if qs:  # any question alone, then the whole variation, as the build made them
            assert lazy[v][len(qs) // 2] == qs[len(qs) // 2] and lazy[v][-1] == qs[-1]
        assert list(lazy[v]) == qs


def test_a_sample_of_a_set_generated_on_demand_and_its_fingerprint(kb: KnowledgeBase) -> None:
    from planner.bench.evaluate import load_set, sample_questions, set_fingerprint
    from planner.bench.generated import generated_set

    # a sample of the generated set is the sample of the whole one, at the set's real size
    full = load_set(kb, "task_u", seed=2)
    real = load_set(kb, "task_u", seed=2, lazy=True)
    assert sample_questions(real, 30, seed=5) == sample_questions(full, 30, seed=5)
    assert set_fingerprint(kb, real) == set_fingerprint(kb, load_set(kb, "task_u", seed=2, lazy=True))
    assert set_fingerprint(kb, real) != set_fingerprint(kb, load_set(kb, "task_u", seed=3, lazy=True))
    assert set_fingerprint(kb, real) != set_fingerprint(kb, load_set(kb, "task_u", seed=2, variation=1, lazy=True))
    with pytest.raises(UnknownIdError, match="no variation 9"):
        generated_set(kb, "task_u", 0, variation=9)
