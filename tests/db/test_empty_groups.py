"""Issue #19: the why-empty note names an OR group once — a text search over many columns is
``'x' in any of 5 columns (name, city, street, …)``, not five alternatives in one sentence —
and says an AND inside a group as AND. A schema of its own (venues, five text columns)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db._empty import describe
from unifind.db.dsl import Where
from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

VENUES = [
    # venue_id, name, city, street, district, owner, seats
    (1, "Harbour Hall", "Bergen", "Kaigaten", "Sentrum", "Nordvik AS", 800),
    (2, "Old Mill", "Leeds", "Canal Street", "Holbeck", "Mill Trust", 250),
    (3, "Lakeside Arena", "Hamar", "Strandveien", "Sjøsiden", "Hamar Kommune", 5000),
    (4, "The Loft", "Leeds", "Briggate", "City Centre", "Loft Ltd", 120),
]
TEXT = ("name", "city", "street", "district", "owner")


@pytest.fixture
def venues(tmp_path: Path) -> Iterator[tuple[DBLeg, str]]:
    path = tmp_path / "venues.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, name TEXT, city TEXT, "
                 "street TEXT, district TEXT, owner TEXT, seats INTEGER)")  # fmt: skip
    conn.executemany("INSERT INTO venues VALUES (?,?,?,?,?,?,?)", VENUES)
    conn.commit()
    conn.close()
    columns = {c: {"type": "string", "description": c, "searchable": True} for c in TEXT}
    columns["venue_id"] = {"type": "integer", "description": "venue id"}
    columns["seats"] = {"type": "integer", "description": "seats", "aliases": ["座位"]}
    models = {"venues": {"description": "venues", "aliases": ["场馆"], "primary_key": "venue_id",
                         "columns": columns}}  # fmt: skip
    leg = DBLeg(f"sqlite:///{path}", models)
    yield leg, str(path)
    leg.close()


def _like(field: str, word: str, alternative: bool) -> Where:
    return Where.model_validate({"field": field, "op": "like", "value": f"%{word}%",
                                 "or": alternative})  # fmt: skip


def _search(word: str, columns: tuple[str, ...] = TEXT) -> Where:
    return Where(wheres=tuple(_like(c, word, i > 0) for i, c in enumerate(columns)))


def test_a_text_search_over_many_columns_is_named_once() -> None:
    assert describe(_search("mill")) == "'mill' in any of 5 columns (name, city, street, …)"
    assert describe(_search("磨坊", TEXT[:3])) == "'磨坊' in any of 3 columns (name, city, street)"
    # Not one search: another value or operator among the alternatives lists them.
    mixed = Where(wheres=(*(_like(c, "mill", c != "name") for c in TEXT[:4]),
                          _like("owner", "loft", True)))  # fmt: skip
    assert describe(mixed) == (
        "any of 5 alternatives (name containing 'mill', city containing 'mill', "
        "street containing 'mill', …)"
    )
    a, b, c = (Where(field=f, value=1) for f in "abc")
    assert describe(Where(wheres=(a, b.model_copy(update={"or_": True})))) == (
        "a group of alternatives (a = 1 or b = 1)"
    )
    # AND binds tighter than OR: (a and b) or c, never "a or b or c".
    assert describe(Where(wheres=(a, b, c.model_copy(update={"or_": True})))) == (
        "a group of alternatives ((a = 1 and b = 1) or c = 1)"
    )


@pytest.mark.parametrize(
    "question", ["mill venues with more than 1000 seats", "座位超过1000的mill场馆"]
)
async def test_an_empty_text_search_note_names_the_columns_once(
    venues: tuple[DBLeg, str], question: str
) -> None:
    leg, _ = venues
    res = await leg.search(SearchRequest(type="db", query=question))
    assert res.items == ()
    # 'mill' is in two venues' names or owners, and one venue has over 1000 seats: not both.
    assert res.notes[-1] == (
        "of the 1 venues row(s) meeting the other conditions, none has 'mill' in any of 5 "
        "columns (name, city, street, …)"
    ), res.notes
