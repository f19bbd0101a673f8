"""Issue #19, precision: words that negate, ask for each value once, name a relation or
name a column are never a text to search for. Each was found in some stored text (a title
"Not Fade Away", "Different Drum", "Name of the Game"), searched as ``LIKE '%not%'`` across
every column, joined ones too, and answered with status ok. On a radio schema of its own:
stations and their broadcasts (a foreign key, learned as a relation)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest, SearchResult

STATIONS = [(1, "Alpha FM", "Oslo"), (2, "Beta Radio", "Bergen"), (3, "Gamma Waves", "Oslo")]
BROADCASTS = [
    (1, 1, "Not Fade Away", 25, "No Response"),
    (2, 1, "Different Drum", 40, "Aired"),
    (3, 1, "Name of the Game", 35, "Aired"),
    (4, 2, "Where We Belong", 50, "No Response"),
    (5, 2, "Number Nine", 20, "Aired"),
    (6, 2, "Different Drum", 45, "Aired"),
    (7, 1, "City Lights", 30, "Cancelled"),
]
LISTENERS = [(1, "Ada"), (2, "Bo"), (3, "Cy")]
#: Who tuned in to which broadcast; Ada tuned in to broadcast 2 twice.
TUNE_INS = [(1, 1, 2), (2, 1, 2), (3, 2, 2), (4, 3, 1), (5, 1, 1)]


@pytest.fixture
def leg(tmp_path: Path) -> Iterator[DBLeg]:
    path = tmp_path / "radio.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE station (station_id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
        conn.execute(
            "CREATE TABLE broadcast (broadcast_id INTEGER PRIMARY KEY, station_id INTEGER "
            "REFERENCES station (station_id), title TEXT, minutes INTEGER, outcome TEXT)"
        )
        conn.execute("CREATE TABLE listener (listener_id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute(
            "CREATE TABLE tune_in (tune_in_id INTEGER PRIMARY KEY, listener_id INTEGER "
            "REFERENCES listener (listener_id), broadcast_id INTEGER REFERENCES broadcast "
            "(broadcast_id))"
        )
        conn.execute(
            "CREATE TABLE station_rank (station_id INTEGER PRIMARY KEY REFERENCES station "
            "(station_id), total INTEGER)"
        )
        conn.executemany("INSERT INTO station_rank VALUES (?,?)", [(1, 40), (2, 50), (3, 60)])
        conn.executemany("INSERT INTO station VALUES (?,?,?)", STATIONS)
        conn.executemany("INSERT INTO listener VALUES (?,?)", LISTENERS)
        conn.executemany("INSERT INTO tune_in VALUES (?,?,?)", TUNE_INS)
        conn.executemany("INSERT INTO broadcast VALUES (?,?,?,?,?)", BROADCASTS)
    conn.close()
    models = {
        "station": {
            "description": "radio station",
            "primary_key": "station_id",
            "columns": {
                "station_id": {"type": "integer"},
                "name": {"type": "string", "searchable": True},
                "city": {"type": "string", "searchable": True},
            },
        },
        "broadcast": {
            "description": "broadcast",
            "primary_key": "broadcast_id",
            "columns": {
                "broadcast_id": {"type": "integer"},
                "station_id": {"type": "integer"},
                "title": {"type": "string", "searchable": True},
                "minutes": {"type": "integer"},
                "outcome": {"type": "string", "searchable": True},
            },
        },
    }
    models["listener"] = {
        "description": "listener",
        "primary_key": "listener_id",
        "columns": {"listener_id": {"type": "integer"},
                    "name": {"type": "string", "searchable": True}},
    }  # fmt: skip
    models["station_rank"] = {
        "description": "station rank",
        "primary_key": "station_id",
        "columns": {"station_id": {"type": "integer"}, "total": {"type": "integer"}},
    }
    models["tune_in"] = {
        "description": "tune in",
        "primary_key": "tune_in_id",
        "columns": {"tune_in_id": {"type": "integer"}, "listener_id": {"type": "integer"},
                    "broadcast_id": {"type": "integer"}},
    }  # fmt: skip
    radio = DBLeg(f"sqlite:///{path}", models, sample_ttl_s=0)
    yield radio
    radio.close()


async def ask(leg: DBLeg, q: str, model: str | None = None) -> SearchResult:
    models = (model,) if model else None
    return await leg.search(SearchRequest(type="db", query=q, models=models, limit=100))


def searched(dsl: Any) -> set[str]:
    """Every word the query searches for as text (LIKE / NOT LIKE)."""
    out: set[str] = set()

    def walk(wheres: Any) -> None:
        for w in wheres or ():
            if w.get("wheres"):
                walk(w["wheres"])
            elif w.get("op") in ("like", "notlike"):
                out.add(str(w["value"]).strip("%"))

    walk((dsl or {}).get("wheres"))
    return out


async def test_a_negation_no_rule_read_is_said_never_searched(leg: DBLeg) -> None:
    res = await ask(leg, "Which stations do not have any broadcast longer than 30 minutes?")
    assert "not" not in searched(res.dsl), res.dsl
    assert res.status.value == "partial", res.notes
    assert any("not understood" in n and "not" in n.split(":", 1)[1] for n in res.notes)
    res = await ask(leg, "Which stations never aired a broadcast?", "station")  # read: no text
    assert "never" not in searched(res.dsl), res.dsl
    assert [i.data["name"] for i in res.items] == ["Gamma Waves"]  # type: ignore[index]


async def test_the_verb_of_belonging_is_no_text(leg: DBLeg) -> None:
    res = await ask(leg, "List the titles of broadcasts that belong to station Beta Radio.")
    assert "belong" not in searched(res.dsl), res.dsl
    assert sorted(i.data["title"] for i in res.items) == [  # type: ignore[index]
        "Different Drum", "Number Nine", "Where We Belong"]  # fmt: skip


async def test_different_is_no_text(leg: DBLeg) -> None:
    res = await ask(leg, "Show the different broadcasts of Alpha FM.", "broadcast")
    assert "different" not in searched(res.dsl), res.dsl
    assert len(res.items) != 1  # not only "Different Drum"
    assert res.status.value == "partial" or (res.dsl or {}).get("distinct"), res.notes


async def test_a_column_word_is_no_text(leg: DBLeg) -> None:
    res = await ask(leg, "Count the number of broadcasts with outcome Aired.", "broadcast")
    assert "number" not in searched(res.dsl), res.dsl
    assert [i.data for i in res.items] == [{"count": 4}]
    q = "What are the names of broadcasts whose minutes is less than 30?"
    res = await ask(leg, q, "broadcast")
    assert "name" not in searched(res.dsl), res.dsl
    assert sorted(i.data["broadcast_id"] for i in res.items) == [1, 5]  # type: ignore[index]


async def test_a_quoted_value_is_no_negation(leg: DBLeg) -> None:
    res = await ask(leg, "Show the broadcasts titled 'Not Fade Away'.", "broadcast")
    assert not searched(res.dsl) & {"fade", "not"}, res.dsl  # it excluded the very title
    assert [i.data["broadcast_id"] for i in res.items] == [1]  # type: ignore[index]


async def test_different_things_counted_along_links_are_counted_once(leg: DBLeg) -> None:
    """Ada tuned in to broadcast 2 twice: 3 tune-ins, 2 different listeners."""
    res = await ask(leg, "How many different listeners tuned in to each broadcast?", "broadcast")
    counts = {i.data["broadcast_id"]: i.data["count"] for i in res.items}  # type: ignore[index]
    assert counts == {1: 2, 2: 2}, res.dsl
    assert any("distinct tune_in.listener_id" in n for n in res.notes), res.notes
    res = await ask(leg, "How many listeners tuned in to each broadcast?", "broadcast")
    counts = {i.data["broadcast_id"]: i.data["count"] for i in res.items}  # type: ignore[index]
    assert counts == {1: 2, 2: 3}, res.dsl  # no "different": every tune-in


async def test_a_number_before_the_rows_noun_is_no_column_value(leg: DBLeg) -> None:
    """ "more than 2 broadcasts" counts broadcasts: never station_id > 2, status ok."""
    q = "What are the station ids for which more than 2 broadcasts had the outcome Aired?"
    res = await ask(leg, q, "broadcast")
    fields = {w.get("field") for w in (res.dsl or {}).get("wheres", ())}
    assert "station_id" not in fields, res.dsl
    assert res.status.value == "partial" and any("2" in n for n in res.notes), res.notes


async def test_a_related_models_column_searched_as_text_is_said(leg: DBLeg) -> None:
    """ "cities" names station.city; found in a title ("City Lights") it was searched there,
    status ok. It is said now (partial), naming the column."""
    res = await ask(leg, "Which cities had a cancelled broadcast?", "broadcast")
    assert res.status.value == "partial", res.notes
    assert any("column city of station" in n for n in res.notes), res.notes


async def test_the_total_number_of_rows_is_a_count_beside_a_total_column(leg: DBLeg) -> None:
    """station_rank has a column "total": "the total number of stations" counts stations
    (it was the sum of station_rank.total, status ok)."""
    res = await ask(leg, "What is the total number of stations?", "station")
    assert [i.data for i in res.items] == [{"count": 3}], res.dsl


async def test_a_related_models_value_searched_as_text_is_said(leg: DBLeg) -> None:
    """ "broadcasts from Oslo" read as a text search of the broadcasts ('oslo' in a title)
    while station.city holds "Oslo": the caveat names the value and the column."""
    from unifind.db.dsl import QueryDSL
    from unifind.db.generate._caveats import model_as_text

    models = await leg.models()
    either = [{"field": c, "op": "like", "value": "%oslo%", "or": i > 0}
              for i, c in enumerate(("title", "outcome"))]  # fmt: skip
    dsl = QueryDSL.model_validate({"model": "broadcast", "wheres": [{"wheres": either}]})
    [caveat] = model_as_text(dsl, models)
    assert caveat.word == "oslo" and "a value of station.city" in caveat.note
    aired = {"model": "broadcast", "wheres": [{"field": "title", "op": "like", "value": "%aired%"}]}
    assert model_as_text(QueryDSL.model_validate(aired), models) == []  # its own value
    read = {"model": "broadcast", "wheres": [
        {"field": "station.city", "value": "Oslo"},
        {"field": "title", "op": "like", "value": "%oslo%"}]}  # fmt: skip
    assert model_as_text(QueryDSL.model_validate(read), models) == []  # read through it
