"""The DB leg on a real PostgreSQL server (UNIFIND_TEST_PG_DSN; skipped when none answers).

Each test module run creates its own schema with a random name and drops it afterwards.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import yaml

from unifind.db.demo import DEMO_MODELS_YAML, load_demo
from unifind.db.execute import Executor, make_engine
from unifind.db.leg import DBLeg
from unifind.errors import InputError, SourceError
from unifind.types import Principal, Reason, SearchRequest, Status

from ._servers import PG_DSN as DSN
from ._servers import pg_schema

pytestmark = pytest.mark.postgres
DEVSET = Path(__file__).resolve().parents[2] / "bench" / "db_devset.yaml"


@pytest.fixture(scope="module")
def pg() -> Iterator[tuple[str, str]]:
    with pg_schema("unifind_test") as (engine, schema):
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    f'CREATE VIEW "{schema}".slow AS SELECT 1 AS id, '
                    "'x'::text AS name FROM pg_sleep(5)"
                )
            )
        spec = yaml.safe_load(DEVSET.read_text(encoding="utf-8"))
        load_demo(engine, schema=schema, today=dt.date.fromisoformat(spec["today"]))
        yield DSN, schema


def models_in(schema: str) -> dict[str, Any]:
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    return {name: {**m, "schema": schema} for name, m in decl.items()}


def pg_ids(dsn: str, schema: str, sql: str) -> list[int]:
    engine = sa.create_engine(dsn)
    with engine.connect() as conn:
        conn.execute(sa.text(f'SET search_path TO "{schema}"'))
        out = [r[0] for r in conn.execute(sa.text(sql))]
    engine.dispose()
    return out


async def test_devset_answers_match_hand_written_sql_on_postgres(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    spec = yaml.safe_load(DEVSET.read_text(encoding="utf-8"))
    leg = DBLeg(dsn, models_in(schema), row_cap=1000, config={"today": spec["today"]})
    wrong = []
    for q in spec["questions"]:
        res = await leg.search(
            SearchRequest(type="db", query=q["q"], models=(q["model"],), limit=1000),
            principal=Principal(tenant="acme"),
        )
        got = [int(i.record_id or 0) for i in res.items]
        want = pg_ids(dsn, schema, q["sql"])
        if not q.get("ordered"):
            got, want = sorted(got), sorted(want)
        if got != want or not res.ok:
            wrong.append((q["id"], q["q"], res.dsl))
    leg.close()
    # The same bar as bench/db_nl.py on SQLite; in practice every question matches.
    assert len(wrong) <= len(spec["questions"]) // 10, wrong


def slow_view(schema: str) -> dict[str, Any]:
    """Models declaring the fixture's ``slow`` view (five seconds a read)."""
    return {
        "slow": {
            "schema": schema,
            "primary_key": "id",
            "columns": {"id": {}, "name": {"searchable": True}},
        }
    }


async def test_statement_timeout_applies_on_postgres(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    models = slow_view(schema)
    leg = DBLeg(dsn, models, statement_timeout_s=0.5)
    t0 = time.perf_counter()
    res = await leg.search(SearchRequest(type="db", query="x"))
    assert res.reports[0].reason is Reason.TIMEOUT, res.reports
    assert time.perf_counter() - t0 < 3
    leg.close()


async def test_cancel_stops_the_server_side_query(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    models = slow_view(schema)
    leg = DBLeg(dsn, models, statement_timeout_s=30)
    await leg.models()
    task = asyncio.create_task(leg.search(SearchRequest(type="db", query="x")))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    probe = sa.create_engine(dsn)
    deadline = time.monotonic() + 3
    running = 1
    while running and time.monotonic() < deadline:
        with probe.connect() as conn:
            running = conn.execute(
                sa.text(
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                    "AND query LIKE '%slow%' AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
        await asyncio.sleep(0.1)
    probe.dispose()
    leg.close()
    assert running == 0


async def test_statements_under_the_engine_timeout_skip_the_transaction(
    pg: tuple[str, str],
) -> None:
    """The leg's connections start with its statement_timeout (a startup option): a statement
    under that limit runs in autocommit (no BEGIN / set_config / ROLLBACK round trips), still
    read-only and still stopped at the limit; a request's shorter limit is set for its own
    transaction and leaves the connection's default as it was."""
    dsn, schema = pg
    engine = make_engine(dsn, statement_timeout_s=0.5)
    ex = Executor(engine, statement_timeout_s=0.5, engine_timeout_s=0.5)
    probe = sa.text(
        "current_setting('statement_timeout') AS t, current_setting('transaction_read_only') "
        "AS ro, now() = statement_timestamp() AS own"
    )
    assert await ex.fetch(sa.select(probe)) == [{"t": "500ms", "ro": "on", "own": True}]
    t0 = time.perf_counter()
    with pytest.raises(SourceError) as slow:
        await ex.fetch(sa.select(sa.column("id")).select_from(sa.table("slow", schema=schema)))
    assert slow.value.reason is Reason.TIMEOUT and time.perf_counter() - t0 < 3
    with pytest.raises(SourceError) as short:
        await ex.fetch(sa.select(sa.func.pg_sleep(0.3)), timeout_s=0.1)
    assert short.value.reason is Reason.TIMEOUT and "0.1s" in str(short.value)
    assert (await ex.fetch(sa.select(probe)))[0]["t"] == "500ms"
    with engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT")
        with pytest.raises(sa.exc.DBAPIError, match="read-only"):
            conn.execute(sa.text(f'DELETE FROM "{schema}".products'))
    engine.dispose()


def test_connections_are_read_only(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    engine = make_engine(dsn)
    with engine.connect() as conn, pytest.raises(sa.exc.DBAPIError, match="read-only"):
        conn.execute(sa.text(f'DELETE FROM "{schema}".products'))
    engine.dispose()


async def test_tenants_and_injection_on_postgres(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    leg = DBLeg(dsn, models_in(schema))
    acme = pg_ids(dsn, schema, "SELECT id FROM orders WHERE tenant_id = 'acme' ORDER BY id")
    for q in ("orders", "orders' OR 1=1 --", "'; DROP TABLE orders; --"):
        res = await leg.search(
            SearchRequest(type="db", query=q, models=("orders",), limit=1000),
            principal=Principal(tenant="acme"),
        )
        assert res.reports[0].status is Status.OK
        assert {int(i.record_id or 0) for i in res.items} <= set(acme)
    assert len(pg_ids(dsn, schema, "SELECT id FROM orders")) == 160
    leg.close()


async def test_offsets_past_bigint_and_empty_answers_on_postgres(pg: tuple[str, str]) -> None:
    # Issue #18: PostgreSQL's OFFSET is a bigint; past it the request is refused by name,
    # at it the query runs, and an emptying condition is named with the column's range.
    dsn, schema = pg
    leg = DBLeg(dsn, models_in(schema))
    try:
        with pytest.raises(InputError, match=r"offset 1000.* give 0 to 9223372036854775807"):
            await leg.search(SearchRequest(type="db", query="products", offset=10**30))
        top = SearchRequest(type="db", query="products", models=("products",), offset=2**63 - 1)
        at_max = await leg.search(top)
        assert at_max.reports[0].status is Status.OK and at_max.items == ()
        res = await leg.search(
            SearchRequest(type="db", query="cheapest 5 laptops under 000 in stock")
        )
        rest = len(pg_ids(dsn, schema, "SELECT id FROM products WHERE category = 'laptop' "
                                       "AND availability = 'in_stock'"))  # fmt: skip
        low, high = sorted(pg_ids(dsn, schema, "SELECT min(price)::int FROM products UNION ALL "
                                               "SELECT max(price)::int FROM products"))  # fmt: skip
        assert (f"no products with price < 0 (price runs from {low:,} to {high:,}); "
                f"without that condition: {rest}") in res.notes  # fmt: skip
    finally:
        leg.close()


def _pooled_pids(engine: sa.Engine) -> list[int]:
    """The server pids of every connection idle in ``engine``'s pool."""
    conns = [engine.connect() for _ in range(engine.pool.checkedin())]  # type: ignore[attr-defined]
    pids = [int(c.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()) for c in conns]
    for conn in conns:
        conn.rollback()
        conn.close()
    return pids


async def test_a_connection_the_server_dropped_is_replaced_without_a_failed_answer(
    pg: tuple[str, str],
) -> None:
    """The engine has no pre-ping round trip: a pooled connection the server closed (a
    restart, an idle timeout) fails as a disconnect and the read runs once more on a new
    connection — the request is answered, and so is the next schema read."""
    dsn, schema = pg
    leg = DBLeg(dsn, models_in(schema), config={"today": "2026-03-15"}, sample_ttl_s=0)
    req = SearchRequest(type="db", query="laptops under 1000 dollars", models=("products",))
    before = await leg.search(req, principal=Principal(tenant="acme"))
    assert before.ok and before.items
    engine = leg._get_executor().engine
    killer = sa.create_engine(dsn)
    try:
        for round_ in range(2):
            pids = _pooled_pids(engine)
            assert pids, "the leg keeps its connection pooled"
            with killer.connect() as conn:
                for pid in pids:
                    conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
            if round_ == 0:
                after = await leg.search(req, principal=Principal(tenant="acme"))
                assert after.ok, after.reports
                assert [i.record_id for i in after.items] == [i.record_id for i in before.items]
            else:
                models = await leg.refresh()
                assert "products" in models
        assert not set(pids) & set(_pooled_pids(engine))
    finally:
        killer.dispose()
        leg.close()
