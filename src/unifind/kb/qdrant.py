"""The Qdrant KB store: Qdrant holds and searches the vectors; a SQLite file stays the record.

Qdrant holds a derived vector index per collection; documents, chunks, terms, the ACL and
BM25 stay in a SQLite sidecar it follows (see ``_sidecar.py``). The applied position is a
payload on point 0.

URLs: ``qdrant://./path`` or ``qdrant:///abs/path`` (no port) runs Qdrant's local mode
in-process (``qdrant-client``; one process at a time); ``qdrant://host:6333`` (a port) or
``qdrant+https://host`` talks to a server, with ``?api_key=`` and ``?sidecar=/path``.

Filtered queries send the allowed chunk ids (from the sidecar) as a ``has_id`` filter and
ask for an exact search when there are at most ``exact_below`` of them: Qdrant's filtered
HNSW is good, but exact is exact, and cheap at 1 % selectivity.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import numpy.typing as npt

from unifind._deps import require
from unifind.kb import _remote
from unifind.kb._follow import read_head
from unifind.kb._sidecar import SidecarVectorStore
from unifind.kb.base import Hit
from unifind.kb.sqlite import _check_search

_META = 0  # point 0 carries the applied change-log position; chunk ids start at 1
_BATCH = 512


class QdrantStore(SidecarVectorStore):
    """Vectors in Qdrant (local mode or a server), everything else in a SQLite sidecar."""

    name = "qdrant"

    def __init__(
        self, url: str, *, home: str | Path | None = None, exact_below: int = 20_000
    ) -> None:
        parts = urlsplit(url if "://" in url else f"qdrant://{url}")
        query = dict(parse_qsl(parts.query))
        self.exact_below = exact_below
        if ":" not in parts.netloc and "+" not in parts.scheme:  # a path, not host:port
            folder = Path(parts.netloc + parts.path).expanduser()
            self._client_args: dict[str, Any] = {"path": str(folder / "qdrant")}
            sidecar = Path(query.get("sidecar", folder / "kb.sqlite"))
        else:
            scheme = "https" if parts.scheme.endswith("https") else "http"
            self._client_args = {
                "url": f"{scheme}://{parts.netloc}{parts.path}",
                "timeout": 10,
                "check_compatibility": False,  # a probe at construction; we connect lazily
            }
            if "api_key" in query:
                self._client_args["api_key"] = query["api_key"]
            base = Path(home or Path("~/.unifind").expanduser())
            sidecar = Path(query.get("sidecar", base / f"kb-qdrant-{parts.hostname}.sqlite"))
        super().__init__(sidecar, url, query.get("prefix", "unifind_"))

    def _connect(self) -> Any:
        qc = require("qdrant_client", "qdrant")
        with warnings.catch_warnings():
            # "Api key is used with an insecure connection": the user chose http.
            warnings.simplefilter("ignore", UserWarning)
            return qc.QdrantClient(**self._client_args)

    def _is_connection_error(self, exc: BaseException) -> bool:
        return _is_connection_error(exc)

    def _ping(self, client: Any) -> None:
        client.get_collections()

    def _drop(self, coll_id: int) -> None:
        self._call(lambda c: c.delete_collection(self._ename(coll_id)))

    def _ensure(self, coll_id: int, dim: int) -> None:
        models = require("qdrant_client.models", "qdrant")
        qname = self._ename(coll_id)

        def make(c: Any) -> None:
            if not c.collection_exists(qname):
                params = models.VectorParams(size=dim, distance=models.Distance.DOT)
                c.create_collection(qname, vectors_config=params)

        self._call(make)

    # ---- the follower's engine part (``_sidecar.SidecarVectorStore._catch_up``) -------

    def _stored_seq(self, coll_id: int) -> int:
        qname = self._ename(coll_id)
        got = self._call(lambda c: c.retrieve(qname, [_META], with_payload=True))
        return int(got[0].payload["seq"]) if got else 0

    def _apply(self, coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int) -> None:
        models = require("qdrant_client.models", "qdrant")
        qname = self._ename(coll_id)
        if deleted:
            selector = models.PointIdsList(points=deleted)
            self._call(lambda c: c.delete(qname, points_selector=selector, wait=True))
        for i in range(0, len(rows), _BATCH):
            batch = rows[i : i + _BATCH]
            ids = [r[0] for r in batch]
            vectors = np.frombuffer(b"".join(r[1] for r in batch), dtype="<f4").reshape(-1, dim)
            points = models.Batch(ids=ids, vectors=vectors.tolist())
            self._call(lambda c, p=points: c.upsert(qname, points=p, wait=True))
        mark = models.PointStruct(id=_META, vector=[0.0] * dim, payload={"seq": seq})
        self._call(lambda c: c.upsert(qname, points=[mark], wait=True))

    # ---- search ----------------------------------------------------------------------

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
        coll_id, _ = self._catch_up(collection)
        allowed = None
        if where is not None:
            allowed = self._allowed(conn, read_head(conn, collection), where).tolist()
            if not allowed:
                return []
        hits = self._query(self._ename(coll_id), query, limit, allowed)
        live = self.get_chunks(collection, [str(h[0]) for h in hits])
        # Sidecar first: a point whose chunk is gone (a later delete) is never returned.
        return [Hit(str(i), s) for i, s in hits if str(i) in live][:limit]

    def _query(
        self, qname: str, query: npt.NDArray[np.float32], limit: int, allowed: list[int] | None
    ) -> list[tuple[int, float]]:
        """Top ``limit`` by score, ties by id: widen the fetch until no tie straddles the cut."""
        models = require("qdrant_client.models", "qdrant")
        ids = [_META] if allowed is None else []
        must_not = [models.HasIdCondition(has_id=ids)] if ids else None
        must = [models.HasIdCondition(has_id=allowed)] if allowed is not None else None
        flt = models.Filter(must=must, must_not=must_not)
        exact = allowed is not None and len(allowed) <= self.exact_below
        # Local mode is always exact and warns about search_params.
        params = None if "path" in self._client_args else models.SearchParams(exact=exact)
        fetch = max(2 * limit, limit + 16)
        while True:
            res = self._call(
                lambda c, n=fetch: c.query_points(
                    qname, query=query.tolist(), query_filter=flt, limit=n,
                    search_params=params, with_payload=False,
                )
            ).points  # fmt: skip
            got = sorted(((int(p.id), float(p.score)) for p in res), key=lambda h: (-h[1], h[0]))
            if len(got) < fetch or got[-1][1] < got[min(limit, len(got)) - 1][1]:
                return got[: limit + 16]
            fetch *= 2


def _is_connection_error(exc: BaseException) -> bool:
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    return bool(names & {"ResponseHandlingException", "ConnectError", "ConnectionError",
                         "ConnectTimeout", "RpcError"})  # fmt: skip
