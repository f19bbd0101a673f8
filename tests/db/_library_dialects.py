"""The library schema (tests/db/_joins_gen_schema.py) on every dialect, for the join tests
of issue #19: SQLite, PostgreSQL (UNIFIND_TEST_PG_DSN), MySQL/MariaDB
(UNIFIND_TEST_MYSQL_DSN) and DuckDB, each skipped with the reason when its server or driver
is missing; every relation declared (MySQL and DuckDB reflect none here)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.db.leg import DBLeg
from unifind.types import Principal, SearchRequest

from ._joins_gen_schema import create, models
from ._servers import PG_DSN, mysql_database, pg_schema

DIALECTS = ["sqlite", "postgresql", "mysql", "duckdb"]

#: Every relation of the schema, declared (DuckDB and MySQL reflect none here).
RELATIONS: dict[str, dict[str, Any]] = {
    "authors": {"books": {"model": "books", "type": "has_many", "key": "author_id",
                          "foreign": "id"}},
    "books": {"authors": {"model": "authors", "key": "id", "foreign": "author_id"},
              "loans": {"model": "loans", "type": "has_many", "key": "book_id",
                        "foreign": "id"}},
    "members": {"borrowed": {"model": "loans", "type": "has_many", "key": "borrower_id",
                             "foreign": "id"},
                "lent": {"model": "loans", "type": "has_many", "key": "lender_id",
                         "foreign": "id"}},
    "loans": {"books": {"model": "books", "key": "id", "foreign": "book_id"},
              "borrower": {"model": "members", "key": "id", "foreign": "borrower_id"},
              "lender": {"model": "members", "key": "id", "foreign": "lender_id"}},
}  # fmt: skip


def declared(schema: str | None = None, *, tenant: bool = False) -> dict[str, Any]:
    out = models(schema, tenant=tenant)
    for name, rels in RELATIONS.items():
        out[name]["relations"] = rels
    return out


def sqlite_library(tmp: Path) -> Iterator[tuple[str, str | None]]:
    url = f"sqlite:///{tmp / 'library.sqlite'}"
    engine = sa.create_engine(url)
    create(engine)
    engine.dispose()
    yield url, None


def _pg() -> Iterator[tuple[str, str | None]]:
    with pg_schema("unifind_absent") as (engine, schema):
        create(engine, schema)
        yield PG_DSN, schema


def _mysql() -> Iterator[tuple[str, str | None]]:
    with mysql_database("unifind_absent") as url:
        writer = sa.create_engine(url)
        create(writer)
        writer.dispose()
        yield url, None


def _duckdb(tmp: Path) -> Iterator[tuple[str, str | None]]:
    pytest.importorskip("duckdb_engine", reason='DuckDB: pip install "unifind[duckdb]"')
    url = f"duckdb:///{tmp / 'library.duckdb'}"
    writer = sa.create_engine(url)
    create(writer)
    writer.dispose()
    yield url, None


def library(dialect: str, tmp: Path) -> Iterator[tuple[str, str | None]]:
    """The schema on ``dialect``: (url, PostgreSQL schema or None), dropped afterwards."""
    makers: dict[str, Callable[[], Iterator[tuple[str, str | None]]]] = {
        "sqlite": lambda: sqlite_library(tmp), "postgresql": _pg, "mysql": _mysql,
        "duckdb": lambda: _duckdb(tmp),
    }  # fmt: skip
    gen = makers[dialect]()
    yield next(gen)
    next(gen, None)


def oracle(url: str, schema: str | None, sql: str) -> list[Any]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if schema:
                conn.execute(sa.text(f'SET search_path TO "{schema}"'))
            return [r[0] for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


async def ask(leg: DBLeg, question: str, principal: Principal | None = None, **kw: Any) -> Any:
    return await leg.search(SearchRequest(type="db", query=question, limit=100, **kw),
                            principal=principal)  # fmt: skip
