"""The ingest pipeline: files or raw text → chunks, terms, vectors → any ``KBStore``.

Per document: extract (``kb.extract``) → chunk (``kb.chunk``) → analyse each chunk →
embed (in batches across documents) → ``store.upsert_document`` (atomic: a document is
written whole or not at all). A file that fails is reported with its reason and the batch
goes on. A file whose bytes and ingest settings haven't changed is skipped before any
extraction: its content hash is compared with the stored one. A full disk stops the
batch: every later file would fail the same way, so they are listed as not tried.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind.analysis import Analyzer, guess_lang
from unifind.embed.base import Embedder
from unifind.errors import EmbedderMismatch, InputError
from unifind.kb import graph
from unifind.kb._files import (
    DEFAULT_MAX_FILE_BYTES,
    FileOutcome,
    IngestReport,
    expand_paths,
    read_regular,
)
from unifind.kb._names import locate, sync_removed
from unifind.kb.base import ChunkIn, DocumentIn, KBStore
from unifind.kb.chunk import Span, chunk
from unifind.kb.extract import SUPPORTED, Extracted, ExtractError, extract_bytes, extract_text

__all__ = [
    "FileOutcome", "IngestReport", "expand_paths", "ingest_files", "ingest_text", "locate",
]  # fmt: skip

#: Part of every content hash: bump it when extraction or chunking changes what the same
#: bytes produce, so the next ingest re-indexes instead of calling old chunks unchanged.
#: "2": a file's source is its relative name, no longer the server's absolute path.
INGEST_VERSION = "2"

_BATCH = 32  # texts per embedder call, as sentence-transformers' encode() defaults to
#: With a progress callback, buffered files are written at least this often (seconds), so
#: a bar moves while small files still embed together, in batches across documents.
_PROGRESS_EVERY_S = 0.5

_Vectors = npt.NDArray[np.float32]
Progress = Callable[["FileOutcome"], None]


# -- ingest -----------------------------------------------------------------------------


def ingest_files(
    store: KBStore,
    collection: str,
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    analyzer: Analyzer,
    embedder: Embedder | None,
    max_chars: int = 1200,
    overlap: int = 150,
    metadata: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    batch_size: int = _BATCH,
    document_id: Callable[[Path], str] | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    source: Callable[[Path], str] | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    sync: bool = False,
) -> IngestReport:
    """Ingest files and folders into ``collection``; bad files are reported, not raised.

    A document's id is its resolved absolute path, unless ``document_id`` maps a path to
    one, and its recorded source is its name relative to what was given (``kb._names``)
    unless ``source`` maps it (an upload's client-side name). ``progress`` is called with
    each file's outcome as soon as that file is written: with it, documents embed one by
    one instead of in batches across documents. Inside folders, only regular files of a
    supported type are read, those the ``include``/``exclude`` globs select, and links
    leading out are not followed. A file over ``max_file_bytes`` fails unread. ``sync``
    then removes the documents of files once ingested from inside the given folders that
    they no longer hold (or that the globs now leave out); a file that failed is kept.
    Raises only for bad input, before anything is read: an unknown collection, or an
    analyser/embedder other than the collection's.
    """
    settings = _Settings.make(store, collection, analyzer, embedder, max_chars, overlap, metadata)
    if sync and document_id is not None:
        raise InputError("sync finds a folder's documents by their paths: drop document_id")
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    found, failures = expand_paths(paths, supported=SUPPORTED)
    located = locate(paths, found, include, exclude)
    files = located.files
    outcomes: list[FileOutcome] = []

    def emit(outcome: FileOutcome) -> None:
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)

    for outcome in failures:
        emit(outcome)
    writer = _Writer(store, collection, embedder, batch_size, emit)
    stopped = None
    try:
        for path in files:
            doc_id = document_id(path) if document_id else str(path)
            where = source(path) if source else located.names[path]
            _ingest_one_file(settings, writer, path, doc_id, max_file_bytes, where)
            if progress is not None and writer.due(_PROGRESS_EVERY_S):
                writer.flush()  # the bar moves at least this often, not per full batch
        writer.flush()
    except _DiskFull as exc:
        stopped = str(exc)
    order = {str(p): i for i, p in enumerate(files)}
    outcomes.sort(key=lambda o: (o.document_id is not None, order.get(o.path, -1)))
    done = {o.path for o in outcomes}
    not_tried = tuple(str(p) for p in files if str(p) not in done)
    removed: tuple[str, ...] = ()
    if sync and not stopped:  # a stopped batch never looked at every file
        removed = sync_removed(store, collection, located, outcomes)
    report = IngestReport(tuple(outcomes), stopped, not_tried if stopped else ())
    return replace(report, excluded=located.excluded, removed=removed)


def ingest_text(
    store: KBStore,
    collection: str,
    text: str,
    *,
    document_id: str,
    title: str = "",
    analyzer: Analyzer,
    embedder: Embedder | None,
    max_chars: int = 1200,
    overlap: int = 150,
    metadata: Mapping[str, Any] | None = None,
    source: str = "",
) -> FileOutcome:
    """Ingest raw text as one document; blank text is a failed outcome, a blank id raises."""
    if not document_id.strip():
        raise InputError("document_id is required for raw text: name the document")
    settings = _Settings.make(store, collection, analyzer, embedder, max_chars, overlap, metadata)
    label = source or document_id
    try:
        extracted = extract_text(text, title, name=f"document {document_id!r}")
    except ExtractError as exc:
        return FileOutcome(label, document_id, "failed", error=str(exc))
    content_hash = settings.hash(f"{title}\x00{text}".encode())
    result: list[FileOutcome] = []
    if store.document_hash(collection, document_id) == content_hash:
        return FileOutcome(label, document_id, "unchanged")
    writer = _Writer(store, collection, embedder, _BATCH, result.append)
    try:
        writer.add(settings.prepare(label, document_id, content_hash, extracted, source))
        writer.flush()
    except _DiskFull:
        pass  # its failed outcome is already in ``result``
    return result[0]


def _ingest_one_file(
    settings: _Settings, writer: _Writer, path: Path, doc_id: str, max_bytes: int, source: str
) -> None:
    try:
        data = read_regular(path, max_bytes)
        content_hash = settings.hash(data)
        if writer.store.document_hash(writer.collection, doc_id) == content_hash:
            writer.emit(FileOutcome(str(path), doc_id, "unchanged"))
            return
        extracted = extract_bytes(data, name=str(path))
        doc = settings.prepare(str(path), doc_id, content_hash, extracted, source)
    except Exception as exc:
        # Any failure — unreadable, unsupported, a parser bug — costs this file only.
        writer.emit(FileOutcome(str(path), doc_id, "failed", error=_describe(exc, path)))
        return
    writer.add(doc)


def _describe(exc: Exception, path: Path | str) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        text = f"{path}: cannot read it ({exc.strerror or exc})"
    elif not isinstance(exc, InputError):
        text = f"{path}: {type(exc).__name__}: {text}"
    return text


# -- preparing documents ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Prepared:
    label: str
    doc: DocumentIn
    spans: list[Span]
    terms: list[Counter[str]]
    embed_texts: list[str]


@dataclass(frozen=True, slots=True)
class _Settings:
    analyzer: Analyzer
    embedder_spec: str | None
    max_chars: int
    overlap: int
    metadata: dict[str, Any] = field(default_factory=dict)
    graph: bool = False
    """The collection asked for entities (``metadata={"graph": True}``, ``kb.graph``)."""

    @classmethod
    def make(
        cls,
        store: KBStore,
        collection: str,
        analyzer: Analyzer,
        embedder: Embedder | None,
        max_chars: int,
        overlap: int,
        metadata: Mapping[str, Any] | None,
    ) -> _Settings:
        """Check the collection matches the analyser and embedder (bad input raises)."""
        info = store.get_collection(collection)
        if info.analyzer != analyzer.name:
            raise InputError(
                f"collection {collection!r} is analysed with {info.analyzer!r}, "
                f"not {analyzer.name!r}: ingest with get_analyzer({info.analyzer!r})"
            )
        spec = embedder.spec if embedder is not None else None
        if spec != info.embedder or (embedder is not None and info.dim not in (None, embedder.dim)):
            raise EmbedderMismatch(
                f"collection {collection!r} was built with embedder {info.embedder!r} "
                f"({info.dim}-d), not {spec!r}: ingest with the collection's own embedder"
            )
        chunk("", max_chars=max_chars, overlap=overlap)  # validates the sizes up front
        graph = bool(info.metadata.get("graph"))
        return cls(analyzer, spec, max_chars, overlap, dict(metadata or {}), graph)

    def hash(self, content: bytes) -> str:
        """sha256 of everything that decides what gets stored for ``content``."""
        header = json.dumps(
            [INGEST_VERSION, self.analyzer.name, self.embedder_spec, self.max_chars,
             self.overlap, self.metadata, *(["graph"] if self.graph else [])],
            sort_keys=True, default=str, ensure_ascii=False,
        )  # fmt: skip
        return hashlib.sha256(header.encode() + b"\x00" + content).hexdigest()

    def prepare(
        self, label: str, doc_id: str, content_hash: str, ex: Extracted, source: str
    ) -> _Prepared:
        spans = chunk(ex.text, max_chars=self.max_chars, overlap=self.overlap)
        # The title's terms go into every chunk, as the title goes into every chunk's
        # embedding input: a passage deep in "Refund policy" is still about refunds
        # (Anthropic's "Contextual Retrieval", 2024, adds such context to BM25 chunks too).
        title_terms = self.analyzer.terms(ex.title) if ex.title else []
        terms = [Counter(title_terms + self.analyzer.terms(s.text)) for s in spans]
        if self.graph:  # entities ride along as prefixed terms, in every store (kb/graph.py)
            for counts, s in zip(terms, spans, strict=True):
                counts.update(graph.as_terms(graph.entities(f"{ex.title}\n{s.text}")))
        # Dense retrievers are evaluated on "title + text" passages (BEIR, Thakur et al.
        # 2021); the title disambiguates short chunks ("within 30 days" of *what*).
        embed_texts = [f"{ex.title}\n\n{s.text}" if ex.title else s.text for s in spans]
        derived: dict[str, Any] = {"mime": ex.mime}
        if source:
            derived["path"] = source
        if lang := guess_lang(ex.text):
            derived["lang"] = lang
        doc = DocumentIn(
            document_id=doc_id,
            content_hash=content_hash,
            title=ex.title,
            source=source,
            mime=ex.mime,
            text_chars=len(ex.text),
            metadata=derived | self.metadata,
        )
        return _Prepared(label, doc, spans, terms, embed_texts)


# -- embedding and writing --------------------------------------------------------------


class _Writer:
    """Buffers prepared documents so chunks embed in batches across documents."""

    def __init__(
        self,
        store: KBStore,
        collection: str,
        embedder: Embedder | None,
        batch_size: int,
        emit: Callable[[FileOutcome], None],
    ) -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        self.store, self.collection, self.embedder = store, collection, embedder
        self.batch_size, self.emit = batch_size, emit
        self._pending: list[_Prepared] = []
        self._flushed = -math.inf

    def due(self, every_s: float) -> bool:
        """Whether the last flush was ``every_s`` or more seconds ago."""
        return time.monotonic() - self._flushed >= every_s

    def add(self, doc: _Prepared) -> None:
        self._pending.append(doc)
        if self.embedder is None or sum(len(d.spans) for d in self._pending) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        self._flushed = time.monotonic()
        embedded: list[_Vectors | str | None] = [None] * len(pending)
        if self.embedder is not None:
            embedded = [*self._embed(self.embedder, pending)]
        ready: list[tuple[_Prepared, _Vectors | None]] = []
        for doc, vectors in zip(pending, embedded, strict=True):
            if isinstance(vectors, str):
                self.emit(FileOutcome(doc.label, doc.doc.document_id, "failed", error=vectors))
            else:
                ready.append((doc, vectors))
        if len(ready) > 1 and self._write_batch(ready):
            return
        for doc, vectors in ready:
            self._write(doc, vectors)

    def _write_batch(self, ready: list[tuple[_Prepared, _Vectors | None]]) -> bool:
        """Write the flush in one call where the store writes batches (PostgreSQL: one
        transaction, a fixed number of statements); False: write them one by one (no
        batches there, or the batch was refused, so nothing of it was written)."""
        pick = getattr(self.store, "batch_writer", None)
        many = pick(self.collection) if pick else getattr(self.store, "upsert_documents", None)
        if many is None:
            return False
        batch = [(doc.doc, _chunks(doc, vectors)) for doc, vectors in ready]
        try:
            statuses = many(self.collection, batch)
        except Exception:  # one document's fault must not fail its neighbours: find it
            return False
        for (doc, _), (_, chunks), status in zip(ready, batch, statuses, strict=True):
            written = 0 if status == "unchanged" else len(chunks)
            self.emit(FileOutcome(doc.label, doc.doc.document_id, status, chunks=written))
        return True

    def _embed(self, emb: Embedder, docs: list[_Prepared]) -> list[_Vectors | str]:
        """Each document's vectors, or why embedding it failed."""
        if len(docs) > 1:
            try:
                rows = self._vectors(emb, [t for d in docs for t in d.embed_texts])
            except Exception:
                pass  # find the culprit below: one bad document mustn't fail its neighbours
            else:
                bounds = np.cumsum([0, *(len(d.spans) for d in docs)])
                return [rows[a:b] for a, b in itertools.pairwise(bounds)]
        return [self._embed_one(emb, d) for d in docs]

    def _embed_one(self, emb: Embedder, doc: _Prepared) -> _Vectors | str:
        try:
            return self._vectors(emb, doc.embed_texts)
        except Exception as exc:
            return f"{doc.label}: embedding failed: {type(exc).__name__}: {exc}"

    def _vectors(self, emb: Embedder, texts: list[str]) -> _Vectors:
        # Sorted by length, so each call's batch pads to similar lengths (the ONNX runner
        # sorts within a call; this sorts across the calls of a flush).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = [
            emb.embed_documents([texts[j] for j in order[i : i + self.batch_size]])
            for i in range(0, len(texts), self.batch_size)
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, emb.dim), np.float32)
        if rows.shape[0] == len(texts):
            rows[order] = rows.copy()  # back in input order
        if rows.shape != (len(texts), emb.dim):
            raise ValueError(
                f"{emb.spec} returned shape {rows.shape} for {len(texts)} texts, "
                f"expected ({len(texts)}, {emb.dim})"
            )
        return rows.astype(np.float32, copy=False)

    def _write(self, doc: _Prepared, vectors: _Vectors | None) -> None:
        chunks = _chunks(doc, vectors)
        try:
            status = self.store.upsert_document(self.collection, doc.doc, chunks)
        except Exception as exc:
            full = _disk_full(exc)
            error = f"{doc.label}: the store refused it: {type(exc).__name__}: {exc}"
            if full:
                error = f"{doc.label}: not written, the disk is full ({exc}): {_FREE_SPACE}"
            self.emit(FileOutcome(doc.label, doc.doc.document_id, "failed", error=error))
            if full:
                raise _DiskFull(error) from exc
            return
        written = 0 if status == "unchanged" else len(chunks)
        self.emit(FileOutcome(doc.label, doc.doc.document_id, status, chunks=written))


def _chunks(doc: _Prepared, vectors: _Vectors | None) -> list[ChunkIn]:
    return [
        ChunkIn(
            ordinal=i, text=span.text, start=span.start, end=span.end,
            terms=dict(doc.terms[i]), vector=vectors[i] if vectors is not None else None,
        )
        for i, span in enumerate(doc.spans)
    ]  # fmt: skip


_FREE_SPACE = "free space, then ingest again"


class _DiskFull(Exception):
    """Stops a batch: every later write would fail the same way."""


def _disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) says the disk or quota is full."""
    for _ in range(8):  # a bounded walk down __cause__/__context__
        if exc is None:
            return False
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
            return True
        # SQLite reports a short write as SQLITE_FULL (os_unix.c unixWrite): sqlite3 names
        # it on the error, apsw raises FullError. PostgreSQL's SQLSTATE 53100 is disk_full.
        if getattr(exc, "sqlite_errorname", None) == "SQLITE_FULL":
            return True
        if (type(exc).__module__, type(exc).__name__) == ("apsw", "FullError"):
            return True
        if getattr(exc, "sqlstate", None) == "53100":
            return True
        exc = exc.__cause__ or exc.__context__
    return False
