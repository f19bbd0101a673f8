"""Stores whose vectors live in an engine while a SQLite sidecar stays the system of record.

Qdrant and Milvus tokenise text their own way, so BM25 stays unifind's: documents, chunks,
terms, collection metadata (the ACL) and the change log live in a SQLite sidecar (the
embedded store's schema), and the engine holds a *derived* vector index per collection
that follows the sidecar's change log before every vector query, like the embedded
store's in-memory indexes (``_follow.py``). A writer killed mid-ingest leaves nothing
visible: the SQLite transaction never committed, and vectors of chunks that don't exist
are never returned. The applied position is stored in the engine beside the vectors, so a
restarted process resumes instead of re-uploading.

A subclass connects (:meth:`_connect`) and implements the engine's part: create
(:meth:`_ensure`), drop (:meth:`_drop`), read the applied position (:meth:`_stored_seq`)
and apply changes (:meth:`_apply`); the lifecycle, the follower and the error mapping are
here, once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unifind.errors import InputError
from unifind.kb import _remote
from unifind.kb._follow import _net_changes, load_vectors, read_head
from unifind.kb._schema import snapshot
from unifind.kb.base import CollectionInfo
from unifind.kb.sqlite import SQLiteStore


class SidecarVectorStore(SQLiteStore):
    """Vectors in an engine (one engine collection per vector collection), the rest in SQLite."""

    def __init__(self, sidecar: Path, url: str, prefix: str) -> None:
        self.url, self.prefix = url, prefix
        self._client: Any = None
        # One client, serialised: Qdrant's local mode is not thread-safe and pymilvus's
        # calls aren't reentrant.
        self._elock = threading.RLock()
        self._seqs: dict[int, int] = {}
        super().__init__(sidecar, hnsw_threshold=1 << 62)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_remote.redact(self.url)!r})"

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

    def _apply(self, coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int) -> None:
        """Write ``rows`` (id, float32 bytes), delete ``deleted``, record ``seq``."""
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
                except Exception as exc:  # unreachable server, or a local folder in use
                    raise _remote.unreachable(self.url, exc) from None
            return self._client

    def close(self) -> None:
        with self._elock:
            if self._client is not None:
                self._client.close()
                self._client = None
                self._closing()
        super().close()

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

    def _catch_up(self, name: str) -> tuple[int, int]:
        """Apply the sidecar's committed changes to the engine; ``(collection id, dim)``."""
        conn = self._conn()
        with snapshot(conn):
            head = read_head(conn, name)
            assert head.dim is not None
            self._ensure(head.id, head.dim)
            seq = self._seqs.get(head.id)
            if seq is None:
                seq = self._stored_seq(head.id)
            if seq == head.seq:
                return head.id, head.dim
            if seq < head.floor or seq > head.seq:  # log trimmed past us, or a recreated file
                self._drop(head.id)
                self._ensure(head.id, head.dim)
                added: list[int] | None = None
                deleted: list[int] = []
            else:
                added, deleted = _net_changes(conn, head, seq)
            rows = load_vectors(conn, head.id, added)
        self._apply(head.id, head.dim, rows, deleted, head.seq)
        self._seqs[head.id] = head.seq
        return head.id, head.dim
