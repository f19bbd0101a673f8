"""KB retrieval quality on the five offline test collections, through unifind's public API.

    python bench/quality.py [--sets scifact,cacm,...] [--modes text,semantic,hybrid,rerank]
                            [--rerank-depth 20] [--max-queries N] [--data DIR] [--kb KEY=VALUE]
                            [--graph] [--keep-stores]

For each set: BM25 by ``bm25s`` (Lucene formula, k1=0.9 b=0.4) as the in-run reference;
then the corpus is ingested into a ``KnowledgeBase`` on a fresh SQLite store and every mode
is searched with ``kb.search_sync``. Chunk hits become document rankings (a document ranks
at its best chunk) and ``ir-measures`` scores nDCG@10, R@100 and MAP. One configuration
serves all sets (datasets README rules); ``--kb`` overrides a ``KBSettings`` field for
experiments and is written into the results. Embeddings and rerank scores are cached in
bench/.cache/ so only the first run pays for the models.
"""

from __future__ import annotations

import argparse
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

import yaml
from _datasets import ALL_SETS, Dataset, default_root, load_dataset, require_root
from _eval import Run, Scores, bm25s_run, evaluate, first_occurrence, ranked_run
from _report import MODE_LABELS, render_markdown, render_set
from _rerank import register_cached

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.config import Settings
from unifind.embed.base import Embedder, resolve_embedder
from unifind.embed.cached import CachedEmbedder
from unifind.kb.sqlite import SQLiteStore
from unifind.types import KBMode

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
MODES = ("text", "semantic", "hybrid", "rerank")
#: Our mode names → the request's (``rerank`` is hybrid with ``rerank=True``).
_REQUEST_MODE: dict[str, KBMode] = {"text": "text", "semantic": "semantic", "hybrid": "hybrid",
                                    "rerank": "hybrid"}  # fmt: skip
COLLECTION = "bench"


@dataclass
class SetResult:
    """Everything measured on one set."""

    name: str
    docs: int
    queries: int
    scores: dict[str, Scores] = field(default_factory=dict)
    """Method (``bm25s`` or a mode) → its scores."""
    chunks: int = 0
    ingest_s: float = 0.0
    embedded: int = 0
    """Texts the embedder actually ran on during ingest (cache misses)."""
    reused: bool = False
    """The store was kept from an earlier run (--keep-stores): ingest only checked hashes."""
    search_ms: dict[str, float] = field(default_factory=dict)
    """Mode → median milliseconds per query (query embedding included)."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default=",".join(ALL_SETS), help="comma-separated dataset names")
    p.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {MODES}")
    p.add_argument("--rerank-depth", type=int, default=20, help="hybrid hits the reranker sees")
    p.add_argument("--max-queries", type=int, default=None, help="first N judged queries only")
    p.add_argument("--data", type=Path, default=default_root())
    p.add_argument("--embedder", default="bge-small-en-v1.5", help="embedder spec")
    p.add_argument("--reranker", default="cross-encoder", help="reranker spec (cached)")
    p.add_argument("--chunk-limit", type=int, default=300,
                   help="chunks asked per query, enough for 100 distinct documents")  # fmt: skip
    p.add_argument("--kb", action="append", default=[], metavar="KEY=VALUE",
                   help="override a KBSettings field, e.g. --kb fusion=convex")  # fmt: skip
    p.add_argument("--graph", action="store_true",
                   help="collections keep entities: the graph arm runs")  # fmt: skip
    p.add_argument("--keep-stores", action="store_true",
                   help="keep and reuse each store in CACHE/stores (experiments)")  # fmt: skip
    p.add_argument("--cache", type=Path, default=CACHE, help="embedding/rerank cache folder")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "quality.md"),
                   help="markdown results file ('-' to skip writing)")  # fmt: skip
    args = p.parse_args(argv)
    args.sets = [s for s in args.sets.split(",") if s]
    args.modes = [m for m in args.modes.split(",") if m]
    if bad := [m for m in args.modes if m not in MODES]:
        p.error(f"unknown mode(s) {bad}; choose from {', '.join(MODES)}")
    return args


def kb_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """``["fusion=convex", "rrf_k=20"]`` → ``{"fusion": "convex", "rrf_k": 20}`` (YAML values)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--kb expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = yaml.safe_load(value)
    return out


def make_settings(args: argparse.Namespace, home: Path) -> Settings:
    kb = {"embedder": args.embedder, "rerank_depth": args.rerank_depth,
          "rerank": f"cached:{args.reranker}", **kb_overrides(args.kb)}  # fmt: skip
    return load_settings(home=home, kb=kb)


def embedder_factory(cache: Path) -> Callable[[str], Embedder]:
    """Specs resolve as usual, each behind the shared on-disk embedding cache."""
    return lambda spec: CachedEmbedder(resolve_embedder(spec), cache / "embeddings.sqlite")


def ingest(
    kb: KnowledgeBase, ds: Dataset, with_vectors: bool, graph: bool = False
) -> tuple[float, int]:
    """Ingest every document through the public API; (seconds, texts embedded)."""
    meta = {"graph": True} if graph else None
    embedder = "default" if with_vectors else None
    kb.create(COLLECTION, embedder=embedder, exist_ok=True, metadata=meta)
    info = kb.collection(COLLECTION)
    emb = kb.collection_embedder(info)
    misses0 = emb.misses if isinstance(emb, CachedEmbedder) else 0
    t0 = time.perf_counter()
    for i, doc in enumerate(ds.docs, 1):
        if not doc.text.strip():
            # Two Cranfield records are blank: nothing to index, so they can't be found
            # (ingest refuses blank text), exactly as for BM25 where they match no term.
            continue
        kb.ingest_text(COLLECTION, doc.text, document_id=doc.doc_id, title=doc.title)
        if i % 1000 == 0:
            print(f"  {ds.name}: ingested {i}/{len(ds.docs)}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    misses = (emb.misses - misses0) if isinstance(emb, CachedEmbedder) else 0
    return elapsed, misses


def _run(kb: KnowledgeBase, ds: Dataset, mode: str, limit: int) -> tuple[Run, float]:
    """Every judged query at one request ``limit`` → (document run, median ms per query)."""
    ranked: dict[str, list[str]] = {}
    took: list[float] = []
    for qid, text in ds.queries.items():
        req = SearchRequest(
            type="kb", query=text, collections=(COLLECTION,), limit=limit,
            mode=_REQUEST_MODE[mode], rerank=True if mode == "rerank" else None,
        )  # fmt: skip
        t0 = time.perf_counter()
        res = kb.search_sync(req)
        took.append((time.perf_counter() - t0) * 1000)
        if failed := [r for r in res.reports if r.status != "ok"]:
            raise RuntimeError(f"{ds.name} {mode} query {qid}: backend not ok: {failed}")
        ranked[qid] = first_occurrence((it.document_id or "" for it in res.items), 100)
    took.sort()
    return ranked_run(ranked), took[len(took) // 2] if took else 0.0


def search_mode(kb: KnowledgeBase, ds: Dataset, mode: str, deep: int) -> tuple[Scores, float]:
    """nDCG@10 as a user gets it; R@100 and MAP from a request deep enough for 100 documents.

    Each backend contributes ``max(candidates, offset + limit)`` chunks to fusion, so a
    300-chunk request fuses deeper lists than the shipped default does (and min-max
    fusion rescales with depth). nDCG@10 therefore comes from a request at the configured
    depth (``limit = candidates``), the recall measures from one with ``limit = deep``.
    """
    shipped = kb.settings.kb.candidates
    top, took = _run(kb, ds, mode, shipped)
    scores = evaluate(ds, top)
    if deep > shipped:
        more = evaluate(ds, _run(kb, ds, mode, deep)[0])
        ndcg = scores.means["nDCG@10"]
        scores = Scores({**more.means, "nDCG@10": ndcg}, scores.ndcg_per_query)
    return scores, took


def _store_path(args: argparse.Namespace, settings: Settings, name: str, vectors: bool) -> Path:
    """Where ``--keep-stores`` keeps a set's store: keyed by what decides its contents."""
    cfg = settings.kb
    emb = cfg.embedder if vectors else "lexical"
    key = f"{name}-{emb}-c{cfg.chunk_chars}-o{cfg.chunk_overlap}" + ("-graph" * args.graph)
    return Path(args.cache) / "stores" / f"{key}.sqlite"


def run_set(args: argparse.Namespace, ds: Dataset) -> SetResult:
    out = SetResult(ds.name, len(ds.docs), len(ds.queries))
    out.scores["bm25s"] = evaluate(ds, bm25s_run(ds))
    if not args.modes:
        return out
    vectors = any(m != "text" for m in args.modes)
    with tempfile.TemporaryDirectory(prefix=f"unifind-bench-{ds.name}-") as tmp:
        settings = make_settings(args, Path(tmp))
        path = Path(tmp) / "kb.sqlite"
        if args.keep_stores:
            path = _store_path(args, settings, ds.name, vectors)
            path.parent.mkdir(parents=True, exist_ok=True)
            out.reused = path.exists()
        factory = embedder_factory(args.cache)
        with KnowledgeBase(SQLiteStore(path), settings, embedder_factory=factory) as kb:
            out.ingest_s, out.embedded = ingest(kb, ds, vectors, args.graph)
            out.chunks = kb.collection(COLLECTION).chunks
            for mode in args.modes:
                out.scores[mode], out.search_ms[mode] = search_mode(kb, ds, mode, args.chunk_limit)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    require_root(args.data, args.sets)
    register_cached(args.cache / "rerank.sqlite")
    settings = make_settings(args, Path(tempfile.gettempdir()))  # validate overrides early
    command = "python bench/quality.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    results: list[SetResult] = []
    md = ""
    for name in args.sets:
        ds = load_dataset(args.data, name).head(args.max_queries)
        print(f"== {name}: {len(ds.docs)} docs, {len(ds.queries)} queries", file=sys.stderr)
        results.append(run_set(args, ds))
        print(render_set(results[-1], args.modes), flush=True)
        # Rewritten after every set: an interrupted hour-long run still leaves its tables.
        subset = args.max_queries is not None
        md = render_markdown(results, args.modes, settings.kb, command, subset=subset)
        if args.out != "-":
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(md, encoding="utf-8")
    print(md.split("\n## ", 2)[1] if "\n## " in md else md)
    if args.out != "-":
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


__all__ = ["MODES", "MODE_LABELS", "SetResult", "main"]

if __name__ == "__main__":
    sys.exit(main())
