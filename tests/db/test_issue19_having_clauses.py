"""Issue #19: a count condition on groups named in a relative clause with its own verb ("the
operators shared by more than two ferries", "the home port that at least 2 ferries use"),
a singular group noun ending in -y ("which company has two or more ferries"), a number
column that names groups ("the years in which more than one ferry was built") and a group
noun with no condition after it passed over for the next one. On a ferries schema of its own,
every answer checked against hand-written SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

FERRIES = [
    (1, "Nordlys", "Hurtig", "Bergen", "Fjordco", 1990, 7, 11000.0),
    (2, "Polarlys", "Hurtig", "Bergen", "Fjordco", 1990, 7, 12000.0),
    (3, "Vesteraalen", "Hurtig", "Tromso", "Fjordco", 1995, 9, 6000.0),
    (4, "Stavangerfjord", "Fjordline", "Bergen", "Westco", 2013, 7, 25000.0),
    (5, "Bergensfjord", "Fjordline", "Stavanger", "Westco", 2014, 3, 25000.0),
    (6, "Color Magic", "Colorline", "Oslo", "Eastco", 2007, 9, 75000.0),
]


@pytest.fixture
def ferries(tmp_path: Path) -> Iterator[tuple[DBLeg, Path]]:
    path = tmp_path / "ferries.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE ferries (ferry_id INTEGER PRIMARY KEY, name TEXT, operator TEXT, "
            "home_port TEXT, company TEXT, built_year INTEGER, captain INTEGER, tonnage REAL)"
        )
        conn.executemany("INSERT INTO ferries VALUES (?,?,?,?,?,?,?,?)", FERRIES)
    conn.close()
    columns: dict[str, Any] = {
        "ferry_id": {"type": "integer"},
        "name": {"type": "string", "searchable": True},
        "operator": {"type": "string", "searchable": True},
        "home_port": {"type": "string", "searchable": True},
        "company": {"type": "string", "searchable": True},
        "built_year": {"type": "integer", "description": "year built"},
        "captain": {"type": "integer", "description": "captain", "aliases": ["船长"]},
        "tonnage": {"type": "number", "description": "gross tonnage"},
    }
    models = {"ferries": {"primary_key": "ferry_id", "aliases": ["ferry", "渡轮"],
                          "columns": columns}}  # fmt: skip
    leg = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield leg, path
    leg.close()


def sql(path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(query).fetchall())


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("ferries",), limit=100))
    assert res.dsl is not None
    return res.dsl, sorted(tuple((i.data or {}).values()) for i in res.items)


@pytest.mark.parametrize(
    ("question", "column", "op", "n"),
    [
        ("List the operators shared by more than two ferries.", "operator", ">", 2),
        ("Which operators are used by at least 2 ferries?", "operator", ">=", 2),
        ("the home ports that are shared by at least two ferries", "home_port", ">=", 2),
        ("Find the home port that at least 2 ferries use.", "home_port", ">=", 2),
        ("the operators that run more than one ferry", "operator", ">", 1),
        ("Which operators had more than 2 ferries?", "operator", ">", 2),
    ],
)
async def test_a_relative_clause_with_its_own_verb_holds_a_count_condition(
    ferries: tuple[DBLeg, Path], question: str, column: str, op: str, n: int
) -> None:
    leg, path = ferries
    dsl, rows = await ask(leg, question)
    assert dsl["groups"] == [column], dsl
    assert dsl["havings"] == [{"field": "count", "op": op, "value": n}], dsl
    want = sql(path, f"SELECT {column}, count(*) FROM ferries GROUP BY {column} "
                     f"HAVING count(*) {op} {n}")  # fmt: skip
    assert rows == want


async def test_a_singular_group_noun_in_y_names_the_groups(ferries: tuple[DBLeg, Path]) -> None:
    leg, path = ferries
    for q in ("Which company has two or more ferries?", "the companies with at least 2 ferries"):
        dsl, rows = await ask(leg, q)
        assert dsl["groups"] == ["company"], (q, dsl)
        assert rows == sql(path, "SELECT company, count(*) FROM ferries GROUP BY company "
                                 "HAVING count(*) >= 2")  # fmt: skip


async def test_a_number_column_that_is_no_measure_names_groups(
    ferries: tuple[DBLeg, Path],
) -> None:
    leg, path = ferries
    dsl, rows = await ask(leg, "List the captains who have more than two ferries.")
    assert dsl["groups"] == ["captain"], dsl
    assert rows == sql(path, "SELECT captain, count(*) FROM ferries GROUP BY captain "
                             "HAVING count(*) > 2")  # fmt: skip
    dsl, rows = await ask(leg, "the built years in which there are more than one ferry")
    assert dsl["groups"] == ["built_year"], dsl
    assert rows == sql(path, "SELECT built_year, count(*) FROM ferries GROUP BY built_year "
                             "HAVING count(*) > 1")  # fmt: skip


async def test_the_group_noun_without_a_condition_after_it_is_passed_over(
    ferries: tuple[DBLeg, Path],
) -> None:
    leg, path = ferries
    # "operator that is Hurtig" comes first (a column, then "that") with no count after it.
    q = "which companies have two or more ferries with an operator that is Hurtig"
    dsl, rows = await ask(leg, q)
    assert dsl["groups"] == ["company"], dsl
    assert dsl["havings"] == [{"field": "count", "op": ">=", "value": 2}]
    assert rows == sql(path, "SELECT company, count(*) FROM ferries WHERE operator = 'Hurtig' "
                             "GROUP BY company HAVING count(*) >= 2")  # fmt: skip


@pytest.mark.parametrize(
    "question",
    [
        # A key never groups; a count of something that names no row is no count
        # condition, nor is a comparison of a number column.
        "the ferries with a tonnage that is more than 20000",
        "the operators that are more than 2 miles away",
        "the ferry ids shared by more than two ferries",
    ],
)
async def test_no_count_condition_without_a_group_noun_and_a_row_noun(
    ferries: tuple[DBLeg, Path], question: str
) -> None:
    leg, _ = ferries
    dsl, _rows = await ask(leg, question)
    assert "havings" not in dsl, (question, dsl)


async def test_a_number_column_groups_in_chinese(ferries: tuple[DBLeg, Path]) -> None:
    leg, path = ferries
    dsl, rows = await ask(leg, "哪些船长有超过2个渡轮")
    assert dsl["groups"] == ["captain"], dsl
    assert rows == sql(path, "SELECT captain, count(*) FROM ferries GROUP BY captain "
                             "HAVING count(*) > 2")  # fmt: skip


async def test_a_related_models_noun_is_no_group_of_its_title(tmp_path: Path) -> None:
    from .conftest import library_leg

    leg, _ = library_leg(tmp_path, tenant=False)
    try:
        res = await leg.search(SearchRequest(
            type="db", query="how many authors have at least one book in the fantasy genre",
            models=("books",), limit=100))  # fmt: skip
    finally:
        leg.close()
    # "authors" names the related model (its name column stands for it in a row answer):
    # grouping books by an author's name would count per name, not per author.
    assert res.dsl is not None and "havings" not in res.dsl, res.dsl
