"""POST /v1/ask with a named assistant (issue #10): its ask settings apply, the plan names
their layer, and an unknown name is refused listing the configured ones."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from unifind.engine import Searcher

KB_ONLY = {"kb": {"collections": ["docs"]}}


@pytest.fixture
def searcher(settings_of: Callable[..., Any]) -> Iterator[Searcher]:
    s = Searcher(settings_of(assistants={"terse": {"top_n": 1}, "wide": {"top_n": 5}}))
    s.kb.create("docs", embedder="hash:64")
    s.kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds")
    s.kb.ingest_text("docs", "Refund requests need the receipt.", document_id="receipts")
    yield s
    s.close()


async def test_an_assistant_over_http(client: httpx.AsyncClient) -> None:
    body = {"message": "how are refunds paid?", "sources": KB_ONLY}
    wide = (await client.post("/v1/ask", json={**body, "assistant": "wide"})).json()
    terse = (await client.post("/v1/ask", json={**body, "assistant": "terse"})).json()
    assert len(wide["references"]) == 2 and len(terse["references"]) == 1
    assert terse["plan"]["layers"]["top_n"] == "assistant:terse"
    mine = (await client.post("/v1/ask", json={**body, "assistant": "terse", "limit": 2})).json()
    assert len(mine["references"]) == 2 and mine["plan"]["layers"]["top_n"] == "request"
    r = await client.post("/v1/ask", json={**body, "assistant": "sales"})
    assert r.status_code in (400, 404), r.text
    assert "unknown assistant" in r.text and "terse, wide" in r.text
    error = r.json()["error"]
    assert error["field"] == "assistant" and error["valid"] == ["terse", "wide"]
