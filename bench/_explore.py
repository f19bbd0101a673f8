"""Fusion grid search on stores kept by ``quality.py --keep-stores`` (tuning aid, not a result).

    python bench/_explore.py --sets scifact,cacm,cranfield [--depth 300]

Each query's lexical and vector chunk runs are fetched once from the store, then fusion
variants (RRF k, per-backend weights, min-max convex alpha, candidate depth) are replayed
offline with ``unifind.rank.fusion`` as the issue-#2 fusion applied them (the shipped
fusion and feedback are replayed by ``_levers.py``).
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

import numpy as np
from _datasets import Dataset, default_root, load_dataset, require_root
from _eval import evaluate, first_occurrence, ranked_run
from _rerank import CachedReranker
from quality import CACHE, COLLECTION, embedder_factory

from unifind.analysis import get_analyzer
from unifind.embed.base import Reranker, resolve_reranker
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
    depth = depth or info.chunks  # 0: every chunk, so any candidate's true scores are known
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


def convex_filled(alpha: float, depth: int) -> Fuser:
    """Convex over the union of both top-``depth`` lists, each candidate scored by BOTH
    backends (its true BM25 and cosine, not 0 when one list missed it): needs full runs."""

    def fuse(lex: Hits, vec: Hits) -> list[str]:
        lex_s, vec_s = dict(lex), dict(vec)
        cands = list(dict.fromkeys([c for c, _ in lex[:depth]] + [c for c, _ in vec[:depth]]))
        floor = min(vec_s.values(), default=0.0)
        scored = {
            "lex": {c: lex_s.get(c, 0.0) for c in cands},
            "vec": {c: vec_s.get(c, floor) for c in cands},
        }
        return [c for c, _ in convex(scored, weights={"lex": alpha, "vec": 1 - alpha})]

    return fuse


def convex_lexmax(alpha: float, depth: int, fill_vec: bool) -> Fuser:
    """Lexical scaled by its max only (BM25 has a natural zero: "no term matched"); the
    dense list min-max scaled, optionally with every candidate's true cosine."""

    def fuse(lex: Hits, vec: Hits) -> list[str]:
        top_lex, top_vec = lex[:depth], vec[:depth]
        hi = max((s for _, s in top_lex), default=1.0) or 1.0
        fused = {c: alpha * s / hi for c, s in top_lex}
        vec_s = dict(vec if fill_vec else top_vec)
        cands = set(fused) | {c for c, _ in top_vec}
        vals = [s for _, s in top_vec]
        lo = min(vec_s.get(c, min(vals)) for c in cands) if fill_vec else min(vals)
        span = (max(vals) - lo) or 1.0
        for c in cands:
            if c in vec_s:
                fused[c] = fused.get(c, 0.0) + (1 - alpha) * (vec_s[c] - lo) / span
        return sorted(fused, key=lambda c: -fused[c])

    return fuse


def dbsf(alpha: float, depth: int) -> Fuser:
    """Distribution-based score fusion (Qdrant's DBSF): scale by mean ± 3 std of each list."""

    def norm(hits: Hits) -> dict[str, float]:
        vals = np.array([s for _, s in hits], dtype=float)
        if len(vals) < 2 or vals.std() == 0:
            return {c: 1.0 for c, _ in hits}
        lo, hi = vals.mean() - 3 * vals.std(), vals.mean() + 3 * vals.std()
        return {c: (s - lo) / (hi - lo) for c, s in hits}

    def fuse(lex: Hits, vec: Hits) -> list[str]:
        a, b = norm(lex[:depth]), norm(vec[:depth])
        fused = {c: alpha * a.get(c, 0.0) for c in a}
        for c, v in b.items():
            fused[c] = fused.get(c, 0.0) + (1 - alpha) * v
        return sorted(fused, key=lambda c: -fused[c])

    return fuse


def grid() -> dict[str, Fuser]:
    out: dict[str, Fuser] = {}
    for depth in (50, 100, 200):
        for k in (5, 10, 20, 60):
            for w in (0.75, 1.0, 1.5):
                out[f"rrf k={k} w_lex={w} d={depth}"] = rrf_fuser(k, w, depth)
        for alpha in (0.3, 0.4, 0.5, 0.6):
            out[f"convex a_lex={alpha} d={depth}"] = convex_fuser(alpha, depth)
            out[f"convex-filled a_lex={alpha} d={depth}"] = convex_filled(alpha, depth)
            out[f"dbsf a_lex={alpha} d={depth}"] = dbsf(alpha, depth)
            out[f"convex-lexmax a_lex={alpha} d={depth}"] = convex_lexmax(alpha, depth, False)
            out[f"convex-lexmax-vfill a_lex={alpha} d={depth}"] = convex_lexmax(alpha, depth, True)
    out["lexical only"] = lambda lex, vec: [c for c, _ in lex]
    out["vector only"] = lambda lex, vec: [c for c, _ in vec]
    return out


def rerank_variants(
    query: str, head: list[tuple[str, float]], passages: dict[str, str], reranker: Reranker
) -> dict[str, list[str]]:
    """Orders of the fused ``head`` under ways of combining it with cross-encoder scores."""
    keys = [c for c, _ in head if c in passages]
    ce = dict(zip(keys, reranker.score(query, [passages[c] for c in keys]), strict=True))
    ce_order = sorted(keys, key=lambda c: -ce[c])
    out = {"no rerank": keys, "replace": ce_order}
    for k in (5, 20, 60):
        out[f"rrf k={k}"] = [c for c, _ in rrf({"f": keys, "ce": ce_order}, k=k)]
    fused = {c: s for c, s in head if c in ce}
    for alpha in (0.1, 0.2, 0.3, 0.5):
        runs = {"f": fused, "ce": ce}
        blend = convex(runs, weights={"f": 1 - alpha, "ce": alpha})
        out[f"blend ce={alpha}"] = [c for c, _ in blend]
    return out


def rerank_table(
    ds: Dataset, store_path: Path, runs: dict[str, QueryRuns], docs: dict[str, str], depth: int
) -> dict[str, float]:
    """nDCG@10 of each rerank variant on top of min-max convex fusion (candidates 100)."""
    reranker = CachedReranker(resolve_reranker("cross-encoder"), CACHE / "rerank.sqlite")
    store = SQLiteStore(store_path)
    ranked: dict[str, dict[str, list[str]]] = {}
    for qid, r in runs.items():
        fused = convex({"lex": dict(r.lexical[:100]), "vec": dict(r.vector[:100])})
        head, tail = fused[:depth], [c for c, _ in fused[depth:]]
        recs = store.get_chunks(COLLECTION, [c for c, _ in head])
        passages = {c: f"{x.title}\n{x.text}" if x.title else x.text for c, x in recs.items()}
        docs = {
            c: x.document_id for c, x in store.get_chunks(COLLECTION, [c for c, _ in fused]).items()
        }
        for label, order in rerank_variants(ds.queries[qid], head, passages, reranker).items():
            ids = (docs[c] for c in [*order, *tail] if c in docs)
            ranked.setdefault(label, {})[qid] = first_occurrence(ids, 100)
    store.close()
    return {label: evaluate(ds, ranked_run(rk)).means["nDCG@10"] for label, rk in ranked.items()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sets", default="scifact,cacm,cranfield")
    p.add_argument("--data", type=Path, default=default_root())
    p.add_argument("--stores", default="bge-small-en-v1.5-c1200-o150", help="store key suffix")
    p.add_argument("--depth", type=int, default=0, help="hits fetched per backend (0: all)")
    p.add_argument("--rerank-depth", type=int, default=0, help="replay rerank variants instead")
    p.add_argument("--max-queries", type=int, default=None)
    args = p.parse_args()
    require_root(args.data)
    table: dict[str, dict[str, float]] = {}
    names = [s for s in args.sets.split(",") if s]
    for name in names:
        ds = load_dataset(args.data, name).head(args.max_queries)
        path = CACHE / "stores" / f"{name}-{args.stores}.sqlite"
        runs, docs = fetch(ds, path, args.depth)
        if args.rerank_depth:
            for label, val in rerank_table(ds, path, runs, docs, args.rerank_depth).items():
                table.setdefault(label, {})[name] = val
            print(f"reranked {name}", file=sys.stderr, flush=True)
            continue
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
