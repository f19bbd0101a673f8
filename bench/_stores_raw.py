"""Each engine's own client running the query a store sends (the overhead baseline),
and what a store occupies (server memory, bytes on disk). Used by ``_stores_speed.py``.

The raw side is what a user of the engine would write for the same top-``depth`` query:
psycopg running our BM25 / vector SQL on the collection id; ``query_points`` with no
filter (qdrant-client); ``search`` with no filter (pymilvus). Both sides convert the
float32 query to a list inside the timed call.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from unifind.kb import _pgsql
from unifind.kb.base import KBStore

Pair = tuple[Callable[[int], Any], Callable[[int], Any]]


def raw_calls(
    store: Any, coll: str, terms: list[list[str]], vecs: Any, depth: int
) -> dict[str, Pair]:
    """``{"vector": (store call, raw call)}`` (and ``lexical`` on PostgreSQL)."""
    ours_vec = lambda i: store.vector_search(coll, vecs[i], limit=depth)  # noqa: E731
    ours_lex = lambda i: store.lexical_search(coll, terms[i], limit=depth)  # noqa: E731
    if store.name == "postgres":
        return _postgres(store, coll, terms, vecs, depth, ours_lex, ours_vec)
    if store.name == "qdrant":
        head = store._catch_up(coll)
        qname, client = store._ename(head[0]), store.client
        return {
            "vector": (
                ours_vec,
                lambda i: client.query_points(
                    qname, query=np.asarray(vecs[i]).tolist(), limit=depth, with_payload=False
                ),
            )
        }
    if store.name == "milvus":
        head = store._catch_up(coll)
        mname, client = store._ename(head[0]), store.client
        args = store.search_args(depth)  # the same index parameters and consistency level

        def raw(i: int) -> Any:  # ids and scores read as columns: the cheapest read there is
            hits = client.search(mname, data=[np.asarray(vecs[i]).tolist()], limit=depth,
                                 output_fields=[], **args)[0]  # fmt: skip
            return hits.ids, hits.distances

        return {"vector": (ours_vec, raw)}
    return {}


def _postgres(
    store: Any, coll: str, terms: Any, vecs: Any, depth: int, lex: Any, vec: Any
) -> dict[str, Pair]:
    conn = store._conn()
    cid, dim = store._collection(conn, coll)
    count = store.get_collection(coll).chunks
    bm25 = store._sql(_pgsql.BM25, filter=_pgsql.sql.SQL(""), c=_pgsql.sql.SQL("%(c)s"))
    exact = store._sql(_pgsql.EXACT, filter=_pgsql.sql.SQL(""))
    sql = _pgsql.sql
    ann = store._sql(_pgsql.ANN, dim=sql.Literal(dim), cid=sql.Literal(cid))

    def text(i: int) -> str:
        return "[" + ",".join(map(repr, np.asarray(vecs[i], dtype=np.float32).tolist())) + "]"

    def raw_vec(i: int) -> Any:
        if count < store.exact_below:
            return conn.execute(exact, {"q": text(i), "c": cid, "limit": depth}).fetchall()
        k = max(2 * depth, depth + 16)
        with conn.transaction():
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(k, 40)),))
            return conn.execute(ann, {"q": text(i), "k": k, "limit": depth}).fetchall()

    def raw_lex(i: int) -> Any:
        return conn.execute(bm25, {"terms": terms[i], "c": cid, "limit": depth}).fetchall()

    return {"lexical": (lex, raw_lex), "vector": (vec, raw_vec)}


def engine_memory_mb(store: KBStore, pid: int | None = None) -> int | None:
    """PSS of a separate server and its children: PostgreSQL's postmaster, or the process
    ``pid`` (a Milvus server); None for in-process engines."""
    if store.name != "postgres" and pid is None:
        return None
    if pid is None:
        conn = store._conn()  # type: ignore[attr-defined]
        data = conn.execute("SELECT current_setting('data_directory')").fetchone()[0]
        pid = int((Path(data) / "postmaster.pid").read_text().split()[0])
    root = psutil.Process(pid)
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            total += proc.memory_full_info().pss
        except psutil.Error:
            continue
    return round(total / 2**20)


def on_disk_mb(store: KBStore, folder: Path) -> int:
    """Bytes the store wrote: its folder, or the schema's relations on PostgreSQL."""
    if store.name == "postgres":
        conn = store._conn()  # type: ignore[attr-defined]
        size = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c "
            "JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relkind IN ('r', 'S')",
            (store.schema,),  # type: ignore[attr-defined]
        ).fetchone()[0]
        return round(int(size) / 2**20)
    return folder_mb(folder)


def folder_mb(folder: Path) -> int:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return round(sum(p.stat().st_size for p in files) / 2**20)
