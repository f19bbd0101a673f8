"""Copy a collection between KB stores: chunks, terms and vectors as stored (no re-embedding).

Each document is exported from the source and written to the target with the target's
atomic ``upsert_document`` (or ``upsert_documents``, ``BATCH_DOCS`` in one transaction,
where the target has it: PostgreSQL), in document-id order. A journal under ``home/migrations``
marks a copy in progress, so a killed migration resumes (documents already there with the
same content hash are skipped, not rewritten) instead of being refused as "exists".
At the end, both sides are verified: document and chunk counts, and per document the
content hash and a digest of every chunk's text, span, terms and vector.

``on_verified`` runs after verification and before the journal is removed: ``kb migrate``
re-points the catalog there (``RoutingStore.repoint``), so a run killed before or during
that step is resumed by running it again, not refused as "exists".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from unifind.errors import InputError, UnknownName
from unifind.kb._remote import redact
from unifind.kb.base import ChunkIn, CollectionInfo, DocumentIn, KBStore

Progress = Callable[[int, int], None]
Exported = tuple[DocumentIn, list[ChunkIn]]
#: Documents written per call where the target writes batches (``upsert_documents``).
BATCH_DOCS = 200


@dataclass(frozen=True, slots=True)
class MigrateReport:
    """What a migration did and what it verified."""

    collection: str
    documents: int
    chunks: int
    copied: int
    """Documents written by this run (the rest were already there: a resumed run)."""
    skipped: int
    verified: bool


def export_document(store: KBStore, collection: str, document_id: str) -> Exported | None:
    """A document as stored (terms, unit vectors), or None when it isn't there."""
    exporter = getattr(store, "export_document", None)
    if exporter is None:
        raise InputError(f"the {store.name} KB store can't export documents for a migration")
    got: Exported | None = exporter(collection, document_id)
    return got


def _document_ids(store: KBStore, collection: str, page: int = 500) -> Iterator[str]:
    offset = 0
    while batch := store.list_documents(collection, limit=page, offset=offset):
        yield from (d.document_id for d in batch)
        offset += len(batch)


def digest(exported: Exported) -> str:
    """A content hash of a stored document: hash, metadata, every chunk's text, span and
    terms, and which chunks have vectors (compared by :func:`same_vectors`)."""
    doc, chunks = exported
    h = hashlib.sha256()
    head = [doc.content_hash, doc.title, doc.source, doc.mime, doc.text_chars, doc.metadata]
    h.update(json.dumps(head, sort_keys=True, ensure_ascii=False).encode())
    for c in sorted(chunks, key=lambda c: c.ordinal):
        row = [c.ordinal, c.text, c.start, c.end, sorted(c.terms.items())]
        h.update(json.dumps([*row, c.vector is None], ensure_ascii=False).encode())
    return h.hexdigest()


def same_vectors(a: Exported, b: Exported) -> bool:
    """Vectors equal up to float32 rounding: a store re-normalises a unit vector on write,
    which may move its last bit (the cosine changes by < 1e-6)."""
    if len(a[1]) != len(b[1]):
        return False
    pairs = zip(
        sorted(a[1], key=lambda c: c.ordinal), sorted(b[1], key=lambda c: c.ordinal), strict=True
    )
    for x, y in pairs:
        if x.vector is None or y.vector is None:
            if x.vector is not y.vector:
                return False
        elif not np.allclose(x.vector, y.vector, rtol=0, atol=1e-6):
            return False
    return True


def _journal(home: Path, collection: str, target: str) -> Path:
    key = hashlib.sha256(f"{collection}\0{redact(target)}".encode()).hexdigest()[:16]
    return home / "migrations" / f"{collection}-{key}.json"


def _prepare_target(info: CollectionInfo, dst: KBStore, journal: Path, merge: bool) -> None:
    """Create the target collection, or accept it: resuming, or asked to merge."""
    try:
        existing = dst.get_collection(info.name)
    except UnknownName:
        journal.parent.mkdir(parents=True, exist_ok=True)
        journal.write_text(json.dumps({"collection": info.name, "state": "copying"}))
        dst.create_collection(
            info.name, embedder=info.embedder, dim=info.dim, analyzer=info.analyzer,
            description=info.description, metadata=info.metadata,
        )  # fmt: skip
        return
    if (existing.embedder, existing.dim, existing.analyzer) != (
        info.embedder, info.dim, info.analyzer,
    ):  # fmt: skip
        raise InputError(
            f"collection {info.name!r} exists in the target with embedder {existing.embedder} "
            f"({existing.dim}-d, analyser {existing.analyzer}) but the source has "
            f"{info.embedder} ({info.dim}-d, analyser {info.analyzer}): refusing to mix them"
        )
    if not journal.exists() and not merge:
        raise InputError(
            f"collection {info.name!r} already exists in the target store; pass --merge to "
            "add the source's documents to it (same ids are replaced)"
        )


def migrate(
    src: KBStore,
    dst: KBStore,
    collection: str,
    *,
    home: Path,
    target: str,
    merge: bool = False,
    progress: Progress | None = None,
    on_verified: Callable[[], object] | None = None,
) -> MigrateReport:
    """Copy ``collection`` from ``src`` to ``dst`` and verify it. ``target`` names the
    destination (a redacted URL) for the resume journal under ``home``.

    The source's collection is held for the whole run where its store can lock across
    processes (``migration_lock``: PostgreSQL's advisory locks), so two servers migrating
    the same collection at once are one run and one refusal, not two interleaved copies.
    """
    with _held(src, collection):
        return _migrate(src, dst, collection, home, target, merge, progress, on_verified)


def _held(store: KBStore, collection: str) -> contextlib.AbstractContextManager[Any]:
    lock = getattr(store, "migration_lock", None)
    return contextlib.nullcontext() if lock is None else lock(collection)  # type: ignore[no-any-return]


def _migrate(
    src: KBStore,
    dst: KBStore,
    collection: str,
    home: Path,
    target: str,
    merge: bool,
    progress: Progress | None,
    on_verified: Callable[[], object] | None,
) -> MigrateReport:
    info = src.get_collection(collection)
    journal = _journal(home, collection, target)
    _prepare_target(info, dst, journal, merge)
    names = list(_document_ids(src, collection))
    copied = skipped = reported = 0
    pending: list[Exported] = []
    for i, doc_id in enumerate(names, 1):
        hash_ = src.document_hash(collection, doc_id)
        if hash_ is not None and dst.document_hash(collection, doc_id) == hash_:
            skipped += 1  # written by a run that was killed after it: resume
        else:
            exported = export_document(src, collection, doc_id)
            if exported is not None:
                pending.append(exported)
                copied += 1
        if not pending or len(pending) >= BATCH_DOCS or i == len(names):
            _write(dst, collection, pending)
            pending.clear()
            if progress is not None:  # documents copied, or found there: never ahead
                for done in range(reported + 1, i + 1):
                    progress(done, len(names))
            reported = i
    verified = verify(src, dst, collection, names)
    total = src.get_collection(collection)
    if on_verified is not None:
        on_verified()
    journal.unlink(missing_ok=True)
    return MigrateReport(collection, total.documents, total.chunks, copied, skipped, verified)


def _write(dst: KBStore, collection: str, docs: list[Exported]) -> None:
    """Write ``docs``: in one transaction where the target writes batches (PostgreSQL's
    ``upsert_documents``: a fixed number of statements), else one by one."""
    many = getattr(dst, "upsert_documents", None)
    if many is not None and len(docs) > 1:
        many(collection, docs)
        return
    for doc, chunks in docs:
        dst.upsert_document(collection, doc, chunks)


def verify(src: KBStore, dst: KBStore, collection: str, names: Sequence[str]) -> bool:
    """Raise InputError naming the first difference; True when every document matches."""
    a, b = src.get_collection(collection), dst.get_collection(collection)
    if not set(names) <= set(_document_ids(dst, collection)):
        raise InputError(f"verification failed: documents of {collection!r} missing in target")
    if not _merged(a, b):
        raise InputError(
            f"verification failed: source has {a.documents} documents / {a.chunks} chunks, "
            f"target {b.documents} / {b.chunks}"
        )
    for doc_id in names:
        left, right = (export_document(s, collection, doc_id) for s in (src, dst))
        if left is not None and (right is None or digest(left) != digest(right)):
            raise InputError(f"verification failed: document {doc_id!r} differs in the target")
    return True


def _merged(a: CollectionInfo, b: Any) -> bool:
    # With --merge the target may hold more than the source; never less.
    return bool(b.documents >= a.documents and b.chunks >= a.chunks)
