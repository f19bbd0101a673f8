"""A request id's citation numbering belongs to one tenant (issue #20): another tenant
reusing the id starts at ref_001 and learns nothing of the first one's references."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest


@pytest.fixture
async def clients(app: Any, key_a: str, key_b: str) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    transport = httpx.ASGITransport(app=app)
    out = {
        name: httpx.AsyncClient(transport=transport, base_url="http://t",
                                headers={"Authorization": f"Bearer {key}"})
        for name, key in (("A", key_a), ("B", key_b))
    }  # fmt: skip
    yield out
    for c in out.values():
        await c.aclose()


async def ids(c: httpx.AsyncClient, query: str, stream: bool) -> dict[str, str]:
    """document id → citation id of one search with the shared request id."""
    body = {"query": query, "request_id": "shared-turn", "limit": 1}
    if not stream:
        r = await c.post("/v1/search", json=body)
        assert r.status_code == 200, r.text
        items = r.json()["items"]
    else:
        r = await c.post("/v1/search", json=body, headers={"Accept": "text/event-stream"})
        assert r.status_code == 200, r.text
        data = [json.loads(line[5:]) for line in r.text.splitlines() if line.startswith("data:")]
        items = [d for d in data if "items" in d and "request_id" in d][-1]["items"]
    return {i["document_id"]: i["citation_id"] for i in items}


@pytest.mark.parametrize("stream", [False, True])
async def test_two_tenants_with_one_request_id_each_start_at_ref_001(
    clients: dict[str, httpx.AsyncClient], stream: bool
) -> None:
    assert await ids(clients["A"], "shipping", stream) == {"shipping": "ref_001"}
    assert await ids(clients["A"], "refunds", stream) == {"refunds": "ref_002"}
    # B's numbering of the same request id knows nothing of A's: it starts at ref_001.
    assert await ids(clients["B"], "refunds", stream) == {"refunds": "ref_001"}
    assert await ids(clients["B"], "shipping", stream) == {"shipping": "ref_002"}
    # Each tenant's own numbering goes on where it was.
    assert await ids(clients["A"], "refunds", stream) == {"refunds": "ref_002"}


async def test_an_ask_numbers_in_its_tenant(clients: dict[str, httpx.AsyncClient]) -> None:
    assert await ids(clients["A"], "shipping", False) == {"shipping": "ref_001"}
    body = {"message": "when are refunds paid?", "request_id": "shared-turn", "limit": 1,
            "sources": {"kb": {}}}  # fmt: skip
    refs = {}
    for name in ("A", "B"):
        r = await clients[name].post("/v1/ask", json=body)
        assert r.status_code == 200, r.text
        refs[name] = {x["document_id"]: x["citation_id"] for x in r.json()["references"]}
    # A's turn already numbered "shipping": its refunds reference comes next; B's starts anew.
    assert refs == {"A": {"refunds": "ref_002"}, "B": {"refunds": "ref_001"}}
