"""Issue #19, precision round 5: honest statuses on schemas nobody here wrote. A question the
leg reads as about none of a model's words is a refusal (``degraded``/``not_understood``),
not an empty answer with status ok; a question that names a model's columns is about it.
On the crew schema of round 4 (declared the plain way, nothing sampled)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.db import test_issue19_precision_round4 as round4

from unifind.db.demo import DEMO_MODELS_YAML
from unifind.db.dsl import QueryDSL
from unifind.db.generate._caveats import model_as_text
from unifind.db.leg import DBLeg
from unifind.types import Reason, SearchRequest, SearchResult, Status

rows = round4.rows


@pytest.fixture
def leg(tmp_path: Path) -> Iterator[DBLeg]:
    """Round 4's crew and fees tables, declared the same plain way."""
    path = tmp_path / "crew.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE crew (crew_id INTEGER PRIMARY KEY, name TEXT, rank TEXT, day_or_night "
            "TEXT, age INTEGER, floor_points REAL, total_points REAL, reports_to INTEGER "
            "REFERENCES crew (crew_id))"
        )
        conn.executemany("INSERT INTO crew VALUES (?,?,?,?,?,?,?,?)", round4.CREW)
        conn.execute(
            "CREATE TABLE fees (campus INTEGER PRIMARY KEY, year INTEGER, campus_fee REAL)"
        )
        conn.executemany("INSERT INTO fees VALUES (?,?,?)", round4.FEES)
    conn.close()
    models = {
        "crew": {
            "description": "crew members",
            "primary_key": "crew_id",
            "columns": round4.COLUMNS,
        },
        "fees": {"description": "fees", "primary_key": "campus", "columns": round4.FEE_COLUMNS},
    }
    leg = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield leg
    leg.close()


async def ask(leg: DBLeg, q: str, models: tuple[str, ...] | None = ("crew",)) -> SearchResult:
    return await leg.search(SearchRequest(type="db", query=q, models=models, limit=100))


def report(res: SearchResult, backend: str) -> tuple[Status, Reason | None]:
    [r] = [r for r in res.reports if r.backend == backend and r.stage != "understanding"]
    return r.status, r.reason


async def test_a_question_about_nothing_in_the_model_is_refused(leg: DBLeg) -> None:
    for q in ("x", "what is the weather"):
        res = await ask(leg, q)
        assert res.items == () and res.status.value == "unavailable", (q, res.reports)
        assert report(res, "crew") == (Status.DEGRADED, Reason.NOT_UNDERSTOOD)
        [refusal] = [r.error for r in res.reports if r.backend == "crew"]
        assert refusal is not None and "could not map" in refusal
        assert "crew answers about: crew_id, name, rank" in refusal
        assert res.dsl is None  # nothing ran
    res = await ask(leg, "what is the weather", models=None)  # the leg picks: none fits
    assert res.status.value == "unavailable" and res.items == ()
    assert report(res, "fees") == (Status.DEGRADED, Reason.NOT_UNDERSTOOD)


async def test_a_model_the_question_is_not_about_is_passed_over_when_another_answers(
    leg: DBLeg,
) -> None:
    res = await ask(leg, "Who is older than 40?", models=None)  # no model named: both read it
    assert sorted(rows(res)) == [1, 2, 3] and res.status.value == "ok", res.reports
    assert report(res, "fees") == (Status.SKIPPED, Reason.NOT_REQUESTED)
    assert any("does not seem to be about fees" in n for n in res.notes), res.notes


async def test_a_question_naming_columns_is_about_the_model(leg: DBLeg) -> None:
    # Columns named, no condition read: every row shows them; "different" is said, not
    # dropped (it was called off topic: no rows, status ok).
    for models in (("crew",), None):
        res = await ask(leg, "What are the names and ages of the different ranks?", models)
        assert sorted(rows(res)) == [1, 2, 3, 4, 5], (models, res.reports)
        assert res.status.value == "partial"
        assert res.understood is not None and res.understood["different"].startswith("not used")
        assert res.understood["ages"] == "column age"
    res = await ask(leg, "What are the names of the crew?")  # no word left: ok, every row
    assert sorted(rows(res)) == [1, 2, 3, 4, 5] and res.status.value == "ok"


async def test_a_year_after_the_word_year_is_a_date_condition(leg: DBLeg) -> None:
    for q, want in (
        ("fees after the year 2001", [3]),
        ("fees after year 2001", [3]),
        ("fees before the year of 2002", [1, 2]),
        ("fees in 2001", [1, 2]),
    ):
        res = await ask(leg, q, models=("fees",))
        assert sorted(rows(res, "campus")) == want, (q, res.dsl)
        assert res.status.value == "ok" and "like" not in str(res.dsl), (q, res.dsl)
    res = await ask(leg, "fees from the year 2001", models=("fees",))  # no direction: that year
    assert sorted(rows(res, "campus")) == [1, 2], res.dsl


async def test_a_quoted_letter_is_read_or_said(leg: DBLeg) -> None:
    res = await ask(leg, 'Which crew members have an "a" in their name?')
    assert sorted(rows(res)) == [1, 2, 3, 5], res.dsl  # Ben Okoro has none
    assert res.status.value == "ok" and res.understood is not None
    assert res.understood["name"].startswith("text condition"), res.understood
    res = await ask(leg, 'crew members, "a"')  # a letter no rule reads: said, not dropped
    assert res.status.value == "partial" and res.understood is not None
    assert res.understood["a"].startswith("not used"), res.understood


async def test_another_models_name_searched_as_text_is_said(leg: DBLeg) -> None:
    # No relation leads from crew to fees: "no fees" read as NOT LIKE '%fee%' on crew's text
    # (the reading where the word is in the sampled text) answers another question.
    models = await leg.models()
    either = [{"field": c, "op": "notlike", "value": "%fee%"} for c in ("name", "rank")]
    dsl = QueryDSL.model_validate({"model": "crew", "wheres": [{"wheres": either}]})
    [caveat] = model_as_text(dsl, models)
    assert caveat.word == "fee" and "names model fees" in caveat.note
    pilots = QueryDSL.model_validate(
        {"model": "crew", "wheres": [{"field": "rank", "op": "like", "value": "%pilot%"}]}
    )
    assert model_as_text(pilots, models) == []  # a value, no model's name
    joined = {"model": "fees", "wheres": [{"field": "year", "op": "like", "value": "%crew%"}]}
    assert model_as_text(QueryDSL.model_validate(joined), models)[0].word == "crew"


async def test_a_column_named_alone_lists_its_values(leg: DBLeg) -> None:
    res = await ask(leg, "Show all ranks.")
    assert sorted(rows(res, "rank")) == ["Captain", "Engineer", "Pilot"], res.dsl
    assert any("'ranks' names a column of crew and nothing else" in n for n in res.notes)
    for q in ("What is the rank?", "Show the ranks of all crew members", "Show all crew ids"):
        res = await ask(leg, q)  # the singular, the model named, the key: every row
        assert len(res.items) == 5 and "select" not in (res.dsl or {}), (q, res.dsl)
    res = await ask(leg, "List all crew members.")  # the model's own noun: its rows
    assert len(res.items) == 5 and "select" not in (res.dsl or {}), res.dsl


async def test_how_many_are_a_and_how_many_are_b_counts_per_value(shop_path: Path) -> None:
    shop = DBLeg(f"sqlite:///{shop_path}", DEMO_MODELS_YAML, sample_ttl_s=0)
    try:
        res = await ask(
            shop, "How many products are laptops and how many are phones?", ("products",)
        )
        assert res.dsl is not None and res.dsl.get("groups") == ["category"], res.dsl
        assert sorted((i.data or {})["category"] for i in res.items) == ["laptop", "phone"]
        assert res.status.value == "ok", res.notes
        res = await ask(shop, "How many products are laptops?", ("products",))  # one count
        assert res.dsl is not None and not res.dsl.get("groups") and len(res.items) == 1
    finally:
        shop.close()


async def test_a_generic_part_of_column_names_alone_names_no_model(leg: DBLeg) -> None:
    # "names" is a part of many columns' names: alone it makes no question about a model.
    res = await ask(leg, "Show all donor names.")
    assert res.status.value == "unavailable" and res.items == (), res.reports
    assert report(res, "crew") == (Status.DEGRADED, Reason.NOT_UNDERSTOOD)
    res = await ask(leg, "Show the names and ranks.")  # a column of its own: about crew
    assert len(res.items) == 5 and res.status.value == "ok", res.reports


async def test_for_all_is_no_group_and_for_each_is(leg: DBLeg) -> None:
    res = await ask(leg, "Find the maximum and minimum age for all ranks.")
    assert res.dsl is not None and not res.dsl.get("groups"), res.dsl
    assert len(res.items) == 1, res.items
    res = await ask(leg, "Find the maximum and minimum age for each rank.")
    assert res.dsl is not None and res.dsl.get("groups") == ["rank"], res.dsl
