"""Issue #19: "the most recently opened track", "the newest tracks", "the oldest track" on a
model with a year number and no date column sort by that year (they were left unread:
partial, every row); a column whose name says it holds dates (stored as text) keeps them
off the year; "from the most recent to the oldest" is a direction, not a superlative. On a
tracks schema of its own, checked against hand-written SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

TRACKS = [
    (1, "Ridgeway", "Leeds", 1998, 5000),
    (2, "Lakeside", "York", 2011, 12000),
    (3, "Northgate", "Hull", 1975, 800),
    (4, "Eastfield", "Leeds", 2004, 3000),
]


def _leg(tmp_path: Path, dated: bool) -> tuple[DBLeg, Path]:
    path = tmp_path / "tracks.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE track (track_id INTEGER PRIMARY KEY, name TEXT, city TEXT, "
            "year_opened INTEGER, seating INTEGER, race_date TEXT)"
        )
        conn.executemany(
            "INSERT INTO track VALUES (?,?,?,?,?,?)",
            [(*t, f"20{10 + t[0]}-05-0{t[0]}") for t in TRACKS],
        )
    conn.close()
    columns: dict[str, Any] = {
        "track_id": {"type": "integer"},
        "name": {"type": "string", "searchable": True},
        "city": {"type": "string", "searchable": True},
        "year_opened": {"type": "integer", "description": "year opened", "aliases": ["开放年份"]},
        "seating": {"type": "integer", "description": "seating"},
    }
    if dated:
        columns["race_date"] = {"type": "string", "description": "race date"}
    models = {"track": {"primary_key": "track_id", "aliases": ["赛道"], "columns": columns}}
    return DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0), path


@pytest.fixture
def tracks(tmp_path: Path) -> Iterator[tuple[DBLeg, Path]]:
    leg, path = _leg(tmp_path, dated=False)
    yield leg, path
    leg.close()


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("track",), limit=100))
    assert res.dsl is not None
    return res.dsl, [tuple((i.data or {}).values()) for i in res.items]


@pytest.mark.parametrize(
    ("question", "sort", "name"),
    [
        ("What is the name of the most recently opened track?", "desc", "Lakeside"),
        ("Return the track that was opened in the most recent year.", "desc", "Lakeside"),
        ("Which is the oldest track?", "asc", "Northgate"),
        ("最新的赛道", "desc", "Lakeside"),
    ],
)
async def test_a_date_superlative_sorts_the_year_when_there_is_no_date(
    tracks: tuple[DBLeg, Path], question: str, sort: str, name: str
) -> None:
    leg, _ = tracks
    dsl, rows = await ask(leg, question)
    order = {"field": "year_opened", "sort": "desc"} if sort == "desc" else {"field": "year_opened"}
    assert dsl["orders"] == [order] and dsl["limit"] == 1, dsl
    assert [r[1] for r in rows] == [name]


async def test_a_plural_lists_every_row_newest_first(tracks: tuple[DBLeg, Path]) -> None:
    leg, path = tracks
    dsl, rows = await ask(leg, "Show the names of the three most recent tracks.")
    assert dsl["orders"] == [{"field": "year_opened", "sort": "desc"}] and dsl["limit"] == 3
    with sqlite3.connect(path) as conn:
        want = conn.execute("SELECT name FROM track ORDER BY year_opened DESC LIMIT 3").fetchall()
    assert [(r[1],) for r in rows] == want


async def test_a_date_named_column_keeps_the_year_out(tmp_path: Path) -> None:
    leg, _ = _leg(tmp_path, dated=True)
    try:
        dsl, _rows = await ask(leg, "What is the name of the most recent track?")
    finally:
        leg.close()
    # race_date holds dates as text: "most recent" may mean it; the year is not guessed
    assert not any(o.get("field") == "year_opened" for o in dsl.get("orders", [])), dsl


async def test_from_the_most_recent_to_the_oldest_is_a_direction(
    tracks: tuple[DBLeg, Path],
) -> None:
    leg, _ = tracks
    dsl, rows = await ask(
        leg, "List the track names by year opened from the most recent to the oldest"
    )
    assert "limit" not in dsl, dsl
    assert len(rows) == len(TRACKS)
