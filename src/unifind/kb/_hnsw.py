"""An HNSW accelerator for big collections, persisted as a derived sidecar next to the file.

``<db>.<collection>.usearch`` holds a usearch index (Malkov & Yashunin 2018, HNSW) keyed
by chunk rowid; ``<db>.<collection>.usearch.json`` records what it was built from (the
collection id, dim, the change-log seq) and the index file's size and CRC-32, so a torn,
stale or foreign file is detected before usearch parses it. Both are written atomically
(temp file + ``os.replace``), index first: a reader that reads the JSON first may get a
newer index than its watermark, never an older one, and the key reconciliation below
makes either case exact.

The sidecar is only ever trusted after *reconciliation* against the exact index's live
rowids: keys that are no longer live are removed, live keys missing are added. So a
deleted chunk can't come back from HNSW, and a stale sidecar only costs the catch-up.
Candidates are rescored exactly by the caller, so the f16 storage only affects recall.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind.kb._vectors import VectorIndex

log = logging.getLogger(__name__)

Int64s = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]

_FORMAT = 1
# M=16 and efConstruction=128 are usearch's and hnswlib's usual defaults for text embeddings.
_CONNECTIVITY = 16
_EXPANSION_ADD = 128
_SERIAL_INSERTS = 1024


def sidecar_paths(db: Path, collection: str) -> tuple[Path, Path]:
    index = db.with_name(f"{db.name}.{collection}.usearch")
    return index, index.with_name(index.name + ".json")


class Hnsw:
    """A usearch HNSW index over one collection's live vectors."""

    def __init__(self, index: Any, paths: tuple[Path, Path], collection_id: int) -> None:
        self._index = index
        self._paths = paths
        self._collection_id = collection_id
        self.dirty = 0
        """Changes applied since the sidecar was last written."""

    @property
    def collection_id(self) -> int:
        return self._collection_id

    @classmethod
    def open(cls, db: Path, collection: str, collection_id: int, exact: VectorIndex) -> Hnsw:
        """Load the sidecar and reconcile it with ``exact``, or build a fresh one."""
        loaded = cls.load(db, collection, collection_id, exact)
        if loaded is not None:
            return loaded
        ids, vectors = exact.vectors_of(exact.live_ids())
        return cls.build(db, collection, collection_id, exact.dim, ids, vectors)

    @classmethod
    def load(cls, db: Path, collection: str, collection_id: int, exact: VectorIndex) -> Hnsw | None:
        """The sidecar reconciled with ``exact``, or None when there is no usable one."""
        paths = sidecar_paths(db, collection)
        index = _load(paths, collection_id, exact.dim)
        if index is None:
            return None
        hnsw = cls(index, paths, collection_id)
        hnsw.reconcile(exact)
        return hnsw

    @classmethod
    def build(
        cls, db: Path, collection: str, collection_id: int, dim: int, ids: Int64s, vectors: Floats
    ) -> Hnsw:
        """A fresh index over the given vectors (minutes at 100k+: callers run it aside)."""
        hnsw = cls(_new_index(dim), sidecar_paths(db, collection), collection_id)
        hnsw.apply(ids, vectors, deleted=np.empty(0, np.int64))
        return hnsw

    def reconcile(self, exact: VectorIndex) -> None:
        """Make the index hold exactly the live rowids of ``exact``."""
        have = np.asarray(self._index.keys[:], dtype=np.int64)
        live = exact.live_ids()
        extra = np.setdiff1d(have, live, assume_unique=True)
        missing = np.setdiff1d(live, have, assume_unique=True)
        self.apply(*exact.vectors_of(missing), deleted=extra)

    def apply(self, added: Int64s, vectors: Floats, deleted: Int64s) -> None:
        if len(deleted):
            present = self._index.contains(deleted.astype(np.uint64))
            gone = deleted[np.asarray(present, dtype=np.bool_)]
            if len(gone):
                self._index.remove(gone.astype(np.uint64))
        if len(added):
            # Concurrent inserts into a tiny graph can leave badly linked nodes (measured:
            # ~0.5% top-10 misses at 300 vectors); the first ones go in one at a time.
            serial = max(0, min(len(added), _SERIAL_INSERTS - len(self._index)))
            keys = added.astype(np.uint64)
            if serial:
                self._index.add(keys[:serial], vectors[:serial], threads=1)
            if serial < len(added):
                self._index.add(keys[serial:], vectors[serial:], threads=0)
        self.dirty += len(added) + len(deleted)

    def __len__(self) -> int:
        return len(self._index)

    def search(self, query: Floats, count: int) -> Int64s:
        """Candidate rowids, nearest first (approximate)."""
        # ef must be at least the number of results asked for (HNSW paper, §4).
        self._index.expansion_search = max(64, count)
        matches = self._index.search(query, count, threads=1)
        return np.asarray(matches.keys, dtype=np.int64)

    def save(self, seq: int) -> None:
        """Write the sidecar atomically; failures only cost a rebuild next time."""
        index_path, meta_path = self._paths
        data = bytes(self._index.save())
        meta = {
            "format": _FORMAT,
            "collection_id": self._collection_id,
            "dim": int(self._index.ndim),
            "seq": seq,
            "count": len(self._index),
            "size": len(data),
            "crc32": zlib.crc32(data),
        }
        try:
            _atomic_write(index_path, data)
            _atomic_write(meta_path, json.dumps(meta).encode())
        except OSError as exc:
            log.warning("could not write the HNSW sidecar %s: %s", index_path, exc)
            return
        self.dirty = 0


def _new_index(dim: int) -> Any:
    from usearch.index import Index

    return Index(
        ndim=dim,
        metric="cos",
        dtype="f16",
        connectivity=_CONNECTIVITY,
        expansion_add=_EXPANSION_ADD,
    )


def _load(paths: tuple[Path, Path], collection_id: int, dim: int) -> Any | None:
    """The sidecar's index if it is intact and belongs to this collection, else None."""
    from usearch.index import Index

    index_path, meta_path = paths
    try:
        meta = json.loads(meta_path.read_bytes())
        data = index_path.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict):  # valid JSON, but not what save() writes
        log.info("HNSW sidecar %s has no metadata object; rebuilding", meta_path)
        return None
    expected = (meta.get("format"), meta.get("collection_id"), meta.get("dim"))
    if expected != (_FORMAT, collection_id, dim):
        return None
    if meta.get("size") != len(data) or meta.get("crc32") != zlib.crc32(data):
        log.info("HNSW sidecar %s is stale or damaged; rebuilding", index_path)
        return None
    try:
        index = Index.restore(data)
    except (ValueError, RuntimeError) as exc:
        log.info("HNSW sidecar %s unreadable (%s); rebuilding", index_path, exc)
        return None
    if index is None or int(index.ndim) != dim:
        return None
    return index


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_sidecars(db: Path, collection: str) -> None:
    for path in sidecar_paths(db, collection):
        path.unlink(missing_ok=True)
