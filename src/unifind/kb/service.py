"""KnowledgeBase: collections, ingest and search over one store — the KB leg's front door."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from unifind.analysis import get_analyzer
from unifind.config import Settings, load_settings
from unifind.embed.base import Embedder, Reranker, resolve_embedder, resolve_reranker
from unifind.errors import EmbedderMismatch
from unifind.kb.base import CollectionInfo, DocumentInfo, KBStore
from unifind.kb.ingest import FileOutcome, IngestReport, ingest_files, ingest_text
from unifind.kb.search import search_collections
from unifind.registry import registry
from unifind.types import SearchRequest, SearchResult

__all__ = ["FileOutcome", "IngestReport", "KnowledgeBase"]

EmbedderFactory = Callable[[str], Embedder]


class KnowledgeBase:
    """Collections, ingest and hybrid search over one KB store.

    Embedders and rerankers are loaded once per spec and shared (loading bge-small costs
    ~0.3 s); ``embedder_factory`` replaces how a spec becomes an embedder (tests, caches).
    """

    def __init__(
        self,
        store: KBStore,
        settings: Settings | None = None,
        *,
        embedder_factory: EmbedderFactory | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or load_settings()
        self._factory = embedder_factory or resolve_embedder
        self._embedders: dict[str, Embedder] = {}
        self._rerankers: dict[str, Reranker] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, embedder_factory: EmbedderFactory | None = None
    ) -> KnowledgeBase:
        """Open the configured store (the embedded SQLite file under ``settings.home``)."""
        settings = settings or load_settings()
        store_cls = registry("kb_stores").get(settings.kb.store)
        settings.home.mkdir(parents=True, exist_ok=True)
        return cls(store_cls(settings.kb_path), settings, embedder_factory=embedder_factory)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- models ------------------------------------------------------------------------

    def embedder(self, spec: str) -> Embedder:
        """The embedder for ``spec``, loaded once."""
        with self._lock:
            if spec not in self._embedders:
                emb = self._factory(spec)
                # An alias (e.g. "openai:x" → "openai:x@host") is cached under both names.
                self._embedders[spec] = self._embedders[emb.spec] = emb
            return self._embedders[spec]

    def reranker(self, spec: str) -> Reranker:
        """The reranker for ``spec``, loaded once."""
        with self._lock:
            if spec not in self._rerankers:
                self._rerankers[spec] = resolve_reranker(spec)
            return self._rerankers[spec]

    def collection_embedder(self, info: CollectionInfo) -> Embedder | None:
        """The embedder a collection was built with; refuses one that answers another spec."""
        if info.embedder is None:
            return None
        emb = self.embedder(info.embedder)
        if emb.spec != info.embedder or (info.dim is not None and emb.dim != info.dim):
            raise EmbedderMismatch(
                f"collection {info.name!r} was built with {info.embedder} ({info.dim}-d) but "
                f"that spec now loads {emb.spec} ({emb.dim}-d); re-create the collection or "
                "configure the original model"
            )
        return emb

    # -- collections -------------------------------------------------------------------

    def create(
        self,
        name: str,
        *,
        embedder: str | None = "default",
        description: str = "",
        analyzer: str = "auto",
        exist_ok: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> CollectionInfo:
        """Create a collection. ``embedder=None`` makes it lexical-only."""
        spec = self.settings.kb.embedder if embedder == "default" else embedder
        emb = self.embedder(spec) if spec else None
        get_analyzer(analyzer)  # fail on an unknown analyser before writing anything
        return self.store.create_collection(
            name,
            embedder=emb.spec if emb else None,
            dim=emb.dim if emb else None,
            analyzer=analyzer,
            description=description,
            metadata=metadata,
            exist_ok=exist_ok,
        )

    def collections(self) -> list[CollectionInfo]:
        return self.store.list_collections()

    def collection(self, name: str) -> CollectionInfo:
        return self.store.get_collection(name)

    def delete(self, name: str) -> None:
        self.store.delete_collection(name)

    def documents(self, name: str, *, limit: int = 100, offset: int = 0) -> list[DocumentInfo]:
        return self.store.list_documents(name, limit=limit, offset=offset)

    def remove(self, name: str, document_id: str) -> bool:
        """Delete one document; False when it wasn't there."""
        return self.store.delete_document(name, document_id)

    # -- ingest ------------------------------------------------------------------------

    def ingest(
        self,
        name: str,
        paths: Iterable[str | Path],
        *,
        metadata: Mapping[str, Any] | None = None,
        progress: Callable[[FileOutcome], None] | None = None,
    ) -> IngestReport:
        """Ingest files and folders; bad files are reported, the rest ingested."""
        info = self.store.get_collection(name)
        return ingest_files(
            self.store,
            name,
            list(paths),
            analyzer=get_analyzer(info.analyzer),
            embedder=self.collection_embedder(info),
            max_chars=self.settings.kb.chunk_chars,
            overlap=self.settings.kb.chunk_overlap,
            metadata=metadata,
            progress=progress,
        )

    def ingest_text(
        self,
        name: str,
        text: str,
        *,
        document_id: str,
        title: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> FileOutcome:
        """Ingest raw text as one document."""
        info = self.store.get_collection(name)
        return ingest_text(
            self.store,
            name,
            text,
            document_id=document_id,
            title=title,
            analyzer=get_analyzer(info.analyzer),
            embedder=self.collection_embedder(info),
            max_chars=self.settings.kb.chunk_chars,
            overlap=self.settings.kb.chunk_overlap,
            metadata=metadata,
        )

    # -- search ------------------------------------------------------------------------

    async def search(self, req: SearchRequest) -> SearchResult:
        """Hybrid search over the request's collections (all when none are named)."""
        return await search_collections(self, req)

    def search_sync(self, req: SearchRequest) -> SearchResult:
        """Blocking form of :meth:`search` (for scripts; not inside a running event loop)."""
        return asyncio.run(self.search(req))
