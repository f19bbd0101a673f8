"""A KB filter value no store can compare is bad input: HTTP 400 in the error shape, naming
the filter, instead of a 200 ``unavailable`` answer with an OverflowError in every stage."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.http.test_errors import error


@pytest.mark.parametrize(
    ("value", "message"),
    [(2**80, "integers must fit in 64 bits"), ("x" * 5000, "at most 4096 characters")],
)
async def test_an_uncomparable_filter_value_is_400(
    client: httpx.AsyncClient, value: Any, message: str
) -> None:
    body = {"query": "refunds", "sources": {"kb": {"filters": {"size": value}}}}
    e = error(await client.post("/v1/search", json=body), 400)
    assert e["code"] == "invalid_input" and e["field"] == "sources.kb.filters"
    assert "filter 'size'" in e["message"] and message in e["message"]


async def test_nan_in_a_filter_is_400(client: httpx.AsyncClient) -> None:
    """JSON has no NaN, but Python's parser reads the literal: it matched nothing (ok, 0 hits)."""
    raw = b'{"query": "refunds", "sources": {"kb": {"filters": {"size": NaN}}}}'
    r = await client.post("/v1/search", content=raw, headers={"content-type": "application/json"})
    e = error(r, 400)
    assert "filter 'size': numbers must be finite" in e["message"]
