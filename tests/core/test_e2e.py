"""The issue's Python example on the embedded default: real KB and DB legs, honest web leg."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from unifind import KnowledgeBase, Overall, Searcher, SearchRequest, Status, load_settings
from unifind.db.demo import DEMO_FILE, create_demo
from unifind.types import LegReport, Reason, SearchResult, overall_status

Q = "refund policy for laptops"


async def test_all_three_legs_fused_cited_and_recorded(unifind_home: Path) -> None:
    settings = load_settings(kb={"embedder": "hash"})
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs")
        kb.ingest_text("docs", "Laptops can be returned within 30 days for a full refund.",
                       document_id="refunds", title="Refund policy")  # fmt: skip
    create_demo(unifind_home / DEMO_FILE)  # where `unifind db demo` puts it
    s = Searcher(settings)
    res = await s.all(
        [
            SearchRequest(type="web", query=Q, limit=5),
            SearchRequest(type="kb", query=Q, collections=("docs",)),
            SearchRequest(type="db", query="laptops", models=("products",)),
        ],
        request_id="req_1",
    )
    web, kbr, dbr = res.results
    assert kbr.status is Overall.OK and kbr.items[0].document_id == "refunds"
    assert dbr.status is Overall.OK and all(i.model == "products" for i in dbr.items)
    assert dbr.dsl is not None
    # Offline: the zero-key web default can't answer, and says exactly why.
    assert web.items == () and web.status is Overall.UNAVAILABLE
    assert web.reports[0].status is Status.DEGRADED and web.reports[0].error
    assert res.status is Overall.PARTIAL

    fused = s.fuse(res)
    assert {i.type for i in fused} == {"kb", "db"}
    ctx = s.references(res)
    assert ctx.references[0].citation_id == "ref_001" and "<references" in ctx.xml
    check = s.check_citations("See [ref_001] and [ref_099].", ctx)
    assert check.valid == ("ref_001",) and check.unknown == ("ref_099",)
    record = s.get_searches("req_1")[0]
    assert record.status is Overall.PARTIAL and record.dsl
    assert s.get_reference("req_1", 1) is not None
    s.close()


STATUSES = [
    LegReport(leg="web", backend="a", status=Status.OK),
    LegReport(leg="web", backend="a", status=Status.DEGRADED, reason=Reason.TIMEOUT, error="t"),
    LegReport(leg="web", backend="a", status=Status.DISABLED, reason=Reason.NOT_CONFIGURED),
    LegReport(leg="web", backend="a", status=Status.SKIPPED, reason=Reason.CANCELLED),
]


@pytest.mark.parametrize("combo", list(itertools.product(STATUSES, repeat=3)))
def test_every_combination_of_three_legs(combo: tuple[LegReport, ...]) -> None:
    kinds = {r.status for r in combo}
    expected = (
        Overall.OK
        if Status.OK in kinds and Status.DEGRADED not in kinds
        else Overall.PARTIAL
        if Status.OK in kinds
        else Overall.UNAVAILABLE
    )
    assert overall_status(combo) is expected
    res = SearchResult(type="web", query="q", reports=combo)
    # Never a silent empty: an empty answer always carries a report saying why.
    assert res.status is expected and res.reports
