"""Compile ``coat/templates.json`` from COAT-code's generator sources, parsed with :mod:`ast`, never run."""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError, DataError
from .sources import TEMPLATE_SOURCES

log = logging.getLogger(__name__)

_TEMPLATES_SOURCE_NOTE = (
    "COAT dataset generators (github.com/Ayush8120/COAT-code, thortils/data), facts needed to regenerate the benchmark"
)
_MIXES_COMMENT = (
    "options count -> list of (context, concept, random) distractor counts; one extra correct option is added"
)

# generator function -> templates.json key; both full-pipeline generators must use the same wording
_QUESTION_FUNCS: tuple[tuple[str, str, str], ...] = (
    ("task_u", "task_u", "u_task_create_object_level_qna"),
    ("task_0", "task_012", "task_0_create_object_level_qna"),
    ("task_1", "task_012", "task_1_ideal_config_qna"),
    ("task_2", "task_012", "task_2_subop_config_qna"),
    ("full", "full", "task_f_ideal_config_qna"),
    ("full", "full", "task_f_mod_config_qna"),
)


def _parse(source: str, where: str) -> ast.Module:
    try:
        return ast.parse(source, filename=where)
    except SyntaxError as e:
        raise DataError(where, "", f"not parseable Python: {e.msg} (line {e.lineno})") from e


def _literal_assign(tree: ast.Module, name: str, where: str) -> Any:
    """Value of the module-level ``name = <literal>`` (evaluated with ast.literal_eval, never executed)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError as e:
                raise DataError(where, name, f"not a literal: {e}") from e
    raise DataError(where, name, "no module-level assignment found")


def _placeholder(node: ast.FormattedValue, where: str, key: str) -> str:
    v = node.value
    if node.conversion != -1 or node.format_spec is not None:
        raise DataError(where, key, "f-string placeholder with a conversion or format spec")
    if isinstance(v, ast.Name) and v.id == "cat":
        return "{utility}"
    if isinstance(v, ast.Name) and v.id == "ques":
        return "{task}"
    if (
        isinstance(v, ast.Subscript)
        and isinstance(v.value, ast.Name)
        and v.value.id == "phrases"
        and isinstance(v.slice, ast.Name)
        and v.slice.id == "cat"
    ):
        return "{phrase}"
    raise DataError(where, key, f"unexpected f-string placeholder {{{ast.unparse(v)}}}")


def _question_template(tree: ast.Module, func: str, where: str) -> str:
    """The wording of ``question = f"..."`` in generator ``func``, as a str.format template."""
    key = f"{func}.question"
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func), None)
    if fn is None:
        raise DataError(where, func, "generator function not found")
    found: list[str] = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.JoinedStr)):
            continue
        if not any(isinstance(t, ast.Name) and t.id == "question" for t in node.targets):
            continue
        parts: list[str] = []
        for part in node.value.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value.replace("{", "{{").replace("}", "}}"))
            elif isinstance(part, ast.FormattedValue):
                parts.append(_placeholder(part, where, key))
            else:
                raise DataError(where, key, f"unexpected f-string part {ast.dump(part)}")
        found.append("".join(parts))
    distinct = list(dict.fromkeys(found))
    if len(distinct) != 1:
        raise DataError(where, key, f"expected one question f-string, found {len(distinct)}: {distinct}")
    return distinct[0]


def compile_templates(sources: Mapping[str, str], names: Mapping[str, str] | None = None) -> bytes:
    """Build ``coat/templates.json`` from the COAT-code generator sources, without executing them.

    Args:
        sources: Text of each file in :data:`TEMPLATE_SOURCES`, keyed like it.
        names: Where each text came from (URL or path), for error messages; defaults to the upstream paths.

    Returns:
        The JSON bytes (``json.dumps(..., indent=1)``), comparable with the recorded checksum.

    Raises:
        DataError: naming the source file and the key when a generator does not have the expected shape.
    """
    where = {**TEMPLATE_SOURCES, **(names or {})}
    missing = [k for k in TEMPLATE_SOURCES if k not in sources]
    if missing:
        raise ConfigError(f"compile_templates: missing sources {missing}; need {list(TEMPLATE_SOURCES)}")
    trees = {k: _parse(sources[k], where[k]) for k in TEMPLATE_SOURCES}

    questions: dict[str, str] = {}
    for key, src, func in _QUESTION_FUNCS:
        text = _question_template(trees[src], func, where[src])
        if key in questions and questions[key] != text:
            raise DataError(where[src], f"{func}.question", f"differs from the other {key} wording: {questions[key]!r}")
        questions[key] = text

    phrases = _literal_assign(trees["phrases"], "phrases", where["phrases"])
    if not (isinstance(phrases, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in phrases.items())):
        raise DataError(where["phrases"], "phrases", "expected a dict of utility -> phrase strings")

    mixes = _literal_assign(trees["mixes"], "idealDataset", where["mixes"])
    variations: dict[str, Any] = {"_comment": _MIXES_COMMENT}
    if not isinstance(mixes, dict):
        raise DataError(where["mixes"], "idealDataset", "expected a dict of option count -> mixes")
    for n, rows in mixes.items():
        if not (isinstance(n, int) and all(len(r) == 3 and all(isinstance(x, int) for x in r) for r in rows)):
            raise DataError(where["mixes"], f"idealDataset.{n}", "expected (context, concept, random) int triples")
        if any(sum(r) + 1 != n for r in rows):
            raise DataError(where["mixes"], f"idealDataset.{n}", "distractor counts + 1 correct != option count")
        variations[str(n)] = [list(r) for r in rows]

    consts = trees["constants"]
    sizes = {
        # task_u_dataset_gen.py redefines this name locally as its own per-variation question count
        "task_u_questions_per_variation": _literal_assign(trees["task_u"], "TASK_0_NUM_QUESTIONS", where["task_u"]),
        "task_0_target_per_variation": _literal_assign(consts, "TASK_0_NUM_QUESTIONS", where["constants"]),
        "task_1_target_per_variation": _literal_assign(consts, "TASK_1_NUM_QUESTIONS", where["constants"]),
        "task_2_target_per_variation": _literal_assign(consts, "TASK_2_NUM_QUESTIONS", where["constants"]),
        "seed": _literal_assign(consts, "DATA_GEN_SEED", where["constants"]),
    }
    for k, v in sizes.items():
        if not isinstance(v, int):
            raise DataError(where["constants"], k, f"expected an int, got {v!r}")

    doc = {
        "source": _TEMPLATES_SOURCE_NOTE,
        "question_templates": {k: questions[k] for k in ("task_u", "task_0", "task_1", "task_2", "full")},
        "utility_phrases": phrases,
        "full_pipeline_variations": variations,
        "sizes": sizes,
    }
    return json.dumps(doc, indent=1).encode()


