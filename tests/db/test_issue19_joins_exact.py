"""Issue #19: a related model's stored value named with that model ("tracks whose genre is
Rock") is that value of the related column, not a word searched in the model's own text
(which also finds "Rock Me" of the Jazz genre); a word named with the model's own column
stays a text search. A schema of its own (genres, songs; relations learned from the
foreign key), answers checked against hand-written rows."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ask_model, sqlite_file

_DDL = (
    "CREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE songs (id INTEGER PRIMARY KEY, title TEXT, "
    "genre_id INTEGER REFERENCES genres(id))",
)
_ROWS = (
    "INSERT INTO genres VALUES (1, 'Rock'), (2, 'Jazz'), (3, 'Folk')",
    "INSERT INTO songs VALUES (1, 'Stone Wall', 1), (2, 'Night Train', 1), "
    "(3, 'Rock Me Slowly', 2), (4, 'Blue Hour', 2), (5, 'River Song', 3)",
)
_MODELS: dict[str, Any] = {
    "genres": {"columns": {"id": {}, "name": {"searchable": True}}},
    "songs": {"columns": {"id": {}, "title": {"searchable": True}, "genre_id": {}}},
}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return sqlite_file(tmp_path_factory.mktemp("exact") / "songs.sqlite", (*_DDL, *_ROWS))


async def _titles(url: str, question: str) -> tuple[set[str], Any]:
    res = await ask_model(url, _MODELS, "songs", question)
    return {str(i.data["title"]) for i in res.items}, res


@pytest.mark.parametrize(
    "question",
    ["songs whose genre is Rock", "the titles of all songs in the Rock genre"],
)
async def test_a_named_related_value_binds_the_related_column(url: str, question: str) -> None:
    titles, res = await _titles(url, question)
    assert titles == {"Stone Wall", "Night Train"}, res.dsl
    assert any("joined songs with genres" in n for n in res.notes), res.notes


async def test_a_word_named_with_the_models_own_column_stays_a_text_search(url: str) -> None:
    titles, res = await _titles(url, "songs whose title has rock")
    assert titles == {"Rock Me Slowly"}, res.dsl
