"""Issue #19: relations between models, joins in the DSL, and a DSL an agent writes.

The oracle is hand-written SQL on the same SQLite file; tenancy is checked on a small
database where an order of one tenant points at another tenant's customer.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from unifind.db.demo import DEMO_MODELS_YAML
from unifind.db.dsl import validate_dsl
from unifind.db.execute import make_engine
from unifind.db.leg import DBLeg
from unifind.db.models import Model, introspect, load_models
from unifind.errors import ConfigError, InputError
from unifind.types import Item, Principal, Reason, SearchRequest

ACME = Principal(tenant="acme")


def dsl_req(dsl: dict[str, Any], **kw: Any) -> SearchRequest:
    return SearchRequest(type="db", query="agent query", uses="dsl", dsl=dsl, limit=100, **kw)


def data_of(item: Item) -> dict[str, Any]:
    assert item.data is not None, item
    return item.data


def rows(path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


# --- relations: declared, learned, refused ------------------------------------------------


def test_relation_to_a_missing_model_is_a_load_error_naming_it() -> None:
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    decl["orders"]["relations"]["buyer"] = {"model": "clients", "key": "id", "foreign": "x"}
    with pytest.raises(ConfigError, match=r"relation 'buyer'.*'clients' is not declared"):
        load_models(decl)


def test_relation_key_missing_from_the_table_is_a_load_error_naming_it(shop_path: Path) -> None:
    engine = make_engine(f"sqlite:///{shop_path}")
    try:
        for side, bad in (("key", "customer_no"), ("foreign", "client_id")):
            decl = yaml.safe_load(DEMO_MODELS_YAML)
            decl["orders"]["relations"]["customers"][side] = bad
            with pytest.raises(ConfigError, match=bad):
                introspect(engine, load_models(decl))
    finally:
        engine.dispose()


def test_yao_spelling_of_relation_types_is_accepted() -> None:
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    decl["customers"]["relations"]["orders"]["type"] = "hasMany"
    assert load_models(decl)["customers"].joins["orders"].type == "has_many"


def test_relations_are_learned_from_foreign_keys_when_not_declared(shop_path: Path) -> None:
    decl = yaml.safe_load(DEMO_MODELS_YAML)
    for m in decl.values():
        m.pop("relations", None)
    engine = make_engine(f"sqlite:///{shop_path}")
    try:
        models = introspect(engine, load_models(decl))
    finally:
        engine.dispose()
    customers = models["orders"].joins["customers"]
    assert (customers.model, customers.type, customers.key, customers.foreign) == (
        "customers", "belongs_to", "id", "customer_id"
    )  # fmt: skip
    assert customers.learned
    back = models["customers"].joins["orders"]
    assert (back.type, back.key, back.foreign) == ("has_many", "customer_id", "id")
    assert models["products"].joins["orders"].key == "product_id"


@pytest.fixture
def tenants(tmp_path: Path) -> Path:
    """Order 2 of acme points at globex's customer 2: a join must not reveal it to acme."""
    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT,
              boss_id INTEGER REFERENCES customers(id), tenant_id TEXT);
            CREATE TABLE orders (id INTEGER PRIMARY KEY,
              customer_id INTEGER REFERENCES customers(id), total REAL, tenant_id TEXT);
            INSERT INTO customers VALUES (1, 'Anna', 'Germany', NULL, 'acme'),
              (2, 'Bert', 'Germany', 1, 'globex'), (3, 'Cleo', 'France', 1, 'acme');
            INSERT INTO orders VALUES (1, 1, 100, 'acme'), (2, 2, 200, 'acme'),
              (3, 2, 300, 'globex'), (4, 3, 50, 'acme');
            """
        )
    return path


MODELS = {
    "customers": {"title": "name", "permissions": {"tenant": "tenant_id"},
                  "columns": {"id": {}, "name": {"searchable": True}, "country": {}}},
    "orders": {"permissions": {"tenant": "tenant_id"},
               "columns": {"id": {}, "customer_id": {}, "total": {}}},
}  # fmt: skip


@pytest.fixture
def tleg(tenants: Path) -> Iterator[DBLeg]:
    leg = DBLeg(f"sqlite:///{tenants}", MODELS)
    yield leg
    leg.close()


async def test_a_self_referencing_key_is_learned_and_paths_are_bounded(tleg: DBLeg) -> None:
    models = await tleg.models()
    assert models["customers"].joins["customers"].foreign == "boss_id"  # a cycle, learned
    ok = {"select": ["name", "customers.customers.name"],
          "wheres": [{"field": "customers.customers.country", "value": "Germany"}]}  # fmt: skip
    res = await tleg.search(dsl_req({**ok, "model": "customers"}), principal=ACME)
    assert res.ok and [data_of(i)["name"] for i in res.items] == []  # boss of boss: none
    deep = {"model": "customers", "select": ["customers.customers.customers.customers.name"]}
    with pytest.raises(InputError, match="at most 3"):
        await tleg.search(dsl_req(deep), principal=ACME)


# --- tenancy on every model a query touches -------------------------------------------------


async def test_a_join_applies_the_joined_models_tenancy(tleg: DBLeg) -> None:
    dsl = {"model": "orders", "select": ["id", "customers.name"],
           "wheres": [{"field": "customers.country", "value": "Germany"}]}  # fmt: skip
    res = await tleg.search(dsl_req(dsl), principal=ACME)
    assert [i.record_id for i in res.items] == ["1"]  # order 2's customer is globex's
    left = {"model": "orders", "select": ["id", "c.name"],
            "joins": [{"from": "customers", "as": "c", "key": "id", "foreign": "customer_id",
                       "left": True}]}  # fmt: skip
    res = await tleg.search(dsl_req(left), principal=ACME)
    assert {i.record_id: data_of(i)["c.name"] for i in res.items} == {"1": "Anna", "2": None,
                                                                   "4": "Cleo"}  # fmt: skip


async def test_a_sub_aggregate_reads_only_rows_the_caller_may_see(tleg: DBLeg) -> None:
    dsl = {"model": "orders", "wheres": [{"field": "total", "op": ">",
                                          "value": {"agg": "avg", "field": "total"}}]}  # fmt: skip
    res = await tleg.search(dsl_req(dsl), principal=ACME)
    # acme's average is (100 + 200 + 50) / 3; over every tenant it would be 162.5
    assert [i.record_id for i in res.items] == ["2"]


async def test_a_join_to_a_model_the_caller_cannot_see_is_refused(tenants: Path) -> None:
    models = {"orders": {"columns": {"id": {}, "total": {}, "customer_id": {}}},
              "customers": MODELS["customers"]}  # fmt: skip
    leg = DBLeg(f"sqlite:///{tenants}", models)
    try:
        dsl = {"model": "orders", "select": ["id", "customers.name"]}
        res = await leg.search(dsl_req(dsl), principal=None)
        plain = await leg.search(dsl_req({"model": "orders"}), principal=None)
    finally:
        leg.close()
    assert not res.items and res.reports[0].reason is Reason.FORBIDDEN
    assert "customers" in (res.reports[0].error or "")
    assert len(plain.items) == 4  # the unprotected model alone still answers


# --- joins, distinct, count distinct, aggregates over joined columns (SQLite oracle) ----------


async def test_orders_of_customers_in_a_country(leg: DBLeg, shop_path: Path) -> None:
    dsl = {"model": "orders", "wheres": [{"field": "customers.country", "value": "France"}]}
    res = await leg.search(dsl_req(dsl), principal=ACME)
    expected = rows(shop_path, "SELECT o.id FROM orders o JOIN customers c ON c.id = "
                    "o.customer_id WHERE c.country = 'France' AND o.tenant_id = 'acme' "
                    "AND c.tenant_id = 'acme' ORDER BY o.id")  # fmt: skip
    assert expected and [int(i.record_id or 0) for i in res.items] == [r[0] for r in expected]


async def test_aggregates_over_joined_columns_and_count_distinct(
    leg: DBLeg, shop_path: Path
) -> None:
    dsl = {"model": "orders", "groups": ["customers.country"],
           "aggregates": [{"fn": "count", "field": "customers.id", "distinct": True},
                          {"fn": "sum", "field": "total"}, {"fn": "count"}]}  # fmt: skip
    res = await leg.search(dsl_req(dsl), principal=ACME)
    expected = rows(shop_path, "SELECT c.country, count(DISTINCT c.id), sum(o.total), "
                    "count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE "
                    "o.tenant_id = 'acme' AND c.tenant_id = 'acme' GROUP BY c.country")  # fmt: skip
    got = {(data_of(i)["customers.country"], data_of(i)["count_distinct_customers_id"],
            round(data_of(i)["sum_total"], 2), data_of(i)["count"]) for i in res.items}  # fmt: skip
    assert got == {(a, b, round(c, 2), d) for a, b, c, d in expected}
    assert any(r[1] > 1 for r in expected)  # a country with several customers: distinct counts


async def test_distinct_rows_and_a_has_many_path(leg: DBLeg, shop_path: Path) -> None:
    dsl = {"model": "products", "select": ["brand"], "distinct": True,
           "wheres": [{"field": "orders.status", "value": "cancelled"}]}  # fmt: skip
    res = await leg.search(dsl_req(dsl), principal=ACME)
    expected = rows(shop_path, "SELECT DISTINCT p.brand FROM products p JOIN orders o ON "
                    "o.product_id = p.id WHERE o.status = 'cancelled' AND o.tenant_id = 'acme' "
                    "ORDER BY p.brand")  # fmt: skip
    assert [data_of(i)["brand"] for i in res.items] == [r[0] for r in expected]
    # no key is selected: each row is named by its values, so no two share a citation
    assert len(expected) > 1 and len({i.record_id for i in res.items}) == len(expected)


async def test_older_than_the_average(leg: DBLeg, shop_path: Path) -> None:
    dsl = {"model": "products", "select": ["name", "price"], "orders": [{"field": "price"}],
           "wheres": [{"field": "price", "op": ">", "value": {"agg": "avg", "field": "price"}},
                      {"field": "category", "value": "laptop"}]}  # fmt: skip
    res = await leg.search(dsl_req(dsl))
    expected = rows(shop_path, "SELECT id FROM products WHERE category = 'laptop' AND price > "
                    "(SELECT avg(price) FROM products) ORDER BY price, id")  # fmt: skip
    assert expected and [int(i.record_id or 0) for i in res.items] == [r[0] for r in expected]


async def test_the_dsl_runs_as_written_without_a_generator(leg: DBLeg) -> None:
    # The question text would make the builtin search laptops; as written, it is only a label.
    req = SearchRequest(type="db", query="cheapest laptops", uses="dsl", models=("products",),
                        dsl={"wheres": [{"field": "brand", "value": "Sony"}]})  # fmt: skip
    res = await leg.search(req)
    assert res.items and {data_of(i)["brand"] for i in res.items} == {"Sony"}
    assert res.dsl == {"model": "products", "wheres": [{"field": "brand", "value": "Sony"}]}
    with pytest.raises(InputError, match="names its model"):
        await leg.search(SearchRequest(type="db", query="x", uses="dsl", dsl={"limit": 1}))
    with pytest.raises(InputError, match="give a dsl"):
        await leg.search(SearchRequest(type="db", query="x", uses="dsl"))


# --- bad input from an agent: InputError naming what is allowed, never SQL text ---------------


def _refused(shop_models: dict[str, Model], dsl: dict[str, Any], model: str = "orders") -> str:
    with pytest.raises(InputError) as exc:
        validate_dsl(dsl, shop_models[model], shop_models)
    text = str(exc.value)
    assert not re.search(r"SELECT\b.*\bFROM\b", text)  # no SQL text, only names
    return text


def test_bad_agent_dsls_are_refused_naming_what_is_allowed(
    shop_models: dict[str, Model],
) -> None:
    text = _refused(shop_models, {"wheres": [{"field": "customers.tenant_id", "value": "x"}]})
    assert "allowed: id, name, email, city, country" in text
    text = _refused(shop_models, {"select": ["buyers.name"]})
    assert "relations: customers, products" in text
    text = _refused(shop_models, {"wheres": [{"field": "total", "op": "~", "value": 1}]})
    assert "ops: = != >" in text
    joins = [{"relation": "customers"}] * 10_000
    assert "at most 8" in _refused(shop_models, {"joins": joins})
    nested: dict[str, Any] = {"field": "total", "value": 1}
    for _ in range(50):
        nested = {"wheres": [nested]}
    assert "nested deeper than 8" in _refused(shop_models, {"wheres": [nested]})
    text = _refused(shop_models, {"joins": [{"from": "secrets", "key": "id", "foreign": "id"}]})
    assert "models: products, customers, orders" in text
    sub = {"field": "status", "op": ">", "value": {"agg": "avg", "field": "total"}}
    assert "compare numbers with numbers" in _refused(shop_models, {"wheres": [sub]})
    sub = {"field": "total", "op": "like", "value": {"agg": "avg", "field": "total"}}
    assert "compared with =" in _refused(shop_models, {"wheres": [sub]})
    sub = {"field": "total", "value": {"agg": "median", "field": "total"}}
    assert "count|avg|sum|min|max" in _refused(shop_models, {"wheres": [sub]})


async def test_a_model_outside_the_declared_ones_is_refused(leg: DBLeg) -> None:
    with pytest.raises(InputError, match="customers, orders") as exc:
        await leg.search(dsl_req({"model": "salaries"}), principal=ACME)
    assert "SELECT" not in str(exc.value)


def test_the_wire_form_round_trips(shop_models: dict[str, Model]) -> None:
    dsl = {"model": "orders", "joins": [{"relation": "customers", "left": True}],
           "wheres": [{"field": "total", "op": "<", "value": {"agg": "max", "field": "total"}}],
           "aggregates": [{"fn": "count", "field": "customers.id", "distinct": True}]}  # fmt: skip
    out = validate_dsl(dsl, shop_models["orders"], shop_models).to_dict()
    assert json.loads(json.dumps(out)) == dsl
