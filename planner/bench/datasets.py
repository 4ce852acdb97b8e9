"""COAT question-set generator: Task-u, Task-0, Task-1, Task-2, Full-ideal and Full-moderate.

The sets are regenerated from the COAT annotations (the recipes follow the COAT paper and its generator
code) because COAT's own generator hangs on Python 3.11 and depends on the hash seed. Every question is a
:class:`planner.schemas.Question`.

Recipes (``n`` = options per question; variations are numbered from 1 in the order listed):

- ``task_u`` (4 variations, n = 2, 3, 4, 5): "which object can be described as '<phrase>'". Correct: an object
  of the utility (pool ``utility``); distractors: objects that are neither objects of this utility nor
  context objects of one of its tasks (pool ``other``). 500 questions per variation, spread over utilities
  in proportion to their object counts (floor, remainder to the last utility), as COAT does.
- ``task0`` (4 variations, n = 2..5): correct: a context object of the combination (``context``);
  distractors: utility objects of the same utility that are not context objects (``concept``), and when
  there are fewer than n-1 of them, all of them plus objects of other utilities (``random``). Target 10,000
  per variation, split over utilities by object count (as Task-u) and evenly over each utility's tasks
  (remainder to the last task). When there are m >= n-1 concept objects, a combination gets at most
  C(m, n-1) questions, the number of distinct concept-distractor sets: this is COAT's own cap, and it is
  what brings the total to the paper's ~15.5K (capping by distinct option sets, which also counts the
  choice of the correct object, would give ~21K).
- ``task1`` (12 variations): correct: an ideal configuration (``ideal``); distractors: non-ideal
  configurations of the same object ("same", S) or of another context object of the combination
  ("different", D), mixes (n; S, D): 1 (5; 4,0) 2 (5; 0,4) 3 (5; 2,2) 4 (4; 3,0) 5 (4; 0,3) 6 (4; 1,2)
  7 (4; 2,1) 8 (3; 2,0) 9 (3; 0,2) 10 (3; 1,1) 11 (2; 1,0) 12 (2; 0,1).
- ``task2`` (14 variations): options from the combination's moderate and bad pools; the correct option is
  the moderate option with the lowest total penalty, and option sets whose lowest moderate total is tied
  are never drawn. Mixes (moderate, bad): 1 (3,2) 2 (2,3) 3 (4,1) 4 (1,4) 5 (5,0) 6 (2,0) 7 (1,1) 8 (2,1)
  9 (1,2) 10 (3,0) 11 (3,1) 12 (1,3) 13 (2,2) 14 (4,0).
- ``full_ideal`` / ``full_moderate`` (31 variations each): the (context, concept, random) distractor mixes
  of ``templates.json`` ``full_pipeline_variations``, ordered by option count (2, 3, 4, 5) and then as
  listed there. ``full_ideal``: correct = an ideal configuration; context distractors = every non-ideal
  configuration of a context object. ``full_moderate``: correct = a moderate configuration; context
  distractors = moderate entries with a strictly higher total penalty and every bad entry (bad totals are
  all above every moderate total), so the correct option is the unique penalty minimum among the context
  options. Concept distractors: any configuration of a utility object that is not a context object;
  random: any configuration of an object of another utility that is not a context object.

Two annotation quirks are handled so that every question keeps exactly one right answer: ``Desktop`` is a
context object of "time / tell me the time" without being listed under ``time`` in ``objects.json``, so
"random" / "other" distractors exclude the combination's (Task-u: any of the utility's tasks') context
objects; and the one configuration that is both ideal and in a pool (Lettuce, Hot, free, clean for "eating
/ giving raghav something hot to eat") counts as ideal and is left out of the pools. Unpooled context
configurations that the cost model prices at 0/0 (19, e.g. a Ceramic plate for "serving cake", whose ideal
plates are Metal or Plastic) are never distractors either, so in every set with states the correct option
is the strict cost-model minimum among the context-object options.

Question counts. Task-1, Task-2 and both full sets give each combination a share of the per-variation
target (5,000) in proportion to its moderate+bad pool size (floor, then the remainder spread one by one
over the combinations in file order), as COAT does. A combination whose pools cannot fill a mix gets no
question in that variation, and no combination gets more questions than it has distinct valid option sets.

Sampling. Within a combination, each question is a uniform draw, without replacement, from the valid option
sets: the correct option is picked with probability proportional to the number of distractor sets it
admits, then each distractor group uniformly. So option sets never repeat within a (variation, utility,
task); the same objects can appear in questions about different combinations, whose wording differs.
Options are shuffled, so the correct letter is uniform over positions.

Pool labels and penalties (for Bad Rate). Object-only sets (Task-u, Task-0) have ``state=None`` and no
penalties. In the sets with states, every option whose object is a context object carries penalties:
label ``ideal`` with (0, 0) for an ideal configuration; else the annotated ``time_penalty`` /
``material_penalty`` and label ``moderate`` / ``bad`` when the configuration is in the combination's
pools; else label ``context`` with penalties from :class:`planner.knowledge.cost.CostModel` (the non-ideal
configurations the annotators did not pool; they occur in Task-1 and Full-ideal only). Concept and random
options have no penalties (the object is wrong for the task). Bad Rate = share of answers whose option has
``pool == "bad"``; a stricter rate may also count ``context`` options the cost model calls bad (time >= 500
or material == 500).

Determinism. Each (set, variation, combination) draws from its own ``random.Random`` seeded with the first
8 bytes of ``sha256(f"{seed}:{set}:{variation}:{utility}:{task}")``; every pool is sorted before sampling
and nothing iterates over a Python set, so the output is byte-identical across processes and hash seeds
(tested), and across Python versions as far as ``random.Random``'s integer methods (``randrange``,
``sample``, ``shuffle``; no floats are drawn) stay stable, as they have since Python 3.2. Building one set
or variation alone gives the same questions as building all.

Output layout (:func:`write_sets`): ``<out>/<set>/variation_<N>.jsonl``, one question per line (pydantic
JSON without ``null`` fields: an absent ``state`` or penalty means None), plus ``<out>/manifest.json``
(seed, generator version, counts, data-file and output checksums).

Example:
    >>> from planner.knowledge import load_knowledge
    >>> kb = load_knowledge()                                              # doctest: +SKIP
    >>> qs = build_sets(kb, seed=0, sets=["task_u"], progress=False)       # doctest: +SKIP
    >>> len(qs[("task_u", 1)])                                             # doctest: +SKIP
    500
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..arguments import COUNT, SEED, check_number, data_dir_of
from ..errors import ConfigError, DataError, DataNotFoundError, UnknownIdError
from ..paths import data_checksums, file_sha256, read_json, read_lines, writing
from ..results import ResultsDir, RunIdentity, fingerprint
from ..schemas import QUESTION_SETS, Question

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase
    from ..knowledge.cost import CostModel

from .sampling import (
    DEFAULT_SIZES,
    SIZE_KEY,
    TASK1_MIXES,
    TASK2_MIXES,
    SamplingIndex,
    Variation,
    build_variation,
    check_set,
    question_count,
    strata_for,
    targets_for,
    variations,
)

logger = logging.getLogger(__name__)

GENERATOR_VERSION = "1.0"
"""Bumped whenever the same seed would produce different questions."""

PAPER_TOTALS: dict[str, int] = {"task_u": 2_000, "task0": 15_500, "task1": 58_700, "task2": 68_900}
"""Question totals reported by the COAT paper (approximate; the full-pipeline sets have none)."""

MANIFEST = "manifest.json"

# ---------------------------------------------------------------- public API


def set_sizes(kb: KnowledgeBase, overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Each set's per-variation question target: ``templates.json`` ``sizes``, then ``overrides``."""
    sizes = dict(DEFAULT_SIZES)
    raw = getattr(kb.templates, "sizes", None) or {}
    items = raw.items() if isinstance(raw, Mapping) else vars(raw).items()
    sizes.update({k: int(v) for k, v in items if k in sizes})
    out = {s: sizes[SIZE_KEY[s]] for s in QUESTION_SETS}
    for k, v in (overrides or {}).items():
        check_set(k)
        if int(v) < 0:
            raise ConfigError(f"size for {k!r} must be >= 0, got {v}")
        out[k] = int(v)
    return out


def _select_sets(sets: Iterable[str] | None) -> list[str]:
    if sets is None:
        return list(QUESTION_SETS)
    wanted = list(dict.fromkeys(sets))
    for s in wanted:
        check_set(s)
    return [s for s in QUESTION_SETS if s in wanted]


def iter_sets(
    kb: KnowledgeBase,
    seed: int = 0,
    sets: Iterable[str] | None = None,
    *,
    only: Mapping[str, Iterable[int]] | None = None,
    sizes: Mapping[str, int] | None = None,
    progress: bool = False,
    cost: CostModel | None = None,
) -> Iterator[tuple[tuple[str, int], list[Question]]]:
    """Generate the question sets one variation at a time (memory stays at one variation).

    Args:
        kb: Loaded knowledge base (:func:`planner.knowledge.load_knowledge`).
        seed: Master seed; every (set, variation, combination) derives its own stream from it.
        sets: Set names to build (default: all of ``QUESTION_SETS``), built in ``QUESTION_SETS`` order.
        only: Optional ``{set: [variation numbers]}`` restricting which variations are built.
        sizes: Optional ``{set: per-variation target}`` overriding ``templates.json`` ``sizes``.
        progress: Show a tqdm progress bar over variations.
        cost: Cost model for the penalties of unpooled context configurations (default: built from ``kb``).

    Yields:
        ``((set, variation), questions)`` in set order, then variation order.

    Raises:
        UnknownIdError: for an unknown set or variation number.
        ConfigError: for a negative size.
    """
    chosen = _select_sets(sets)
    size = set_sizes(kb, sizes)
    plan: list[Variation] = []
    for s in chosen:
        vs = variations(kb, s)
        if only and s in only:
            numbers = {v.number: v for v in vs}
            for n in only[s]:
                if n not in numbers:
                    raise UnknownIdError(f"{s} has no variation {n}; valid: 1..{len(vs)}")
            vs = tuple(numbers[n] for n in sorted(set(only[s])))
        plan += vs
    idx = SamplingIndex(kb, cost)
    bar = None
    if progress:
        from ..progress import progress as progress_bar

        bar = progress_bar(total=len(plan), unit="variation", desc="question sets")
    try:
        for var in plan:
            if bar is not None:
                bar.set_postfix_str(f"{var.set} v{var.number}")
            qs = build_variation(idx, var, seed, size[var.set])
            logger.debug("%s variation %d: %d questions", var.set, var.number, len(qs))
            yield (var.set, var.number), qs
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def plan_counts(
    kb: KnowledgeBase,
    sets: Iterable[str] | None = None,
    *,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[tuple[str, int], int]:
    """Question counts a build would produce, computed from the option-set counts without sampling.

    A combination always gets ``min(target, cap, number of valid option sets)`` questions, so this is
    exact and takes a fraction of a second per set.

    Args:
        kb: Loaded knowledge base.
        sets: Set names (default: all).
        sizes: Optional per-variation target overrides.
        cost: Optional cost model.

    Returns:
        ``{(set, variation): count}`` in build order.
    """
    idx = SamplingIndex(kb, cost)
    size = set_sizes(kb, sizes)
    out: dict[tuple[str, int], int] = {}
    for s in _select_sets(sets):
        for var in variations(kb, s):
            targets = targets_for(idx, s, size[s])
            out[s, var.number] = sum(question_count(n, *strata_for(idx, var, u, t or "")) for u, t, n in targets)
    return out


def build_sets(
    kb: KnowledgeBase,
    seed: int = 0,
    sets: Iterable[str] | None = None,
    progress: bool = True,
    *,
    only: Mapping[str, Iterable[int]] | None = None,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[tuple[str, int], list[Question]]:
    """Build question sets in memory.

    All six sets hold about 455K questions (~2.5 GB as pydantic objects); prefer :func:`write_sets`
    (which streams) or :func:`iter_sets` for the full build.

    Args:
        kb: Loaded knowledge base.
        seed: Master seed.
        sets: Set names (default: all).
        progress: Show a progress bar.
        only: Optional ``{set: [variation numbers]}`` restriction.
        sizes: Optional per-variation target overrides.
        cost: Optional cost model (default: built from ``kb``).

    Returns:
        ``{(set, variation): [Question, ...]}`` in build order.
    """
    return dict(iter_sets(kb, seed, sets, only=only, sizes=sizes, progress=progress, cost=cost))




def variation_path(out: str | os.PathLike[str], set_name: str, variation: int) -> Path:
    """Path of one variation's JSONL file under an output directory."""
    return Path(out) / set_name / f"variation_{variation}.jsonl"


def write_sets(
    kb: KnowledgeBase,
    out: str | os.PathLike[str],
    seed: int = 0,
    sets: Iterable[str] | None = None,
    progress: bool = True,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    sizes: Mapping[str, int] | None = None,
    cost: CostModel | None = None,
) -> dict[str, Any]:
    """Build question sets and write them as JSONL files plus ``manifest.json``, through the results writer.

    The directory is locked for the build (a second build into it is refused at once) and records the build's
    identity (:func:`build_identity`: seed, generator version, sizes and the COAT data) in ``results.run.json``. A
    directory built with another identity is refused, naming both; one built with the same identity is added to:
    its manifest entries for sets not built now are kept, and a question file already there is kept (it holds what
    this build would write; one that does not is a DataError, never overwritten). Each file is written to a
    temporary name and renamed, so an interrupted build never leaves a truncated variation.

    Args:
        kb: Loaded knowledge base.
        out: Output directory (created if needed).
        seed: Master seed.
        sets: Set names (default: all).
        progress: Show a progress bar.
        data_dir: Data root for the checksums (default: the one the knowledge base was loaded from; another one is
            a ConfigError).
        sizes: Optional per-variation target overrides.
        cost: Optional cost model.

    Returns:
        The manifest written.

    Raises:
        ConfigError: another build holds ``out``, or it holds question sets of another build.
        DataError: a question file there differs from what this build writes.
    """
    check_number("seed", seed, SEED)
    root = Path(out)
    checksums = data_checksums(data_dir_of(kb, data_dir))  # the questions' data: kb= and data_dir= of one directory
    manifest: dict[str, Any] = {
        "generator": "planner.bench.datasets",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "sizes": set_sizes(kb, sizes),
        "data_checksums": checksums,
        "counts": {},
        "files": {},
    }
    with ResultsDir(root, build_identity(manifest), survey=_survey) as results:
        old = _read_manifest(root)
        if results.resumed and old is not None:
            manifest["counts"] = old.get("counts", {})
            manifest["files"] = old.get("files", {})
        built = _select_sets(sets)
        for s in built:  # a rebuilt set replaces all of its old entries
            manifest["counts"].pop(s, None)
            for f in [f for f in manifest["files"] if f.startswith(f"{s}/")]:
                del manifest["files"][f]
        for (s, v), qs in iter_sets(kb, seed, built, sizes=sizes, progress=progress, cost=cost):
            path = variation_path(root, s, v)
            data = "".join(q.model_dump_json(exclude_none=True) + "\n" for q in qs).encode("utf-8")
            sha = hashlib.sha256(data).hexdigest()
            if not path.exists():
                _write_whole(path, data)
            elif file_sha256(path) != sha:
                raise DataError(path, "", f"differs from the questions this build writes (seed {seed}, generator "
                                f"{GENERATOR_VERSION}, the same data): changed since it was built; move it away and "
                                "build again")
            manifest["counts"].setdefault(s, {})[str(v)] = len(qs)
            manifest["files"][path.relative_to(root).as_posix()] = {"questions": len(qs), "sha256": sha}
        manifest["counts"] = {s: manifest["counts"][s] for s in QUESTION_SETS if s in manifest["counts"]}
        manifest["totals"] = {s: sum(c.values()) for s, c in manifest["counts"].items()}
        manifest["files"] = dict(sorted(manifest["files"].items()))
        _write_whole(root / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode("utf-8"))
    logger.info("wrote %d questions to %s", sum(manifest["totals"].values()), root)
    return manifest


def build_identity(manifest: Mapping[str, Any]) -> RunIdentity:
    """The identity of a build (what decides every question): its seed, generator version and sizes, and the COAT
    data's checksums, read from a manifest (or the one being written)."""
    config = {"results": "question sets", **{k: manifest.get(k) for k in ("generator_version", "seed", "sizes")}}
    return RunIdentity(config, fingerprint(manifest.get("data_checksums") or {}), of="data")


def _survey(root: Path) -> tuple[bool, RunIdentity | None]:
    """Whether a directory holds question sets, and the identity of their build when a manifest says it."""
    old = _read_manifest(root)
    return (old is not None or any(root.glob("*/variation_*.jsonl")),
            build_identity(old) if old is not None else None)


def _write_whole(path: Path, data: bytes) -> None:
    """Write a file whole: a temporary name renamed over it, so it is never seen half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with writing(tmp):
        tmp.write_bytes(data)
    os.replace(tmp, path)


def _read_manifest(root: Path) -> dict[str, Any] | None:
    path = root / MANIFEST
    if not path.is_file():
        return None
    data = read_json(path, missing="no manifest.json; rebuild with `coat datasets build`")
    if not isinstance(data, dict):
        raise DataError(path, "", "expected a JSON object")
    _check_manifest_numbers(path, data)
    return data


def _check_manifest_numbers(path: Path, data: dict[str, Any]) -> None:
    """The manifest's seed and question counts are what a build writes: a seed, and counts >= 0 per variation."""
    if "seed" in data and SEED.problem(data["seed"]):
        raise DataError(path, "seed", f"{SEED.problem(data['seed'])}; delete it and rebuild")
    for key in ("counts", "totals"):
        table = data.get(key, {})
        if not isinstance(table, dict):
            raise DataError(path, key, "expected an object per question set; delete it and rebuild")
        for s, per in table.items():
            cells = per.items() if key == "counts" and isinstance(per, dict) else [("", per)]
            if key == "counts" and not isinstance(per, dict):
                raise DataError(path, f"{key}/{s}", "expected an object of variation -> questions")
            for v, n in cells:
                where = f"{key}/{s}" + (f"/{v}" if v else "")
                if key == "counts" and not str(v).isdigit():
                    raise DataError(path, where, f"a variation is a number >= 0, got {v!r}; delete it and rebuild")
                if COUNT.problem(n):
                    raise DataError(path, where, f"question count {COUNT.problem(n)}; delete it and rebuild")


def read_manifest(out: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return the manifest of an output directory, or None when it has none.

    Raises:
        DataError: if the manifest exists but is not valid JSON.
    """
    return _read_manifest(Path(out))


def _variation_files(root: Path, set_name: str | None, variation: int | None) -> list[Path]:
    if set_name is not None:
        check_set(set_name)
    sets = [set_name] if set_name is not None else [s for s in QUESTION_SETS if (root / s).is_dir()]
    files: list[Path] = []
    for s in sets:
        if variation is not None:
            path = variation_path(root, s, variation)
            if not path.is_file():
                raise DataNotFoundError(f"no question file {path}; build it with `coat datasets build --set {s}`")
            files.append(path)
            continue
        found = []
        for p in (root / s).glob("variation_*.jsonl"):
            num = p.stem.removeprefix("variation_")
            if num.isdigit():
                found.append((int(num), p))
        if set_name is not None and not found:
            raise DataNotFoundError(
                f"no question files under {root / s}; build them with `coat datasets build --set {s}`"
            )
        files += [p for _, p in sorted(found)]
    if not files:
        raise DataNotFoundError(f"no question files under {root}; build them with `coat datasets build --out {root}`")
    return files


def load_questions(
    path: str | os.PathLike[str], set: str | None = None, variation: int | None = None
) -> list[Question]:
    """Load questions from one JSONL file or from an output directory of :func:`write_sets`.

    Args:
        path: A ``.jsonl`` file, or a directory laid out as ``<set>/variation_<N>.jsonl``.
        set: Only this set (for a directory: only its files; for a file: filter).
        variation: Only this variation number.

    Returns:
        The questions, in file order (sets in ``QUESTION_SETS`` order, variations in numeric order).

    Raises:
        DataNotFoundError: if the path, or the requested set / variation file, does not exist.
        DataError: for a line that is not a valid question, naming the file and line number.
        UnknownIdError: for an unknown set name.
    """
    root = Path(path)
    if root.is_dir():
        files = _variation_files(root, set, variation)
    elif root.exists():  # a file (a device or FIFO is refused when read)
        if set is not None:
            check_set(set)
        files = [root]
    else:
        raise DataNotFoundError(f"question file or directory {root} does not exist")
    out: list[Question] = []
    for file in files:
        for lineno, line in read_lines(file):  # bounded, UTF-8 checked per line
            try:
                q = Question.model_validate_json(line)
            except ValidationError as e:
                first = e.errors()[0]
                where = ".".join(str(x) for x in first.get("loc", ())) or "<line>"
                raise DataError(file, f"line {lineno}", f"invalid question at {where}: {first.get('msg')}") from e
            if (set is None or q.set == set) and (variation is None or q.variation == variation):
                out.append(q)
    return out


__all__ = [
    "GENERATOR_VERSION",
    "MANIFEST",
    "PAPER_TOTALS",
    "TASK1_MIXES",
    "TASK2_MIXES",
    "Variation",
    "build_identity",
    "build_sets",
    "data_checksums",
    "iter_sets",
    "load_questions",
    "plan_counts",
    "read_manifest",
    "set_sizes",
    "variation_path",
    "variations",
    "write_sets",
]
