"""``sources.db.explain``: the SQL behind database rows over HTTP, placeholders and values
apart (what ``unifind db search --explain`` shows)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.db.demo import create_demo

HOSTILE = "x'; DROP TABLE products; --"


@pytest.fixture
def searcher(settings_of: Callable[..., Any], unifind_home: Path) -> Iterator[Searcher]:
    create_demo(unifind_home / "shop.sqlite", today=dt.date(2024, 6, 15))
    s = Searcher(settings_of())
    yield s
    s.close()


async def test_explain_returns_each_models_sql_with_its_parameters(
    client: httpx.AsyncClient,
) -> None:
    body: dict[str, Any] = {"query": "laptops under 1500 dollars", "sources": {"db": {}}}
    plain = (await client.post("/v1/search", json=body)).json()
    assert "sql" not in plain["legs"][0]  # only when asked
    body["sources"]["db"]["explain"] = True
    r = await client.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    leg = r.json()["legs"][0]
    [sql] = leg["sql"]
    assert sql["model"] == "products" == leg["dsl"]["model"]
    assert "FROM products" in sql["sql"] and "products.price < ?" in sql["sql"]
    assert "1500" not in sql["sql"] and "laptop" not in sql["sql"]  # values are bound
    assert {1500.0, "laptop"} <= set(sql["params"].values())
    assert not [n for n in leg["notes"] if " SQL: " in n]  # not repeated as notes


async def test_explained_sql_never_holds_the_request_text(client: httpx.AsyncClient) -> None:
    dsl = {"model": "products", "wheres": [{"field": "name", "op": "like", "value": HOSTILE}]}
    body = {"query": HOSTILE, "sources": {"db": {"dsl": dsl, "explain": True}}}
    r = await client.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    [sql] = r.json()["legs"][0]["sql"]
    assert "DROP" not in sql["sql"].upper() and HOSTILE in sql["params"].values()


async def test_explain_is_a_database_option(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/search", json={"query": "x", "sources": {"kb": {"explain": True}}})
    assert r.status_code == 422  # the KB's options have no explain
