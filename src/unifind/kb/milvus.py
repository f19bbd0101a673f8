"""The Milvus KB store: Milvus holds and searches the vectors; a SQLite file stays the record.

The same design as the Qdrant store (``qdrant.py``): Milvus's own BM25 tokenises differently
from unifind's analyser, so documents, chunks, terms, collection metadata (the ACL) and the
change log live in a SQLite sidecar (the embedded store's schema), and each vector
collection is a Milvus collection that follows the sidecar's change log before every vector
query. A writer killed mid-ingest leaves nothing visible (its SQLite transaction never
committed, and entities whose chunk doesn't exist are never returned); chunk ids are the
sidecar's (never reused). The applied position is the ``seq`` field of entity 0, so a
restarted process resumes instead of re-uploading.

URLs: ``milvus:///abs/folder`` or ``milvus://./folder`` (no port) runs Milvus Lite
in-process (``milvus-lite``): ``folder/milvus.db`` is its data directory and
``folder/kb.sqlite`` the sidecar; one process at a time (Milvus Lite holds a lock), and
each catch-up ends with a flush (Lite scans unsealed rows in Python, ~20x slower).
``milvus://host:19530`` (a port) or ``milvus+https://host`` talks to a Milvus server with the
same code; ``user:password@`` or ``?token=`` authenticate, ``?db_name=``, ``?timeout=`` (s)
and ``?sidecar=/path`` are optional. A server older than Milvus 2.3 is refused in one line
when first reached (tested against the 2.3 standalone server of the ``milvus`` package).

Tenancy: the ACL is collection metadata in the sidecar, as in every store, and each unifind
collection is its own Milvus collection, so a tenant's vectors never share a collection with
another tenant's: no partition key is needed (nor used).

Index: ``FLAT`` (exact) by default, like the embedded store below its HNSW threshold;
``?index=HNSW`` (or ``AUTOINDEX``) on a server for large collections. Filtered queries send
the allowed chunk ids (from the sidecar) as an ``id in [...]`` filter; with at most
``exact_below`` of them they are scored exactly from the sidecar's vectors instead, because
filtered ANN at 1 % selectivity misses what exact search finds.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np
import numpy.typing as npt

from unifind._deps import require
from unifind.errors import SourceError
from unifind.kb import _remote
from unifind.kb._follow import Head, load_vectors
from unifind.kb._schema import snapshot
from unifind.kb._sidecar import SidecarVectorStore
from unifind.types import Reason

_MIN_SERVER = (2, 3)  # upsert (every write here) came in Milvus 2.3
_NOT_LOADED = 101  # Milvus's error code for "collection not loaded" (merr, 2.3 and later)
# Milvus 2.3 refuses an HNSW index without its build parameters (``efConstruction out of
# range``); these are the values Milvus's own documentation uses.
_BUILD: dict[str, dict[str, int]] = {"HNSW": {"M": 16, "efConstruction": 200}}
_EF_MAX = 32_768  # Milvus's largest HNSW ef
_META = 0  # entity 0 carries the applied change-log position; chunk ids start at 1
# Vectors per upsert call, by size: ~5,000 of 384 dimensions (512 before: ten times the calls for
# a bulk load), well under the 64 MB a 2.3 proxy receives (``grpc.serverMaxRecvSize``).
_BATCH_BYTES = 8 << 20
_TOPK_MAX = 16_384  # Milvus refuses a larger limit
_SERVER = "milvus://host:19530"


class MilvusStore(SidecarVectorStore):
    """Vectors in Milvus (Lite in-process, or a server), everything else in a SQLite sidecar."""

    name = "milvus"

    def __init__(
        self, url: str, *, home: str | Path | None = None, exact_below: int = 20_000
    ) -> None:
        parts = urlsplit(url if "://" in url else f"milvus://{url}")
        query = dict(parse_qsl(parts.query))
        self.exact_below = exact_below
        self.index = query.get("index", "FLAT").upper()
        args: dict[str, Any] = {"timeout": float(query.get("timeout", 10))}
        if ":" not in parts.netloc and "+" not in parts.scheme:  # a path, not host:port
            folder = Path(parts.netloc + parts.path).expanduser()
            args["uri"] = str(folder / "milvus.db")
            sidecar = Path(query.get("sidecar", folder / "kb.sqlite"))
            self.lite = True
        else:
            scheme = "https" if parts.scheme.endswith("https") else "http"
            args["uri"] = f"{scheme}://{parts.hostname}:{parts.port or 19530}"
            if parts.username is not None:
                args["token"] = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            for key in ("token", "db_name"):
                if key in query:
                    args[key] = query[key]
            base = Path(home or Path("~/.unifind").expanduser())
            sidecar = Path(query.get("sidecar", base / f"kb-milvus-{parts.hostname}.sqlite"))
            self.lite = False
        self._client_args = args
        self._loaded: set[str] = set()
        super().__init__(sidecar, url, query.get("prefix", "unifind_"), embedded=self.lite)

    def _connect(self) -> Any:
        pm = require("pymilvus", "milvus")
        if not self.lite:
            client = pm.MilvusClient(**self._client_args)
            try:
                _check_version(self.url, client.get_server_version())
            except BaseException:
                client.close()
                raise
            return client
        folder = Path(self._client_args["uri"]).parent
        folder.mkdir(parents=True, exist_ok=True)
        with _LITE_START.catching() as failed:
            try:
                return pm.MilvusClient(**self._client_args)
            except Exception as exc:
                cause = failed[0] if failed else exc
                if type(cause).__name__ == "DataDirLockedError":
                    raise _remote.in_use(self.url, folder, "Milvus Lite", _SERVER) from None
                raise _remote.unreachable(self.url, cause) from None

    def _materialise(self) -> None:
        if self.lite and self.missing is not None:
            # pymilvus keeps one in-process Lite server per folder until exit, whatever the
            # clients do: one on a folder since deleted serves collections whose files are gone.
            self._close_engine()
            require("milvus_lite.server_manager", "milvus").server_manager_instance.release_server(
                self._client_args["uri"]
            )
        super()._materialise()

    def _is_connection_error(self, exc: BaseException) -> bool:
        return _is_connection_error(exc)

    def _ping(self, client: Any) -> None:
        client.list_collections()

    def _closing(self) -> None:
        self._loaded.clear()

    def _drop(self, coll_id: int) -> None:
        self._call(lambda c: c.drop_collection(self._ename(coll_id)))
        self._loaded.discard(self._ename(coll_id))

    def _ensure(self, coll_id: int, dim: int) -> None:
        pm = require("pymilvus", "milvus")
        mname = self._ename(coll_id)
        if mname in self._loaded:
            return

        def make(c: Any) -> None:
            if c.has_collection(mname):
                c.load_collection(mname)  # a reopened collection starts released
                return
            schema = c.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("id", pm.DataType.INT64, is_primary=True)
            schema.add_field("vector", pm.DataType.FLOAT_VECTOR, dim=dim)
            schema.add_field("seq", pm.DataType.INT64)
            index = c.prepare_index_params()
            index.add_index(
                field_name="vector", index_type=self.index, metric_type="IP",
                params=_BUILD.get(self.index, {}),
            )  # fmt: skip
            c.create_collection(
                mname, schema=schema, index_params=index, consistency_level="Strong"
            )

        self._call(make)
        self._loaded.add(mname)

    def search_args(self, limit: int) -> dict[str, Any]:
        """What a search of ``limit`` hits sends besides the query (the bench's raw client
        sends the same). On a server, ``Session`` consistency: the search sees this client's
        own writes (the catch-up before every query is one) without waiting for the next
        time tick, as the collection's ``Strong`` level would (~200 ms per query: Milvus's
        ``proxy.timeTickInterval``). Other processes' writes are applied by this process's
        own catch-up too, and every hit is checked against the sidecar."""
        params: dict[str, Any] = {"metric_type": "IP"}
        if self.index == "HNSW":  # Milvus refuses ef < limit
            params["params"] = {"ef": min(max(2 * limit, 64), _EF_MAX)}
        if self.lite:
            return {"search_params": params}
        return {"search_params": params, "consistency_level": "Session"}

    def _loaded_call(self, mname: str, fn: Any) -> Any:
        """``fn`` (a read), loading the collection and asking again if the server says it
        isn't loaded: a restarted server comes back with its collections released."""
        try:
            return self._call(fn)
        except Exception as exc:
            if getattr(exc, "code", None) != _NOT_LOADED and "not loaded" not in str(exc):
                raise
        self._call(lambda c: c.load_collection(mname))
        return self._call(fn)

    # ---- the follower's engine part (``_sidecar.SidecarVectorStore._catch_up``) -------

    def _stored_seq(self, coll_id: int) -> int:
        mname = self._ename(coll_id)
        got = self._loaded_call(mname, lambda c: c.get(mname, ids=[_META], output_fields=["seq"]))
        return int(got[0]["seq"]) if got else 0

    def _apply(
        self, coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int | None
    ) -> None:
        mname = self._ename(coll_id)
        if deleted:
            self._call(lambda c: c.delete(mname, ids=deleted))
        step = max(1, _BATCH_BYTES // (4 * dim))
        for i in range(0, len(rows), step):
            batch = rows[i : i + step]
            vectors = np.frombuffer(b"".join(r[1] for r in batch), dtype="<f4").reshape(-1, dim)
            # float32 rows as arrays: pymilvus converts them itself, ~3x less CPU than our
            # own list of lists (0.10 s against 0.17-0.31 s per 5,461 rows, measured apart).
            data = [
                {"id": int(r[0]), "vector": v, "seq": 0}
                for r, v in zip(batch, vectors, strict=True)
            ]
            self._call(lambda c, d=data: c.upsert(mname, data=d))
        if seq is None:
            return
        mark = [0.0] * dim
        mark[0] = 1.0  # a unit vector: the marker is filtered out of every search anyway
        self._call(lambda c: c.upsert(mname, data=[{"id": _META, "vector": mark, "seq": seq}]))
        if self.lite:  # Lite scans unsealed rows in Python (~20x slower): seal them now
            self._call(lambda c: c.flush(mname))

    # ---- search (``SidecarVectorStore.vector_search``) -----------------------------

    def _exact(
        self, head: Head, query: npt.NDArray[np.float32], limit: int, allowed: list[int]
    ) -> list[tuple[int, float]]:
        """Score a small allowed set exactly from the sidecar's vectors (one snapshot)."""
        conn = self._conn()
        with snapshot(conn):
            rows = load_vectors(conn, head.id, allowed)
        if not rows:
            return []
        vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(
            -1, head.dim or 0
        )
        scores = vectors @ query
        order = sorted(range(len(rows)), key=lambda k: (-float(scores[k]), int(rows[k][0])))
        return [(int(rows[k][0]), float(scores[k])) for k in order[:limit]]

    def _query(
        self, head: Head, query: npt.NDArray[np.float32], want: int, allowed: list[int] | None
    ) -> list[tuple[int, float]]:
        if allowed is not None and len(allowed) <= self.exact_below:
            return self._exact(head, query, want, allowed)
        mname = self._ename(head.id)
        # The marker is dropped here rather than by a filter (a filter costs ~2 ms on Lite).
        expr = "" if allowed is None else f"id in {allowed}"
        fetch = min(want + 2, _TOPK_MAX)  # the marker, and one past the cut to see a tie
        data = [query.tolist()]
        while True:
            res = self._loaded_call(
                mname,
                lambda c, n=fetch: c.search(
                    mname, data=data, limit=n, filter=expr, output_fields=[],
                    **self.search_args(n),
                )
            )  # fmt: skip
            got = sorted((h for h in _pairs(res[0]) if h[0] != _META), key=lambda h: (-h[1], h[0]))
            short = len(res[0]) < fetch or fetch >= _TOPK_MAX
            if short or len(got) <= want or got[want][1] < got[want - 1][1]:
                return got[:want]
            fetch = min(2 * fetch, _TOPK_MAX)


class _LiteStartFailure(logging.Filter):
    """Keeps a failed Milvus Lite start's exception for the message, instead of its logged
    traceback: milvus-lite logs it (``server_manager.start_and_get_uri``) and returns None,
    and pymilvus then raises a bare "Open local milvus failed". Only inside
    :meth:`catching`, in that thread; every other record passes."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        failed: list[BaseException] | None = getattr(self._local, "failed", None)
        if failed is None or not record.exc_info or record.exc_info[1] is None:
            return True
        failed.append(record.exc_info[1])
        return False

    @contextmanager
    def catching(self) -> Iterator[list[BaseException]]:
        failed: list[BaseException] = []
        self._local.failed = failed
        try:
            yield failed
        finally:
            self._local.failed = None


_LITE_START = _LiteStartFailure()
logging.getLogger("milvus_lite.server_manager").addFilter(_LITE_START)


def _pairs(hits: Any) -> list[tuple[int, float]]:
    """(id, score) of one query's hits. pymilvus 3 keeps them as columns (``ids``,
    ``distances``); iterating builds a dict per hit and decodes its fields (~2 ms at 100)."""
    ids, scores = getattr(hits, "ids", None), getattr(hits, "distances", None)
    if ids is None or scores is None:
        return [(int(h["id"]), float(h["distance"])) for h in hits]
    return [(int(i), float(d)) for i, d in zip(ids, scores, strict=True)]


def _check_version(url: str, version: str) -> None:
    """Refuse a server older than :data:`_MIN_SERVER`, in one line (its writes would fail
    one by one, as unknown methods). ``version``: as the server reports it, ``v2.3.5-lite``."""
    found = re.match(r"v?(\d+)\.(\d+)", version.strip())
    if found is None or (int(found[1]), int(found[2])) >= _MIN_SERVER:
        return  # a version we can't read is given the benefit of the doubt
    want = ".".join(map(str, _MIN_SERVER))
    raise SourceError(
        Reason.ERROR,
        f"KB store {_remote.describe(url)}: Milvus server {version} is not supported "
        f"(unifind needs Milvus {want} or newer)",
    )


def _is_connection_error(exc: BaseException) -> bool:
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    if names & {"ConnectError", "MilvusUnavailableException", "ConnectionNotExistException",
                "RpcError", "_InactiveRpcError"}:  # fmt: skip
        return True
    return getattr(exc, "code", None) == 2  # pymilvus's Status.CONNECT_FAILED
