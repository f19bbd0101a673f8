"""The embedded default KB store: one SQLite file is the system of record.

Documents, chunks, analysed terms, vectors and a change log live in the file
(``_schema.py``); the BM25 postings (``_lexical.py``), the vector matrix (``_vectors.py``)
and, for big collections, an HNSW sidecar (``_hnsw.py``) are derived from it and catch up
with the log before every query (``_follow.py``), whichever process wrote. WAL mode gives
many readers alongside one writer; writers queue on ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import apsw
import numpy as np
import numpy.typing as npt

from unifind.errors import InputError, StoreError, UnknownName
from unifind.kb import _lexsave, _sqlitebulk, _write
from unifind.kb._export import Exported, sqlite_document
from unifind.kb._filters import filter_sql
from unifind.kb._follow import Follower, Head, LexicalFollower, VectorFollower, read_head
from unifind.kb._hnsw import Hnsw, remove_sidecars
from unifind.kb._schema import connect, ensure_schema, immediate
from unifind.kb._vectors import VectorIndex
from unifind.kb.base import (
    ChunkIn,
    ChunkRecord,
    CollectionInfo,
    DocumentIn,
    DocumentInfo,
    Hit,
    KBStore,
    UpsertOutcome,
)

F = TypeVar("F", bound=Follower[Any])

_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")

_COLLECTION_SQL = (
    "SELECT c.name, c.embedder, c.dim, c.analyzer, c.description, c.created_at, c.metadata, "
    "c.doc_count, c.chunk_count FROM collections AS c"
)


class SQLiteStore(KBStore):
    """A KB in one SQLite file (WAL), with derived in-memory BM25 and vector indexes.

    ``hnsw_background``: build a missing HNSW index in a thread (queries use the exact
    scan meanwhile) instead of inside the first query; ``wait_for_indexes`` waits for it.
    ``hnsw_threshold``: collections with at least this many vectors also get an HNSW
    index (usearch), persisted as ``<path>.<collection>.usearch``; smaller ones are
    scanned exactly. ``busy_timeout_ms``: how long a writer waits for another one.
    """

    name = "sqlite"

    def __init__(
        self,
        path: str | Path,
        *,
        hnsw_threshold: int = 20_000,
        busy_timeout_ms: int = 30_000,
        hnsw_background: bool = True,
    ) -> None:
        if str(path) == ":memory:" or not str(path):
            raise InputError("SQLiteStore needs a file path (an in-memory DB can't be shared)")
        self.path = Path(path)
        self.hnsw_threshold = hnsw_threshold
        self.hnsw_background = hnsw_background
        self._busy_ms = busy_timeout_ms
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[apsw.Connection] = []
        self._lexical: dict[str, LexicalFollower] = {}
        self._vectors: dict[str, VectorFollower] = {}
        self._closed = False
        self._open_file()

    def _open_file(self) -> None:
        """Create the file (and its folder) on first use, or check that it is a KB store."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            msg = f"cannot create the folder for the KB store {self.path}: {exc}"
            raise StoreError(msg) from exc
        ensure_schema(self._conn(), self.path)

    # ---- connections ---------------------------------------------------------------

    def _conn(self) -> apsw.Connection:
        # apsw refuses concurrent use of one connection from two threads, so each thread
        # gets its own (https://rogerbinns.github.io/apsw/tips.html#threading).
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise StoreError(f"the KB store {self.path} is closed")
            conn = connect(self.path, self._busy_ms)
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            followers = list(self._vectors.values())
        for follower in followers:
            follower.save()
        with self._lock:
            self._closed = True
            for conn in self._conns:
                conn.close()
            self._conns.clear()
            self._lexical.clear()
            self._vectors.clear()
        self._local = threading.local()

    # ---- collections ---------------------------------------------------------------

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
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InputError(
                f"invalid collection name {name!r}: use 1-64 letters, digits, '_', '-' or '.'"
            )
        if (embedder is None) != (dim is None) or (dim is not None and dim < 1):
            raise InputError("give both embedder and a positive dim, or neither (lexical only)")
        meta = _write.to_json(metadata or {}, f"metadata of collection {name!r}")
        conn = self._conn()
        with immediate(conn):
            exists = conn.execute("SELECT 1 FROM collections WHERE name = ?", (name,)).fetchall()
            if exists and not exist_ok:
                raise InputError(f"collection {name!r} already exists (pass exist_ok=True)")
            if not exists:
                conn.execute(
                    "INSERT INTO collections (name, embedder, dim, analyzer, description, "
                    "metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (name, embedder, dim, analyzer, description, meta, _write.now()),
                )
                remove_sidecars(self.path, name)  # leftovers of a deleted namesake
                _lexsave.remove(self.path, name)
        return self.get_collection(name)

    def get_collection(self, name: str) -> CollectionInfo:
        rows = self._conn().execute(_COLLECTION_SQL + " WHERE c.name = ?", (name,)).fetchall()
        if not rows:
            raise UnknownName("collection", name, [c.name for c in self.list_collections()])
        return _collection_info(rows[0])

    def list_collections(self) -> list[CollectionInfo]:
        rows = self._conn().execute(_COLLECTION_SQL + " ORDER BY c.name")
        return [_collection_info(r) for r in rows]

    def wait_for_indexes(self, timeout: float | None = None) -> bool:
        """Wait for background index builds; True when none is running any more."""
        with self._lock:
            followers = list(self._vectors.values())
        return all(f.wait(timeout) for f in followers)

    def delete_collection(self, name: str) -> None:
        _write.delete_collection(self._conn(), name)
        with self._lock:
            self._lexical.pop(name, None)
            self._vectors.pop(name, None)
        remove_sidecars(self.path, name)
        _lexsave.remove(self.path, name)

    # ---- documents -----------------------------------------------------------------

    def document_hash(self, collection: str, document_id: str) -> str | None:
        conn = self._conn()
        coll_id, _ = _write.collection_row(conn, collection)
        rows = conn.execute(
            "SELECT content_hash FROM documents WHERE collection_id = ? AND document_id = ?",
            (coll_id, document_id),
        ).fetchall()
        return str(rows[0][0]) if rows else None

    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        return _write.upsert(self._conn(), collection, doc, chunks)

    def upsert_documents(
        self, collection: str, batch: Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]
    ) -> list[UpsertOutcome]:
        """Write many documents in one transaction (``_sqlitebulk.py``): all of them or
        none, leaving what one-by-one upserts would. Outcomes in ``batch`` order."""
        return _sqlitebulk.upsert_many(self._conn(), collection, batch)

    def delete_document(self, collection: str, document_id: str) -> bool:
        return _write.delete_document(self._conn(), collection, document_id)

    def list_documents(
        self, collection: str, *, limit: int = 100, offset: int = 0
    ) -> list[DocumentInfo]:
        conn = self._conn()
        coll_id, _ = _write.collection_row(conn, collection)
        rows = conn.execute(
            "SELECT document_id, content_hash, title, source, mime, chunks, text_chars, "
            "updated_at, metadata FROM documents WHERE collection_id = ? "
            "ORDER BY document_id LIMIT ? OFFSET ?",
            (coll_id, max(limit, 0), max(offset, 0)),
        )
        return [
            DocumentInfo(
                document_id=r[0],
                collection=collection,
                content_hash=r[1],
                title=r[2],
                source=r[3],
                mime=r[4],
                chunks=r[5],
                text_chars=r[6],
                updated_at=r[7],
                metadata=json.loads(r[8]),
            )
            for r in rows
        ]

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        conn = self._conn()
        coll_id, _ = _write.collection_row(conn, collection)
        wanted = [int(c) for c in chunk_ids if isinstance(c, str) and c.isascii() and c.isdigit()]
        rows = conn.execute(
            # CROSS JOIN fixes the join order (https://sqlite.org/optoverview.html#crossjoin):
            # look the few ids up by primary key; the planner otherwise scanned every
            # document of the collection (110 ms at 200k chunks).
            'SELECT c.id, d.document_id, c.ordinal, c.text, c.start, c."end", d.title, '
            "d.source, d.metadata FROM json_each(?) AS j CROSS JOIN chunks AS c "
            "ON c.id = j.value CROSS JOIN documents AS d ON d.id = c.doc "
            "WHERE d.collection_id = ?",
            (json.dumps(wanted), coll_id),
        )
        found = {
            str(r[0]): ChunkRecord(
                chunk_id=str(r[0]),
                document_id=r[1],
                collection=collection,
                ordinal=r[2],
                text=r[3],
                start=r[4],
                end=r[5],
                title=r[6],
                source=r[7],
                metadata=json.loads(r[8]),
            )
            for r in rows
        }
        return {c: found[c] for c in chunk_ids if c in found}

    def export_document(self, collection: str, document_id: str) -> Exported | None:
        """The document as stored (terms, unit vectors), for ``kb migrate``."""
        return sqlite_document(self._conn(), collection, document_id)

    # ---- search --------------------------------------------------------------------

    def lexical_search(
        self,
        collection: str,
        terms: Sequence[str],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        where = _check_search(limit, filters)
        conn = self._conn()
        head = read_head(conn, collection)
        counts = Counter(t for t in terms if isinstance(t, str) and t)
        if not counts or limit == 0:
            return []
        vocab = conn.execute(
            "SELECT t.term, t.id FROM json_each(?) AS j JOIN terms AS t ON t.term = j.value",
            (json.dumps(sorted(counts), ensure_ascii=False),),
        )
        query = dict(sorted((int(tid), counts[term]) for term, tid in vocab))
        if not query:
            return []
        follower = self._follower(
            self._lexical, collection, lambda: LexicalFollower(self.path, collection)
        )
        with follower.lock:
            index = follower.current(conn, head)
            allowed = None
            if where is not None:
                allowed = index.mask(self._allowed(conn, head, where))
            hits = index.search(query, limit, allowed)
        return [Hit(str(rowid), score) for rowid, score in hits]

    def vector_search(
        self,
        collection: str,
        vector: npt.NDArray[np.float32],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        where = _check_search(limit, filters)
        conn = self._conn()
        head = read_head(conn, collection)
        if head.dim is None or limit == 0:
            return []
        query = _query_vector(vector, collection, head.dim)
        follower = self._follower(
            self._vectors,
            collection,
            lambda: VectorFollower(
                self.path, collection, self.hnsw_threshold, background=self.hnsw_background
            ),
        )
        with follower.lock:
            state = follower.current(conn, head)
            if state.hnsw is None:
                follower.adopt(state)
            if where is not None:
                hits = state.exact.search(query, limit, self._allowed(conn, head, where))
            elif state.hnsw is not None:
                hits = self._hnsw_search(state.exact, state.hnsw, query, limit)
            else:
                hits = state.exact.search(query, limit)
        return [Hit(str(rowid), score) for rowid, score in hits]

    def lexical_scores(
        self, collection: str, terms: Sequence[str], chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        """BM25 of these chunks only: a binary search per term, not a scan of its postings."""
        conn = self._conn()
        head = read_head(conn, collection)
        counts = Counter(t for t in terms if isinstance(t, str) and t)
        rowids = sorted({int(c) for c in chunk_ids if c.isdigit()})
        if not counts or not rowids:
            return {}
        vocab = conn.execute(
            "SELECT t.term, t.id FROM json_each(?) AS j JOIN terms AS t ON t.term = j.value",
            (json.dumps(sorted(counts), ensure_ascii=False),),
        )
        query = dict(sorted((int(tid), counts[term]) for term, tid in vocab))
        if not query:
            return {}
        follower = self._follower(
            self._lexical, collection, lambda: LexicalFollower(self.path, collection)
        )
        with follower.lock:
            index = follower.current(conn, head)
            scores = index.score_rowids(query, np.asarray(rowids, dtype=np.int64))
        return {str(r): float(s) for r, s in zip(rowids, scores, strict=True) if s > 0}

    def chunk_vectors(
        self, collection: str, chunk_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Stored unit vectors of these chunks, from the in-memory matrix."""
        conn = self._conn()
        head = read_head(conn, collection)
        rowids = [int(c) for c in chunk_ids if c.isdigit()]
        if head.dim is None or not rowids:
            return {}
        follower = self._follower(
            self._vectors,
            collection,
            lambda: VectorFollower(
                self.path, collection, self.hnsw_threshold, background=self.hnsw_background
            ),
        )
        with follower.lock:
            state = follower.current(conn, head)
            ids, mat = state.exact.vectors_of(np.asarray(rowids, dtype=np.int64))
            return {str(int(i)): np.array(v) for i, v in zip(ids, mat, strict=True)}

    @staticmethod
    def _hnsw_search(
        exact: VectorIndex, hnsw: Hnsw, query: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[int, float]]:
        want = min(limit, exact.live)
        if want == 0:
            return []
        # Oversample, then rescore exactly: f16 storage and graph search only pick candidates.
        candidates = hnsw.search(query, min(exact.live, max(2 * want, want + 16)))
        hits = exact.rescore(candidates, query, want)
        if len(hits) < want:  # a recall hole: the exact scan is always right
            hits = exact.search(query, want)
        return hits

    def _allowed(
        self, conn: apsw.Connection, head: Head, where: tuple[str, list[Any]]
    ) -> npt.NDArray[np.int64]:
        sql, params = where
        rows = conn.execute(
            "SELECT c.id FROM chunks AS c JOIN documents AS d ON d.id = c.doc "
            f"WHERE d.collection_id = ? AND {sql} ORDER BY c.id",
            (head.id, *params),
        )
        return np.fromiter((r[0] for r in rows), dtype=np.int64)

    def _follower(self, table: dict[str, F], name: str, factory: Callable[[], F]) -> F:
        with self._lock:
            if name not in table:
                table[name] = factory()
            return table[name]


def _check_search(limit: int, filters: Mapping[str, Any] | None) -> tuple[str, list[Any]] | None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"limit must be a non-negative integer, got {limit!r}")
    return filter_sql(filters) if filters else None


def _query_vector(vector: Any, collection: str, dim: int) -> npt.NDArray[np.float32]:
    q = np.asarray(vector, dtype=np.float32)
    if q.shape != (dim,):
        raise InputError(
            f"query vector has shape {q.shape}, but collection {collection!r} has "
            f"{dim}-dimensional vectors: embed the query with the collection's embedder"
        )
    norm = float(np.linalg.norm(q))
    if not np.isfinite(norm):
        raise InputError("query vector has NaN or infinite values")
    return (q / norm if norm > 0 else q).astype(np.float32)


def _collection_info(row: Sequence[Any]) -> CollectionInfo:
    name, embedder, dim, analyzer, description, created_at, meta, docs, chunks = row
    return CollectionInfo(
        name=name, embedder=embedder, dim=dim, analyzer=analyzer, description=description,
        documents=docs, chunks=chunks, created_at=created_at, metadata=json.loads(meta),
    )  # fmt: skip
