"""Issue #19: one model per answer. When the leg chooses the models, the one that fits the
question best answers and the result names it; equal fits are merged and the result says
so; models the caller names are searched as asked."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, Status

from ._schema19 import athletes_db


@pytest.fixture
def two(tmp_path: Path) -> Iterator[DBLeg]:
    url, models = athletes_db(tmp_path)
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    conn.execute("CREATE TABLE clubs (club_id INTEGER PRIMARY KEY, club_name TEXT, city TEXT, "
                 "members INTEGER)")  # fmt: skip
    conn.executemany("INSERT INTO clubs VALUES (?,?,?,?)",
                     [(1, "Blue Fins", "Lisbon", 120), (2, "Track Stars", "Nairobi", 80),
                      (3, "Oar House", "Toronto", 45)])  # fmt: skip
    conn.execute("CREATE TABLE coaches (coach_id INTEGER PRIMARY KEY, name TEXT, "
                 "country TEXT)")  # fmt: skip
    conn.executemany("INSERT INTO coaches VALUES (?,?,?)",
                     [(1, "Olu Bako", "Kenya"), (2, "Rita Sol", "Brazil")])  # fmt: skip
    conn.commit()
    conn.close()
    leg = DBLeg(url, {**models, "clubs": {}, "coaches": {}})
    yield leg
    leg.close()


async def test_the_model_that_fits_best_answers_and_is_named(two: DBLeg) -> None:
    res = await two.search(SearchRequest(type="db", query="athletes of the clubs from kenya"))
    assert {i.model for i in res.items} == {"athletes"} and len(res.items) == 3
    assert res.notes[0].startswith("answered from model athletes"), res.notes
    clubs = next(r for r in res.reports if r.backend == "clubs")
    assert clubs.status is Status.SKIPPED and "athletes fits the question better" in (
        clubs.note or ""
    )
    assert res.dsl is not None and res.dsl.get("model") == "athletes"


async def test_equal_fits_are_merged_and_said(two: DBLeg) -> None:
    # "kenya" is a value of athletes.country and of coaches.country; neither is named.
    res = await two.search(SearchRequest(type="db", query="kenya"))
    assert {i.model for i in res.items} == {"athletes", "coaches"}
    assert any(n.startswith("rows of models athletes, coaches merged") for n in res.notes)


async def test_models_the_caller_names_are_searched_as_asked(two: DBLeg) -> None:
    res = await two.search(SearchRequest(type="db", query="kenya", models=("athletes", "coaches")))
    assert {i.model for i in res.items} == {"athletes", "coaches"}
    assert not any("merged" in n or "answered from" in n for n in res.notes)
