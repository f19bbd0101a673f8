"""Shared fused-list fixtures for the rerank tests."""

from __future__ import annotations

from collections.abc import Sequence

from unifind.types import Item


def fused() -> list[Item]:
    """Four items from three legs, as the engine's fusion hands them over (best first)."""
    return [
        Item(type="web", title="Shipping times", content="Orders ship in 2 days.",
             url="https://ex.com/ship", score=0.04, weight=0.6, citation_id="ref_001"),
        Item(type="kb", title="Refund policy", content="Refunds within 30 days.",
             collection="docs", chunk_id="c1", score=0.03, weight=1.0, citation_id="ref_002"),
        Item(type="db", title="products #7", content="name=Kettle price=30",
             model="products", record_id="7", score=0.025, weight=0.8, citation_id="ref_003"),
        Item(type="kb", title="Warranty", content="Two-year warranty on kettles.",
             collection="docs", chunk_id="c2", score=0.02, weight=1.0, citation_id="ref_004"),
    ]  # fmt: skip


def cids(items: Sequence[Item]) -> list[str | None]:
    return [it.citation_id for it in items]


def assert_same_items(before: Sequence[Item], after: Sequence[Item]) -> None:
    """A reranker never drops, duplicates or invents items (scores may change)."""
    assert sorted(it.key for it in after) == sorted(it.key for it in before)
    assert len(after) == len(before)
