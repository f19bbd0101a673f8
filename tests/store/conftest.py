"""Record-store fixtures: the same tests on a SQLite file and on a real PostgreSQL server.

The PostgreSQL store lives in a schema with a random name, dropped afterwards; it is skipped
(with the reason) when no server answers at UNIFIND_TEST_PG_DSN.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from unifind.store import RecordStore

PG_DSN = os.environ.get("UNIFIND_TEST_PG_DSN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def pg_engine() -> Iterator[sa.Engine]:
    pytest.importorskip("psycopg", reason='the PostgreSQL driver: pip install "unifind[postgres]"')
    engine = sa.create_engine(PG_DSN, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as exc:
        engine.dispose()
        pytest.skip(f"no PostgreSQL server at {PG_DSN} (set UNIFIND_TEST_PG_DSN): {exc.orig}")
    yield engine
    engine.dispose()


@pytest.fixture
def pg_schema(pg_engine: sa.Engine) -> Iterator[str]:
    schema = f"unifind_records_{secrets.token_hex(4)}"
    with pg_engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield schema
    finally:
        with pg_engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RecordStore]:
    """A fresh, empty record store on each backend."""
    if request.param == "sqlite":
        rs = RecordStore(f"sqlite:///{tmp_path / 'records.sqlite'}")
    else:
        schema = request.getfixturevalue("pg_schema")
        rs = RecordStore(PG_DSN, schema=schema, table_prefix="t_")
    try:
        yield rs
    finally:
        rs.drop_tables()
        rs.close()
