"""Issue #19, precision: the silent-wrong classes — an aggregate that ignores a column the
question names, an "or" between conditions read as AND, ties in a superlative, superlative
adjectives and "X count" phrases — each answered right, or said. The athletes schema is
written for the tests (tests/db/_schema19.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, SearchResult

from ._schema19 import athletes_db, query


async def ask(leg: DBLeg, q: str) -> SearchResult:
    return await leg.search(SearchRequest(type="db", query=q, models=("athletes",), limit=100))


def rows(res: SearchResult) -> list[tuple[Any, ...]]:
    return [tuple((i.data or {}).values()) for i in res.items]


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("how many countries are there", "countries"),
        ("average age and height of athletes", "height"),
        ("show all sports and the total medals", "sports"),
    ],
)
async def test_an_aggregate_that_ignores_a_named_column_is_partial(
    sports: tuple[DBLeg, str], question: str, word: str
) -> None:
    leg, _ = sports
    res = await ask(leg, question)
    assert res.status.value == "partial", res.dsl
    assert any(n.startswith(f"not understood: {word} (names ") for n in res.notes), res.notes
    assert res.understood is not None and res.understood[word].startswith("not used")


@pytest.mark.parametrize(
    "question",
    [
        "how many athletes are there",  # the model's own word: a count of rows uses it
        "how many athletes per country",
        "show all sports and the number of athletes",
        "average age of athletes from Kenya",
    ],
)
async def test_an_aggregate_using_every_named_column_is_ok(
    sports: tuple[DBLeg, str], question: str
) -> None:
    leg, _ = sports
    res = await ask(leg, question)
    assert res.status.value == "ok", res.notes
    assert res.confidence == 1.0 and res.understood


async def test_or_between_two_conditions_is_named_not_read_as_and(
    sports: tuple[DBLeg, str],
) -> None:
    leg, _ = sports
    res = await ask(leg, "athletes from Kenya or older than 30")
    assert res.status.value == "partial"
    assert any("not understood: or (the 2 conditions are all required" in n for n in res.notes)
    # "or" inside a list of values is read: country in (...)
    res = await ask(leg, "athletes from Kenya or Canada")
    assert res.status.value == "ok" and res.dsl is not None
    assert res.dsl["wheres"] == [{"field": "country", "op": "in", "value": ["Canada", "Kenya"]}]


async def test_a_tie_at_the_top_is_said(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    res = await ask(leg, "which country has the most athletes")
    top = query(url, "SELECT country, count(*) AS n FROM athletes GROUP BY country "
                     "HAVING n = (SELECT max(c) FROM (SELECT count(*) AS c FROM athletes "
                     "GROUP BY country))")  # fmt: skip
    assert len(top) == 2  # Canada and Kenya, 3 each
    assert len(res.items) == 1 and rows(res)[0] in top
    assert any(n.startswith("tie: 1 row(s) not shown have the same count = 3") for n in res.notes)
    # no tie, no note: one athlete has the most medals
    res = await ask(leg, "the athlete with the most medals")
    assert rows(res)[0][1] == "Jon Berg" and not any("tie" in n for n in res.notes)


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        ("the tallest athlete", "SELECT name FROM athletes ORDER BY height DESC LIMIT 1"),
        ("the youngest athlete", "SELECT name FROM athletes ORDER BY age LIMIT 1"),
        ("the 2 oldest athletes", "SELECT name FROM athletes ORDER BY age DESC LIMIT 2"),
        ("the name of athlete who has the lowest age",
         "SELECT name FROM athletes ORDER BY age LIMIT 1"),
    ],
)  # fmt: skip
async def test_superlative_adjectives_name_their_measure(
    sports: tuple[DBLeg, str], question: str, sql: str
) -> None:
    leg, url = sports
    res = await ask(leg, question)
    assert res.status.value == "ok"
    assert [(i.data or {})["name"] for i in res.items] == [r[0] for r in query(url, sql)]


async def test_a_measure_adjective_without_its_column_is_not_guessed(
    sports: tuple[DBLeg, str],
) -> None:
    leg, _ = sports
    res = await ask(leg, "the fastest athlete")  # no speed column
    assert res.dsl is not None and not res.dsl.get("orders")
    assert res.status.value == "partial"


async def test_a_column_word_and_a_measure_noun_name_the_column(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    res = await ask(leg, "the maximum medal count")  # max(medals), not a count of rows
    assert res.status.value == "ok", res.notes
    assert rows(res) == query(url, "SELECT max(medals) FROM athletes")
    res = await ask(leg, "total medal count per country")
    assert res.status.value == "ok", res.notes
    want = query(url, "SELECT country, sum(medals) FROM athletes GROUP BY country")
    assert sorted(rows(res)) == sorted(want)


async def test_strict_refuses_what_would_be_partial(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    req = SearchRequest(type="db", query="how many countries are there", models=("athletes",),
                        strict=True)  # fmt: skip
    res = await leg.search(req)
    assert res.status.value == "unavailable" and not res.items
    assert any("could not use 'countries'" in (r.error or "") for r in res.reports)


async def test_a_named_model_whose_rows_are_not_in_the_answer_is_said(tmp_path: Path) -> None:
    url, models = athletes_db(tmp_path)
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        conn.execute("CREATE TABLE clubs (club_id INTEGER PRIMARY KEY, title TEXT)")
        conn.executemany("INSERT INTO clubs VALUES (?, ?)", [(1, "Lions"), (2, "Hawks")])
    models["clubs"] = {"description": "clubs", "primary_key": "club_id",
                       "columns": {"club_id": {}, "title": {"searchable": True}}}  # fmt: skip
    leg = DBLeg(url, models)
    try:
        res = await ask(leg, "athletes from Kenya and their clubs")
        assert [(i.data or {})["country"] for i in res.items] == ["Kenya"] * 3
        assert "the question also names clubs: no rows of it are in this answer" in res.notes
        res = await ask(leg, "athletes from Kenya")
        assert not any("also names" in n for n in res.notes)
    finally:
        leg.close()
