"""KnowledgeBase end to end on the real SQLite store, with the fast hash embedder."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from unifind import (
    EmbedderMismatch,
    KnowledgeBase,
    ModeUnavailable,
    Overall,
    SearchRequest,
    SearchResult,
    Status,
    UnknownName,
    load_settings,
)
from unifind.embed.base import Embedder, Reranker, resolve_embedder
from unifind.types import MAX_QUERY_CHARS

DOCS = {
    "refunds": (
        "Refund policy",
        "Refunds are paid within 30 days of a return. "
        "Keep the receipt; refunds go back to the original card.",
    ),
    "shipping": (
        "Shipping",
        "Orders ship from Rotterdam within two business days. Express shipping costs 15 euros.",
    ),
    "oncall": (
        "On-call",
        "The on-call engineer answers pages within 15 minutes and escalates "
        "to the team lead after 30 minutes without a fix.",
    ),
    "zh-refund": ("退款流程", "客户在收到商品后三十天内可以申请退款。退款会退回到原支付方式。"),
    "zh-leave": ("年假制度", "员工每年享有十五天带薪年假，年假可以顺延到下一年的三月底。"),
}


def hash_factory(spec: str) -> Embedder:
    return resolve_embedder(spec if spec.startswith("hash") else "hash")


@pytest.fixture
def kb(unifind_home: Path) -> Iterator[KnowledgeBase]:
    settings = load_settings(kb={"embedder": "hash"})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        kb.create("docs")
        for doc_id, (title, text) in DOCS.items():
            kb.ingest_text("docs", text, document_id=doc_id, title=title)
        yield kb


def search(kb: KnowledgeBase, query: str, **kw: object) -> SearchResult:
    return kb.search_sync(SearchRequest(type="kb", query=query, collections=("docs",), **kw))  # type: ignore[arg-type]


def test_hybrid_finds_the_right_document_with_provenance(kb: KnowledgeBase) -> None:
    res = search(kb, "how are refunds paid", mode="hybrid")
    assert res.status is Overall.OK
    assert res.items[0].document_id == "refunds"
    stages = {(r.backend, r.stage, r.status) for r in res.reports}
    assert stages == {("docs", "lexical", Status.OK), ("docs", "vector", Status.OK)}
    top = res.items[0]
    assert {m.backend for m in top.matched} == {"docs/lexical", "docs/vector"}
    assert top.span is not None and top.content
    assert top.collection == "docs" and top.chunk_id


def test_chinese_text_search(kb: KnowledgeBase) -> None:
    res = search(kb, "退款", mode="text")
    assert res.items and res.items[0].document_id == "zh-refund"
    res = search(kb, "年假可以顺延吗", mode="text")
    assert res.items[0].document_id == "zh-leave"


def test_unknown_collection_lists_existing(kb: KnowledgeBase) -> None:
    with pytest.raises(UnknownName, match="docs"):
        kb.search_sync(SearchRequest(type="kb", query="x", collections=("nope",)))


def test_lexical_only_collection(kb: KnowledgeBase) -> None:
    kb.create("plain", embedder=None)
    kb.ingest_text("plain", "Refunds take 30 days.", document_id="r")
    with pytest.raises(ModeUnavailable, match="no embedder"):
        kb.search_sync(
            SearchRequest(type="kb", query="refund", collections=("plain",), mode="semantic")
        )
    res = kb.search_sync(SearchRequest(type="kb", query="refund", collections=("plain",)))
    assert res.items[0].document_id == "r"
    vector = next(r for r in res.reports if r.stage == "vector")
    assert vector.status is Status.DISABLED
    assert res.status is Overall.OK


def test_huge_query_is_truncated_and_said(kb: KnowledgeBase) -> None:
    res = search(kb, "refund " * 15000)  # ~100 KB
    assert any("truncated" in n for n in res.notes)
    assert len(res.query) == MAX_QUERY_CHARS
    assert res.items


def test_paging_is_stable(kb: KnowledgeBase) -> None:
    whole = search(kb, "refund shipping on-call 年假", mode="hybrid", limit=4)
    first = search(kb, "refund shipping on-call 年假", mode="hybrid", limit=2)
    second = search(kb, "refund shipping on-call 年假", mode="hybrid", limit=2, offset=2)
    ids = [i.chunk_id for i in whole.items]
    assert [i.chunk_id for i in first.items + second.items] == ids
    assert whole.total == first.total


def test_threshold_drops_weak_hits(kb: KnowledgeBase) -> None:
    res = search(kb, "refund", mode="text")
    cut = res.items[0].score
    strict = search(kb, "refund", mode="text", threshold=cut)
    assert all(i.score >= cut for i in strict.items)
    assert len(strict.items) < len(res.items) or len(res.items) == 1


def test_filters_by_document(kb: KnowledgeBase) -> None:
    res = search(kb, "refund", filters={"document_id": "zh-refund"})
    assert {i.document_id for i in res.items} == {"zh-refund"}


def test_reingest_unchanged_and_changed(kb: KnowledgeBase) -> None:
    title, text = DOCS["refunds"]
    assert kb.ingest_text("docs", text, document_id="refunds", title=title).status == "unchanged"
    out = kb.ingest_text("docs", "Refunds now take 14 days.", document_id="refunds", title=title)
    assert out.status == "replaced"
    res = search(kb, "refund days", mode="text")
    assert "14 days" in res.items[0].content
    assert not any("30 days of a return" in i.content for i in res.items)


def test_delete_document_removes_it_from_search(kb: KnowledgeBase) -> None:
    assert kb.remove("docs", "refunds")
    res = search(kb, "refunds receipt original card")
    assert "refunds" not in {i.document_id for i in res.items}
    assert not kb.remove("docs", "refunds")


def test_embedder_mismatch_is_refused(unifind_home: Path) -> None:
    settings = load_settings(kb={"embedder": "hash:64"})
    with KnowledgeBase.open(settings) as kb:
        kb.create("c")
    other = KnowledgeBase.open(settings, embedder_factory=lambda s: resolve_embedder("hash:32"))
    with other as kb, pytest.raises(EmbedderMismatch, match="was built with"):
        kb.search_sync(SearchRequest(type="kb", query="x", collections=("c",)))


class Reverse(Reranker):
    spec = "reverse"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [float(i) for i in range(len(passages))]


class Broken(Reranker):
    spec = "broken"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        raise RuntimeError("model file vanished")


def test_rerank_reorders_and_reports(kb: KnowledgeBase) -> None:
    kb._rerankers["reverse"] = Reverse()
    kb.settings.kb.rerank_fusion = "replace"
    plain = search(kb, "refund shipping", mode="hybrid")
    res = search(kb, "refund shipping", mode="hybrid", rerank="reverse")
    assert [i.chunk_id for i in res.items] == [i.chunk_id for i in plain.items][::-1]
    rr = next(r for r in res.reports if r.stage == "rerank")
    assert rr.status is Status.OK and rr.hits == len(plain.items)


def test_failing_reranker_keeps_order_and_says_so(kb: KnowledgeBase) -> None:
    kb._rerankers["broken"] = Broken()
    plain = search(kb, "refund shipping", mode="hybrid")
    res = search(kb, "refund shipping", mode="hybrid", rerank="broken")
    assert [i.chunk_id for i in res.items] == [i.chunk_id for i in plain.items]
    rr = next(r for r in res.reports if r.stage == "rerank")
    assert rr.status is Status.DEGRADED and "model file vanished" in (rr.error or "")
    assert res.status is Overall.PARTIAL


def test_search_without_collections(unifind_home: Path) -> None:
    with KnowledgeBase.open(load_settings()) as kb:
        res = kb.search_sync(SearchRequest(type="kb", query="anything"))
    assert res.status is Overall.UNAVAILABLE
    assert res.reports[0].status is Status.DISABLED
    assert "kb create" in res.notes[0]


def test_convex_rerank_blend_moves_between_the_two_orders(kb: KnowledgeBase) -> None:
    kb._rerankers["reverse"] = Reverse()
    plain = [i.chunk_id for i in search(kb, "refund shipping", mode="hybrid").items]
    kb.settings.kb.rerank_fusion = "convex"
    kb.settings.kb.rerank_weight = 0.0
    assert [
        i.chunk_id for i in search(kb, "refund shipping", mode="hybrid", rerank="reverse").items
    ] == plain
    kb.settings.kb.rerank_weight = 1.0
    assert [
        i.chunk_id for i in search(kb, "refund shipping", mode="hybrid", rerank="reverse").items
    ] == plain[::-1]
