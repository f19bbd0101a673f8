"""The knowledge-base store contract. Every store passes ``unifind.testing.kb_store``.

A store keeps collections → documents → chunks, each chunk with its character span,
its analysed terms (for BM25) and optionally its vector; and answers lexical and vector
queries over one collection. Text analysis and embedding happen *before* the store: it
receives terms and vectors, so one analyser/embedder serves every store.

Guarantees every store must give:

* **Atomic documents.** ``upsert_document`` writes a document and all its chunks, terms
  and vectors in one transaction, replacing any previous version; a reader never sees a
  half-written document, even if the writer is killed mid-way (SIGKILL).
* **Unchanged is free.** ``document_hash`` lets the caller skip re-embedding a file whose
  content hash hasn't changed.
* **Deletion is total.** ``delete_document`` / ``delete_collection`` remove chunks from every
  index; no later query returns them.
* **Chunk ids are never reused** within a store, so a stored citation can't silently point
  at other text.
* **Queries see committed state.** Derived indexes (in-memory or sidecar files) catch up
  with, or are rebuilt from, the system of record before answering.
* **Scores.** Lexical hits score with BM25 (k1=0.9, b=0.4, Lucene/Anserini's defaults,
  over the analysed terms); vector hits with the cosine (vectors are normalised).
  Both sorted by score descending, ties broken by chunk id ascending (stable paging).
* **Filters** (``filters`` argument) match document metadata: ``{"k": v}`` equality,
  ``{"k": [v1, v2]}`` any-of; ``document_id`` filters by document. Unknown keys match
  nothing (they are not an error: metadata is free-form). Values every store can compare
  (JSON scalars, integers within 64 bits, finite numbers, strings up to 4096 characters,
  up to 1000 any-of values) are checked once, before any store runs (``_filters.py``).
* **Concurrency.** Many readers (threads or processes) and one writer at a time.
* Unknown collection names raise ``UnknownName`` listing the existing collections.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self

import numpy as np
import numpy.typing as npt

BM25_K1 = 0.9
BM25_B = 0.4

UpsertOutcome = Literal["added", "replaced", "unchanged"]


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    """A collection and what it was built with."""

    name: str
    embedder: str | None
    """The embedder spec its vectors came from; None = lexical only."""
    dim: int | None
    analyzer: str
    """The text analyser (``auto``: English stemming + Chinese segmentation)."""
    description: str = ""
    documents: int = 0
    chunks: int = 0
    created_at: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DocumentIn:
    """A document to write."""

    document_id: str
    content_hash: str
    title: str = ""
    source: str = ""
    """Where it came from: a path or URL."""
    mime: str = ""
    text_chars: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkIn:
    """A chunk to write: text, its span in the document, terms, vector."""

    ordinal: int
    text: str
    start: int
    end: int
    terms: Mapping[str, int]
    """Analysed term → frequency in this chunk."""
    vector: npt.NDArray[np.float32] | None = None


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A stored document."""

    document_id: str
    collection: str
    content_hash: str
    title: str
    source: str
    mime: str
    chunks: int
    text_chars: int
    updated_at: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A stored chunk with its document's title, source and metadata."""

    chunk_id: str
    document_id: str
    collection: str
    ordinal: int
    text: str
    start: int
    end: int
    title: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Hit:
    """A chunk id and its backend score."""

    chunk_id: str
    score: float


class KBStore(ABC):
    """A knowledge-base store. See the module docstring for the guarantees."""

    name: str

    @abstractmethod
    def create_collection(
        self,
        name: str,
        *,
        embedder: str | None,
        dim: int | None,
        analyzer: str = "auto",
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
        exist_ok: bool = False,
    ) -> CollectionInfo:
        """Create a collection; an existing name raises InputError unless ``exist_ok``."""

    @abstractmethod
    def get_collection(self, name: str) -> CollectionInfo: ...

    @abstractmethod
    def list_collections(self) -> list[CollectionInfo]: ...

    @abstractmethod
    def delete_collection(self, name: str) -> None: ...

    @abstractmethod
    def document_hash(self, collection: str, document_id: str) -> str | None:
        """The stored content hash, or None when the document isn't there."""

    @abstractmethod
    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        """Write a document and its chunks atomically, replacing an older version."""

    @abstractmethod
    def delete_document(self, collection: str, document_id: str) -> bool:
        """Remove a document everywhere; False when it wasn't there."""

    @abstractmethod
    def list_documents(
        self, collection: str, *, limit: int = 100, offset: int = 0
    ) -> list[DocumentInfo]: ...

    @abstractmethod
    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        """The chunks that still exist, by id (missing ids are left out)."""

    @abstractmethod
    def lexical_search(
        self,
        collection: str,
        terms: Sequence[str],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """BM25 over analysed query terms (repeated terms count once per occurrence)."""

    @abstractmethod
    def vector_search(
        self,
        collection: str,
        vector: npt.NDArray[np.float32],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """Cosine nearest chunks; empty for a collection without vectors."""

    def lexical_scores(
        self, collection: str, terms: Sequence[str], chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        """BM25 of these chunks for ``terms`` (as ``lexical_search`` scores them); chunks
        matching no term are left out. The default runs one search over the collection."""
        wanted = set(chunk_ids)
        limit = self.get_collection(collection).chunks
        hits = self.lexical_search(collection, terms, limit=limit)
        return {h.chunk_id: h.score for h in hits if h.chunk_id in wanted}

    def chunk_vectors(
        self, collection: str, chunk_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Stored unit vectors of these chunks (for query feedback); missing ids left out.

        The default knows none, so a store without it simply gets no dense feedback.
        """
        return {}

    @property
    def missing(self) -> Path | None:
        """The path a local store keeps its files in, when they aren't there (moved or
        deleted, or never created); None for a store that is there, or a server.

        Such a store reads as empty and creates nothing until ``create_collection``: only
        whoever knows what it held (the catalog, ``routing.py``) can tell a reader so.
        """
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections and files."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
