"""Issue #19: groups asked for without "by" — "which X has the most Y", "the N most common X",
"X and the number of Y", a count condition on plural row nouns ("at least 3 athletes")."""

from __future__ import annotations

from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

from ._schema19 import query


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("athletes",), limit=100))
    assert res.dsl is not None
    return res.dsl, [tuple((i.data or {}).values()) for i in res.items]


@pytest.mark.parametrize(
    ("question", "column", "sort", "limit"),
    [
        ("which country has the most athletes", "country", "desc", 1),
        ("what sport has the fewest athletes", "sport", "asc", 1),
        ("the 2 most common sports", "sport", "desc", 2),
        ("the country with the greatest number of athletes", "country", "desc", 1),
        ("which sport is the most common among athletes", "sport", "desc", 1),
    ],
)
async def test_the_most_of_a_group_ranks_groups_by_count(
    sports: tuple[DBLeg, str], question: str, column: str, sort: str, limit: int
) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, question)
    assert dsl["groups"] == [column] and dsl["aggregates"] == [{"fn": "count"}]
    order = {"field": "count", "sort": sort} if sort == "desc" else {"field": "count"}
    assert dsl["orders"] == [order] and dsl["limit"] == limit
    direction = "DESC" if sort == "desc" else "ASC"
    want = query(url, f"SELECT {column}, count(*) AS n FROM athletes GROUP BY {column} "
                      f"ORDER BY n {direction}, {column} LIMIT {limit}")  # fmt: skip
    assert rows == want


async def test_the_row_with_the_most_of_a_number_is_no_group(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    # The title names one row, and "medals" is a number: the athlete, not a group.
    for q in ("which athlete has the most medals", "the name with the most medals"):
        dsl, _rows = await ask(leg, q)
        assert "groups" not in dsl, (q, dsl)


@pytest.mark.parametrize(
    "question",
    ["each sport and the number of athletes", "the number of athletes for each sport",
     "show the sport and the number of athletes"],
)  # fmt: skip
async def test_a_column_beside_a_count_groups_it(sports: tuple[DBLeg, str], question: str) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, question)
    assert dsl["groups"] == ["sport"] and dsl["aggregates"] == [{"fn": "count"}]
    assert sorted(rows) == query(url, "SELECT sport, count(*) FROM athletes GROUP BY sport "
                                      "ORDER BY sport")  # fmt: skip


async def test_a_column_used_by_a_condition_does_not_group(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, "the number of athletes from kenya for each sport")
    assert dsl["groups"] == ["sport"]
    assert rows == query(url, "SELECT sport, count(*) FROM athletes WHERE country = 'Kenya' "
                              "GROUP BY sport ORDER BY sport")  # fmt: skip
    dsl, rows = await ask(leg, "how many athletes are from kenya")
    assert "groups" not in dsl and rows == [(3,)]


async def test_a_count_condition_reads_a_plural_row_noun(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, "the countries where at least 3 athletes were born")
    assert dsl["havings"] == [{"field": "count", "op": ">=", "value": 3}]
    assert dsl["groups"] == ["country"]
    assert rows == query(url, "SELECT country, count(*) FROM athletes GROUP BY country "
                              "HAVING count(*) >= 3 ORDER BY country")  # fmt: skip


async def test_a_key_named_with_its_id_groups_a_count(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, "the club ids and the number of athletes in each")
    assert dsl["groups"] == ["club_id"] and dsl["aggregates"] == [{"fn": "count"}]
    assert rows == query(url, "SELECT club_id, count(*) FROM athletes GROUP BY club_id "
                              "ORDER BY club_id")  # fmt: skip
    res = await leg.search(SearchRequest(type="db", query="the club ids and the number of "
                                         "athletes in each", models=("athletes",)))  # fmt: skip
    assert res.notes == ()


async def test_each_groups_by_the_column_named_after_it(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    dsl, rows = await ask(leg, "what are the maximum medals and height of athletes for each age")
    assert dsl["groups"] == ["age"], dsl
    assert rows == query(url, "SELECT age, max(medals) FROM athletes GROUP BY age "
                              "ORDER BY age")  # fmt: skip
    # "each" before the model's own noun asks per row: no group, and it is said.
    res = await leg.search(SearchRequest(type="db", query="the sport and the count of medals "
                                         "of each athlete", models=("athletes",)))  # fmt: skip
    assert res.dsl is not None and "groups" not in res.dsl
    assert any("each" in n for n in res.notes), res.notes
