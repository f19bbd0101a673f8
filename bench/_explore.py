"""Fusion grid search on stores kept by ``quality.py --keep-stores`` (tuning aid, not a result).

    python bench/_explore.py --sets scifact,cacm,cranfield [--depth 300]

Each query's lexical and vector chunk runs are fetched once from the store, then fusion
variants (RRF k, per-backend weights, min-max convex alpha, candidate depth) are replayed
offline with ``unifind.rank.fusion`` exactly as ``unifind.kb.search.fuse`` applies them.
Pick on scifact/cacm/cranfield only (datasets README rules), then confirm the pick with
quality.py through the public API.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from _datasets import Dataset, load_dataset
from _eval import evaluate, first_occurrence, ranked_run
from quality import CACHE, COLLECTION, ROOT, embedder_factory

from unifind.analysis import get_analyzer
from unifind.kb.base import Hit
from unifind.kb.sqlite import SQLiteStore
from unifind.rank.fusion import convex, rrf

Hits = list[tuple[str, float]]  # (chunk id, backend score), best first


@dataclass
class QueryRuns:
    lexical: Hits
    vector: Hits


def fetch(ds: Dataset, store_path: Path, depth: int) -> tuple[dict[str, QueryRuns], dict[str, str]]:
    """Per query, both backends' chunk hits to ``depth``; and chunk id → document id."""
    store = SQLiteStore(store_path)
    info = store.get_collection(COLLECTION)
    assert info.embedder is not None, f"{store_path} has no vectors"
    emb = embedder_factory(CACHE)(info.embedder)
    analyzer = get_analyzer(info.analyzer)
    runs: dict[str, QueryRuns] = {}
    for qid, text in ds.queries.items():
        lex = store.lexical_search(COLLECTION, analyzer.terms(text), limit=depth)
        vec = store.vector_search(COLLECTION, emb.embed_query(text), limit=depth)
        runs[qid] = QueryRuns(
            [(h.chunk_id, h.score) for h in lex], [(h.chunk_id, h.score) for h in vec]
        )
    ids = {c for r in runs.values() for c, _ in r.lexical + r.vector}
    docs = {cid: rec.document_id for cid, rec in store.get_chunks(COLLECTION, sorted(ids)).items()}
    store.close()
    return runs, docs


def _pairs(hits: list[Hit]) -> Hits:
    return [(h.chunk_id, h.score) for h in hits]


Fuser = Callable[[Hits, Hits], list[str]]


def rrf_fuser(k: int, w_lex: float, depth: int) -> Fuser:
    def fuse(lex: Hits, vec: Hits) -> list[str]:
        runs = {"lex": [c for c, _ in lex[:depth]], "vec": [c for c, _ in vec[:depth]]}
        return [c for c, _ in rrf(runs, k=k, weights={"lex": w_lex, "vec": 1.0})]

    return fuse


def convex_fuser(alpha: float, depth: int) -> Fuser:
    """``alpha`` is the lexical weight, ``1 - alpha`` the dense one."""

    def fuse(lex: Hits, vec: Hits) -> list[str]:
        runs = {"lex": dict(lex[:depth]), "vec": dict(vec[:depth])}
        return [c for c, _ in convex(runs, weights={"lex": alpha, "vec": 1 - alpha})]

    return fuse


def grid() -> dict[str, Fuser]:
    out: dict[str, Fuser] = {}
    for depth in (100, 200):
        for k in (10, 20, 30, 60):
            for w in (0.5, 0.75, 1.0, 1.5):
                out[f"rrf k={k} w_lex={w} d={depth}"] = rrf_fuser(k, w, depth)
        for alpha in (0.3, 0.4, 0.5, 0.6):
            out[f"convex a_lex={alpha} d={depth}"] = convex_fuser(alpha, depth)
    out["lexical only"] = lambda lex, vec: [c for c, _ in lex]
    out["vector only"] = lambda lex, vec: [c for c, _ in vec]
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sets", default="scifact,cacm,cranfield")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    p.add_argument("--stores", default="bge-small-en-v1.5-c1200-o150", help="store key suffix")
    p.add_argument("--depth", type=int, default=300)
    args = p.parse_args()
    table: dict[str, dict[str, float]] = {}
    names = [s for s in args.sets.split(",") if s]
    for name in names:
        ds = load_dataset(args.data, name)
        runs, docs = fetch(ds, CACHE / "stores" / f"{name}-{args.stores}.sqlite", args.depth)
        for label, fuse in grid().items():
            ranked = {
                q: first_occurrence((docs[c] for c in fuse(r.lexical, r.vector)), 100)
                for q, r in runs.items()
            }
            table.setdefault(label, {})[name] = evaluate(ds, ranked_run(ranked)).means["nDCG@10"]
        print(f"fetched {name}", file=sys.stderr)
    rows = sorted(table.items(), key=lambda kv: -sum(kv[1].values()))
    print(f"{'fusion':34}" + "".join(f"{n:>10}" for n in names) + f"{'mean':>10}")
    for label, vals in rows:
        cells = "".join(f"{vals[n]:10.4f}" for n in names)
        print(f"{label:34}{cells}{sum(vals.values()) / len(vals):10.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
