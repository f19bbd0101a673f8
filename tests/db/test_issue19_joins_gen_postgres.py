"""Issue #19: joins written by the builtin generator, on a real PostgreSQL server
(UNIFIND_TEST_PG_DSN; skipped when none answers). Same library schema as the SQLite tests
(tests/db/_joins_gen_schema.py), in a schema of its own, relations learned from the
server's foreign keys; answers checked against hand-written SQL on the server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

from ._joins_gen_schema import create, models
from ._servers import PG_DSN as DSN
from ._servers import pg_schema

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pg() -> Iterator[tuple[sa.Engine, str]]:
    with pg_schema("unifind_joins") as (engine, schema):
        create(engine, schema)
        yield engine, schema


def oracle(pg: tuple[sa.Engine, str], sql: str) -> list[tuple[Any, ...]]:
    engine, schema = pg
    with engine.connect() as conn:
        conn.execute(sa.text(f'SET search_path TO "{schema}"'))
        return [tuple(r) for r in conn.execute(sa.text(sql))]


async def ask(leg: DBLeg, question: str, principal: Principal | None = None, **kw: Any) -> Any:
    req = SearchRequest(type="db", query=question, limit=100, **kw)
    return await leg.search(req, principal=principal)


async def test_joins_along_learned_relations_on_postgres(pg: tuple[sa.Engine, str]) -> None:
    _, schema = pg
    leg = DBLeg(DSN, models(schema))
    try:
        ms = await leg.models()
        assert ms["books"].joins["authors"].learned  # from the server's foreign keys
        assert set(ms["loans"].joins) == {"books", "borrower", "lender"}

        res = await ask(leg, "books by authors from Norway")
        want = oracle(pg, "SELECT b.id FROM books b JOIN authors a ON a.id = b.author_id "
                          "WHERE a.country = 'Norway'")  # fmt: skip
        assert {i.model for i in res.items} == {"books"}
        assert sorted(int(i.record_id) for i in res.items) == sorted(r[0] for r in want)
        assert any(n.startswith("joined books with authors") for n in res.notes)

        res = await ask(leg, "authors of fantasy books")
        want = oracle(pg, "SELECT DISTINCT a.id FROM authors a JOIN books b "
                          "ON b.author_id = a.id WHERE b.genre = 'fantasy'")  # fmt: skip
        assert sorted(i.data["id"] for i in res.items) == sorted(r[0] for r in want)

        res = await ask(leg, "which author has the most books")
        want = oracle(
            pg,
            "SELECT a.id, count(*) FROM authors a JOIN books b "
            "ON b.author_id = a.id GROUP BY a.id ORDER BY count(*) DESC LIMIT 1",
        )
        assert [(i.data["id"], i.data["count"]) for i in res.items] == want

        res = await ask(leg, "how many authors have fantasy books")
        want = oracle(pg, "SELECT count(DISTINCT a.id) FROM authors a JOIN books b "
                          "ON b.author_id = a.id WHERE b.genre = 'fantasy'")  # fmt: skip
        assert [i.data["count"] for i in res.items] == [r[0] for r in want]
    finally:
        leg.close()


async def test_the_joined_models_tenant_applies_on_postgres(pg: tuple[sa.Engine, str]) -> None:
    _, schema = pg
    leg = DBLeg(DSN, models(schema, tenant=True))
    try:
        res = await ask(leg, "books of authors from Norway", principal=Principal(tenant="north"),
                        models=("books",))  # fmt: skip
        want = oracle(pg, "SELECT b.id FROM books b JOIN authors a ON a.id = b.author_id "
                          "WHERE a.country = 'Norway' AND a.tenant = 'north'")  # fmt: skip
        assert want and sorted(int(i.record_id) for i in res.items) == sorted(r[0] for r in want)
        res = await ask(leg, "books of authors from Norway", principal=Principal(tenant="south"),
                        models=("books",))  # fmt: skip
        assert res.items == ()
    finally:
        leg.close()
