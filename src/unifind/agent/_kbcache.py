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
* the DB's words (models, aliases, the words of sampled rows): the ``db`` settings, the
  home, and the size and time of each SQLite file they read (the database, its WAL, a
  models file); kept no longer than ``db.sample_ttl_s``, the age the DB leg itself allows
  its samples in a process, and not at all when it is 0 (a server database has no change
  counter to key on);
* the whole KB part of the vocabulary (names' words, sections, terms), when the KB is the
  embedded default store (``kb.store: sqlite``, ``<home>/kb.sqlite``) and no collection is
  placed in another store: the home, the ``kb`` settings, the principal, the DB's words,
  and the device, inode, size, mtime and ctime of ``kb.sqlite`` and its WAL
  (:func:`kb_key`). A plan in a new process then neither opens the KB nor imports it
  (numpy, the store: ~0.15 s of a 0.8 s plan). Kept only when the files were the same
  before and after the read and settled (:data:`SETTLED_NS`): a write inside one
  timestamp tick may not move the mtime, so a file written just now is read again.
* all: the source of the modules that compute them and jieba's installed files (:func:`_code`).

So an entry is never stale: a changed document or a new one has another key, and the old
entry is simply not asked for again. The cache is best effort: a home that can't be
written, a locked or corrupt file, costs the reading, never the plan.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import sqlite3
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from unifind.agent._sections import Section

log = logging.getLogger("unifind.agent")

#: Entries kept; past it the oldest half goes (a KB rarely has this many documents).
_MAX_ROWS = 50_000
_SCHEMA = "CREATE TABLE IF NOT EXISTS entry (key TEXT PRIMARY KEY, value TEXT NOT NULL)"

Read = tuple[tuple[Section, ...], dict[str, int]]
Terms = tuple[frozenset[str], frozenset[str], tuple[frozenset[str], ...]]


@functools.lru_cache(maxsize=1)
def _code() -> str:
    """A digest of what computes the entries: these modules' source and jieba's files."""
    digest = hashlib.sha256()
    folder = Path(__file__).parent
    for name in ("_sections.py", "_terms.py", "_normalise.py", "_cues.py", "_dbwords.py",
                 "vocab.py", "common_en.txt"):  # fmt: skip
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    digest.update(_jieba_files().encode())
    return digest.hexdigest()


def _jieba_files() -> str:
    """Where jieba is installed, with the size and time of its module and dictionary: an
    upgrade or a reinstall changes them. Its version from the package metadata said as
    much, but finding it reads every installed distribution's folder name (~4 ms of a
    plan in a virtualenv of ~450 packages, #18); ``find_spec`` imports nothing."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        return ""
    module = Path(spec.origin)
    stamps = []
    for path in (module, module.with_name("dict.txt")):
        with contextlib.suppress(OSError):
            st = path.stat()
            stamps.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(stamps)


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

    def sets(self, key: str, max_age_s: float) -> dict[str, frozenset[str]] | None:
        """Named word sets kept at most ``max_age_s`` seconds ago, if any."""
        got = self._get(key)
        try:
            if not 0 <= time.time() - float(got["at"]) <= max_age_s:
                return None
            return {str(k): frozenset(map(str, v)) for k, v in got["sets"].items()}
        except (TypeError, KeyError, ValueError, AttributeError):
            return None

    def keep_sets(self, key: str, sets: Mapping[str, frozenset[str]]) -> None:
        self._put(key, {"at": time.time(), "sets": {k: sorted(v) for k, v in sets.items()}})

    def kb_part(self, key: str) -> dict[str, Any] | None:
        """The KB fields of a vocabulary (:data:`KB_FIELDS`), if kept."""
        got = self._get(key)
        try:
            return {
                "kb": frozenset(map(str, got["kb"])),
                "kb_sections": tuple((frozenset(k), frozenset(e)) for k, e in got["sections"]),
                "kb_terms": frozenset(map(str, got["terms"])),
                "kb_rare": frozenset(map(str, got["rare"])),
                "kb_everyday": tuple(frozenset(map(str, e)) for e in got["everyday"]),
            }
        except (TypeError, KeyError, ValueError, AttributeError):
            return None

    def keep_kb_part(self, key: str, vocab: Any) -> None:
        value = {"kb": sorted(vocab.kb), "terms": sorted(vocab.kb_terms),
                 "sections": [[sorted(k), sorted(e)] for k, e in vocab.kb_sections],
                 "rare": sorted(vocab.kb_rare),
                 "everyday": [sorted(e) for e in vocab.kb_everyday]}  # fmt: skip
        self._put(key, value)

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


def db_key(settings: Any) -> tuple[str, float]:
    """The key of the DB's words under ``settings``, and how long they may be kept."""
    from unifind.db.demo import DEMO_FILE  # sqlite3 only: the DB leg would load SQLAlchemy

    cfg = dict(settings.db)
    files = [Path(settings.home) / DEMO_FILE]
    url, models = cfg.get("url"), cfg.get("models")
    if isinstance(url, str) and urlsplit(url).scheme.startswith("sqlite"):
        files.append(Path(urlsplit(url).path[1:]))  # SQLAlchemy's sqlite:///relative.db
    if isinstance(models, str):
        files.append(Path(models))
    stats = [_stat(f) for p in files for f in (p, p.with_name(p.name + "-wal"))]
    ttl = float(cfg.get("sample_ttl_s", 3600.0))
    return key("db", cfg, str(settings.home), [str(f) for f in files], stats), ttl


#: How long ago (ctime) the KB's files must have changed for the KB part to be kept.
SETTLED_NS = 2_000_000_000

#: The Vocabulary fields read from the knowledge base.
KB_FIELDS = ("kb", "kb_sections", "kb_terms", "kb_rare", "kb_everyday")

Stamp = tuple[int, int, int, int, int]


def kb_key(settings: Any, theirs: frozenset[str]) -> tuple[str, list[Stamp | None]] | None:
    """The key of the KB part of the vocabulary, and the stat it was taken from; None for
    a store other than the embedded default (a server has no file to stat)."""
    if settings.kb.store != "sqlite":
        return None
    store = Path(settings.home) / "kb.sqlite"  # the file kb.stores.open_store opens for it
    # An empty WAL holds nothing the file doesn't (SQLite makes one for every reader's
    # connection, this plan's included, and deletes it at the last close): as no WAL.
    wal = _stamp(store.with_name(store.name + "-wal"))
    stats = [_stamp(store), wal if wal and wal[2] else None]
    who = settings.principal.model_dump(mode="json") if settings.principal else None
    kb = settings.kb.model_dump(mode="json")
    return key("kb", str(settings.home), kb, who, sorted(theirs), stats), stats


def settled(stats: Sequence[Stamp | None]) -> bool:
    """Whether no file of ``stats`` changed within :data:`SETTLED_NS` of now."""
    now = time.time_ns()
    return all(st is None or now - st[4] >= SETTLED_NS for st in stats)


def _stamp(path: Path) -> Stamp | None:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size
