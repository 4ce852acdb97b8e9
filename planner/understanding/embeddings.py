"""The reader's sentence encoder (MiniLM, or None for word overlap) and the embeddings of the texts it knows (COAT's
tasks, the utility phrases, the worked examples), kept in a cache shared across processes."""

from __future__ import annotations

from typing import Any

from ..errors import DataError

CACHE_ENV = "COAT_READER_CACHE"
"""Directory for the embeddings of the texts a reader knows (default: the user cache dir / ``reader``); ``off``
embeds them again in every process."""
READER_ENV = "COAT_READER"
"""``COAT_READER=lexical`` makes the reader match by word overlap even with MiniLM installed (no torch load)."""


class _Vectors:
    """An encoder's ``embed`` as the ``encode`` an :class:`~planner.llm.embedding.EmbeddingCache` calls."""

    def __init__(self, encoder: Any) -> None:
        self.model_id = encoder.model_id
        self.encode = encoder.embed


def _known_embeddings(encoder: Any, texts: list[str]) -> Any:
    """The encoder's embeddings of ``texts`` (COAT's tasks, the utility phrases, the worked examples), kept per
    text in the reader cache (:data:`CACHE_ENV`), so a process embeds only the texts no earlier one did. An
    unreadable cache file is removed and rebuilt, and an unwritable one costs time only (a cache, never an
    answer)."""
    from ..config import reader_cache_dir
    from ..llm.embedding import EmbeddingCache

    where = reader_cache_dir()
    if where is None or not getattr(encoder, "model_id", ""):
        return encoder.embed(texts)
    path = where / "embeddings.npz"
    try:
        cache = EmbeddingCache(_Vectors(encoder), path)
    except DataError:
        path.unlink(missing_ok=True)
        cache = EmbeddingCache(_Vectors(encoder), path)
    matrix = cache.embed(texts)
    try:
        cache.save()
    except OSError:
        pass
    return matrix


def _encoder() -> Any:
    """MiniLM when the ``embed`` extra is installed and ``COAT_READER`` is not ``lexical``; else None (word overlap)."""
    from ..config import current_setting
    from ..llm.embedding import default_encoder, embed_available

    if current_setting("reader") == "lexical":
        return None
    return default_encoder() if embed_available() else None


__all__ = ["CACHE_ENV", "READER_ENV"]
