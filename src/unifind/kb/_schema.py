"""The SQLite store's file layout: one file is the system of record for a whole KB.

Every derived index (the in-memory BM25 postings, the vector matrix, the HNSW sidecar)
follows the ``changes`` log: a row per chunk added or deleted, in commit order. Chunk
rowids come from ``AUTOINCREMENT``, so they are never reused and grow with the log
(https://sqlite.org/autoinc.html): a follower can append new chunks in rowid order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from unifind.errors import StoreError

SCHEMA_VERSION = 2
#: ``PRAGMA application_id`` marks the file as ours ("UnFd"), so we never adopt a foreign DB
#: (https://sqlite.org/pragma.html#pragma_application_id).
APPLICATION_ID = 0x556E4664
#: What the WAL file is cut back to once a checkpoint has copied it all into the database:
#: without a limit it keeps the size of the largest write since it was opened (a bulk
#: ingest or migration can leave gigabytes) and SQLite reuses it rather than shrink it
#: (https://sqlite.org/pragma.html#pragma_journal_size_limit). Per connection, not stored.
JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024

_DDL = """
CREATE TABLE collections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    embedder TEXT,
    dim INTEGER,
    analyzer TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    -- changes with seq <= log_floor may have been trimmed: followers older than it rebuild.
    log_floor INTEGER NOT NULL DEFAULT 0,
    doc_count INTEGER NOT NULL DEFAULT 0,
    chunk_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    document_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    mime TEXT NOT NULL,
    text_chars INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    UNIQUE (collection_id, document_id)
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL
);
CREATE INDEX chunks_doc ON chunks(doc);
-- One vocabulary for the file: postings blobs hold term ids, so building the in-memory
-- index is a numpy sort instead of a Python loop over every (term, chunk) pair.
CREATE TABLE terms (
    id INTEGER PRIMARY KEY,
    term TEXT NOT NULL UNIQUE
);
CREATE TABLE chunk_terms (
    chunk INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    length INTEGER NOT NULL,
    postings BLOB NOT NULL
);
CREATE TABLE chunk_vectors (
    chunk INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    vector BLOB NOT NULL
);
CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    collection_id INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    op TEXT NOT NULL CHECK (op IN ('add', 'del'))
);
CREATE INDEX changes_collection ON changes(collection_id, seq);
""" + "\n".join(
    [
        # Sizes kept by triggers in the writing transaction: reading them is O(1), where
        # counting documents cost ~15 ms per query at 200k chunks.
        "CREATE TRIGGER documents_added AFTER INSERT ON documents BEGIN UPDATE collections"
        " SET doc_count = doc_count + 1, chunk_count = chunk_count + NEW.chunks"
        " WHERE id = NEW.collection_id; END;",
        "CREATE TRIGGER documents_removed AFTER DELETE ON documents BEGIN UPDATE collections"
        " SET doc_count = doc_count - 1, chunk_count = chunk_count - OLD.chunks"
        " WHERE id = OLD.collection_id; END;",
        "CREATE TRIGGER documents_rechunked AFTER UPDATE OF chunks ON documents BEGIN"
        " UPDATE collections SET chunk_count = chunk_count - OLD.chunks + NEW.chunks"
        " WHERE id = NEW.collection_id; END;",
    ]
)

#: Version 1 → 2: the size counters and their triggers.
_MIGRATE_1_TO_2 = (
    "ALTER TABLE collections ADD COLUMN doc_count INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE collections ADD COLUMN chunk_count INTEGER NOT NULL DEFAULT 0;"
    + "".join(line for line in _DDL.splitlines(keepends=True) if line.startswith("CREATE TRIGGER"))
    + "UPDATE collections SET"
    " doc_count = (SELECT count(*) FROM documents WHERE collection_id = collections.id),"
    " chunk_count = (SELECT coalesce(sum(chunks), 0) FROM documents"
    " WHERE collection_id = collections.id);"
)


def connect(path: Path, busy_timeout_ms: int) -> apsw.Connection:
    """Open one connection with the pragmas every connection needs."""
    try:
        conn = apsw.Connection(str(path))
        conn.set_busy_timeout(busy_timeout_ms)
        # foreign_keys is per connection and off by default (https://sqlite.org/foreignkeys.html).
        conn.execute("PRAGMA foreign_keys = ON")
        # NORMAL is durable across process crashes in WAL mode; only power loss can drop
        # the last commits (https://sqlite.org/pragma.html#pragma_synchronous).
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA journal_size_limit = {int(JOURNAL_SIZE_LIMIT)}")
    except apsw.Error as exc:
        raise StoreError(f"cannot open the SQLite KB store {path}: {exc}") from exc
    return conn


def empty_store() -> apsw.Connection:
    """An in-memory KB with the schema and nothing in it: what a local store whose files
    don't exist reads, without creating them (a search must not create a store)."""
    conn = apsw.Connection(":memory:")
    conn.execute(_DDL)
    return conn


def ensure_schema(conn: apsw.Connection, path: Path) -> None:
    """Create the schema in a new file, or check that an existing file is ours and current."""
    try:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchall()[0][0]
        with immediate(conn):
            version = _pragma(conn, "user_version")
            app_id = _pragma(conn, "application_id")
            if version == 0:
                tables = fetch(conn, "SELECT count(*) FROM sqlite_schema")[0][0]
                if tables:
                    raise StoreError(
                        f"{path} is an SQLite file but not a unifind KB store "
                        "(no unifind schema); point the store at a new file"
                    )
                conn.execute(_DDL)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                return
            if version == 1 and app_id == APPLICATION_ID:
                conn.execute(_MIGRATE_1_TO_2)
                conn.execute("PRAGMA user_version = 2")
                version = 2
    except apsw.Error as exc:
        raise StoreError(f"cannot open the SQLite KB store {path}: {exc}") from exc
    _check_version(path, app_id, version)
    if str(mode).lower() != "wal":
        raise StoreError(f"{path}: cannot switch to WAL journal mode (got {mode!r})")


def _check_version(path: Path, app_id: int, version: int) -> None:
    if app_id != APPLICATION_ID:
        raise StoreError(f"{path} is not a unifind KB store (application_id {app_id:#x})")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has KB schema version {version}, newer than this unifind supports "
            f"({SCHEMA_VERSION}): upgrade unifind to open it"
        )
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"{path} has unknown KB schema version {version} (expected {SCHEMA_VERSION})"
        )


def _pragma(conn: apsw.Connection, name: str) -> int:
    return int(fetch(conn, f"PRAGMA {name}")[0][0])


def fetch(conn: apsw.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """All rows of a query; the caller knows its columns' types (apsw types them as a union)."""
    return conn.execute(sql, params).fetchall()


@contextmanager
def immediate(conn: apsw.Connection) -> Iterator[None]:
    """A write transaction that takes the write lock up front.

    A deferred transaction that upgrades to a writer can fail with SQLITE_BUSY without
    waiting in WAL mode; ``BEGIN IMMEDIATE`` waits on busy_timeout instead
    (https://sqlite.org/lang_transaction.html).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def snapshot(conn: apsw.Connection) -> Iterator[None]:
    """A read transaction: every SELECT inside sees the same committed state (WAL snapshot)."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")
