"""Issue #19: two DSL constructs an agent's query needs — a field compared with another field
of the query (``{"field": ...}`` as a where's value) and an ``in`` subquery of the first rows
only (``orders`` with a ``limit``: "books by the author with the most books").

SQLite on the library schema of the join tests; PostgreSQL, MySQL/MariaDB and DuckDB on the
demo shop through tests/db/test_issue19_dialects.py's fixture (each skipped with the reason
when its server or driver is missing). Oracles are hand-written SQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.db.test_issue19_dialects import _ask, _truth, db, same_ids  # noqa: F401  (fixture)

from unifind.db.dsl import dsl_json_schema
from unifind.errors import InputError
from unifind.types import Principal

from .conftest import ids as truth
from .conftest import run_dsl

NORTH, SOUTH = Principal(tenant="north"), Principal(tenant="south")


async def test_a_field_compared_with_another_field_of_the_query(library: Any) -> None:
    leg, url = library
    same = {"field": "borrower.city", "value": {"field": "lender.city"}}
    res = await run_dsl(leg, {"model": "loans", "select": ["id"], "wheres": [same]})
    sql = (
        "SELECT l.id FROM loans l JOIN members b ON b.id = l.borrower_id JOIN members d "
        "ON d.id = l.lender_id WHERE b.city = d.city ORDER BY l.id"
    )
    want = truth(url, sql)
    assert want == [4] and [i.data["id"] for i in res.items] == want
    other = {**same, "op": "!="}
    res = await run_dsl(leg, {"model": "loans", "select": ["id"], "wheres": [other]})
    assert [i.data["id"] for i in res.items] == [1, 2, 3]
    # numbers with numbers, on the model's own columns: loans lent by their borrower's id
    res = await run_dsl(leg, {"model": "loans", "select": ["id"],
                          "wheres": [{"field": "borrower_id", "op": "<",
                                      "value": {"field": "lender_id"}}]})  # fmt: skip
    want = truth(url, "SELECT id FROM loans WHERE borrower_id < lender_id ORDER BY id")
    assert want and [i.data["id"] for i in res.items] == want


async def test_a_compared_field_joins_with_its_permission(library: Any) -> None:
    leg, _ = library
    # authors are tenant-protected: the field of the compared side joins them, checked
    other = {"field": "title", "op": "!=", "value": {"field": "authors.name"}}
    dsl = {"model": "books", "select": ["id"], "wheres": [other]}
    north = await run_dsl(leg, dsl, NORTH)
    assert [i.data["id"] for i in north.items] == [1, 2, 4, 5, 7]  # books of north's authors
    nobody = await run_dsl(leg, dsl)
    assert nobody.items == () and not nobody.ok


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"field": "days", "value": {"field": "borrower.city"}}, "numbers with numbers"),
        ({"field": "days", "op": "like", "value": {"field": "id"}}, "not like"),
        ({"field": "days", "op": "in", "value": {"field": "id"}}, "not in"),
        ({"field": "days", "value": {"field": "secret"}}, "allowed: id"),
        ({"field": "days", "value": {"field": "id", "as": "x"}}, "another field"),
    ],
)
async def test_bad_field_comparisons_are_refused(
    library: Any, where: dict[str, Any], message: str
) -> None:
    leg, _ = library
    with pytest.raises(InputError, match=message) as err:
        await run_dsl(leg, {"model": "loans", "wheres": [where]})
    assert "SELECT" not in str(err.value)


async def test_a_subquery_of_its_first_rows(library: Any) -> None:
    leg, url = library
    most = {"query": {"model": "books", "groups": ["author_id"], "aggregates": [{"fn": "count"}],
                      "orders": [{"field": "count", "sort": "desc"}], "limit": 1}}  # fmt: skip
    where = {"field": "author_id", "op": "in", "value": most}
    res = await run_dsl(leg, {"model": "books", "select": ["title"], "wheres": [where]})
    want = truth(url, "SELECT id FROM books WHERE author_id = (SELECT author_id FROM books "
                      "GROUP BY author_id ORDER BY count(*) DESC LIMIT 1) ORDER BY id")  # fmt: skip
    assert want == [4, 5, 7] and [i.data["id"] for i in res.items] == want
    longest = {"query": {"model": "books", "select": ["author_id"],
                         "orders": [{"field": "pages", "sort": "desc"}], "limit": 1}}  # fmt: skip
    where = {"field": "author_id", "op": "notin", "value": longest}
    res = await run_dsl(leg, {"model": "books", "select": ["title"], "wheres": [where]})
    assert [i.data["id"] for i in res.items] == [1, 2, 3, 6, 8]


async def test_the_first_rows_are_of_the_rows_the_caller_may_see(library: Any) -> None:
    leg, _ = library
    first = {"query": {"model": "authors", "select": ["id"],
                       "orders": [{"field": "name"}], "limit": 1}}  # fmt: skip
    dsl = {"model": "books", "select": ["id"],
           "wheres": [{"field": "author_id", "op": "in", "value": first}]}  # fmt: skip
    assert [i.data["id"] for i in (await run_dsl(leg, dsl, NORTH)).items] == [1, 2]  # Ada Berg
    assert [i.data["id"] for i in (await run_dsl(leg, dsl, SOUTH)).items] == [3]  # Bruno Costa


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"limit": 1}, "orders and a limit together"),
        ({"orders": [{"field": "pages"}]}, "orders and a limit together"),
        ({"orders": [{"field": "pages"}], "limit": 1, "offset": 1}, "no offset"),
        ({"orders": [{"field": "secret"}], "limit": 1}, "allowed: id"),
        (
            {"compound": [{"op": "union", "query": {"model": "books", "select": ["author_id"]}}]},
            "no set operation",
        ),
    ],
)
async def test_bad_top_subqueries_are_refused(
    library: Any, extra: dict[str, Any], message: str
) -> None:
    leg, _ = library
    sub = {"query": {"model": "books", "select": ["author_id"], **extra}}
    with pytest.raises(InputError, match=message):
        where = {"field": "id", "op": "in", "value": sub}
        await run_dsl(leg, {"model": "authors", "wheres": [where]}, NORTH)


def test_the_json_schema_offers_the_field_value() -> None:
    schema = dsl_json_schema()
    refs = [v.get("$ref") for v in schema["$defs"]["Where"]["properties"]["value"]["anyOf"]]
    assert "#/$defs/FieldRef" in refs
    assert schema["$defs"]["FieldRef"]["required"] == ["field"]


async def test_field_comparisons_and_top_subqueries_on_every_dialect(
    db: tuple[str, str | None],  # noqa: F811
) -> None:
    url, schema = db
    dearer = {"field": "total", "op": ">", "value": {"field": "products.price"}}
    await same_ids(
        url,
        schema,
        {"model": "orders", "select": ["id"], "wheres": [dearer]},
        "SELECT o.id FROM orders o JOIN products p ON p.id = "
        "o.product_id WHERE o.tenant_id = 'acme' AND o.total > p.price "
        "ORDER BY o.id",
    )
    top = {"query": {"model": "orders", "groups": ["product_id"], "aggregates": [{"fn": "count"}],
                     "orders": [{"field": "count", "sort": "desc"}], "limit": 2}}  # fmt: skip
    where = {"field": "id", "op": "in", "value": top}
    got = await _ask(url, schema, {"model": "products", "select": ["id"], "wheres": [where]})
    want = _truth(url, schema, "SELECT product_id FROM orders WHERE tenant_id = 'acme' GROUP BY "
                               "product_id ORDER BY count(*) DESC, product_id LIMIT 2")  # fmt: skip
    assert len(want) == 2 and [r["id"] for r in got] == sorted(r[0] for r in want)
