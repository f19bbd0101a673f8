"""Issue #19: a count names its table (``count(*)`` compiled without FROM counted one row)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlalchemy as sa

from unifind.db.compile import compile_select
from unifind.db.dsl import QueryDSL, validate_dsl
from unifind.db.leg import DBLeg
from unifind.db.models import Model
from unifind.types import Overall, SearchRequest


async def test_how_many_products_counts_the_products_table(leg: DBLeg, shop_path: Path) -> None:
    res = await leg.search(
        SearchRequest(type="db", query="how many products are there", models=("products",))
    )
    expected = sqlite3.connect(shop_path).execute("SELECT count(*) FROM products").fetchone()[0]
    assert expected > 1
    assert res.status is Overall.OK and res.dsl == {"model": "products",
                                                   "aggregates": [{"fn": "count"}]}  # fmt: skip
    assert [i.data for i in res.items] == [{"count": expected}]


def test_an_aggregate_without_conditions_still_reads_its_table(
    shop_models: dict[str, Model],
) -> None:
    model = shop_models["products"]
    dsl = validate_dsl(QueryDSL(aggregates=({"fn": "count"},)), model)  # type: ignore[arg-type]
    sql = str(compile_select(dsl, model, permission=None, limit=10).statement)
    assert "FROM products" in " ".join(sql.split())


def test_a_grouped_count_is_unchanged(shop_models: dict[str, Model], shop_path: Path) -> None:
    model = shop_models["products"]
    dsl = validate_dsl(
        QueryDSL(aggregates=({"fn": "count"},), groups=("category",)),  # type: ignore[arg-type]
        model,
    )
    stmt = compile_select(dsl, model, permission=None, limit=100).statement
    engine = sa.create_engine(f"sqlite:///{shop_path}")
    with engine.connect() as conn:
        got = sorted(tuple(r) for r in conn.execute(stmt))
    engine.dispose()
    want = sqlite3.connect(shop_path).execute(
        "SELECT category, count(*) FROM products GROUP BY category"
    )
    assert got == sorted(want.fetchall())
