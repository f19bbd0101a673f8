"""Scratch space on the database servers the DB tests use: a PostgreSQL schema
(UNIFIND_TEST_PG_DSN) or a MySQL/MariaDB database (UNIFIND_TEST_MYSQL_DSN), made for one
fixture and dropped after it; the test is skipped, with the reason, when the driver is not
installed or no server answers."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

PG_DSN = os.environ.get("UNIFIND_TEST_PG_DSN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MYSQL_DSN = os.environ.get("UNIFIND_TEST_MYSQL_DSN", "mysql+pymysql://root@127.0.0.1:3306/test")


def _answering(dsn: str, server: str, env: str) -> sa.Engine:
    engine = sa.create_engine(dsn, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError as exc:
        engine.dispose()
        pytest.skip(f"no {server} server at {dsn} (set {env}): {exc.orig}")
    return engine


@contextlib.contextmanager
def pg_schema(prefix: str) -> Iterator[tuple[sa.Engine, str]]:
    """An engine on PG_DSN and a new schema ``<prefix>_<random hex>``, dropped afterwards."""
    pytest.importorskip("psycopg", reason='the PostgreSQL driver: pip install "unifind[postgres]"')
    engine = _answering(PG_DSN, "PostgreSQL", "UNIFIND_TEST_PG_DSN")
    schema = f"{prefix}_{secrets.token_hex(4)}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield engine, schema
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


@contextlib.contextmanager
def mysql_database(prefix: str) -> Iterator[str]:
    """The URL of a new database ``<prefix>_<random hex>`` on MYSQL_DSN, dropped afterwards."""
    pytest.importorskip("pymysql", reason='the MySQL driver: pip install "unifind[mysql]"')
    admin = _answering(MYSQL_DSN, "MySQL/MariaDB", "UNIFIND_TEST_MYSQL_DSN")
    name = f"{prefix}_{secrets.token_hex(4)}"
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE `{name}`")
    try:
        yield sa.make_url(MYSQL_DSN).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            # A connection a test left open (its transaction holds a metadata lock) would
            # make DROP DATABASE wait for ever: end them first, and wait at most 30 s.
            left = conn.exec_driver_sql(
                "SELECT id FROM information_schema.processlist WHERE db = %s AND id <> "
                "CONNECTION_ID()",
                (name,),
            ).all()
            for (pid,) in left:
                with contextlib.suppress(sa.exc.DBAPIError):
                    conn.exec_driver_sql(f"KILL {int(pid)}")
            conn.exec_driver_sql("SET SESSION lock_wait_timeout = 30")
            conn.exec_driver_sql(f"DROP DATABASE `{name}`")
        admin.dispose()
