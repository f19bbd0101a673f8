"""KB query: lexical ∥ dense per collection, fused, optionally reranked, paged, reported."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from unifind.analysis import Analyzer, get_analyzer
from unifind.errors import EmbedderMismatch, InputError, ModeUnavailable, SourceError
from unifind.kb import _graphq
from unifind.kb._feedback import refine
from unifind.kb._filters import check_filters
from unifind.kb._names import resolve_filters, shown_id, shown_metadata
from unifind.kb._rank import Key, Run, depth_for, tiered
from unifind.kb.base import ChunkRecord, CollectionInfo, Hit
from unifind.kb.graph import query_terms
from unifind.rank.fusion import convex, rrf
from unifind.types import (
    MAX_QUERY_CHARS,
    Item,
    LegReport,
    Match,
    Reason,
    SearchRequest,
    SearchResult,
    Status,
)

if TYPE_CHECKING:
    from unifind.kb.acl import Caller
    from unifind.kb.service import KnowledgeBase


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _report(coll: str, stage: str, status: Status, **kw: Any) -> LegReport:
    return LegReport(leg="kb", backend=coll, stage=stage, status=status, **kw)


def clip_query(query: str) -> tuple[str, tuple[str, ...]]:
    """Cut an over-long query (a pasted document) to MAX_QUERY_CHARS and say so.

    Lone surrogates (undecodable bytes smuggled in by ``surrogateescape``) become U+FFFD,
    with a note: tokenizers refuse them, which would fail every stage of the leg.
    """
    fixed = query if query.isascii() else _valid_unicode(query)
    notes = ("query had invalid Unicode (lone surrogates): replaced by U+FFFD",) * (fixed != query)
    if len(fixed) <= MAX_QUERY_CHARS:
        return fixed, notes
    note = f"query truncated from {len(fixed):,} to {MAX_QUERY_CHARS:,} characters"
    return fixed[:MAX_QUERY_CHARS], (*notes, note)


def _valid_unicode(text: str) -> str:
    # Through UTF-16: a stray surrogate decodes to one U+FFFD, a split pair rejoins.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _plan(kb: KnowledgeBase, info: CollectionInfo, mode: str) -> tuple[bool, Any, LegReport | None]:
    """Which stages run for a collection: (lexical?, embedder or None, vector report if not run)."""
    name = info.name
    if mode in ("semantic", "hybrid") and info.embedder is None:
        raise ModeUnavailable(
            f"collection {name!r} has no embedder, so {mode} search can't run on it; "
            "use --mode text (or auto), or re-create it with an embedder"
        )
    lexical = mode != "semantic"
    if mode == "text":
        return lexical, None, None
    if info.embedder is None:
        note = "collection has no embedder: lexical only"
        skipped = _report(name, "vector", Status.DISABLED, reason=Reason.NOT_CONFIGURED, note=note)
        return lexical, None, skipped
    try:
        return lexical, kb.collection_embedder(info), None
    except EmbedderMismatch:
        raise
    except Exception as exc:  # a model that won't load is a degraded stage in auto mode
        if mode != "auto":
            raise ModeUnavailable(f"{mode} search on {name!r} needs its embedder: {exc}") from exc
        err = f"embedder {info.embedder} failed to load: {exc}"
        return (
            lexical,
            None,
            _report(name, "vector", Status.DEGRADED, reason=Reason.ERROR, error=err),
        )


#: Stages after the first run here, concurrently with it (DESIGN §6: lexical ∥ dense).
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="unifind-kb")

Stage = tuple[str, str, Callable[[], list[Hit]]]


def _stage(coll: str, stage: str, fn: Callable[[], list[Hit]]) -> tuple[LegReport, Run]:
    t0 = time.perf_counter()
    run = Run(coll, stage)
    try:
        run.hits = fn()
    except Exception as exc:  # a failing backend is a status, never an exception (DESIGN §3)
        err = f"{stage} search on {coll!r} failed: {type(exc).__name__}: {exc}"
        why = exc.reason if isinstance(exc, SourceError) else Reason.ERROR  # e.g. unreachable
        return _report(coll, stage, Status.DEGRADED, reason=why, error=err, took_ms=_ms(t0)), run
    return _report(coll, stage, Status.OK, hits=len(run.hits), took_ms=_ms(t0)), run


def _run_stages(stages: Sequence[Stage]) -> list[tuple[LegReport, Run]]:
    """The first stage in this thread, the others in the pool, all at once."""
    others = [_POOL.submit(_stage, *st) for st in stages[1:]]
    first = [_stage(*stages[0])] if stages else []
    return first + [f.result() for f in others]


async def search_collections(
    kb: KnowledgeBase, req: SearchRequest, *, principal: Caller = None
) -> SearchResult:
    """Run a KB request over the collections ``principal`` may see. Bad input raises
    (a named collection it can't see is unknown); failing stages become reports.

    Everything blocking (model load, query embedding, the stages, chunk fetch) runs in
    one worker-thread hop: each extra hop cost ~0.15 ms, a tenth of a 200k-chunk query.
    """
    t0 = time.perf_counter()
    query, notes = clip_query(req.query)
    check_filters(req.filters)  # a wrong type is bad input, not a failing store
    _check_threshold(req.threshold)
    infos = kb.infos(req.collections, principal) if req.collections else kb.visible(principal)
    if not infos:
        hint = "no collections to search: create one with `unifind kb create NAME`"
        report = _report("*", "lexical", Status.DISABLED, reason=Reason.NOT_CONFIGURED, note=hint)
        return SearchResult(type="kb", query=query, reports=(report,), notes=(hint, *notes))
    seen: dict[str, Any] = {}  # what the graph stage found: entities, graph_nodes
    reports, runs, fused, paged = await asyncio.to_thread(_retrieve, kb, req, query, infos, seen)
    if paged is None:  # rerank: the reranker runs on its own, then the page is built
        fused, rr_report = await _rerank(kb, req, query, fused)
        reports.append(rr_report)
        paged = await asyncio.to_thread(_page, kb, req, fused, runs)
    items, total, page_notes = paged
    return SearchResult(
        type="kb",
        query=query,
        items=tuple(items),
        reports=tuple(reports),
        took_ms=_ms(t0),
        total=total,
        notes=(*notes, *page_notes),
        entities=tuple(seen["entities"]) if "entities" in seen else None,
        graph_nodes=tuple(seen["graph_nodes"]) if "graph_nodes" in seen else None,
    )


def _check_threshold(threshold: float | None) -> None:
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise InputError(
            f"threshold must be between 0 and 1 (the fused score scale), got {threshold}"
        )


def _retrieve(
    kb: KnowledgeBase,
    req: SearchRequest,
    query: str,
    infos: list[CollectionInfo],
    seen: dict[str, Any],
) -> tuple[list[LegReport], list[Run], list[tuple[Key, float]], Paged | None]:
    """Plan, embed, run the stages, fuse them tier by tier (``_rank``) and page."""
    cfg = kb.settings.kb
    need = req.offset + req.limit
    if req.group == "document":  # documents hold several chunks: fetch a few tiers more
        need *= 3
    depth = depth_for(max(need, cfg.rerank_depth if req.rerank else 0), cfg.candidates)
    reports: list[LegReport] = []
    stages: list[Stage] = []
    qvecs: dict[str, Any] = {}
    by_coll: dict[str, Any] = {}
    analyzers: dict[str, Analyzer] = {}
    for info in infos:
        lexical, emb, vreport = _plan(kb, info, req.mode or "auto")
        if vreport:
            reports.append(vreport)
        if lexical:
            analyzer = analyzers[info.name] = get_analyzer(info.analyzer)
            stages.append((info.name, "lexical", _lex(kb, info.name, analyzer, query, depth, req)))
            if _graphq.enabled(info.metadata):  # opt-in per collection (kb/_graphq.py)
                graph = _graphq.stage(kb, info.name, query, depth, req, seen)
                stages.append((info.name, "graph", graph))
        if emb is not None:
            if emb.spec not in qvecs:
                qvecs[emb.spec] = emb.embed_query(query)
            vec = by_coll[info.name] = qvecs[emb.spec]
            stages.append((info.name, "vector", _vec(kb, info.name, vec, depth, req)))
    done = _run_stages(stages)
    reports.extend(r for r, _ in done)
    runs = [run for _, run in done]
    fused = tiered(runs, method=cfg.fusion, k=cfg.rrf_k, candidates=cfg.candidates, need=need)
    if cfg.feedback_docs and by_coll and analyzers and len([r for r in runs if r.hits]) > 1:
        runs, note = _with_feedback(kb, query, runs, fused, by_coll, analyzers)
        # Noted on the stages it refined, not a report of its own: it isn't a backend.
        reports = [_noted(r, note) if r.stage in ("lexical", "vector") else r for r in reports]
        fused = tiered(runs, method=cfg.fusion, k=cfg.rrf_k, candidates=cfg.candidates, need=need)
    # Paged in this same thread unless rerank follows: its connection is already open.
    return reports, runs, fused, None if req.rerank else _page(kb, req, fused, runs)


def _with_feedback(
    kb: KnowledgeBase,
    query: str,
    runs: list[Run],
    fused: list[tuple[Key, float]],
    qvecs: dict[str, Any],
    analyzers: dict[str, Analyzer],
) -> tuple[list[Run], str]:
    """Hybrid runs rescored with feedback queries; a failure keeps the first pass, noted."""
    cfg = kb.settings.kb
    t0 = time.perf_counter()
    head = [key for key, _ in fused[: max(cfg.feedback_docs, cfg.feedback_lexical_docs)]]
    try:
        new = refine(kb, query, runs, head, qvecs, analyzers, cfg.candidates)
    except Exception as exc:  # feedback only refines: the first pass still answers
        return runs, f"feedback failed ({type(exc).__name__}: {exc}): first pass kept"
    return new, (
        f"feedback (rocchio {cfg.feedback_docs}, rm3 {cfg.feedback_lexical_docs}x"
        f"{cfg.feedback_terms}) {_ms(t0):.1f} ms"
    )


def _noted(report: LegReport, note: str) -> LegReport:
    joined = f"{report.note}; {note}" if report.note else note
    return report.model_copy(update={"note": joined})


Paged = tuple[list[Item], int, tuple[str, ...]]


def _page(
    kb: KnowledgeBase, req: SearchRequest, fused: list[tuple[Key, float]], runs: list[Run]
) -> Paged:
    """Threshold, group and cut the page; a threshold that empties the list says so."""
    kept = fused
    notes: tuple[str, ...] = ()
    if req.threshold is not None:
        kept = [(key, s) for key, s in fused if s >= req.threshold]
        if fused and not kept:
            best = max(s for _, s in fused)
            notes = (
                f"threshold {req.threshold:g} removed all {len(fused)} hits "
                f"(best score {best:.3f} on the 0-1 scale); lower it or drop it",
            )
    if req.group == "document":
        kept = _best_per_document(kb, kept)
    page = kept[req.offset : req.offset + req.limit]
    return _items(kb, req, page, runs), len(kept), notes


def _best_per_document(
    kb: KnowledgeBase, fused: list[tuple[Key, float]]
) -> list[tuple[Key, float]]:
    """Each document once, at its best chunk (the fused list is best first)."""
    recs = _chunks(kb, [k for k, _ in fused])
    seen: set[tuple[str, str]] = set()
    out = []
    for key, score in fused:
        rec = recs.get(key)
        doc = (key[0], rec.document_id) if rec else key
        if doc not in seen:
            seen.add(doc)
            out.append((key, score))
    return out


def _lex(
    kb: KnowledgeBase, coll: str, analyzer: Analyzer, query: str, depth: int, req: SearchRequest
) -> Callable[[], list[Hit]]:
    # The query is analysed inside the stage so that a process's first Chinese query
    # counts the segmenter's load (0.5 s from its cache, seconds without) in the
    # lexical report that paid for it.
    def run() -> list[Hit]:
        terms = query_terms(analyzer, query)
        filters = resolve_filters(kb.store, coll, req.filters)  # shown names match too
        return kb.store.lexical_search(coll, terms, limit=depth, filters=filters)

    return run


def _vec(
    kb: KnowledgeBase, coll: str, vec: Any, depth: int, req: SearchRequest
) -> Callable[[], list[Hit]]:
    def run() -> list[Hit]:
        filters = resolve_filters(kb.store, coll, req.filters)  # shown names match too
        return kb.store.vector_search(coll, vec, limit=depth, filters=filters)

    return run


def _chunks(kb: KnowledgeBase, keys: Sequence[Key]) -> dict[Key, ChunkRecord]:
    by_coll: dict[str, list[str]] = {}
    for coll, cid in keys:
        by_coll.setdefault(coll, []).append(cid)
    out: dict[Key, ChunkRecord] = {}
    for coll, ids in by_coll.items():
        for cid, rec in kb.store.get_chunks(coll, ids).items():
            out[(coll, cid)] = rec
    return out


async def _rerank(
    kb: KnowledgeBase, req: SearchRequest, query: str, fused: list[tuple[Key, float]]
) -> tuple[list[tuple[Key, float]], LegReport]:
    """Rerank the head of the fused list; a failing reranker keeps the order (degraded)."""
    cfg = kb.settings.kb
    spec = req.rerank if isinstance(req.rerank, str) else (cfg.rerank or "cross-encoder")
    head, tail = fused[: cfg.rerank_depth], fused[cfg.rerank_depth :]
    t0 = time.perf_counter()
    try:
        reranker = kb.reranker(spec)
        recs = await asyncio.to_thread(_chunks, kb, [k for k, _ in head])
        keys = [k for k, _ in head if k in recs]
        passages = [_passage(recs[k]) for k in keys]
        scores = await asyncio.to_thread(reranker.score, query, passages)
    except InputError:
        raise
    except Exception as exc:
        err = f"reranker {spec} failed: {type(exc).__name__}: {exc}; kept the fused order"
        return fused, _report(
            "rerank", "rerank", Status.DEGRADED, reason=Reason.ERROR, error=err, took_ms=_ms(t0)
        )
    order = [keys[i] for i in np.argsort(-np.asarray(scores), kind="stable")]
    if cfg.rerank_fusion == "replace":  # the logit through a sigmoid: the 0-1 scale
        new = [(k, float(1 / (1 + np.exp(-scores[keys.index(k)])))) for k in order]
    elif cfg.rerank_fusion == "convex":  # min-max blend (Bruch et al., TOIS 2023)
        w = cfg.rerank_weight
        retrieved = {k: s for k, s in head if k in recs}
        reranked = dict(zip(keys, (float(x) for x in scores), strict=True))
        new = convex(
            {"fused": retrieved, "rerank": reranked}, weights={"fused": 1 - w, "rerank": w}
        )
    else:  # fuse the reranker's order with the retrieval order: a lone cross-encoder lost
        fused_rr = rrf({"fused": keys, "rerank": order}, k=cfg.rrf_k)  # 0.05-0.08 nDCG here
        new = [(k, s * (cfg.rrf_k + 1) / 2) for k, s in fused_rr]
    floor = min((s for _, s in new), default=1.0)
    top = max((s for _, s in tail), default=1.0) or 1.0
    rest = [(k, floor * s / top * (1 - 1e-9)) for k, s in tail]  # below the reranked head
    note = f"{spec}, top {len(keys)}, {cfg.rerank_fusion}"
    report = _report("rerank", "rerank", Status.OK, hits=len(keys), took_ms=_ms(t0), note=note)
    return new + rest, report


def _passage(rec: ChunkRecord) -> str:
    return f"{rec.title}\n{rec.text}" if rec.title else rec.text


def _items(
    kb: KnowledgeBase, req: SearchRequest, page: list[tuple[Key, float]], runs: list[Run]
) -> list[Item]:
    recs = _chunks(kb, [k for k, _ in page])
    # Provenance only for the page: building a Match per candidate cost ~0.4 ms a query.
    votes: dict[Key, list[Match]] = {key: [] for key, _ in page}
    for run in runs:
        for rank, h in enumerate(run.hits, start=1):
            found = votes.get((run.collection, h.chunk_id))
            if found is not None:
                found.append(Match(leg="kb", backend=run.name, rank=rank, score=round(h.score, 6)))
    items = []
    per_doc = Counter((r.collection, r.document_id) for r in recs.values())
    for key, score in page:
        rec = recs.get(key)
        if rec is None:  # deleted between ranking and fetching: not shown, never invented
            continue
        url = rec.source if rec.source.startswith(("http://", "https://")) else None
        meta = {**rec.metadata, "source": rec.source} if rec.source else dict(rec.metadata)
        meta = shown_metadata(rec.document_id, rec.source, meta)  # never the server's path
        meta["chunk"] = rec.ordinal + 1
        shown = shown_id(rec.document_id, rec.source)
        title = rec.title
        if per_doc[(rec.collection, rec.document_id)] > 1:  # two hits, one title: say which
            title = f"{rec.title or shown} (chunk {rec.ordinal + 1})"
        items.append(
            Item(
                type="kb",
                title=title,
                content=rec.text,
                score=round(score, 6),
                source=req.source,
                weight=req.effective_weight,
                url=url,
                document_id=shown,
                collection=rec.collection,
                chunk_id=rec.chunk_id,
                span=(rec.start, rec.end),
                metadata=meta,
                matched=tuple(votes.get(key, ())),
            )
        )
    return items
