"""Issue #19: a QueryDSL an agent wrote, over HTTP (``sources.db.dsl``) and MCP (``dsl``),
and the schema a host LLM writes it from (``GET /v1/sources``, ``GET /v1/models``)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.db.demo import create_demo
from unifind.mcp_server.args import search_input
from unifind.mcp_server.render import sources_result
from unifind.ops import Operations
from unifind.types import Principal

FRANCE = {
    "model": "orders",
    "select": ["id", "total", "customers.name"],
    "wheres": [{"field": "customers.country", "value": "France"}],
}


@pytest.fixture
def searcher(settings_of: Callable[..., Any], unifind_home: Path) -> Iterator[Searcher]:
    create_demo(unifind_home / "shop.sqlite", today=dt.date(2024, 6, 15))
    s = Searcher(settings_of())
    yield s
    s.close()


def _france_ids(home: Path, tenant: str) -> list[int]:
    with sqlite3.connect(home / "shop.sqlite") as conn:
        sql = (
            "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE "
            "c.country = 'France' AND o.tenant_id = ? AND c.tenant_id = ? ORDER BY o.id"
        )
        return [r[0] for r in conn.execute(sql, (tenant, tenant))]


async def test_sources_db_dsl_runs_as_written_for_the_callers_tenant(
    client: httpx.AsyncClient, unifind_home: Path
) -> None:
    body = {"query": "orders from France", "sources": {"db": {"dsl": FRANCE}}, "limit": 100}
    r = await client.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    got = sorted(int(i["record_id"]) for i in out["items"])
    assert got == _france_ids(unifind_home, "acme") and got
    assert out["legs"][0]["dsl"] == FRANCE
    # globex's French customers are not acme's: the join applies their tenancy too
    assert {i["data"]["customers.name"] for i in out["items"]} == {"Alice Martin"}


async def test_a_bad_dsl_is_a_400_naming_what_is_allowed(client: httpx.AsyncClient) -> None:
    bad = {"model": "orders", "wheres": [{"field": "customers.tenant_id", "value": "globex"}]}
    r = await client.post("/v1/search", json={"query": "x", "sources": {"db": {"dsl": bad}}})
    assert r.status_code == 400, r.text
    assert "allowed: id, name, email, city, country" in r.text and "SELECT" not in r.text


async def test_sources_and_models_describe_the_schema_and_the_dsl(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/v1/sources")
    assert r.status_code == 200, r.text
    out = r.json()
    assert {"joins", "wheres", "aggregates", "distinct"} <= set(out["dsl_schema"]["properties"])
    assert "SubAggregate" in out["dsl_schema"]["$defs"]
    orders = next(m for m in out["models"] if m["name"] == "orders")
    assert orders["schema"]["relations"]["customers"] == {
        "model": "customers",
        "type": "belongs_to",
        "key": "id",
        "foreign": "customer_id",
    }
    total = next(c for c in orders["schema"]["columns"] if c["name"] == "total")
    assert total == {
        "name": "total",
        "type": "number",
        "unit": "EUR",
        "description": "Order total in euros",
    }
    r = await client.get("/v1/models")
    customers = next(m for m in r.json() if m["name"] == "customers")
    country = next(c for c in customers["schema"]["columns"] if c["name"] == "country")
    assert "France" in country["values"]  # sampled values tell the LLM how a value is spelled


async def test_mcp_sources_name_each_models_relations(searcher: Searcher) -> None:
    text, structured = sources_result(await Operations(searcher).sources())
    assert "- orders — Customer orders (totals in EUR) (columns: id, product" in text
    assert "relations: customers → customers, products → products)" in text
    assert structured["dsl_schema"]["$defs"]["SubAggregate"]


async def test_the_mcp_dsl_argument_runs_the_query(searcher: Searcher, unifind_home: Path) -> None:
    inp, _budget = search_input({"query": "orders from France", "dsl": FRANCE,
                                 "max_results": 100})  # fmt: skip
    assert inp.sources.db is not None and inp.sources.db.uses == "dsl"
    out = await Operations(searcher).search(inp, principal=Principal(tenant="acme"))
    ids = sorted(int(i.record_id or 0) for i in out.items if i.type == "db")
    assert ids == _france_ids(unifind_home, "acme")
