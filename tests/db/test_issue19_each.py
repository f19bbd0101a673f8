"""Issue #19: "for each X" names a column whose name is a plural ("for each language" of a
column languages) and a column after the model's own noun ("for each song owner" of songs:
the owner); "for each song" alone still asks per row. On a songs schema of its own, checked
against hand-written SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

SONGS = [
    (1, "Blue Road", "english", "Northsound", 7.5),
    (2, "Rio Claro", "spanish", "Northsound", 8.0),
    (3, "Night Bus", "english", "Cityrec", 6.0),
    (4, "Luz", "spanish", "Cityrec", 9.0),
    (5, "Harbour", "english", "Cityrec", 5.5),
]


@pytest.fixture
def songs(tmp_path: Path) -> Iterator[tuple[DBLeg, Path]]:
    path = tmp_path / "songs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE song (song_id INTEGER PRIMARY KEY, title TEXT, languages TEXT, "
            "owner TEXT, rating REAL)"
        )
        conn.executemany("INSERT INTO song VALUES (?,?,?,?,?)", SONGS)
    conn.close()
    text = {"type": "string", "searchable": True}
    columns: dict[str, Any] = {
        "song_id": {"type": "integer"},
        "title": text,
        "languages": text,
        "owner": text,
        "rating": {"type": "number", "description": "rating"},
    }
    leg = DBLeg(f"sqlite:///{path}", {"song": {"primary_key": "song_id", "columns": columns}})
    yield leg, path
    leg.close()


async def ask(leg: DBLeg, q: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    res = await leg.search(SearchRequest(type="db", query=q, models=("song",), limit=100))
    assert res.dsl is not None
    return res.dsl, sorted(tuple((i.data or {}).values()) for i in res.items)


def sql(path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(query).fetchall())


@pytest.mark.parametrize(
    ("question", "column", "aggregate"),
    [
        ("What is the average rating of songs for each language?", "languages", "avg(rating)"),
        ("How many songs are there for each language?", "languages", "count(*)"),
        ("What is the total rating for each song owner?", "owner", "sum(rating)"),
        ("the number of songs per song owner", "owner", "count(*)"),
    ],
)
async def test_each_names_a_plural_column_and_a_column_after_the_models_noun(
    songs: tuple[DBLeg, Path], question: str, column: str, aggregate: str
) -> None:
    leg, path = songs
    dsl, rows = await ask(leg, question)
    assert dsl["groups"] == [column], dsl
    assert rows == sql(path, f"SELECT {column}, {aggregate} FROM song GROUP BY {column}")


async def test_each_with_the_models_noun_alone_asks_per_row(songs: tuple[DBLeg, Path]) -> None:
    leg, _ = songs
    dsl, _rows = await ask(leg, "What is the rating for each song?")
    assert "groups" not in dsl, dsl
