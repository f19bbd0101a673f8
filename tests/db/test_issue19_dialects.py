"""Issue #19: joins, count distinct, distinct rows and sub-aggregates on every dialect.

PostgreSQL (UNIFIND_TEST_PG_DSN), MySQL/MariaDB (UNIFIND_TEST_MYSQL_DSN) and DuckDB run the
demo shop, each skipped with the reason when its server or driver is missing; SQLite runs
in tests/db/test_issue19_joins.py. The oracle is hand-written SQL on the same database.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
import yaml
from tests.db.test_dialects import TODAY, _duckdb, _mysql

from unifind.db.demo import DEMO_MODELS_YAML, load_demo
from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

from ._servers import PG_DSN, pg_schema

ACME = Principal(tenant="acme")


def _pg() -> Iterator[tuple[str, str, str | None]]:
    with pg_schema("unifind_test") as (engine, schema):
        load_demo(engine, schema=schema, today=TODAY)
        yield "postgresql", PG_DSN, schema


@pytest.fixture(scope="module", params=["postgresql", "mysql", "duckdb"])
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str | None]]:
    gen: Iterator[Any]
    if request.param == "postgresql":
        gen = _pg()
        _name, url, schema = next(gen)
    else:
        gen = _mysql() if request.param == "mysql" else _duckdb(tmp_path_factory.mktemp("duck"))
        _name, url, _ = next(gen)
        schema = None
    yield url, schema
    next(gen, None)


def _truth(url: str, schema: str | None, sql: str) -> list[tuple[Any, ...]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if schema:
                conn.execute(sa.text(f'SET search_path TO "{schema}"'))
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


async def _ask(url: str, schema: str | None, dsl: dict[str, Any]) -> list[dict[str, Any]]:
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    models = {n: {**m, "schema": schema} for n, m in decl.items()} if schema else decl
    leg = DBLeg(url, models, row_cap=1000)
    try:
        req = SearchRequest(type="db", query="agent", uses="dsl", dsl=dsl, limit=1000)
        res = await leg.search(req, principal=ACME)
    finally:
        leg.close()
    assert res.ok, res.reports
    return [dict(i.data or {}) for i in res.items]


async def same_ids(url: str, schema: str | None, dsl: dict[str, Any], sql: str) -> None:
    """The QueryDSL ``dsl`` answers the ids the hand-written ``sql`` does (some, in order)."""
    got = await _ask(url, schema, dsl)
    want = _truth(url, schema, sql)
    assert want and [r["id"] for r in got] == [r[0] for r in want]


async def test_joins_and_sub_aggregates_on_every_dialect(db: tuple[str, str | None]) -> None:
    url, schema = db
    await same_ids(
        url,
        schema,
        {
            "model": "orders",
            "select": ["id"],
            "wheres": [{"field": "customers.country", "value": "China"}],
        },
        "SELECT o.id FROM orders o JOIN customers c ON c.id = "
        "o.customer_id WHERE c.country = 'China' AND o.tenant_id = 'acme' "
        "AND c.tenant_id = 'acme' ORDER BY o.id",
    )

    got = await _ask(
        url,
        schema,
        {
            "model": "orders",
            "groups": ["customers.country"],
            "aggregates": [
                {"fn": "count", "field": "product_id", "distinct": True},
                {"fn": "avg", "field": "total"},
            ],
        },
    )
    want = _truth(
        url,
        schema,
        "SELECT c.country, count(DISTINCT o.product_id), avg(o.total) "
        "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.tenant_id = "
        "'acme' AND c.tenant_id = 'acme' GROUP BY c.country",
    )
    assert {
        r["customers.country"]: (
            int(r["count_distinct_product_id"]),
            round(float(r["avg_total"]), 2),
        )
        for r in got
    } == {c: (int(n), round(float(a), 2)) for c, n, a in want}

    above = {"field": "price", "op": ">", "value": {"agg": "avg", "field": "price"}}
    await same_ids(
        url,
        schema,
        {"model": "products", "select": ["id"], "wheres": [above]},
        "SELECT id FROM products WHERE price > (SELECT avg(price) FROM products) ORDER BY id",
    )

    got = await _ask(
        url,
        schema,
        {
            "model": "products",
            "select": ["brand"],
            "distinct": True,
            "wheres": [{"field": "orders.status", "value": "paid"}],
        },
    )
    want = _truth(
        url,
        schema,
        "SELECT DISTINCT p.brand FROM products p JOIN orders o ON "
        "o.product_id = p.id WHERE o.status = 'paid' AND o.tenant_id = 'acme'",
    )
    assert sorted(r["brand"] for r in got) == sorted(r[0] for r in want)


async def test_an_empty_join_answer_is_probed_on_every_dialect(db: tuple[str, str | None]) -> None:
    """The why-empty probe of a query along relations counts the joined query as a derived
    table (MySQL refuses duplicate column names there): the note, never a probe failure."""
    url, schema = db
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    models = {n: {**m, "schema": schema} for n, m in decl.items()} if schema else decl
    acme = _truth(url, schema, "SELECT count(*) FROM orders o JOIN customers c ON "
                               "c.id = o.customer_id WHERE o.tenant_id = 'acme' AND "
                               "c.tenant_id = 'acme'")[0][0]  # fmt: skip
    leg = DBLeg(url, models, row_cap=1000)
    statements: list[str] = []
    try:
        dsl = {"wheres": [{"field": "customers.country", "value": "Atlantis"}]}
        req = SearchRequest(type="db", query="agent", uses="dsl", dsl=dsl, models=("orders",))
        await leg.search(req, principal=ACME)  # the schema read, the pool warmed
        engine = leg._get_executor().engine
        sa.event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        res = await leg.search(req, principal=ACME)
    finally:
        leg.close()
    assert res.items == ()
    # The query, then every count of the probe in one statement (scalar subqueries); MariaDB
    # sets its statement timeout before each (SET SESSION max_statement_time).
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2 and "Atlantis" not in selects[1], statements
    assert f"no orders with customers.country = Atlantis; without that condition: {acme}" in (
        res.notes
    ), res.notes
