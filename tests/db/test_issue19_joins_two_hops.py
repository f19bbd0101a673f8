"""Issue #19: the builtin generator joins two relations away — along a chain of belongs_to
(loans → books → authors) or through a link table (members → loans → books) — and never
along two paths to one model. The library schema of tests/db/_joins_gen_schema.py, every
answer checked against hand-written SQL on the same database, on every dialect."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from unifind.db._pick import pick_one
from unifind.db.generate._view import joined_view
from unifind.db.leg import DBLeg
from unifind.db.models import Model
from unifind.types import LegReport, Principal, Reason, Status

from ._joins_gen_schema import models
from ._library_dialects import DIALECTS, RELATIONS, ask, declared, library, oracle
from ._library_dialects import sqlite_library as _sqlite

CHAIN = ("SELECT l.id FROM loans l JOIN books b ON b.id = l.book_id "
         "JOIN authors a ON a.id = b.author_id WHERE a.country = 'Brazil'")  # fmt: skip


@pytest.fixture(scope="module", params=DIALECTS)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str | None]]:
    yield from library(request.param, tmp_path_factory.mktemp(request.param))


def join_note(res: Any) -> str:
    notes: list[str] = [n for n in res.notes if n.startswith("joined ")]
    assert notes, f"no note names the join: {res.notes}"
    return notes[0]


async def test_a_chain_of_belongs_to_on_every_dialect(db: tuple[str, str | None]) -> None:
    url, schema = db
    want = oracle(url, schema, CHAIN)
    assert want == [1]
    leg = DBLeg(url, declared(schema))
    try:
        res = await ask(leg, "loans of books by authors from Brazil", models=("loans",))
        assert [int(i.data["id"]) for i in res.items] == want
        assert "books.authors.country" in str(res.dsl)
        assert join_note(res) == (
            "joined loans with books, authors (loans.book_id = books.id; "
            "books.author_id = authors.id)"
        )
    finally:
        leg.close()


async def test_through_a_link_table(tmp_path: Path) -> None:
    """members → loans (as borrower) → books: 'members who borrowed poetry books'."""
    ((url, _),) = [next(_sqlite(tmp_path))]
    spec = declared()
    spec["members"]["relations"] = {"borrowed": RELATIONS["members"]["borrowed"]}
    want = oracle(url, None, "SELECT DISTINCT m.id FROM members m JOIN loans l "
                             "ON l.borrower_id = m.id JOIN books b ON b.id = l.book_id "
                             "WHERE b.genre = 'poetry'")  # fmt: skip
    leg = DBLeg(url, spec)
    try:
        res = await ask(leg, "members who borrowed poetry books", models=("members",))
        assert [int(i.data["id"]) for i in res.items] == want == [1]
        assert "borrowed.books.genre" in str(res.dsl)
        assert "joined members with loans, books" in join_note(res)
    finally:
        leg.close()


async def test_two_paths_to_one_model_are_not_joined(tmp_path: Path) -> None:
    """books reach members through loans twice (borrower, lender): no column of members is
    in the view of books, so 'members in Oslo' binds nothing there."""
    ((url, _),) = [next(_sqlite(tmp_path))]
    leg = DBLeg(url, models())
    try:
        ms = await leg.models()
        view = joined_view(ms["books"], ms)
        assert view is not None
        assert not [f for f in view.model.columns if f.count(".") == 2]
        # a chain is there: loans → books → authors
        loans = joined_view(ms["loans"], ms)
        assert loans is not None and "books.authors.country" in loans.model.columns
        res = await ask(leg, "books borrowed by members in Oslo", models=("books",))
        assert "city" not in str(res.dsl)
    finally:
        leg.close()


async def test_the_far_models_permissions_apply(tmp_path: Path) -> None:
    ((url, _),) = [next(_sqlite(tmp_path))]
    want = oracle(url, None, CHAIN)
    leg = DBLeg(url, models(tenant=True))  # authors belong to tenants
    try:
        question = "loans of books by authors from Brazil"
        res = await ask(leg, question, Principal(tenant="south"), models=("loans",))
        assert [int(i.data["id"]) for i in res.items] == want
        res = await ask(leg, question, Principal(tenant="north"), models=("loans",))
        assert res.items == ()  # the Brazilian author is the south's
        res = await ask(leg, question, models=("loans",))
        report = next(r for r in res.reports if r.backend == "loans")
        assert report.status is Status.DEGRADED and report.reason is Reason.FORBIDDEN
    finally:
        leg.close()


async def test_far_text_is_searched_only_when_the_question_names_that_model(
    tmp_path: Path,
) -> None:
    """Two relations away, a word found only in that model's text ("holm", an author's
    name) is searched there only when the question names the model: a loose match in text
    the question never pointed at would make a far reading look like a fit."""
    ((url, _),) = [next(_sqlite(tmp_path))]
    want = oracle(url, None, "SELECT l.id FROM loans l JOIN books b ON b.id = l.book_id "
                             "JOIN authors a ON a.id = b.author_id WHERE a.name LIKE '%Holm%' "
                             "ORDER BY l.id")  # fmt: skip
    leg = DBLeg(url, models())
    try:
        res = await ask(leg, "loans of books by the author Holm", models=("loans",))
        assert sorted(int(i.data["id"]) for i in res.items) == want == [2, 3]
        assert "books.authors.name" in str(res.dsl)
        res = await ask(leg, "loans of holm", models=("loans",))
        assert "books.authors" not in str(res.dsl)
        assert res.status.value == "partial"  # the word is named as not understood
    finally:
        leg.close()


def test_between_equal_fits_the_reading_fewer_relations_away_answers() -> None:
    @dataclass
    class Run:
        model: str
        dsl: dict[str, Any] | None
        items: list[Any] = field(default_factory=list)
        notes: list[str] = field(default_factory=list)
        unknown: int = 0
        off_topic: bool = False
        report: LegReport | None = None

    def run(model: str, path: str) -> Run:
        ok = LegReport(leg="db", backend=model, status=Status.OK)
        return Run(model, {"model": model, "wheres": [{"field": path, "value": 1}]}, report=ok)

    ms = {n: Model.model_validate({"name": n, "columns": {"id": {"type": "integer"}}})
          for n in ("far", "near")}  # fmt: skip
    runs = [run("far", "a.b.id"), run("near", "b.id")]
    notes = pick_one(runs, ms, "which ones have id 1")
    assert "answered from model near" in notes[0]
    assert runs[0].report is not None and runs[0].report.status is Status.SKIPPED
    # a sort along a join counts too ("counties sorted by population" read on parties)
    own, far = run("near", "id"), run("far", "id")
    far.dsl = {"model": "far", "orders": [{"field": "a.b.id"}]}
    notes = pick_one([far, own], ms, "which ones have id 1")
    assert "answered from model near" in notes[0]
