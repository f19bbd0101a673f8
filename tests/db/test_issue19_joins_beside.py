"""Issue #19: a count of related rows listed beside a model's own columns ("the names of the
teams and the number of players they have") is one row per record with its count; a count
the question does not tie to the listed records is not read so. A schema of its own
(clubs, players, fixtures; relations learned from the foreign keys), answers checked
against hand-written SQL."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ask_model, sqlite_file

_DDL = (
    "CREATE TABLE clubs (id INTEGER PRIMARY KEY, name TEXT, city TEXT)",
    "CREATE TABLE players (id INTEGER PRIMARY KEY, full_name TEXT, "
    "club_id INTEGER REFERENCES clubs(id))",
    "CREATE TABLE sponsors (id INTEGER PRIMARY KEY, brand TEXT)",
)
_ROWS = (
    "INSERT INTO clubs VALUES (1, 'Rovers', 'Leeds'), (2, 'United', 'York'), (3, 'City', 'Hull')",
    "INSERT INTO players VALUES (1, 'Ann Lee', 1), (2, 'Bo Chan', 1), (3, 'Cy Diaz', 1), "
    "(4, 'Di Eko', 2), (5, 'Ed Fox', 2), (6, 'Flo Gray', NULL)",
    "INSERT INTO sponsors VALUES (1, 'Acme'), (2, 'Zed')",
)
_MODELS: dict[str, Any] = {
    "clubs": {"columns": {"id": {}, "name": {"searchable": True}, "city": {"searchable": True}}},
    "players": {"columns": {"id": {}, "full_name": {"searchable": True}, "club_id": {}}},
    "sponsors": {"columns": {"id": {}, "brand": {"searchable": True}}},
}
#: Each club with its players (clubs without players have no row, as with a join).
_PER_CLUB = {("Rovers", 3), ("United", 2)}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return sqlite_file(tmp_path_factory.mktemp("beside") / "clubs.sqlite", (*_DDL, *_ROWS))


async def _ask(url: str, question: str) -> Any:
    return await ask_model(url, _MODELS, "clubs", question)


def _counts(res: Any) -> set[tuple[str, int]]:
    return {(str(i.data["name"]), int(i.data["count"])) for i in res.items}


@pytest.mark.parametrize(
    "question",
    [
        "Show the names of the clubs and the number of players they have.",
        "the club names and the corresponding number of players",
        "What are the names of the clubs, and how many players does each have?",
        "Return the name and number of players signed for each of the clubs.",
        "List the city of each club as well as the number of players.",
    ],
)
async def test_a_count_listed_beside_the_columns_is_per_record(url: str, question: str) -> None:
    res = await _ask(url, question)
    assert _counts(res) == _PER_CLUB, (question, res.dsl)
    assert any("players rows counted per clubs" in n for n in res.notes), res.notes


@pytest.mark.parametrize(
    "question",
    [
        # no record is listed beside the count: not one count per club
        "the number of players",
        # the counted noun names no related model
        "the names of the clubs and the number of sponsors",
        # the counted noun is the model's own: its rows, not a related model's
        "the cities and the number of clubs in each city",
    ],
)
async def test_a_count_not_tied_to_the_listed_records_is_not_per_record(
    url: str, question: str
) -> None:
    res = await _ask(url, question)
    assert not any("rows counted per" in n for n in res.notes), (question, res.dsl, res.notes)
    assert {i.data.get("count") for i in res.items} != {3, 2}, res.dsl


async def test_a_count_said_again_in_a_second_sentence_is_the_same_count(url: str) -> None:
    question = "How many players does each club have? List the club name and the number of players."
    res = await _ask(url, question)
    assert _counts(res) == _PER_CLUB, res.dsl
    # the groups show every column of the club: no word is left "not used"
    assert res.status.value == "ok", res.notes
