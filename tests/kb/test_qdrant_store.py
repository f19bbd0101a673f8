"""QdrantStore: the shared conformance suite on Qdrant's local mode (in-process), plus
following the sidecar across restarts and an unreachable server named without its key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from unifind.errors import SourceError
from unifind.registry import registry
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec
from unifind.testing.servers import free_port
from unifind.types import Reason

pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")

from unifind.kb.qdrant import QdrantStore


class TestQdrantStore(KBStoreConformance):
    def make_store(self, tmp_path: Path) -> QdrantStore:
        return QdrantStore(f"qdrant://{tmp_path}/q")

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.qdrant:QdrantStore", (f"qdrant://{tmp_path}/spec",), {}


def test_registered_as_the_qdrant_kb_store() -> None:
    assert registry("kb_stores").get("qdrant") is QdrantStore


def test_points_follow_the_sidecar_across_restarts(tmp_path: Path) -> None:
    url = f"qdrant://{tmp_path}/q"
    with QdrantStore(url) as store:
        store.create_collection("docs", embedder="e", dim=4)
        store.upsert_document("docs", doc("a"), [chunk(0, "a", vector=vec(1, 0, 0, 0))])
        [a] = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=5))
    with QdrantStore(url) as store:  # resumes from the position stored in Qdrant
        store.upsert_document("docs", doc("b"), [chunk(0, "b", vector=vec(0, 1, 0, 0))])
        store.delete_document("docs", "a")
        [b] = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=5))
        assert b != a
        qname = store._ename(1)
        assert store.client.count(qname).count == 2  # b and the position marker


def test_unreachable_server_is_a_source_error_without_the_key(tmp_path: Path) -> None:
    url = f"qdrant://127.0.0.1:{free_port()}?api_key=k3y-s3cret&sidecar={tmp_path}/side.db"
    store = QdrantStore(url)
    try:
        store.create_collection("lex", embedder=None, dim=None)  # the sidecar alone: fine
        with pytest.raises(SourceError) as exc:
            store.create_collection("docs", embedder="e", dim=4)
        assert exc.value.reason == Reason.UNREACHABLE
        assert "k3y-s3cret" not in str(exc.value) and "api_key=***" in str(exc.value)
        assert "k3y-s3cret" not in repr(store)
    finally:
        store.close()
