"""Issue #19: sum/avg/min/max over a has_many relation's column ("the total pages of books
by authors from Norway"), per record of the model when the question says "for each
<the model>" — each related row counted once. The library schema of
tests/db/_joins_gen_schema.py on every dialect, answers checked against hand-written SQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from unifind.db.leg import DBLeg

from ._library_dialects import DIALECTS, ask, declared, library, oracle


@pytest.fixture(scope="module", params=DIALECTS)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str | None]]:
    yield from library(request.param, tmp_path_factory.mktemp(request.param))


def per_author(res: Any, key: str) -> dict[int, float]:
    return {int(i.data["id"]): float(i.data[key]) for i in res.items}


async def test_aggregates_over_related_rows_on_every_dialect(db: tuple[str, str | None]) -> None:
    url, schema = db
    total = oracle(url, schema, "SELECT sum(b.pages) FROM authors a JOIN books b "
                                "ON b.author_id = a.id WHERE a.country = 'Norway'")  # fmt: skip
    rows = oracle(url, schema, "SELECT a.id FROM authors a JOIN books b ON b.author_id = a.id "
                               "GROUP BY a.id ORDER BY a.id")  # fmt: skip
    averages = {
        i: float(oracle(url, schema, f"SELECT avg(pages) FROM books WHERE author_id = {i}")[0])
        for i in rows
    }
    leg = DBLeg(url, declared(schema))
    try:
        res = await ask(leg, "the total pages of books by authors from Norway",
                        models=("authors",))  # fmt: skip
        assert [float(i.data["sum_books_pages"]) for i in res.items] == [float(total[0])]
        assert any(n.startswith("joined authors with books") for n in res.notes)
        for question in ("the average pages of books for each author",
                         "average pages of the books per author"):  # fmt: skip
            res = await ask(leg, question, models=("authors",))
            got = per_author(res, "avg_books_pages")
            assert got == pytest.approx(averages), question
            assert res.dsl["groups"][0] == "id"  # one row per author, its key among the groups
    finally:
        leg.close()


async def test_an_aggregate_of_the_models_own_column_over_a_has_many_join_is_not_offered(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """'the total pages of books with loans of 7 days or more' would add a book's pages once
    per loan through the join: that reading is not offered (the answer says what it left)."""
    gen = library("sqlite", tmp_path_factory.mktemp("own"))
    url, _ = next(gen)
    leg = DBLeg(url, declared())
    try:
        res = await ask(leg, "the total pages of books with loans of at least 7 days",
                        models=("books",))  # fmt: skip
        dsl = str(res.dsl)
        assert not ("loans." in dsl and "sum" in dsl), dsl
    finally:
        leg.close()
        next(gen, None)
