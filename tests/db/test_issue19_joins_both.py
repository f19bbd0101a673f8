"""Issue #19: "both A and B" of a related model's column — records with a related row of
each value (an intersection of two subqueries), along a has_many relation or through a
link table. The library schema of tests/db/_joins_gen_schema.py on every dialect, answers
checked against hand-written SQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import Principal

from ._library_dialects import DIALECTS, RELATIONS, ask, declared, library, oracle
from ._library_dialects import sqlite_library as _sqlite

BOTH = ("SELECT id FROM authors WHERE id IN (SELECT author_id FROM books WHERE genre = '{}') "
        "AND id IN (SELECT author_id FROM books WHERE genre = '{}') ORDER BY id")  # fmt: skip


@pytest.fixture(scope="module", params=DIALECTS)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str | None]]:
    yield from library(request.param, tmp_path_factory.mktemp(request.param))


async def test_both_values_of_related_rows_on_every_dialect(db: tuple[str, str | None]) -> None:
    url, schema = db
    fantasy_travel = oracle(url, schema, BOTH.format("fantasy", "travel"))
    poetry_travel = oracle(url, schema, BOTH.format("poetry", "travel"))
    assert fantasy_travel == [3] and poetry_travel == [1, 4]
    leg = DBLeg(url, declared(schema))
    try:
        res = await ask(leg, "authors with both fantasy and travel books", models=("authors",))
        assert [i.data["id"] for i in res.items] == fantasy_travel
        assert any(n.startswith("read 'both' as authors with a books row") for n in res.notes)
        res = await ask(leg, "authors who wrote both poetry and travel books",
                        models=("authors",))  # fmt: skip
        assert sorted(i.data["id"] for i in res.items) == poetry_travel
    finally:
        leg.close()


async def test_both_through_a_link_table(tmp_path: Path) -> None:
    ((url, _),) = [next(_sqlite(tmp_path))]
    spec = declared()
    spec["members"]["relations"] = {"borrowed": RELATIONS["members"]["borrowed"]}
    want = oracle(url, None, "SELECT id FROM members WHERE id IN (SELECT l.borrower_id FROM "
                             "loans l JOIN books b ON b.id = l.book_id WHERE b.genre = "
                             "'fantasy') AND id IN (SELECT l.borrower_id FROM loans l JOIN "
                             "books b ON b.id = l.book_id WHERE b.genre = 'poetry')")  # fmt: skip
    leg = DBLeg(url, spec)
    try:
        res = await ask(leg, "members who borrowed both fantasy and poetry books",
                        models=("members",))  # fmt: skip
        assert [int(i.data["id"]) for i in res.items] == want == [1]
    finally:
        leg.close()


async def test_without_both_a_list_stays_either_value(tmp_path: Path) -> None:
    ((url, _),) = [next(_sqlite(tmp_path))]
    either = oracle(url, None, "SELECT DISTINCT author_id FROM books WHERE genre IN "
                               "('fantasy', 'travel') ORDER BY author_id")  # fmt: skip
    leg = DBLeg(url, declared())
    try:
        res = await ask(leg, "authors with fantasy or travel books", models=("authors",))
        assert "query" not in str(res.dsl)
        assert sorted(i.data["id"] for i in res.items) == either
    finally:
        leg.close()


async def test_the_owners_tenant_applies(tmp_path: Path) -> None:
    ((url, _),) = [next(_sqlite(tmp_path))]
    leg = DBLeg(url, declared(tenant=True))
    try:
        question = "authors with both fantasy and travel books"
        res = await ask(leg, question, Principal(tenant="north"), models=("authors",))
        assert [i.data["id"] for i in res.items] == [3]  # Carl Holm is the north's
        res = await ask(leg, question, Principal(tenant="south"), models=("authors",))
        assert res.items == ()
    finally:
        leg.close()
