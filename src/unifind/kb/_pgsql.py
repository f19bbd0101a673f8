"""The PostgreSQL store's SQL: schema, BM25 over our analyser's postings, metadata filters.

BM25 is computed by the server from postings rows ``(term, chunk, tf, length)`` written by
unifind's own analyser, so English stemming and Chinese segmentation are exactly the
embedded store's; ``N`` and ``avgdl`` come from the collection row, updated in the same
transaction as the postings, and ``df`` is counted live, so one statement sees one
consistent snapshot (Lucene's formula, k1=0.9, b=0.4; see ``_lexical.py``).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from unifind._deps import require
from unifind.kb import _remote
from unifind.kb._filters import _values
from unifind.kb.base import BM25_B, BM25_K1, ChunkIn, CollectionInfo, DocumentIn

Exported = tuple[DocumentIn, list[ChunkIn]]

sql: Any = require("psycopg.sql", "postgres")  # a missing driver names its extra

NO_PGVECTOR = (
    "PostgreSQL at {url} has no pgvector: install it (https://github.com/pgvector/pgvector"
    "#installation) and run CREATE EXTENSION vector, or use another KB store"
)


#: The layout ``schema_sql`` writes; stored in ``{schema}.meta``. A store written by a newer
#: unifind (a higher number) is refused. Schemas from before the number existed are 1.
SCHEMA_VERSION = 1


def schema_version(conn: Any, schema: str) -> int | None:
    """The version stored in ``schema`` (None: no unifind schema there yet)."""
    meta = sql.Identifier(schema, "meta").as_string(conn)
    if conn.execute("SELECT to_regclass(%s)", (meta,)).fetchone()[0] is None:
        return None
    row = conn.execute(
        sql.SQL("SELECT value FROM {m} WHERE key = 'schema_version'").format(
            m=sql.Identifier(schema, "meta")
        )
    ).fetchone()
    return None if row is None else int(row[0])


def schema_sql(schema: str) -> list[Any]:
    """Idempotent DDL; chunk ids come from one sequence, so they are never reused."""
    s = sql.Identifier(schema)
    stmts = [
        "CREATE SCHEMA IF NOT EXISTS {s}",
        "CREATE TABLE IF NOT EXISTS {s}.meta (key text PRIMARY KEY, value text NOT NULL)",
        "INSERT INTO {s}.meta VALUES ('schema_version', '"
        + str(SCHEMA_VERSION)
        + "') ON CONFLICT (key) DO NOTHING",
        "CREATE TABLE IF NOT EXISTS {s}.collections (id bigserial PRIMARY KEY, "
        "name text UNIQUE NOT NULL, embedder text, dim int, analyzer text NOT NULL, "
        "description text NOT NULL, metadata jsonb NOT NULL, created_at text NOT NULL, "
        "doc_count bigint NOT NULL DEFAULT 0, chunk_count bigint NOT NULL DEFAULT 0, "
        "lex_count bigint NOT NULL DEFAULT 0, total_len bigint NOT NULL DEFAULT 0)",
        "CREATE TABLE IF NOT EXISTS {s}.documents (id bigserial PRIMARY KEY, "
        "collection_id bigint NOT NULL, document_id text NOT NULL, content_hash text NOT NULL, "
        "title text NOT NULL, source text NOT NULL, mime text NOT NULL, "
        "text_chars bigint NOT NULL, chunks int NOT NULL, updated_at text NOT NULL, "
        "metadata jsonb NOT NULL, UNIQUE (collection_id, document_id))",
        "CREATE SEQUENCE IF NOT EXISTS {s}.chunk_ids",
        "CREATE TABLE IF NOT EXISTS {s}.chunks (id bigint PRIMARY KEY, "
        "collection_id bigint NOT NULL, doc bigint NOT NULL, ordinal int NOT NULL, "
        'text text NOT NULL, start int NOT NULL, "end" int NOT NULL, length int NOT NULL, '
        "vector vector)",
        "CREATE INDEX IF NOT EXISTS chunks_doc ON {s}.chunks (doc)",
        "CREATE INDEX IF NOT EXISTS chunks_collection ON {s}.chunks (collection_id, id)",
        "CREATE TABLE IF NOT EXISTS {s}.postings (collection_id bigint NOT NULL, "
        "term text NOT NULL, chunk bigint NOT NULL, doc bigint NOT NULL, tf int NOT NULL, "
        "length int NOT NULL, PRIMARY KEY (collection_id, term, chunk) INCLUDE (tf, length, doc))",
        "CREATE INDEX IF NOT EXISTS postings_doc ON {s}.postings (doc)",
    ]
    # Vectors inline, not TOASTed: pgvector's type is EXTERNAL by default, so a 384-d row
    # with its chunk text passes the 2 kB threshold and every exact scan fetched each vector
    # out of line (47k buffer reads at 10k chunks, 3x slower). MAIN keeps it in the row and
    # moves the text out first; a vector too big for a page still goes out of line.
    # (https://github.com/pgvector/pgvector#storing: "SET STORAGE PLAIN"; MAIN can't fail.)
    main = (
        "DO $$ BEGIN IF (SELECT attstorage FROM pg_attribute WHERE attrelid = {t}::regclass "
        "AND attname = 'vector') <> 'm' THEN ALTER TABLE {s}.chunks ALTER COLUMN vector "
        "SET STORAGE MAIN; END IF; END $$"
    )
    table = sql.Literal(sql.Identifier(schema, "chunks").as_string(None))
    return [sql.SQL(q).format(s=s) for q in stmts] + [sql.SQL(main).format(s=s, t=table)]


def graph_bytes(dim: int) -> int:
    """Memory an HNSW build takes per vector (m=16), with a margin: the vector (4 bytes a
    dimension) plus ~0.7 kB of neighbour lists and element header. Measured: pgvector's
    "graph no longer fits into maintenance_work_mem after 7449 tuples" at 16 MB and 384
    dimensions = 2.25 kB a vector, 2.56 kB here."""
    return 4 * dim + 1024


#: ...plus what the build takes whatever the graph's size (measured ~0.7 MB: 1 MB held 750
#: 384-d vectors' graph, 3.84 MB only 1,395 where 2.25 kB a vector would hold 1,700).
GRAPH_FIXED = 16 << 20


def hnsw_index(schema: str, coll_id: int, dim: int) -> Any:
    """A partial HNSW index per collection: vectors of several dims share one column.

    The expression cast is pgvector's documented way to index a column of mixed dims
    (https://github.com/pgvector/pgvector#can-i-store-vectors-with-different-dimensions-in-the-same-column).
    Inner product on unit vectors ranks like the cosine and *is* the cosine.
    """
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON {s}.chunks USING hnsw "
        "((vector::vector({dim})) vector_ip_ops) WHERE collection_id = {cid}"
    ).format(
        name=sql.Identifier(f"chunks_hnsw_{coll_id}"),
        s=sql.Identifier(schema),
        dim=sql.Literal(dim),
        cid=sql.Literal(coll_id),
    )


def filter_sql(
    filters: Mapping[str, Any] | None, alias: str, schema: str, coll: Any = None
) -> tuple[Any, dict[str, Any]]:
    """``AND <alias>.doc IN (documents matching the filters)``, or nothing without filters.

    jsonb equality keeps JSON types (``true`` is not ``1``, ``"1"`` is not ``1``) and a
    missing key yields NULL, which matches nothing: the contract's semantics. ``coll`` is
    the collection id's SQL (default: the ``c`` parameter).
    """
    if not filters:
        return sql.SQL(""), {}
    clauses: list[Any] = []
    params: dict[str, Any] = {}
    for i, (key, value) in enumerate(filters.items()):
        values = _values(key, value)
        k, v = f"fk{i}", f"fv{i}"
        if not values:
            clauses.append(sql.SQL("false"))
        elif key == "document_id":
            clauses.append(sql.SQL("d.document_id = ANY({v}::text[])").format(v=sql.Placeholder(v)))
            params[v] = [str(x) for x in values]
        else:
            clauses.append(
                sql.SQL("d.metadata -> {k} = ANY({v}::jsonb[])").format(
                    k=sql.Placeholder(k), v=sql.Placeholder(v)
                )
            )
            params[k], params[v] = key, [json.dumps(x) for x in values]
    cond = sql.SQL(
        " AND {a}.doc IN (SELECT d.id FROM {s}.documents AS d WHERE d.collection_id = {c} AND {w})"
    ).format(
        a=sql.Identifier(alias),
        s=sql.Identifier(schema),
        w=sql.SQL(" AND ").join(clauses),
        c=coll if coll is not None else sql.SQL("%(c)s"),
    )
    return cond, params


def by_name(schema: str) -> Any:
    """The collection id as a scalar subquery on ``%(name)s`` (an InitPlan: evaluated once,
    then an index key), so a query needs no lookup round trip of its own."""
    return sql.SQL("(SELECT id FROM {s}.collections WHERE name = %(name)s)").format(
        s=sql.Identifier(schema)
    )


#: ``{c}``: the collection id's SQL (``by_name`` or the ``c`` parameter).
BM25 = (
    "WITH q AS (SELECT term, count(*)::float8 AS qtf FROM unnest(%(terms)s::text[]) AS term "
    "GROUP BY term), "
    "st AS (SELECT lex_count::float8 AS n, total_len::float8 / greatest(lex_count, 1) AS avgdl "
    "FROM {s}.collections WHERE id = {c}), "
    "df AS (SELECT p.term, count(*)::float8 AS df FROM {s}.postings AS p JOIN q USING (term) "
    "WHERE p.collection_id = {c} GROUP BY p.term) "
    "SELECT p.chunk, sum(q.qtf * ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * p.tf "
    f"/ (p.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * p.length / st.avgdl))) AS score "
    "FROM {s}.postings AS p JOIN q USING (term) JOIN df USING (term) CROSS JOIN st "
    "WHERE p.collection_id = {c} {filter} "
    "GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(limit)s"
)

#: BM25 of some chunks only (query feedback): the collection named by name, so one
#: statement is one round trip; the same formula and statistics as ``BM25``. LATERAL per
#: term makes each term one probe of the (collection, term, chunk) key with the asked ids
#: (``OFFSET 0`` keeps the planner from flattening it): a plain join let the planner scan
#: every posting (90 ms at 10k chunks).
BM25_OF = (
    "WITH k AS (SELECT id, lex_count::float8 AS n, "
    "total_len::float8 / greatest(lex_count, 1) AS avgdl FROM {s}.collections "
    "WHERE name = %(name)s), "
    "q AS (SELECT term, count(*)::float8 AS qtf FROM unnest(%(terms)s::text[]) AS term "
    "GROUP BY term), "
    "df AS (SELECT q.term, q.qtf, d.df FROM q CROSS JOIN k CROSS JOIN LATERAL "
    "(SELECT count(*)::float8 AS df FROM {s}.postings AS p WHERE p.collection_id = k.id "
    "AND p.term = q.term OFFSET 0) AS d WHERE d.df > 0) "
    "SELECT p.chunk, sum(df.qtf * ln(1 + (k.n - df.df + 0.5) / (df.df + 0.5)) * p.tf "
    f"/ (p.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * p.length / k.avgdl))) AS score "
    "FROM df CROSS JOIN k CROSS JOIN LATERAL (SELECT chunk, tf, length FROM {s}.postings "
    "AS p WHERE p.collection_id = k.id AND p.term = df.term "
    "AND p.chunk = ANY(%(ids)s::bigint[]) OFFSET 0) AS p GROUP BY p.chunk"
)

#: Exact scan: the tie-break on id keeps the planner off the ANN index (stable paging).
EXACT = (
    "SELECT c.id, -(c.vector <#> %(q)s::vector) AS score FROM {s}.chunks AS c "
    "WHERE c.collection_id = %(c)s AND c.vector IS NOT NULL {filter} "
    "ORDER BY c.vector <#> %(q)s::vector, c.id LIMIT %(limit)s"
)

#: HNSW candidates (oversampled), then re-sorted with the id tie-break. The collection id
#: and dim are literals so the partial index's predicate can be proven at plan time. A
#: chunk stored without a vector is never a candidate: where the planner scans the table
#: instead of the index, it came back with a NULL score, sorted first by ``DESC``.
ANN = (
    "SELECT id, score FROM (SELECT c.id, -(c.vector::vector({dim}) <#> %(q)s::vector({dim})) "
    "AS score FROM {s}.chunks AS c WHERE c.collection_id = {cid} AND c.vector IS NOT NULL "
    "ORDER BY c.vector::vector({dim}) <#> %(q)s::vector({dim}) LIMIT %(k)s) AS a "
    "ORDER BY score DESC, id LIMIT %(limit)s"
)


def vector_text(blob: bytes | None) -> str | None:
    """pgvector's text form; float32 → repr → float32 round-trips exactly."""
    vec = _remote.unit_vector(blob)
    return None if vec is None else "[" + ",".join(map(repr, vec.tolist())) + "]"


def vector_binary(blob: bytes | None) -> bytes | None:
    """pgvector's binary form (``vector_recv``: int16 dim, int16 unused = 0, then dim
    big-endian float4), for ``COPY ... (FORMAT BINARY)``: the same float32 values as
    :func:`vector_text` without formatting 384 floats on our side nor parsing them on the
    server's (https://github.com/pgvector/pgvector/blob/master/src/vector.c: vector_recv)."""
    vec = _remote.unit_vector(blob)
    if vec is None:
        return None
    return struct.pack(">HH", len(vec), 0) + vec.astype(">f4").tobytes()


def info(row: Sequence[Any]) -> CollectionInfo:
    name, embedder, dim, analyzer, description, created_at, meta, docs, chunks = row
    return CollectionInfo(
        name=name, embedder=embedder, dim=dim, analyzer=analyzer, description=description,
        documents=int(docs), chunks=int(chunks), created_at=created_at, metadata=meta,
    )  # fmt: skip


def export_document(conn: Any, q: Any, cid: int, document_id: str) -> Exported | None:
    """A document as stored, read in one transaction (``q`` formats a query's schema)."""
    with conn.transaction():
        row = conn.execute(
            q(
                "SELECT id, content_hash, title, source, mime, text_chars, metadata "
                "FROM {s}.documents WHERE collection_id = %s AND document_id = %s"
            ),
            (cid, document_id),
        ).fetchone()
        if row is None:
            return None
        chunks = conn.execute(
            q(
                'SELECT c.id, c.ordinal, c.text, c.start, c."end", vector_send(c.vector) '
                "FROM {s}.chunks AS c WHERE c.doc = %s ORDER BY c.id"
            ),
            (row[0],),
        ).fetchall()
        terms: dict[int, dict[str, int]] = {}
        for chunk, term, tf in conn.execute(
            q("SELECT chunk, term, tf FROM {s}.postings WHERE doc = %s"), (row[0],)
        ):
            terms.setdefault(int(chunk), {})[term] = int(tf)
    doc = DocumentIn(
        document_id, row[1], title=row[2], source=row[3], mime=row[4], text_chars=row[5],
        metadata=row[6],
    )  # fmt: skip
    out = []
    for chunk_id, ordinal, text, start, end, vector in chunks:
        vec = None if vector is None else from_send(vector)
        out.append(ChunkIn(ordinal, text, start, end, terms.get(int(chunk_id), {}), vec))
    return doc, out


def chunk_ids_of(chunk_ids: Sequence[str]) -> list[int]:
    """The ids that can be chunk ids (ours are decimal integers); others match nothing."""
    return [int(c) for c in chunk_ids if isinstance(c, str) and c.isascii() and c.isdigit()]


def chunk_vectors(conn: Any, q: Any, name: str, ids: list[int]) -> dict[str, Any]:
    """Stored unit vectors of these chunks (query feedback) in one statement; float32 is
    read back exactly. Empty also for an unknown collection (the caller checks)."""
    rows = conn.execute(
        q(
            "SELECT c.id, vector_send(c.vector) FROM {s}.chunks AS c JOIN {s}.collections AS k "
            "ON k.id = c.collection_id WHERE k.name = %s AND c.id = ANY(%s::bigint[]) "
            "AND c.vector IS NOT NULL"
        ),
        (name, ids),
    )
    return {str(r[0]): from_send(r[1]) for r in rows}


def from_send(blob: bytes) -> Any:
    """A vector from pgvector's binary form (``vector_send``: int16 dim, int16 unused,
    float4 big-endian): parsing ``real[]`` text cost 50 ms per 200 384-d vectors."""
    return np.frombuffer(blob, dtype=">f4", offset=4).astype(np.float32)


def lexical_scores(
    conn: Any, q: Any, name: str, terms: Sequence[str], chunk_ids: Sequence[str]
) -> dict[str, float]:
    """BM25 of these chunks for ``terms`` in one statement; empty also for an unknown name."""
    words = [t for t in terms if isinstance(t, str) and t]
    wanted = chunk_ids_of(chunk_ids)
    if not words or not wanted:
        return {}
    rows = conn.execute(q(BM25_OF), {"name": name, "terms": words, "ids": wanted})
    return {str(r[0]): float(r[1]) for r in rows}
