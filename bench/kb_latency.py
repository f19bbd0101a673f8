"""Query latency of KB configurations on a real ~10k-document collection, one core.

    OMP_NUM_THREADS=1 python bench/kb_latency.py [--set vaswani] [--queries 93] [--repeat 2]

Reuses the store ``quality.py --keep-stores`` kept (Vaswani: 11,429 documents, 11,442
chunks) and times ``KnowledgeBase.search_sync`` (limit 10, hybrid) per configuration,
interleaved query by query so machine load hits every configuration alike:

* *with* query embedding: the real bge-small-en-v1.5 int8 model embeds every query;
* *without*: the same query vectors served from a warm in-memory cache.

p50 / p95 in ms over every query and repeat.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _datasets import default_root, load_dataset, require_root
from quality import CACHE, COLLECTION

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.embed.base import Embedder, resolve_embedder
from unifind.kb.sqlite import SQLiteStore

CONFIGS: dict[str, dict[str, Any]] = {
    "default (adaptive + feedback)": {},
    "adaptive, no feedback": {"feedback_docs": 0},
    "rrf, no feedback (old default)": {"fusion": "rrf", "feedback_docs": 0},
}


class Memo(Embedder):
    """The real embedder, its query vectors remembered (the 'without' column)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.spec, self.dim = inner, inner.spec, inner.dim
        self.memo: dict[str, Any] = {}

    def embed_documents(self, texts: Any) -> Any:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        if text not in self.memo:
            self.memo[text] = self.inner.embed_query(text)
        return self.memo[text]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--set", default="vaswani")
    p.add_argument("--queries", type=int, default=93)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    ds = load_dataset(require_root(default_root(), [args.set]), args.set).head(args.queries)
    path = CACHE / "stores" / f"{args.set}-bge-small-en-v1.5-c1200-o150.sqlite"
    real = resolve_embedder("bge-small-en-v1.5")
    memo = Memo(real)
    kbs: dict[tuple[str, str], KnowledgeBase] = {}
    with tempfile.TemporaryDirectory() as home:
        for name, over in CONFIGS.items():
            for emb_kind, emb in (("with", real), ("without", memo)):
                settings = load_settings(home=Path(home), kb=over)
                kbs[(name, emb_kind)] = KnowledgeBase(
                    SQLiteStore(path), settings, embedder_factory=lambda _s, e=emb: e
                )
        times: dict[tuple[str, str], list[float]] = {k: [] for k in kbs}
        queries = list(ds.queries.values())
        for kb in kbs.values():  # warm: indexes loaded, model loaded, vectors memoised
            for q in queries:
                kb.search_sync(SearchRequest(type="kb", query=q, collections=(COLLECTION,)))
        for _ in range(args.repeat):
            for q in queries:
                req = SearchRequest(type="kb", query=q, collections=(COLLECTION,), mode="hybrid")
                for key, kb in kbs.items():
                    t0 = time.perf_counter()
                    kb.search_sync(req)
                    times[key].append((time.perf_counter() - t0) * 1000)
        for kb in kbs.values():
            kb.close()
    print(f"{args.set}: {len(ds.docs):,} docs, {len(queries)} queries x {args.repeat}")
    print("| configuration | with query embedding p50 / p95 | without p50 / p95 |")
    print("|---|---|---|")
    for name in CONFIGS:
        cells = []
        for kind in ("with", "without"):
            t = np.asarray(times[(name, kind)])
            cells.append(f"{np.percentile(t, 50):.1f} / {np.percentile(t, 95):.1f}")
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
