"""The intent stage's reading of the knowledge base, kept on disk between processes.

Reading a handbook's sections and word counts segments its Chinese text with jieba, and
loading jieba's dictionary (~1 s) was most of a one-shot ``unifind ask --plan`` (#18),
even for "hi there". What is read from a document depends only on that document's stored
version and on the code and dictionary that read it, so it is kept in
``<home>/cache/intent-kb.sqlite`` under a digest of exactly those:

* the topic words of the collections' and documents' names: the names;
* a document's entry: the store, the collection's creation time, the document's id,
  content hash, chunk and character counts and update time (a re-ingest that changes the
  text changes the hash; one that re-chunks it changes the counts or the time);
* the KB-wide terms: the digests of every document read, in order, and the DB's words;
* both: the source of the modules that compute them and jieba's version (:func:`_code`).

So an entry is never stale: a changed document or a new one has another key, and the old
entry is simply not asked for again. The cache is best effort: a home that can't be
written, a locked or corrupt file, costs the reading, never the plan.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import sqlite3
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from unifind.agent._sections import Section

log = logging.getLogger("unifind.agent")

#: Entries kept; past it the oldest half goes (a KB rarely has this many documents).
_MAX_ROWS = 50_000
_SCHEMA = "CREATE TABLE IF NOT EXISTS entry (key TEXT PRIMARY KEY, value TEXT NOT NULL)"

Read = tuple[tuple[Section, ...], dict[str, int]]
Terms = tuple[frozenset[str], frozenset[str], tuple[frozenset[str], ...]]


@functools.lru_cache(maxsize=1)
def _code() -> str:
    """A digest of what computes the entries: these modules' source and jieba's version."""
    digest = hashlib.sha256()
    folder = Path(__file__).parent
    for name in ("_sections.py", "_terms.py", "_normalise.py", "_cues.py", "vocab.py",
                 "common_en.txt"):  # fmt: skip
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    with contextlib.suppress(PackageNotFoundError):
        digest.update(version("jieba").encode())
    return digest.hexdigest()


def key(*parts: object) -> str:
    """The digest of ``parts`` (JSON-able) and of the code that reads them."""
    raw = json.dumps([_code(), *parts], ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


class KBCache:
    """Read and write entries in one SQLite file; every failure is a miss."""

    def __init__(self, home: Path) -> None:
        self.path = home / "cache" / "intent-kb.sqlite"

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=1.0)
        db.execute(_SCHEMA)
        return db

    def _get(self, key: str) -> Any:
        if not self.path.is_file():
            return None
        try:
            with contextlib.closing(self._connect()) as db:
                row = db.execute("SELECT value FROM entry WHERE key = ?", (key,)).fetchone()
            return None if row is None else json.loads(row[0])
        except (OSError, sqlite3.Error, ValueError) as exc:
            log.debug("intent KB cache unreadable (%s): %s", self.path, exc)
            return None

    def _put(self, key: str, value: Any) -> None:
        try:
            with contextlib.closing(self._connect()) as db, db:
                db.execute("INSERT OR REPLACE INTO entry VALUES (?, ?)", (key, json.dumps(value)))
                (n,) = db.execute("SELECT count(*) FROM entry").fetchone()
                if n > _MAX_ROWS:
                    db.execute(
                        "DELETE FROM entry WHERE rowid IN "
                        "(SELECT rowid FROM entry ORDER BY rowid LIMIT ?)",
                        (n // 2,),
                    )
        except (OSError, sqlite3.Error) as exc:
            log.debug("intent KB cache not written (%s): %s", self.path, exc)

    def read(self, key: str) -> Read | None:
        """A document's sections and word counts, if kept."""
        got = self._get(key)
        try:
            secs = tuple((frozenset(k), frozenset(e)) for k, e in got["sections"])
            counts = {str(w): int(n) for w, n in got["counts"].items()}
        except (TypeError, KeyError, ValueError, AttributeError):
            return None
        return secs, counts

    def keep_read(self, key: str, read: Read) -> None:
        secs = [[sorted(k), sorted(e)] for k, e in read[0]]
        self._put(key, {"sections": secs, "counts": read[1]})

    def terms(self, key: str) -> Terms | None:
        """The KB-wide terms, if kept."""
        got = self._get(key)
        try:
            terms, specific = frozenset(got["terms"]), frozenset(got["specific"])
            everyday = tuple(frozenset(e) for e in got["everyday"])
        except (TypeError, KeyError, ValueError):
            return None
        return terms, specific, everyday

    def words(self, key: str) -> frozenset[str] | None:
        """The topic words of a list of names, if kept."""
        got = self._get(key)
        return frozenset(map(str, got)) if isinstance(got, list) else None

    def keep_words(self, key: str, words: frozenset[str]) -> None:
        self._put(key, sorted(words))

    def keep_terms(self, key: str, found: Terms) -> None:
        terms, specific, everyday = found
        value = {"terms": sorted(terms), "specific": sorted(specific),
                 "everyday": [sorted(e) for e in everyday]}  # fmt: skip
        self._put(key, value)


def doc_key(store: str, collection: Any, doc: Any) -> str:
    """The key of a stored document's version (see the module docstring)."""
    version = [getattr(doc, f, None) for f in ("chunks", "text_chars", "updated_at")]
    return key("doc", store, collection.name, collection.created_at, doc.document_id,
               doc.content_hash, *version)  # fmt: skip


def terms_key(doc_keys: Sequence[str], theirs: frozenset[str]) -> str:
    """The key of the KB-wide terms over these documents, less the DB's words."""
    return key("terms", list(doc_keys), sorted(theirs))
