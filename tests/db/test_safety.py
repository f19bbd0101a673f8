"""Injection through NL, DSL values and field names is inert; tenants never cross."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.errors import InputError
from unifind.types import Principal, Reason, SearchRequest, Status

from .conftest import ids

EVIL = [
    "'; DROP TABLE products; --",
    "laptops' OR 1=1 --",
    'x" OR "1"="1',
    "1; DELETE FROM orders",
    "/* comment */ UNION SELECT * FROM customers --",
    "apple%' OR name LIKE '%",
    "ｌａｐｔｏｐｓ＇ ＯＲ １＝１",  # full-width quote and letters
    "lap\u200btops\u202e' OR 1=1",  # zero-width and right-to-left override
]


def counts(path: Path) -> tuple[int, int, int]:
    with sqlite3.connect(path) as conn:
        out = tuple(
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("products", "customers", "orders")
        )
    conn.close()
    return out  # type: ignore[return-value]


@pytest.mark.parametrize("question", EVIL)
async def test_natural_language_injection_is_inert(
    leg: DBLeg, shop_path: Path, question: str
) -> None:
    before = counts(shop_path)
    res = await leg.search(
        SearchRequest(type="db", query=question, limit=1000),
        principal=Principal(tenant="acme"),
        explain=True,
    )
    # The words it could not use make the answer partial (issue #19), nothing failed; a
    # question about nothing in any model is refused as not understood, naming its words.
    ran = [r for r in res.reports if r.stage != "understanding"]
    refused = [r for r in ran if r.status is Status.DEGRADED]
    assert all(r.status in (Status.OK, Status.SKIPPED) for r in ran if r not in refused)
    assert all(r.reason is Reason.NOT_UNDERSTOOD and "could not map" in (r.error or "")
               for r in refused), res.reports  # fmt: skip
    assert counts(shop_path) == before
    # Words that map to nothing only rank (issue #12), and the note names them.
    assert refused or any(n.startswith("not understood:") for n in res.notes), res.notes
    for note in res.notes:
        if " SQL: " in note:
            assert "1=1" not in note and "DROP" not in note.upper().split("SQL:")[1]


@pytest.mark.parametrize("value", EVIL)
async def test_dsl_values_stay_values(leg: DBLeg, shop_path: Path, value: str) -> None:
    before = counts(shop_path)
    preset = {
        "wheres": [
            {"field": "name", "value": value},
            {"field": "brand", "op": "in", "value": [value, "Apple"], "or": True},
        ]
    }
    res = await leg.search(
        SearchRequest(type="db", query="products", models=("products",), dsl=preset, limit=1000)
    )
    assert res.ok and sorted(int(i.record_id or 0) for i in res.items) == ids(
        f"sqlite:///{shop_path}", "SELECT id FROM products WHERE brand='Apple' ORDER BY id"
    )
    assert counts(shop_path) == before


@pytest.mark.parametrize(
    "field",
    [
        "name; DROP TABLE products",
        'name" OR 1=1 --',
        "nаme",
        "products.name",
        "*",
        "tenant_id",
        "sqlite_master",
        "name -- ",
        "name\u200b",
    ],
)
async def test_field_names_outside_the_model_are_refused(leg: DBLeg, field: str) -> None:
    for dsl in (
        {"wheres": [{"field": field, "value": 1}]},
        {"select": [field]},
        {"orders": [{"field": field}]},
    ):
        with pytest.raises(InputError, match="allowed: "):
            await leg.search(SearchRequest(type="db", query="x", models=("products",), dsl=dsl))


async def test_generated_or_cannot_escape_the_tenant(leg: DBLeg, shop_path: Path) -> None:
    acme = ids(f"sqlite:///{shop_path}", "SELECT id FROM orders WHERE tenant_id='acme' ORDER BY id")
    preset = {
        "wheres": [
            {"field": "status", "value": "paid"},
            {"field": "id", "op": "notnull", "or": True},
        ]
    }
    for q in ("orders from globex or tenant_id = 'globex' OR 1=1", "all orders"):
        res = await leg.search(
            SearchRequest(type="db", query=q, models=("orders",), dsl=preset, limit=1000),
            principal=Principal(tenant="acme"),
        )
        got = sorted(int(i.record_id or 0) for i in res.items)
        assert set(got) <= set(acme)
        if q == "all orders":
            assert got == acme  # the preset's "OR id IS NOT NULL" widened only within acme
    with pytest.raises(InputError, match="unknown field 'tenant_id'"):
        await leg.search(
            SearchRequest(
                type="db",
                query="x",
                models=("orders",),
                dsl={"wheres": [{"field": "tenant_id", "value": "globex"}]},
            )
        )


@pytest.fixture
def notes_db(tmp_path: Path) -> str:
    path = tmp_path / "notes.sqlite"
    rows = [
        (1, "plan", "t1", "ann", "private"),
        (2, "memo", "t1", "bob", "private"),
        (3, "wiki", "t1", "bob", "public"),
        (4, "hr", "t1", "bob", "hr"),
        (5, "plan", "t2", "ann", "public"),
    ]
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, tenant TEXT, "
            "owner TEXT, visibility TEXT)"
        )
        conn.executemany("INSERT INTO notes VALUES (?,?,?,?,?)", rows)
    conn.close()
    return f"sqlite:///{path}"


async def test_owner_and_visibility_predicates(notes_db: str) -> None:
    models = {
        "notes": {
            "title": "title",
            "columns": {"id": {}, "title": {"searchable": True}},
            "permissions": {"tenant": "tenant", "owner": "owner", "visibility": "visibility"},
        }
    }
    leg = DBLeg(notes_db, models)

    async def seen(p: Principal) -> list[int]:
        res = await leg.search(SearchRequest(type="db", query="notes"), principal=p)
        return sorted(int(i.record_id or 0) for i in res.items)

    assert await seen(Principal(tenant="t1", user="ann")) == [1, 3]
    assert await seen(Principal(tenant="t1", user="bob")) == [2, 3, 4]
    assert await seen(Principal(tenant="t1", user="cy", roles=("hr",))) == [3, 4]
    assert await seen(Principal(tenant="t2", user="bob")) == [5]
    assert await seen(Principal(tenant="t1")) == [3]  # no user: public rows only
    leg.close()
