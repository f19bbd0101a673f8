"""Issue #19, nested single-table questions: a number column compared with its own average
("cabins whose price is higher than the average price", "guests younger than average",
"价格高于平均价格的小屋") is ``column > avg(column)``; a restricted average ("than the average
price of cabins in Tromsø") is not read: the answer stays partial with a note. On a cabins
schema of its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, SearchResult

#: Prices average 150; capacities average 4.
CABINS = [(1, "Birch", "Tromsø", 100, 2), (2, "Fjell", "Bergen", 120, 4),
          (3, "Lys", "Tromsø", 180, 6), (4, "Moen", "Oslo", 200, 4)]  # fmt: skip


@pytest.fixture
def leg(tmp_path: Path) -> Iterator[DBLeg]:
    path = tmp_path / "cabins.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE cabin (cabin_id INTEGER PRIMARY KEY, name TEXT, town TEXT, "
                     "price INTEGER, capacity INTEGER)")  # fmt: skip
        conn.executemany("INSERT INTO cabin VALUES (?,?,?,?,?)", CABINS)
    conn.close()
    models = {
        "cabin": {
            "description": "holiday cabin",
            "aliases": ["小屋"],
            "primary_key": "cabin_id",
            "columns": {
                "cabin_id": {"type": "integer"},
                "name": {"type": "string", "searchable": True},
                "town": {"type": "string", "searchable": True},
                "price": {"type": "integer", "aliases": ["价格"]},
                "capacity": {"type": "integer"},
            },
        },
    }
    db = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield db
    db.close()


async def ask(leg: DBLeg, q: str) -> SearchResult:
    return await leg.search(SearchRequest(type="db", query=q, models=("cabin",), limit=100))


def names(res: SearchResult) -> list[str]:
    return sorted(i.data["name"] for i in res.items)  # type: ignore[index]


@pytest.mark.parametrize("q", [
    "Which cabins have a price higher than the average price?",
    "Names of cabins whose price is above average.",
    "List the cabins with price greater than the average.",
])  # fmt: skip
async def test_above_the_average_of_its_own_column(leg: DBLeg, q: str) -> None:
    res = await ask(leg, q)
    assert names(res) == ["Lys", "Moen"], (res.dsl, res.notes)
    assert (res.dsl or {})["wheres"][0]["value"] == {"agg": "avg", "field": "price"}


async def test_below_the_average_and_the_column_after_it(leg: DBLeg) -> None:
    res = await ask(leg, "Which cabins are cheaper, with capacity less than the average capacity?")
    assert names(res) == ["Birch"], (res.dsl, res.notes)


async def test_chinese(leg: DBLeg) -> None:
    res = await ask(leg, "价格高于平均价格的小屋")
    assert names(res) == ["Lys", "Moen"], (res.dsl, res.notes)


async def test_a_restricted_average_is_not_guessed(leg: DBLeg) -> None:
    q = "Which cabins have a price higher than the average price of cabins in Tromsø?"
    res = await ask(leg, q)
    assert res.status.value == "partial", (res.dsl, res.notes)
    assert not any(isinstance(w.get("value"), dict) for w in (res.dsl or {}).get("wheres") or ())
    assert any("not understood" in n and "average" in n for n in res.notes), res.notes


async def test_an_aggregate_before_the_column_is_no_row_condition(leg: DBLeg) -> None:
    res = await ask(leg, "Towns with average price greater than the overall average?")
    assert not any(isinstance(w.get("value"), dict) for w in (res.dsl or {}).get("wheres") or ())
    assert res.status.value == "partial", (res.dsl, res.notes)
