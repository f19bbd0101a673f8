"""Issue #19: the builtin generator writes joins along relations (SQLite).

The schema is written for these tests (tests/db/_joins_gen_schema.py): authors ← books ←
loans → members twice. Relations are learned from the foreign keys, or declared. Each
answer is checked against hand-written SQL on the same file, and says which models it
joined.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.db.generate._view import joined_view
from unifind.db.leg import DBLeg
from unifind.types import Principal, Reason, SearchRequest, Status

from ._joins_gen_schema import create, models
from .conftest import ids, library_leg


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[DBLeg, str]]:
    """Without tenants (conftest's ``library`` has them)."""
    leg, url = library_leg(tmp_path, tenant=False)
    yield leg, url
    leg.close()


async def ask(leg: DBLeg, question: str, principal: Principal | None = None, **kw: Any) -> Any:
    req = SearchRequest(type="db", query=question, limit=100, **kw)
    return await leg.search(req, principal=principal)


def answered_by(res: Any) -> set[str]:
    return {i.model for i in res.items}


def joined_note(res: Any) -> str:
    notes: list[str] = [n for n in res.notes if n.startswith("joined ")]
    assert notes, f"no note names the join: {res.notes}"
    return notes[0]


async def test_a_value_of_a_related_model_filters_through_the_relation(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "books by authors from Norway")
    assert answered_by(res) == {"books"}
    want = ids(url, "SELECT b.id FROM books b JOIN authors a ON a.id = b.author_id "
                    "WHERE a.country = 'Norway'")  # fmt: skip
    assert sorted(int(i.record_id) for i in res.items) == sorted(want)
    assert "joined books with authors (books.author_id = authors.id)" in joined_note(res)
    # the relation path is spelt in the DSL: a dotted field, compiled as a join
    assert "authors.country" in str(res.dsl)


async def test_a_has_many_filter_answers_distinct_rows(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "authors of fantasy books")
    assert answered_by(res) == {"authors"}
    want = ids(url, "SELECT DISTINCT a.id FROM authors a JOIN books b ON b.author_id = a.id "
                    "WHERE b.genre = 'fantasy'")  # fmt: skip
    got = [int(i.data["id"]) for i in res.items]
    assert sorted(got) == sorted(want)  # Carl Holm wrote two: listed once
    assert len(got) == len(set(got))
    assert "joined authors with books" in joined_note(res)


async def test_the_record_with_the_most_related_rows(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "which author has the most books")
    want = ids(url, "SELECT a.id FROM authors a JOIN books b ON b.author_id = a.id "
                    "GROUP BY a.id ORDER BY count(*) DESC LIMIT 1")  # fmt: skip
    assert [i.data["id"] for i in res.items] == want
    assert res.items[0].data["count"] == 3
    assert res.items[0].data["name"] == "Carl Holm"
    assert "books rows counted per authors" in joined_note(res)

    res = await ask(leg, "the author with the fewest books")
    assert [i.data["name"] for i in res.items][:1] in (["Bruno Costa"],)


async def test_a_count_per_related_record(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "how many books does each author have")
    counts = {}
    for item in res.items:
        data = item.data
        name = data.get("name") or data.get("authors.name")
        counts[name] = data["count"]
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        want: dict[str, int] = dict(conn.execute(sa.text(
            "SELECT a.name, count(*) FROM authors a JOIN books b ON b.author_id = a.id "
            "GROUP BY a.id")).all())  # fmt: skip
    engine.dispose()
    assert counts == want
    joined_note(res)


async def test_a_count_through_has_many_counts_records_once(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "how many authors have fantasy books")
    want = ids(url, "SELECT count(DISTINCT a.id) FROM authors a JOIN books b "
                    "ON b.author_id = a.id WHERE b.genre = 'fantasy'")  # fmt: skip
    assert [i.data.get("count") for i in res.items] == want == [2]


async def test_a_single_table_question_joins_nothing(library: Any) -> None:
    leg, url = library
    res = await ask(leg, "fantasy books published after 2012")
    assert answered_by(res) == {"books"}
    assert not [n for n in res.notes if n.startswith("joined ")]
    assert "." not in str(res.dsl.get("wheres"))
    want = ids(url, "SELECT id FROM books WHERE genre = 'fantasy' AND year > 2012")
    assert sorted(int(i.record_id) for i in res.items) == sorted(want)


async def test_two_paths_to_one_model_are_not_guessed(library: Any) -> None:
    """loans reach members as borrower and as lender: 'members in Oslo' could be either, so
    no join binds it; each path is named by its relation's name."""
    leg, _ = library
    ms = await leg.models()
    view = joined_view(ms["loans"], ms)
    assert view is not None
    borrower = [f for f in view.model.columns if f.endswith(".city")]
    assert len(borrower) == 2
    for field in borrower:  # no bare "city" and no sampled value names either path
        col = view.model.columns[field]
        assert "city" not in col.aliases
        assert not col.values
    res = await ask(leg, "loans of members in Oslo", models=("loans",))
    assert ".city" not in str(res.dsl)
    assert any("oslo" in n for n in res.notes)  # the word is named, not used in silence
    # each path is named by its relation: "lender city" is the lender's, never the borrower's
    assert "lender city" in view.model.columns["lender.city"].aliases
    assert "lender city" not in view.model.columns["borrower.city"].aliases
    assert set(ms["loans"].joins) == {"books", "borrower", "lender"}


async def test_declared_relations_and_the_joined_models_permissions(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'library.sqlite'}"
    engine = sa.create_engine(url)
    create(engine)
    engine.dispose()
    leg = DBLeg(url, models(tenant=True))
    try:
        res = await ask(leg, "books of authors from Norway", principal=Principal(tenant="north"),
                        models=("books",))  # fmt: skip
        want = ids(url, "SELECT b.id FROM books b JOIN authors a ON a.id = b.author_id "
                        "WHERE a.country = 'Norway' AND a.tenant = 'north'")  # fmt: skip
        assert sorted(int(i.record_id) for i in res.items) == sorted(want) and want
        res = await ask(leg, "books of authors from Norway", principal=Principal(tenant="south"),
                        models=("books",))  # fmt: skip
        assert res.items == ()  # the authors are another tenant's: nothing joins
        # no caller at all: the joined model is protected, the answer is refused
        res = await ask(leg, "books of authors from Norway", models=("books",))
        assert res.items == ()
        report = next(r for r in res.reports if r.backend == "books")
        assert report.status is Status.DEGRADED and report.reason is Reason.FORBIDDEN
    finally:
        leg.close()


async def test_records_with_a_number_of_related_rows(library: Any) -> None:
    leg, url = library
    for question, sql_op in (("authors with at least 2 books", ">= 2"),
                             ("authors who have more than two books", "> 2"),
                             ("authors with exactly 1 book", "= 1")):  # fmt: skip
        res = await ask(leg, question)
        want = ids(url, "SELECT a.id FROM authors a JOIN books b ON b.author_id = a.id "
                        f"GROUP BY a.id HAVING count(*) {sql_op} ORDER BY a.id")  # fmt: skip
        assert want and [i.data["id"] for i in res.items] == want, question
        assert "books rows counted per authors" in joined_note(res)
