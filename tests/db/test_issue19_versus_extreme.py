"""Issue #19, nested single-table questions: a number column compared with its own largest or
smallest value over every row ("boats whose length is less than the largest length", "crews
greater than the minimum", "长度小于最大长度的船") is ``column < max(column)`` /
``column > min(column)``; a restricted one ("than the largest length of boats in Bergen") is
not read: the answer stays partial. On a boats schema of its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, SearchResult

#: Lengths 8..15 (max 15, min 8); crews 2..6 (min 2, max 6).
BOATS = [(1, "Alke", "Bergen", 8, 2), (2, "Bris", "Oslo", 11, 4),
         (3, "Havlys", "Bergen", 12, 6), (4, "Skarv", "Tromsø", 15, 3)]  # fmt: skip


@pytest.fixture
def leg(tmp_path: Path) -> Iterator[DBLeg]:
    path = tmp_path / "boats.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE boat (boat_id INTEGER PRIMARY KEY, name TEXT, harbour TEXT, "
                     "length INTEGER, crew INTEGER)")  # fmt: skip
        conn.executemany("INSERT INTO boat VALUES (?,?,?,?,?)", BOATS)
    conn.close()
    models = {
        "boat": {
            "description": "sailing boat",
            "aliases": ["船"],
            "primary_key": "boat_id",
            "columns": {
                "boat_id": {"type": "integer"},
                "name": {"type": "string", "searchable": True},
                "harbour": {"type": "string", "searchable": True},
                "length": {"type": "integer", "aliases": ["长度"]},
                "crew": {"type": "integer", "aliases": ["船员"]},
            },
        },
    }
    db = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield db
    db.close()


async def ask(leg: DBLeg, q: str) -> SearchResult:
    return await leg.search(SearchRequest(type="db", query=q, models=("boat",), limit=100))


def names(res: SearchResult) -> list[str]:
    return sorted(i.data["name"] for i in res.items)  # type: ignore[index]


@pytest.mark.parametrize("q", [
    "Which boats have a length less than the largest length?",
    "Names of boats whose length is below the maximum length.",
    "长度小于最大长度的船",
])  # fmt: skip
async def test_below_the_largest_of_its_own_column(leg: DBLeg, q: str) -> None:
    res = await ask(leg, q)
    assert names(res) == ["Alke", "Bris", "Havlys"], (res.dsl, res.notes)
    assert (res.dsl or {})["wheres"][0]["value"] == {"agg": "max", "field": "length"}


@pytest.mark.parametrize("q", [
    "List the boats with crew greater than the smallest crew.",
    "Boats whose crew is above the minimum",
    "船员高于最低船员的船",
])  # fmt: skip
async def test_above_the_smallest_of_its_own_column(leg: DBLeg, q: str) -> None:
    res = await ask(leg, q)
    assert names(res) == ["Bris", "Havlys", "Skarv"], (res.dsl, res.notes)
    assert (res.dsl or {})["wheres"][0]["value"] == {"agg": "min", "field": "crew"}


async def test_a_restricted_largest_is_not_guessed(leg: DBLeg) -> None:
    q = "Which boats have a length less than the largest length of boats in Bergen?"
    res = await ask(leg, q)
    assert res.status.value == "partial", (res.dsl, res.notes)
    assert not any(isinstance(w.get("value"), dict) for w in (res.dsl or {}).get("wheres") or ())


async def test_the_rows_themselves_after_the_column(leg: DBLeg) -> None:
    res = await ask(leg, "Boats whose length is less than the maximum length for all boats")
    assert names(res) == ["Alke", "Bris", "Havlys"], (res.dsl, res.notes)


@pytest.mark.parametrize("q", [
    "Boats with a length less than the minimum length for boats in Bergen?",
    "Boats with a length greater than the average length for boats in Bergen?",
])  # fmt: skip
async def test_for_other_rows_is_a_restriction_not_the_question_s_condition(
    leg: DBLeg, q: str
) -> None:
    # "for boats in Bergen" narrows the aggregate; it is no condition on the boats asked for.
    res = await ask(leg, q)
    assert res.status.value == "partial", (res.dsl, res.notes)
    assert not any(isinstance(w.get("value"), dict) for w in (res.dsl or {}).get("wheres") or ())
