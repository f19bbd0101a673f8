"""Query-feedback reads of the KB store contract: ``lexical_scores`` and ``chunk_vectors``.

The KB's Rocchio / RM3 feedback (``unifind.kb._feedback``) rescores a pool of chunks with
these, so hybrid results on a store equal the embedded store's only if they answer exactly
what ``lexical_search`` and the stored vectors would. Mixed into ``KBStoreConformance``;
the ``kb`` fixture comes from there.
"""

from __future__ import annotations

import pytest

from unifind.errors import UnknownName
from unifind.kb.base import KBStore
from unifind.testing._kb_stubs import bm25, chunk, doc, ids, vec


class FeedbackTests:
    """Tests every store passes; see ``KBStoreConformance``."""

    def test_lexical_scores_equal_the_search_scores(self, kb: KBStore) -> None:
        kb.upsert_document("text", doc("d1"), [chunk(0, "c1", {"cat": 2, "dog": 1})])
        kb.upsert_document("text", doc("d2"), [chunk(0, "c2", {"cat": 1, "fish": 1, "bird": 2})])
        kb.upsert_document("text", doc("d3"), [chunk(0, "c3", {"dog": 1, "bird": 1})])
        kb.upsert_document("text", doc("gone"), [chunk(0, "c4", {"cat": 5})])
        [gone] = ids(kb.lexical_search("text", ["cat"], limit=5, filters={"document_id": "gone"}))
        kb.delete_document("text", "gone")
        terms = ["cat", "bird", "bird", "unknown"]
        full = {h.chunk_id: h.score for h in kb.lexical_search("text", terms, limit=10)}
        assert len(full) == 3  # c1, c2, c3: "unknown" matches nothing, "gone" is deleted
        got = kb.lexical_scores("text", terms, [*full, gone, "999999", "x"])
        assert got == pytest.approx(full, rel=1e-9)
        # Only the asked chunks; a chunk matching no term is left out.
        assert kb.lexical_scores("text", ["fish"], list(full)) == pytest.approx(
            {h.chunk_id: h.score for h in kb.lexical_search("text", ["fish"], limit=10)}
        )
        [c2_only] = kb.lexical_scores("text", ["fish"], list(full))
        assert kb.lexical_scores("text", ["fish"], [c for c in full if c != c2_only]) == {}
        # N = 3 live chunks (the deleted one left the statistics), lengths 3, 4, 2.
        [fish] = kb.lexical_scores("text", ["fish"], [c2_only]).values()
        assert fish == pytest.approx(bm25(1, 1, 3, 4, 3.0), rel=1e-6)
        assert kb.lexical_scores("text", [], list(full)) == {}
        assert kb.lexical_scores("text", ["cat"], []) == {}

    def test_lexical_scores_unknown_collection(self, kb: KBStore) -> None:
        with pytest.raises(UnknownName):
            kb.lexical_scores("nope", ["cat"], ["1"])

    def _has_chunk_vectors(self, kb: KBStore) -> None:
        if type(kb).chunk_vectors is KBStore.chunk_vectors:
            pytest.skip("the store keeps KBStore's default chunk_vectors: no dense feedback")

    def test_chunk_vectors_are_the_stored_unit_vectors(self, kb: KBStore) -> None:
        self._has_chunk_vectors(kb)
        rows = {"a": vec(3, 4, 0, 0), "b": vec(0, 0, 1, 0), "gone": vec(1, 1, 1, 1)}
        for name, v in rows.items():
            kb.upsert_document("docs", doc(name), [chunk(0, f"{name} text", vector=v)])
        found = {
            kb.get_chunks("docs", [h.chunk_id])[h.chunk_id].document_id: h.chunk_id
            for h in kb.vector_search("docs", vec(1, 1, 1, 1), limit=10)
        }
        kb.delete_document("docs", "gone")
        kb.upsert_document("text", doc("t"), [chunk(0, "lexical only")])
        [lexical] = ids(kb.lexical_search("text", ["lexical"], limit=5))
        asked = [found["a"], found["b"], found["gone"], lexical, "999999", "x"]
        got = kb.chunk_vectors("docs", asked)
        assert sorted(got) == sorted([found["a"], found["b"]])
        assert got[found["a"]] == pytest.approx([0.6, 0.8, 0.0, 0.0], abs=1e-6)
        assert got[found["b"]] == pytest.approx(rows["b"], abs=1e-6)
        assert str(got[found["a"]].dtype) == "float32"
        assert kb.chunk_vectors("docs", []) == {}
        assert kb.chunk_vectors("text", [lexical]) == {}
        with pytest.raises(UnknownName):
            kb.chunk_vectors("nope", [found["a"]])
