"""Issue #19: "the restaurant with the highest average rating" is the record whose related
rows have the top average (one group per record, ordered by the aggregate, first row), not
the largest rating of any row beside the average of all of them. A schema of its own
(restaurants, reviews; relations learned from the foreign key), answers checked against
hand-computed values."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ask_model, sqlite_file

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
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return sqlite_file(tmp_path_factory.mktemp("ranked") / "food.sqlite", (*_DDL, *_ROWS))


async def _ask(url: str, question: str) -> Any:
    return await ask_model(url, _MODELS, "restaurants", question)


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
