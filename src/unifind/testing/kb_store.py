"""The KB store conformance suite: every store (built-in or yours) subclasses it.

::

    from unifind.testing.kb_store import KBStoreConformance

    class TestMyStore(KBStoreConformance):
        def make_store(self, tmp_path):
            return MyStore(tmp_path / "kb")

Each test checks one guarantee of ``unifind.kb.base``. BM25 expectations are written out
as arithmetic with Lucene's formula (k1=0.9, b=0.4)::

    idf = ln(1 + (N - df + 0.5) / (df + 0.5))
    score = idf * tf / (tf + k1 * (1 - b + b * len / avgdl))

over live chunks only. Vectors are small hand-made 4-d rows, so no model is needed.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.errors import InputError, UnknownName
from unifind.kb.base import KBStore
from unifind.testing._kb_bulk import BulkTests
from unifind.testing._kb_feedback import FeedbackTests
from unifind.testing._kb_scale import ScaleOutTests
from unifind.testing._kb_stubs import bm25, chunk, doc, ids, vec

__all__ = ["KBStoreConformance", "bm25", "chunk", "doc", "ids", "vec"]

K1, B = 0.9, 0.4


class KBStoreConformance(ScaleOutTests, FeedbackTests, BulkTests):
    """Subclass it and implement ``make_store``; pytest collects the subclass's tests."""

    def make_store(self, tmp_path: Path) -> KBStore:
        raise NotImplementedError("return a fresh, empty store rooted in tmp_path")

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[KBStore]:
        s = self.make_store(tmp_path)
        try:
            yield s
        finally:
            s.close()

    @pytest.fixture
    def kb(self, store: KBStore) -> KBStore:
        """A store with a 4-d collection ``docs`` and a lexical-only collection ``text``."""
        store.create_collection("docs", embedder="test-4d", dim=4)
        store.create_collection("text", embedder=None, dim=None)
        return store

    # ---- collections ---------------------------------------------------------------

    def test_create_get_list_delete_collection(self, store: KBStore) -> None:
        info = store.create_collection(
            "alpha", embedder="test-4d", dim=4, description="d", metadata={"team": "x"}
        )
        assert (info.name, info.embedder, info.dim, info.description) == (
            "alpha",
            "test-4d",
            4,
            "d",
        )
        assert info.metadata == {"team": "x"}
        assert (info.documents, info.chunks) == (0, 0)
        store.create_collection("beta", embedder=None, dim=None)
        assert store.get_collection("beta").embedder is None
        assert [c.name for c in store.list_collections()] == ["alpha", "beta"]
        store.delete_collection("alpha")
        assert [c.name for c in store.list_collections()] == ["beta"]

    def test_create_existing_needs_exist_ok(self, store: KBStore) -> None:
        store.create_collection("alpha", embedder=None, dim=None, description="first")
        with pytest.raises(InputError, match="alpha"):
            store.create_collection("alpha", embedder=None, dim=None)
        again = store.create_collection("alpha", embedder=None, dim=None, exist_ok=True)
        assert again.description == "first"

    def test_unknown_collection_lists_existing(self, kb: KBStore) -> None:
        calls: list[Callable[[], object]] = [
            lambda: kb.get_collection("nope"),
            lambda: kb.delete_collection("nope"),
            lambda: kb.document_hash("nope", "d"),
            lambda: kb.upsert_document("nope", doc("d"), [chunk(0, "x")]),
            lambda: kb.delete_document("nope", "d"),
            lambda: kb.list_documents("nope"),
            lambda: kb.get_chunks("nope", ["1"]),
            lambda: kb.lexical_search("nope", ["x"], limit=3),
            lambda: kb.vector_search("nope", vec(1, 0, 0, 0), limit=3),
        ]
        for call in calls:
            with pytest.raises(UnknownName) as exc:
                call()
            assert exc.value.valid == ["docs", "text"]
            assert "docs, text" in str(exc.value)

    def test_collection_counts(self, kb: KBStore) -> None:
        kb.upsert_document("text", doc("a"), [chunk(0, "one"), chunk(1, "two")])
        kb.upsert_document("text", doc("b"), [chunk(0, "three")])
        info = kb.get_collection("text")
        assert (info.documents, info.chunks) == (2, 3)

    # ---- documents -----------------------------------------------------------------

    def test_upsert_outcomes_and_document_hash(self, kb: KBStore) -> None:
        assert kb.document_hash("text", "a") is None
        assert kb.upsert_document("text", doc("a", "h1"), [chunk(0, "apple")]) == "added"
        assert kb.document_hash("text", "a") == "h1"
        assert kb.upsert_document("text", doc("a", "h1"), [chunk(0, "apple")]) == "unchanged"
        assert kb.upsert_document("text", doc("a", "h2"), [chunk(0, "pear")]) == "replaced"
        assert kb.document_hash("text", "a") == "h2"

    def test_unchanged_writes_nothing(self, kb: KBStore) -> None:
        kb.upsert_document("text", doc("a", "h1", v=1), [chunk(0, "apple")])
        [before] = ids(kb.lexical_search("text", ["apple"], limit=5))
        outcome = kb.upsert_document("text", doc("a", "h1", v=2), [chunk(0, "banana")])
        assert outcome == "unchanged"
        assert ids(kb.lexical_search("text", ["apple"], limit=5)) == [before]
        assert kb.lexical_search("text", ["banana"], limit=5) == []
        assert kb.list_documents("text")[0].metadata == {"v": 1}

    def test_replaced_chunks_gone_from_both_indexes(self, kb: KBStore) -> None:
        kb.upsert_document("docs", doc("a", "h1"), [chunk(0, "old words", vector=vec(1, 0, 0, 0))])
        old = ids(kb.lexical_search("docs", ["old"], limit=5))
        assert len(old) == 1
        kb.upsert_document("docs", doc("a", "h2"), [chunk(0, "new words", vector=vec(0, 1, 0, 0))])
        assert kb.lexical_search("docs", ["old"], limit=5) == []
        vhits = kb.vector_search("docs", vec(1, 0, 0, 0), limit=5)
        assert old[0] not in ids(vhits) and len(vhits) == 1
        [new] = ids(kb.lexical_search("docs", ["new"], limit=5))
        assert ids(vhits) == [new]
        assert kb.get_chunks("docs", old) == {}

    def test_delete_document_removes_everywhere(self, kb: KBStore) -> None:
        kb.upsert_document("docs", doc("a"), [chunk(0, "gone soon", vector=vec(1, 0, 0, 0))])
        kb.upsert_document("docs", doc("b"), [chunk(0, "stays here", vector=vec(0, 1, 0, 0))])
        gone = ids(kb.lexical_search("docs", ["gone"], limit=5))
        assert kb.delete_document("docs", "a") is True
        assert kb.delete_document("docs", "a") is False
        assert kb.lexical_search("docs", ["gone"], limit=5) == []
        assert gone[0] not in ids(kb.vector_search("docs", vec(1, 0, 0, 0), limit=5))
        assert kb.get_chunks("docs", gone) == {}
        assert kb.document_hash("docs", "a") is None
        assert [d.document_id for d in kb.list_documents("docs")] == ["b"]
        assert kb.get_collection("docs").chunks == 1

    def test_delete_collection_removes_everything(self, kb: KBStore) -> None:
        kb.upsert_document("docs", doc("a"), [chunk(0, "word", vector=vec(1, 0, 0, 0))])
        [old] = ids(kb.lexical_search("docs", ["word"], limit=5))
        kb.delete_collection("docs")
        kb.create_collection("docs", embedder="test-4d", dim=4)
        assert kb.lexical_search("docs", ["word"], limit=5) == []
        assert kb.vector_search("docs", vec(1, 0, 0, 0), limit=5) == []
        assert kb.get_chunks("docs", [old]) == {}
        assert kb.list_documents("docs") == []

    def test_chunk_ids_never_reused(self, kb: KBStore) -> None:
        seen: set[str] = set()
        for version in range(3):
            kb.upsert_document("text", doc("a", f"h{version}"), [chunk(0, "x y"), chunk(1, "x")])
            found = set(ids(kb.lexical_search("text", ["x"], limit=10)))
            assert len(found) == 2 and not found & seen
            seen |= found
            kb.delete_document("text", "a")
        kb.delete_collection("text")
        kb.create_collection("text", embedder=None, dim=None)
        kb.upsert_document("text", doc("a"), [chunk(0, "x")])
        assert not set(ids(kb.lexical_search("text", ["x"], limit=10))) & seen

    def test_list_documents_paging(self, kb: KBStore) -> None:
        for name in ["c", "a", "b", "d"]:
            kb.upsert_document("text", doc(name), [chunk(0, name)])
        first = kb.list_documents("text", limit=2)
        rest = kb.list_documents("text", limit=2, offset=2)
        assert [d.document_id for d in first + rest] == ["a", "b", "c", "d"]
        assert first[0].title == "Title a" and first[0].chunks == 1

    def test_get_chunks_drops_missing_ids(self, kb: KBStore) -> None:
        kb.upsert_document("text", doc("a", lang="en"), [chunk(0, "alpha"), chunk(1, "beta")])
        [a] = ids(kb.lexical_search("text", ["alpha"], limit=1))
        [b] = ids(kb.lexical_search("text", ["beta"], limit=1))
        got = kb.get_chunks("text", [b, "999999", a, "not-an-id"])
        assert list(got) == [b, a]
        rec = got[a]
        assert (rec.document_id, rec.collection, rec.ordinal, rec.text) == ("a", "text", 0, "alpha")
        assert (rec.start, rec.end, rec.title, rec.metadata) == (0, 5, "Title a", {"lang": "en"})

    def test_unicode_round_trip(self, kb: KBStore) -> None:
        text = "向量检索 与 全文检索"
        terms = {"向量": 1, "检索": 2, "全文": 1}
        kb.upsert_document("text", doc("中文", 标签="知识"), [chunk(0, text, terms)])
        [hit] = kb.lexical_search("text", ["检索"], limit=5)
        rec = kb.get_chunks("text", [hit.chunk_id])[hit.chunk_id]
        assert (rec.text, rec.document_id, rec.metadata) == (text, "中文", {"标签": "知识"})
        assert kb.lexical_search("text", ["检"], limit=5) == []
        assert ids(kb.lexical_search("text", ["x"], limit=5, filters={"标签": "知识"})) == []
        assert ids(kb.lexical_search("text", ["全文"], limit=5, filters={"标签": "知识"})) == [
            hit.chunk_id
        ]

    # ---- lexical -------------------------------------------------------------------

    def _bm25_corpus(self, kb: KBStore) -> list[str]:
        kb.upsert_document("text", doc("d1"), [chunk(0, "c1", {"cat": 2, "dog": 1})])
        kb.upsert_document("text", doc("d2"), [chunk(0, "c2", {"cat": 1, "fish": 1, "bird": 2})])
        kb.upsert_document("text", doc("d3"), [chunk(0, "c3", {"dog": 1, "bird": 1})])
        return [
            ids(kb.lexical_search("text", [t], limit=5, filters={"document_id": d}))[0]
            for t, d in [("cat", "d1"), ("cat", "d2"), ("dog", "d3")]
        ]

    def test_bm25_matches_hand_computation(self, kb: KBStore) -> None:
        c1, c2, c3 = self._bm25_corpus(kb)
        # N = 3 chunks, lengths 3, 4, 2 → avgdl = 3; "cat" is in c1 (tf 2) and c2 (tf 1).
        idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # ln 1.6
        expected = {
            c1: idf * 2 / (2 + 0.9 * (1 - 0.4 + 0.4 * 3 / 3)),  # ≈ 0.32414
            c2: idf * 1 / (1 + 0.9 * (1 - 0.4 + 0.4 * 4 / 3)),  # ≈ 0.23268
        }
        hits = kb.lexical_search("text", ["cat"], limit=10)
        assert ids(hits) == [c1, c2]
        for h in hits:
            assert h.score == pytest.approx(expected[h.chunk_id], rel=1e-6)
        assert expected[c1] == pytest.approx(0.32414, abs=1e-5)
        assert c3 not in ids(hits)

    def test_bm25_repeated_terms_and_live_statistics(self, kb: KBStore) -> None:
        c1, c2, c3 = self._bm25_corpus(kb)
        idf = math.log(1.6)  # dog and bird both have df = 2 of N = 3
        hits = kb.lexical_search("text", ["dog", "bird", "bird"], limit=10)
        expected = {
            c3: idf * (1 / (1 + 0.78)) + 2 * idf * (1 / (1 + 0.78)),  # len 2: K = 0.9*(0.6+0.8/3)
            c2: 2 * idf * (2 / (2 + 1.02)),  # len 4: K = 0.9*(0.6+1.6/3) = 1.02
            c1: idf * (1 / (1 + 0.9)),  # len 3: K = 0.9
        }
        assert ids(hits) == [c3, c2, c1]
        for h in hits:
            assert h.score == pytest.approx(expected[h.chunk_id], rel=1e-6)
        # Deleted chunks leave the statistics: N = 2, df(cat) = 1, avgdl = (3 + 2) / 2.
        kb.delete_document("text", "d2")
        [hit] = kb.lexical_search("text", ["cat"], limit=10)
        assert hit.chunk_id == c1
        assert hit.score == pytest.approx(bm25(2, 1, 2, 3, 2.5), rel=1e-6)
        assert hit.score == pytest.approx(math.log(2) * 2 / (2 + 0.9 * 1.08), rel=1e-6)

    def test_lexical_limit_and_unknown_terms(self, kb: KBStore) -> None:
        for i in range(5):
            kb.upsert_document("text", doc(f"d{i}"), [chunk(0, "word " * (i + 1))])
        assert len(kb.lexical_search("text", ["word"], limit=3)) == 3
        assert kb.lexical_search("text", ["word"], limit=0) == []
        assert kb.lexical_search("text", ["missing"], limit=3) == []
        assert kb.lexical_search("text", [], limit=3) == []

    def test_ties_broken_by_chunk_id_and_paging_is_stable(self, kb: KBStore) -> None:
        written: list[str] = []
        for i in range(6):
            kb.upsert_document(
                "docs", doc(f"d{i}"), [chunk(0, "same text", vector=vec(1, 1, 0, 0))]
            )
            written += ids(
                kb.lexical_search("docs", ["same"], limit=10, filters={"document_id": f"d{i}"})
            )
        lexical = kb.lexical_search("docs", ["same"], limit=10)
        assert len({h.score for h in lexical}) == 1
        assert ids(lexical) == written  # chunk ids grow with writes
        vector = kb.vector_search("docs", vec(1, 1, 0, 0), limit=10)
        assert ids(vector) == written
        assert ids(kb.lexical_search("docs", ["same"], limit=3)) == written[:3]
        assert ids(kb.vector_search("docs", vec(1, 1, 0, 0), limit=4)) == written[:4]

    # ---- vectors -------------------------------------------------------------------

    def test_vector_search_cosine_order(self, kb: KBStore) -> None:
        rows = {
            "a": vec(1, 0, 0, 0),
            "b": vec(1, 1, 0, 0),
            "c": vec(0, 1, 0, 0),
            "d": vec(-1, 0, 0, 0),
        }
        for name, v in rows.items():
            kb.upsert_document("docs", doc(name), [chunk(0, name, vector=v)])
        q = vec(2, 1, 0, 0)
        hits = kb.vector_search("docs", q, limit=10)
        by_doc = {kb.get_chunks("docs", [h.chunk_id])[h.chunk_id].document_id: h for h in hits}
        assert list(by_doc) == ["b", "a", "c", "d"]
        for name, v in rows.items():
            assert by_doc[name].score == pytest.approx(float(q @ v), abs=1e-5)
        assert by_doc["b"].score == pytest.approx(3 / math.sqrt(10), abs=1e-5)
        assert len(kb.vector_search("docs", q, limit=2)) == 2

    def test_vector_search_without_vectors_is_empty(self, kb: KBStore) -> None:
        kb.upsert_document("text", doc("a"), [chunk(0, "word")])
        assert kb.vector_search("text", vec(1, 0, 0, 0), limit=5) == []
        assert kb.vector_search("docs", vec(1, 0, 0, 0), limit=5) == []

    def test_vector_dimension_mismatch_is_refused(self, kb: KBStore) -> None:
        with pytest.raises(InputError, match="4"):
            kb.upsert_document("docs", doc("a"), [chunk(0, "x", vector=vec(1, 0, 0))])
        assert kb.document_hash("docs", "a") is None
        with pytest.raises(InputError):
            kb.upsert_document("text", doc("a"), [chunk(0, "x", vector=vec(1, 0, 0, 0))])
        with pytest.raises(InputError):
            kb.vector_search("docs", vec(1, 0, 0), limit=3)

    # ---- filters -------------------------------------------------------------------

    def _filter_corpus(self, kb: KBStore) -> dict[str, str]:
        meta: dict[str, dict[str, Any]] = {
            "en24": {"lang": "en", "year": 2024},
            "zh23": {"lang": "zh", "year": 2023},
            "fr24": {"lang": "fr", "year": 2024},
        }
        out = {}
        for name, m in meta.items():
            kb.upsert_document("docs", doc(name, **m), [chunk(0, "shared", vector=vec(1, 0, 0, 0))])
            [out[name]] = [
                h.chunk_id
                for h in kb.lexical_search("docs", ["shared"], limit=10)
                if kb.get_chunks("docs", [h.chunk_id])[h.chunk_id].document_id == name
            ]
        return out

    @pytest.mark.parametrize("kind", ["lexical", "vector"])
    def test_filters(self, kb: KBStore, kind: str) -> None:
        c = self._filter_corpus(kb)

        def search(filters: dict[str, Any]) -> set[str]:
            if kind == "lexical":
                return set(ids(kb.lexical_search("docs", ["shared"], limit=10, filters=filters)))
            return set(ids(kb.vector_search("docs", vec(1, 0, 0, 0), limit=10, filters=filters)))

        assert search({"lang": "en"}) == {c["en24"]}
        assert search({"year": 2024}) == {c["en24"], c["fr24"]}
        assert search({"lang": ["zh", "fr"]}) == {c["zh23"], c["fr24"]}
        assert search({"lang": "en", "year": 2023}) == set()
        assert search({"year": 2024, "lang": ["fr", "zh"]}) == {c["fr24"]}
        assert search({"document_id": "zh23"}) == {c["zh23"]}
        assert search({"document_id": ["zh23", "en24"]}) == {c["zh23"], c["en24"]}
        assert search({"nonexistent": "x"}) == set()
        assert search({}) == set(c.values())

    # ---- concurrency ---------------------------------------------------------------

    def test_readers_never_see_half_written_documents(self, kb: KBStore) -> None:
        per_doc = 5
        errors: list[BaseException] = []
        done = threading.Event()

        def reader() -> None:
            try:
                while not done.is_set():
                    hits = kb.lexical_search("text", ["common"], limit=1000)
                    assert len(hits) % per_doc == 0, f"{len(hits)} hits: a partial document"
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads:
            t.start()
        try:
            for i in range(15):
                chunks = [chunk(j, f"common v{i}") for j in range(per_doc)]
                kb.upsert_document("text", doc("moving", f"h{i}"), chunks)
                kb.upsert_document("text", doc(f"n{i}"), chunks)
        finally:
            done.set()
            for t in threads:
                t.join()
        assert not errors, errors[0]
        assert len(kb.lexical_search("text", ["common"], limit=1000)) == 16 * per_doc
