"""Many documents in one SQLite transaction, each table written by one ``executemany``.

The same contract as PostgreSQL's ``_pgbulk.py``: all of the batch or none of it, outcomes
in batch order, and the state one-by-one upserts would leave. Row ids are drawn up front
from ``sqlite_sequence`` under the write lock (``BEGIN IMMEDIATE``), in batch order, so
documents and chunks get the ids ``_write.upsert`` would have given them, and
``AUTOINCREMENT`` still never reuses one (https://sqlite.org/autoinc.html: an explicit
rowid above the sequence moves it). What it saves over the one-by-one path is a
transaction, a collection lookup, a log trim and a statement per row for every document.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import apsw

from unifind.errors import InputError
from unifind.kb._lexical import encode_postings
from unifind.kb._schema import fetch, immediate
from unifind.kb._write import _Chunk, _prepare, _term_ids, _trim_log, collection_row, now, to_json
from unifind.kb.base import ChunkIn, DocumentIn, UpsertOutcome

Batch = Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]
_Todo = tuple[DocumentIn, str, list[_Chunk]]


def upsert_many(conn: apsw.Connection, collection: str, batch: Batch) -> list[UpsertOutcome]:
    """Write ``batch`` in one transaction; every document is validated before anything
    is written, and a document named twice refuses the batch."""
    names = [doc.document_id for doc, _ in batch]
    for name in names:
        if not isinstance(name, str) or not name:
            raise InputError("document_id must be a non-empty string")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"document {dup!r} appears twice in one batch")
    metas = [to_json(doc.metadata, f"metadata of document {doc.document_id!r}") for doc, _ in batch]
    with immediate(conn):
        coll_id, dim = collection_row(conn, collection)
        prepared = [[_prepare(c, collection, dim) for c in chunks] for _, chunks in batch]
        old = {
            str(r[0]): (int(r[1]), str(r[2]))
            for r in conn.execute(
                # CROSS JOIN keeps the batch outside: SQLite's planner otherwise scans
                # the collection's documents and the batch for each (quadratic at 1M).
                "SELECT d.document_id, d.id, d.content_hash FROM json_each(?) AS j "
                "CROSS JOIN documents AS d ON d.collection_id = ? AND d.document_id = j.value",
                (json.dumps(names, ensure_ascii=False), coll_id),
            )
        }
        outcomes: list[UpsertOutcome] = []
        todo: list[_Todo] = []
        for (doc, _), meta, chunks in zip(batch, metas, prepared, strict=True):
            was = old.get(doc.document_id)
            if was is not None and was[1] == doc.content_hash:
                outcomes.append("unchanged")
                continue
            outcomes.append("replaced" if was is not None else "added")
            todo.append((doc, meta, chunks))
        if todo:
            _write_documents(conn, coll_id, todo, old)
            _trim_log(conn, coll_id)
    return outcomes


def _next_id(conn: apsw.Connection, table: str) -> int:
    """The id ``AUTOINCREMENT`` would give the next row of ``table``."""
    (seq,) = fetch(conn, "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = ?",
                   (table,))[0]  # fmt: skip
    (top,) = fetch(conn, f"SELECT coalesce(max(id), 0) FROM {table}")[0]  # a name of ours
    return max(int(seq), int(top)) + 1


def _write_documents(
    conn: apsw.Connection, coll_id: int, todo: list[_Todo], old: dict[str, tuple[int, str]]
) -> None:
    stamp = now()
    replaced = [old[doc.document_id][0] for doc, _, _ in todo if doc.document_id in old]
    if replaced:  # their old chunks leave every index: logged, then deleted (cascades)
        rows = json.dumps(replaced)
        conn.execute(
            "INSERT INTO changes (collection_id, chunk, op) SELECT ?, c.id, 'del' "
            "FROM json_each(?) AS j CROSS JOIN chunks AS c ON c.doc = j.value ORDER BY c.id",
            (coll_id, rows),
        )
        conn.execute("DELETE FROM chunks WHERE doc IN (SELECT value FROM json_each(?))", (rows,))
    next_doc = _next_id(conn, "documents")
    doc_rows: list[int] = []
    updates, inserts = [], []
    for doc, meta, chunks in todo:
        fields = (doc.content_hash, doc.title, doc.source, doc.mime, doc.text_chars,
                  len(chunks), stamp, meta)  # fmt: skip
        if doc.document_id in old:
            doc_rows.append(old[doc.document_id][0])
            updates.append((*fields, doc_rows[-1]))
        else:
            doc_rows.append(next_doc)
            inserts.append((next_doc, coll_id, doc.document_id, *fields))
            next_doc += 1
    conn.executemany(
        "UPDATE documents SET content_hash = ?, title = ?, source = ?, mime = ?, "
        "text_chars = ?, chunks = ?, updated_at = ?, metadata = ? WHERE id = ?",
        updates,
    )
    conn.executemany(
        "INSERT INTO documents (id, collection_id, document_id, content_hash, title, source, "
        "mime, text_chars, chunks, updated_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        inserts,
    )
    placed = [(row, chunks) for row, (_, _, chunks) in zip(doc_rows, todo, strict=True)]
    _write_chunks(conn, coll_id, placed)


def _write_chunks(
    conn: apsw.Connection, coll_id: int, docs: list[tuple[int, list[_Chunk]]]
) -> None:
    terms = _term_ids(conn, [c for _, chunks in docs for c in chunks])
    chunk_id = _next_id(conn, "chunks")
    rows, postings, vectors, log = [], [], [], []
    for doc_row, chunks in docs:
        for c in chunks:
            rows.append((chunk_id, doc_row, c.ordinal, c.text, c.start, c.end))
            if c.terms:
                encoded = encode_postings({terms[t]: tf for t, tf in c.terms.items()})
                postings.append((chunk_id, sum(c.terms.values()), encoded))
            if c.vector is not None:
                vectors.append((chunk_id, c.vector))
            log.append((coll_id, chunk_id))
            chunk_id += 1
    conn.executemany(
        'INSERT INTO chunks (id, doc, ordinal, text, start, "end") VALUES (?, ?, ?, ?, ?, ?)',
        rows,
    )
    conn.executemany("INSERT INTO chunk_terms (chunk, length, postings) VALUES (?, ?, ?)", postings)
    conn.executemany("INSERT INTO chunk_vectors (chunk, vector) VALUES (?, ?)", vectors)
    conn.executemany("INSERT INTO changes (collection_id, chunk, op) VALUES (?, ?, 'add')", log)
