"""Issue #19: "the restaurant with the highest average rating" is the record whose related
rows have the top average (one group per record, ordered by the aggregate, first row), not
the largest rating of any row beside the average of all of them. A schema of its own
(restaurants, reviews; relations learned from the foreign key), answers checked against
hand-computed values."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

_DDL = (
    "CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT, city TEXT)",
    "CREATE TABLE reviews (id INTEGER PRIMARY KEY, rating INTEGER, "
    "restaurant_id INTEGER REFERENCES restaurants(id))",
)
# Alpha: 5, 1, 5 (average 3.67, total 11); Beta: 4, 4 (4, 8); Gamma: 2 (2, 2).
_ROWS = (
    "INSERT INTO restaurants VALUES (1, 'Alpha', 'Oslo'), (2, 'Beta', 'Rome'), "
    "(3, 'Gamma', 'Lima')",
    "INSERT INTO reviews VALUES (1, 5, 1), (2, 1, 1), (3, 5, 1), (4, 4, 2), (5, 4, 2), (6, 2, 3)",
)
_MODELS: dict[str, Any] = {
    "restaurants": {"columns": {"id": {}, "name": {"searchable": True},
                                "city": {"searchable": True}}},
    "reviews": {"columns": {"id": {}, "rating": {}, "restaurant_id": {}}},
}  # fmt: skip


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path: Path = tmp_path_factory.mktemp("ranked") / "food.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        for sql in (*_DDL, *_ROWS):
            conn.execute(sa.text(sql))
    engine.dispose()
    yield f"sqlite:///{path}"


async def _ask(url: str, question: str) -> Any:
    leg = DBLeg(url, _MODELS)
    try:
        req = SearchRequest(type="db", query=question, limit=100, models=("restaurants",))
        return await leg.search(req)
    finally:
        leg.close()


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("the restaurant with the highest average rating", "Beta"),
        ("Which restaurant has the lowest average rating?", "Gamma"),
        ("the name and city of the restaurant whose reviews have the highest total rating",
         "Alpha"),
    ],
)  # fmt: skip
async def test_the_record_whose_related_rows_rank_first(url: str, question: str,
                                                        name: str) -> None:  # fmt: skip
    res = await _ask(url, question)
    assert [i.data["name"] for i in res.items] == [name], (question, res.dsl)
    assert res.dsl["groups"], res.dsl  # one group per restaurant


async def test_a_superlative_without_an_average_is_not_ranked_per_record(url: str) -> None:
    res = await _ask(url, "the highest rating of the restaurants")
    assert not res.dsl.get("groups"), res.dsl
