"""Scale-out guarantees of the KB store contract: several writers, a writer killed
mid-ingest, tenant isolation through the ACL kept in collection metadata, and filtered
vector search at 1 % selectivity that finds exactly what an exact scan finds.
Mixed into ``KBStoreConformance``; the fixtures ``store`` and ``kb`` come from there."""

from __future__ import annotations

import importlib
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from unifind.errors import UnknownName
from unifind.kb.base import KBStore
from unifind.testing._kb_stubs import chunk, doc, ids, vec


class ScaleOutTests:
    """Tests every store passes; see ``KBStoreConformance``."""

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]] | None:
        """``("module:Class", args, kwargs)`` opening the store of ``make_store(tmp_path)``
        from another process; None skips the tests that need a second process."""
        return None

    def test_concurrent_writers(self, kb: KBStore) -> None:
        errors: list[BaseException] = []

        def writer(w: int) -> None:
            try:
                for i in range(8):
                    kb.upsert_document("text", doc(f"w{w}-{i}"), [chunk(0, f"many w{w}")] * 3)
                    kb.upsert_document("text", doc("contended", f"{w}-{i}"), [chunk(0, "hot")])
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[0]
        info = kb.get_collection("text")
        assert (info.documents, info.chunks) == (4 * 8 + 1, 4 * 8 * 3 + 1)
        assert len(kb.lexical_search("text", ["many"], limit=1000)) == 96
        assert len(kb.lexical_search("text", ["hot"], limit=10)) == 1  # one version survives
        for w in range(4):
            assert len(kb.lexical_search("text", [f"w{w}"], limit=100)) == 24

    def test_writer_killed_mid_ingest_leaves_no_half_document(self, tmp_path: Path) -> None:
        spec = self.store_spec(tmp_path)
        if spec is None:
            pytest.skip("store_spec() not given: can't open this store from another process")
        per_doc = 40
        child = subprocess.Popen(
            [sys.executable, "-c", _KILLED_WRITER, json.dumps([*spec, per_doc])],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None
            for _ in range(3):  # a few documents committed, then kill it mid-way
                assert child.stdout.readline().startswith("committed"), "writer died early"
            time.sleep(0.02)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            if child.stdout is not None:
                child.stdout.close()
        target, args, kwargs = spec
        module, _, cls = target.partition(":")
        store: KBStore = getattr(importlib.import_module(module), cls)(*args, **kwargs)
        try:
            documents = store.list_documents("killed", limit=10_000)
            assert len(documents) >= 3
            for d in documents:
                assert d.chunks == per_doc
                assert len(store.lexical_search("killed", [d.document_id], limit=1000)) == per_doc
            total = len(documents) * per_doc
            assert store.get_collection("killed").chunks == total
            assert len(store.lexical_search("killed", ["all"], limit=100_000)) == total
            assert len(store.vector_search("killed", vec(1, 1, 1, 1), limit=100_000)) == total
        finally:
            store.close()

    def test_tenants_are_isolated_and_the_acl_kept(self, store: KBStore) -> None:
        from unifind.config import Settings
        from unifind.kb.service import KnowledgeBase
        from unifind.types import Principal, SearchRequest

        acme, globex = Principal(tenant="acme", user="a"), Principal(tenant="globex", user="g")
        kb = KnowledgeBase(store, Settings(home=Path("unused")))
        for who in (acme, globex):
            kb.create(f"{who.tenant}-docs", embedder=None, principal=who)
            kb.ingest_text(f"{who.tenant}-docs", "refund rules", document_id="r", principal=who)
        kb.create("handbook", embedder=None)
        kb.ingest_text("handbook", "refund basics", document_id="h")
        # A tenant's collection is stored under its own name (kb._tenancy), ACL included.
        stored = kb.visible(acme)[0].name
        assert stored != "acme-docs" and stored.startswith("acme-docs")
        assert store.get_collection(stored).metadata["acl"]["tenant"] == "acme"
        for who, other in ((acme, "globex"), (globex, "acme")):
            assert {c.name for c in kb.collections(principal=who)} == {
                f"{who.tenant}-docs",
                "handbook",
            }
            res = kb.search_sync(SearchRequest(type="kb", query="refund"), principal=who)
            assert {it.collection for it in res.items} == {f"{who.tenant}-docs", "handbook"}
            with pytest.raises(UnknownName) as exc:
                kb.documents(f"{other}-docs", principal=who)
            assert other not in " ".join(exc.value.valid)
        res = kb.search_sync(SearchRequest(type="kb", query="refund"), principal=None)
        assert {it.collection for it in res.items} == {"handbook"}

    def test_filtered_vector_search_at_one_percent_is_exact(self, store: KBStore) -> None:
        rng = np.random.default_rng(7)
        dim, docs, per_doc = 16, 100, 20
        store.create_collection("sel", embedder="test-16d", dim=dim)
        vectors = rng.standard_normal((docs, per_doc, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
        picked: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        for d in range(docs):
            chunks = [chunk(j, f"c{j}", vector=vectors[d, j]) for j in range(per_doc)]
            store.upsert_document("sel", doc(f"d{d}", rare=d == 42), chunks)
        got_ids = ids(store.lexical_search("sel", ["c0"], limit=1, filters={"rare": True}))
        assert got_ids  # the 1 % slice: one document of 100, 20 chunks of 2,000
        for j, cid in enumerate(self._chunk_ids(store, "sel", "d42", per_doc)):
            picked[cid] = vectors[42, j]
        for q in rng.standard_normal((5, dim)).astype(np.float32):
            q /= np.linalg.norm(q)
            exact = sorted(picked, key=lambda c: (-float(picked[c] @ q), int(c)))[:10]
            hits = store.vector_search("sel", q, limit=10, filters={"rare": True})
            assert ids(hits) == exact
            assert [h.score for h in hits] == pytest.approx(
                [float(picked[c] @ q) for c in exact], abs=1e-5
            )

    def test_export_returns_the_document_as_stored(self, kb: KBStore) -> None:
        if not hasattr(kb, "export_document"):
            pytest.skip("this store has no export_document (kb migrate can't read it)")
        v = np.array([3.0, 4.0, 0.0, 0.0], dtype=np.float32)
        chunks = [chunk(0, "alpha beta", {"alpha": 1, "β": 2}, v), chunk(1, "gamma", {})]
        kb.upsert_document("docs", doc("a", "h9", lang="en"), chunks)
        got, out = kb.export_document("docs", "a")
        assert (got.document_id, got.content_hash, got.title, got.metadata) == (
            "a", "h9", "Title a", {"lang": "en"},
        )  # fmt: skip
        assert [(c.ordinal, c.text, c.start, c.end, dict(c.terms)) for c in out] == [
            (0, "alpha beta", 0, 10, {"alpha": 1, "β": 2}),
            (1, "gamma", 1000, 1005, {}),
        ]
        assert out[0].vector is not None and out[1].vector is None
        assert out[0].vector.tolist() == pytest.approx([0.6, 0.8, 0, 0], abs=1e-7)  # unit
        assert kb.export_document("docs", "missing") is None

    @staticmethod
    def _chunk_ids(store: KBStore, collection: str, document_id: str, n: int) -> list[str]:
        found = ids(
            store.lexical_search(
                collection, [f"c{j}" for j in range(n)], limit=1000,
                filters={"document_id": document_id},
            )
        )  # fmt: skip
        recs = store.get_chunks(collection, found)
        return sorted(found, key=lambda c: recs[c].ordinal)


_KILLED_WRITER = """
import importlib, json, sys
import numpy as np
from unifind.kb.base import ChunkIn, DocumentIn
target, args, kwargs, per_doc = json.loads(sys.argv[1])
module, _, cls = target.partition(":")
store = getattr(importlib.import_module(module), cls)(*args, **kwargs)
store.create_collection("killed", embedder="test-4d", dim=4, exist_ok=True)
v = np.ones(4, dtype=np.float32) / 2
for i in range(100_000):
    name = f"doc{i}"
    chunks = [ChunkIn(j, "x", 0, 1, {"all": 1, name: 1}, v) for j in range(per_doc)]
    store.upsert_document("killed", DocumentIn(name, "h"), chunks)
    print("committed", i, flush=True)
"""
