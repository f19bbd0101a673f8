"""Issue #19: which column a word names. A key is named only with its "id"; a short plain
description names its column; "number of <number column>" and "total <...>" inside a
column's own name are that column, not count/sum; words searched for without being found in
the sampled text are named in a note."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from unifind.db.leg import DBLeg
from unifind.db.models import VOCAB_ROWS
from unifind.types import SearchRequest

from ._schema19 import athletes_db, query


async def ask(leg: DBLeg, q: str, model: str = "athletes") -> tuple[dict[str, Any], Any]:
    res = await leg.search(SearchRequest(type="db", query=q, models=(model,), limit=100))
    assert res.dsl is not None
    return res.dsl, res


async def test_the_model_noun_does_not_name_its_key(tmp_path: Path) -> None:
    url, models = athletes_db(tmp_path)
    # Named in the singular, like its key athlete_id: "athlete" still names no column.
    leg = DBLeg(url, {"athlete": {**models["athletes"], "table": "athletes"}})
    try:
        dsl, res = await ask(leg, "the largest athlete", "athlete")
        assert "orders" not in dsl and len(res.items) == 10
        assert any("largest" in n and "not understood" in n for n in res.notes), res.notes
    finally:
        leg.close()


async def test_a_number_near_the_model_noun_is_not_bound_to_its_key(
    sports: tuple[DBLeg, str],
) -> None:
    leg, _ = sports
    dsl, res = await ask(leg, "how many athletes are heavier than 80")
    assert all(w.get("field") != "athlete_id" for w in dsl.get("wheres", [])), dsl
    # No weight column: not understood, so said; never a silent wrong count.
    assert any("80" in n and "not understood" in n for n in res.notes), res.notes
    dsl, _ = await ask(leg, "athletes with athlete id over 8")
    assert dsl["wheres"] == [{"field": "athlete_id", "op": ">", "value": 8}]


async def test_an_aggregate_never_lands_on_a_key_named_by_the_model_noun(
    sports: tuple[DBLeg, str],
) -> None:
    leg, url = sports
    dsl, res = await ask(leg, "what is the maximum athlete height")
    assert dsl["aggregates"] == [{"fn": "max", "field": "height"}]
    assert [tuple((i.data or {}).values()) for i in res.items] == query(
        url, "SELECT max(height) FROM athletes"
    )
    dsl, _ = await ask(leg, "what is the maximum athlete id")
    assert dsl["aggregates"] == [{"fn": "max", "field": "athlete_id"}]


async def test_a_short_description_names_its_column(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    dsl, res = await ask(leg, "athletes with total points over 100")
    assert dsl == {"model": "athletes", "wheres": [{"field": "pts", "op": ">", "value": 100}]}
    assert sorted(int(i.record_id or 0) for i in res.items) == [
        r[0] for r in query(url, "SELECT athlete_id FROM athletes WHERE pts > 100")
    ]


async def test_total_inside_a_column_name_is_no_sum(tmp_path: Path) -> None:
    path = tmp_path / "farms.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE farms (farm_id INTEGER PRIMARY KEY, total_horses INTEGER, "
                 "cows INTEGER)")  # fmt: skip
    conn.executemany("INSERT INTO farms VALUES (?,?,?)", [(1, 10, 5), (2, 30, 7), (3, 20, 9)])
    conn.commit()
    conn.close()
    leg = DBLeg(f"sqlite:///{path}", {"farms": {}})
    try:
        dsl, res = await ask(leg, "farms with total horses over 15", "farms")
        assert dsl["wheres"] == [{"field": "total_horses", "op": ">", "value": 15}]
        assert "aggregates" not in dsl and len(res.items) == 2
        dsl, res = await ask(leg, "the total cows of all farms", "farms")
        assert dsl["aggregates"] == [{"fn": "sum", "field": "cows"}]
        assert [i.data for i in res.items] == [{"sum_cows": 21}]
        dsl, _ = await ask(leg, "the number of horses of each farm in ascending order", "farms")
        assert "aggregates" not in dsl, dsl
        dsl, res = await ask(leg, "the number of farms", "farms")
        assert dsl["aggregates"] == [{"fn": "count"}] and [i.data for i in res.items] == [
            {"count": 3}
        ]
    finally:
        leg.close()


async def test_words_searched_unconfirmed_are_named(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT, note TEXT)")
    rows = [(i, f"kind{i}", f"note number {i}") for i in range(1, VOCAB_ROWS + 50)]
    conn.executemany("INSERT INTO events VALUES (?,?,?)", rows)
    conn.commit()
    conn.close()
    leg = DBLeg(f"sqlite:///{path}", {"events": {}})
    try:
        # Past the sampled rows, so neither word can be confirmed: searched, and said so.
        _dsl, res = await ask(leg, "zebra quokka", "events")
        assert any(
            n.startswith("not understood: zebra, quokka (searched for as text") for n in res.notes
        ), res.notes
        _dsl, res = await ask(leg, "number", "events")
        assert not any("not understood" in n for n in res.notes) and res.items
    finally:
        leg.close()


@pytest.mark.parametrize(
    ("question", "word"),
    [("athletes with more medals", "more"), ("athletes less tall", "less"),
     ("which athletes are above", "above")],
)  # fmt: skip
async def test_a_comparing_word_left_unread_is_named(
    sports: tuple[DBLeg, str], question: str, word: str
) -> None:
    leg, _ = sports
    dsl, res = await ask(leg, question)
    assert "wheres" not in dsl and "orders" not in dsl
    assert any(n.startswith(f"not understood: {word} (no column") for n in res.notes), res.notes


async def test_a_comparing_word_that_was_read_is_not_named(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    for q in ("athletes with more than 2 medals", "athletes with the most medals",
              "athletes between 25 and 30 years of age"):  # fmt: skip
        _dsl, res = await ask(leg, q)
        assert not any("no column" in n for n in res.notes), (q, res.notes)


async def test_a_key_takes_no_glossary_words(tmp_path: Path) -> None:
    path = tmp_path / "cards.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customer_cards (card_id INTEGER PRIMARY KEY, customer_id INTEGER, "
                 "card_type TEXT)")  # fmt: skip
    conn.executemany("INSERT INTO customer_cards VALUES (?,?,?)",
                     [(1, 7, "credit"), (2, 7, "debit"), (3, 9, "credit")])  # fmt: skip
    conn.commit()
    conn.close()
    leg = DBLeg(f"sqlite:///{path}", {"customer_cards": {}})
    try:
        # "customer" (a glossary word) must not make customer_id "the number of customer ...".
        dsl, res = await ask(leg, "show the number of customer cards", "customer_cards")
        assert dsl["aggregates"] == [{"fn": "count"}] and [i.data for i in res.items] == [
            {"count": 3}
        ]
    finally:
        leg.close()


async def test_request_words_are_no_content(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    _dsl, res = await ask(leg, "return the names of athletes from kenya")
    assert res.notes == () and sorted(int(i.record_id or 0) for i in res.items) == [
        r[0] for r in query(url, "SELECT athlete_id FROM athletes WHERE country = 'Kenya'")
    ]
    # A word that shapes the answer is read: "different sports" are the distinct values of
    # sport (round 4; before, no rule read it and the note named it).
    dsl, res = await ask(leg, "display the different sports of athletes")
    assert dsl.get("select") == ["sport"] and dsl.get("distinct") is True, dsl
    assert sorted(str((i.data or {})["sport"]) for i in res.items) == [
        r[0] for r in query(url, "SELECT DISTINCT sport FROM athletes ORDER BY sport")
    ]


@pytest.mark.parametrize(
    ("question", "where", "sql"),
    [("how many athletes are older than 30", {"field": "age", "op": ">", "value": 30},
      "SELECT count(*) FROM athletes WHERE age > 30"),
     ("the number of athletes younger than 25", {"field": "age", "op": "<", "value": 25},
      "SELECT count(*) FROM athletes WHERE age < 25"),
     ("how many athletes are taller than 1.8", {"field": "height", "op": ">", "value": 1.8},
      "SELECT count(*) FROM athletes WHERE height > 1.8")],
)  # fmt: skip
async def test_a_comparative_adjective_names_its_measure(
    sports: tuple[DBLeg, str], question: str, where: dict[str, Any], sql: str
) -> None:
    leg, url = sports
    dsl, res = await ask(leg, question)
    assert dsl["wheres"] == [where] and res.notes == ()
    assert [tuple((i.data or {}).values()) for i in res.items] == query(url, sql)
