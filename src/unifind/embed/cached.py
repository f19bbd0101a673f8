"""A disk cache in front of any embedder: one SQLite file, keyed by (spec, sha256(text)).

Benchmarks and re-ingestion embed the same texts again and again; with the cache they
pay for each (model, text) once across runs. The key includes the inner embedder's spec,
so one file can serve several models without mixing vector spaces.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import numpy as np

from unifind.embed.base import Embedder, Vectors
from unifind.errors import StoreError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    spec TEXT NOT NULL,
    kind TEXT NOT NULL,          -- 'd' document, 'q' query (queries may carry a prefix)
    text_sha256 BLOB NOT NULL,
    vector BLOB NOT NULL,        -- little-endian float32, dim * 4 bytes
    PRIMARY KEY (spec, kind, text_sha256)
) WITHOUT ROWID
"""

#: Keys per SELECT ... IN (...): well under SQLite's default 32,766 bound parameters.
_LOOKUP_CHUNK = 500


def _sha(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class CachedEmbedder(Embedder):
    """``inner`` with its vectors remembered in ``path``; same ``spec`` and ``dim``.

    ``hits`` counts texts served from the file, ``misses`` distinct texts sent to ``inner``.
    Safe to share between threads; several processes may share the file (WAL mode).
    """

    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the embedding cache {self.path}: {exc}") from exc

    # Read through (read-only): an inner embedder may learn its dim on first use (OpenAI).
    @property
    def spec(self) -> str:  # type: ignore[override]
        return self.inner.spec

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._cached("d", list(texts))

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self._cached("q", [text])[0]
        return row

    def _cached(self, kind: str, texts: list[str]) -> Vectors:
        out = np.empty((len(texts), self.dim), np.float32)
        keys = [_sha(t) for t in texts]
        found = self._lookup(kind, set(keys))
        missing: dict[bytes, str] = {}
        for i, key in enumerate(keys):
            if key in found:
                out[i] = found[key]
            else:
                missing.setdefault(key, texts[i])
        if missing:
            # The model runs outside the lock: other threads keep reading meanwhile.
            fresh = self._embed_inner(kind, list(missing.values()))
            if fresh.shape != (len(missing), self.dim):
                raise ValueError(
                    f"{self.spec} returned vectors of shape {fresh.shape},"
                    f" expected {(len(missing), self.dim)}"
                )
            by_key = dict(zip(missing, fresh, strict=True))
            self._store(kind, by_key)
            for i, key in enumerate(keys):
                if key in by_key:
                    out[i] = by_key[key]
        with self._lock:
            self.hits += sum(1 for k in keys if k in found)
            self.misses += len(missing)
        return out

    def _embed_inner(self, kind: str, texts: list[str]) -> Vectors:
        if kind == "q":
            return np.stack([self.inner.embed_query(t) for t in texts])
        return self.inner.embed_documents(texts)

    def _lookup(self, kind: str, keys: set[bytes]) -> dict[bytes, Vectors]:
        found: dict[bytes, Vectors] = {}
        wanted = list(keys)
        with self._lock:
            for start in range(0, len(wanted), _LOOKUP_CHUNK):
                part = wanted[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    "SELECT text_sha256, vector FROM vectors"
                    f" WHERE spec = ? AND kind = ? AND text_sha256 IN ({marks})",
                    [self.spec, kind, *part],
                ).fetchall()
                for key, blob in rows:
                    # A row of the wrong size (a model changed dim under the same spec)
                    # is a miss, overwritten below, never a garbled vector.
                    if len(blob) == self.dim * 4:
                        found[key] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return found

    def _store(self, kind: str, rows: dict[bytes, Vectors]) -> None:
        data = [
            (self.spec, kind, key, np.asarray(vec, dtype="<f4").tobytes())
            for key, vec in rows.items()
        ]
        with self._lock:
            try:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", data)
                self._db.commit()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write the embedding cache {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> CachedEmbedder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
