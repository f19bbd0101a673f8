"""unifind's hybrid KB search next to LangChain's and LlamaIndex's, on SciFact.

    OMP_NUM_THREADS=1 bench/.venv/bin/python bench/peers.py [--max-queries N] [--repeat 2]
        [--data DIR] [--cache bench/.cache] [--out bench/results/peers.md]

Same data and same vectors for everyone: SciFact is ingested into a ``KnowledgeBase``
(SQLite store, bge-small-en-v1.5 behind the shared embedding cache of bench/quality.py),
and the very chunks it made, each as "title + chunk" with the vector the pipeline gave
it, are handed to the peers:

* LangChain: ``EnsembleRetriever`` (weighted RRF, c=60) over ``BM25Retriever``
  (rank_bm25's BM25Okapi) and an ``InMemoryVectorStore`` retriever, fed through an
  ``Embeddings`` class that returns the stored vectors. Twice: with BM25Retriever's default
  whitespace tokenizer, and with unifind's analyser as ``preprocess_func``.
* LlamaIndex: ``QueryFusionRetriever`` (mode ``reciprocal_rerank``, ``num_queries=1`` so
  no LLM runs, ``use_async=False``) over ``VectorStoreIndex`` (nodes carry the vectors)
  and ``BM25Retriever`` (bm25s, English stemming and stopwords: its defaults).

Every system takes 100 candidates per leg and returns its fused top 100 chunks; a
document ranks at its best chunk. Query vectors are precomputed for everyone (the model
is not timed; bench/speed.py reports it). nDCG@10 by ir-measures; per-query latency is
the wall time of one retrieve call, after a warm-up, over ``--repeat`` interleaved passes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import Dataset, load_dataset
from _eval import Run, evaluate, first_occurrence, paired_p, ranked_run
from _synth import PrecomputedEmbedder, peak_rss_mb, percentile_ms

from unifind import KnowledgeBase, SearchRequest, load_settings
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
    queries: dict[str, Any] = field(default_factory=dict)
    """Query text → its query vector."""


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


def build_unifind(ds: Dataset, embedder: Embedder, home: Path) -> tuple[KnowledgeBase, Corpus]:
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
    corpus.queries = {q: embedder.embed_query(q) for q in ds.queries.values()}
    # From here on the KB answers queries from the precomputed vectors, like the peers.
    kb.close()
    fixed = PrecomputedEmbedder(embedder.spec, embedder.dim, corpus.queries, corpus.vectors)
    timed = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), load_settings(home=home),
                          embedder_factory=lambda spec: fixed)  # fmt: skip
    return timed, corpus


def unifind_search(kb: KnowledgeBase, loop: asyncio.AbstractEventLoop | None = None) -> Search:
    """Hybrid ``KnowledgeBase.search``: in one long-lived event loop (as a server or agent
    runs it), or through the blocking ``search_sync`` facade when ``loop`` is None."""

    def search(query: str) -> list[str]:
        req = SearchRequest(type="kb", query=query, collections=(COLLECTION,), mode="hybrid",
                            limit=DEPTH)  # fmt: skip
        res = kb.search_sync(req) if loop is None else loop.run_until_complete(kb.search(req))
        if res.status != "ok":
            raise RuntimeError(f"unifind search was not ok: {res.reports}")
        return [it.document_id or "" for it in res.items]

    return search


def langchain_search(corpus: Corpus, *, analyser: bool = False) -> Search:
    """EnsembleRetriever(BM25Retriever, InMemoryVectorStore retriever), equal weights, c=60."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    class Stored(Embeddings):  # type: ignore[misc]  # untyped where langchain is absent
        """The vectors unifind's pipeline made; lists of floats, as the contract says."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [corpus.vectors[t].tolist() for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in corpus.queries[text]]

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


def llamaindex_search(corpus: Corpus) -> Search:
    """QueryFusionRetriever(VectorStoreIndex retriever, BM25Retriever), reciprocal_rerank."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    class Stored(BaseEmbedding):  # type: ignore[misc]  # untyped where llama-index is absent
        """The precomputed vectors; nodes arrive embedded, so only queries come here."""

        def _get_query_embedding(self, query: str) -> list[float]:
            return [float(x) for x in corpus.queries[query]]

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


# -- running ----------------------------------------------------------------------------


def run_queries(search: Search, ds: Dataset) -> tuple[Run, list[float]]:
    """Every judged query once: the document run and the seconds each call took."""
    ranked: dict[str, list[str]] = {}
    took = []
    for qid, text in ds.queries.items():
        t0 = time.perf_counter()
        docs = search(text)
        took.append(time.perf_counter() - t0)
        ranked[qid] = first_occurrence(docs, DEPTH)
    return ranked_run(ranked), took


def compare(systems: dict[str, Search], ds: Dataset, repeat: int) -> dict[str, Any]:
    """nDCG@10 and p50/p95 per pass; passes interleave systems so load hits all alike."""
    warm = list(ds.queries.values())[:10]
    for search in systems.values():
        for q in warm:
            search(q)
    out: dict[str, Any] = {name: {"passes": []} for name in systems}
    for _ in range(repeat):
        for name, search in systems.items():
            run, took = run_queries(search, ds)
            scores = evaluate(ds, run)
            out[name]["ndcg"] = scores.means["nDCG@10"]
            out[name]["r100"] = scores.means["R@100"]
            out[name]["per_query"] = scores.ndcg_per_query
            out[name]["passes"].append([percentile_ms(took, 50), percentile_ms(took, 95)])
    return out


# -- report -----------------------------------------------------------------------------


def render(res: dict[str, Any], base: str, meta: dict[str, Any]) -> str:
    """Markdown: one row per system, its passes, and the ratios against ``base``."""
    b = res[base]
    lines = [
        "# unifind vs LangChain and LlamaIndex (SciFact, same chunks, same vectors)", "",
        "```", f"OMP_NUM_THREADS=1 {meta['command']}", "```", "",
        f"{meta['docs']:,} documents → {meta['chunks']:,} chunks (unifind's chunker, 1200 chars); "
        f"{meta['queries']} judged test queries; bge-small-en-v1.5 int8 vectors (the embedding "
        "cache of bench/quality.py) for every system. Query embedding EXCLUDED for everyone: "
        "each system gets the same precomputed query vector. 100 candidates per leg, top 100 "
        "fused chunks, a document ranks at its best chunk. Latency = wall time of one call, "
        f"p50 / p95 ms, {len(b['passes'])} interleaved passes on a shared 2-core machine "
        "(OMP_NUM_THREADS=1). Versions: " + meta["versions"] + ".", "",
        "| system | nDCG@10 | Δ vs unifind (paired p) | R@100 | p50 / p95 ms per pass "
        "| p50 ratio to unifind | index build s |", "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for name, r in res.items():
        passes = "; ".join(f"{p50:.2f} / {p95:.2f}" for p50, p95 in r["passes"])
        ratios = ", ".join(
            f"{p[0] / bp[0]:.1f}x" for p, bp in zip(r["passes"], b["passes"], strict=True)
        )
        delta = (
            "—"
            if name == base
            else (
                f"{r['ndcg'] - b['ndcg']:+.4f} (p={paired_p(r['per_query'], b['per_query']):.3g})"
            )
        )
        lines.append(
            f"| {name} | {r['ndcg']:.4f} | {delta} | {r['r100']:.4f} | {passes} | {ratios} "
            f"| {meta['build_s'].get(name, 0):.1f} |"
        )  # fmt: skip
    lines += ["", *meta["notes"]]
    return "\n".join(lines) + "\n"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("langchain-classic", "langchain-community", "langchain-core", "rank-bm25",
                "llama-index-core", "llama-index-retrievers-bm25", "bm25s"):  # fmt: skip
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} missing")
    return ", ".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries")
    p.add_argument("--repeat", type=int, default=2, help="interleaved timing passes")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "peers.md"))
    args = p.parse_args(argv)
    from unifind.embed.base import resolve_embedder
    from unifind.embed.cached import CachedEmbedder

    ds = load_dataset(args.data, "scifact").head(args.max_queries)
    emb = CachedEmbedder(resolve_embedder("bge-small-en-v1.5"), args.cache / "embeddings.sqlite")
    with tempfile.TemporaryDirectory(prefix="unifind-peers-") as tmp:
        kb, corpus = build_unifind(ds, emb, Path(tmp))
        print(f"ingested {len(corpus.keys)} chunks ({emb.misses} embedded, {emb.hits} cached)",
              file=sys.stderr)  # fmt: skip
        loop = asyncio.new_event_loop()
        builders: dict[str, Callable[[], Search]] = {
            "unifind hybrid (KnowledgeBase.search)": lambda: unifind_search(kb, loop),
            "unifind hybrid (search_sync, a new loop per call)": lambda: unifind_search(kb),
            "LangChain EnsembleRetriever (BM25Retriever defaults)": lambda: langchain_search(
                corpus
            ),
            "LangChain EnsembleRetriever (unifind's analyser)": lambda: langchain_search(
                corpus, analyser=True
            ),
            "LlamaIndex QueryFusionRetriever": lambda: llamaindex_search(corpus),
        }
        systems, build_s = {}, {}
        for name, make in builders.items():
            t0 = time.perf_counter()
            systems[name] = make()
            build_s[name] = time.perf_counter() - t0
        res = compare(systems, ds, args.repeat)
        kb.close()
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
    md = render(res, next(iter(res)), meta)
    print(md)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
