"""The SQLite store's writes: each is one ``BEGIN IMMEDIATE`` transaction that also logs changes.

A killed writer leaves an uncommitted WAL tail that SQLite discards on the next open
(https://sqlite.org/wal.html), so no half-written document is ever visible.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import apsw
import numpy as np

from unifind.errors import InputError, UnknownName
from unifind.kb._lexical import encode_postings
from unifind.kb._schema import fetch, immediate
from unifind.kb.base import ChunkIn, DocumentIn, UpsertOutcome

#: The change log keeps at least this many seqs per collection, and twice its live chunk
#: count: a follower further behind would rebuild anyway (``_follow.py``).
LOG_KEEP_MIN = 50_000
#: Trim only when this many entries are trimmable, so trimming stays rare.
LOG_SLACK = 50_000


@dataclass(frozen=True, slots=True)
class _Chunk:
    """A validated chunk, ready to insert."""

    ordinal: int
    text: str
    start: int
    end: int
    terms: dict[str, int]
    vector: bytes | None


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_json(value: Mapping[str, Any], what: str) -> str:
    try:
        return json.dumps(dict(value), ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be JSON-serialisable: {exc}") from exc


def collection_row(conn: apsw.Connection, name: str) -> tuple[int, int | None]:
    """``(id, dim)`` of a collection, or UnknownName listing the existing ones."""
    rows = fetch(conn, "SELECT id, dim FROM collections WHERE name = ?", (name,))
    if not rows:
        names = [r[0] for r in conn.execute("SELECT name FROM collections")]
        raise UnknownName("collection", name, names)
    return int(rows[0][0]), rows[0][1]


def upsert(
    conn: apsw.Connection, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
) -> UpsertOutcome:
    if not isinstance(doc.document_id, str) or not doc.document_id:
        raise InputError("document_id must be a non-empty string")
    metadata = to_json(doc.metadata, f"metadata of document {doc.document_id!r}")
    with immediate(conn):
        coll_id, dim = collection_row(conn, collection)
        prepared = [_prepare(c, collection, dim) for c in chunks]
        old = fetch(
            conn,
            "SELECT id, content_hash FROM documents WHERE collection_id = ? AND document_id = ?",
            (coll_id, doc.document_id),
        )
        if old and old[0][1] == doc.content_hash:
            return "unchanged"
        row = (
            doc.content_hash, doc.title, doc.source, doc.mime, doc.text_chars,
            len(prepared), now(), metadata,
        )  # fmt: skip
        if old:
            doc_row = int(old[0][0])
            _log_and_drop_chunks(conn, coll_id, doc_row)
            conn.execute(
                "UPDATE documents SET content_hash = ?, title = ?, source = ?, mime = ?, "
                "text_chars = ?, chunks = ?, updated_at = ?, metadata = ? WHERE id = ?",
                (*row, doc_row),
            )
        else:
            conn.execute(
                "INSERT INTO documents (collection_id, document_id, content_hash, title, "
                "source, mime, text_chars, chunks, updated_at, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (coll_id, doc.document_id, *row),
            )
            doc_row = conn.last_insert_rowid()
        _insert_chunks(conn, coll_id, doc_row, prepared)
        _trim_log(conn, coll_id)
    return "replaced" if old else "added"


def _prepare(chunk: ChunkIn, collection: str, dim: int | None) -> _Chunk:
    terms: dict[str, int] = {}
    for term, tf in chunk.terms.items():
        if not isinstance(term, str) or not term:
            raise InputError(f"chunk {chunk.ordinal}: terms must be non-empty strings: {term!r}")
        if isinstance(tf, bool) or not isinstance(tf, int | np.integer) or tf < 1:
            raise InputError(f"chunk {chunk.ordinal}: term {term!r} needs a frequency >= 1")
        terms[term] = int(tf)
    return _Chunk(
        chunk.ordinal, chunk.text, chunk.start, chunk.end, terms,
        _vector_blob(chunk, collection, dim),
    )  # fmt: skip


def _vector_blob(chunk: ChunkIn, collection: str, dim: int | None) -> bytes | None:
    if chunk.vector is None:
        return None
    if dim is None:
        raise InputError(
            f"collection {collection!r} was created without an embedder; "
            "it stores no vectors (create it with embedder= and dim=)"
        )
    vec = np.asarray(chunk.vector, dtype=np.float64)
    if vec.shape != (dim,):
        raise InputError(
            f"chunk {chunk.ordinal}: vector has shape {vec.shape}, but collection "
            f"{collection!r} expects {dim} dimensions: was it embedded with another model?"
        )
    norm = float(np.linalg.norm(vec))
    if not math.isfinite(norm):
        raise InputError(f"chunk {chunk.ordinal}: vector has NaN or infinite values")
    # Normalised on write so a dot product is the cosine whatever the embedder returned.
    unit = vec / norm if norm > 0 else vec
    return unit.astype("<f4").tobytes()


def _term_ids(conn: apsw.Connection, chunks: Sequence[_Chunk]) -> dict[str, int]:
    vocab = sorted({t for c in chunks for t in c.terms})
    if not vocab:
        return {}
    conn.executemany("INSERT OR IGNORE INTO terms (term) VALUES (?)", [(t,) for t in vocab])
    rows = conn.execute(
        "SELECT t.term, t.id FROM json_each(?) AS j JOIN terms AS t ON t.term = j.value",
        (json.dumps(vocab, ensure_ascii=False),),
    )
    return {str(term): int(tid) for term, tid in rows}


def _insert_chunks(
    conn: apsw.Connection, coll_id: int, doc_row: int, chunks: Sequence[_Chunk]
) -> None:
    ids = _term_ids(conn, chunks)
    for c in chunks:
        conn.execute(
            'INSERT INTO chunks (doc, ordinal, text, start, "end") VALUES (?, ?, ?, ?, ?)',
            (doc_row, c.ordinal, c.text, c.start, c.end),
        )
        rowid = conn.last_insert_rowid()
        if c.terms:
            postings = encode_postings({ids[t]: tf for t, tf in c.terms.items()})
            conn.execute(
                "INSERT INTO chunk_terms (chunk, length, postings) VALUES (?, ?, ?)",
                (rowid, sum(c.terms.values()), postings),
            )
        if c.vector is not None:
            conn.execute(
                "INSERT INTO chunk_vectors (chunk, vector) VALUES (?, ?)", (rowid, c.vector)
            )
        conn.execute(
            "INSERT INTO changes (collection_id, chunk, op) VALUES (?, ?, 'add')",
            (coll_id, rowid),
        )


def _log_and_drop_chunks(conn: apsw.Connection, coll_id: int, doc_row: int) -> None:
    conn.execute(
        "INSERT INTO changes (collection_id, chunk, op) "
        "SELECT ?, id, 'del' FROM chunks WHERE doc = ? ORDER BY id",
        (coll_id, doc_row),
    )
    conn.execute("DELETE FROM chunks WHERE doc = ?", (doc_row,))


def delete_document(conn: apsw.Connection, collection: str, document_id: str) -> bool:
    with immediate(conn):
        coll_id, _ = collection_row(conn, collection)
        rows = fetch(
            conn,
            "SELECT id FROM documents WHERE collection_id = ? AND document_id = ?",
            (coll_id, document_id),
        )
        if not rows:
            return False
        _log_and_drop_chunks(conn, coll_id, int(rows[0][0]))
        conn.execute("DELETE FROM documents WHERE id = ?", (rows[0][0],))
        _trim_log(conn, coll_id)
    return True


def _trim_log(conn: apsw.Connection, coll_id: int) -> None:
    """Drop old change-log entries; followers behind the new floor rebuild from the tables."""
    first, head = fetch(
        conn,
        "SELECT min(seq), max(seq) FROM changes WHERE collection_id = ?",
        (coll_id,),
    )[0]
    if first is None or head - first < LOG_KEEP_MIN + LOG_SLACK:  # two index lookups
        return
    live = fetch(conn, "SELECT chunk_count FROM collections WHERE id = ?", (coll_id,))[0][0]
    floor = head - max(LOG_KEEP_MIN, 2 * live)
    if floor - first < LOG_SLACK:
        return
    conn.execute("DELETE FROM changes WHERE collection_id = ? AND seq <= ?", (coll_id, floor))
    conn.execute("UPDATE collections SET log_floor = ? WHERE id = ?", (floor, coll_id))


def delete_collection(conn: apsw.Connection, collection: str) -> None:
    # Followers notice the collection id is gone (or changed), so no per-chunk 'del' is logged.
    with immediate(conn):
        coll_id, _ = collection_row(conn, collection)
        conn.execute("DELETE FROM changes WHERE collection_id = ?", (coll_id,))
        conn.execute("DELETE FROM collections WHERE id = ?", (coll_id,))
