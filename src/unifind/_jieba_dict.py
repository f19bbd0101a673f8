"""jieba's prefix dictionary as an on-disk lookup, so a short query needn't load it whole.

jieba keeps ``FREQ`` (every dictionary word and prefix → count, ~500k entries) in
memory: loading it costs ~0.5 s from jieba's marshal cache and more when it must be
built. Segmenting a query of a few characters reads a few dozen entries, so a query
process reads them from a SQLite copy of the same table instead: the same entries and
``total`` give the same words. Long texts (ingest) still use the in-memory dictionary.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_SCHEMA = (
    "CREATE TABLE freq (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TABLE meta (total INTEGER NOT NULL)",
)


class FreqLookup:
    """The read-only mapping jieba's Tokenizer uses as ``FREQ`` (get / in / [])."""

    def __init__(self, path: Path) -> None:
        uri = f"file:{path}?mode=ro&immutable=1"  # replaced atomically, never changed
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._seen: dict[str, int | None] = {}
        (self.total,) = self._db.execute("SELECT total FROM meta").fetchone()

    def _count(self, word: str) -> int | None:
        if word in self._seen:
            return self._seen[word]
        with self._lock:
            row = self._db.execute("SELECT n FROM freq WHERE word = ?", (word,)).fetchone()
            if len(self._seen) > 100_000:  # a long-lived process: keep the memo bounded
                self._seen.clear()
            self._seen[word] = n = None if row is None else int(row[0])
        return n

    def get(self, word: str, default: Any = None) -> Any:
        n = self._count(word)
        return default if n is None else n

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._count(word) is not None

    def __getitem__(self, word: str) -> int:
        n = self._count(word)
        if n is None:
            raise KeyError(word)
        return n

    def close(self) -> None:
        self._db.close()


def write(path: Path, freq: Mapping[str, int], total: int) -> None:
    """Write the lookup file for ``freq``; best effort (a failure leaves no file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    try:
        with contextlib.closing(sqlite3.connect(tmp)) as db:
            db.execute("PRAGMA journal_mode = OFF")
            for stmt in _SCHEMA:
                db.execute(stmt)
            db.executemany("INSERT INTO freq VALUES (?, ?)", freq.items())
            db.execute("INSERT INTO meta VALUES (?)", (total,))
            db.commit()
        os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
    except (OSError, sqlite3.Error):
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def open_lookup(path: Path) -> FreqLookup | None:
    """The lookup at ``path``, or None when it is missing or unreadable."""
    if not path.is_file():
        return None
    try:
        return FreqLookup(path)
    except sqlite3.Error:
        return None
