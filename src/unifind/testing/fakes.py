"""Fast, deterministic stand-ins for models, for tests (ours and users')."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from unifind.embed.base import Embedder, Reranker, Vectors, normalize
from unifind.errors import InputError

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    # A stable hash (Python's hash() is salted per process); the sign bit makes collisions
    # cancel out in expectation (Weinberger et al. 2009, "Feature Hashing for Large Scale
    # Multitask Learning", §2).
    h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
    return h % dim, (1.0 if h >> 63 else -1.0)


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    feats: list[tuple[str, float]] = [("w:" + w, 1.0) for w in words]
    for w in words:
        padded = f"#{w}#"
        feats += [("t:" + padded[i : i + 3], 0.3) for i in range(len(padded) - 2)]
    # Text with no word characters ("", "!!!") still gets a unit vector of its own.
    return feats or [("raw:" + text.strip(), 1.0)]


class HashEmbedder(Embedder):
    """A hashed bag of words and character trigrams: texts sharing words are closer.

    No model, ~20k short texts/s, identical on every machine. Words weigh 1, their
    character trigrams 0.3 (so "embedding" is near "embeddings"). Queries get no prefix.
    """

    def __init__(self, dim: int | str = 64) -> None:
        try:
            size = int(dim)
        except ValueError:
            size = 0
        if size < 1:
            raise InputError(f"hash embedder dimension must be a positive integer, got {dim!r}")
        self.dim = size
        self.spec = f"hash:{size}"  # resolvable: resolve_embedder(spec) rebuilds it

    def _row(self, text: str) -> Vectors:
        row = np.zeros(self.dim, np.float32)
        for feature, weight in _features(text):
            index, sign = _bucket(feature, self.dim)
            row[index] += sign * weight
        return row

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.empty((0, self.dim), np.float32)
        return normalize(np.stack([self._row(t) for t in texts]))


class CountingEmbedder(Embedder):
    """Wraps an embedder and records every text it was asked to embed (for cache tests)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.spec, self.dim = inner, inner.spec, inner.dim
        self.documents: list[str] = []
        self.queries: list[str] = []
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            self.documents.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            self.queries.append(text)
        return self.inner.embed_query(text)


class FailingEmbedder(Embedder):
    """Raises ``error`` on every call: for testing how callers degrade."""

    def __init__(self, error: Exception, *, dim: int = 64, spec: str = "failing") -> None:
        self.error, self.dim, self.spec = error, dim, spec

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        raise self.error

    def embed_query(self, text: str) -> Vectors:
        raise self.error


class OverlapReranker(Reranker):
    """Scores a passage by the share of the query's distinct words it contains (0..1)."""

    spec = "overlap"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        wanted = set(_WORD.findall(query.lower()))
        if not wanted:
            return [0.0] * len(passages)
        return [len(wanted & set(_WORD.findall(p.lower()))) / len(wanted) for p in passages]
