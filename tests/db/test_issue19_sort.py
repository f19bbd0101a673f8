"""Issue #19: explicit ordering phrases become ``orders`` ("sorted by", "in descending order
of", "from highest to lowest", "in alphabetical order"); a direction with no column to sort
is reported, not guessed."""

from __future__ import annotations

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

from ._schema19 import query


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, object], list[int], tuple[str, ...]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("athletes",), limit=100))
    assert res.dsl is not None
    return res.dsl, [int(i.record_id or 0) for i in res.items], res.notes


@pytest.mark.parametrize(
    ("question", "orders", "sql_order"),
    [
        ("athletes sorted by age", [{"field": "age"}], "age"),
        ("list the athletes ordered by height, descending",
         [{"field": "height", "sort": "desc"}], "height DESC"),
        ("athletes in descending order of medals", [{"field": "medals", "sort": "desc"}],
         "medals DESC"),
        ("names of the athletes in ascending order of their age", [{"field": "age"}], "age"),
        ("athletes from highest to lowest total points", [{"field": "pts", "sort": "desc"}],
         "pts DESC"),
        ("list the names of athletes in alphabetical order", [{"field": "name"}], "name"),
        ("the countries of the athletes in reverse alphabetical order",
         [{"field": "country", "sort": "desc"}], "country DESC"),
        ("athletes sorted by sport", [{"field": "sport"}], "sport"),
        ("athletes sorted by their age in the descending order",
         [{"field": "age", "sort": "desc"}], "age DESC"),
        ("athletes in ascending order of club", [{"field": "club_id"}], "club_id"),
        ("list the name of athletes in descending order by height",
         [{"field": "height", "sort": "desc"}], "height DESC"),
        # The top of the order named alone: "from highest", "lowest first".
        ("athletes sorted by height from highest", [{"field": "height", "sort": "desc"}],
         "height DESC"),
        ("athletes sorted by height, highest first", [{"field": "height", "sort": "desc"}],
         "height DESC"),
        ("athletes sorted by medals from the lowest", [{"field": "medals"}], "medals"),
        ("athletes ordered by age, smallest first", [{"field": "age"}], "age"),
    ],
)  # fmt: skip
async def test_ordering_phrases_sort_by_the_named_column(
    sports: tuple[DBLeg, str], question: str, orders: list[dict[str, str]], sql_order: str
) -> None:
    leg, url = sports
    dsl, got, notes = await ask(leg, question)
    assert dsl.get("orders") == orders and "wheres" not in dsl, dsl
    want = [r[0] for r in query(url, f"SELECT athlete_id FROM athletes ORDER BY {sql_order}, "
                                     "athlete_id")]  # fmt: skip
    assert got == want and notes == ()


async def test_a_direction_with_no_column_is_named_in_a_note(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    dsl, got, notes = await ask(leg, "athletes in ascending order")
    assert "orders" not in dsl and len(got) == 10
    assert any("ascending" in n and n.startswith("not understood") for n in notes), notes


async def test_sort_words_inside_other_words_sort_nothing(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    # "desc" in "descent", "order" with no direction, and "by" with no sort verb.
    for q in ("athletes of brazilian descent", "athletes by country", "athletes in order"):
        dsl, _got, _notes = await ask(leg, q)
        assert "orders" not in dsl, (q, dsl)
