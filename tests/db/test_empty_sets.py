"""Issue #19: an empty set operation (union, intersect, except) says why — both queries give
no row, they share none, or the query taken away holds every row — counted in one statement,
and a query that gives no row itself is probed like any query. The demo shop on SQLite;
PostgreSQL, MySQL/MariaDB and DuckDB through tests/db/test_issue19_dialects.py's fixture.
Oracles are hand-written SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
import yaml
from tests.db.test_issue19_dialects import _truth, db  # noqa: F401  (fixture)

from unifind.db.demo import DEMO_MODELS_YAML
from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

from .conftest import ids

ACME = Principal(tenant="acme")


def brands(where: str, op: str, other: dict[str, Any]) -> dict[str, Any]:
    """Brands of the products of one category, set-combined with ``other``."""
    wheres = [{"field": "category", "value": where}]
    return {"model": "products", "select": ["brand"], "wheres": wheres,
            "compound": [{"op": op, "query": other}]}  # fmt: skip


def category(c: str) -> dict[str, Any]:
    return {"model": "products", "select": ["brand"], "wheres": [{"field": "category", "value": c}]}


ATLANTIS = {"model": "orders", "select": ["products.brand"],
            "wheres": [{"field": "customers.country", "value": "Atlantis"}]}  # fmt: skip


async def notes(leg: DBLeg, dsl: dict[str, Any], offset: int = 0) -> tuple[str, ...]:
    req = SearchRequest(type="db", query="agent", uses="dsl", dsl=dsl, offset=offset)
    res = await leg.search(req, principal=ACME)
    assert res.items == () and res.ok, res.reports
    return res.notes


def n(url: str, sql: str) -> int:
    return int(ids(url, sql)[0])


async def test_queries_that_share_nothing_or_are_all_taken_away(
    leg: DBLeg, shop_path: Path
) -> None:
    url = f"sqlite:///{shop_path}"
    phone = n(url, "SELECT count(DISTINCT brand) FROM products WHERE category = 'phone'")
    speaker = n(url, "SELECT count(DISTINCT brand) FROM products WHERE category = 'speaker'")
    both = n(url, "SELECT count(*) FROM (SELECT brand FROM products WHERE category = 'phone' "
                  "INTERSECT SELECT brand FROM products WHERE category = 'speaker')")  # fmt: skip
    assert phone and speaker and not both
    statements: list[str] = []
    await leg.models()
    engine = leg._get_executor().engine
    sa.event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert await notes(leg, brands("phone", "intersect", category("speaker"))) == (
        f"no brand is in both queries of the intersect: the first (products) gives {phone}, "
        f"the second (products) {speaker}",
    )
    assert len(statements) == 2  # the query, then every count in one statement
    every = n(url, "SELECT count(DISTINCT brand) FROM products")
    taken = {"model": "products", "select": ["brand"]}
    assert await notes(leg, brands("phone", "except", taken)) == (
        f"every brand the first query (products) gives ({phone}) is among the {every} the "
        "query taken away (products) gives",
    )


async def test_a_query_that_gives_no_row_is_probed(leg: DBLeg, shop_path: Path) -> None:
    url = f"sqlite:///{shop_path}"
    acme = n(url, "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
                  "WHERE o.tenant_id = 'acme' AND c.tenant_id = 'acme'")  # fmt: skip
    assert await notes(leg, brands("phone", "intersect", ATLANTIS)) == (
        "the second query of the intersect (orders) gives no row",
        f"second query: no orders with customers.country = Atlantis; without that condition: "
        f"{acme}",
    )
    # A union is empty when both are: each said, each probed (the first along no relation).
    cheap = {"model": "products", "select": ["brand"],
             "wheres": [{"field": "price", "op": "<", "value": 0}],
             "compound": [{"op": "union", "query": ATLANTIS}]}  # fmt: skip
    low, high, total = ids(url, "SELECT CAST(min(price) AS INTEGER) || ',' || "
                                "CAST(max(price) AS INTEGER) || ',' || count(*) "
                                "FROM products")[0].split(",")  # fmt: skip
    assert await notes(leg, cheap) == (
        "the first query of the union (products) gives no row",
        f"first query: no products with price < 0 (price runs from {int(low):,} to "
        f"{int(high):,}); without that condition: {total}",
        "the second query of the union (orders) gives no row",
        f"second query: no orders with customers.country = Atlantis; without that condition: "
        f"{acme}",
    )


async def test_rows_before_the_offset_are_said(leg: DBLeg, shop_path: Path) -> None:
    url = f"sqlite:///{shop_path}"
    union = n(url, "SELECT count(*) FROM (SELECT brand FROM products WHERE category = 'phone' "
                   "UNION SELECT brand FROM products WHERE category = 'speaker')")  # fmt: skip
    got = await notes(leg, brands("phone", "union", category("speaker")), offset=500)
    assert f"{union} row(s) of the union match, all before offset 500" in got


async def test_an_empty_set_operation_is_explained_on_every_dialect(
    db: tuple[str, str | None],  # noqa: F811
) -> None:
    url, schema = db
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    models = {k: {**m, "schema": schema} for k, m in decl.items()} if schema else decl
    acme = _truth(url, schema, "SELECT count(*) FROM orders o JOIN customers c ON "
                               "c.id = o.customer_id WHERE o.tenant_id = 'acme' AND "
                               "c.tenant_id = 'acme'")[0][0]  # fmt: skip
    phone = _truth(url, schema, "SELECT count(DISTINCT brand) FROM products "
                                "WHERE category = 'phone'")[0][0]  # fmt: skip
    speaker = _truth(url, schema, "SELECT count(DISTINCT brand) FROM products "
                                  "WHERE category = 'speaker'")[0][0]  # fmt: skip
    leg = DBLeg(url, models, row_cap=1000)
    try:
        assert await notes(leg, brands("phone", "intersect", ATLANTIS)) == (
            "the second query of the intersect (orders) gives no row",
            f"second query: no orders with customers.country = Atlantis; without that "
            f"condition: {acme}",
        )
        assert await notes(leg, brands("phone", "intersect", category("speaker"))) == (
            f"no brand is in both queries of the intersect: the first (products) gives "
            f"{phone}, the second (products) {speaker}",
        )
    finally:
        leg.close()
