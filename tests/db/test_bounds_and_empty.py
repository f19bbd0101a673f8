"""Issue #18 on the demo shop: integers the database can't bind are refused by name, and an
empty answer says which condition left nothing (never a silent ``ok`` with no rows)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from unifind.db._empty import and_terms, describe, why_empty
from unifind.db.dsl import MAX_INT, FieldRef, QueryDSL, SubQuery, Where, parse_dsl, validate_dsl
from unifind.db.execute import Executor, make_engine
from unifind.db.leg import DBLeg
from unifind.db.models import Model, sql_table
from unifind.errors import InputError
from unifind.types import Principal, Reason, SearchRequest, Status

from .conftest import ids


def req(q: str, **kw: object) -> SearchRequest:
    return SearchRequest(type="db", query=q, **kw)  # type: ignore[arg-type]


def count(url: str, sql: str) -> int:
    return int(ids(url, f"SELECT count(*) FROM ({sql})")[0])


async def test_an_offset_past_64_bits_is_an_input_error_naming_it(leg: DBLeg) -> None:
    for offset in (10**30, MAX_INT + 1):
        with pytest.raises(InputError, match=rf"offset {str(offset)[:20]}.* give 0 to {MAX_INT}"):
            await leg.search(req("laptops", offset=offset))
    with pytest.raises(InputError, match=r"offset \+ dsl.offset .* at most 9223372036854775807"):
        await leg.search(req("laptops", offset=MAX_INT, dsl={"offset": 1}))


async def test_the_largest_offset_runs_and_says_the_rows_are_before_it(
    leg: DBLeg, shop_path: Path
) -> None:
    res = await leg.search(req("products", models=("products",), offset=MAX_INT))
    report = next(r for r in res.reports if r.backend == "products")
    total = count(f"sqlite:///{shop_path}", "SELECT id FROM products")
    assert report.status is Status.OK and res.items == ()
    assert f"{total} products row(s) match, all before offset {MAX_INT:,}" in (report.note or "")


async def test_a_huge_dsl_value_names_its_place_and_the_range(leg: DBLeg) -> None:
    dsl = {"wheres": [{"field": "stock", "op": ">", "value": 10**30}]}
    with pytest.raises(InputError, match=r"dsl\.wheres\[0\]\.value: .* give -9223372036854775807"):
        await leg.search(req("products", dsl=dsl))
    with pytest.raises(InputError, match=r"dsl\.offset: "):
        parse_dsl({"offset": 2**64})


async def test_a_question_number_past_the_column_range_is_a_status_not_an_exception(
    leg: DBLeg,
) -> None:
    res = await leg.search(req("products with stock over 100000000000000000000000000000"))
    report = next(r for r in res.reports if r.backend == "products")
    assert (report.status, report.reason) == (Status.DEGRADED, Reason.ERROR)
    assert "products.stock" in (report.error or "") and res.items == ()


async def test_the_readme_example_in_double_quotes_says_price_below_zero_left_nothing(
    leg: DBLeg, shop_path: Path
) -> None:
    # "cheapest 5 laptops under $1000 in stock" in double quotes: the shell expands $1.
    res = await leg.search(req("cheapest 5 laptops under 000 in stock"))
    report = next(r for r in res.reports if r.backend == "products")
    assert report.status is Status.OK and res.items == ()
    url = f"sqlite:///{shop_path}"
    rest = count(url, "SELECT id FROM products WHERE availability = 'in_stock' "
                      "AND category = 'laptop'")  # fmt: skip
    low = ids(url, "SELECT CAST(min(price) AS INTEGER) FROM products")[0]
    high = ids(url, "SELECT CAST(max(price) AS INTEGER) FROM products")[0]
    expected = (f"no products with price < 0 (price runs from {low:,} to {high:,}); "
                f"without that condition: {rest}")  # fmt: skip
    assert rest > 0 and expected in res.notes and expected in (report.note or "")


async def test_a_condition_other_rows_have_is_said_as_such(leg: DBLeg, shop_path: Path) -> None:
    url = f"sqlite:///{shop_path}"
    assert count(url, "SELECT id FROM products WHERE brand = 'Sony' AND category = 'laptop'") == 0
    sony = count(url, "SELECT id FROM products WHERE brand = 'Sony'")
    laptops = count(url, "SELECT id FROM products WHERE category = 'laptop'")
    dsl = {
        "wheres": [{"field": "brand", "value": "Sony"}, {"field": "category", "value": "laptop"}]
    }
    res = await leg.search(req("products", models=("products",), dsl=dsl))
    assert res.notes == (
        f"of the {laptops} products row(s) meeting the other conditions, none has brand = Sony",
        f"of the {sony} products row(s) meeting the other conditions, none has category = laptop",
    )


async def test_conditions_empty_only_together(leg: DBLeg, shop_path: Path) -> None:
    # Sony makes no laptop, nothing costs under 1, and any two of the three match nothing.
    url = f"sqlite:///{shop_path}"
    dsl = {"wheres": [{"field": "brand", "value": "Sony"}, {"field": "category", "value": "laptop"},
                      {"field": "price", "op": "<", "value": 1}]}  # fmt: skip
    res = await leg.search(req("products", models=("products",), dsl=dsl))
    total = count(url, "SELECT id FROM products")
    assert res.notes == (
        "no products row meets all 3 conditions together, and taking out any one of them "
        f"still leaves none; without any: {total}",
    )


async def test_or_conditions_are_counted_as_a_whole(leg: DBLeg, shop_path: Path) -> None:
    dsl = {"wheres": [{"field": "price", "op": "<", "value": 1},
                      {"field": "stock", "op": "<", "value": -1, "or": True}]}  # fmt: skip
    res = await leg.search(req("products", models=("products",), dsl=dsl))
    total = count(f"sqlite:///{shop_path}", "SELECT id FROM products")
    # A preset is one group of the query: taken out whole, never term by term.
    assert res.notes == ("no products with a group of alternatives (price < 1 or stock < -1); "
                         f"without that condition: {total}",)  # fmt: skip


async def test_probes_keep_the_callers_permission(leg: DBLeg, shop_path: Path) -> None:
    url = f"sqlite:///{shop_path}"
    sql = ("SELECT customer_id FROM orders GROUP BY customer_id "
           "HAVING sum(tenant_id = 'acme') = 0 ORDER BY customer_id LIMIT 1")  # fmt: skip
    other = ids(url, sql)[0]
    dsl = {"wheres": [{"field": "customer_id", "value": other}]}
    res = await leg.search(req("orders", models=("orders",), dsl=dsl),
                           principal=Principal(tenant="acme"))  # fmt: skip
    acme = count(url, "SELECT id FROM orders WHERE tenant_id = 'acme'")
    assert acme < count(url, "SELECT id FROM orders")  # the count below is acme's alone
    assert f"no orders with customer_id = {other:,}; without that condition: {acme}" in res.notes
    nobody = await leg.search(req("orders", models=("orders",)), principal=Principal(tenant="x"))
    assert nobody.notes == ("there are no orders rows visible to this caller",)


async def test_a_non_empty_answer_or_an_aggregate_carries_no_probe_note(leg: DBLeg) -> None:
    res = await leg.search(req("cheapest 5 laptops under $1000 in stock"))
    assert res.items and not any("without" in n for n in res.notes)
    dsl = {"aggregates": [{"fn": "count"}], "wheres": [{"field": "price", "op": "<", "value": 0}]}
    agg = await leg.search(req("products", models=("products",), dsl=dsl))
    assert agg.items and not any("without" in n for n in agg.notes)


def test_and_terms_open_and_groups_and_refuse_or() -> None:
    a, b, c = (Where(field=f, value=1) for f in "abc")
    assert and_terms([a, Where(wheres=(b, c))]) == [a, b, c]
    either = Where(wheres=(b, c.model_copy(update={"or_": True})))
    assert and_terms([a, either]) == [a, either]
    assert and_terms([a, b.model_copy(update={"or_": True})]) is None
    assert describe(Where(field="price", op="<", value=0.0)) == "price < 0"
    assert describe(Where(field="name", op="like", value="%pro%")) == "name containing 'pro'"
    assert describe(either) == "a group of alternatives (b = 1 or c = 1)"


async def test_a_top_level_or_is_counted_whole(
    shop_path: Path, shop_models: dict[str, Model]
) -> None:
    model = shop_models["products"]
    executor = Executor(make_engine(f"sqlite:///{shop_path}"))
    try:
        dsl = validate_dsl(parse_dsl({"wheres": [
            {"field": "price", "op": "<", "value": 1},
            {"field": "stock", "op": "<", "value": -1, "or": True}]}), model)  # fmt: skip
        notes = await why_empty(executor.fetch, model, sql_table(model), None, dsl.wheres, 0)
        # Rows that appeared since the query ran (no offset skipped them): nothing to explain.
        rows_now = await why_empty(executor.fetch, model, sql_table(model), None, (), 0)
    finally:
        executor.engine.dispose()
    total = count(f"sqlite:///{shop_path}", "SELECT id FROM products")
    assert notes == [f"no products row matches the conditions; without them: {total}"]
    assert rows_now == []


async def test_an_empty_answer_along_a_relation_says_which_condition_left_nothing(
    leg: DBLeg, shop_path: Path
) -> None:
    """A query along relations is probed like a one-table one: the whole joined query with
    one condition out, counted under every model's permission (the caller's rows alone)."""
    url = f"sqlite:///{shop_path}"
    # A country some customer has, but none of acme's orders come from (hand-written SQL).
    sql = ("SELECT country FROM customers WHERE country NOT IN (SELECT c.country "
           "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE "
           "o.tenant_id = 'acme' AND c.tenant_id = 'acme') ORDER BY 1 LIMIT 1")  # fmt: skip
    country = ids(url, sql)[0]
    acme = count(url, "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id "
                      "WHERE o.tenant_id = 'acme' AND c.tenant_id = 'acme'")  # fmt: skip
    assert 0 < acme < count(url, "SELECT id FROM orders")  # so the count is acme's alone
    dsl = {"wheres": [{"field": "customers.country", "value": country}]}
    res = await leg.search(req("orders", models=("orders",), dsl=dsl),
                           principal=Principal(tenant="acme"))  # fmt: skip
    assert res.items == ()
    note = f"no orders with customers.country = {country}; without that condition: {acme}"
    assert note in res.notes
    report = next(r for r in res.reports if r.backend == "orders")
    assert report.status is Status.OK and note in (report.note or "")
    # Two conditions, each met by some of acme's orders but not together: said as such.
    both = {"wheres": [{"field": "customers.country", "value": "France"},
                       {"field": "customers.country", "value": "Spain"}]}  # fmt: skip
    res = await leg.search(req("orders", models=("orders",), dsl=both),
                           principal=Principal(tenant="acme"))  # fmt: skip
    assert any("none has customers.country = Spain" in n for n in res.notes), res.notes
    # A question the builtin answers along the relation gets the same note.
    res = await leg.search(req(f"orders of customers in {country}", models=("orders",)),
                           principal=Principal(tenant="acme"))  # fmt: skip
    assert res.items == () and note in res.notes, res.notes


def test_a_subquery_or_a_field_value_is_described_as_a_person_reads_it() -> None:
    # As validate_dsl leaves them: a SubQuery / FieldRef value, never their repr in a note.
    inner = QueryDSL(model="orders", select=("customer_id",),
                     wheres=(Where(field="quantity", op=">", value=2),))  # fmt: skip
    term = Where(field="id", op="notin", value=SubQuery(query=inner))
    assert describe(term) == (
        "id not in the customer_id values of orders rows meeting its conditions"
    )
    field = Where(field="price", op=">", value=FieldRef(field="discount"))
    assert describe(field) == "price > discount"


async def test_every_probe_of_an_empty_answer_is_one_statement(leg: DBLeg, shop_path: Path) -> None:
    """The counts the why-empty note may need (each condition out, each alone, the column's
    range) are scalar subqueries of ONE statement: one round trip after the query, however
    many conditions, along a relation too; the values bound, never in the SQL text."""
    seen: list[tuple[str, tuple[object, ...]]] = []

    def statement(
        _c: object, _cur: object, sql: str, params: tuple[object, ...], *_: object
    ) -> None:
        seen.append((sql, params))

    await leg.models()  # the schema read before counting
    engine = leg._get_executor().engine
    sa.event.listen(engine, "before_cursor_execute", statement)
    url = f"sqlite:///{shop_path}"
    three = {"wheres": [{"field": "brand", "value": "Sony"},
                        {"field": "category", "value": "laptop"},
                        {"field": "price", "op": "<", "value": 1}]}  # fmt: skip
    res = await leg.search(req("products", models=("products",), dsl=three))
    total = count(url, "SELECT id FROM products")
    assert res.notes == ("no products row meets all 3 conditions together, and taking out any "
                         f"one of them still leaves none; without any: {total}",)  # fmt: skip
    assert len(seen) == 2 and seen[1][0].count("count(") == 8  # all, none, 3 out, 3 alone
    assert "Sony" not in seen[1][0] and "Sony" in seen[1][1]
    seen.clear()
    joined = {"wheres": [{"field": "customers.country", "value": "Atlantis"},
                         {"field": "quantity", "op": ">", "value": 1}]}  # fmt: skip
    res = await leg.search(req("orders", models=("orders",), dsl=joined),
                           principal=Principal(tenant="acme"))  # fmt: skip
    rest = count(url, "SELECT id FROM orders WHERE tenant_id = 'acme' AND quantity > 1")
    assert f"no orders with customers.country = Atlantis; without that condition: {rest}" in (
        res.notes
    )
    assert len(seen) == 2 and "Atlantis" not in seen[1][0] and "Atlantis" in seen[1][1]
    sa.event.remove(engine, "before_cursor_execute", statement)
