"""Derived indexes follow the file's change log, so every query sees committed state.

Before answering, a follower compares its watermark (the last applied ``changes.seq``)
with the collection's head: one indexed ``max(seq)`` lookup. If the head moved (this or
another process committed), it applies the net adds and deletes inside one read
snapshot; if it fell behind the log floor, the collection was recreated, or its index
is too fragmented, it rebuilds from the file. Writers serialise on ``BEGIN IMMEDIATE``,
so seqs commit in order and a watermark never skips an in-flight change.
"""

from __future__ import annotations

import json
import logging
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import apsw
import numpy as np

from unifind.errors import UnknownName
from unifind.kb import _lexical, _lexsave, _vectors
from unifind.kb._hnsw import Hnsw
from unifind.kb._schema import fetch, snapshot

I = TypeVar("I")  # noqa: E741 - the index type


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Head:
    """A collection as a query sees it: its id, dim and change-log position."""

    id: int
    dim: int | None
    floor: int
    seq: int


def read_head(conn: apsw.Connection, name: str) -> Head:
    rows = fetch(
        conn,
        "SELECT id, dim, log_floor, "
        "(SELECT coalesce(max(seq), 0) FROM changes WHERE collection_id = c.id) "
        "FROM collections AS c WHERE name = ?",
        (name,),
    )
    if not rows:
        names = [r[0] for r in conn.execute("SELECT name FROM collections")]
        raise UnknownName("collection", name, names)
    cid, dim, floor, seq = rows[0]
    return Head(int(cid), dim, int(floor), int(seq))


def _head_by_id(conn: apsw.Connection, head: Head) -> Head:
    rows = fetch(
        conn,
        "SELECT log_floor, (SELECT coalesce(max(seq), 0) FROM changes WHERE collection_id = ?) "
        "FROM collections WHERE id = ?",
        (head.id, head.id),
    )
    if not rows:  # deleted since read_head: its index is empty from now on
        return head
    return Head(head.id, head.dim, int(rows[0][0]), int(rows[0][1]))


def _net_changes(conn: apsw.Connection, head: Head, since: int) -> tuple[list[int], list[int]]:
    """Chunks added and deleted after ``since``; a chunk both added and deleted is neither."""
    added: set[int] = set()
    deleted: set[int] = set()
    for chunk, op in conn.execute(
        "SELECT chunk, op FROM changes WHERE collection_id = ? AND seq > ? AND seq <= ?",
        (head.id, since, head.seq),
    ):
        (added if op == "add" else deleted).add(int(chunk))
    return sorted(added - deleted), sorted(deleted - added)


def _in_collection(ids: list[int] | None) -> tuple[str, tuple[object, ...]]:
    if ids is None:
        return "d.collection_id = ?", ()
    return "d.collection_id = ? AND c.id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)


def load_terms(conn: apsw.Connection, coll_id: int, ids: list[int] | None) -> list[_lexical.Row]:
    where, extra = _in_collection(ids)
    rows = conn.execute(
        "SELECT t.chunk, t.length, t.postings FROM chunk_terms AS t "
        "JOIN chunks AS c ON c.id = t.chunk JOIN documents AS d ON d.id = c.doc "
        f"WHERE {where} ORDER BY t.chunk",
        (coll_id, *extra),
    )
    return [(int(r), int(n), bytes(b)) for r, n, b in rows]


def load_vectors(conn: apsw.Connection, coll_id: int, ids: list[int] | None) -> list[_vectors.Row]:
    where, extra = _in_collection(ids)
    rows = conn.execute(
        "SELECT v.chunk, v.vector FROM chunk_vectors AS v "
        "JOIN chunks AS c ON c.id = v.chunk JOIN documents AS d ON d.id = c.doc "
        f"WHERE {where} ORDER BY v.chunk",
        (coll_id, *extra),
    )
    return [(int(r), bytes(b)) for r, b in rows]


class Follower(ABC, Generic[I]):
    """One derived index of one collection, kept at the file's committed state."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held while catching up and while searching: the index mutates in place."""
        self.index: I | None = None
        self.collection_id = 0
        self.seq = -1

    def current(self, conn: apsw.Connection, head: Head) -> I:
        """The index at ``head`` or later; call with ``lock`` held."""
        if self.index is not None and self.collection_id == head.id and self.seq == head.seq:
            return self.index
        try:
            with snapshot(conn):
                head = _head_by_id(conn, head)
                index = self._catch_up(conn, head)
        except BaseException:
            self.index = None  # possibly half-applied: the next query rebuilds
            raise
        self.index, self.collection_id, self.seq = index, head.id, head.seq
        self._after(index)
        return index

    def _catch_up(self, conn: apsw.Connection, head: Head) -> I:
        index = self.index if self.collection_id == head.id else None
        if index is None or self.seq < head.floor or self._fragmented(index):
            return self._build(conn, head)
        added, deleted = _net_changes(conn, head, self.seq)
        if len(added) + len(deleted) > max(10_000, self._size(index)):
            return self._build(conn, head)
        self._apply(conn, head, index, added, deleted)
        return index

    @abstractmethod
    def _build(self, conn: apsw.Connection, head: Head) -> I: ...

    @abstractmethod
    def _apply(
        self, conn: apsw.Connection, head: Head, index: I, added: list[int], deleted: list[int]
    ) -> None: ...

    def _fragmented(self, index: I) -> bool:
        return False

    def _size(self, index: I) -> int:
        return 0

    def _after(self, index: I) -> None:
        """Hook run after catching up, outside the read snapshot."""


class LexicalFollower(Follower[_lexical.LexicalIndex]):
    """Follows the BM25 postings; with a ``db`` path, a big collection's fresh build is
    kept in a sidecar and a new process starts from it (``_lexsave``)."""

    def __init__(self, db: Path | None = None, collection: str = "") -> None:
        super().__init__()
        self._sidecar = _lexsave.sidecar_path(db, collection) if db is not None else None

    def _build(self, conn: apsw.Connection, head: Head) -> _lexical.LexicalIndex:
        if self._sidecar is not None and self.index is None:  # a new process: try the sidecar
            loaded = _lexsave.load(self._sidecar, head.id, head.floor, head.seq)
            if loaded is not None:
                index, seq = loaded
                added, deleted = _net_changes(conn, head, seq)
                self._apply(conn, head, index, added, deleted)
                return index
        index = _lexical.LexicalIndex(load_terms(conn, head.id, None))
        if self._sidecar is not None and index.live >= _lexsave.MIN_CHUNKS:
            _lexsave.save(self._sidecar, index, head.id, head.seq)
        return index

    def _apply(
        self,
        conn: apsw.Connection,
        head: Head,
        index: _lexical.LexicalIndex,
        added: list[int],
        deleted: list[int],
    ) -> None:
        index.delete(deleted)
        index.add(load_terms(conn, head.id, added))

    def _fragmented(self, index: _lexical.LexicalIndex) -> bool:
        return index.needs_rebuild()

    def _size(self, index: _lexical.LexicalIndex) -> int:
        return index.live


@dataclass
class VectorState:
    """The exact matrix, plus an HNSW accelerator once the collection is big enough."""

    exact: _vectors.VectorIndex
    hnsw: Hnsw | None = None


class VectorFollower(Follower[VectorState]):
    """Follows the vectors; an HNSW index is loaded from its sidecar, or built.

    With ``background`` (the default) a missing HNSW index is built in a thread from a
    snapshot of the live vectors while queries keep using the exact scan — building one
    takes minutes at 100k+ vectors on a small machine, and a first query must not wait
    for it. The finished index is reconciled with the changes made meanwhile, then used.
    """

    def __init__(
        self, db: Path, collection: str, hnsw_threshold: int, *, background: bool = True
    ) -> None:
        super().__init__()
        self._db, self._collection, self._threshold = db, collection, hnsw_threshold
        self._background = background
        self._builder: threading.Thread | None = None
        self._built: Hnsw | None = None

    def _build(self, conn: apsw.Connection, head: Head) -> VectorState:
        sidecar = _lexsave.sidecar_path(self._db, self._collection, "vectors")
        if self.index is None:  # a new process: start from the sidecar (``_lexsave``)
            loaded = _lexsave.load_vectors(sidecar, head.id, head.floor, head.seq, head.dim or 0)
            if loaded is not None:
                state = VectorState(loaded[0])
                added, deleted = _net_changes(conn, head, loaded[1])
                self._apply(conn, head, state, added, deleted)
                return state
        exact = _vectors.VectorIndex(head.dim or 0, load_vectors(conn, head.id, None))
        if exact.live >= _lexsave.MIN_CHUNKS:
            _lexsave.save_vectors(sidecar, exact, head.id, head.seq)
        return VectorState(exact)

    def _apply(
        self,
        conn: apsw.Connection,
        head: Head,
        state: VectorState,
        added: list[int],
        deleted: list[int],
    ) -> None:
        rows = load_vectors(conn, head.id, added)
        state.exact.delete(deleted)
        state.exact.add(rows)
        if state.hnsw is not None:
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            state.hnsw.apply(*state.exact.vectors_of(ids), deleted=np.asarray(deleted, np.int64))

    def _size(self, state: VectorState) -> int:
        return state.exact.live

    def _after(self, state: VectorState) -> None:
        if state.exact.live < self._threshold:
            state.hnsw = None  # small again: the exact scan is as fast and exact
            return
        if state.hnsw is None:
            self.adopt(state)
        if state.hnsw is None and self._builder is None:
            state.hnsw = Hnsw.load(self._db, self._collection, self.collection_id, state.exact)
            if state.hnsw is None:
                self._start_build(state)
        if state.hnsw is not None and state.hnsw.dirty > max(1_000, len(state.hnsw) // 10):
            state.hnsw.save(self.seq)

    def _start_build(self, state: VectorState) -> None:
        ids, vectors = state.exact.vectors_of(state.exact.live_ids())  # a copy: a snapshot
        coll_id, dim = self.collection_id, state.exact.dim

        def build() -> None:
            try:
                self._built = Hnsw.build(self._db, self._collection, coll_id, dim, ids, vectors)
            except Exception:  # the exact scan stays right; the next open retries
                log.exception("building the HNSW index of %s failed", self._collection)

        if not self._background:
            build()
            self.adopt(state)
            return
        self._builder = threading.Thread(target=build, name=f"hnsw-{self._collection}",
                                         daemon=True)  # fmt: skip
        self._builder.start()

    def adopt(self, state: VectorState) -> None:
        """Use a finished background build (call with ``lock`` held)."""
        if self._builder is not None and self._builder.is_alive():
            return
        built, self._built, self._builder = self._built, None, None
        if built is None or state.hnsw is not None or built.collection_id != self.collection_id:
            return
        built.reconcile(state.exact)  # changes committed while it was being built
        state.hnsw = built
        built.save(self.seq)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background build; True when none is running any more."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        return builder is None or not builder.is_alive()

    def save(self) -> None:
        """Write the sidecar if changes were applied since it was last written."""
        with self.lock:
            if self.index is not None and self.index.hnsw is not None and self.index.hnsw.dirty:
                self.index.hnsw.save(self.seq)
