"""DBLeg end to end on the demo shop: the result contract, statuses, safety, timeouts."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from unifind.config import Settings
from unifind.db.demo import DEMO_FILE, DEMO_MODELS_YAML, create_demo
from unifind.db.execute import Executor, make_engine
from unifind.db.leg import DBLeg
from unifind.errors import InputError, UnknownName
from unifind.types import Overall, Principal, Reason, SearchRequest, Status

from .conftest import TODAY, ids

ACME = Principal(tenant="acme")


def req(q: str, **kw: object) -> SearchRequest:
    return SearchRequest(type="db", query=q, **kw)  # type: ignore[arg-type]


async def test_items_follow_the_result_contract(leg: DBLeg) -> None:
    res = await leg.search(req("cheapest 3 laptops", models=("products",)))
    assert res.status is Overall.OK and res.dsl is not None and res.dsl["limit"] == 3
    first = res.items[0]
    assert (first.type, first.model, first.record_id) == ("db", "products", "10")
    assert (
        first.data is not None and first.data["price"] == 459 and first.title == first.data["name"]
    )
    assert first.content.startswith("products #10: Xiaomi RedmiBook 15 — ")
    assert "price: 459 USD" in first.content
    assert [m.rank for i in res.items for m in i.matched] == [1, 2, 3]
    assert [i.score for i in res.items] == [1.0, 0.5, 1 / 3]
    report, *others = res.reports
    assert (report.backend, report.status, report.hits) == ("products", Status.OK, 3)
    assert {(r.backend, r.status) for r in others} == {
        ("orders", Status.SKIPPED),
        ("customers", Status.SKIPPED),
    }


async def test_routing_reports_every_model(leg: DBLeg) -> None:
    res = await leg.search(req("sony under $200"))
    by = {r.backend: r for r in res.reports}
    assert by["products"].status is Status.OK
    assert by["orders"].status is Status.SKIPPED and by["orders"].reason is Reason.NOT_REQUESTED
    assert {i.model for i in res.items} == {"products"}


async def test_keyword_matches_are_scored_by_strength(leg: DBLeg) -> None:
    res = await leg.search(req("pro", models=("products",)))
    # A whole word in the title beats a substring ("Pro" vs "Keychron"/"GoPro").
    top = [i.title for i in res.items if i.score == 1.0]
    assert "MacBook Pro 14 M3 Pro" in top and "GoPro HERO12" not in top
    assert res.items[-1].score < 1.0


async def test_preset_dsl_is_combined_not_replaced(leg: DBLeg) -> None:
    preset = {"wheres": [{"field": "brand", "value": "Apple"}]}
    res = await leg.search(req("cheapest 3 laptops", models=("products",), dsl=preset))
    assert [i.record_id for i in res.items] == ["1", "2"]


async def test_bad_input_raises_listing_what_is_allowed(leg: DBLeg) -> None:
    with pytest.raises(UnknownName, match="valid: customers, orders, products"):
        await leg.search(req("x", models=("nope",)))
    with pytest.raises(InputError, match=r"unknown field 'cost'.*allowed: id, name"):
        await leg.search(req("x", models=("products",), dsl={"wheres": [{"field": "cost"}]}))
    with pytest.raises(UnknownName, match="valid: agent, builtin"):
        await leg.search(req("x", uses="magic"))


async def test_explain_shows_sql_and_bound_parameters_apart(leg: DBLeg) -> None:
    res = await leg.search(req("laptops under $900", models=("products",)), explain=True)
    sql, params = res.notes
    assert "products.price < ?" in sql and "900" not in sql
    assert '"price_1": 900' in params and '"category_1": "laptop"' in params


async def test_no_principal_on_a_protected_model_fails_closed(leg: DBLeg) -> None:
    res = await leg.search(req("shipped orders"))
    (report, *_) = res.reports
    assert report.backend == "orders" and report.status is Status.DEGRADED
    assert report.reason is Reason.FORBIDDEN and "fail closed" in (report.error or "")
    assert res.items == () and res.status is Overall.UNAVAILABLE


async def test_missing_database_is_unreachable_not_an_exception(tmp_path: Path) -> None:
    leg = DBLeg(f"sqlite:///{tmp_path / 'gone.sqlite'}", DEMO_MODELS_YAML)
    res = await leg.search(req("laptops"))
    assert res.reports[0].status is Status.DEGRADED
    assert res.reports[0].reason is Reason.UNREACHABLE and "does not exist" in (
        res.reports[0].error or ""
    )
    assert not (tmp_path / "gone.sqlite").exists()  # and it was not created empty


async def test_unreachable_postgres_is_reported(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    leg = DBLeg("postgresql+psycopg://nobody@127.0.0.1:9/none", DEMO_MODELS_YAML)
    res = await leg.search(req("laptops"))
    assert res.reports[0].reason is Reason.UNREACHABLE, res.reports[0]
    leg.close()


def test_from_settings_disabled_then_demo(tmp_path: Path) -> None:
    leg = DBLeg.from_settings(Settings(home=tmp_path))
    res = asyncio.run(leg.search(req("laptops")))
    assert res.reports[0].status is Status.DISABLED and "unifind db demo" in (
        res.reports[0].note or ""
    )
    create_demo(tmp_path / DEMO_FILE, today=TODAY)
    leg = DBLeg.from_settings(Settings(home=tmp_path, db={"row_cap": 2}))
    res = asyncio.run(leg.search(req("laptops", limit=50)))
    assert res.ok and len(res.items) == 2
    leg.close()


def test_connections_refuse_writes(shop_path: Path) -> None:
    engine = make_engine(f"sqlite:///{shop_path}")
    with engine.connect() as conn, pytest.raises(sa.exc.OperationalError, match="readonly"):
        conn.execute(sa.text("DELETE FROM products"))
    engine.dispose()


@pytest.fixture
def slow_db(tmp_path: Path) -> Path:
    path = tmp_path / "slow.sqlite"
    with sqlite3.connect(path) as conn:
        # A view that counts to 10^9: only a real interrupt stops it in time.
        conn.execute(
            "CREATE VIEW slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
            "SELECT x + 1 FROM c LIMIT 1000000000) SELECT x AS id, 'n' || x AS name "
            "FROM c WHERE x < 0"
        )
    conn.close()
    return path


SLOW_MODELS = {"slow": {"primary_key": "id", "columns": {"id": {}, "name": {"searchable": True}}}}


async def test_statement_timeout_stops_the_statement(slow_db: Path) -> None:
    leg = DBLeg(f"sqlite:///{slow_db}", SLOW_MODELS, statement_timeout_s=0.3)
    t0 = time.perf_counter()
    res = await leg.search(req("anything"))
    assert time.perf_counter() - t0 < 3
    assert res.reports[0].status is Status.DEGRADED and res.reports[0].reason is Reason.TIMEOUT
    leg.close()


async def test_cancelling_the_search_interrupts_the_statement(slow_db: Path) -> None:
    leg = DBLeg(f"sqlite:///{slow_db}", SLOW_MODELS, statement_timeout_s=60)
    await leg.models()
    # One pooled connection: a second search can only run if the first one's was freed.
    engine = make_engine(f"sqlite:///{slow_db}")
    single = sa.create_engine(engine.url, pool_size=1, max_overflow=0, pool_timeout=3)
    sa.event.listen(single, "connect", lambda c, _r: c.execute("PRAGMA query_only = ON"))
    leg._executor = Executor(single, statement_timeout_s=60)
    task = asyncio.create_task(leg.search(req("anything")))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    t0 = time.perf_counter()
    leg._executor.statement_timeout_s = 0.2
    res = await leg.search(req("anything"))
    assert res.reports[0].reason is Reason.TIMEOUT and time.perf_counter() - t0 < 2.5
    single.dispose()
    engine.dispose()


async def test_tenant_sees_only_its_rows(leg: DBLeg, shop_path: Path) -> None:
    url = f"sqlite:///{shop_path}"
    for tenant in ("acme", "globex"):
        res = await leg.search(req("orders", limit=1000), principal=Principal(tenant=tenant))
        got = sorted(int(i.record_id or 0) for i in res.items)
        assert got == ids(url, f"SELECT id FROM orders WHERE tenant_id='{tenant}' ORDER BY id")
    res = await leg.search(req("orders"), principal=Principal(tenant="initech"))
    assert res.ok and res.items == ()
    res = await leg.search(req("orders"), principal=Principal(user="bob"))
    assert res.reports[0].reason is Reason.FORBIDDEN
