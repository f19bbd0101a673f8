"""Issue #19: set operations in the QueryDSL (``compound``: union, intersect, except).

SQLite on the library schema written for the join tests; PostgreSQL, MySQL/MariaDB and
DuckDB on the demo shop through tests/db/test_issue19_dialects.py's fixture (each skipped
with the reason when its server or driver is missing). Oracles are hand-written SQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.db.test_issue19_dialects import _ask, _truth, db  # noqa: F401  (fixture)

from unifind.errors import InputError
from unifind.types import Principal, Reason, Status

from .conftest import rows as truth
from .conftest import run_dsl

NORTH = Principal(tenant="north")


def genre(g: str) -> dict[str, Any]:
    return {"model": "books", "select": ["author_id"], "wheres": [{"field": "genre", "value": g}]}


@pytest.mark.parametrize(
    ("op", "sql_op"), [("union", "UNION"), ("intersect", "INTERSECT"), ("except", "EXCEPT")]
)
async def test_set_operations_give_the_sets_rows(library: Any, op: str, sql_op: str) -> None:
    leg, url = library
    dsl = {**genre("travel"), "compound": [{"op": op, "query": genre("fantasy")}],
           "orders": [{"field": "author_id", "sort": "desc"}]}  # fmt: skip
    res = await run_dsl(leg, dsl)
    want = truth(
        url,
        f"SELECT author_id FROM books WHERE genre = 'travel' {sql_op} "
        "SELECT author_id FROM books WHERE genre = 'fantasy' ORDER BY 1 DESC",
    )
    assert want and [(i.data["author_id"],) for i in res.items] == want


async def test_a_set_operation_over_two_models_and_groups(library: Any) -> None:
    leg, url = library
    # names of members in Oslo and of the authors (tenant north) from Norway
    dsl = {"model": "members", "select": ["name"], "wheres": [{"field": "city", "value": "Oslo"}],
           "compound": [{"op": "union", "query": {"model": "authors", "select": ["name"],
                         "wheres": [{"field": "country", "value": "Norway"}]}}]}  # fmt: skip
    res = await run_dsl(leg, dsl, NORTH)
    want = truth(
        url,
        "SELECT name FROM members WHERE city = 'Oslo' UNION SELECT name FROM "
        "authors WHERE country = 'Norway' AND tenant = 'north' ORDER BY 1",
    )
    assert [(i.data["name"],) for i in res.items] == want and len(want) == 4
    # the second model is protected: without a caller the query is refused, not half-read
    res = await run_dsl(leg, dsl)
    report = next(r for r in res.reports if r.backend == "members")
    assert report.status is Status.DEGRADED and report.reason is Reason.FORBIDDEN
    # groups and aggregates: authors' book counts, except those of fantasy writers
    count = {"model": "books", "groups": ["author_id"], "aggregates": [{"fn": "count"}]}
    dsl = {**count, "compound": [{"op": "except", "query": {**count, "wheres": [
        {"field": "genre", "value": "fantasy"}]}}]}  # fmt: skip
    res = await run_dsl(leg, dsl)
    want = truth(url, "SELECT author_id, count(*) FROM books GROUP BY author_id EXCEPT "
                      "SELECT author_id, count(*) FROM books WHERE genre = 'fantasy' "
                      "GROUP BY author_id ORDER BY 1")  # fmt: skip
    assert [(i.data["author_id"], i.data["count"]) for i in res.items] == want


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"query": {"model": "books", "select": ["author_id", "year"]}}, "as many fields"),
        ({"query": {**genre("x"), "limit": 1}}, "no orders, limit or offset"),
        ({"query": {"model": "shelves", "select": ["id"]}}, "models: authors"),
        ({"query": {"model": "books", "select": ["secret"]}}, "allowed: id, title"),
        ({"op": "minus"}, "union"),
    ],
)
async def test_bad_set_operations_are_refused(
    library: Any, change: dict[str, Any], message: str
) -> None:
    leg, _ = library
    part = {"op": "union", "query": genre("fantasy"), **change}
    with pytest.raises(InputError, match=message) as err:
        await run_dsl(leg, {**genre("travel"), "compound": [part]})
    assert "SELECT" not in str(err.value)
    with pytest.raises(InputError, match="names its fields"):
        await run_dsl(leg, {"model": "books", "compound": [{"op": "union", "query": genre("x")}]})
    with pytest.raises(InputError, match="at most one"):
        await run_dsl(leg, {**genre("a"), "compound": [{"op": "union", "query": genre("b")}] * 2})


async def test_set_operations_on_every_dialect(db: tuple[str, str | None]) -> None:  # noqa: F811
    url, schema = db

    def status(s: str) -> dict[str, Any]:
        return {"model": "orders", "select": ["product_id"],
                "wheres": [{"field": "status", "value": s}]}  # fmt: skip

    for op, sql_op in (("union", "UNION"), ("intersect", "INTERSECT"), ("except", "EXCEPT")):
        dsl = {**status("paid"), "compound": [{"op": op, "query": status("cancelled")}]}
        got = await _ask(url, schema, dsl)
        want = _truth(url, schema, "SELECT product_id FROM orders WHERE status = 'paid' AND "
                                   f"tenant_id = 'acme' {sql_op} SELECT product_id FROM orders "
                                   "WHERE status = 'cancelled' AND tenant_id = 'acme' "
                                   "ORDER BY 1")  # fmt: skip
        assert want and [r["product_id"] for r in got] == [r[0] for r in want], op


def test_the_published_schema_is_rooted_and_accepts_a_compound_query() -> None:
    """QueryDSL is recursive through compound: the schema a host LLM reads is still an
    object at its root (no bare $ref), and a compound query validates against it."""
    import jsonschema

    from unifind.db.dsl import dsl_json_schema

    schema = dsl_json_schema()
    assert schema["type"] == "object" and "compound" in schema["properties"]
    assert "QueryDSL" not in schema["$defs"]
    jsonschema.Draft202012Validator.check_schema(schema)
    query = {
        "model": "books",
        "select": ["author_id"],
        "compound": [{"op": "except", "query": {"model": "loans", "select": ["book_id"]}}],
    }
    jsonschema.Draft202012Validator(schema).validate(query)
    bad = {**query, "compound": [{"op": "zip", "query": {"model": "loans"}}]}
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
