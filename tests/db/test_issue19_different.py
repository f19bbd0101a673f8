"""Issue #19: "different" beside an aggregate. "the average yield of orchards in different
regions" is per region (a group); "how many different kinds of soil", "the number of
different orchard varieties" count distinct values of a text column, the kind word and the
model's own noun standing before the column's word; "and corresponding number of" lists a
count per value. A superlative over rows left with groups ("the average and oldest planting
year for each region") is said, not a silent limit on the groups. On an orchards schema of
its own, every answer checked against hand-written SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import Overall, SearchRequest

ORCHARDS = [
    (1, "Hillside", "North", "Gala", "clay", 1990, 120, 30.5),
    (2, "Riverbend", "North", "Fuji", "loam", 2001, 200, 41.0),
    (3, "Sunvale", "South", "Gala", "sand", 1985, 90, 22.0),
    (4, "Oakridge", "South", "Braeburn", "clay", 2010, 150, 35.5),
    (5, "Meadow", "East", "Fuji", "loam", 1999, 60, 12.0),
]


@pytest.fixture
def orchards(tmp_path: Path) -> Iterator[tuple[DBLeg, Path]]:
    path = tmp_path / "orchards.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE orchard (orchard_id INTEGER PRIMARY KEY, name TEXT, region TEXT, "
            "variety TEXT, soil TEXT, planted_year INTEGER, trees INTEGER, yield_tons REAL)"
        )
        conn.executemany("INSERT INTO orchard VALUES (?,?,?,?,?,?,?,?)", ORCHARDS)
    conn.close()
    columns: dict[str, Any] = {
        "orchard_id": {"type": "integer"},
        "name": {"type": "string", "searchable": True},
        "region": {"type": "string", "searchable": True},
        "variety": {"type": "string", "searchable": True},
        "soil": {"type": "string", "searchable": True},
        "planted_year": {"type": "integer", "description": "year planted"},
        "trees": {"type": "integer", "description": "number of trees"},
        "yield_tons": {"type": "number", "description": "yield in tons"},
    }
    models = {"orchard": {"primary_key": "orchard_id", "columns": columns}}
    leg = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield leg, path
    leg.close()


def sql(path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(query).fetchall())


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, Any], list[tuple[Any, ...]], Overall]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("orchard",), limit=100))
    assert res.dsl is not None
    return res.dsl, sorted(tuple((i.data or {}).values()) for i in res.items), res.status


@pytest.mark.parametrize(
    ("question", "aggregate", "sql_aggregate"),
    [
        ("the average yield of orchards in different regions", "avg", "avg(yield_tons)"),
        ("Find the number of orchards in different regions.", "count", "count(*)"),
        ("the total trees of orchards by different region", "sum", "sum(trees)"),
        ("the maximum yield for each different region", "max", "max(yield_tons)"),
    ],
)
async def test_different_after_a_preposition_groups_the_aggregate(
    orchards: tuple[DBLeg, Path], question: str, aggregate: str, sql_aggregate: str
) -> None:
    leg, path = orchards
    dsl, rows, _ = await ask(leg, question)
    assert dsl["groups"] == ["region"], dsl
    assert [a["fn"] for a in dsl["aggregates"]] == [aggregate], dsl
    want = sql(path, f"SELECT region, {sql_aggregate} FROM orchard GROUP BY region")
    assert rows == want


async def test_the_number_of_different_values_is_no_group(orchards: tuple[DBLeg, Path]) -> None:
    leg, _ = orchards
    # "of different": a count of distinct values, never a group of another column
    dsl, _rows, _ = await ask(leg, "the number of different varieties and regions")
    assert "groups" not in dsl, dsl


@pytest.mark.parametrize(
    ("question", "column"),
    [
        ("How many different kinds of soil are there?", "soil"),
        ("what is the number of different orchard varieties?", "variety"),
        ("How many distinct types of soil do the orchards have?", "soil"),
        ("How many different regions are there?", "region"),
    ],
)
async def test_a_kind_word_or_the_models_noun_before_a_text_column_counts_its_values(
    orchards: tuple[DBLeg, Path], question: str, column: str
) -> None:
    leg, path = orchards
    dsl, rows, _ = await ask(leg, question)
    assert dsl["aggregates"] == [{"fn": "count", "field": column, "distinct": True}], dsl
    assert rows == sql(path, f"SELECT count(DISTINCT {column}) FROM orchard")


async def test_a_kind_word_before_a_number_column_counts_no_distinct_values(
    orchards: tuple[DBLeg, Path],
) -> None:
    leg, _ = orchards
    # "kinds of trees": trees is a number of trees, not a kind; nothing is made up
    dsl, _rows, _ = await ask(leg, "How many different kinds of trees are there?")
    assert all(not a.get("distinct") for a in dsl.get("aggregates", [])), dsl


async def test_corresponding_number_without_an_article_groups(
    orchards: tuple[DBLeg, Path],
) -> None:
    leg, path = orchards
    dsl, rows, status = await ask(leg, "Show all regions and corresponding number of orchards.")
    assert dsl["groups"] == ["region"] and dsl["aggregates"] == [{"fn": "count"}], dsl
    assert rows == sql(path, "SELECT region, count(*) FROM orchard GROUP BY region")
    assert status is Overall.OK


async def test_a_row_superlative_left_with_groups_is_said(orchards: tuple[DBLeg, Path]) -> None:
    leg, _ = orchards
    q = "the average yield of the orchard with the most trees in different regions"
    res = await leg.search(SearchRequest(type="db", query=q, models=("orchard",), limit=100))
    # The superlative sorts orchards; the answer has regions: its limit keeps the
    # database's pick of them, which is said.
    assert res.dsl is not None and res.dsl["groups"] == ["region"]
    assert res.dsl.get("limit") == 1 and not res.dsl.get("orders")
    assert res.status is Overall.PARTIAL
    assert any("order by trees" in n and "database's pick" in n for n in res.notes), res.notes
