"""The first streamed event names the request: a search's and an ask's ``plan`` carry the
``request_id`` their ``done`` ends with (a client can fetch records or continue ids early)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from unifind import Searcher, load_settings
from unifind.ops import AskInput, Operations, SearchInput


@pytest.fixture
async def ops(unifind_home: Path) -> AsyncIterator[Operations]:
    searcher = Searcher(load_settings())
    searcher.kb.create("docs", embedder=None)
    searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
    yield Operations(searcher)
    await searcher.aclose()


@pytest.mark.parametrize("named", [None, "req_named1"])
async def test_search_and_ask_plans_carry_the_request_id(
    ops: Operations, named: str | None
) -> None:
    search = [ev async for ev in ops.search_stream(SearchInput(query="refunds", request_id=named))]
    ask = [ev async for ev in ops.ask_stream(AskInput(message="refunds?", request_id=named))]
    for events in (search, ask):
        plan, done = events[0], events[-1]
        assert plan.kind == "plan" and done.kind == "done"
        assert plan.data["request_id"] == done.data["output"].request_id
        if named:
            assert plan.data["request_id"] == named


@pytest.mark.parametrize("named", ["a__b", "chat:7.turn_2"])
async def test_attached_parts_are_read_whatever_the_request_id_holds(
    ops: Operations, named: str
) -> None:
    # #18: collection names refuse '__' (the tenant separator) and ':' (no store takes it);
    # a request id may hold both, so the parts' collection is named by a digest of it.
    part = {"text": "Members may return goods within 45 days.", "title": "memo"}
    out = await ops.ask(AskInput.model_validate({
        "message": "how long may members return goods?", "parts": [part],
        "request_id": named, "sources": {"kb": {}},
    }))  # fmt: skip
    assert out.request_id == named and "45 days" in out.text
    assert [c.name for c in ops.searcher.kb.collections()] == ["docs"]  # dropped after
