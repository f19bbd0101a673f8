"""The PostgreSQL KB store: pgvector for vectors, BM25 over unifind's own analysed terms.

One transaction per write (a killed writer's transaction is rolled back by the server, so
no half document is ever visible); writers of one collection queue on its row lock, which
also keeps ``N`` and ``avgdl`` exact. Queries are single statements, so each sees one
snapshot. Vector search scans exactly below ``exact_below`` vectors, and always when
filtered (filtered HNSW loses recall at low selectivity: pgvector's own post-filtering);
above it, a per-collection partial HNSW index gives candidates that are re-sorted.

URL: ``postgresql://user:pass@host/db?schema=unifind`` (``schema`` is ours); pgvector >= 0.5.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

from unifind._deps import require
from unifind.errors import InputError, StoreError, UnknownName
from unifind.kb import _pgbulk, _pgsql, _remote, _write
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

#: First key of the advisory locks on migrations (the second: a hash of the collection).
_MIGRATE_LOCK = 0x756E6967
_COLS = "name, embedder, dim, analyzer, description, created_at, metadata, doc_count, chunk_count"


class PostgresStore(KBStore):
    """A KB in PostgreSQL + pgvector. Connects lazily: an unreachable server is a status."""

    name = "postgres"

    def __init__(self, url: str, *, exact_below: int = 20_000, connect_timeout: int = 5) -> None:
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        self.schema = query.pop("schema", "unifind")
        if not _remote.NAME.fullmatch(self.schema):
            raise InputError(f"invalid schema {self.schema!r} in the store URL")
        query.setdefault("connect_timeout", str(connect_timeout))
        self.url = url
        self._dsn = urlunsplit(parts._replace(scheme="postgresql", query=urlencode(query)))
        self.exact_below = exact_below
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[Any] = []
        self._ready = False

    def __repr__(self) -> str:  # never the password
        return f"PostgresStore({_remote.redact(self.url)!r})"

    def _conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed:
            return conn
        psycopg = require("psycopg", "postgres")
        try:
            # No auto-prepare: a generic plan can't prove a partial index's predicate.
            conn = psycopg.connect(self._dsn, autocommit=True, prepare_threshold=None)
        except psycopg.OperationalError as exc:
            raise _remote.unreachable(self.url, exc) from None
        if not self._ready:
            self._ensure_schema(conn)
        self._local.conn = conn
        with self._lock:
            self._conns.append(conn)
        return conn

    def _ensure_schema(self, conn: Any) -> None:
        psycopg = require("psycopg", "postgres")
        try:
            with conn.transaction():
                # Several processes may start at once: DDL under one advisory lock.
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (0x756E6966,))
                self._check_version(conn)
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                for stmt in _pgsql.schema_sql(self.schema):
                    conn.execute(stmt)
        except StoreError:
            conn.close()
            raise
        except (psycopg.errors.FeatureNotSupported, psycopg.errors.UndefinedFile) as exc:
            conn.close()
            raise StoreError(_pgsql.NO_PGVECTOR.format(url=_remote.redact(self.url))) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            conn.close()
            raise StoreError(
                f"PostgreSQL at {_remote.redact(self.url)}: {exc.diag.message_primary} "
                "(a superuser must run CREATE EXTENSION vector once)"
            ) from None
        self._ready = True

    def _check_version(self, conn: Any) -> None:
        """Refuse a schema a newer unifind wrote: writing it with our statements could
        corrupt what that version keeps (the SQLite store refuses alike)."""
        found = _pgsql.schema_version(conn, self.schema)
        if found is not None and found > _pgsql.SCHEMA_VERSION:
            raise StoreError(
                f"PostgreSQL at {_remote.redact(self.url)}: schema {self.schema!r} has KB "
                f"schema version {found}, newer than this unifind supports "
                f"({_pgsql.SCHEMA_VERSION}): upgrade unifind to open it"
            )

    def _sql(self, query: str, **parts: Any) -> Any:
        return _pgsql.sql.SQL(query).format(s=_pgsql.sql.Identifier(self.schema), **parts)

    def close(self) -> None:
        with self._lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
        self._local = threading.local()

    def _collection(self, conn: Any, name: str, *, lock: bool = False) -> tuple[int, int | None]:
        q = "SELECT id, dim FROM {s}.collections WHERE name = %s" + (" FOR UPDATE" * lock)
        row = conn.execute(self._sql(q), (name,)).fetchone()
        if row is None:
            names = [r[0] for r in conn.execute(self._sql("SELECT name FROM {s}.collections"))]
            raise UnknownName("collection", name, names)
        return int(row[0]), row[1]

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
        _remote.check_name(name)
        _remote.check_dims(embedder, dim)
        meta = _write.to_json(metadata or {}, f"metadata of collection {name!r}")
        conn = self._conn()
        with conn.transaction():
            row = conn.execute(
                self._sql(
                    "INSERT INTO {s}.collections (name, embedder, dim, analyzer, description, "
                    "metadata, created_at) VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s) "
                    "ON CONFLICT (name) DO NOTHING RETURNING id"
                ),
                (name, embedder, dim, analyzer, description, meta, _write.now()),
            ).fetchone()
            if row is None and not exist_ok:
                raise InputError(f"collection {name!r} already exists (pass exist_ok=True)")
            if row is not None and dim is not None:
                conn.execute(_pgsql.hnsw_index(self.schema, int(row[0]), dim))
        return self.get_collection(name)

    def get_collection(self, name: str) -> CollectionInfo:
        conn = self._conn()
        row = conn.execute(
            self._sql(f"SELECT {_COLS} FROM {{s}}.collections WHERE name = %s"), (name,)
        ).fetchone()
        if row is None:
            self._collection(conn, name)  # raises UnknownName with the list
        return _pgsql.info(row)

    def list_collections(self) -> list[CollectionInfo]:
        rows = self._conn().execute(
            self._sql(f"SELECT {_COLS} FROM {{s}}.collections ORDER BY name")
        )
        return [_pgsql.info(r) for r in rows]

    def delete_collection(self, name: str) -> None:
        conn = self._conn()
        with conn.transaction():
            cid, _ = self._collection(conn, name, lock=True)
            for table in ("postings", "chunks", "documents", "collections"):
                key = "id" if table == "collections" else "collection_id"
                conn.execute(self._sql(f"DELETE FROM {{s}}.{table} WHERE {key} = %s"), (cid,))
            conn.execute(
                self._sql(
                    "DROP INDEX IF EXISTS {s}.{i}", i=_pgsql.sql.Identifier(f"chunks_hnsw_{cid}")
                )
            )

    def document_hash(self, collection: str, document_id: str) -> str | None:
        conn = self._conn()
        cid, _ = self._collection(conn, collection)
        row = conn.execute(
            self._sql(
                "SELECT content_hash FROM {s}.documents WHERE collection_id = %s "
                "AND document_id = %s"
            ),
            (cid, document_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        return self.upsert_documents(collection, [(doc, chunks)])[0]

    def upsert_documents(self, collection: str, batch: _pgbulk.Batch) -> list[UpsertOutcome]:
        """Write many documents in one transaction and a fixed number of statements
        (``COPY``): all of them or none. Outcomes in ``batch`` order."""
        conn = self._conn()
        with conn.transaction():
            cid, dim = self._collection(conn, collection, lock=True)
            return _pgbulk.upsert_many(conn, self._sql, collection, cid, dim, batch)

    @contextmanager
    def bulk_load(self, collection: str, *, memory: str | None = None) -> Iterator[None]:
        """Load many documents with the collection's HNSW index dropped, then build it once:
        building after the load is far cheaper than maintaining the graph row by row
        (https://github.com/pgvector/pgvector#index-build-time). Queries meanwhile scan
        exactly; a load killed half-way leaves the index to the next ``build_index``.
        ``memory``: as for :meth:`build_index`."""
        conn = self._conn()
        cid, _ = self._collection(conn, collection)
        name = _pgsql.sql.Identifier(f"chunks_hnsw_{cid}")
        conn.execute(self._sql("DROP INDEX IF EXISTS {s}.{i}", i=name))
        yield
        self.build_index(collection, memory=memory)

    def build_index(self, collection: str, *, memory: str | None = None) -> None:
        """Build the collection's HNSW index if it is missing.

        ``memory`` is the build's ``maintenance_work_mem`` (this transaction only). By
        default it is sized to hold the whole graph (``_pgsql.graph_bytes``: 2.56 kB a
        chunk at 384 dimensions, plus 16 MB; 2.6 GB at 1M chunks), never below the server's
        own setting: a graph that outgrows it goes on building on disk, far slower
        (pgvector: "Indexes build significantly faster when the graph fits into
        maintenance_work_mem"; measured here 10x at 20k chunks). Pass a size ("2GB") to cap
        what the server may take for it."""
        conn = self._conn()
        cid, dim = self._collection(conn, collection)
        if dim is None:
            return
        with conn.transaction():
            if memory is None:
                conn.execute(
                    self._sql(
                        "SELECT set_config('maintenance_work_mem', (greatest(pg_size_bytes("
                        "current_setting('maintenance_work_mem')), chunk_count * %s + %s) / 1024)"
                        "::bigint || 'kB', true) FROM {s}.collections WHERE id = %s"
                    ),
                    (_pgsql.graph_bytes(dim), _pgsql.GRAPH_FIXED, cid),
                )
            else:
                conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
            conn.execute(_pgsql.hnsw_index(self.schema, cid, dim))

    @contextmanager
    def migration_lock(self, collection: str) -> Iterator[None]:
        """Hold ``collection`` for one migration across every process using this server (a
        session advisory lock on a connection of its own); a second one is refused."""
        psycopg = require("psycopg", "postgres")
        try:
            conn = psycopg.connect(self._dsn, autocommit=True)
        except psycopg.OperationalError as exc:
            raise _remote.unreachable(self.url, exc) from None
        with conn:  # closing it releases the lock, also when this process is killed
            got = conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s))",
                (_MIGRATE_LOCK, f"{self.schema}/{collection}"),
            ).fetchone()[0]
            if not got:
                raise InputError(
                    f"collection {collection!r} in {_remote.redact(self.url)} is being "
                    "migrated by another process: wait for it to finish, then run it again"
                )
            yield

    def _drop_document(self, conn: Any, cid: int, doc_row: int) -> None:
        n, lex, total = conn.execute(
            self._sql(
                "SELECT count(*), count(*) FILTER (WHERE length > 0), coalesce(sum(length), 0) "
                "FROM {s}.chunks WHERE doc = %s"
            ),
            (doc_row,),
        ).fetchone()
        conn.execute(self._sql("DELETE FROM {s}.postings WHERE doc = %s"), (doc_row,))
        conn.execute(self._sql("DELETE FROM {s}.chunks WHERE doc = %s"), (doc_row,))
        conn.execute(self._sql("DELETE FROM {s}.documents WHERE id = %s"), (doc_row,))
        conn.execute(
            self._sql(
                "UPDATE {s}.collections SET doc_count = doc_count - 1, "
                "chunk_count = chunk_count - %s, lex_count = lex_count - %s, "
                "total_len = total_len - %s WHERE id = %s"
            ),
            (n, lex, total, cid),
        )

    def delete_document(self, collection: str, document_id: str) -> bool:
        conn = self._conn()
        with conn.transaction():
            cid, _ = self._collection(conn, collection, lock=True)
            row = conn.execute(
                self._sql(
                    "SELECT id FROM {s}.documents WHERE collection_id = %s AND document_id = %s"
                ),
                (cid, document_id),
            ).fetchone()
            if row is None:
                return False
            self._drop_document(conn, cid, int(row[0]))
        return True

    def list_documents(
        self, collection: str, *, limit: int = 100, offset: int = 0
    ) -> list[DocumentInfo]:
        conn = self._conn()
        cid, _ = self._collection(conn, collection)
        rows = conn.execute(
            self._sql(
                "SELECT document_id, content_hash, title, source, mime, chunks, text_chars, "
                "updated_at, metadata FROM {s}.documents WHERE collection_id = %s "
                'ORDER BY document_id COLLATE "C" LIMIT %s OFFSET %s'
            ),
            (cid, max(limit, 0), max(offset, 0)),
        )
        return [DocumentInfo(r[0], collection, *r[1:]) for r in rows]

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        conn = self._conn()
        cid, _ = self._collection(conn, collection)
        wanted = _pgsql.chunk_ids_of(chunk_ids)
        rows = conn.execute(
            self._sql(
                'SELECT c.id, d.document_id, c.ordinal, c.text, c.start, c."end", d.title, '
                "d.source, d.metadata FROM {s}.chunks AS c JOIN {s}.documents AS d "
                "ON d.id = c.doc WHERE c.id = ANY(%s::bigint[]) AND c.collection_id = %s"
            ),
            (wanted, cid),
        )
        found = {
            str(r[0]): ChunkRecord(
                str(r[0]), r[1], collection, r[2], r[3], r[4], r[5], r[6], r[7], r[8]
            )
            for r in rows
        }
        return {c: found[c] for c in chunk_ids if c in found}

    def chunk_vectors(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, Any]:
        """One statement; only an empty answer costs a second one (is the name known?)."""
        conn = self._conn()
        got = _pgsql.chunk_vectors(conn, self._sql, collection, _pgsql.chunk_ids_of(chunk_ids))
        if not got:
            self._collection(conn, collection)  # an unknown name raises UnknownName
        return got

    def lexical_scores(
        self, collection: str, terms: Sequence[str], chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        """BM25 of these chunks only, in one statement (``_pgsql.BM25_OF``)."""
        conn = self._conn()
        got = _pgsql.lexical_scores(conn, self._sql, collection, terms, chunk_ids)
        if not got:
            self._collection(conn, collection)  # an unknown name raises UnknownName
        return got

    def export_document(self, collection: str, document_id: str) -> _pgsql.Exported | None:
        """The document as stored (terms, unit vectors), for ``kb migrate``."""
        conn = self._conn()
        return _pgsql.export_document(
            conn, self._sql, self._collection(conn, collection)[0], document_id
        )

    # ---- search ----------------------------------------------------------------------

    def lexical_search(
        self,
        collection: str,
        terms: Sequence[str],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        _remote.check_limit(limit)
        conn = self._conn()
        words = [t for t in terms if isinstance(t, str) and t]
        coll = _pgsql.by_name(self.schema)
        cond, params = _pgsql.filter_sql(filters, "p", self.schema, coll)
        rows = []
        if words and limit:
            rows = conn.execute(
                self._sql(_pgsql.BM25, filter=cond, c=coll),
                {"terms": words, "name": collection, "limit": limit, **params},
            ).fetchall()
        if not rows:  # one statement per query; only an empty answer asks if the name exists
            self._collection(conn, collection)
        return [Hit(str(r[0]), float(r[1])) for r in rows]

    def vector_search(
        self,
        collection: str,
        vector: npt.NDArray[np.float32],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        _remote.check_limit(limit)
        conn = self._conn()
        row = conn.execute(
            self._sql("SELECT id, dim, chunk_count FROM {s}.collections WHERE name = %s"),
            (collection,),
        ).fetchone()
        cid, dim, count = row or (*self._collection(conn, collection), 0)  # unknown: raises
        if filters:
            _pgsql.filter_sql(filters, "c", self.schema)  # bad filters raise first
        if dim is None or limit == 0:
            return []
        q = _pgsql.vector_text(
            _remote.query_vector(vector, collection, dim).astype("<f4").tobytes()
        )
        assert q is not None
        if filters or count < self.exact_below:
            cond, params = _pgsql.filter_sql(filters, "c", self.schema)
            rows = conn.execute(
                self._sql(_pgsql.EXACT, filter=cond), {"q": q, "c": cid, "limit": limit, **params}
            ).fetchall()
        else:
            rows = self._ann(conn, cid, dim, q, limit)
        return [Hit(str(r[0]), float(r[1])) for r in rows]

    def _ann(self, conn: Any, cid: int, dim: int, q: str, limit: int) -> list[Any]:
        sql = _pgsql.sql
        k = max(2 * limit, limit + 16)
        with conn.transaction():
            # ef_search bounds how many rows the index scan can return at all.
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(k, 40)),))
            return list(
                conn.execute(
                    self._sql(_pgsql.ANN, dim=sql.Literal(dim), cid=sql.Literal(cid)),
                    {"q": q, "k": k, "limit": limit},
                )
            )
