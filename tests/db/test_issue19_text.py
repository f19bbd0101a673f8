"""Issue #19: text conditions said in words ("containing 'a'", "starts with the letter b",
"ends with 'a'") are a LIKE on the text column named before them; a quoted value with no
such phrase is no text condition."""

from __future__ import annotations

import pytest

from unifind.db.leg import DBLeg
from unifind.types import SearchRequest

from ._schema19 import query


@pytest.mark.parametrize(
    ("question", "where", "sql"),
    [("names of athletes that contain the letter 'a'", ("name", "%a%"), "name LIKE '%a%'"),
     ("athletes whose name starts with the letter b", ("name", "b%"), "name LIKE 'b%'"),
     ("athletes whose country ends with 'a'", ("country", "%a"), "country LIKE '%a'"),
     ("athletes with names containing \"ana\"", ("name", "%ana%"), "name LIKE '%ana%'"),
     ("athletes whose sport includes the word '100%'", ("sport", r"%100\%%"),
      r"sport LIKE '%100\%%' ESCAPE '\'")],
)  # fmt: skip
async def test_text_phrases_become_like(
    sports: tuple[DBLeg, str], question: str, where: tuple[str, str], sql: str
) -> None:
    leg, url = sports
    res = await leg.search(SearchRequest(type="db", query=question, models=("athletes",)))
    assert res.dsl is not None
    assert res.dsl["wheres"] == [{"field": where[0], "op": "like", "value": where[1]}]
    got = sorted(int(i.record_id or 0) for i in res.items)
    assert got == [r[0] for r in query(url, f"SELECT athlete_id FROM athletes WHERE {sql} "
                                            "ORDER BY athlete_id")]  # fmt: skip


async def test_a_letter_without_quotes_needs_the_word_letter(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    res = await leg.search(SearchRequest(type="db", query="athletes that start with a run",
                                         models=("athletes",)))  # fmt: skip
    assert res.dsl is not None
    assert not any(w.get("op") == "like" and w.get("value") == "a%"
                   for w in res.dsl.get("wheres", []))  # fmt: skip
