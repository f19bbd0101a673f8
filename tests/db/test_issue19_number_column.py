"""Issue #19, precision: a comparison right after a column that holds no numbers ("bands of
age above 10" where age is text) was bound to a farther number column whose word was in
reach ("number of bands"), and answered with status ok. It is left out now, with a note
naming the column, and the answer is partial. On a schema of its own: gigs and the bands
that play them (a foreign key, learned as a relation)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, SearchResult

GIGS = [(1, "Lyon", 3), (2, "Porto", 12), (3, "Graz", 2)]
#: age is stored as text (a declared string column).
BANDS = [(1, 1, "Oak", "14"), (2, 1, "Elm", "4"), (3, 2, "Ash", "30"), (4, 3, "Fir", "2")]


@pytest.fixture
def leg(tmp_path: Path) -> Iterator[DBLeg]:
    path = tmp_path / "gigs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE gig (gig_id INTEGER PRIMARY KEY, city TEXT, "
                     "number_of_bands INTEGER)")  # fmt: skip
        conn.execute("CREATE TABLE band (band_id INTEGER PRIMARY KEY, gig_id INTEGER "
                     "REFERENCES gig (gig_id), name TEXT, age TEXT)")  # fmt: skip
        conn.executemany("INSERT INTO gig VALUES (?,?,?)", GIGS)
        conn.executemany("INSERT INTO band VALUES (?,?,?,?)", BANDS)
    conn.close()
    models = {
        "gig": {
            "description": "gig",
            "primary_key": "gig_id",
            "columns": {
                "gig_id": {"type": "integer"},
                "city": {"type": "string", "searchable": True},
                "number_of_bands": {"type": "integer"},
            },
        },
        "band": {
            "description": "band",
            "primary_key": "band_id",
            "columns": {
                "band_id": {"type": "integer"},
                "gig_id": {"type": "integer"},
                "name": {"type": "string", "searchable": True},
                "age": {"type": "string", "aliases": ["年龄"]},
            },
        },
    }
    gigs = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield gigs
    gigs.close()


async def ask(leg: DBLeg, q: str) -> SearchResult:
    """The leg picks the model (and joins the other) as it does for any question."""
    return await leg.search(SearchRequest(type="db", query=q, limit=100))


def compared(result: SearchResult) -> list[str]:
    return [w.get("field", "") for w in (result.dsl or {}).get("wheres", ())]


async def test_comparison_after_a_text_column_binds_no_number_column(leg: DBLeg) -> None:
    result = await ask(leg, "cities of gigs whose bands are older than 10")
    assert not any("number_of_bands" in f for f in compared(result))
    assert result.status.value == "partial"
    assert any("age" in n and "holds no numbers" in n for n in result.notes), result.notes


async def test_a_column_of_another_model_is_said_not_understood(leg: DBLeg) -> None:
    """Read on gig alone, "age" names no column of it: the answer says so (partial)."""
    result = await ask(leg, "cities of gigs with bands of age above 10")
    assert result.status.value == "partial"
    assert any("age" in n for n in result.notes), result.notes


async def test_the_number_column_named_right_before_is_still_compared(leg: DBLeg) -> None:
    result = await ask(leg, "cities of gigs with number of bands above 2")
    assert result.status.value == "ok"
    assert {i.data["city"] for i in result.items if i.data} == {"Lyon", "Porto"}


async def test_the_models_own_noun_is_no_column_before_a_comparison(tmp_path: Path) -> None:
    """A date column whose name holds the model's noun ("visit_date" of visits) is also called
    by it; "visits under 50 dollars" still compares the fee — the noun names the rows."""
    path = tmp_path / "visits.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE visits (id INTEGER PRIMARY KEY, visit_date DATE, "
                     "fee REAL, minutes INTEGER)")  # fmt: skip
        conn.executemany("INSERT INTO visits VALUES (?,?,?,?)",
                         [(1, "2025-01-02", 30, 15), (2, "2025-01-03", 80, 45),
                          (3, "2025-01-04", 45, 30)])  # fmt: skip
    conn.close()
    models = {"visits": {"primary_key": "id", "columns": {
        "id": {"type": "integer"}, "visit_date": {"type": "date"},
        "fee": {"type": "number", "unit": "USD"},
        "minutes": {"type": "integer", "unit": "minutes"}}}}  # fmt: skip
    leg = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    try:
        for question, ids in [("visits under 50 dollars", {"1", "3"}),
                              ("visits shorter than 20 minutes", {"1"})]:  # fmt: skip
            result = await leg.search(
                SearchRequest(type="db", query=question, models=("visits",), limit=100)
            )
            assert result.status.value == "ok", result.notes
            assert {i.record_id for i in result.items} == ids, result.dsl
    finally:
        leg.close()
