"""Issue #19: ``in``/``notin`` with a subquery in the QueryDSL ("authors who wrote a book
after 2010", "... who never wrote one", "customers with more than 2 orders").

SQLite on the library schema written for the join tests; PostgreSQL, MySQL/MariaDB and
DuckDB on the demo shop through tests/db/test_issue19_dialects.py's fixture (each skipped
with the reason when its server or driver is missing). Oracles are hand-written SQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.db.test_issue19_dialects import db, same_ids  # noqa: F401  (fixture)

from unifind.db.dsl import dsl_json_schema
from unifind.errors import InputError
from unifind.types import Principal, Reason, Status

from .conftest import ids as truth
from .conftest import run_dsl


def books(*wheres: dict[str, Any], **rest: Any) -> dict[str, Any]:
    return {"query": {"model": "books", "select": ["author_id"], "wheres": list(wheres), **rest}}


NORTH = Principal(tenant="north")


async def test_in_and_notin_a_subquery(library: Any) -> None:
    leg, url = library
    after = {"field": "year", "op": ">", "value": 2010}
    # books are not protected: their subquery needs no caller; authors are (tenant north)
    res = await run_dsl(leg, {"model": "authors", "select": ["name"],
                          "wheres": [{"field": "id", "op": "in", "value": books(after)}]},
                    NORTH)  # fmt: skip
    want = truth(url, "SELECT id FROM authors WHERE tenant = 'north' AND id IN "
                      "(SELECT author_id FROM books WHERE year > 2010) ORDER BY id")  # fmt: skip
    assert want and [i.data["id"] for i in res.items] == want
    res = await run_dsl(leg, {"model": "authors", "select": ["name"],
                          "wheres": [{"field": "id", "op": "notin", "value": books()}]},
                    NORTH)  # fmt: skip
    assert [i.data["name"] for i in res.items] == ["Emil Sand"]  # wrote none


async def test_a_grouped_subquery_with_a_having(library: Any) -> None:
    leg, url = library
    sub = {"query": {"model": "books", "groups": ["author_id"],
                     "aggregates": [{"fn": "count"}],
                     "havings": [{"field": "count", "op": ">=", "value": 3}]}}  # fmt: skip
    dsl = {"model": "authors", "select": ["name"],
           "wheres": [{"field": "id", "op": "in", "value": sub}]}  # fmt: skip
    res = await run_dsl(leg, dsl, NORTH)
    want = truth(url, "SELECT name FROM authors WHERE tenant = 'north' AND id IN (SELECT "
                      "author_id FROM books GROUP BY author_id HAVING count(*) >= 3)")  # fmt: skip
    assert [i.data["name"] for i in res.items] == want == ["Carl Holm"]


async def test_the_subquery_reads_only_rows_the_caller_may_see(library: Any) -> None:
    leg, url = library
    sub = {"query": {"model": "authors", "select": ["id"],
                     "wheres": [{"field": "country", "value": "Norway"}]}}  # fmt: skip
    dsl = {"model": "books", "select": ["title"],
           "wheres": [{"field": "author_id", "op": "in", "value": sub}]}  # fmt: skip
    res = await run_dsl(leg, dsl, NORTH)
    want = truth(url, "SELECT title FROM books WHERE author_id IN (SELECT id FROM authors "
                      "WHERE country = 'Norway' AND tenant = 'north') ORDER BY id")  # fmt: skip
    assert want and [i.data["title"] for i in res.items] == want
    res = await run_dsl(leg, dsl, Principal(tenant="south"))
    assert res.items == ()  # Norway's authors belong to another tenant
    res = await run_dsl(leg, dsl)  # no caller: the protected model is refused, not read
    report = next(r for r in res.reports if r.backend == "books")
    assert report.status is Status.DEGRADED and report.reason is Reason.FORBIDDEN


@pytest.mark.parametrize(
    ("value", "op", "message"),
    [
        ({"query": {"model": "books", "select": ["author_id", "year"]}}, "in", "one field"),
        (
            {"query": {"model": "books", "select": ["author_id"], "limit": 2}},
            "in",
            "orders and a limit together",
        ),
        ({"query": {"model": "shelves", "select": ["id"]}}, "in", "models: authors"),
        ({"query": {"model": "books", "select": ["secret"]}}, "in", "allowed: id, title"),
        ({"query": {"model": "books", "select": ["title"]}}, "in", "numbers with numbers"),
        ({"query": {"model": "books", "select": ["author_id"]}, "x": 1}, "in", "got keys"),
        ({"query": {"model": "books", "select": ["author_id"]}}, "=", "agg"),
    ],
)
async def test_bad_subqueries_are_refused_naming_what_is_allowed(
    library: Any, value: dict[str, Any], op: str, message: str
) -> None:
    leg, _ = library
    dsl = {"model": "authors", "wheres": [{"field": "id", "op": op, "value": value}]}
    with pytest.raises(InputError, match=message) as err:
        await run_dsl(leg, dsl, NORTH)
    assert "SELECT" not in str(err.value)


def test_the_json_schema_offers_the_subquery() -> None:
    schema = dsl_json_schema()
    refs = [v.get("$ref") for v in schema["$defs"]["Where"]["properties"]["value"]["anyOf"]]
    assert "#/$defs/SubQuery" in refs
    assert schema["$defs"]["SubQuery"]["properties"]["query"] == {"$ref": "#"}


async def test_subqueries_on_every_dialect(db: tuple[str, str | None]) -> None:  # noqa: F811
    url, schema = db
    paid = {"query": {"model": "orders", "select": ["product_id"],
                      "wheres": [{"field": "status", "value": "paid"}]}}  # fmt: skip
    await same_ids(
        url,
        schema,
        {
            "model": "products",
            "select": ["id"],
            "wheres": [{"field": "id", "op": "in", "value": paid}],
        },
        "SELECT id FROM products WHERE id IN (SELECT product_id FROM "
        "orders WHERE status = 'paid' AND tenant_id = 'acme') ORDER BY id",
    )
    await same_ids(
        url,
        schema,
        {
            "model": "products",
            "select": ["id"],
            "wheres": [{"field": "id", "op": "notin", "value": paid}],
        },
        "SELECT id FROM products WHERE id NOT IN (SELECT product_id "
        "FROM orders WHERE status = 'paid' AND tenant_id = 'acme') "
        "ORDER BY id",
    )
    many = {"query": {"model": "orders", "groups": ["customer_id"],
                      "aggregates": [{"fn": "count"}],
                      "havings": [{"field": "count", "op": ">", "value": 2}]}}  # fmt: skip
    await same_ids(
        url,
        schema,
        {
            "model": "customers",
            "select": ["id"],
            "wheres": [{"field": "id", "op": "in", "value": many}],
        },
        "SELECT id FROM customers WHERE tenant_id = 'acme' AND id IN "
        "(SELECT customer_id FROM orders WHERE tenant_id = 'acme' "
        "GROUP BY customer_id HAVING count(*) > 2) ORDER BY id",
    )


async def test_a_sub_aggregate_over_rows_meeting_its_own_conditions(library: Any) -> None:
    leg, url = library
    travel = {"agg": "avg", "field": "pages", "wheres": [{"field": "genre", "value": "travel"}]}
    res = await run_dsl(leg, {"model": "books", "select": ["title"],
                          "wheres": [{"field": "pages", "op": ">", "value": travel}]})  # fmt: skip
    want = truth(url, "SELECT id FROM books WHERE pages > (SELECT avg(pages) FROM books "
                      "WHERE genre = 'travel') ORDER BY id")  # fmt: skip
    assert want and [i.data["id"] for i in res.items] == want
    # the conditions name fields of the aggregated model, checked like any where
    bad = {**travel, "wheres": [{"field": "secret", "value": 1}]}
    with pytest.raises(InputError, match="allowed: id, title"):
        await run_dsl(
            leg, {"model": "books", "wheres": [{"field": "pages", "op": ">", "value": bad}]}
        )


async def test_sub_aggregates_with_conditions_on_every_dialect(
    db: tuple[str, str | None],  # noqa: F811
) -> None:
    url, schema = db
    phones = {"agg": "avg", "field": "price", "wheres": [{"field": "category", "value": "phone"}]}
    await same_ids(
        url,
        schema,
        {
            "model": "products",
            "select": ["id"],
            "wheres": [{"field": "price", "op": ">", "value": phones}],
        },
        "SELECT id FROM products WHERE price > (SELECT avg(price) FROM "
        "products WHERE category = 'phone') ORDER BY id",
    )
