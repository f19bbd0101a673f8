"""Stores whose vectors live in an engine while a SQLite sidecar stays the system of record.

Qdrant and Milvus tokenise text their own way, so BM25 stays unifind's: documents, chunks,
terms, collection metadata (the ACL) and the change log live in a SQLite sidecar (the
embedded store's schema), and the engine holds a *derived* vector index per collection
that follows the sidecar's change log before every vector query, like the embedded
store's in-memory indexes (``_follow.py``). A writer killed mid-ingest leaves nothing
visible: the SQLite transaction never committed, and vectors of chunks that don't exist
are never returned (an in-process engine is only ever changed by this process's
serialised catch-up; a server's hits are checked against the sidecar). The applied
position is stored in the engine beside the vectors, so a restarted process resumes
instead of re-uploading.

Per query the store adds one indexed SQLite read (the change-log head) to the engine's
own search, plus, on a server, one primary-key lookup of the hits; the engine is asked
for ``limit + 2`` (the position marker and one past the cut, to see a tie straddling it).

A subclass connects (:meth:`_connect`) and implements the engine's part: create
(:meth:`_ensure`), drop (:meth:`_drop`), read the applied position (:meth:`_stored_seq`),
apply changes (:meth:`_apply`) and search (:meth:`_query`); the lifecycle, the follower,
the error mapping and the rest of ``vector_search`` are here, once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import apsw
import numpy as np
import numpy.typing as npt

from unifind.errors import InputError, SourceError, StoreError
from unifind.kb import _remote
from unifind.kb._follow import Head, _net_changes, load_vectors, read_head
from unifind.kb._schema import empty_store, snapshot
from unifind.kb.base import CollectionInfo, Hit
from unifind.kb.sqlite import SQLiteStore, _check_search

#: One statement: the stored vectors of some chunks of a collection named by name.
_VECTORS_SQL = (
    "SELECT v.chunk, v.vector FROM json_each(?) AS j CROSS JOIN chunk_vectors AS v "
    "ON v.chunk = j.value CROSS JOIN chunks AS c ON c.id = v.chunk CROSS JOIN documents AS d "
    "ON d.id = c.doc WHERE d.collection_id = (SELECT id FROM collections WHERE name = ?)"
)


#: Vectors read from the sidecar and sent to the engine per step of a catch-up.
_PAGE = 50_000


def _vector_ids(conn: apsw.Connection, coll_id: int) -> list[int]:
    """Every chunk of the collection that has a vector, in id order."""
    rows = conn.execute(
        "SELECT v.chunk FROM chunk_vectors AS v JOIN chunks AS c ON c.id = v.chunk "
        "JOIN documents AS d ON d.id = c.doc WHERE d.collection_id = ? ORDER BY v.chunk",
        (coll_id,),
    )
    return [int(r[0]) for r in rows]


class SidecarVectorStore(SQLiteStore):
    """Vectors in an engine (one engine collection per vector collection), the rest in SQLite."""

    def __init__(self, sidecar: Path, url: str, prefix: str, *, embedded: bool) -> None:
        self.url, self.prefix = url, prefix
        self.embedded = embedded
        """The engine runs in this process and locks its folder (Qdrant local mode, Milvus
        Lite): no other process applies changes to it, so after a catch-up (serialised
        below) it holds exactly the sidecar's chunks and needs no liveness check."""
        self._client: Any = None
        # One client, serialised: Qdrant's local mode is not thread-safe and pymilvus's
        # calls aren't reentrant.
        self._elock = threading.RLock()
        self._seqs: dict[int, int] = {}
        # A local store whose files aren't there is read as empty and created only by
        # create_collection: a search that created an empty folder answered ok, 0 hits.
        self._absent = embedded and not sidecar.exists()
        super().__init__(sidecar, hnsw_threshold=1 << 62)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_remote.redact(self.url)!r})"

    @property
    def missing(self) -> Path | None:
        if not self._absent or self.path.exists():
            return None
        return self.path if self.path.parent.exists() else self.path.parent

    def _open_file(self) -> None:
        if not self._absent:
            super()._open_file()

    def _conn(self) -> apsw.Connection:
        if self._absent:
            if not self.path.exists():
                return self._empty()
            self._materialise()  # another process created it meanwhile
        return super()._conn()

    def _empty(self) -> apsw.Connection:
        conn: apsw.Connection | None = getattr(self._local, "empty", None)
        if conn is None:
            if self._closed:
                raise StoreError(f"the KB store {_remote.redact(self.url)} is closed")
            conn = self._local.empty = empty_store()
            with self._lock:
                self._conns.append(conn)  # closed by close()
        return conn

    def _materialise(self) -> None:
        """Create the folder and the sidecar (creating a collection is the one write that
        may), or adopt the ones another process created."""
        with self._elock:
            if self._absent:
                self._absent = False
                try:
                    super()._open_file()
                except BaseException:
                    self._absent = True
                    raise

    # ---- the engine's part -------------------------------------------------------------

    def _connect(self) -> Any:
        """A new engine client (may raise: reported as unreachable)."""
        raise NotImplementedError

    def _is_connection_error(self, exc: BaseException) -> bool:
        raise NotImplementedError

    def _ping(self, client: Any) -> None:
        """One cheap call, so a dead server is found before the sidecar records anything."""
        raise NotImplementedError

    def _ensure(self, coll_id: int, dim: int) -> None:
        raise NotImplementedError

    def _drop(self, coll_id: int) -> None:
        raise NotImplementedError

    def _stored_seq(self, coll_id: int) -> int:
        """The change-log position the engine's copy has applied (0: none)."""
        raise NotImplementedError

    def _apply(
        self, coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int | None
    ) -> None:
        """Delete ``deleted``, write ``rows`` (id, float32 bytes), then record ``seq``
        (None: a page of a longer catch-up, whose last page records it)."""
        raise NotImplementedError

    def _query(
        self, head: Head, query: npt.NDArray[np.float32], want: int, allowed: list[int] | None
    ) -> list[tuple[int, float]]:
        """The top ``want`` (id, score) by score, ties by id (a tie at the cut widens the
        fetch), only ids in ``allowed`` if given; never the marker."""
        raise NotImplementedError

    def _closing(self) -> None:
        """Forget per-client state when the client closes."""

    # ---- shared ------------------------------------------------------------------------

    def _ename(self, coll_id: int) -> str:
        return f"{self.prefix}{coll_id}"

    @property
    def client(self) -> Any:
        with self._elock:
            if self._client is None:
                try:
                    self._client = self._connect()
                except SourceError:  # the engine's own diagnosis (a local folder in use)
                    raise
                except Exception as exc:  # unreachable server
                    raise _remote.unreachable(self.url, exc) from None
            return self._client

    def close(self) -> None:
        self._close_engine()
        super().close()

    def _close_engine(self) -> None:
        """Close the engine client (the next call reconnects) and forget what it applied."""
        with self._elock:
            if self._client is not None:
                self._client.close()
                self._client = None
                self._closing()
            self._seqs.clear()

    def _call(self, fn: Any) -> Any:
        with self._elock:
            try:
                return fn(self.client)
            except InputError:
                raise
            except Exception as exc:
                if self._is_connection_error(exc):
                    raise _remote.unreachable(self.url, exc) from None
                raise

    def create_collection(
        self,
        name: str,
        *,
        embedder: str | None,
        dim: int | None,
        analyzer: str = "auto",
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
        exist_ok: bool = False,
    ) -> CollectionInfo:
        _remote.check_name(name)  # before anything is created on disk
        self._materialise()
        if dim is not None:  # reach the server before the sidecar records anything
            self._call(self._ping)
        info = super().create_collection(
            name, embedder=embedder, dim=dim, analyzer=analyzer, description=description,
            metadata=metadata, exist_ok=exist_ok,
        )  # fmt: skip
        if info.dim is not None:
            self._ensure(read_head(self._conn(), name).id, info.dim)
        return info

    def delete_collection(self, name: str) -> None:
        head = read_head(self._conn(), name)
        super().delete_collection(name)
        if head.dim is not None:
            self._drop(head.id)
        self._seqs.pop(head.id, None)

    def _catch_up(self, name: str, known: Head | None = None) -> tuple[int, int]:
        """Apply the sidecar's committed changes to the engine; ``(collection id, dim)``.

        ``known``: a head the caller just read; when this client already applied it, no
        second read and no engine call is needed (the common case, every query).
        """
        if known is not None and known.dim is not None and self._seqs.get(known.id) == known.seq:
            return known.id, known.dim
        # Serialised: a follower applying an older snapshot after a newer one would put
        # back vectors of chunks deleted in between.
        with self._elock:
            conn = self._conn()
            with snapshot(conn):
                head = read_head(conn, name)
                assert head.dim is not None
                seq = self._seqs.get(head.id)
                if seq is None:  # first use by this client: the engine side may not exist yet
                    self._ensure(head.id, head.dim)
                    seq = self._stored_seq(head.id)
                if seq == head.seq:
                    self._seqs[head.id] = seq
                    return head.id, head.dim
                if seq < head.floor or seq > head.seq:  # log trimmed past us, or a recreated file
                    self._drop(head.id)
                    self._ensure(head.id, head.dim)
                    added, deleted = _vector_ids(conn, head.id), list[int]()
                else:
                    added, deleted = _net_changes(conn, head, seq)
            # Paged, so a million vectors are never all in memory: a page read after the
            # snapshot misses only chunks deleted since, whose deletion the log (after
            # head.seq) applies next time; the position is recorded with the last page.
            for start in range(0, max(len(added), 1), _PAGE):
                page = added[start : start + _PAGE]
                rows = load_vectors(conn, head.id, page) if page else []
                last = start + _PAGE >= len(added)
                self._apply(head.id, head.dim, rows, deleted if start == 0 else [],
                            head.seq if last else None)  # fmt: skip
            self._seqs[head.id] = head.seq
        return head.id, head.dim

    # ---- search ------------------------------------------------------------------------

    def vector_search(
        self,
        collection: str,
        vector: npt.NDArray[np.float32],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        where = _check_search(limit, filters)
        conn = self._conn()
        head = read_head(conn, collection)
        if head.dim is None or limit == 0:
            return []
        query = _remote.query_vector(vector, collection, head.dim)
        allowed = None
        if where is not None:
            allowed = self._allowed(conn, head, where).tolist()
            if not allowed:
                return []
        self._catch_up(collection, head)
        want = limit
        while True:
            hits = self._query(head, query, want, allowed)
            if self.embedded:
                return [Hit(str(i), s) for i, s in hits]
            # A server is shared: another process's follower may have put back the vector
            # of a chunk deleted since, so the sidecar decides what still exists.
            live = self._live(conn, [i for i, _ in hits])
            kept = [Hit(str(i), s) for i, s in hits if i in live]
            if len(kept) >= limit or len(hits) < want:
                return kept[:limit]
            want += 2 * (len(hits) - len(kept)) + 16

    @staticmethod
    def _live(conn: apsw.Connection, ids: list[int]) -> set[int]:
        """Which of these chunk ids still exist (ids are never reused: no collection check)."""
        if not ids:
            return set()
        rows = conn.execute(
            "SELECT id FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        return {int(r[0]) for r in rows}

    def chunk_vectors(
        self, collection: str, chunk_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Stored unit vectors read from the sidecar in one statement (the engine's copy
        is derived from them), without loading the collection's matrix into memory."""
        wanted = [int(c) for c in chunk_ids if isinstance(c, str) and c.isascii() and c.isdigit()]
        conn = self._conn()
        rows = conn.execute(_VECTORS_SQL, (json.dumps(wanted), collection)).fetchall()
        if not rows:
            read_head(conn, collection)  # an unknown collection raises UnknownName
        return {str(r[0]): np.frombuffer(cast(bytes, r[1]), dtype="<f4").copy() for r in rows}
