"""Fetch the pinned public COAT and AI2-THOR reference data into a data directory.

Usage:
    coat data download                              # COAT + AI2-THOR floorplans into the user cache
    coat data download --only traces                # the nine recorded AI2-THOR episodes (needs Pillow)
    coat data download --dest /data/coat --mirror http://mirror.local/raw
    coat data verify --data-dir /data/coat

What is fetched; every output file's checksum is recorded in ``planner/checksums.json``:

- ``coat/`` (component ``coat``): every annotation file of github.com/Ayush8120/COAT at commit 28b00d9,
  byte for byte, plus ``coat/templates.json``. That file is not in the COAT repository: it is compiled from
  the dataset generators of github.com/Ayush8120/COAT-code at commit 396c569 (question wording from the
  ``question = f"..."`` lines, utility phrases from ``phrases.py``, full-pipeline option mixes from
  ``full_pipeline_datasets_helper.py``, question counts and seed from ``constants.py``). The generators are
  parsed with :mod:`ast` and never executed; the compiled bytes are checked against the recorded checksum.
- ``ai2thor/`` (component ``ai2thor``): ``floorplans/FloorPlanN_physics.json`` for all 120 iTHOR scenes and
  ``object_types.json``, byte for byte from github.com/Kajiih/rl_ai2thor at commit 5907c98.
- ``ai2thor/traces/`` (component ``traces``, opt-in): nine recorded episodes converted from the pickles in
  rl_ai2thor ``tests/data/test_tasks/<name>/`` to ``actions.json`` + ``event_NN.json`` + ``event_NN.png``.
  The pickles are read by a whitelist unpickler that resolves only the AI2-THOR ``Event`` classes (to inert
  stand-ins) and numpy's array constructors, so loading them runs no code from the file. PNG bytes depend on
  the encoder, so frames are checked by the SHA-256 of their decoded RGB pixels; JSON files by their bytes.

A mirror (``--mirror`` / ``COAT_DOWNLOAD_MIRROR``) replaces ``https://raw.githubusercontent.com`` and keeps
its layout: ``<mirror>/<owner>/<repo>/<commit>/<path>`` (``http(s)://`` or ``file://``).

After pinning new commits, regenerate the checksums from a verified copy of the data:
    python -c "from planner.download import write_checksums; write_checksums('/path/to/data')"
"""

from __future__ import annotations

import ast
import codecs
import copyreg
import hashlib
import http.client
import io
import json
import logging
import os
import pickle
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._optional import require
from .paths import cache_data_dir
from .errors import ConfigError, DataError, PlannerError

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
MIRROR_ENV_VAR = "COAT_DOWNLOAD_MIRROR"
CHECKSUMS_FILE = Path(__file__).with_name("checksums.json")

COMPONENTS: tuple[str, ...] = ("coat", "ai2thor", "traces")
DEFAULT_COMPONENTS: tuple[str, ...] = ("coat", "ai2thor")
"""Traces are opt-in: the planner does not need them, and converting them needs Pillow."""


class DownloadError(PlannerError):
    """Raised when some files could not be fetched or failed their checksum; lists every failure."""

    def __init__(self, message: str, failures: Sequence[tuple[str, str]]) -> None:
        self.failures = list(failures)
        super().__init__(message)


@dataclass(frozen=True)
class Repo:
    """A public GitHub repository pinned at one commit."""

    slug: str
    commit: str

    def url(self, path: str, base_url: str = DEFAULT_BASE_URL) -> str:
        """Return the raw-file URL of ``path`` at the pinned commit under ``base_url``."""
        return f"{base_url.rstrip('/')}/{self.slug}/{self.commit}/{path}"


COAT_REPO = Repo("Ayush8120/COAT", "28b00d9ee8bdde590a7c61cc839dd416a93dbca9")
COAT_CODE_REPO = Repo("Ayush8120/COAT-code", "396c569edc32526ffcbb2b2c92c3e3f3646f04f4")
THOR_REPO = Repo("Kajiih/rl_ai2thor", "5907c98545245efc0f060db55e5d2307de8801d2")

COAT_UPSTREAM_FILES: tuple[str, ...] = (
    "utilities.json",
    "tasks.json",
    "objects.json",
    "oracle.json",
    "task-1/choice_config_oracle.json",
    "task-1/common_var_responses.json",
    "task-1/possible_configurations_v1.json",
    "task-1/pouch_config_oracle.json",
    "task-2/material_preference.json",
    "task-2/pouch_suboptimal.json",
)
"""The annotation files of the COAT repository (its README and images are not data)."""

TEMPLATE_SOURCES: dict[str, str] = {
    "phrases": "thortils/data/phrases.py",
    "mixes": "thortils/data/full_pipeline_datasets_helper.py",
    "constants": "thortils/data/constants.py",
    "task_u": "thortils/data/task_u_dataset_gen.py",
    "task_012": "thortils/data/task_0-1-2_dataset_gen.py",
    "full": "thortils/data/full-pipeline-dataset-creation.py",
}
"""COAT-code generator files that ``coat/templates.json`` is compiled from."""

FLOORPLANS: tuple[str, ...] = tuple(f"FloorPlan{base + n}" for base in (0, 200, 300, 400) for n in range(1, 31))
THOR_FLOORPLAN_DIR = "dev/data/objects_metadata_samples"
THOR_OBJECT_TYPES = "src/rl_thor/data/object_types_data.json"
THOR_TRACE_DIR = "tests/data/test_tasks"
TRACES: tuple[str, ...] = (
    "CleanToilets",
    "DoHomework",
    "WashCutleryTask",
    "clean_up_bathroom",
    "clean_up_kitchen",
    "clean_up_living_room",
    "open_fridge",
    "pickup_mug",
    "prepare_going_to_bed",
)

# HTTP statuses worth retrying; any other error status is final (a 404 will not go away)
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


# --------------------------------------------------------------------------------------------- manifest


@dataclass(frozen=True)
class Item:
    """One unit of download work: upstream file(s) turned into output file(s) under the data root.

    Attributes:
        component: ``"coat"``, ``"ai2thor"`` or ``"traces"``.
        kind: ``"copy"`` (one file, byte for byte), ``"templates"`` (compiled) or ``"trace"`` (converted).
        label: Short name used in progress and error messages (an output path or trace directory).
        outputs: Paths under the data root that this item writes.
        sources: ``(repo, upstream path)`` pairs fetched to produce the outputs.
    """

    component: str
    kind: str
    label: str
    outputs: tuple[str, ...]
    sources: tuple[tuple[Repo, str], ...]

    def urls(self, base_url: str = DEFAULT_BASE_URL) -> tuple[str, ...]:
        """Return the URLs this item fetches, in ``sources`` order."""
        return tuple(repo.url(path, base_url) for repo, path in self.sources)


def _copy(component: str, out: str, repo: Repo, path: str) -> Item:
    return Item(component, "copy", out, (out,), ((repo, path),))


def manifest(
    components: Iterable[str] = DEFAULT_COMPONENTS, checksums: Mapping[str, tuple[str, str]] | None = None
) -> list[Item]:
    """Return the work items for ``components``, in download order.

    Args:
        components: Any of ``"coat"``, ``"ai2thor"``, ``"traces"``.
        checksums: The checksum table (defaults to ``planner/checksums.json``); it lists each trace's files.

    Returns:
        The items; together their outputs are exactly the checksum table's entries for those components.

    Raises:
        ConfigError: for an unknown component.
    """
    wanted = list(dict.fromkeys(components))
    unknown = [c for c in wanted if c not in COMPONENTS]
    if unknown:
        raise ConfigError(f"unknown data component(s) {unknown}; valid: {', '.join(COMPONENTS)}")
    items: list[Item] = []
    if "coat" in wanted:
        items += [_copy("coat", f"coat/{p}", COAT_REPO, p) for p in COAT_UPSTREAM_FILES]
        srcs = tuple((COAT_CODE_REPO, p) for p in TEMPLATE_SOURCES.values())
        items.append(Item("coat", "templates", "coat/templates.json", ("coat/templates.json",), srcs))
    if "ai2thor" in wanted:
        items.append(_copy("ai2thor", "ai2thor/object_types.json", THOR_REPO, THOR_OBJECT_TYPES))
        for fp in FLOORPLANS:
            name = f"{fp}_physics.json"
            items.append(_copy("ai2thor", f"ai2thor/floorplans/{name}", THOR_REPO, f"{THOR_FLOORPLAN_DIR}/{name}"))
    if "traces" in wanted:
        table = load_checksums() if checksums is None else checksums
        for name in TRACES:
            prefix = f"ai2thor/traces/{name}/"
            outs = tuple(sorted(k for k in table if k.startswith(prefix)))
            srcs = (
                (THOR_REPO, f"{THOR_TRACE_DIR}/{name}/event_list.pkl"),
                (THOR_REPO, f"{THOR_TRACE_DIR}/{name}/controller_action_list.pkl"),
            )
            items.append(Item("traces", "trace", prefix, outs, srcs))
    return items


# -------------------------------------------------------------------------------------------- checksums


def load_checksums(path: str | os.PathLike[str] = CHECKSUMS_FILE) -> dict[str, tuple[str, str]]:
    """Return ``{output path: (algorithm, hex digest)}``; algorithm is ``"sha256"`` or ``"rgb_sha256"``.

    Raises:
        DataError: when the table is missing or malformed.
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(path, "", f"cannot read the checksum table: {e}") from e
    out: dict[str, tuple[str, str]] = {}
    for algo in ("sha256", "rgb_sha256"):
        table = raw.get(algo, {})
        if not isinstance(table, dict):
            raise DataError(path, algo, "expected an object mapping paths to hex digests")
        for key, digest in table.items():
            if not (isinstance(digest, str) and len(digest) == 64):
                raise DataError(path, f"{algo}.{key}", f"expected a 64-character hex digest, got {digest!r}")
            out[key] = (algo, digest)
    return out


def sha256_bytes(data: bytes) -> str:
    """Return the hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def rgb_sha256(png: bytes) -> str:
    """Return the hex SHA-256 of an image's decoded RGB pixels (prefixed by its size), independent of encoder.

    Raises:
        DependencyNotInstalled: when Pillow is missing.
        ValueError: when ``png`` is not a readable image.
    """
    image_mod = require("PIL.Image", extra="traces")
    try:
        with image_mod.open(io.BytesIO(png)) as im:
            rgb = im.convert("RGB")
    except Exception as e:  # Pillow raises several unrelated types for a broken file
        raise ValueError(f"not a readable image: {e}") from e
    w, h = rgb.size
    return hashlib.sha256(f"RGB {w}x{h}\n".encode() + rgb.tobytes()).hexdigest()


def digest(algo: str, data: bytes) -> str:
    """Return ``data``'s digest under ``algo`` (``"sha256"`` or ``"rgb_sha256"``)."""
    if algo == "sha256":
        return sha256_bytes(data)
    if algo == "rgb_sha256":
        return rgb_sha256(data)
    raise ConfigError(f"unknown checksum algorithm {algo!r}; valid: sha256, rgb_sha256")


def _checksum_problem(out: str, data: bytes, checksums: Mapping[str, tuple[str, str]]) -> str | None:
    if out not in checksums:
        return f"{out}: no checksum recorded in {CHECKSUMS_FILE.name}"
    algo, want = checksums[out]
    try:
        got = digest(algo, data)
    except ValueError as e:
        return f"{out}: {e}"
    if got != want:
        return f"{out}: checksum mismatch (expected {algo} {want[:16]}..., got {got[:16]}...)"
    return None


def write_checksums(root: str | os.PathLike[str], path: str | os.PathLike[str] = CHECKSUMS_FILE) -> Path:
    """Record the checksums of every manifest output found under ``root`` (a verified copy of the data).

    JSON files get ``sha256`` of their bytes, PNG frames ``rgb_sha256`` of their pixels. Trace files are
    taken from ``root/ai2thor/traces/<name>/`` as found, since their number is only known from the data.

    Returns:
        The path written.

    Raises:
        DataError: when a coat/ or ai2thor/ manifest file is missing under ``root``.
    """
    base = Path(root)
    table: dict[str, dict[str, str]] = {"sha256": {}, "rgb_sha256": {}}
    for item in manifest(("coat", "ai2thor"), checksums={}):
        for out in item.outputs:
            f = base / out
            if not f.is_file():
                raise DataError(f, "", "missing; cannot record its checksum")
            table["sha256"][out] = sha256_bytes(f.read_bytes())
    for name in TRACES:
        for f in sorted((base / "ai2thor" / "traces" / name).glob("*")):
            out = f.relative_to(base).as_posix()
            if f.suffix == ".png":
                table["rgb_sha256"][out] = rgb_sha256(f.read_bytes())
            elif f.suffix == ".json":
                table["sha256"][out] = sha256_bytes(f.read_bytes())
    doc = {
        "_comment": (
            "Checksums of every file `coat data download` writes, keyed by path under the data root. "
            "sha256: of the file's bytes. rgb_sha256: of 'RGB <w>x<h>\\n' + the decoded RGB pixels "
            "(PNG bytes depend on the encoder). Regenerate with planner.download.write_checksums(root)."
        ),
        "sources": {
            "coat": f"github.com/{COAT_REPO.slug}@{COAT_REPO.commit}",
            "coat/templates.json": f"compiled from github.com/{COAT_CODE_REPO.slug}@{COAT_CODE_REPO.commit}",
            "ai2thor": f"github.com/{THOR_REPO.slug}@{THOR_REPO.commit}",
        },
        **table,
    }
    dest = Path(path)
    _atomic_write(dest, (json.dumps(doc, indent=1, sort_keys=False) + "\n").encode())
    return dest


# -------------------------------------------------------------------------------------- templates.json

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


# ---------------------------------------------------------------------------------------------- traces


class _ThorEvent:
    """Inert stand-in for ``ai2thor.server.Event``: unpickling only fills its ``__dict__``."""


class _MetadataWrapper(dict):  # type: ignore[type-arg]
    """Inert stand-in for ``ai2thor.server.MetadataWrapper`` (a dict subclass)."""


def _allowed_globals() -> dict[tuple[str, str], Any]:
    import numpy as np

    try:
        from numpy._core.multiarray import _reconstruct, scalar  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.multiarray import _reconstruct, scalar  # type: ignore[no-redef]
    allowed: dict[tuple[str, str], Any] = {
        ("ai2thor.server", "Event"): _ThorEvent,
        ("ai2thor.server", "MetadataWrapper"): _MetadataWrapper,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("collections", "OrderedDict"): OrderedDict,
        ("builtins", "object"): object,
        ("builtins", "dict"): dict,
        ("builtins", "list"): list,
        # protocol 0/1 pickles rebuild plain objects through this; its arguments pass find_class too
        ("copyreg", "_reconstructor"): copyreg._reconstructor,  # type: ignore[attr-defined]
    }
    # arrays pickled under numpy 1.x name numpy.core, under 2.x numpy._core; both map to the same functions
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[(mod, "_reconstruct")] = _reconstruct
        allowed[(mod, "scalar")] = scalar
    try:
        from numpy._core.numeric import _frombuffer  # protocol-5 arrays
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.numeric import _frombuffer  # type: ignore[no-redef]
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        allowed[(mod, "_frombuffer")] = _frombuffer
    # protocol-2 pickles spell bytes as _codecs.encode(str, "latin1"): a pure function
    allowed[("_codecs", "encode")] = codecs.encode
    return allowed


class _Refused(pickle.UnpicklingError):
    """A pickle referenced a global that is not on the whitelist."""


class _WhitelistUnpickler(pickle.Unpickler):
    """Unpickler that resolves only the globals in ``_allowed_globals``; anything else is refused."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self._allowed = _allowed_globals()

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._allowed[(module, name)]
        except KeyError:
            raise _Refused(f"refusing global {module}.{name} (not on the trace whitelist)") from None


def safe_unpickle(data: bytes, where: str) -> Any:
    """Load a recorded-trace pickle with the whitelist unpickler.

    Raises:
        DataError: when the pickle references anything beyond AI2-THOR events and numpy arrays, or is corrupt.
    """
    try:
        return _WhitelistUnpickler(data).load()
    except _Refused as e:
        raise DataError(where, "", str(e)) from e
    except Exception as e:  # a truncated or garbled pickle raises many types (EOFError, ValueError, ...)
        raise DataError(where, "", f"corrupt pickle: {type(e).__name__}: {e}") from e


def _png(frame: Any) -> bytes:
    image_mod = require("PIL.Image", extra="traces")
    buf = io.BytesIO()
    image_mod.fromarray(frame).save(buf, format="PNG")
    return buf.getvalue()


def convert_trace(name: str, event_pickle: bytes, action_pickle: bytes) -> dict[str, bytes]:
    """Convert one rl_ai2thor recording into ``actions.json`` + ``event_NN.json`` + ``event_NN.png``.

    ``event_NN`` is the event after action NN. When the action list is longer than the event list (the
    recording started after some setup actions), the events belong to the last actions; every event's
    ``lastAction`` must match its action's name.

    Args:
        name: Trace name (directory under ``ai2thor/traces/``).
        event_pickle: Bytes of ``event_list.pkl`` (a list of ``ai2thor.server.Event``).
        action_pickle: Bytes of ``controller_action_list.pkl`` (a list of action dicts).

    Returns:
        ``{output path under the data root: bytes}``.

    Raises:
        DataError: when the recording does not have the expected shape.
    """
    import numpy as np

    ev_where, act_where = f"{name}/event_list.pkl", f"{name}/controller_action_list.pkl"
    events = safe_unpickle(event_pickle, ev_where)
    actions = safe_unpickle(action_pickle, act_where)
    if not (isinstance(events, list) and events):
        raise DataError(ev_where, "", f"expected a non-empty list of events, got {type(events).__name__}")
    if not (isinstance(actions, list) and all(isinstance(a, dict) and "action" in a for a in actions)):
        raise DataError(act_where, "", "expected a list of action dicts with an 'action' key")
    if len(actions) < len(events):
        raise DataError(act_where, "", f"{len(actions)} actions for {len(events)} events")
    actions = actions[len(actions) - len(events) :]

    prefix = f"ai2thor/traces/{name}/"
    out: dict[str, bytes] = {f"{prefix}actions.json": json.dumps(actions, indent=1).encode()}
    for i, (ev, act) in enumerate(zip(events, actions, strict=True)):
        key = f"[{i}]"
        meta = getattr(ev, "metadata", None) if isinstance(ev, _ThorEvent) else None
        frame = getattr(ev, "frame", None) if isinstance(ev, _ThorEvent) else None
        if not isinstance(meta, dict):
            raise DataError(ev_where, key, "not an AI2-THOR Event with a metadata dict")
        if meta.get("lastAction") != act["action"]:
            raise DataError(ev_where, f"{key}.lastAction", f"{meta.get('lastAction')!r} != action {act['action']!r}")
        if not (isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3):
            raise DataError(ev_where, f"{key}.frame", "expected an (H, W, 3) uint8 RGB frame")
        out[f"{prefix}event_{i:02d}.json"] = json.dumps(dict(meta)).encode()
        out[f"{prefix}event_{i:02d}.png"] = _png(frame)
    return out


# ------------------------------------------------------------------------------------------- fetching


class FetchError(PlannerError):
    """Raised when one URL cannot be fetched (after retries, for transient failures)."""


class _ItemFailed(Exception):
    """One item's outputs failed their checksums; collected into the final DownloadError."""


def fetch(url: str, *, retries: int = 3, backoff: float = 1.0, timeout: float = 60.0) -> bytes:
    """GET ``url`` and return its body, retrying transient failures with exponential backoff.

    Client errors (404, 403, ...) fail at once; timeouts, connection errors and 5xx/429 are retried
    ``retries`` times, waiting ``backoff * 2**attempt`` seconds in between.

    Raises:
        FetchError: with a one-line reason after the last attempt.
    """
    req = urllib.request.Request(url, headers={"User-Agent": "coat-planner (coat data download)"})
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.read()
        except urllib.error.HTTPError as e:
            reason = f"HTTP {e.code} {e.reason}"
            if e.code not in _RETRY_STATUS:
                raise FetchError(reason) from None
        except urllib.error.URLError as e:
            reason = f"{e.reason}"
            if isinstance(e.reason, FileNotFoundError):  # file:// mirror without that file
                raise FetchError(f"not found ({e.reason.strerror})") from None
        except (TimeoutError, ConnectionError, http.client.HTTPException) as e:
            reason = f"{type(e).__name__}: {e}"
        if attempt < retries:
            log.info("retrying %s after %s (attempt %d of %d)", url, reason, attempt + 2, retries + 1)
            time.sleep(backoff * 2**attempt)
    raise FetchError(f"{reason} (after {retries + 1} attempts)")


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _present(root: Path, item: Item, checksums: Mapping[str, tuple[str, str]]) -> bool:
    """True when every output of ``item`` already exists under ``root`` with the right checksum."""
    for out in item.outputs:
        f = root / out
        if not f.is_file() or _checksum_problem(out, f.read_bytes(), checksums) is not None:
            return False
    return bool(item.outputs)


def _produce(item: Item, base_url: str, fetch_kw: Mapping[str, Any]) -> dict[str, bytes]:
    urls = item.urls(base_url)
    bodies: list[bytes] = []
    for url in urls:
        try:
            bodies.append(fetch(url, **fetch_kw))
        except FetchError as e:
            raise FetchError(f"{url}: {e}") from None
    if item.kind == "copy":
        return {item.outputs[0]: bodies[0]}
    if item.kind == "templates":
        texts: dict[str, str] = {}
        for key, url, body in zip(TEMPLATE_SOURCES, urls, bodies, strict=True):
            try:
                texts[key] = body.decode("utf-8")
            except UnicodeDecodeError as e:
                raise DataError(url, "", f"not UTF-8 text: {e}") from e
        return {item.outputs[0]: compile_templates(texts, dict(zip(TEMPLATE_SOURCES, urls, strict=True)))}
    if item.kind == "trace":
        name = item.label.rstrip("/").rsplit("/", 1)[-1]
        produced = convert_trace(name, bodies[0], bodies[1])
        extra = sorted(set(produced) - set(item.outputs))
        if extra:
            raise DataError(urls[0], "", f"recording has more files than recorded checksums: {extra[:3]}")
        return produced
    raise ConfigError(f"unknown item kind {item.kind!r}; valid: copy, templates, trace")


@dataclass
class DownloadReport:
    """What :func:`download` did: labels of items fetched and skipped (already present and verified)."""

    root: Path
    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def download(
    dest: str | os.PathLike[str] | None = None,
    *,
    components: Iterable[str] = DEFAULT_COMPONENTS,
    mirror: str | None = None,
    items: Sequence[Item] | None = None,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 60.0,
    progress: bool = True,
) -> DownloadReport:
    """Fetch, verify and write the pinned reference data under ``dest``.

    Each output is checked against ``planner/checksums.json`` before it is written (temporary file + rename),
    so a directory never holds a half-written or unverified file. Items whose outputs are already present
    with the right checksum are skipped. Failures do not stop the other items; they are reported together.

    Args:
        dest: Data root to fill (gets ``coat/`` and ``ai2thor/``); defaults to :func:`planner.paths.cache_data_dir`.
        components: Which parts to fetch: any of ``"coat"``, ``"ai2thor"``, ``"traces"``.
        mirror: Base URL replacing ``https://raw.githubusercontent.com``; defaults to ``$COAT_DOWNLOAD_MIRROR``.
        items: Explicit work items (a subset of :func:`manifest`); overrides ``components``.
        retries: Extra attempts per URL for transient failures.
        backoff: Seconds before the first retry; doubles each time.
        timeout: Socket timeout per request, in seconds.
        progress: Show a tqdm progress bar on stderr.

    Returns:
        A :class:`DownloadReport`.

    Raises:
        DownloadError: listing every item that could not be fetched or failed its checksum.
        ConfigError: for an unknown component or a negative retry count / backoff.
        DependencyNotInstalled: when traces are requested and Pillow is missing.
    """
    if retries < 0 or backoff < 0 or timeout <= 0:
        raise ConfigError(
            f"download: retries={retries}, backoff={backoff}, timeout={timeout}; need retries >= 0, backoff >= 0, "
            "timeout > 0"
        )
    root = Path(dest).expanduser() if dest is not None else cache_data_dir()
    base_url = mirror or os.environ.get(MIRROR_ENV_VAR) or DEFAULT_BASE_URL
    checksums = load_checksums()
    todo = list(items) if items is not None else manifest(components, checksums)
    if any(i.kind == "trace" for i in todo):
        require("PIL.Image", extra="traces")  # fail before fetching anything
    from tqdm import tqdm

    report = DownloadReport(root=root)
    failures: list[tuple[str, str]] = []
    fetch_kw = {"retries": retries, "backoff": backoff, "timeout": timeout}
    log.info("downloading %d items from %s into %s", len(todo), base_url, root)
    bar = tqdm(todo, desc="coat data", unit="file", disable=not progress, leave=True)
    for item in bar:
        bar.set_postfix_str(item.label, refresh=False)
        if _present(root, item, checksums):
            report.skipped.append(item.label)
            continue
        try:
            produced = _produce(item, base_url, fetch_kw)
            problems = [p for out, data in produced.items() if (p := _checksum_problem(out, data, checksums))]
            missing = [o for o in item.outputs if o not in produced]
            if missing:
                problems.append(f"{item.label}: recording lacks {len(missing)} expected file(s), e.g. {missing[0]}")
            if problems:
                raise _ItemFailed("; ".join(problems) + f" [from {item.urls(base_url)[0]}]")
        except (FetchError, _ItemFailed, DataError) as e:
            failures.append((item.label, str(e)))
            log.warning("%s failed: %s", item.label, e)
            continue
        for out, data in produced.items():
            _atomic_write(root / out, data)
        report.fetched.append(item.label)
    bar.close()
    if failures:
        lines = "\n".join(f"  {label}: {why}" for label, why in failures)
        raise DownloadError(
            f"coat data download: {len(failures)} of {len(todo)} item(s) failed; nothing was written for them "
            f"(verified files are kept; re-running skips them):\n{lines}\n"
            f"Check the network, or pass --mirror URL / set {MIRROR_ENV_VAR} to a mirror of {DEFAULT_BASE_URL}.",
            failures,
        )
    return report


# ---------------------------------------------------------------------------------------------- verify


@dataclass
class VerifyReport:
    """Result of :func:`verify_dir`: output paths grouped by outcome."""

    root: Path
    ok: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when nothing is missing or mismatched."""
        return not (self.missing or self.mismatched)


def verify_dir(root: str | os.PathLike[str], components: Iterable[str] | None = None) -> VerifyReport:
    """Check every manifest file under ``root`` against the recorded checksums.

    Args:
        root: A data root (holding ``coat/`` and ``ai2thor/``).
        components: Parts to check; defaults to coat and ai2thor, plus traces when ``ai2thor/traces/`` exists.

    Returns:
        A :class:`VerifyReport`; PNG frames are ``unchecked`` when Pillow is not installed.
    """
    base = Path(root).expanduser()
    if components is None:
        components = DEFAULT_COMPONENTS + (("traces",) if (base / "ai2thor" / "traces").is_dir() else ())
    checksums = load_checksums()
    from ._optional import is_available

    can_decode = is_available("PIL")
    report = VerifyReport(root=base)
    for item in manifest(components, checksums):
        for out in item.outputs:
            f = base / out
            if not f.is_file():
                report.missing.append(out)
            elif checksums[out][0] == "rgb_sha256" and not can_decode:
                report.unchecked.append(out)
            elif _checksum_problem(out, f.read_bytes(), checksums):
                report.mismatched.append(out)
            else:
                report.ok.append(out)
    return report


__all__ = [
    "COMPONENTS",
    "DEFAULT_BASE_URL",
    "DEFAULT_COMPONENTS",
    "MIRROR_ENV_VAR",
    "DownloadError",
    "DownloadReport",
    "FetchError",
    "Item",
    "Repo",
    "VerifyReport",
    "compile_templates",
    "convert_trace",
    "download",
    "fetch",
    "load_checksums",
    "manifest",
    "rgb_sha256",
    "safe_unpickle",
    "verify_dir",
    "write_checksums",
]
