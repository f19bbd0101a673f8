"""Read-only execution with a row cap, a statement timeout and real cancellation.

Sessions are synchronous SQLAlchemy run in a worker thread. The timeout is enforced by the
database where it can be: SQLite through a progress handler that aborts the statement
(https://www.sqlite.org/c3ref/progress_handler.html), PostgreSQL through a transaction-local
``statement_timeout`` (https://www.postgresql.org/docs/15/runtime-config-client.html),
MariaDB through ``max_statement_time`` and MySQL through ``max_execution_time`` (both session
variables set before each statement), DuckDB through ``Connection.interrupt`` from a timer.
Cancelling the awaiting task interrupts the running statement (``sqlite3_interrupt``, libpq's
cancel request via psycopg's ``Connection.cancel``, ``KILL QUERY`` on MySQL/MariaDB, DuckDB's
``interrupt``). Read-only is enforced twice: the compiler only builds SELECTs, and the
connection itself refuses writes (SQLite ``PRAGMA query_only``, PostgreSQL
``default_transaction_read_only``, MySQL/MariaDB ``SET SESSION TRANSACTION READ ONLY``,
DuckDB files opened ``read_only``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from unifind.errors import ConfigError, SourceError
from unifind.types import Reason

#: Extra seconds the awaiting side allows past the database's own timeout before giving up.
GRACE_S = 0.5
#: SQLite VM instructions between progress-handler calls: ~sub-millisecond on current CPUs.
PROGRESS_STEPS = 1000


#: The extra that installs each backend's driver.
EXTRAS = {"postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "duckdb": "duckdb"}


def make_engine(
    url: str, *, connect_timeout_s: float = 5.0, statement_timeout_s: float | None = None
) -> sa.Engine:
    """An engine whose connections refuse writes; a missing driver names its extra.

    ``statement_timeout_s``: on PostgreSQL, every connection starts with that
    ``statement_timeout`` (a startup option), so a statement run under it needs no
    ``set_config`` and no transaction of its own (:class:`Executor`).

    No pool pre-ping (a round trip before every statement): a pooled connection the server
    dropped (a restart, an idle timeout) fails its statement as a disconnect, SQLAlchemy
    invalidates the pool, and :class:`Executor` runs the read once more on a new connection."""
    try:
        return _make_engine(url, connect_timeout_s, statement_timeout_s)
    except (ImportError, sa.exc.NoSuchModuleError) as exc:
        backend = sa.make_url(url).get_backend_name()
        extra = EXTRAS.get(backend)
        hint = f'pip install "unifind[{extra}]"' if extra else "install its SQLAlchemy driver"
        raise ConfigError(f"the {backend} driver is not installed: {hint} ({exc})") from None


def _make_engine(
    url: str, connect_timeout_s: float, statement_timeout_s: float | None = None
) -> sa.Engine:
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = sa.create_engine(parsed)

        @sa.event.listens_for(engine, "connect")
        def _read_only(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.execute("PRAGMA query_only = ON")

        return engine
    if parsed.get_backend_name() == "postgresql":
        options = "-c default_transaction_read_only=on"
        if statement_timeout_s is not None:
            options += f" -c statement_timeout={_ms(statement_timeout_s)}"
        return sa.create_engine(
            parsed,
            connect_args={
                "options": options,
                "connect_timeout": max(1, int(connect_timeout_s)),
            },
        )
    if parsed.get_backend_name() in ("mysql", "mariadb"):
        return sa.create_engine(
            parsed,
            connect_args={
                "connect_timeout": max(1, int(connect_timeout_s)),
                "init_command": "SET SESSION TRANSACTION READ ONLY",
            },
        )
    if parsed.get_backend_name() == "duckdb":
        path = parsed.database or ""
        on_disk = path not in ("", ":memory:") and not path.startswith(":memory:")
        # An in-memory DuckDB can't open read-only; it is empty unless the caller filled it.
        return sa.create_engine(parsed, connect_args={"read_only": True} if on_disk else {})
    return sa.create_engine(parsed, pool_pre_ping=True)


def missing_sqlite_file(url: str) -> Path | None:
    """The path of a SQLite URL whose file does not exist (SQLite would create it empty)."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    if parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return None
    path = Path(parsed.database)
    return None if path.exists() else path


class _Handle:
    """Shared between the awaiting task and the worker thread to stop a statement."""

    def __init__(self, timeout_s: float) -> None:
        self.deadline = time.monotonic() + timeout_s
        self.cancelled = threading.Event()
        self.raw: Any = None
        self.backend = ""
        self.engine: sa.Engine | None = None
        self.timer: threading.Timer | None = None

    def expired(self) -> bool:
        return self.cancelled.is_set() or time.monotonic() > self.deadline

    def cancel(self) -> None:
        self.cancelled.set()
        raw = self.raw
        if raw is None:
            return
        try:
            if self.backend == "sqlite":
                raw.interrupt()  # sqlite3_interrupt is safe to call from another thread
            elif self.backend == "postgresql":
                getattr(raw, "cancel_safe", raw.cancel)()
            elif self.backend == "duckdb":
                raw.interrupt()
            elif self.backend in ("mysql", "mariadb") and self.engine is not None:
                # KILL QUERY needs a second connection: the first is busy with the statement.
                with self.engine.connect() as other:
                    other.exec_driver_sql(f"KILL QUERY {int(raw.thread_id())}")
        except Exception:
            pass


class _Dropped(Exception):
    """A statement failed because its pooled connection was gone (``Executor._run``)."""


class Executor:
    """Runs compiled SELECTs against one database."""

    def __init__(
        self,
        engine: sa.Engine,
        *,
        statement_timeout_s: float = 10.0,
        engine_timeout_s: float | None = None,
    ) -> None:
        """``engine_timeout_s``: the ``statement_timeout`` the engine's PostgreSQL connections
        start with (:func:`make_engine`); a statement under exactly that limit runs in
        autocommit — no BEGIN, ``set_config`` or ROLLBACK round trip (the connections are
        read-only by their startup option, so no transaction is needed to keep them so)."""
        self.engine = engine
        self.statement_timeout_s = statement_timeout_s
        self.backend = engine.dialect.name
        self._session_ms = None if engine_timeout_s is None else _ms(engine_timeout_s)

    async def fetch(
        self, stmt: sa.Select[Any], *, timeout_s: float | None = None
    ) -> list[dict[str, Any]]:
        """Rows as JSON-ready dicts; failures raise SourceError with a reason."""
        limit = min(timeout_s or self.statement_timeout_s, self.statement_timeout_s)
        handle = _Handle(limit)
        try:
            # asyncio.timeout, not wait_for: no extra task per statement.
            async with asyncio.timeout(limit + GRACE_S):
                return await asyncio.to_thread(self._run, stmt, handle, limit)
        except TimeoutError:
            handle.cancel()
            raise SourceError(Reason.TIMEOUT, f"statement exceeded {limit:g}s") from None
        except asyncio.CancelledError:
            handle.cancel()
            raise

    def _run(self, stmt: sa.Select[Any], handle: _Handle, limit: float) -> list[dict[str, Any]]:
        try:
            return self._attempt(stmt, handle, limit)
        except _Dropped:
            # The pooled connection was gone (the server restarted or closed it while idle);
            # SQLAlchemy has invalidated the pool: a read is safe to run once more.
            return self._attempt(stmt, handle, limit, last=True)

    def _attempt(
        self, stmt: sa.Select[Any], handle: _Handle, limit: float, last: bool = False
    ) -> list[dict[str, Any]]:
        handle.backend = self.backend
        handle.engine = self.engine
        try:
            with self.engine.connect() as conn:
                if self.backend == "postgresql" and _ms(limit) == self._session_ms:
                    conn.execution_options(isolation_level="AUTOCOMMIT")
                raw = conn.connection.driver_connection
                handle.raw = raw
                if handle.cancelled.is_set():
                    raise SourceError(Reason.CANCELLED, "cancelled before the statement ran")
                self._arm(conn, raw, handle, limit)
                try:
                    rows = conn.execute(stmt).mappings().all()
                finally:
                    handle.raw = None
                    if handle.timer is not None:
                        handle.timer.cancel()
                    if self.backend == "sqlite" and raw is not None:
                        raw.set_progress_handler(None, 0)
                    conn.rollback()
        except sa.exc.DBAPIError as exc:
            if not last and exc.connection_invalidated and not handle.expired():
                raise _Dropped from exc
            raise _classify(exc, handle, limit) from exc
        except ValueError as exc:
            # A stored value the column's type can't read (SQLite keeps any text in a DATE
            # column: '27-MAR-2004'): the source's data, reported, never a raise (issue #19).
            raise SourceError(
                Reason.ERROR,
                f"a stored value does not read as its column's type ({exc}); declare that "
                "column's type as string in the model",
            ) from exc
        return [{k: _plain(v) for k, v in row.items()} for row in rows]

    def _arm(self, conn: sa.Connection, raw: Any, handle: _Handle, limit: float) -> None:
        if self.backend == "sqlite":
            raw.set_progress_handler(lambda: 1 if handle.expired() else 0, PROGRESS_STEPS)
        elif self.backend == "postgresql" and _ms(limit) != self._session_ms:
            # set_config(..., true) is transaction-local and, unlike SET, takes bound params.
            conn.execute(
                sa.text("SELECT set_config('statement_timeout', :ms, true)"),
                {"ms": str(_ms(limit))},
            )
        elif self.backend in ("mysql", "mariadb"):
            if getattr(conn.dialect, "is_mariadb", False):
                conn.exec_driver_sql(f"SET SESSION max_statement_time = {max(0.001, limit):.3f}")
            else:
                conn.exec_driver_sql(
                    f"SET SESSION max_execution_time = {max(1, int(limit * 1000))}"
                )
        elif self.backend == "duckdb":
            handle.timer = threading.Timer(limit, raw.interrupt)
            handle.timer.daemon = True
            handle.timer.start()


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _classify(exc: sa.exc.DBAPIError, handle: _Handle, limit: float) -> SourceError:
    text = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if handle.cancelled.is_set() and not time.monotonic() > handle.deadline:
        return SourceError(Reason.CANCELLED, "the statement was cancelled")
    errno = exc.orig.args[0] if exc.orig is not None and exc.orig.args else None
    timed_out = sqlstate == "57014" or errno in (1969, 3024) or "interrupted" in text.lower()
    if timed_out:
        return SourceError(Reason.TIMEOUT, f"statement exceeded {limit:g}s and was stopped")
    if exc.connection_invalidated or _unreachable(text, sqlstate):
        return SourceError(Reason.UNREACHABLE, f"cannot reach the database: {text}")
    return SourceError(Reason.ERROR, f"database error: {text}")


def _unreachable(text: str, sqlstate: str | None) -> bool:
    if sqlstate and sqlstate.startswith("08"):  # SQLSTATE class 08: connection exception
        return True
    needles = ("connection refused", "could not connect", "unable to open", "connection failed",
               "server closed", "timeout expired", "name or service not known",
               "can't connect")  # fmt: skip
    return any(n in text.lower() for n in needles)


def _plain(v: Any) -> Any:
    # Same row shape on every dialect: dates as ISO text, decimals as numbers.
    if isinstance(v, dt.date | dt.datetime | dt.time):
        return v.isoformat()
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v


def source_error(exc: sa.exc.DBAPIError) -> SourceError:
    """A driver error outside a statement (connecting, reading the schema) as a SourceError."""
    return _classify(exc, _Handle(DEFAULT_SCHEMA_TIMEOUT_S), DEFAULT_SCHEMA_TIMEOUT_S)


DEFAULT_SCHEMA_TIMEOUT_S = 30.0
