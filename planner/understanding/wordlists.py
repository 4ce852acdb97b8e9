"""wordfreq's Zipf frequencies without holding its word lists in memory.

:func:`planner.understanding.language.check_language` asks how frequent each word of a request is in English and
six other languages. ``wordfreq.zipf_frequency`` answers by building a dict of the language's whole list (300,000
to 600,000 words) on first use: seven languages cost about 3 s and 250 MB in every process that reads a request.

Here each list is turned once per machine into a sorted index on disk (``wordfreq/`` in the reader cache,
``$COAT_READER_CACHE`` or the user cache dir / ``reader``): the words' UTF-8 bytes, their offsets and their
frequency bins, read through memory maps, so a lookup is a binary search that touches a few pages. The frequency
is then computed exactly as ``wordfreq.zipf_frequency`` computes it (same tokens, same bins, same arithmetic and
rounding: ``tests/planner/test_fast_plan.py`` compares them). A plain lower-case ASCII word is its own only token in
these languages, so for it wordfreq (and its tokenizer's imports) is not even loaded.

A damaged index is built again. ``COAT_READER_CACHE=off``, an unwritable cache, or a language other than the
reader's seven (:data:`LANGUAGES`) fall back to ``wordfreq.zipf_frequency`` itself.
"""

from __future__ import annotations

import math
import os
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

CACHE_ENV = "COAT_READER_CACHE"
"""The reader cache's directory (``off``: no index, wordfreq's own dicts); the same variable as the reader's."""
FOLDER = "wordfreq"
"""The indexes' folder inside the reader cache."""
MAGIC = 0x57464958_0001  # "WFIX", version 1

LANGUAGES = frozenset({"en", "fr", "de", "es", "it", "pt", "nl"})
"""The languages read from an index (the reader's; Latin script, wordfreq's regular-expression tokenizer, checked
against wordfreq by the tests); any other goes to wordfreq itself."""

_PLAIN = re.compile(r"[a-z]+")
_NO_INDEX = object()


class WordIndex:
    """One wordfreq list on disk: sorted words (UTF-8), offsets, and each word's bin (its frequency in -centibels).

    The file (:func:`build_index`): a header of three little-endian int64 (``MAGIC``, the word count n, the bytes of
    all words), then n + 1 int64 offsets, n uint16 bins and the words' bytes, read through one memory map.

    Args:
        path: The file :func:`build_index` wrote.

    Raises:
        ValueError: not such a file, or cut short.
    """

    def __init__(self, path: Path) -> None:
        data = np.memmap(path, dtype=np.uint8, mode="r")
        magic, n, size = (int(v) for v in np.ndarray((3,), dtype="<i8", buffer=data))
        if magic != MAGIC or len(data) != 24 + 8 * (n + 1) + 2 * n + size:
            raise ValueError(f"not a word index of this version: {path}")
        self.offsets = np.ndarray((n + 1,), dtype="<i8", buffer=data, offset=24)
        self.bins = np.ndarray((n,), dtype="<u2", buffer=data, offset=24 + 8 * (n + 1))
        self.words = np.ndarray((size,), dtype=np.uint8, buffer=data, offset=24 + 8 * (n + 1) + 2 * n)
        if int(self.offsets[-1]) != size:
            raise ValueError(f"inconsistent word index: {path}")

    def __len__(self) -> int:
        return len(self.bins)

    def _word(self, i: int) -> bytes:
        return self.words[int(self.offsets[i]):int(self.offsets[i + 1])].tobytes()

    def bin(self, token: str) -> int | None:
        """The token's bin (its frequency is ``10 ** (-bin / 100)``), None when the list lacks it."""
        key = token.encode("utf-8")
        lo, hi = 0, len(self.bins)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._word(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self.bins) and self._word(lo) == key:
            return int(self.bins[lo])
        return None


def source_list(lang: str) -> Path | None:
    """The wordfreq file ``zipf_frequency(word, lang)`` reads (its ``best`` list: ``large`` if there is one, else
    ``small``), None when wordfreq is not installed or has no list for exactly ``lang``."""
    import importlib.util

    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return None
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    for size in ("large", "small"):
        path = data / f"{size}_{lang}.msgpack.gz"
        if path.is_file():
            return path
    return None


def build_index(source: Path, path: Path) -> None:
    """Write the index of a wordfreq list to ``path`` (see :class:`WordIndex`)."""
    import gzip

    import msgpack

    with gzip.open(source, "rb") as f:
        data = msgpack.load(f, raw=False)
    header = data[0]
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        raise ValueError(f"{source}: not a wordfreq cBpack list ({header!r})")
    bins: dict[str, int] = {}
    for index, bucket in enumerate(data[1:]):  # as wordfreq's get_frequency_dict: a later (rarer) bin wins
        for word in bucket:
            bins[word] = index
    del data
    keys = sorted(bins)  # code-point order, which is the order of the UTF-8 bytes
    codes = np.array([bins[k] for k in keys], dtype=np.uint16)
    joined = np.frombuffer("\0".join(keys).encode("utf-8"), dtype=np.uint8)
    cuts = np.flatnonzero(joined == 0)
    if len(cuts) != len(keys) - 1:
        raise ValueError(f"{source}: a word with a NUL character")
    words = np.delete(joined, cuts)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    offsets[1:-1] = cuts - np.arange(len(cuts))
    offsets[-1] = len(words)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with tmp.open("wb") as f:
        f.write(np.array([MAGIC, len(keys), len(words)], dtype="<i8").tobytes())
        f.write(offsets.astype("<i8").tobytes())
        f.write(codes.astype("<u2").tobytes())
        f.write(words.tobytes())
    os.replace(tmp, path)  # atomic: a half-written index is never read; two writers write the same bytes


def cache_root() -> Path | None:
    """Where the indexes are kept (None: ``COAT_READER_CACHE=off``)."""
    from ..config import reader_cache_dir

    where = reader_cache_dir()
    return None if where is None else where / FOLDER


@lru_cache(maxsize=64)
def _index(lang: str, root: Path | None) -> Any:
    """The language's index (built on first use), or :data:`_NO_INDEX` to fall back to wordfreq."""
    source = source_list(lang)
    if root is None or source is None or lang not in LANGUAGES:
        return _NO_INDEX
    st = source.stat()
    path = root / f"{source.name.split('.')[0]}-{st.st_size}-{st.st_mtime_ns}.bin"
    try:
        if not path.is_file():
            build_index(source, path)
        try:
            return WordIndex(path)
        except ValueError:  # damaged (cut short, junk): built again
            build_index(source, path)
            return WordIndex(path)
    except (OSError, ValueError, EOFError):  # unwritable cache: wordfreq itself (a cache, never an answer)
        return _NO_INDEX


def zipf_frequency(word: str, lang: str) -> float:
    """``wordfreq.zipf_frequency(word, lang)``, read from the language's on-disk index."""
    index = _index(lang, cache_root())
    if index is _NO_INDEX:
        from wordfreq import zipf_frequency as wordfreq_zipf

        return float(wordfreq_zipf(word, lang))
    if _PLAIN.fullmatch(word):
        tokens = [word]  # wordfreq's preprocessing and tokenizer leave a lower-case ASCII word as it is
    else:
        from wordfreq.tokens import lossy_tokenize

        tokens = lossy_tokenize(word, lang)
    return _zipf(tokens, index)


def _zipf(tokens: list[str], index: WordIndex) -> float:
    """wordfreq's ``_word_frequency`` and ``zipf_frequency`` (``minimum`` 0), step for step."""
    minimum = 10 ** 0.0 / 1e9  # zipf_to_freq(0)
    freq = minimum
    if tokens:
        one_over_result = 0.0
        for token in tokens:
            smashed = _smash_numbers(token)
            cb = index.bin(smashed)
            if cb is None:
                break
            f = 10 ** (-cb / 100)  # cB_to_freq(-index)
            if smashed != token:
                from wordfreq.numbers import digit_freq

                f *= digit_freq(token)
            one_over_result += 1.0 / f
        else:
            unrounded = max(1.0 / one_over_result, minimum)
            leading_zeroes = math.floor(-math.log(unrounded, 10))
            freq = round(unrounded, leading_zeroes + 3)
    return round(math.log(freq, 10) + 9, 2)


def _smash_numbers(token: str) -> str:
    if not any(c.isdigit() for c in token):
        return token
    from wordfreq.numbers import smash_numbers

    return str(smash_numbers(token))


__all__ = ["CACHE_ENV", "FOLDER", "LANGUAGES", "WordIndex", "build_index", "cache_root", "source_list",
           "zipf_frequency"]
