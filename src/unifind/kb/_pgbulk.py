"""Many documents in one PostgreSQL transaction, in a fixed number of statements.

A batch of any size costs about ten statements: one read of the documents already there,
one aggregate and three deletes for the ones replaced, ids drawn from the sequences in one
statement each, ``COPY`` for documents, chunks and postings, and one update of the
collection's counts. Row-at-a-time ``INSERT`` would cost a round trip per row
(https://www.postgresql.org/docs/current/populate.html: "Use COPY").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from unifind.errors import InputError
from unifind.kb import _pgsql, _remote, _write
from unifind.kb.base import ChunkIn, DocumentIn, UpsertOutcome

Batch = Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]
Q = Callable[..., Any]
#: ``chunks``' columns for a binary ``COPY``; the vector's bytes are already pgvector's
#: binary form, so they pass through as ``bytea`` does (unchanged).
_CHUNK_TYPES = ["int8", "int8", "int8", "int4", "text", "int4", "int4", "int4", "bytea"]


def upsert_many(conn: Any, q: Q, collection: str, cid: int, dim: int | None,
                batch: Batch) -> list[UpsertOutcome]:  # fmt: skip
    """Write ``batch`` inside the caller's transaction (which holds the collection's row
    lock); every document is validated before anything is written."""
    ready = [(doc, *_remote.prepare(collection, dim, doc, chunks)) for doc, chunks in batch]
    names = [doc.document_id for doc, _, _ in ready]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"document {dup!r} appears twice in one batch")
    old = {
        str(r[0]): (int(r[1]), str(r[2]))
        for r in conn.execute(
            q(
                "SELECT document_id, id, content_hash FROM {s}.documents "
                "WHERE collection_id = %s AND document_id = ANY(%s::text[])"
            ),
            (cid, names),
        )
    }
    outcomes: list[UpsertOutcome] = []
    todo = []
    for doc, meta, prepared in ready:
        was = old.get(doc.document_id)
        if was is not None and was[1] == doc.content_hash:
            outcomes.append("unchanged")
            continue
        outcomes.append("replaced" if was is not None else "added")
        todo.append((doc, meta, prepared))
    dropped = [old[d.document_id][0] for d, _, _ in todo if d.document_id in old]
    counts = _drop(conn, q, dropped)
    if todo:
        counts = _insert(conn, q, cid, todo, counts)
    conn.execute(
        q(
            "UPDATE {s}.collections SET doc_count = doc_count + %s, chunk_count = chunk_count "
            "+ %s, lex_count = lex_count + %s, total_len = total_len + %s WHERE id = %s"
        ),
        (*counts, cid),
    )
    return outcomes


def _drop(conn: Any, q: Q, docs: list[int]) -> list[int]:
    """Delete these document rows with their chunks and postings; the counts' deltas."""
    if not docs:
        return [0, 0, 0, 0]
    n, lex, total = conn.execute(
        q(
            "SELECT count(*), count(*) FILTER (WHERE length > 0), coalesce(sum(length), 0) "
            "FROM {s}.chunks WHERE doc = ANY(%s::bigint[])"
        ),
        (docs,),
    ).fetchone()
    for table, key in (("postings", "doc"), ("chunks", "doc"), ("documents", "id")):
        conn.execute(q(f"DELETE FROM {{s}}.{table} WHERE {key} = ANY(%s::bigint[])"), (docs,))
    return [-len(docs), -int(n), -int(lex), -int(total)]


def _ids(conn: Any, q: Q, sequence: str, n: int) -> list[int]:
    rows = conn.execute(
        q("SELECT nextval(%s::regclass) FROM generate_series(1, %s)"), (sequence, n)
    )
    return [int(r[0]) for r in rows]


def _insert(conn: Any, q: Q, cid: int, todo: list[Any], counts: list[int]) -> list[int]:
    schema = q("{s}").as_string(None)
    doc_ids = _ids(conn, q, f"{schema}.documents_id_seq", len(todo))
    chunk_ids = iter(_ids(conn, q, f"{schema}.chunk_ids", sum(len(p) for _, _, p in todo)))
    now = _write.now()
    cols = "id, collection_id, document_id, content_hash, title, source, mime, text_chars, "
    with conn.cursor().copy(q(f"COPY {{s}}.documents ({cols}chunks, updated_at, metadata) "
                              "FROM STDIN")) as cp:  # fmt: skip
        for row_id, (doc, meta, prepared) in zip(doc_ids, todo, strict=True):
            cp.write_row((row_id, cid, doc.document_id, doc.content_hash, doc.title, doc.source,
                          doc.mime, doc.text_chars, len(prepared), now, meta))  # fmt: skip
    rows = [
        (next(chunk_ids), row_id, c, sum(c.terms.values()))
        for row_id, (_, _, prepared) in zip(doc_ids, todo, strict=True)
        for c in prepared
    ]
    # Binary: vectors go as pgvector's own binary form, not 384 floats formatted here and
    # parsed by the server (the load's largest cost on both sides); the types are the
    # columns' own, so every value is stored exactly as the text form would store it.
    with conn.cursor().copy(
        q('COPY {s}.chunks (id, collection_id, doc, ordinal, text, start, "end", length, '
          "vector) FROM STDIN (FORMAT BINARY)")
    ) as cp:  # fmt: skip
        cp.set_types(_CHUNK_TYPES)
        for chunk_id, row_id, c, n in rows:
            vector = _pgsql.vector_binary(c.vector)
            cp.write_row((chunk_id, cid, row_id, c.ordinal, c.text, c.start, c.end, n, vector))
    with conn.cursor().copy(
        q("COPY {s}.postings (collection_id, term, chunk, doc, tf, length) FROM STDIN "
          "(FORMAT BINARY)")
    ) as cp:  # fmt: skip
        cp.set_types(["int8", "text", "int8", "int8", "int4", "int4"])
        for chunk_id, row_id, c, n in rows:
            for term, tf in c.terms.items():
                cp.write_row((cid, term, chunk_id, row_id, tf, n))
    lengths = [n for *_, n in rows]
    added = [len(todo), len(rows), sum(1 for n in lengths if n), sum(lengths)]
    return [a + b for a, b in zip(counts, added, strict=True)]
