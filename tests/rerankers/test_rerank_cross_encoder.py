"""``cross-encoder``: the bundled ms-marco MiniLM model reorders a fused list, offline."""

from __future__ import annotations

import pytest

from unifind.config import Settings
from unifind.rerankers import rerank
from unifind.types import Item, Reason, Status

pytestmark = pytest.mark.slow


def items() -> list[Item]:
    # Fusion put the relevant one last; the cross-encoder must bring it to the top.
    return [
        Item(type="web", title="Tomato soup", content="Simmer tomatoes with basil for an hour.",
             url="https://ex.com/soup", score=0.05),
        Item(type="db", title="products #3", content="name=Desk lamp price=25 color=black",
             model="products", record_id="3", score=0.04),
        Item(type="kb", title="Returns", content="You can return any item within 30 days of "
             "delivery for a full refund.", collection="docs", chunk_id="r1", score=0.03),
    ]  # fmt: skip


async def test_relevant_item_first_with_logit_scores() -> None:
    query = "how many days do I have to return an item for a refund?"
    out, report = await rerank(items(), query, uses="cross-encoder", settings=Settings())
    assert [it.title for it in out] == ["Returns", "Tomato soup", "products #3"]
    assert sorted(it.key for it in out) == sorted(it.key for it in items())
    assert out[0].score > 0 > out[-1].score  # ms-marco logits: relevant positive, others not
    assert [it.score for it in out] == sorted((it.score for it in out), reverse=True)
    assert (report.status, report.leg, report.backend, report.hits) == (
        Status.OK, "web", "rerank:cross-encoder", 3,
    )  # fmt: skip


async def test_a_model_directory_that_is_not_one_degrades(tmp_path: object) -> None:
    out, report = await rerank(items(), "q", uses=f"cross-encoder:{tmp_path}", settings=Settings())
    assert out == items()
    assert report.status is Status.DEGRADED
    assert report.reason is Reason.ERROR
    assert "neither cross-encoder/ms-marco-MiniLM-L-12-v2 nor a directory" in (report.error or "")
