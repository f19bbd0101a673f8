"""A request's citation numbers in a records database on a local SQLite file, through the
standard library's ``sqlite3`` (issue #18): the same rows as
:class:`unifind.store._citation_ids.RecordCitationIds` without importing SQLAlchemy and
building every records table, which was about half a second of each CLI search.

Same table, columns and unique keys as ``store/_schema.py`` makes (a test checks the DDL
against SQLAlchemy's and that each side opens a file the other created); chosen only for
the embedded default and plain ``sqlite:///<file>`` URLs, SQLAlchemy keeps every other.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unifind.config import Settings

log = logging.getLogger(__name__)

#: Attempts when another process numbered the same request at the same moment.
TRIES = 5
#: What a concurrent writer looks like from here (SQLite's and PostgreSQL's words).
RACE = re.compile(r"locked|already exists|could not serialize", re.I)
#: Keys per ``IN (...)`` list: SQLite allows 32,766 bound parameters, others fewer.
BATCH = 500
TABLE = "unifind_citation_ids"
#: What SQLAlchemy's ``CreateTable(make_tables().citation_ids, if_not_exists=True)`` emits
#: on SQLite (tests/store compares the two), so either side may create the table first.
DDL = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    id INTEGER NOT NULL,
    scope VARCHAR(255) NOT NULL,
    request_id VARCHAR(255) NOT NULL,
    item_key VARCHAR(64) NOT NULL,
    number INTEGER NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uq_{TABLE}_key UNIQUE (scope, request_id, item_key),
    CONSTRAINT uq_{TABLE}_number UNIQUE (scope, request_id, number)
)"""
#: A plain file URL (SQLAlchemy's pysqlite form); anything else (a query string, memory,
#: an escaped character, another driver) stays with SQLAlchemy, which knows what it means.
_FILE_URL = re.compile(r"sqlite(?:\+pysqlite)?:///([^?#%]+)")


def scope_of(tenant: str | None) -> str:
    """The row scope of a tenant: ``-`` for none (NULLs are never equal in a UNIQUE index)."""
    return "-" if tenant is None else f"t:{tenant}"


def digest(key: str) -> str:
    """The stored form of an item key: its sha256 (a URL may be longer than an index)."""
    return hashlib.sha256(key.encode()).hexdigest()


def numbered(
    request_id: str,
    keys: Sequence[str],
    attempt: Callable[[list[str]], list[int]],
    is_race: Callable[[Exception], bool],
) -> list[int] | None:
    """Both stores' ``assign``: ``attempt`` the key digests up to TRIES times while
    ``is_race`` says another writer was in the way; None (the caller numbers in its own
    process) when the database can't answer, since a records fault never fails a search."""
    if not keys:
        return []
    digests = [digest(k) for k in keys]
    try:
        for _ in range(TRIES):
            try:
                return attempt(digests)
            except Exception as exc:
                if not is_race(exc):
                    raise
                time.sleep(0.02)
    except Exception as exc:
        log.warning("citation numbers of %r not kept in the records: %s", request_id, exc)
        return None
    log.warning("citation numbers of %r: %d conflicting writers, numbered here",
                request_id, TRIES)  # fmt: skip
    return None


def sqlite_file(settings: Settings) -> Path | None:
    """The records file when the records live in a local SQLite file this module can
    serve, else None (another database: the SQLAlchemy store numbers)."""
    url = getattr(settings, "records_url", None)
    if not url:
        return settings.ensure_home() / "records.sqlite"
    m = _FILE_URL.fullmatch(url)
    if m is None or m.group(1) == ":memory:":
        return None
    return Path(m.group(1))


def _locked(exc: Exception) -> bool:
    """Another process holds the write lock past the timeout: try again."""
    return isinstance(exc, sqlite3.OperationalError) and bool(RACE.search(str(exc)))


class SqliteCitationIds:
    """Citation numbers of one tenant's requests in a SQLite records file."""

    def __init__(self, path: Path, tenant: str | None, timeout_s: float = 5.0) -> None:
        self.path, self.scope, self.timeout_s = path, scope_of(tenant), timeout_s
        self._ready = False
        self._lock = threading.Lock()

    def assign(self, request_id: str, keys: Sequence[str]) -> list[int] | None:
        """The number of each key (a known key keeps its own, a new one takes the next);
        None when the database can't answer (the caller numbers in its own process)."""
        return numbered(
            request_id, keys, lambda digests: self._assign(request_id, digests), _locked
        )

    def _connect(self) -> sqlite3.Connection:
        # Autocommit: the transaction is the explicit BEGIN IMMEDIATE below.
        conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
        if not self._ready:
            with self._lock:
                conn.execute(DDL)
                self._ready = True
        return conn

    def _assign(self, request_id: str, digests: list[str]) -> list[int]:
        conn = self._connect()
        try:
            # The write lock before the first read: no other writer can take the numbers
            # this one is about to give, so the unique keys are a guard, never a path.
            conn.execute("BEGIN IMMEDIATE")
            try:
                known = self._known(conn, request_id, list(dict.fromkeys(digests)))
                new = [d for d in dict.fromkeys(digests) if d not in known]
                if new:
                    known.update(self._insert(conn, request_id, new))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()
        return [known[d] for d in digests]

    def _known(
        self, conn: sqlite3.Connection, request_id: str, wanted: list[str]
    ) -> dict[str, int]:
        known: dict[str, int] = {}
        for i in range(0, len(wanted), BATCH):
            part = wanted[i : i + BATCH]
            marks = ",".join("?" * len(part))  # placeholders only: the keys stay parameters
            rows = conn.execute(
                f"SELECT item_key, number FROM {TABLE} WHERE scope = ? AND request_id = ?"
                f" AND item_key IN ({marks})",
                (self.scope, request_id, *part),
            )
            known.update({str(k): int(n) for k, n in rows})
        return known

    def _insert(self, conn: sqlite3.Connection, request_id: str, new: list[str]) -> dict[str, int]:
        (last,) = conn.execute(
            f"SELECT max(number) FROM {TABLE} WHERE scope = ? AND request_id = ?",
            (self.scope, request_id),
        ).fetchone()
        # SQLAlchemy's SQLite DATETIME text, so its store reads these rows back.
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        numbered = {d: (last or 0) + n for n, d in enumerate(new, start=1)}
        conn.executemany(
            f"INSERT INTO {TABLE} (scope, request_id, item_key, number, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(self.scope, request_id, d, n, now) for d, n in numbered.items()],
        )
        return numbered
