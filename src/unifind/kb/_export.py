"""Read a stored document back as it was written (terms, unit vectors): for ``kb migrate``."""

from __future__ import annotations

import json
from typing import Any

import apsw
import numpy as np

from unifind.kb import _write
from unifind.kb._schema import snapshot
from unifind.kb.base import ChunkIn, DocumentIn

Exported = tuple[DocumentIn, list[ChunkIn]]


def sqlite_document(conn: apsw.Connection, collection: str, document_id: str) -> Exported | None:
    """A document of the SQLite store's file, read in one snapshot."""
    with snapshot(conn):
        coll_id, _ = _write.collection_row(conn, collection)
        rows: list[Any] = conn.execute(
            "SELECT id, content_hash, title, source, mime, text_chars, metadata FROM documents "
            "WHERE collection_id = ? AND document_id = ?",
            (coll_id, document_id),
        ).fetchall()
        if not rows:
            return None
        row, *fields = rows[0]
        chunks: list[Any] = conn.execute(
            'SELECT c.ordinal, c.text, c.start, c."end", t.postings, v.vector FROM chunks AS c '
            "LEFT JOIN chunk_terms AS t ON t.chunk = c.id "
            "LEFT JOIN chunk_vectors AS v ON v.chunk = c.id WHERE c.doc = ? ORDER BY c.id",
            (row,),
        ).fetchall()
        pairs = [
            np.frombuffer(bytes(c[4]), dtype="<i4").reshape(-1, 2) if c[4] else None for c in chunks
        ]
        ids = sorted({int(t) for p in pairs if p is not None for t in p[:, 0]})
        vocab: dict[int, str] = dict(
            conn.execute(  # type: ignore[arg-type]
                "SELECT t.id, t.term FROM json_each(?) AS j JOIN terms AS t ON t.id = j.value",
                (json.dumps(ids),),
            ).fetchall()
        )
    doc = DocumentIn(
        document_id, fields[0], title=fields[1], source=fields[2], mime=fields[3],
        text_chars=fields[4], metadata=json.loads(fields[5]),
    )  # fmt: skip
    out: list[ChunkIn] = []
    for c, p in zip(chunks, pairs, strict=True):
        ordinal, text, start, end, _, vector = c
        terms = {} if p is None else {vocab[int(t)]: int(tf) for t, tf in p}
        vec = None if vector is None else np.frombuffer(bytes(vector), dtype="<f4").copy()
        out.append(ChunkIn(ordinal, text, start, end, terms, vec))
    return doc, out
