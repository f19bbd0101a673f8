"""KB query: lexical ∥ dense per collection, fused, optionally reranked, paged, reported."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from unifind.analysis import Analyzer, get_analyzer
from unifind.errors import EmbedderMismatch, InputError, ModeUnavailable, SourceError
from unifind.kb._filters import check_filters
from unifind.kb.base import ChunkRecord, CollectionInfo, Hit
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

Key = tuple[str, str]  # (collection, chunk_id)


@dataclass
class _Run:
    """One backend's ranked hits for one collection."""

    collection: str
    stage: str
    hits: list[Hit] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.collection}/{self.stage}"


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


def _stage(coll: str, stage: str, fn: Callable[[], list[Hit]]) -> tuple[LegReport, _Run]:
    t0 = time.perf_counter()
    run = _Run(coll, stage)
    try:
        run.hits = fn()
    except Exception as exc:  # a failing backend is a status, never an exception (DESIGN §3)
        err = f"{stage} search on {coll!r} failed: {type(exc).__name__}: {exc}"
        why = exc.reason if isinstance(exc, SourceError) else Reason.ERROR  # e.g. unreachable
        return _report(coll, stage, Status.DEGRADED, reason=why, error=err, took_ms=_ms(t0)), run
    return _report(coll, stage, Status.OK, hits=len(run.hits), took_ms=_ms(t0)), run


def _run_stages(stages: Sequence[Stage]) -> list[tuple[LegReport, _Run]]:
    """The first stage in this thread, the others in the pool, all at once."""
    others = [_POOL.submit(_stage, *st) for st in stages[1:]]
    first = [_stage(*stages[0])] if stages else []
    return first + [f.result() for f in others]


def fuse(runs: Sequence[_Run], *, method: str, k: int) -> list[tuple[Key, float]]:
    """One run keeps its own scores; several are fused (RRF or min-max convex)."""
    live = [r for r in runs if r.hits]
    if len(live) == 1:
        return [((live[0].collection, h.chunk_id), h.score) for h in live[0].hits]
    if method == "convex":
        return convex({r.name: {(r.collection, h.chunk_id): h.score for h in r.hits} for r in live})
    return rrf({r.name: [(r.collection, h.chunk_id) for h in r.hits] for r in live}, k=k)


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
    infos = kb.infos(req.collections, principal) if req.collections else kb.visible(principal)
    if not infos:
        hint = "no collections to search: create one with `unifind kb create NAME`"
        report = _report("*", "lexical", Status.DISABLED, reason=Reason.NOT_CONFIGURED, note=hint)
        return SearchResult(type="kb", query=query, reports=(report,), notes=(hint, *notes))
    reports, runs, fused, items = await asyncio.to_thread(_retrieve, kb, req, query, infos)
    if items is None:  # rerank: the reranker runs on its own, then the page is built
        fused, rr_report = await _rerank(kb, req, query, fused)
        reports.append(rr_report)
        fused = _threshold(fused, req)
        page = fused[req.offset : req.offset + req.limit]
        items = await asyncio.to_thread(_items, kb, req, page, runs)
    return SearchResult(
        type="kb",
        query=query,
        items=tuple(items),
        reports=tuple(reports),
        took_ms=_ms(t0),
        total=len(fused),
        notes=notes,
    )


def _retrieve(
    kb: KnowledgeBase, req: SearchRequest, query: str, infos: list[CollectionInfo]
) -> tuple[list[LegReport], list[_Run], list[tuple[Key, float]], list[Item] | None]:
    """Plan, embed, run the stages and fuse; also build the page unless rerank follows."""
    cfg = kb.settings.kb
    depth = max(cfg.candidates, req.offset + req.limit)
    reports: list[LegReport] = []
    stages: list[Stage] = []
    qvecs: dict[str, Any] = {}
    for info in infos:
        lexical, emb, vreport = _plan(kb, info, req.mode or "auto")
        if vreport:
            reports.append(vreport)
        if lexical:
            analyzer = get_analyzer(info.analyzer)
            stages.append((info.name, "lexical", _lex(kb, info.name, analyzer, query, depth, req)))
        if emb is not None:
            if emb.spec not in qvecs:
                qvecs[emb.spec] = emb.embed_query(query)
            vec = qvecs[emb.spec]
            stages.append((info.name, "vector", _vec(kb, info.name, vec, depth, req)))
    done = _run_stages(stages)
    reports.extend(r for r, _ in done)
    runs = [run for _, run in done]
    fused = fuse(runs, method=cfg.fusion, k=cfg.rrf_k)
    if req.rerank:
        return reports, runs, fused, None
    fused = _threshold(fused, req)
    page = fused[req.offset : req.offset + req.limit]
    return reports, runs, fused, _items(kb, req, page, runs)


def _threshold(fused: list[tuple[Key, float]], req: SearchRequest) -> list[tuple[Key, float]]:
    if req.threshold is None:
        return fused
    return [(key, s) for key, s in fused if s >= req.threshold]


def _lex(
    kb: KnowledgeBase, coll: str, analyzer: Analyzer, query: str, depth: int, req: SearchRequest
) -> Callable[[], list[Hit]]:
    # The query is analysed inside the stage so that a process's first Chinese query
    # counts the segmenter's load (0.5 s from its cache, seconds without) in the
    # lexical report that paid for it.
    def run() -> list[Hit]:
        terms = analyzer.terms(query)
        return kb.store.lexical_search(coll, terms, limit=depth, filters=req.filters)

    return run


def _vec(
    kb: KnowledgeBase, coll: str, vec: Any, depth: int, req: SearchRequest
) -> Callable[[], list[Hit]]:
    return lambda: kb.store.vector_search(coll, vec, limit=depth, filters=req.filters)


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
    if cfg.rerank_fusion == "replace":
        new = [(k, float(scores[keys.index(k)])) for k in order]
    elif cfg.rerank_fusion == "convex":  # min-max blend (Bruch et al., TOIS 2023)
        w = cfg.rerank_weight
        retrieved = {k: s for k, s in head if k in recs}
        reranked = dict(zip(keys, (float(x) for x in scores), strict=True))
        new = convex(
            {"fused": retrieved, "rerank": reranked}, weights={"fused": 1 - w, "rerank": w}
        )
    else:  # fuse the reranker's order with the retrieval order: a lone cross-encoder lost
        new = rrf({"fused": keys, "rerank": order}, k=cfg.rrf_k)  # 0.05-0.08 nDCG here
    floor = min((s for _, s in new), default=0.0)
    rest = [(k, min(s, floor) - 1e-9 * (i + 1)) for i, (k, s) in enumerate(tail)]
    note = f"{spec}, top {len(keys)}, {cfg.rerank_fusion}"
    report = _report("rerank", "rerank", Status.OK, hits=len(keys), took_ms=_ms(t0), note=note)
    return new + rest, report


def _passage(rec: ChunkRecord) -> str:
    return f"{rec.title}\n{rec.text}" if rec.title else rec.text


def _items(
    kb: KnowledgeBase, req: SearchRequest, page: list[tuple[Key, float]], runs: list[_Run]
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
    for key, score in page:
        rec = recs.get(key)
        if rec is None:  # deleted between ranking and fetching: not shown, never invented
            continue
        url = rec.source if rec.source.startswith(("http://", "https://")) else None
        meta = {**rec.metadata, "source": rec.source} if rec.source else dict(rec.metadata)
        items.append(
            Item(
                type="kb",
                title=rec.title,
                content=rec.text,
                score=round(score, 6),
                source=req.source,
                weight=req.effective_weight,
                url=url,
                document_id=rec.document_id,
                collection=rec.collection,
                chunk_id=rec.chunk_id,
                span=(rec.start, rec.end),
                metadata=meta,
                matched=tuple(votes.get(key, ())),
            )
        )
    return items
