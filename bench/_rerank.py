"""A disk cache in front of a reranker, registered as ``cached:<spec>``.

The offline cross-encoder scores ~10 (query, passage) pairs a second on one core (datasets
README), so a five-set rerank run costs tens of minutes; the scores of a pair never change,
so each pair is paid for once across runs and configurations.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from unifind.embed.base import Reranker, resolve_reranker
from unifind.registry import registry

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    spec TEXT NOT NULL,
    pair_sha256 BLOB NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (spec, pair_sha256)
) WITHOUT ROWID
"""


def _key(query: str, passage: str) -> bytes:
    # A separator that can't occur in either text keeps ("ab", "c") apart from ("a", "bc").
    return hashlib.sha256(f"{query}\x00{passage}".encode("utf-8", "surrogatepass")).digest()


class CachedReranker(Reranker):
    """``inner`` with its pair scores remembered in one SQLite file; same ``spec``."""

    def __init__(self, inner: Reranker, path: Path) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.misses = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.execute(_SCHEMA)
        self._db.commit()

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        keys = [_key(query, p) for p in passages]
        marks = ",".join("?" * len(keys))
        rows = self._db.execute(
            f"SELECT pair_sha256, score FROM scores WHERE spec = ? AND pair_sha256 IN ({marks})",
            [self.spec, *keys],
        ).fetchall()
        known: dict[bytes, float] = dict(rows)
        todo = [i for i, k in enumerate(keys) if k not in known]
        if todo:
            fresh = self.inner.score(query, [passages[i] for i in todo])
            self.misses += len(todo)
            for i, s in zip(todo, fresh, strict=True):
                known[keys[i]] = float(s)
            self._db.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?)",
                [(self.spec, keys[i], known[keys[i]]) for i in todo],
            )
            self._db.commit()
        return [known[k] for k in keys]


def register_cached(path: Path) -> None:
    """Make ``cached:<spec>`` resolve to ``<spec>``'s reranker behind a cache at ``path``."""

    def factory(inner: str = "cross-encoder") -> CachedReranker:
        return CachedReranker(resolve_reranker(inner), path)

    registry("rerankers").register("cached", factory)
