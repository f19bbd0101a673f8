"""A small library schema written for the join-generation tests (issue #19), no benchmark
data: authors ← books ← loans → members (twice: borrower and lender). Declared the plain
way the Spider bench declares tables (a type and a short description per column, text
searchable, no aliases); relations come from the foreign keys unless declared."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

AUTHORS = [
    # id, name, country, tenant
    (1, "Ada Berg", "Norway", "north"),
    (2, "Bruno Costa", "Brazil", "south"),
    (3, "Carl Holm", "Norway", "north"),
    (4, "Dina Rao", "India", "south"),
    (5, "Emil Sand", "Sweden", "north"),
]
BOOKS = [
    # id, title, author_id, genre, year, pages
    (1, "Fjord Light", 1, "poetry", 1998, 120),
    (2, "Ice Roads", 1, "travel", 2004, 310),
    (3, "Samba Nights", 2, "fantasy", 2011, 420),
    (4, "Northern Dragons", 3, "fantasy", 2015, 520),
    (5, "Winter Harbour", 3, "fantasy", 2019, 380),
    (6, "Monsoon Letters", 4, "poetry", 2001, 150),
    (7, "Old Pines", 3, "travel", 1990, 260),
    (8, "Spice Coast", 4, "travel", 2008, 290),
]
MEMBERS = [
    # id, name, city
    (1, "Kari Lund", "Oslo"),
    (2, "Lars Vik", "Bergen"),
    (3, "Mia Dahl", "Oslo"),
]
LOANS = [
    # id, book_id, borrower_id, lender_id, days
    (1, 3, 1, 2, 14),
    (2, 4, 2, 1, 7),
    (3, 4, 3, 2, 21),
    (4, 1, 1, 3, 3),
]

DDL = [
    "CREATE TABLE authors (id INTEGER PRIMARY KEY, name VARCHAR(40), country VARCHAR(40), "
    "tenant VARCHAR(10))",
    "CREATE TABLE books (id INTEGER PRIMARY KEY, title VARCHAR(60), author_id INTEGER "
    "REFERENCES authors(id), genre VARCHAR(20), year INTEGER, pages INTEGER)",
    "CREATE TABLE members (id INTEGER PRIMARY KEY, name VARCHAR(40), city VARCHAR(40))",
    "CREATE TABLE loans (id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES books(id), "
    "borrower_id INTEGER REFERENCES members(id), lender_id INTEGER REFERENCES members(id), "
    "days INTEGER)",
]


def create(engine: sa.Engine, schema: str | None = None) -> None:
    """The four tables with their rows (in ``schema`` on PostgreSQL)."""
    with engine.begin() as conn:
        if schema:
            conn.execute(sa.text(f'SET search_path TO "{schema}"'))
        for ddl in DDL:
            conn.execute(sa.text(ddl))
        for table, rows in (("authors", AUTHORS), ("books", BOOKS), ("members", MEMBERS),
                            ("loans", LOANS)):  # fmt: skip
            marks = ", ".join(f":p{i}" for i in range(len(rows[0])))
            conn.execute(sa.text(f"INSERT INTO {table} VALUES ({marks})"),
                         [{f"p{i}": v for i, v in enumerate(r)} for r in rows])  # fmt: skip


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description, "searchable": True}


def _number(description: str) -> dict[str, Any]:
    return {"type": "integer", "description": description}


def models(schema: str | None = None, *, tenant: bool = False) -> dict[str, Any]:
    """The models; with ``tenant`` the authors are tenant-protected (relations declared,
    since the model then declares what it joins)."""
    out: dict[str, Any] = {
        "authors": {"description": "authors", "columns": {
            "id": _number("id"), "name": _text("name"), "country": _text("country")}},
        "books": {"description": "books", "columns": {
            "id": _number("id"), "title": _text("title"), "author_id": _number("author id"),
            "genre": _text("genre"), "year": _number("year"), "pages": _number("pages")}},
        "members": {"description": "members", "columns": {
            "id": _number("id"), "name": _text("name"), "city": _text("city")}},
        "loans": {"description": "loans", "columns": {
            "id": _number("id"), "book_id": _number("book id"),
            "borrower_id": _number("borrower id"), "lender_id": _number("lender id"),
            "days": _number("days")}},
    }  # fmt: skip
    if schema:
        for m in out.values():
            m["schema"] = schema
    if tenant:
        out["authors"]["permissions"] = {"tenant": "tenant"}
        out["authors"]["relations"] = {
            "books": {"model": "books", "type": "has_many", "key": "author_id", "foreign": "id"}
        }
        out["books"]["relations"] = {
            "authors": {"model": "authors", "key": "id", "foreign": "author_id"}
        }
    return out
