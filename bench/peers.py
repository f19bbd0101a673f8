"""unifind's hybrid KB search next to LangChain, LlamaIndex and Qdrant, on SciFact.

    OMP_NUM_THREADS=1 bench/.venv/bin/python bench/peers.py [--max-queries N] [--repeat 2]
        [--data DIR] [--cache bench/.cache] [--out bench/results/peers.md]

The venv (kept apart: the peers pull in hundreds of packages unifind never needs)::

    python3.11 -m venv bench/.venv
    bench/.venv/bin/pip install -e ".[bench,qdrant]" langchain-classic langchain-community \
        langchain-core rank-bm25 llama-index-core llama-index-retrievers-bm25

Same data and same document vectors for everyone: SciFact is ingested into a
``KnowledgeBase`` (SQLite store, bge-small-en-v1.5 behind the shared embedding cache of
bench/quality.py), and the very chunks it made, each as "title + chunk" with the vector
the pipeline gave it, are handed to the peers. Every system then embeds its own query with
the same bge-small model, inside the timed call, as a user's query is:

* unifind, the shipped default (adaptive fusion + feedback), through its documented calls:
  ``KnowledgeBase.search_sync``, ``Searcher.search_sync`` (the facade an agent or script
  uses) and ``await KnowledgeBase.search`` in one long-lived event loop (as a server).
* LangChain: ``EnsembleRetriever`` (weighted RRF, c=60) over ``BM25Retriever``
  (rank_bm25's BM25Okapi) and an ``InMemoryVectorStore`` retriever. Twice: with
  BM25Retriever's default whitespace tokenizer, and with unifind's analyser as
  ``preprocess_func``.
* LlamaIndex: ``QueryFusionRetriever`` (mode ``reciprocal_rerank``, ``num_queries=1`` so
  no LLM runs, ``use_async=False``) over ``VectorStoreIndex`` and ``BM25Retriever``
  (bm25s, English stemming and stopwords: its defaults).
* Qdrant, a real store, in local mode (``QdrantClient(":memory:")``): one collection with
  a dense vector and a sparse BM25 vector (``Modifier.IDF``, so Qdrant applies the IDF),
  queried by ``query_points`` with both as prefetches and Qdrant's own RRF fusion. The
  sparse vectors are BM25 term weights (k1 1.2, b 0.75) over unifind's analyser: Qdrant's
  usual ``Qdrant/bm25`` model comes from a download this machine can't reach.

Every system takes 100 candidates per leg and returns its fused top 100 chunks; a
document ranks at its best chunk. nDCG@10 by ir-measures. Latency: the wall time of one
call, query embedding included, timed query by query with the systems interleaved (query
1 on every system, then query 2, ...) after a warm-up, over ``--repeat`` passes; the time
each call spent embedding its query is measured inside it and reported too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import Dataset, default_root, load_dataset, require_root
from _eval import evaluate, first_occurrence, paired_p, ranked_run
from _synth import peak_rss_mb, percentile_ms

from unifind import KnowledgeBase, Searcher, SearchRequest, load_settings
from unifind.analysis import get_analyzer
from unifind.embed.base import Embedder
from unifind.kb.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
DEPTH = 100  # candidates per leg, and fused chunks returned, for every system
COLLECTION = "scifact"
Search = Callable[[str], list[str]]
"""A system: query text → the document id of each returned chunk, best first."""


@dataclass
class Corpus:
    """What every system indexes: unifind's chunks, their texts and vectors."""

    keys: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    """Title + chunk, exactly what the embedder saw."""
    doc_of: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, Any] = field(default_factory=dict)
    """Text → its document vector."""


class _Capture(Embedder):
    """Delegates to ``inner`` and keeps every (text, vector) it embedded, in order."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.spec, self.dim = inner, inner.spec, inner.dim
        self.seen: list[tuple[str, Any]] = []

    def embed_documents(self, texts: Sequence[str]) -> Any:
        rows = self.inner.embed_documents(texts)
        self.seen.extend(zip(texts, rows, strict=True))
        return rows

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


class QueryModel(Embedder):
    """One system's query embedder: the real model, every call timed (``spent``, seconds).

    Documents come from the stored vectors (a search embeds none; a text outside them is a
    bench bug and raises)."""

    def __init__(self, model: Embedder, vectors: dict[str, Any]) -> None:
        self.model, self.spec, self.dim = model, model.spec, model.dim
        self.vectors, self.spent = vectors, 0.0

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> Any:
        t0 = time.perf_counter()
        vec = self.model.embed_query(text)
        self.spent += time.perf_counter() - t0
        return vec


@dataclass
class System:
    """A search callable and the query embedder it embeds through."""

    search: Search
    embedder: QueryModel


def build_corpus(ds: Dataset, embedder: Embedder, home: Path) -> Corpus:
    """Ingest ``ds`` through the public API; the corpus the peers get, chunk for chunk."""
    cap = _Capture(embedder)
    kb = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), load_settings(home=home),
                       embedder_factory=lambda spec: cap)  # fmt: skip
    kb.create(COLLECTION, embedder=embedder.spec)
    corpus = Corpus()
    for doc in ds.docs:
        if not doc.text.strip():
            continue
        start = len(cap.seen)
        kb.ingest_text(COLLECTION, doc.text, document_id=doc.doc_id, title=doc.title)
        for j, (text, vec) in enumerate(cap.seen[start:]):
            key = f"{doc.doc_id}#{j}"
            corpus.keys.append(key)
            corpus.texts.append(text)
            corpus.doc_of[key] = doc.doc_id
            corpus.vectors[text] = np.asarray(vec, dtype=np.float32)
    kb.close()
    return corpus


def _request(query: str) -> SearchRequest:
    return SearchRequest(type="kb", query=query, collections=(COLLECTION,), mode="hybrid",
                         limit=DEPTH)  # fmt: skip


def _docs(res: Any) -> list[str]:
    if res.status != "ok":
        raise RuntimeError(f"unifind search was not ok: {res.reports}")
    return [it.document_id or "" for it in res.items]


def unifind_kb(home: Path, emb: QueryModel, closers: list[Callable[[], None]],
               loop: asyncio.AbstractEventLoop | None = None) -> Search:  # fmt: skip
    """The shipped default through ``KnowledgeBase.search_sync``, or awaited in ``loop``."""
    kb = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), load_settings(home=home),
                       embedder_factory=lambda spec: emb)  # fmt: skip
    closers.append(kb.close)
    if loop is None:
        return lambda q: _docs(kb.search_sync(_request(q)))
    return lambda q: _docs(loop.run_until_complete(kb.search(_request(q))))


def unifind_searcher(home: Path, emb: QueryModel, closers: list[Callable[[], None]]) -> Search:
    """The shipped default through the engine's facade, ``Searcher.search_sync``."""
    settings = load_settings(home=home)
    kb = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), settings,
                       embedder_factory=lambda spec: emb)  # fmt: skip
    searcher = Searcher(settings, kb=kb)
    closers.append(searcher.close)
    return lambda q: _docs(searcher.search_sync(_request(q)))


def langchain_search(corpus: Corpus, emb: QueryModel, *, analyser: bool = False) -> Search:
    """EnsembleRetriever(BM25Retriever, InMemoryVectorStore retriever), equal weights, c=60."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    class Stored(Embeddings):  # type: ignore[misc]  # untyped where langchain is absent
        """Stored document vectors; queries through the model. Lists of floats, as the
        contract says."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [corpus.vectors[t].tolist() for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in emb.embed_query(text)]

    docs = [
        Document(page_content=t, metadata={"doc": corpus.doc_of[k], "key": k}, id=k)
        for k, t in zip(corpus.keys, corpus.texts, strict=True)
    ]
    extra = {"preprocess_func": get_analyzer("auto").terms} if analyser else {}
    bm25 = BM25Retriever.from_documents(docs, k=DEPTH, **extra)
    store = InMemoryVectorStore(embedding=Stored())
    store.add_documents(docs)
    dense = store.as_retriever(search_kwargs={"k": DEPTH})
    # id_key: two chunks with equal text stay two results (the default keys on the text).
    ensemble = EnsembleRetriever(retrievers=[bm25, dense], weights=[0.5, 0.5], id_key="key")
    return lambda q: [d.metadata["doc"] for d in ensemble.invoke(q)[:DEPTH]]


def llamaindex_search(corpus: Corpus, emb: QueryModel) -> Search:
    """QueryFusionRetriever(VectorStoreIndex retriever, BM25Retriever), reciprocal_rerank."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    class Stored(BaseEmbedding):  # type: ignore[misc]  # untyped where llama-index is absent
        """Queries through the model; nodes arrive embedded."""

        def _get_query_embedding(self, query: str) -> list[float]:
            return [float(x) for x in emb.embed_query(query)]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return [float(x) for x in corpus.vectors[text]]

    nodes = [
        TextNode(id_=k, text=t, embedding=corpus.vectors[t].tolist())
        for k, t in zip(corpus.keys, corpus.texts, strict=True)
    ]
    index = VectorStoreIndex(nodes, embed_model=Stored())
    fusion = QueryFusionRetriever(
        [index.as_retriever(similarity_top_k=DEPTH),
         BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=DEPTH)],
        llm=MockLLM(),  # never called: num_queries=1 generates no extra queries
        mode="reciprocal_rerank", similarity_top_k=DEPTH, num_queries=1, use_async=False,
    )  # fmt: skip
    return lambda q: [corpus.doc_of[n.node.node_id] for n in fusion.retrieve(q)]


def qdrant_search(corpus: Corpus, emb: QueryModel) -> Search:
    """Qdrant local: dense + sparse BM25 prefetches, fused by Qdrant's RRF."""
    from qdrant_client import QdrantClient, models

    terms = get_analyzer("auto").terms
    vocab: dict[str, int] = {}
    bags = [Counter(terms(t)) for t in corpus.texts]
    avg = sum(sum(b.values()) for b in bags) / max(len(bags), 1)

    def doc_sparse(bag: Counter[str]) -> models.SparseVector:
        # BM25's document side; Qdrant multiplies in the IDF (Modifier.IDF) at query time.
        norm = 1.2 * (1 - 0.75 + 0.75 * sum(bag.values()) / avg)
        ids = [vocab.setdefault(t, len(vocab)) for t in bag]
        weights = [tf * 2.2 / (tf + norm) for tf in bag.values()]
        return models.SparseVector(indices=ids, values=weights)

    client = QdrantClient(":memory:")
    dense = models.VectorParams(size=emb.dim, distance=models.Distance.COSINE)
    sparse = models.SparseVectorParams(modifier=models.Modifier.IDF)
    client.create_collection(
        COLLECTION, vectors_config={"dense": dense}, sparse_vectors_config={"bm25": sparse}
    )
    client.upload_points(COLLECTION, [
        models.PointStruct(id=i, payload={"doc": corpus.doc_of[k]},
                           vector={"dense": corpus.vectors[t].tolist(), "bm25": doc_sparse(bag)})
        for i, (k, t, bag) in enumerate(zip(corpus.keys, corpus.texts, bags, strict=True))
    ])  # fmt: skip

    def search(query: str) -> list[str]:
        ids = sorted({vocab[t] for t in terms(query) if t in vocab})
        legs = [models.Prefetch(query=emb.embed_query(query).tolist(), using="dense", limit=DEPTH)]
        if ids:
            sparse = models.SparseVector(indices=ids, values=[1.0] * len(ids))
            legs.append(models.Prefetch(query=sparse, using="bm25", limit=DEPTH))
        res = client.query_points(COLLECTION, prefetch=legs, limit=DEPTH,
                                  query=models.FusionQuery(fusion=models.Fusion.RRF))  # fmt: skip
        return [str((p.payload or {})["doc"]) for p in res.points]

    return search


# -- running ----------------------------------------------------------------------------


def compare(systems: dict[str, System], ds: Dataset, repeat: int) -> dict[str, Any]:
    """nDCG@10, and per pass the call and embedding times; query by query, every system
    in turn, so machine load hits all alike."""
    queries = list(ds.queries.items())
    for sys_ in systems.values():
        for _, q in queries[:10]:
            sys_.search(q)
    ranked: dict[str, dict[str, list[str]]] = {name: {} for name in systems}
    passes: dict[str, list[tuple[list[float], list[float]]]] = {n: [] for n in systems}
    for _ in range(repeat):
        took: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in systems}
        for qid, text in queries:
            for name, sys_ in systems.items():
                sys_.embedder.spent = 0.0
                t0 = time.perf_counter()
                docs = sys_.search(text)
                took[name][0].append(time.perf_counter() - t0)
                took[name][1].append(sys_.embedder.spent)
                ranked[name][qid] = first_occurrence(docs, DEPTH)
        for name in systems:
            passes[name].append(took[name])
    out: dict[str, Any] = {}
    for name in systems:
        scores = evaluate(ds, ranked_run(ranked[name]))
        out[name] = {
            "ndcg": scores.means["nDCG@10"], "r100": scores.means["R@100"],
            "per_query": scores.ndcg_per_query, "passes": passes[name],
        }  # fmt: skip
    return out


# -- report -----------------------------------------------------------------------------

HEADER = (
    "| system | nDCG@10 | Δ vs first row (paired p) | R@100 "
    "| p50 / p95 ms per call, query embedding included (one figure per pass) "
    "| query embedding inside that call, p50 ms "
    "| p50 / p95 ms per call less its query embedding "
    "| p50 ratio to first row, embedding included | index build s (stored vectors) |"
)


def _row(name: str, r: dict[str, Any], b: dict[str, Any], build_s: float) -> str:
    def pair(xs: list[float]) -> str:
        return f"{percentile_ms(xs, 50):.2f} / {percentile_ms(xs, 95):.2f}"

    whole = "; ".join(pair(t) for t, _ in r["passes"])
    emb = "; ".join(f"{percentile_ms(e, 50):.2f}" for _, e in r["passes"])
    less = "; ".join(pair([x - y for x, y in zip(t, e, strict=True)]) for t, e in r["passes"])
    ratio = ", ".join(
        f"{percentile_ms(p[0], 50) / percentile_ms(bp[0], 50):.1f}x"
        for p, bp in zip(r["passes"], b["passes"], strict=True)
    )
    p = paired_p(r["per_query"], b["per_query"])
    delta = "—" if r is b else f"{r['ndcg'] - b['ndcg']:+.4f} (p={p:.3g})"
    return (f"| {name} | {r['ndcg']:.4f} | {delta} | {r['r100']:.4f} | {whole} | {emb} | {less} "
            f"| {ratio} | {build_s:.1f} |")  # fmt: skip


def render(res: dict[str, Any], meta: dict[str, Any]) -> str:
    """Markdown: one row per system, its passes, and the ratios against the first row."""
    b = next(iter(res.values()))
    lines = [
        "# unifind vs LangChain, LlamaIndex and Qdrant local (SciFact, same chunks, same vectors)",
        "", "```", f"OMP_NUM_THREADS=1 {meta['command']}", "```", "",
        f"{meta['docs']:,} documents → {meta['chunks']:,} chunks (unifind's chunker, 1200 chars); "
        f"{meta['queries']} judged test queries; the same bge-small-en-v1.5 int8 document vectors "
        "(the embedding cache of bench/quality.py) for every system. Query embedding INCLUDED: "
        "every system embeds its own query with the same bge-small model inside the timed call. "
        "100 candidates per leg, top 100 fused chunks, a document ranks at its best chunk. "
        "unifind runs its shipped default (adaptive fusion + feedback). Latency = wall time "
        f"of one call, {len(b['passes'])} pass(es), systems interleaved query by query, on a "
        "shared 2-core machine (OMP_NUM_THREADS=1). Versions: " + meta["versions"] + ".",
        "", HEADER, "|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    lines += [_row(n, r, b, meta["build_s"].get(n, 0.0)) for n, r in res.items()]
    lines += ["", *meta["notes"]]
    return "\n".join(lines) + "\n"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("langchain-classic", "langchain-community", "langchain-core", "rank-bm25",
                "llama-index-core", "llama-index-retrievers-bm25", "bm25s",
                "qdrant-client"):  # fmt: skip
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} missing")
    return ", ".join(out)


def build_systems(
    corpus: Corpus,
    model: Embedder,
    home: Path,
    loop: asyncio.AbstractEventLoop,
    closers: list[Callable[[], None]],
) -> tuple[dict[str, System], dict[str, float]]:
    """Every system, each with its own timed query embedder over the one model."""
    makers: dict[str, Callable[[QueryModel], Search]] = {
        "unifind default, KnowledgeBase.search_sync": lambda e: unifind_kb(home, e, closers),
        "unifind default, Searcher.search_sync": lambda e: unifind_searcher(home, e, closers),
        "unifind default, await KnowledgeBase.search (one loop)": lambda e: unifind_kb(
            home, e, closers, loop
        ),
        "LangChain EnsembleRetriever (BM25Retriever defaults)": lambda e: langchain_search(
            corpus, e
        ),
        "LangChain EnsembleRetriever (unifind's analyser)": lambda e: langchain_search(
            corpus, e, analyser=True
        ),
        "LlamaIndex QueryFusionRetriever": lambda e: llamaindex_search(corpus, e),
        "Qdrant local, prefetch dense + sparse BM25, Fusion.RRF": lambda e: qdrant_search(
            corpus, e
        ),
    }
    systems, build_s = {}, {}
    for name, make in makers.items():
        emb = QueryModel(model, corpus.vectors)
        t0 = time.perf_counter()
        systems[name] = System(make(emb), emb)
        build_s[name] = time.perf_counter() - t0
    return systems, build_s


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=default_root())
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries")
    p.add_argument("--repeat", type=int, default=2, help="interleaved timing passes")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "peers.md"))
    args = p.parse_args(argv)
    require_root(args.data, ["scifact"])
    from unifind.embed.base import resolve_embedder
    from unifind.embed.cached import CachedEmbedder

    ds = load_dataset(args.data, "scifact").head(args.max_queries)
    model = resolve_embedder("bge-small-en-v1.5")  # queries: the real model, never cached
    emb = CachedEmbedder(model, args.cache / "embeddings.sqlite")
    closers: list[Callable[[], None]] = []
    with tempfile.TemporaryDirectory(prefix="unifind-peers-") as tmp:
        corpus = build_corpus(ds, emb, Path(tmp))
        print(f"ingested {len(corpus.keys)} chunks ({emb.misses} embedded, {emb.hits} cached)",
              file=sys.stderr)  # fmt: skip
        loop = asyncio.new_event_loop()
        systems, build_s = build_systems(corpus, model, Path(tmp), loop, closers)
        res = compare(systems, ds, args.repeat)
        for close in closers:
            close()
        loop.close()
    meta = {
        "command": "bench/.venv/bin/python bench/peers.py "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "docs": len(ds.docs),
        "chunks": len(corpus.keys),
        "queries": len(ds.queries),
        "versions": _versions(),
        "build_s": build_s,
        "notes": [
            f"Peak RSS of the whole run (all systems in one process): {peak_rss_mb():.0f} MB; "
            f"load average at the end {os.getloadavg()[0]:.2f}."
        ],
    }
    md = render(res, meta)
    print(md)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
