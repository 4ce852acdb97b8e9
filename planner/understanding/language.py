"""Is a request English words at all? The reader refuses other languages and letter salad before reading.

Word frequencies come from ``wordfreq`` (a dependency; its data ships in the wheel, no download). A text is
English when its words are, summed over the text, more frequent in English than in any of a few common other
languages, and when enough of them are English words at all ("zxqv" is no word in any language).

Example:
    >>> check_language("cut the cake").english
    True
    >>> check_language("couper le gâteau").language
    'fr'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..schemas import Contract

OTHER_LANGUAGES: tuple[str, ...] = ("fr", "de", "es", "it", "pt", "nl")
"""Languages a request is compared against (wordfreq's large lists)."""
MIN_ZIPF = 1.5
"""A word rarer than this (Zipf scale: 3 is once per million words) is not counted as an English word."""
MIN_KNOWN = 0.5
"""Share of a text's words that must be English words."""

_CODE = re.compile(r"[{}=]|</?[a-z][a-z0-9]*[^<>]*>|^\s*[\w.]+\([^)]*\)\s*$|\w\([^)]*\)\s*[:;{]|\w\.\w+\(|://|\bwww\."
                   r"|\bselect \* from\b|^\s*import \w+\s*$")
"""Program text, markup or a URL ("def toast(bread): ...", "SELECT * FROM", "https://..."): not a request."""

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)


class LanguageCheck(Contract):
    """What the words of a text look like."""

    english: bool
    language: str
    """``en``, another language's code, ``none`` (no words: emoji, digits, punctuation) or ``code`` (program
    text, markup or a URL)."""
    words: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    """Words that are not English words (rarer than :data:`MIN_ZIPF`)."""


@lru_cache(maxsize=65536)
def _zipf(word: str, lang: str) -> float:
    from .wordlists import zipf_frequency  # wordfreq's value, without its lists in memory

    return zipf_frequency(word, lang)


def text_words(text: str) -> list[str]:
    """Lower-case words of ``text`` (letters of any script, with an inner apostrophe)."""
    return [w.lower() for w in _WORD.findall(unicodedata.normalize("NFC", text))]


def check_language(text: str, *, vocabulary: frozenset[str] = frozenset()) -> LanguageCheck:
    """Whether ``text`` is English words, and which language it looks like when it is not.

    Args:
        text: The request.
        vocabulary: Words always counted as English (object type words such as ``tvstand``).
    """
    words = text_words(text)
    if not words:
        return LanguageCheck(english=False, language="none")
    if _CODE.search(text.lower()):
        return LanguageCheck(english=False, language="code", words=tuple(words))
    en = [max(_zipf(w, "en"), 4.0 if w in vocabulary else 0.0) for w in words]
    unknown = tuple(w for w, z in zip(words, en, strict=True) if z < MIN_ZIPF)
    totals = {lang: sum(_zipf(w, lang) for w in words) for lang in OTHER_LANGUAGES}
    other, other_total = max(totals.items(), key=lambda kv: kv[1])
    known_share = 1 - len(unknown) / len(words)
    if sum(en) >= other_total and known_share >= MIN_KNOWN:
        return LanguageCheck(english=True, language="en", words=tuple(words), unknown=unknown)
    other_known = sum(_zipf(w, other) >= 2 * MIN_ZIPF for w in words) / len(words)  # a guess needs real words
    language = other if other_total > sum(en) and other_known >= MIN_KNOWN else "none"
    return LanguageCheck(english=False, language=language, words=tuple(words), unknown=unknown)


__all__ = ["MIN_KNOWN", "MIN_ZIPF", "OTHER_LANGUAGES", "LanguageCheck", "check_language", "text_words"]
