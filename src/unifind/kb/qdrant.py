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
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import numpy.typing as npt

from unifind._deps import require
from unifind.kb import _remote
from unifind.kb._follow import Head
from unifind.kb._sidecar import SidecarVectorStore

_META = 0  # point 0 carries the applied change-log position; chunk ids start at 1
_BATCH = 512
_SERVER = "qdrant://host:6333"


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
        embedded = "path" in self._client_args
        super().__init__(sidecar, url, query.get("prefix", "unifind_"), embedded=embedded)

    def _connect(self) -> Any:
        qc = require("qdrant_client", "qdrant")
        with warnings.catch_warnings():
            # "Api key is used with an insecure connection": the user chose http.
            warnings.simplefilter("ignore", UserWarning)
            if self.embedded and _held(Path(self._client_args["path"])):
                folder = Path(self._client_args["path"]).parent
                raise _remote.in_use(self.url, folder, "Qdrant local mode", _SERVER)
            return qc.QdrantClient(**self._client_args)

    def _is_connection_error(self, exc: BaseException) -> bool:
        return _is_connection_error(exc)

    def _ping(self, client: Any) -> None:
        client.get_collections()

    def _drop(self, coll_id: int) -> None:
        self._call(lambda c: c.delete_collection(self._ename(coll_id)))

    def _ensure(self, coll_id: int, dim: int) -> None:
        """Create the Qdrant collection if missing (once per client: ``_catch_up``)."""
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

    def _apply(
        self, coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int | None
    ) -> None:
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
        if seq is None:
            return
        mark = models.PointStruct(id=_META, vector=[0.0] * dim, payload={"seq": seq})
        self._call(lambda c: c.upsert(qname, points=[mark], wait=True))

    # ---- search (``SidecarVectorStore.vector_search``) -----------------------------

    def _query(
        self, head: Head, query: npt.NDArray[np.float32], want: int, allowed: list[int] | None
    ) -> list[tuple[int, float]]:
        """Unfiltered queries send no filter and drop the marker (a zero vector) here:
        local mode evaluates any filter in Python point by point (~20 ms at 11k points)."""
        models = require("qdrant_client.models", "qdrant")
        qname = self._ename(head.id)
        flt = None
        if allowed is not None:
            flt = models.Filter(must=[models.HasIdCondition(has_id=allowed)])
        exact = allowed is not None and len(allowed) <= self.exact_below
        # Local mode is always exact and warns about search_params.
        params = None if self.embedded else models.SearchParams(exact=exact)
        vec = query.tolist()
        fetch = want + 2  # the marker, and one past the cut to see a tie straddling it
        while True:
            res = self._call(
                lambda c, n=fetch: c.query_points(
                    qname, query=vec, query_filter=flt, limit=n,
                    search_params=params, with_payload=False,
                )
            ).points  # fmt: skip
            got = sorted(
                ((int(p.id), float(p.score)) for p in res if p.id != _META),
                key=lambda h: (-h[1], h[0]),
            )
            if len(res) < fetch or len(got) <= want or got[want][1] < got[want - 1][1]:
                return got[:want]
            fetch *= 2


def _held(path: Path) -> bool:
    """Whether another client holds local mode's lock on ``path`` (as QdrantLocal takes it,
    in qdrant_client/local/qdrant_local.py). Asked first because a refused QdrantLocal has
    read the whole folder and leaves its lock file open."""
    lock = path / ".lock"
    if not lock.is_file():
        return False
    portalocker = require("portalocker", "qdrant")
    flags = portalocker.LockFlags
    with lock.open("r+") as f:
        try:
            portalocker.lock(f, flags.EXCLUSIVE | flags.NON_BLOCKING)
        except portalocker.exceptions.LockException:
            return True
        portalocker.unlock(f)
    return False


def _is_connection_error(exc: BaseException) -> bool:
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    return bool(names & {"ResponseHandlingException", "ConnectError", "ConnectionError",
                         "ConnectTimeout", "RpcError"})  # fmt: skip
