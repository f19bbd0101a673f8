"""Issue #19: a stored value named after a negation a few words before it ("stations that
are not owned by Northrail", 'stations whose city is not "Leeds"', "all cities other than
York", "stations located outside Leeds") is a ``!=`` condition on the model's own column;
"in Leeds but not York" (two values of one column contrasted) and a related model's value
are not read so. On a stations schema of its own, checked against hand-written SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

STATIONS = [
    (1, "Central", "Leeds", "Northrail", 12.5, 1),
    (2, "Riverside", "Leeds", "Citylink", 3.1, 1),
    (3, "Minster", "York", "Northrail", 7.4, 2),
    (4, "Harbour", "Hull", "Citylink", 2.2, 2),
    (5, "Castle Gate", "York", "Westway", 1.9, 3),
]
LINES = [(1, "Pennine"), (2, "Coastal"), (3, "Vale")]


@pytest.fixture
def stations(tmp_path: Path) -> Iterator[tuple[DBLeg, Path]]:
    path = tmp_path / "stations.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE line (line_id INTEGER PRIMARY KEY, line_name TEXT)")
        conn.execute(
            "CREATE TABLE station (station_id INTEGER PRIMARY KEY, name TEXT, city TEXT, "
            "owner TEXT, passengers REAL, line_id INTEGER REFERENCES line (line_id))"
        )
        conn.executemany("INSERT INTO line VALUES (?,?)", LINES)
        conn.executemany("INSERT INTO station VALUES (?,?,?,?,?,?)", STATIONS)
    conn.close()
    text = {"type": "string", "searchable": True}
    columns: dict[str, Any] = {
        "station_id": {"type": "integer"},
        "name": text,
        "city": text,
        "owner": text,
        "passengers": {"type": "number", "description": "passengers in millions"},
        "line_id": {"type": "integer"},
    }
    models = {
        "station": {"primary_key": "station_id", "columns": columns},
        "line": {"primary_key": "line_id",
                 "columns": {"line_id": {"type": "integer"}, "line_name": text}},
    }  # fmt: skip
    leg = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield leg, path
    leg.close()


def sql(path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(query).fetchall())


async def ask(
    leg: DBLeg, q: str, models: tuple[str, ...] = ("station",)
) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=models, limit=100))
    assert res.dsl is not None
    return res.dsl, sorted(tuple((i.data or {}).values()) for i in res.items)


@pytest.mark.parametrize(
    ("question", "column", "value"),
    [
        ("Find the names of stations that are not owned by Northrail.", "owner", "Northrail"),
        ('What are the stations whose city is not "Leeds"?', "city", "Leeds"),
        ("Which stations are not located in 'York'?", "city", "York"),
        ("List the stations that do not have Citylink as their owner.", "owner", "Citylink"),
        ("Show all stations except for Castle Gate.", "name", "Castle Gate"),
        ("the stations other than Minster", "name", "Minster"),
        ("the stations located outside Leeds", "city", "Leeds"),
    ],
)
async def test_a_value_after_a_negation_is_excluded(
    stations: tuple[DBLeg, Path], question: str, column: str, value: str
) -> None:
    leg, path = stations
    dsl, rows = await ask(leg, question)
    assert {"field": column, "op": "!=", "value": value} in dsl["wheres"], dsl
    want = sql(path, f"SELECT * FROM station WHERE {column} != '{value}'")
    assert rows == want


async def test_a_count_of_rows_without_a_value(stations: tuple[DBLeg, Path]) -> None:
    leg, _ = stations
    dsl, rows = await ask(leg, "How many stations are not in Leeds?")
    assert dsl["wheres"] == [{"field": "city", "op": "!=", "value": "Leeds"}], dsl
    assert rows == [(3,)]


async def test_two_values_of_one_column_contrasted_are_no_condition_each(
    stations: tuple[DBLeg, Path],
) -> None:
    leg, _ = stations
    # "in Leeds but not York": what the rows share (a set difference), not one row's city
    dsl, _rows = await ask(leg, "the owners of stations in Leeds but not York")
    assert all(w.get("op") != "!=" for w in dsl.get("wheres", [])), dsl


async def test_a_negation_before_a_new_clause_does_not_reach_the_value(
    stations: tuple[DBLeg, Path],
) -> None:
    leg, _ = stations
    dsl, _rows = await ask(leg, "stations that are not busy and that Northrail owns")
    assert {"field": "owner", "op": "!=", "value": "Northrail"} not in dsl.get("wheres", []), dsl


async def test_a_related_models_value_is_not_negated_row_by_row(
    stations: tuple[DBLeg, Path],
) -> None:
    leg, _ = stations
    dsl, _rows = await ask(leg, "stations that are not on the line Pennine")
    flat = [w for w in dsl.get("wheres", []) for w in (w, *w.get("wheres", []))]
    assert not any(w.get("op") == "!=" and "." in w.get("field", "") for w in flat), dsl
