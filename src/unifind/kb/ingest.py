"""The ingest pipeline: files or raw text → chunks, terms, vectors → any ``KBStore``.

Per document: extract (``kb.extract``) → chunk (``kb.chunk``) → analyse each chunk →
embed (in batches across documents) → ``store.upsert_document`` (atomic: a document is
written whole or not at all). A file that fails is reported with its reason and the batch
goes on. A file whose bytes and ingest settings haven't changed is skipped before any
extraction: its content hash is compared with the stored one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from unifind.analysis import Analyzer, guess_lang
from unifind.embed.base import Embedder
from unifind.errors import EmbedderMismatch, InputError
from unifind.kb.base import ChunkIn, DocumentIn, KBStore
from unifind.kb.chunk import Span, chunk
from unifind.kb.extract import Extracted, extract_bytes, extract_text

__all__ = ["FileOutcome", "IngestReport", "expand_paths", "ingest_files", "ingest_text"]

#: Part of every content hash: bump it when extraction or chunking changes what the same
#: bytes produce, so the next ingest re-indexes instead of calling old chunks unchanged.
INGEST_VERSION = "1"

_BATCH = 32  # texts per embedder call, as sentence-transformers' encode() defaults to

Status = Literal["added", "replaced", "unchanged", "failed"]
_Vectors = npt.NDArray[np.float32]
Progress = Callable[["FileOutcome"], None]


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file (or one raw text)."""

    path: str
    """The path as found (or given, when missing); the document id for raw text."""
    document_id: str | None
    """None when the file failed before an id was assigned (a missing path)."""
    status: Status
    chunks: int = 0
    """Chunks written; 0 for unchanged and failed documents."""
    error: str | None = None
    """Why it failed, naming the file; None otherwise."""


@dataclass(frozen=True, slots=True)
class IngestReport:
    """Every file's outcome, missing paths first, then files in sorted path order."""

    outcomes: tuple[FileOutcome, ...]

    def _count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def added(self) -> int:
        return self._count("added")

    @property
    def replaced(self) -> int:
        return self._count("replaced")

    @property
    def unchanged(self) -> int:
        return self._count("unchanged")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def failures(self) -> tuple[FileOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == "failed")


# -- paths ------------------------------------------------------------------------------


def expand_paths(
    paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
) -> tuple[list[Path], list[FileOutcome]]:
    """(files, failures): folders walked recursively, skipping hidden entries inside them.

    Files come back resolved, sorted and deduplicated; a path that doesn't exist becomes a
    failed outcome. A hidden file or folder named explicitly is taken.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    files: set[Path] = set()
    failures: list[FileOutcome] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            files.update(_walk(path))
        elif path.is_file():
            files.add(path.resolve())
        else:
            why = "a broken symbolic link" if path.is_symlink() else "no such file or directory"
            failures.append(FileOutcome(str(raw), None, "failed", error=f"{raw}: {why}"))
    return sorted(files), failures


def _walk(top: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, names in os.walk(top):  # followlinks=False: no symlink loops
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(Path(root, n).resolve() for n in names if not n.startswith("."))
    return found


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
) -> IngestReport:
    """Ingest files and folders into ``collection``; bad files are reported, not raised.

    A document's id is its resolved absolute path, unless ``document_id`` maps a path to
    one. ``progress`` is called with each outcome as soon as it is known. Raises only for
    bad input, before anything is read: an unknown collection, or an analyser/embedder
    other than the collection's.
    """
    settings = _Settings.make(store, collection, analyzer, embedder, max_chars, overlap, metadata)
    files, failures = expand_paths(paths)
    outcomes: list[FileOutcome] = []

    def emit(outcome: FileOutcome) -> None:
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)

    for outcome in failures:
        emit(outcome)
    writer = _Writer(store, collection, embedder, batch_size, emit)
    for path in files:
        doc_id = document_id(path) if document_id else str(path)
        _ingest_one_file(settings, writer, path, doc_id)
    writer.flush()
    order = {str(p): i for i, p in enumerate(files)}
    outcomes.sort(key=lambda o: (o.document_id is not None, order.get(o.path, -1)))
    return IngestReport(tuple(outcomes))


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
    """Ingest raw text as one document; blank text or id raises ``InputError``."""
    if not document_id.strip():
        raise InputError("document_id is required for raw text: name the document")
    settings = _Settings.make(store, collection, analyzer, embedder, max_chars, overlap, metadata)
    extracted = extract_text(text, title)
    content_hash = settings.hash(f"{title}\x00{text}".encode())
    result: list[FileOutcome] = []
    label = source or document_id
    if store.document_hash(collection, document_id) == content_hash:
        return FileOutcome(label, document_id, "unchanged")
    writer = _Writer(store, collection, embedder, _BATCH, result.append)
    writer.add(settings.prepare(label, document_id, content_hash, extracted, source))
    writer.flush()
    return result[0]


def _ingest_one_file(settings: _Settings, writer: _Writer, path: Path, doc_id: str) -> None:
    try:
        data = path.read_bytes()
        content_hash = settings.hash(data)
        if writer.store.document_hash(writer.collection, doc_id) == content_hash:
            writer.emit(FileOutcome(str(path), doc_id, "unchanged"))
            return
        extracted = extract_bytes(data, name=str(path))
        doc = settings.prepare(str(path), doc_id, content_hash, extracted, str(path))
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
        return cls(analyzer, spec, max_chars, overlap, dict(metadata or {}))

    def hash(self, content: bytes) -> str:
        """sha256 of everything that decides what gets stored for ``content``."""
        header = json.dumps(
            [INGEST_VERSION, self.analyzer.name, self.embedder_spec, self.max_chars,
             self.overlap, self.metadata],
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

    def add(self, doc: _Prepared) -> None:
        self._pending.append(doc)
        if self.embedder is None or sum(len(d.spans) for d in self._pending) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        embedded: list[_Vectors | str | None] = [None] * len(pending)
        if self.embedder is not None:
            embedded = [*self._embed(self.embedder, pending)]
        for doc, vectors in zip(pending, embedded, strict=True):
            if isinstance(vectors, str):
                self.emit(FileOutcome(doc.label, doc.doc.document_id, "failed", error=vectors))
            else:
                self._write(doc, vectors)

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
        parts = [
            emb.embed_documents(texts[i : i + self.batch_size])
            for i in range(0, len(texts), self.batch_size)
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, emb.dim), np.float32)
        if rows.shape != (len(texts), emb.dim):
            raise ValueError(
                f"{emb.spec} returned shape {rows.shape} for {len(texts)} texts, "
                f"expected ({len(texts)}, {emb.dim})"
            )
        return rows.astype(np.float32, copy=False)

    def _write(self, doc: _Prepared, vectors: _Vectors | None) -> None:
        chunks = [
            ChunkIn(
                ordinal=i,
                text=span.text,
                start=span.start,
                end=span.end,
                terms=dict(doc.terms[i]),
                vector=vectors[i] if vectors is not None else None,
            )
            for i, span in enumerate(doc.spans)
        ]
        try:
            status = self.store.upsert_document(self.collection, doc.doc, chunks)
        except Exception as exc:
            error = f"{doc.label}: the store refused it: {type(exc).__name__}: {exc}"
            self.emit(FileOutcome(doc.label, doc.doc.document_id, "failed", error=error))
            return
        written = 0 if status == "unchanged" else len(chunks)
        self.emit(FileOutcome(doc.label, doc.doc.document_id, status, chunks=written))
