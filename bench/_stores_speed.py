"""One store, one size, in a fresh process: ingest, latency, memory, overhead over the raw client.

    python bench/_stores_speed.py --store qdrant --chunks 10000 --dir /tmp/x [--pg URL]
    python bench/_stores_speed.py --store milvus-server --milvus milvus://127.0.0.1:19530 ...

Called by ``bench/stores.py --part speed`` once per (store, size), so each store's resident
memory is its own. Synthetic chunks from ``_synth.py`` (Zipf text analysed exactly as the
``auto`` analyser would, 384-d *random* unit vectors: latency does not depend on what
vectors mean). Prints one JSON line.

* ingest: ``upsert_document`` of every document (analysis and embedding are done before
  the store, as in the KB), then the first lexical and vector query, which build the
  derived indexes (SQLite) or upload the vectors to the engine (Qdrant, Milvus): chunks/s
  until searchable.
* latency: ``lexical_search`` / ``vector_search`` (limit 100) and ``KnowledgeBase``
  hybrid (``search_sync``, limit 10, the shipped default: adaptive fusion + feedback).
* memory: this process's RSS after the queries (and its peak); for PostgreSQL also the
  server's processes (PSS, so shared buffers count once); on-disk size.
* overhead: the store call and the engine's own client running the same query, interleaved
  pair by pair (the order alternates), same query vector, ``--pairs`` times.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _stores_raw import engine_memory_mb, folder_mb, on_disk_mb, raw_calls
from _synth import DIM, PrecomputedEmbedder, documents, make_vocabulary, queries, unit_vectors

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.analysis import get_analyzer
from unifind.kb.base import KBStore
from unifind.kb.stores import open_store

COLLECTION = "bench"
SPEC = "synthetic-random-384"
DEPTH = 100


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pcts(ms: Sequence[float]) -> list[float]:
    a = np.asarray(ms, dtype=np.float64)
    return [round(float(np.percentile(a, 50)), 3), round(float(np.percentile(a, 95)), 3)]


def timed(fn: Callable[[int], Any], n: int, cpu: list[float] | None = None) -> list[float]:
    """Wall ms per call; with ``cpu``, this process's CPU ms per call too (all its threads:
    far less sensitive than wall time to other processes on a shared machine)."""
    out = []
    for i in range(n):
        c0, t0 = time.process_time(), time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1000)
    return out


def spec_for(store: str, folder: Path, pg: str | None, milvus: str | None = None) -> str:
    # A Milvus server outlives this process: a sidecar here, a prefix of this run's own.
    # Calls may wait 120 s (10 s by default): a loaded machine at 1M chunks stalls longer.
    on_server = f"{milvus}?sidecar={folder}/kb.sqlite&prefix=b{os.getpid()}_&timeout=120"
    return {
        "sqlite": f"sqlite://{folder}/kb.sqlite",
        "postgres": f"{pg}?schema=speed",
        "qdrant": f"qdrant://{folder}/qdrant",
        "milvus": f"milvus://{folder}/milvus",
        "milvus-server": on_server,  # FLAT (exact), the default
        "milvus-server-hnsw": f"{on_server}&index=HNSW",
    }[store]


def bulk(store: Any, n_chunks: int, batch_docs: int) -> dict[str, float]:
    """The bulk path: ``upsert_documents`` batches (PostgreSQL: COPY; SQLite and its
    sidecar stores: one transaction of executemany), under ``bulk_load`` where the store
    has it (PostgreSQL: the HNSW index dropped, then built once); load and build timed apart."""
    t0 = time.perf_counter()
    made, done = 0.0, 0
    load = getattr(store, "bulk_load", None)
    with load(COLLECTION) if load is not None else contextlib.nullcontext():
        docs = documents(make_vocabulary(), n_chunks)
        while True:
            g0 = time.perf_counter()
            batch = list(itertools.islice(docs, batch_docs))
            made += time.perf_counter() - g0
            if not batch:
                break
            store.upsert_documents(COLLECTION, batch)
            done += sum(len(c) for _, c in batch)
            if done // 100_000 != (done - sum(len(c) for _, c in batch)) // 100_000:
                rate = done / (time.perf_counter() - t0 - made)
                print(f"  loaded {done:,} chunks, {rate:,.0f}/s", file=sys.stderr, flush=True)
        t1 = time.perf_counter()
        if load is not None:
            print("  building the HNSW index", file=sys.stderr, flush=True)
    t2 = time.perf_counter()
    return {"load_s": round(t1 - t0 - made, 2), "synth_s": round(made, 2),
            "index_s": round(t2 - t1, 2)}  # fmt: skip


def ingest(
    store: KBStore, n_chunks: int, terms0: list[str], vec0: Any, batch_docs: int = 0
) -> dict[str, float]:
    store.create_collection(COLLECTION, embedder=SPEC, dim=DIM, exist_ok=True)
    vocab = make_vocabulary()
    extra: dict[str, float] = {}
    t0 = time.perf_counter()
    if batch_docs:
        extra = bulk(store, n_chunks, batch_docs)
        t0 += extra["synth_s"]  # generating the synthetic corpus is not ingest
    else:
        for doc, chunks in documents(vocab, n_chunks):
            store.upsert_document(COLLECTION, doc, chunks)
    t1 = time.perf_counter()
    store.lexical_search(COLLECTION, terms0, limit=DEPTH)
    t2 = time.perf_counter()
    store.vector_search(COLLECTION, vec0, limit=DEPTH)
    t3 = time.perf_counter()
    waited = getattr(store, "wait_for_indexes", None)
    if waited is not None and store.name == "sqlite":  # HNSW builds in the background
        waited()
        store.vector_search(COLLECTION, vec0, limit=DEPTH)
    t4 = time.perf_counter()
    return {
        "upsert_s": round(t1 - t0, 2),
        "first_lexical_s": round(t2 - t1, 3),
        "first_vector_s": round(t3 - t2, 3),
        "hnsw_wait_s": round(t4 - t3, 2),
        "chunks_per_s": round(n_chunks / (t3 - t0)),
        **extra,
    }


def interleaved(
    ours: Callable[[int], Any], raw: Callable[[int], Any], pairs: int
) -> dict[str, Any]:
    """p50/p95 of each side and of the per-pair difference; the order alternates per pair."""
    a, b = [], []
    for i in range(pairs):
        for side in (0, 1) if i % 2 == 0 else (1, 0):
            fn, out = (ours, a) if side == 0 else (raw, b)
            t0 = time.perf_counter()
            fn(i)
            out.append((time.perf_counter() - t0) * 1000)
    diff = [x - y for x, y in zip(a, b, strict=True)]
    return {
        "store": pcts(a),
        "raw": pcts(b),
        "diff_p50": round(float(np.median(diff)), 3),
        "ratio_p50": round(float(np.median(a)) / max(float(np.median(b)), 1e-9), 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--chunks", type=int, required=True)
    p.add_argument("--dir", type=Path, required=True)
    p.add_argument("--pg", default=None)
    p.add_argument("--milvus", default=None, help="a Milvus server's URL (milvus-server*)")
    p.add_argument("--milvus-pid", type=int, default=None, help="its process, for its memory")
    p.add_argument("--milvus-data", type=Path, default=None, help="its data folder, for disk")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--pairs", type=int, default=300)
    p.add_argument(
        "--bulk", type=int, default=0,
        help="documents per upsert_documents batch, under bulk_load if any (0: one by one)",
    )  # fmt: skip
    args = p.parse_args(argv)
    texts = queries(make_vocabulary(), args.queries + 20, seed=2)
    vecs = unit_vectors(len(texts), np.random.default_rng(102))
    an = get_analyzer("auto")
    terms = [an.terms(t) for t in texts]
    base_rss = rss_mb()
    spec = spec_for(args.store, args.dir, args.pg, args.milvus)
    server_disk = folder_mb(args.milvus_data) if args.milvus_data else 0
    store = open_store(spec, args.dir)
    out: dict[str, Any] = {"store": args.store, "chunks": args.chunks}
    bulk_docs = args.bulk if hasattr(store, "upsert_documents") else 0
    out["ingest"] = ingest(store, args.chunks, terms[0], vecs[0], bulk_docs)
    warm, n = 20, args.queries
    for i in range(warm):
        store.lexical_search(COLLECTION, terms[i], limit=DEPTH)
        store.vector_search(COLLECTION, vecs[i], limit=DEPTH)
    q = lambda i: warm + i % n  # noqa: E731
    cpu: dict[str, list[float]] = {"lexical": [], "vector": [], "hybrid": []}
    out["lexical"] = pcts(
        timed(
            lambda i: store.lexical_search(COLLECTION, terms[q(i)], limit=DEPTH), n, cpu["lexical"]
        )
    )
    out["vector"] = pcts(
        timed(lambda i: store.vector_search(COLLECTION, vecs[q(i)], limit=DEPTH), n, cpu["vector"])
    )
    qv = {t: v for t, v in zip(texts, vecs, strict=True)}
    emb = PrecomputedEmbedder(SPEC, DIM, qv)  # queries from the table: no model is timed
    settings = load_settings(home=args.dir, kb={"embedder": SPEC})
    kb = KnowledgeBase(store, settings, embedder_factory=lambda s: emb)

    def hybrid(i: int) -> None:
        req = SearchRequest(type="kb", query=texts[q(i)], collections=(COLLECTION,), mode="hybrid")
        res = kb.search_sync(req)
        if res.status != "ok":
            raise RuntimeError(f"hybrid not ok: {res.reports}")

    timed(lambda i: hybrid(i), warm)
    out["hybrid"] = pcts(timed(hybrid, n, cpu["hybrid"]))
    out["cpu"] = {k: pcts(v) for k, v in cpu.items()}
    out["rss_mb"] = round(rss_mb() - base_rss)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out["engine_mb"] = engine_memory_mb(store, args.milvus_pid)
    out["disk_mb"] = on_disk_mb(store, args.dir)
    if args.milvus_data:  # what the server's data folder grew by (WAL and segments)
        out["disk_mb"] += folder_mb(args.milvus_data) - server_disk
    out["overhead"] = {}
    for key, (ours, raw) in raw_calls(store, COLLECTION, terms, vecs, DEPTH).items():
        out["overhead"][key] = interleaved(
            lambda i, f=ours: f(q(i)), lambda i, f=raw: f(q(i)), args.pairs
        )
    if args.milvus:  # the server is shared by the runs: free it for the next one
        store.delete_collection(COLLECTION)
    store.close()
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
