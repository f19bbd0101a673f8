"""What the framework adapters (issue #21) add over calling ``Searcher`` directly, and
whether they change the ranking.

    python bench/integrations.py                      # SciFact, bge vectors (hybrid), 200 pairs
    python bench/integrations.py --lexical --pairs 500 --max-queries 100

SciFact's corpus is ingested into a fresh KB (one collection, the shipped defaults; with
``--lexical`` no vectors: text mode). The hybrid run embeds through the on-disk cache the
other benches share (``bench/.cache/embeddings.sqlite``, ``--cache``): a text is embedded
once across runs, and ``python bench/_stores_embed.py --sets scifact`` fills it ahead. The
cache answers the same vectors the model gave, to the direct call and every adapter alike.
Then:

- **Parity**: every judged query through the direct call (``Searcher.all_sync`` of one kb
  request, then ``Searcher.fuse``) and through each adapter (LangChain ``invoke``,
  LlamaIndex ``retrieve``, Haystack ``UnifindRetriever.run`` and ``UnifindSearcher.run``),
  each at ``k`` = ``--k`` chunks; documents rank at their best chunk and ``ir-measures``
  scores nDCG@10. The adapters must give the same ranked chunk ids and the same nDCG@10,
  exactly (the issue's "equals").
- **Overhead**: interleaved pairs over the same queries at k=10 — direct then adapter, the
  order alternating per pair so neither always runs on a warmer cache — and the p50/p95 of
  each and of the per-pair difference (the issue's target: ≤ 1 ms p50), with the mean
  per-pair difference in the process's CPU time (all threads; steadier under load than
  the wall clock, which runs on while another job holds the core). "Framework
  alone" is what the framework's own entry point costs with no search behind it: one of
  its retrievers returning the same ten documents ready-made (Haystack: none, a pipeline
  calls a component's ``run`` directly). "Adapter alone" is the adapter with its search
  already done: everything it adds to the direct call (entry point and conversion of ten
  results), free of the search's run-to-run noise, which on a loaded machine swamps a
  difference of a millisecond.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no usage statistics

from _datasets import Dataset, default_root, load_dataset, require_root
from _eval import evaluate, first_occurrence, ranked_run

from unifind import KnowledgeBase, Searcher, SearchRequest, load_settings
from unifind.embed.base import resolve_embedder
from unifind.embed.cached import CachedEmbedder

COLLECTION = "scifact"
CACHE = Path(__file__).resolve().parent / ".cache"
Ranker = Callable[[str, int], list[tuple[str, str]]]  # query, k -> [(chunk_id, document_id)]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=default_root(), help="datasets folder")
    p.add_argument("--lexical", action="store_true", help="no vectors: text mode only (fast)")
    p.add_argument("--k", type=int, default=100, help="chunks per query for the parity run")
    p.add_argument("--pairs", type=int, default=200, help="interleaved pairs per adapter")
    p.add_argument("--max-queries", type=int, default=None, help="judged queries for parity")
    p.add_argument("--cache", type=Path, default=CACHE, help="embedding cache folder (hybrid)")
    return p.parse_args(argv)


def open_searcher(home: Path, cache: Path | None) -> Searcher:
    """A Searcher on a fresh home; with ``cache``, its KB embeds through the shared cache."""
    settings = load_settings(home=home, records=False)
    if cache is None:
        return Searcher(settings)

    def cached(spec: str) -> CachedEmbedder:
        return CachedEmbedder(resolve_embedder(spec), cache / "embeddings.sqlite")

    return Searcher(settings, kb=KnowledgeBase.open(settings, embedder_factory=cached))


def ingest(searcher: Searcher, ds: Dataset, lexical: bool) -> float:
    searcher.kb.create(COLLECTION, embedder=None if lexical else "default")
    t0 = time.perf_counter()
    for i, doc in enumerate(ds.docs, 1):
        if doc.text.strip():
            searcher.kb.ingest_text(COLLECTION, doc.text, document_id=doc.doc_id, title=doc.title)
        if i % 1000 == 0:
            print(f"  ingested {i}/{len(ds.docs)}", file=sys.stderr, flush=True)
    return time.perf_counter() - t0


def embedded(searcher: Searcher) -> str:
    """How many texts the model embedded (cache misses) and how many the cache answered."""
    emb = searcher.kb.collection_embedder(searcher.kb.collection(COLLECTION))
    if not isinstance(emb, CachedEmbedder):
        return ""
    return f" ({emb.misses} texts embedded, {emb.hits} from the cache)"


def direct(searcher: Searcher) -> Ranker:
    def rank(query: str, k: int) -> list[tuple[str, str]]:
        req = SearchRequest(type="kb", query=query, limit=k, collections=(COLLECTION,))
        items = searcher.fuse(searcher.all_sync([req]), top_n=k)
        return [(it.chunk_id or "", it.document_id or "") for it in items]

    return rank


def adapters(searcher: Searcher) -> dict[str, Ranker]:
    """Each adapter as a ranker: built once per k (as an application keeps its retriever)."""
    from unifind.integrations import haystack as hs
    from unifind.integrations import langchain as lc
    from unifind.integrations import llamaindex as li

    coll = [COLLECTION]
    built: dict[tuple[str, int], Any] = {}

    def once(name: str, k: int, make: Callable[[], Any]) -> Any:
        if (name, k) not in built:
            built[(name, k)] = make()
        return built[(name, k)]

    def ids(meta: dict[str, Any]) -> tuple[str, str]:
        return meta["chunk_id"], meta["document_id"]

    def langchain(q: str, k: int) -> list[tuple[str, str]]:
        r = once("lc", k, lambda: lc.UnifindRetriever(searcher=searcher, collections=coll, k=k))
        return [ids(d.metadata) for d in r.invoke(q)]

    def llamaindex(q: str, k: int) -> list[tuple[str, str]]:
        r = once("li", k, lambda: li.UnifindRetriever(searcher, collections=coll,
                                                       similarity_top_k=k))  # fmt: skip
        return [ids(n.node.metadata) for n in r.retrieve(q)]

    def haystack(q: str, k: int) -> list[tuple[str, str]]:
        r = once("hr", k, lambda: hs.UnifindRetriever(searcher=searcher, collections=coll,
                                                       top_k=k))  # fmt: skip
        return [ids(d.meta) for d in r.run(q)["documents"]]

    def haystack_fused(q: str, k: int) -> list[tuple[str, str]]:
        r = once("hf", k, lambda: hs.UnifindSearcher(searcher=searcher, sources=["kb"],
                                                      collections=coll, top_k=k))  # fmt: skip
        return [ids(d.meta) for d in r.run(q)["documents"]]

    return {
        "LangChain retriever": langchain,
        "LlamaIndex retriever": llamaindex,
        "Haystack retriever": haystack,
        "Haystack fused searcher": haystack_fused,
    }


def floors(searcher: Searcher, query: str) -> dict[str, Callable[[], Any]]:
    """Each framework's own cost: a retriever of that framework that returns the same ten
    ready-made documents without searching (what the framework's entry point costs)."""
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever as LCRetriever
    from llama_index.core.retrievers import BaseRetriever as LIRetriever
    from llama_index.core.schema import NodeWithScore

    from unifind.integrations import langchain as lc
    from unifind.integrations import llamaindex as li
    from unifind.integrations._common import Search

    ready = Search(searcher, collections=[COLLECTION], limit=10).run(query)
    lc_docs, li_nodes = lc.to_documents(ready), li.to_nodes(ready)

    class LCNull(LCRetriever):
        def _get_relevant_documents(self, query: str, **kw: Any) -> list[Document]:
            return list(lc_docs)

    class LINull(LIRetriever):
        def _retrieve(self, query_bundle: Any) -> list[NodeWithScore]:
            return list(li_nodes)

    lcn, lin = LCNull(), LINull()
    return {
        "LangChain retriever": lambda: lcn.invoke(query),
        "LlamaIndex retriever": lambda: lin.retrieve(query),
        # A component's run is called directly, as the pipeline does: no framework layer
        # of its own around it.
        "Haystack retriever": lambda: None,
        "Haystack fused searcher": lambda: None,
    }


class _Ready:
    """Stands in for an adapter's search: the answer is already there."""

    def __init__(self, ready: Any) -> None:
        self.ready = ready

    def run(self, query: str, **kw: Any) -> Any:
        return self.ready


def adapters_alone(searcher: Searcher, query: str) -> dict[str, Callable[[], Any]]:
    """Each adapter with its search already done: the whole of what it adds to the direct
    call (the framework's entry point and the conversion of ten results), without the
    search's own run-to-run noise (the search code is the same as the direct call's)."""
    from unifind.integrations import haystack as hs
    from unifind.integrations import langchain as lc
    from unifind.integrations import llamaindex as li
    from unifind.integrations._common import Search

    ready = _Ready(Search(searcher, collections=[COLLECTION], limit=10).run(query))
    lcr = lc.UnifindRetriever(searcher=searcher, collections=[COLLECTION], k=10)
    lir = li.UnifindRetriever(searcher, collections=[COLLECTION], similarity_top_k=10)
    hsr = hs.UnifindRetriever(searcher=searcher, collections=[COLLECTION], top_k=10)
    hsf = hs.UnifindSearcher(searcher=searcher, sources=["kb"], collections=[COLLECTION])
    for adapter in (lcr, lir, hsr, hsf):
        adapter._search = ready  # type: ignore[assignment]
    return {
        "LangChain retriever": lambda: lcr.invoke(query),
        "LlamaIndex retriever": lambda: lir.retrieve(query),
        "Haystack retriever": lambda: hsr.run(query),
        "Haystack fused searcher": lambda: hsf.run(query),
    }


def floor_ms(fn: Callable[[], Any], n: int) -> float:
    for _ in range(20):
        fn()
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        took.append((time.perf_counter() - t0) * 1000)
    return statistics.median(took)


def parity(ds: Dataset, rankers: dict[str, Ranker], k: int) -> dict[str, tuple[float, int]]:
    """nDCG@10 of each ranker, and how many queries' chunk lists differ from the direct's."""
    lists = {
        name: {q: rank(text, k) for q, text in ds.queries.items()} for name, rank in rankers.items()
    }
    base = lists["direct"]
    out = {}
    for name, per_query in lists.items():
        run = ranked_run({q: first_occurrence((d for _, d in hits), 100)
                          for q, hits in per_query.items()})  # fmt: skip
        differ = sum(per_query[q] != base[q] for q in ds.queries)
        out[name] = (evaluate(ds, run).means["nDCG@10"], differ)
    return out


def overhead(queries: list[str], base: Ranker, adapter: Ranker, pairs: int) -> dict[str, float]:
    """p50/p95 ms of the direct call, of the adapter, and of the per-pair difference; and
    the mean difference in CPU time (every thread of this process), which a loaded machine
    blurs far less than wall time: a core taken by another job stops its clock too."""
    for q in queries[:5]:  # warm both paths (imports, first-use caches)
        base(q, 10), adapter(q, 10)
    a_ms, b_ms, diff, cpu = [], [], [], []
    for i in range(pairs):
        q = queries[i % len(queries)]
        order = [(base, a_ms, -1), (adapter, b_ms, 1)]
        if i % 2:
            order.reverse()
        took, used = {}, 0.0
        for fn, sink, sign in order:
            c0, t0 = time.process_time(), time.perf_counter()
            fn(q, 10)
            took[id(sink)] = (time.perf_counter() - t0) * 1000
            used += sign * (time.process_time() - c0) * 1000
            sink.append(took[id(sink)])
        diff.append(took[id(b_ms)] - took[id(a_ms)])
        cpu.append(used)

    def p(xs: list[float], q: float) -> float:
        return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1]

    return {"direct_p50": statistics.median(a_ms), "adapter_p50": statistics.median(b_ms),
            "diff_p50": statistics.median(diff), "diff_p95": p(diff, 95),
            "cpu_mean": statistics.fmean(cpu)}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    require_root(args.data, ["scifact"])
    ds = load_dataset(args.data, "scifact").head(args.max_queries)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with tempfile.TemporaryDirectory(prefix="unifind-bench-integrations-") as tmp:
            searcher = open_searcher(Path(tmp), None if args.lexical else args.cache)
            try:
                took = ingest(searcher, ds, args.lexical)
                print(f"ingested {len(ds.docs)} docs in {took:.0f} s{embedded(searcher)}",
                      file=sys.stderr)  # fmt: skip
                report(args, ds, searcher)
            finally:
                searcher.close()
    return 0


def report(args: argparse.Namespace, ds: Dataset, searcher: Searcher) -> None:
    base = direct(searcher)
    rankers = {"direct": base, **adapters(searcher)}
    mode = "text (lexical only)" if args.lexical else "hybrid (BM25 + bge-small-en-v1.5)"
    print(f"SciFact, {len(ds.queries)} judged queries, {mode}, k={args.k}\n")
    print("| path | nDCG@10 | queries whose ranked chunks differ from direct |")
    print("|---|---|---|")
    for name, (ndcg, differ) in parity(ds, rankers, args.k).items():
        print(f"| {name} | {ndcg:.4f} | {differ} |")
    queries = list(ds.queries.values())
    print(f"\nOverhead, {args.pairs} interleaved pairs at k=10 (ms)\n")
    print("| adapter | direct p50 | adapter p50 | difference p50 | difference p95 "
          "| CPU difference mean | adapter alone p50 | framework alone p50 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    framework, alone = floors(searcher, queries[0]), adapters_alone(searcher, queries[0])
    for name, rank in rankers.items():
        if name == "direct":
            continue
        o = overhead(queries, base, rank, args.pairs)
        print(f"| {name} | {o['direct_p50']:.2f} | {o['adapter_p50']:.2f} | "
              f"{o['diff_p50']:+.3f} | {o['diff_p95']:+.3f} | {o['cpu_mean']:+.3f} | "
              f"{floor_ms(alone[name], args.pairs):.3f} | "
              f"{floor_ms(framework[name], args.pairs):.3f} |")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
