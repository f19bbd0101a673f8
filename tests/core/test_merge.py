"""Cross-leg fusion, dedupe and canonical URLs, by hand arithmetic."""

from __future__ import annotations

import pytest

from unifind.rank.merge import canonical_url, fuse_results, merge, weighted_order
from unifind.types import Item, Match, SearchResult


def web(url: str, weight: float = 1.0, backend: str = "ddg") -> Item:
    return Item(
        type="web",
        url=url,
        title=url,
        weight=weight,
        matched=(Match(leg="web", backend=backend, rank=1, score=1.0),),
    )


def test_canonical_url() -> None:
    assert canonical_url("HTTP://WWW.Example.org:80/a/?utm_source=x&b=2&a=1#frag") == (
        "https://example.org/a?a=1&b=2"
    )
    assert canonical_url("https://example.org:8443/") == "https://example.org:8443"


def test_merge_keeps_highest_weight_and_all_provenance() -> None:
    a = web("https://a.example/x", 0.6, "ddg")
    b = web("https://www.a.example/x/?utm_medium=m", 1.0, "brave")
    merged = merge([a, b])
    assert len(merged) == 1
    assert merged[0].weight == 1.0
    assert {m.backend for m in merged[0].matched} == {"ddg", "brave"}


def test_fuse_results_hand_arithmetic() -> None:
    w = SearchResult(
        type="web", query="q", items=(web("https://a.example", 0.8), web("https://b.example", 0.8))
    )
    k = SearchResult(
        type="kb",
        query="q",
        items=(
            Item(type="kb", collection="c", chunk_id="1", weight=1.0),
            web("https://b.example", 1.0),
        ),
    )
    fused = fuse_results([w, k], leg_weights={"web": 0.5})
    scores = {it.key: it.score for it in fused}
    assert scores["web:https://a.example"] == pytest.approx(0.8 * 0.5 / 61)
    assert scores["kb:c:1"] == pytest.approx(1.0 / 61)
    assert scores["web:https://b.example"] == pytest.approx(0.8 * 0.5 / 62 + 1.0 / 62)
    assert fused[0].key == "web:https://b.example"
    assert len(fuse_results([w, k], top_n=2)) == 2


def test_weighted_order() -> None:
    a = Item(type="kb", chunk_id="a", collection="c", score=1.0, weight=0.6)
    b = Item(type="kb", chunk_id="b", collection="c", score=0.7, weight=1.0)
    assert [i.chunk_id for i in weighted_order([a, b])] == ["b", "a"]
