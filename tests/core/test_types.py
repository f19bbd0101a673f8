"""The result contract (DESIGN §3): statuses, overall status, request validation."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from unifind import Item, LegReport, Overall, Reason, SearchRequest, SearchResult, Status
from unifind.types import MAX_QUERY_CHARS


def rep(status: Status, reason: Reason | None = None, error: str | None = None) -> LegReport:
    return LegReport(leg="web", backend="x", status=status, reason=reason, error=error)


OK = rep(Status.OK)
BAD = rep(Status.DEGRADED, Reason.TIMEOUT, "x timed out after 5 s")
OFF = rep(Status.DISABLED, Reason.NOT_CONFIGURED)
SKIP = rep(Status.SKIPPED, Reason.CANCELLED)


@pytest.mark.parametrize(
    ("reports", "expected"),
    [
        ((OK,), Overall.OK),
        ((OK, OFF, SKIP), Overall.OK),
        ((OK, BAD), Overall.PARTIAL),
        ((OK, BAD, OFF), Overall.PARTIAL),
        ((BAD,), Overall.UNAVAILABLE),
        ((BAD, OFF, SKIP), Overall.UNAVAILABLE),
        ((OFF,), Overall.UNAVAILABLE),
        ((), Overall.UNAVAILABLE),
    ],
)
def test_overall_status(reports: tuple[LegReport, ...], expected: Overall) -> None:
    assert SearchResult(type="web", query="q", reports=reports).status is expected


def test_non_ok_reports_must_say_why() -> None:
    with pytest.raises(ValidationError, match="needs a reason"):
        LegReport(leg="kb", backend="docs", status=Status.SKIPPED)
    with pytest.raises(ValidationError, match="needs an error text"):
        LegReport(leg="kb", backend="docs", status=Status.DEGRADED, reason=Reason.ERROR)


def test_result_json_has_overall_status_and_reports() -> None:
    item = Item(type="kb", title="Refunds", content="30 days", collection="docs", chunk_id="7")
    res = SearchResult(type="kb", query="refund", items=(item,), reports=(OK, BAD))
    data = json.loads(res.model_dump_json())
    assert data["status"] == "partial"
    assert data["reports"][1]["reason"] == "timeout"
    assert data["items"][0]["chunk_id"] == "7"
    assert res.to_dict()["status"] == "partial"


def test_values_are_immutable() -> None:
    item = Item(type="web", title="t", url="https://a.example/")
    with pytest.raises(ValidationError):
        item.title = "other"  # type: ignore[misc]


def test_empty_query_is_refused() -> None:
    with pytest.raises(ValidationError, match="query is empty"):
        SearchRequest(type="kb", query="   ")


def test_option_of_another_leg_is_refused() -> None:
    with pytest.raises(ValidationError, match="'collections' applies to kb requests, not web"):
        SearchRequest(type="web", query="q", collections=("docs",))
    with pytest.raises(ValidationError, match="'provider' applies to web"):
        SearchRequest(type="kb", query="q", provider="tavily")


def test_unknown_leg_and_option_are_refused() -> None:
    with pytest.raises(ValidationError):
        SearchRequest(type="news", query="q")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        SearchRequest(type="kb", query="q", colections=("docs",))  # type: ignore[call-arg]


def test_source_weights() -> None:
    assert SearchRequest(type="kb", query="q", source="user").effective_weight == 1.0
    assert SearchRequest(type="kb", query="q", source="hook").effective_weight == 0.8
    assert SearchRequest(type="kb", query="q", source="auto").effective_weight == 0.6
    assert SearchRequest(type="kb", query="q", weight=0.3).effective_weight == 0.3


def test_item_keys_for_dedupe() -> None:
    assert Item(type="kb", collection="c", chunk_id="9").key == "kb:c:9"
    assert Item(type="db", model="products", record_id="3").key == "db:products:3"
    assert Item(type="web", url="https://a.example/x").key == "web:https://a.example/x"


def test_max_query_is_generous_but_bounded() -> None:
    assert 1000 <= MAX_QUERY_CHARS <= 10000
