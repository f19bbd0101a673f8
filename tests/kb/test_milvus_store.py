"""MilvusStore: the shared conformance suite on Milvus Lite (in-process), plus following the
sidecar across restarts and an unreachable server named without its password."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from unifind.config import load_settings
from unifind.errors import SourceError
from unifind.kb.migrate import digest, export_document, migrate, same_vectors
from unifind.kb.service import KnowledgeBase
from unifind.kb.stores import open_store
from unifind.registry import registry
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec
from unifind.testing.servers import free_port
from unifind.types import Reason, SearchRequest

pytest.importorskip("pymilvus", reason="needs pip install 'unifind[milvus]'")
pytest.importorskip("milvus_lite", reason="needs pip install 'unifind[milvus]'")

from unifind.kb.milvus import MilvusStore


class TestMilvusStore(KBStoreConformance):
    def make_store(self, tmp_path: Path) -> MilvusStore:
        return MilvusStore(f"milvus://{tmp_path}/m")

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.milvus:MilvusStore", (f"milvus://{tmp_path}/spec",), {}


def test_registered_as_the_milvus_kb_store() -> None:
    assert registry("kb_stores").get("milvus") is MilvusStore


def test_entities_follow_the_sidecar_across_restarts(tmp_path: Path) -> None:
    url = f"milvus://{tmp_path}/m"
    with MilvusStore(url) as store:
        store.create_collection("docs", embedder="e", dim=4)
        store.upsert_document("docs", doc("a"), [chunk(0, "a", vector=vec(1, 0, 0, 0))])
        [a] = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=5))
    assert (tmp_path / "m" / "milvus.db").is_dir() and (tmp_path / "m" / "kb.sqlite").is_file()
    with MilvusStore(url) as store:  # resumes from the position stored in Milvus
        assert store._stored_seq(1) > 0
        store.upsert_document("docs", doc("b"), [chunk(0, "b", vector=vec(0, 1, 0, 0))])
        store.delete_document("docs", "a")
        [b] = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=5))
        assert b != a
        got = store.client.query(store._ename(1), filter="id >= 0", output_fields=["id"])
        assert sorted(int(r["id"]) for r in got) == [0, int(b)]  # b and the position marker


def test_unfiltered_search_goes_through_milvus(tmp_path: Path) -> None:
    with MilvusStore(f"milvus://{tmp_path}/m", exact_below=0) as store:
        store.create_collection("docs", embedder="e", dim=4)
        store.upsert_document("docs", doc("a", tag="x"), [chunk(0, "a", vector=vec(1, 0, 0, 0))])
        store.upsert_document("docs", doc("b", tag="y"), [chunk(0, "b", vector=vec(1, 1, 0, 0))])
        [a] = ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=5, filters={"tag": "x"}))
        assert ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=5))[-1] == a


def test_unreachable_server_is_a_source_error_without_the_password(tmp_path: Path) -> None:
    url = f"milvus://root:pa55w0rd@127.0.0.1:{free_port()}?timeout=1&sidecar={tmp_path}/s.db"
    store = MilvusStore(url)
    try:
        store.create_collection("lex", embedder=None, dim=None)  # the sidecar alone: fine
        with pytest.raises(SourceError) as exc:
            store.create_collection("docs", embedder="e", dim=4)
        assert exc.value.reason == Reason.UNREACHABLE
        assert "pa55w0rd" not in str(exc.value) and "root:***@" in str(exc.value)
        assert "pa55w0rd" not in repr(store)
    finally:
        store.close()


def test_names_and_urls_open_a_milvus_store(tmp_path: Path) -> None:
    with open_store("milvus", tmp_path) as s:
        assert isinstance(s, MilvusStore) and s.path == tmp_path / "milvus" / "kb.sqlite"
    with open_store(f"milvus://{tmp_path}/m?index=flat", tmp_path) as s:
        assert isinstance(s, MilvusStore) and s.lite and s.index == "FLAT"
    with open_store("milvus+https://u:pw@milvus.example:443?db_name=kb", tmp_path) as s:
        assert isinstance(s, MilvusStore) and not s.lite  # lazy: no connection yet
        assert s.path == tmp_path / "kb-milvus-milvus.example.sqlite"


def _answers(spec: str, home: Path) -> list[list[tuple[str | None, float]]]:
    settings = load_settings(home=home, kb={"store": spec, "embedder": "hash:64"})
    with KnowledgeBase.open(settings) as kb:
        out = []
        for q in ("refunds shipping", "退款", "document 7"):
            res = kb.search_sync(SearchRequest(type="kb", query=q, limit=5, mode="semantic"))
            out.append([(it.document_id, round(it.score, 9)) for it in res.items])
        return out


def test_migrates_sqlite_to_milvus_and_back_with_the_same_answers(
    unifind_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash:64")
    with KnowledgeBase.open(load_settings()) as kb:
        kb.create("docs", metadata={"team": "support"})
        for i in range(12):
            text = f"Document {i} about refunds and shipping. 退款 政策 {i}. " * (1 + i % 3)
            kb.ingest_text("docs", text, document_id=f"d{i:02}", title=f"T{i}")
    chain = ["sqlite", f"milvus://{tmp_path}/m", f"sqlite://{tmp_path}/back.db"]
    for a, b in itertools.pairwise(chain):
        with open_store(a, unifind_home) as src, open_store(b, unifind_home) as dst:
            report = migrate(src, dst, "docs", home=unifind_home, target=b)
            assert (report.documents, report.copied, report.verified) == (12, 12, True)
    with open_store("sqlite", unifind_home) as first, open_store(chain[-1], unifind_home) as last:
        for i in range(12):
            left, right = (export_document(s, "docs", f"d{i:02}") for s in (first, last))
            assert left is not None and right is not None and digest(left) == digest(right)
            assert same_vectors(left, right)
    want, got = _answers("sqlite", unifind_home), _answers(chain[1], unifind_home)
    assert want[0]
    for g, w in zip(got, want, strict=True):
        assert [d for d, _ in g] == [d for d, _ in w]
        assert [s for _, s in g] == pytest.approx([s for _, s in w], abs=1e-5)
