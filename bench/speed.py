"""KB speed on synthetic corpora of 10k / 100k / 200k chunks, and ingestion throughput.

    OMP_NUM_THREADS=1 python bench/speed.py [--sizes 10000,100000,200000] [--repeat 2]
        [--queries 200] [--ingest-docs 500] [--data DIR] [--out bench/results/speed.md]

Each size is written straight through ``SQLiteStore.upsert_document`` (``_synth.py``
says how the corpus is made) into bench/.cache/speed/, then measured in fresh processes,
``--repeat`` times: the first query of each index (cold: built or loaded from the file
and its sidecars), then 200 warm queries per mode, at the store (the raw index call at
the fusion depth, 100) and through ``KnowledgeBase.search`` (analysis, both legs, RRF,
chunk fetch, items; limit 10). The query embedding is not timed there: an embedder that
returns precomputed vectors stands in, and the real bge-small query time is measured on
its own. Ingestion runs the real pipeline (``KnowledgeBase.ingest_text``) over SciFact
abstracts and compares it with the bare model on the same chunk texts. Peak RSS is per
process (``getrusage``), so each figure is one run's own.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import default_root, require_root
from _speed_report import render
from _synth import (
    DIM,
    PrecomputedEmbedder,
    documents,
    make_vocabulary,
    peak_rss_mb,
    percentile_ms,
    queries,
    unit_vectors,
)

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.analysis import get_analyzer
from unifind.embed.base import Embedder
from unifind.kb.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".cache" / "speed"
COLLECTION = "synth"
#: The synthetic vectors are random, not any model's: the collection says so.
SYNTH_SPEC = "synthetic-random-384"
DEPTH = 100  # what each leg hands to fusion (KBSettings.candidates)
LIMIT = 10
MODES = ("text", "semantic", "hybrid")
Stats = dict[str, Any]


def _p(seconds: Sequence[float]) -> list[float]:
    return [round(percentile_ms(seconds, 50), 3), round(percentile_ms(seconds, 95), 3)]


# -- building ---------------------------------------------------------------------------


def build(db: Path, n_chunks: int, *, hnsw_threshold: int = 20_000) -> Stats:
    """Write a synthetic corpus into a fresh store, then build (and persist) its indexes."""
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    vocab = make_vocabulary()
    store = SQLiteStore(db, hnsw_threshold=hnsw_threshold)
    store.create_collection(COLLECTION, embedder=SYNTH_SPEC, dim=DIM, analyzer="auto")
    t0 = time.perf_counter()
    n_docs = 0
    for doc, chunks in documents(vocab, n_chunks):
        store.upsert_document(COLLECTION, doc, chunks)
        n_docs += 1
    write_s = time.perf_counter() - t0
    terms = get_analyzer("auto").terms(queries(vocab, 1)[0])
    t1 = time.perf_counter()
    store.lexical_search(COLLECTION, terms, limit=DEPTH)
    t2 = time.perf_counter()
    probe = unit_vectors(1, np.random.default_rng(9))[0]
    store.vector_search(COLLECTION, probe, limit=DEPTH)
    t3 = time.perf_counter()
    store.wait_for_indexes()  # the HNSW index builds in a background thread
    store.vector_search(COLLECTION, probe, limit=DEPTH)  # adopts it and writes the sidecar
    t4 = time.perf_counter()
    store.close()
    return {
        "chunks": n_chunks, "documents": n_docs, "write_s": round(write_s, 2),
        "chunks_per_s": round(n_chunks / write_s), "lexical_build_s": round(t2 - t1, 3),
        "vector_build_s": round(t3 - t2, 3), "hnsw_build_s": round(t4 - t3, 3),
        "close_s": round(time.perf_counter() - t4, 3),
        "file_mb": round(sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20),
        "peak_rss_mb": round(peak_rss_mb()),
    }  # fmt: skip


# -- querying ---------------------------------------------------------------------------


def query_set(n: int, *, seed: int = 2) -> tuple[list[str], dict[str, Any]]:
    """``n`` synthetic queries and a fixed random unit vector for each."""
    vocab = make_vocabulary()
    texts = queries(vocab, n, seed=seed)
    vecs = unit_vectors(len(texts), np.random.default_rng(seed + 100))
    return texts, dict(zip(texts, vecs, strict=True))


async def _timed(kb: KnowledgeBase, reqs: Sequence[SearchRequest]) -> tuple[list[float], int]:
    took, empty = [], 0
    for req in reqs:
        t0 = time.perf_counter()
        res = await kb.search(req)
        took.append(time.perf_counter() - t0)
        if res.status != "ok":
            raise RuntimeError(f"{req.mode} search for {req.query!r} was not ok: {res.reports}")
        empty += not res.items
    return took, empty


def time_kb(kb: KnowledgeBase, texts: Sequence[str], mode: str) -> tuple[list[float], int]:
    """Seconds per ``KnowledgeBase.search`` call, in one event loop (as a server runs it),
    and how many calls found nothing."""
    reqs = [
        SearchRequest(type="kb", query=q, collections=(COLLECTION,), mode=mode, limit=LIMIT)  # type: ignore[arg-type]
        for q in texts
    ]
    return asyncio.run(_timed(kb, reqs))


def time_store(store: SQLiteStore, texts: Sequence[str], vecs: dict[str, Any]) -> Stats:
    """Seconds per raw index call (lexical on analysed terms, vector on the fixed vector)."""
    analyzer = get_analyzer("auto")
    lex, vec = [], []
    for q in texts:
        terms = analyzer.terms(q)
        t0 = time.perf_counter()
        store.lexical_search(COLLECTION, terms, limit=DEPTH)
        t1 = time.perf_counter()
        store.vector_search(COLLECTION, vecs[q], limit=DEPTH)
        vec.append(time.perf_counter() - t1)
        lex.append(t1 - t0)
    return {"lexical": lex, "vector": vec}


def measure(db: Path, n_queries: int) -> Stats:
    """Cold first query per index, then warm p50/p95 per mode, in this (fresh) process."""
    texts, vecs = query_set(n_queries)
    warm, warm_vecs = query_set(20, seed=3)
    all_vecs = {**vecs, **warm_vecs}
    store = SQLiteStore(db)
    t0 = time.perf_counter()
    store.lexical_search(COLLECTION, get_analyzer("auto").terms(warm[0]), limit=DEPTH)
    t1 = time.perf_counter()
    store.vector_search(COLLECTION, warm_vecs[warm[0]], limit=DEPTH)
    t2 = time.perf_counter()
    store.wait_for_indexes()  # a stale or missing HNSW sidecar is rebuilt in the background
    out: Stats = {"cold_lexical_ms": round((t1 - t0) * 1000, 1),
                  "cold_vector_ms": round((t2 - t1) * 1000, 1),
                  "hnsw_wait_s": round(time.perf_counter() - t2, 2)}  # fmt: skip
    time_store(store, warm, all_vecs)
    out["store"] = {k: _p(v) for k, v in time_store(store, texts, all_vecs).items()}
    settings = load_settings(home=db.parent)
    factory = lambda spec: PrecomputedEmbedder(spec, DIM, all_vecs)  # noqa: E731
    with KnowledgeBase(store, settings, embedder_factory=factory) as kb:
        out["kb"], out["empty"] = {}, {}
        for mode in MODES:
            time_kb(kb, warm, mode)
            took, out["empty"][mode] = time_kb(kb, texts, mode)
            out["kb"][mode] = _p(took)
    out["peak_rss_mb"] = round(peak_rss_mb())
    return out


# -- models -----------------------------------------------------------------------------


def scifact_docs(data: Path, n: int) -> list[tuple[str, str, str]]:
    """The first ``n`` SciFact abstracts as (id, title, text), read where they lie."""
    out = []
    with gzip.open(data / "scifact" / "corpus.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("text", "").strip():
                out.append((str(row["_id"]), row.get("title") or "", row["text"]))
            if len(out) == n:
                break
    return out


def query_embedding(data: Path, n: int) -> Stats:
    """The real bge-small query embedding: load time and p50/p95 over SciFact claims."""
    from unifind.embed.bge import BgeSmallEmbedder

    t0 = time.perf_counter()
    emb = BgeSmallEmbedder()
    load_s = time.perf_counter() - t0
    with open(data / "scifact" / "queries.jsonl", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh][:n]
    for q in texts[:5]:
        emb.embed_query(q)
    took = []
    for q in texts:
        t = time.perf_counter()
        emb.embed_query(q)
        took.append(time.perf_counter() - t)
    return {"load_s": round(load_s, 2), "queries": len(texts), "p50_p95_ms": _p(took),
            "peak_rss_mb": round(peak_rss_mb())}  # fmt: skip


class _Recording(Embedder):
    """Passes calls through to ``inner`` and keeps the document texts it was given."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.spec, self.dim = inner, inner.spec, inner.dim
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.texts.extend(texts)
        return self.inner.embed_documents(texts)


def chunk_texts(docs: Sequence[tuple[str, str, str]]) -> list[list[str]]:
    """Per document, the texts the pipeline will embed (a dry run with the hash embedder)."""
    from unifind.testing.fakes import HashEmbedder

    with tempfile.TemporaryDirectory(prefix="unifind-speed-") as tmp:
        rec = _Recording(HashEmbedder(DIM))
        out = []
        with _kb(Path(tmp), rec) as kb:
            for doc_id, title, text in docs:
                start = len(rec.texts)
                kb.ingest_text("ingest", text, document_id=doc_id, title=title)
                out.append(rec.texts[start:])
    return out


def _kb(home: Path, emb: Embedder) -> KnowledgeBase:
    kb = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), load_settings(home=home),
                       embedder_factory=lambda spec: emb)  # fmt: skip
    kb.create("ingest", embedder=emb.spec)
    return kb


def ingestion(data: Path, n_docs: int, repeat: int, block: int = 25) -> Stats:
    """Pipeline vs bare ``embed_documents`` on the same chunk texts, block by block.

    Blocks of ``block`` documents alternate which side runs first, so a load change on
    the shared machine hits both sides alike; CPU time (``process_time``) is reported next
    to wall time because it is far less sensitive to other processes.
    """
    from unifind.embed.bge import BgeSmallEmbedder

    emb = BgeSmallEmbedder()
    docs = scifact_docs(data, n_docs)
    texts = chunk_texts(docs)
    passes = []
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="unifind-speed-") as tmp:
            rec = _Recording(emb)
            with _kb(Path(tmp), rec) as kb:
                wall, cpu = _alternate(kb, emb, docs, texts, block)
        if rec.texts != [t for ts in texts for t in ts]:
            raise RuntimeError("the pipeline embedded other texts than the dry run predicted")
        passes.append({
            "pass": i + 1, "chunks": len(rec.texts),
            "ingest_s": round(wall["ingest"], 1), "raw_s": round(wall["raw"], 1),
            "ratio": round(wall["raw"] / wall["ingest"], 3),
            "ingest_cpu_s": round(cpu["ingest"], 1), "raw_cpu_s": round(cpu["raw"], 1),
            "cpu_ratio": round(cpu["raw"] / cpu["ingest"], 3),
        })  # fmt: skip
    return {"documents": len(docs), "passes": passes, "peak_rss_mb": round(peak_rss_mb())}


def _alternate(
    kb: KnowledgeBase, emb: Embedder, docs: Sequence[tuple[str, str, str]],
    texts: list[list[str]], block: int,
) -> tuple[dict[str, float], dict[str, float]]:  # fmt: skip
    wall, cpu = {"ingest": 0.0, "raw": 0.0}, {"ingest": 0.0, "raw": 0.0}
    for b, start in enumerate(range(0, len(docs), block)):
        part = docs[start : start + block]
        flat = [t for ts in texts[start : start + block] for t in ts]
        for name in ("ingest", "raw") if b % 2 == 0 else ("raw", "ingest"):
            w0, c0 = time.perf_counter(), time.process_time()
            if name == "ingest":
                for doc_id, title, text in part:
                    kb.ingest_text("ingest", text, document_id=doc_id, title=title)
            else:
                emb.embed_documents(flat)
            wall[name] += time.perf_counter() - w0
            cpu[name] += time.process_time() - c0
    return wall, cpu


# -- orchestration ----------------------------------------------------------------------


def worker(task: list[str]) -> Stats:
    """Run one measurement in this process (called by ``main`` in a fresh subprocess)."""
    kind, *rest = task
    if kind == "build":
        return build(Path(rest[0]), int(rest[1]))
    if kind == "measure":
        return measure(Path(rest[0]), int(rest[1]))
    if kind == "embed":
        return query_embedding(Path(rest[0]), int(rest[1]))
    if kind == "ingest":
        return ingestion(Path(rest[0]), int(rest[1]), int(rest[2]))
    raise SystemExit(f"unknown worker task {kind!r}")


def spawn(*task: object) -> Stats:
    """Run a worker task in a fresh interpreter: its own peak RSS, truly cold indexes."""
    cmd = [sys.executable, __file__, "--worker", *map(str, task)]
    print("$", shlex.join(cmd[1:]), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"worker {task} failed:\n{done.stderr[-3000:]}")
    stats: Stats = json.loads(done.stdout.strip().splitlines()[-1])
    print("  ", json.dumps(stats), file=sys.stderr, flush=True)
    return stats


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="10000,100000,200000", help="chunk counts, comma-separated")
    p.add_argument("--queries", type=int, default=200, help="timed queries per mode")
    p.add_argument("--repeat", type=int, default=2, help="fresh-process repeats of each figure")
    p.add_argument("--ingest-docs", type=int, default=500, help="SciFact abstracts (0: skip)")
    p.add_argument("--data", type=Path, default=default_root())
    p.add_argument("--reuse", action="store_true", help="keep corpora already built")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "speed.md"))
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        stats = worker(args.worker)
        stats["load"] = round(os.getloadavg()[0], 2)  # how shared the machine was
        print(json.dumps(stats))
        return 0
    require_root(args.data, ["scifact"])
    WORK.mkdir(parents=True, exist_ok=True)
    results: Stats = {"sizes": {}, "command": "python bench/speed.py " + shlex.join(
        sys.argv[1:] if argv is None else argv)}  # fmt: skip
    for size in [int(s) for s in args.sizes.split(",") if s]:
        db = WORK / f"synth-{size}.sqlite"
        built = json.loads((WORK / f"{db.name}.json").read_text()) if args.reuse and db.exists() \
            else spawn("build", db, size)  # fmt: skip
        (WORK / f"{db.name}.json").write_text(json.dumps(built))
        runs = [spawn("measure", db, args.queries) for _ in range(args.repeat)]
        results["sizes"][size] = {"build": built, "runs": runs}
    results["embed"] = [spawn("embed", args.data, args.queries) for _ in range(args.repeat)]
    if args.ingest_docs:
        results["ingest"] = spawn("ingest", args.data, args.ingest_docs, args.repeat)
    (WORK / "results.json").write_text(json.dumps(results, indent=1))
    md = render(results)
    print(md)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
