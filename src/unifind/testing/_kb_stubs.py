"""Small builders for the KB store conformance suite (re-exported by ``kb_store``)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from unifind.kb.base import ChunkIn, DocumentIn

K1, B = 0.9, 0.4


def vec(*xs: float) -> np.ndarray[Any, np.dtype[np.float32]]:
    """A normalised float32 vector."""
    v = np.asarray(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32)


def chunk(
    ordinal: int,
    text: str,
    terms: dict[str, int] | None = None,
    vector: np.ndarray[Any, np.dtype[np.float32]] | None = None,
) -> ChunkIn:
    """A chunk whose terms default to the whitespace tokens of its text."""
    start = ordinal * 1000
    counts = dict(Counter(text.split())) if terms is None else terms
    return ChunkIn(ordinal, text, start, start + len(text), counts, vector)


def doc(document_id: str, content_hash: str = "h1", **metadata: Any) -> DocumentIn:
    return DocumentIn(document_id, content_hash, title=f"Title {document_id}", metadata=metadata)


def ids(hits: Sequence[Any]) -> list[str]:
    return [h.chunk_id for h in hits]


def bm25(tf: float, df: int, n: int, length: float, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + K1 * (1 - B + B * length / avgdl))
