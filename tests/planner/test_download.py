"""`coat data download / where / verify` against a loopback HTTP mirror built from the reference data.

The mirror is laid out like raw.githubusercontent.com (``<owner>/<repo>/<commit>/<path>``) in tmp_path:
COAT and AI2-THOR files are symlinks to the reference copies; the COAT-code generator files and the
rl_ai2thor trace pickles (whose originals are not in the reference data) are synthesised from the
reference ``templates.json`` and traces, so the tests check that download rebuilds them byte for byte.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import io
import json
import os
import pickle
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from planner import download as dl
from planner.cli import main
from planner.download import checksums, sources
from planner.errors import ConfigError, DataError, DataNotFoundError
from planner.paths import resolve_data_dir

HAS_PIL = importlib.util.find_spec("PIL") is not None  # traces need Pillow (the `traces` extra)
needs_pil = pytest.mark.skipif(not HAS_PIL, reason="Pillow not installed (pip install 'coat-planner[traces]')")
TRACE = "pickup_mug"  # 5 events: the smallest recorded episode
FLOORPLANS = ("FloorPlan1", "FloorPlan201")


# ------------------------------------------------------------------------------------ mirror building


def _fstring(template: str) -> str:
    """Python source of the generators' f-string for a templates.json wording."""
    py = template.replace("{phrase}", "{phrases[cat]}").replace("{utility}", "{cat}").replace("{task}", "{ques}")
    return "f" + json.dumps(py)


def coat_code_sources(templates: dict) -> dict[str, str]:
    """Generator files shaped like COAT-code's, carrying the reference templates.json facts."""
    q, sizes = templates["question_templates"], templates["sizes"]
    mixes = {int(k): [tuple(r) for r in v] for k, v in templates["full_pipeline_variations"].items() if k != "_comment"}

    def gen(funcs: dict[str, str]) -> str:
        body = []
        for name, key in funcs.items():
            body.append(
                f"def {name}(tasks, oracle, root, op_type):\n"
                "    for cat, task_list in tasks.items():\n"
                "        for ques in task_list:\n"
                f"            question = {_fstring(q[key])}\n"
                "            print(question)\n"
            )
        return "import random\n\n" + "\n\n".join(body)

    return {
        "phrases": "phrases = " + json.dumps(templates["utility_phrases"], indent=4) + "\n",
        "mixes": "'''tuples'''\nidealDataset = " + repr(mixes) + "\n",
        "constants": (
            "SAMPLES_PER_OBJECT = 5\n"
            f"DATA_GEN_SEED = {sizes['seed']}\n"
            f"TASK_0_NUM_QUESTIONS = {sizes['task_0_target_per_variation']}\n"
            f"TASK_1_NUM_QUESTIONS = {sizes['task_1_target_per_variation']}\n"
            f"TASK_2_NUM_QUESTIONS = {sizes['task_2_target_per_variation']}\n"
        ),
        "task_u": f"TASK_0_NUM_QUESTIONS = {sizes['task_u_questions_per_variation']}\n\n"
        + gen({"u_task_create_object_level_qna": "task_u"}),
        "task_012": gen(
            {
                "task_0_create_object_level_qna": "task_0",
                "task_1_ideal_config_qna": "task_1",
                "task_2_subop_config_qna": "task_2",
            }
        ),
        "full": gen({"task_f_ideal_config_qna": "full", "task_f_mod_config_qna": "full"}),
    }


class _FakeEvent:
    pass


class _FakeMetadataWrapper(dict):
    pass


@pytest.fixture
def fake_ai2thor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make pickle write _FakeEvent as ``ai2thor.server.Event`` without importing ai2thor."""
    mod = types.ModuleType("ai2thor.server")
    for cls, name in ((_FakeEvent, "Event"), (_FakeMetadataWrapper, "MetadataWrapper")):
        cls.__module__, cls.__qualname__, cls.__name__ = "ai2thor.server", name, name
        setattr(mod, name, cls)
    monkeypatch.setitem(sys.modules, "ai2thor", types.ModuleType("ai2thor"))
    monkeypatch.setitem(sys.modules, "ai2thor.server", mod)


def trace_pickles(trace_dir: Path, protocol: int = 4) -> tuple[bytes, bytes]:
    """(event_list.pkl, controller_action_list.pkl) rebuilt from a converted reference trace."""
    from PIL import Image

    actions = json.loads((trace_dir / "actions.json").read_text())
    events = []
    for i in range(len(actions)):
        ev = _FakeEvent()
        ev.metadata = _FakeMetadataWrapper(json.loads((trace_dir / f"event_{i:02d}.json").read_text()))
        with Image.open(trace_dir / f"event_{i:02d}.png") as im:
            ev.frame = np.asarray(im.convert("RGB"))
        ev.depth_frame = None
        ev.instance_masks = {}
        ev.events = [ev]  # as in ai2thor: a self-reference
        events.append(ev)
    # a setup action recorded before the first event: the converter must align events with the last actions
    setup = [{"action": "Initialize", "gridSize": 0.25, "sequenceId": 0}]
    return pickle.dumps(events, protocol=protocol), pickle.dumps(setup + actions, protocol=protocol)


def _put(root: Path, repo: dl.Repo, path: str, *, link: Path | None = None, data: bytes | None = None) -> Path:
    f = root / repo.slug / repo.commit / path
    f.parent.mkdir(parents=True, exist_ok=True)
    if f.exists() or f.is_symlink():
        f.unlink()
    if link is not None:
        f.symlink_to(link)
    else:
        f.write_bytes(data or b"")
    return f


@pytest.fixture
def mirror(tmp_path: Path, data_dir: Path, fake_ai2thor: None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory laid out like raw.githubusercontent.com with every file the tests fetch.

    The generator sources and trace pickles it serves are synthesised, so their pinned checksums (of the real
    upstream files) are replaced by theirs for the test; the copied files keep the real pins.
    """
    root = tmp_path / "mirror"
    pins = checksums.load_fetched()
    monkeypatch.setattr(sys.modules["planner.download.fetch"], "load_fetched", lambda: pins)

    def put(root: Path, repo: dl.Repo, path: str, *, link: Path | None = None, data: bytes | None = None) -> Path:
        f = _put(root, repo, path, link=link, data=data)
        if data is not None:
            pins[f"{repo.slug}/{repo.commit}/{path}"] = (checksums.sha256_bytes(data), len(data))
        return f

    for p in sources.COAT_UPSTREAM_FILES:
        put(root, sources.COAT_REPO, p, link=data_dir / "coat" / p)
    templates = json.loads((data_dir / "coat" / "templates.json").read_text())
    for key, text in coat_code_sources(templates).items():
        put(root, sources.COAT_CODE_REPO, sources.TEMPLATE_SOURCES[key], data=text.encode())
    put(root, sources.THOR_REPO, sources.THOR_OBJECT_TYPES, link=data_dir / "ai2thor" / "object_types.json")
    for fp in FLOORPLANS:
        name = f"{fp}_physics.json"
        floorplan = data_dir / "ai2thor" / "floorplans" / name
        put(root, sources.THOR_REPO, f"{sources.THOR_FLOORPLAN_DIR}/{name}", link=floorplan)
    if HAS_PIL:
        events, actions = trace_pickles(data_dir / "ai2thor" / "traces" / TRACE)
        put(root, sources.THOR_REPO, f"{sources.THOR_TRACE_DIR}/{TRACE}/event_list.pkl", data=events)
        put(root, sources.THOR_REPO, f"{sources.THOR_TRACE_DIR}/{TRACE}/controller_action_list.pkl", data=actions)
    return root


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str]
    fail_once: set[str]

    def log_message(self, format: str, *args: object) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        self.requests.append(self.path)
        if self.path in self.fail_once:
            self.fail_once.discard(self.path)
            self.send_error(503, "try again")
            return
        super().do_GET()


@pytest.fixture
def server(mirror: Path) -> Iterator[tuple[str, type[_Handler]]]:
    """Serve the mirror on 127.0.0.1 (ephemeral port); yields (base URL, handler class with request log)."""
    handler = type("H", (_Handler,), {"requests": [], "fail_once": set()})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(mirror)))
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def _small_items(components: tuple[str, ...] = ("coat", "ai2thor")) -> list[dl.Item]:
    """The manifest restricted to the floorplans and trace the mirror serves (full COAT, object types)."""
    keep_fp = {f"ai2thor/floorplans/{fp}_physics.json" for fp in FLOORPLANS}
    out = []
    for it in dl.manifest(components):
        if it.label.startswith("ai2thor/floorplans/") and it.label not in keep_fp:
            continue
        if it.kind == "trace" and it.label != f"ai2thor/traces/{TRACE}/":
            continue
        out.append(it)
    return out


def _no_tmp_left(root: Path) -> bool:
    return not any(p.name.endswith(".tmp") for p in root.rglob("*"))


# ------------------------------------------------------------------------------------------- manifest


def test_full_manifest_urls_and_checksums_match() -> None:
    items = dl.manifest(dl.COMPONENTS)
    by_comp = {c: [i for i in items if i.component == c] for c in dl.COMPONENTS}
    assert len(by_comp["coat"]) == 11 and len(by_comp["ai2thor"]) == 121 and len(by_comp["traces"]) == 9
    outputs = [o for i in items for o in i.outputs]
    assert len(outputs) == len(set(outputs))
    assert set(outputs) == set(dl.load_checksums())  # every output is checked, every checksum is used

    urls = {i.label: i.urls() for i in items}
    coat = "https://raw.githubusercontent.com/Ayush8120/COAT/28b00d9ee8bdde590a7c61cc839dd416a93dbca9"
    thor = "https://raw.githubusercontent.com/Kajiih/rl_ai2thor/5907c98545245efc0f060db55e5d2307de8801d2"
    code = "https://raw.githubusercontent.com/Ayush8120/COAT-code/396c569edc32526ffcbb2b2c92c3e3f3646f04f4"
    assert urls["coat/task-2/pouch_suboptimal.json"] == (f"{coat}/task-2/pouch_suboptimal.json",)
    assert urls["ai2thor/object_types.json"] == (f"{thor}/src/rl_thor/data/object_types_data.json",)
    fp_urls = sorted(u for i in by_comp["ai2thor"] for u in i.urls() if "objects_metadata_samples" in u)
    assert len(fp_urls) == 120
    assert f"{thor}/dev/data/objects_metadata_samples/FloorPlan430_physics.json" in fp_urls
    assert f"{thor}/dev/data/objects_metadata_samples/FloorPlan31_physics.json" not in fp_urls
    assert f"{code}/thortils/data/phrases.py" in urls["coat/templates.json"]
    assert urls[f"ai2thor/traces/{TRACE}/"] == (
        f"{thor}/tests/data/test_tasks/{TRACE}/event_list.pkl",
        f"{thor}/tests/data/test_tasks/{TRACE}/controller_action_list.pkl",
    )
    # COAT_FILES (what the knowledge base needs) are all downloaded
    from planner.paths import COAT_FILES

    assert {f"coat/{f}" for f in COAT_FILES} <= set(outputs)
    # a mirror keeps the layout
    assert sources.COAT_REPO.url("tasks.json", "http://m/raw/") == f"http://m/raw/Ayush8120/COAT/{sources.COAT_REPO.commit}/tasks.json"


def test_unknown_component_lists_valid_ones() -> None:
    with pytest.raises(ConfigError, match="coat, ai2thor, traces"):
        dl.manifest(["coats"])
    with pytest.raises(ConfigError, match="retries must be an integer >= 0 and <= 20, got -1"):
        dl.download("unused", retries=-1)


def test_recorded_checksums_match_reference_data(data_dir: Path) -> None:
    report = dl.verify_dir(data_dir)
    assert report.passed, (report.missing[:3], report.mismatched[:3])
    assert len(report.ok) + len(report.unchecked) == len(dl.load_checksums())
    assert len(report.unchecked) == (0 if HAS_PIL else 76)


# ------------------------------------------------------------------------------------------ templates


def test_compile_templates_rebuilds_reference_file_byte_for_byte(data_dir: Path) -> None:
    ref = (data_dir / "coat" / "templates.json").read_bytes()
    out = dl.compile_templates(coat_code_sources(json.loads(ref)))
    assert out == ref
    assert dl.load_checksums()["coat/templates.json"] == ("sha256", checksums.sha256_bytes(ref))


def test_compile_templates_rejects_unknown_placeholder_naming_the_file(data_dir: Path) -> None:
    src = coat_code_sources(json.loads((data_dir / "coat" / "templates.json").read_text()))
    src["task_012"] = src["task_012"].replace("{ques}", "{objects[0]}", 1)
    with pytest.raises(DataError, match=r"task_0-1-2_dataset_gen\.py.*task_0_create_object_level_qna\.question"):
        dl.compile_templates(src)
    src = coat_code_sources(json.loads((data_dir / "coat" / "templates.json").read_text()))
    src["phrases"] = "phrases = load()\n"  # not a literal: refused, never executed
    with pytest.raises(DataError, match=r"phrases\.py: at phrases: not a literal"):
        dl.compile_templates(src)


# --------------------------------------------------------------------------------------------- traces


def test_safe_unpickle_refuses_code_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple:
            return (os.mkdir, (str(marker),))

    with pytest.raises(DataError, match=r"refusing global posix\.mkdir|refusing global os\.mkdir"):
        dl.safe_unpickle(pickle.dumps([Evil()]), "evil.pkl")
    assert not marker.exists()
    with pytest.raises(DataError, match="corrupt pickle"):
        dl.safe_unpickle(pickle.dumps([1, 2, 3])[:-3], "cut.pkl")


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_safe_unpickle_reads_numpy_arrays(protocol: int) -> None:
    a = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    back = dl.safe_unpickle(pickle.dumps({"frame": a}, protocol=protocol), "a.pkl")
    assert isinstance(back["frame"], np.ndarray) and (back["frame"] == a).all()


@needs_pil
def test_convert_trace_matches_reference_files(data_dir: Path, fake_ai2thor: None) -> None:
    ref = data_dir / "ai2thor" / "traces" / TRACE
    events, actions = trace_pickles(ref, protocol=2)
    out = dl.convert_trace(TRACE, events, actions)
    assert len(out) == len(list(ref.iterdir())) == 11
    sums = dl.load_checksums()
    for key, data in out.items():
        assert checksums.digest(sums[key][0], data) == sums[key][1], key
        if key.endswith(".json"):
            assert data == (data_dir / key).read_bytes(), key


@needs_pil
def test_convert_trace_checks_action_alignment(data_dir: Path, fake_ai2thor: None) -> None:
    events, _ = trace_pickles(data_dir / "ai2thor" / "traces" / TRACE)
    wrong = pickle.dumps([{"action": "MoveAhead"}] * 5)
    with pytest.raises(DataError, match=r"event_list\.pkl: at \[0\]\.lastAction"):
        dl.convert_trace(TRACE, events, wrong)


# ------------------------------------------------------------------------------------------- download


def test_download_fills_dest_then_skips(server: tuple[str, type[_Handler]], tmp_path: Path, data_dir: Path) -> None:
    url, handler = server
    dest = tmp_path / "dest"
    items = _small_items(("coat", "ai2thor", "traces") if HAS_PIL else ("coat", "ai2thor"))
    report = dl.download(dest, mirror=url, items=items, progress=False)
    assert len(report.fetched) == len(items) == 11 + 3 + HAS_PIL and not report.skipped
    for it in items:
        for out in it.outputs:
            if out.endswith(".png"):
                continue
            assert (dest / out).read_bytes() == (data_dir / out).read_bytes(), out
    assert _no_tmp_left(dest)

    n_requests = len(handler.requests)
    again = dl.download(dest, mirror=url, items=items, progress=False)
    assert again.skipped == [i.label for i in items] and not again.fetched
    assert len(handler.requests) == n_requests  # nothing re-fetched

    assert resolve_data_dir(dest) == dest
    assert resolve_data_dir(dest, need="ai2thor", files=("object_types.json",)) == dest
    assert dl.verify_dir(dest, ["coat"]).passed


def test_downloaded_dir_loads_as_knowledge_base(
    server: tuple[str, type[_Handler]], tmp_path: Path, data_dir: Path
) -> None:
    knowledge = pytest.importorskip("planner.knowledge")
    url, _ = server
    dest = tmp_path / "dest"
    dl.download(dest, mirror=url, components=["coat"], progress=False)
    kb = knowledge.load_knowledge(dest)
    ref = knowledge.load_knowledge(data_dir)
    assert kb.root.resolve() == dest.resolve() and kb is not ref
    assert kb.utilities == ref.utilities and kb.combinations == ref.combinations
    assert kb.templates == ref.templates and len(kb.configurations) == len(ref.configurations)


def test_corrupted_file_fails_with_its_name(server: tuple[str, type[_Handler]], mirror: Path, tmp_path: Path) -> None:
    url, _ = server
    served = _put(mirror, sources.COAT_REPO, "tasks.json", data=b'{"cutting": ["cut cake"]}')
    dest = tmp_path / "dest"
    with pytest.raises(dl.DownloadError) as e:
        dl.download(dest, mirror=url, components=["coat"], progress=False, backoff=0)
    msg = str(e.value)
    assert "1 of 11 item(s) failed" in msg
    assert f"coat/tasks.json: {url}/{served.relative_to(mirror).as_posix()}: checksum mismatch" in msg
    assert [f for f, _ in e.value.failures] == ["coat/tasks.json"]
    assert not (dest / "coat" / "tasks.json").exists()  # never written unverified
    assert (dest / "coat" / "utilities.json").is_file()  # the good files are kept
    assert _no_tmp_left(dest)
    with pytest.raises(DataNotFoundError, match="tasks.json"):
        resolve_data_dir(dest)


def test_404_fails_at_once_with_clear_error(server: tuple[str, type[_Handler]], mirror: Path, tmp_path: Path) -> None:
    url, handler = server
    (mirror / sources.COAT_REPO.slug / sources.COAT_REPO.commit / "oracle.json").unlink()
    t0 = time.monotonic()
    with pytest.raises(dl.DownloadError, match=r"coat/oracle\.json: .*/oracle\.json: HTTP 404") as e:
        dl.download(tmp_path / "d", mirror=url, components=["coat"], progress=False, backoff=30)
    assert time.monotonic() - t0 < 10  # a 404 is not retried (backoff would take 30 s)
    assert sum(r.endswith("/oracle.json") for r in handler.requests) == 1
    assert "--mirror" in str(e.value)


def test_transient_error_is_retried(server: tuple[str, type[_Handler]], tmp_path: Path) -> None:
    url, handler = server
    path = f"/{sources.COAT_REPO.slug}/{sources.COAT_REPO.commit}/utilities.json"
    handler.fail_once.add(path)
    report = dl.download(tmp_path / "d", mirror=url, components=["coat"], progress=False, backoff=0.01)
    assert "coat/utilities.json" in report.fetched
    assert handler.requests.count(path) == 2


def test_unreachable_mirror_reports_every_item(tmp_path: Path) -> None:
    with pytest.raises(dl.DownloadError) as e:
        dl.download(tmp_path / "d", mirror="http://127.0.0.1:9", components=["coat"], retries=0, progress=False)
    assert len(e.value.failures) == 11


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_download_verify_where(
    server: tuple[str, type[_Handler]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url, _ = server
    dest = tmp_path / "dest"
    monkeypatch.setenv(dl.MIRROR_ENV_VAR, url)  # no --mirror: the environment variable is used
    assert main(["data", "download", "--dest", str(dest), "--only", "coat", "--quiet"]) == 0
    assert "11 fetched" in capsys.readouterr().out

    assert main(["data", "verify", "--data-dir", str(dest), "--only", "coat"]) == 0
    assert "11 ok, 0 missing, 0 mismatched" in capsys.readouterr().out

    (dest / "coat" / "objects.json").write_text("{}")
    assert main(["data", "verify", "--data-dir", str(dest), "--only", "coat"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH coat/objects.json" in out and "coat data download --dest" in out
    assert main(["data", "verify", "--data-dir", str(dest)]) == 1  # ai2thor/ missing
    assert "MISSING  ai2thor/object_types.json" in capsys.readouterr().out

    # re-running download repairs only the bad file
    assert main(["data", "download", "--dest", str(dest), "--only", "coat", "--quiet"]) == 0
    assert "1 fetched, 10 already present" in capsys.readouterr().out

    monkeypatch.setenv("COAT_DATA_DIR", str(tmp_path / "nowhere"))
    assert main(["data", "where", "--data-dir", str(dest)]) == 0
    out = capsys.readouterr().out
    assert f"1. --data-dir     {dest}" in out and "coat/: complete" in out
    assert "not tried: an explicit --data-dir is authoritative" in out
    assert f"Using: {dest} (--data-dir)" in out


def test_cli_where_without_data_names_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *a, **k: str(tmp_path / "cache"))
    monkeypatch.setenv("COAT_DATA_DIR", str(tmp_path / "env"))
    assert main(["data", "where"]) == 1
    out = capsys.readouterr().out
    assert "1. --data-dir     (not given)" in out
    assert f"2. COAT_DATA_DIR  {tmp_path / 'env'}" in out
    assert f"3. user cache     {tmp_path / 'cache' / 'data'}" in out
    assert "Using: none" in out and "coat data download" in out


def test_cli_download_error_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["data", "download", "--dest", str(tmp_path), "--only", "coat", "--quiet", "--retries", "0",
               "--mirror", "http://127.0.0.1:9"])
    assert rc == 1
    assert "11 of 11 item(s) failed" in capsys.readouterr().err


@needs_pil
def test_png_checksum_ignores_encoding(data_dir: Path) -> None:
    from PIL import Image

    png = data_dir / "ai2thor" / "traces" / TRACE / "event_00.png"
    buf = io.BytesIO()
    with Image.open(png) as im:
        im.save(buf, format="PNG", compress_level=1)
    assert buf.getvalue() != png.read_bytes()
    assert dl.rgb_sha256(buf.getvalue()) == dl.rgb_sha256(png.read_bytes())
