"""MilvusStore on a real Milvus standalone server (the ``milvus`` package, 2.3.x) on loopback:
the shared conformance suite, the same answers as SQLite, the server stopped and started
again mid-search, and a server too old for us.

One server per session (it takes 10-20 s to start); each test's collections carry a prefix
of their own and are dropped afterwards. Without the package the tests skip, naming the
install command; CI sets ``UNIFIND_REQUIRE_MILVUS_SERVER=1`` (``.ci/run``), which turns
that skip into a failure.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.config import load_settings
from unifind.errors import SourceError
from unifind.kb._follow import read_head
from unifind.kb.routing import RoutingStore
from unifind.kb.service import KnowledgeBase
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec
from unifind.testing.servers import MilvusServer, milvus_server
from unifind.types import KBMode, Reason, SearchRequest

_prefixes = itertools.count()


def _server_or_skip() -> None:
    required = os.environ.get("UNIFIND_REQUIRE_MILVUS_SERVER") == "1" or bool(os.environ.get("CI"))
    problem = None
    for module, extra in (("pymilvus", "milvus"), ("milvus", "milvus-server")):
        try:
            __import__(module)
        except ImportError:
            problem = f"{module} is not installed: pip install -e '.[{extra}]'"
            break
    if problem is not None:
        if required:
            pytest.fail(f"UNIFIND_REQUIRE_MILVUS_SERVER=1 (or CI) but {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="session")
def milvus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusServer]:
    _server_or_skip()
    with milvus_server(tmp_path_factory.mktemp("milvus-server")) as server:
        yield server


def url(server: MilvusServer, sidecar: Path, **query: Any) -> str:
    """A store URL with its own sidecar and collection prefix: an empty KB per call."""
    prefix = f"t{os.getpid()}_{next(_prefixes)}_"
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    return f"{server.url}?sidecar={sidecar}&prefix={prefix}{extra}"


def drop_prefixed(store: Any) -> None:
    """Drop the server's collections this store created (the server is shared)."""
    from pymilvus import MilvusClient

    client = MilvusClient(uri=store._client_args["uri"], timeout=10)
    try:
        for name in client.list_collections():
            if name.startswith(store.prefix):
                client.drop_collection(name)
    finally:
        client.close()


class TestMilvusServerStore(KBStoreConformance):
    @pytest.fixture(autouse=True)
    def _server(self, milvus: MilvusServer) -> None:
        self.server = milvus

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Any]:
        s = self.make_store(tmp_path)
        try:
            yield s
        finally:
            s.close()
            drop_prefixed(s)

    def make_store(self, tmp_path: Path) -> Any:
        from unifind.kb.milvus import MilvusStore

        return MilvusStore(url(self.server, tmp_path / "kb.sqlite"))

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.milvus:MilvusStore", (url(self.server, tmp_path / "spec.sqlite"),), {}


@pytest.mark.parametrize("index", ["FLAT", "HNSW"])
def test_server_vector_search_goes_through_milvus(
    milvus: MilvusServer, tmp_path: Path, index: str
) -> None:
    """Both index kinds on a real server (Milvus 2.3 refuses HNSW without its build
    parameters), every search through Milvus (``exact_below=0``)."""
    from unifind.kb.milvus import MilvusStore

    store = MilvusStore(url(milvus, tmp_path / "kb.sqlite", index=index), exact_below=0)
    try:
        assert not store.lite and store.client.get_server_version().startswith("v2.")
        assert store.index == index
        store.create_collection("docs", embedder="e", dim=4)
        store.upsert_document("docs", doc("a", tag="x"), [chunk(0, "a", vector=vec(1, 0, 0, 0))])
        store.upsert_document("docs", doc("b", tag="y"), [chunk(0, "b", vector=vec(1, 1, 0, 0))])
        [a] = ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=5, filters={"tag": "x"}))
        assert ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=5))[-1] == a
        mname = store._ename(1)
        got = store.client.query(mname, filter="id >= 0", output_fields=["id"])
        assert sorted(int(r["id"]) for r in got) == [0, *sorted(int(i) for i in ids(
            store.vector_search("docs", vec(1, 0, 0, 0), limit=5)))]  # fmt: skip
    finally:
        store.close()
        drop_prefixed(store)


def engine(kb: KnowledgeBase) -> Any:
    """The configured store under the KB's routing layer: here, the MilvusStore."""
    return kb.store.default if isinstance(kb.store, RoutingStore) else kb.store


def _corpus(kb: KnowledgeBase) -> None:
    kb.create("docs", metadata={"team": "support"})
    for i in range(12):
        text = f"Document {i} about refunds and shipping. 退款 政策 {i}. " * (1 + i % 3)
        kb.ingest_text("docs", text, document_id=f"d{i:02}", title=f"T{i}")


QUERIES = ("refunds shipping", "退款", "document 7")


def _ranked(
    kb: KnowledgeBase, mode: KBMode, collection: str = "docs"
) -> list[list[tuple[str | None, float]]]:
    out = []
    for q in QUERIES:
        req = SearchRequest(type="kb", query=q, limit=5, mode=mode, collections=(collection,))
        res = kb.search_sync(req)
        assert res.status == "ok", res.reports
        out.append([(it.document_id, round(it.score, 9)) for it in res.items])
    return out


def test_same_answers_as_sqlite(milvus: MilvusServer, tmp_path: Path) -> None:
    """The same corpus in SQLite and on the server ranks alike, in every mode (so nDCG is
    the same: the five-set parity run is ``bench/stores.py --part quality``)."""
    spec = url(milvus, tmp_path / "side.sqlite")
    got: dict[str, dict[str, Any]] = {}
    for label, store in (("sqlite", f"sqlite://{tmp_path}/kb.sqlite"), ("milvus", spec)):
        settings = load_settings(home=tmp_path / label, kb={"store": store, "embedder": "hash:64"})
        with KnowledgeBase.open(settings) as kb:
            _corpus(kb)
            got[label] = {m: _ranked(kb, m) for m in ("semantic", "hybrid", "text")}
            if label == "milvus":
                drop_prefixed(engine(kb))
    assert got["sqlite"]["semantic"][0]
    for mode, want in got["sqlite"].items():
        for g, w in zip(got["milvus"][mode], want, strict=True):
            assert [d for d, _ in g] == [d for d, _ in w], mode
            assert [s for _, s in g] == pytest.approx([s for _, s in w], abs=1e-5), mode


def test_server_down_then_up_mid_search(milvus: MilvusServer, tmp_path: Path) -> None:
    """Down: a search answers a status naming the store (text still answers from the
    sidecar), never an exception, and ingest still records; up again: every document,
    including the one ingested while down, is found, nothing lost or duplicated."""
    spec = url(milvus, tmp_path / "side.sqlite", timeout=3)
    settings = load_settings(home=tmp_path / "h", kb={"store": spec, "embedder": "hash:64"})
    with KnowledgeBase.open(settings) as kb:
        _corpus(kb)
        kb.create("notes")
        kb.ingest_text("notes", "written before Milvus went down", document_id="early")
        before = _ranked(kb, "semantic")
        milvus.stop()
        try:
            down = SearchRequest(type="kb", query="refunds", mode="semantic")
            res = kb.search_sync(down.model_copy(update={"collections": ("docs",)}))
            assert res.status == "unavailable" and not res.items
            [report] = res.reports
            assert (report.status, report.reason) == ("degraded", Reason.UNREACHABLE)
            assert "127.0.0.1" in (report.error or "")
            res = kb.search_sync(SearchRequest(type="kb", query="refunds", mode="hybrid"))
            assert res.status != "ok" and res.items  # BM25 from the sidecar still answers
            assert any(r.reason == Reason.UNREACHABLE for r in res.reports)
            kb.ingest_text("notes", "written while Milvus was down", document_id="late")
        finally:
            milvus.start()
        assert _ranked(kb, "semantic") == before
        req = SearchRequest(type="kb", query="while Milvus was down", mode="semantic")
        res = kb.search_sync(req.model_copy(update={"collections": ("notes",)}))
        assert res.status == "ok"
        assert [it.document_id for it in res.items] == ["late", "early"]
        store = engine(kb)
        for name in ("docs", "notes"):
            mname = store._ename(read_head(store._conn(), name).id)
            rows = store.client.query(mname, filter="id >= 0", output_fields=["id"])
            chunks = store.get_collection(name).chunks
            assert len(rows) == len({int(r["id"]) for r in rows}) == 1 + chunks  # + the marker
        drop_prefixed(store)


def test_a_server_too_old_is_refused_in_one_line(
    milvus: MilvusServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No Milvus 2.2 server can run beside 2.3 here (one ``milvus`` package per
    environment), so the version the server reports is faked on the client."""
    from pymilvus import MilvusClient

    from unifind.kb.milvus import MilvusStore

    monkeypatch.setattr(MilvusClient, "get_server_version", lambda self, **kw: "v2.2.16")
    store = MilvusStore(url(milvus, tmp_path / "kb.sqlite"))
    try:
        with pytest.raises(SourceError) as exc:
            store.create_collection("docs", embedder="e", dim=4)
        message = str(exc.value)
        assert "\n" not in message and "v2.2.16 is not supported" in message
        assert "Milvus 2.3 or newer" in message and exc.value.reason == Reason.ERROR
    finally:
        store.close()
