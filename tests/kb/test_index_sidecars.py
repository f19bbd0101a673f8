"""The persisted BM25 and vector sidecars (issue #13, cold start): used by a new store
object, caught up with the change log, ignored when torn, foreign or stale; real SQLite."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from unifind.kb import _lexsave
from unifind.kb._follow import load_terms, load_vectors, read_head
from unifind.kb._lexical import LexicalIndex
from unifind.kb._vectors import VectorIndex
from unifind.kb.base import ChunkIn, DocumentIn, Hit, KBStore
from unifind.kb.sqlite import SQLiteStore


@pytest.fixture(autouse=True)
def small_sidecars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lexsave, "MIN_CHUNKS", 1)  # every collection gets one here


def put(store: SQLiteStore, doc_id: str, text: str) -> None:
    terms = Counter(text.split())
    chunk = ChunkIn(ordinal=0, text=text, start=0, end=len(text), terms=terms)
    store.upsert_document("c", DocumentIn(document_id=doc_id, content_hash=text), [chunk])


def hits(store: SQLiteStore, query: str) -> list[Hit]:
    return store.lexical_search("c", query.split(), limit=50)


def filled(path: Path) -> SQLiteStore:
    store = SQLiteStore(path)
    store.create_collection("c", embedder=None, dim=None)
    for i in range(40):
        put(store, f"d{i}", " ".join(["apple"] * (1 + i % 3) + ["pear"] * (i % 5) + [f"w{i}"]))
    return store


def test_a_new_store_starts_from_the_sidecar_and_catches_up(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    a = filled(path)
    first = hits(a, "apple pear")
    sidecar = _lexsave.sidecar_path(path, "c")
    assert sidecar.exists()  # written by the first full build
    put(a, "new", "apple apple apple pear pear")  # after the sidecar's seq
    a.delete_document("c", "d3")
    expected = hits(a, "apple pear")
    assert expected != first and "d3" not in {h.chunk_id for h in expected}
    b = SQLiteStore(path)
    assert hits(b, "apple pear") == expected  # sidecar + the change log since its seq
    sidecar.unlink()
    assert hits(SQLiteStore(path), "apple pear") == expected  # and the same as a rebuild
    a.close()
    b.close()


def test_the_sidecar_is_what_a_new_store_reads(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    a = filled(path)
    assert [h.chunk_id for h in hits(a, "w0")]  # d0 is found by its own word
    conn = a._conn()
    head = read_head(conn, "c")
    rows = load_terms(conn, head.id, None)
    # A sidecar at the same (collection, seq) built without d0's postings: a new store
    # trusts it instead of reading 40 chunks' postings from the file.
    assert _lexsave.save(
        _lexsave.sidecar_path(path, "c"), LexicalIndex(rows[1:]), head.id, head.seq
    )
    assert hits(SQLiteStore(path), "w0") == []
    a.close()


@pytest.mark.parametrize("garbage", [b"", b"not an npz at all", b"PK\x03\x04torn"])
def test_a_torn_or_foreign_sidecar_is_ignored(tmp_path: Path, garbage: bytes) -> None:
    path = tmp_path / "kb.sqlite"
    a = filled(path)
    expected = hits(a, "apple pear")
    _lexsave.sidecar_path(path, "c").write_bytes(garbage)
    assert hits(SQLiteStore(path), "apple pear") == expected
    a.close()


def test_a_recreated_namesake_never_uses_the_old_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    a = filled(path)
    hits(a, "apple")
    sidecar = _lexsave.sidecar_path(path, "c")
    saved = sidecar.read_bytes()
    a.delete_collection("c")
    assert not sidecar.exists()
    a.create_collection("c", embedder=None, dim=None)
    put(a, "only", "banana")
    sidecar.write_bytes(saved)  # as if a crash left the old one behind
    fresh = SQLiteStore(path)
    assert hits(fresh, "apple") == []  # the old collection's chunks never come back
    assert [h.chunk_id for h in hits(fresh, "banana")] == [h.chunk_id for h in hits(a, "banana")]
    a.close()
    fresh.close()


def vec(i: int) -> np.ndarray:
    v = np.random.default_rng(i).standard_normal(8).astype(np.float32)
    return v / np.linalg.norm(v)


def put_vec(store: SQLiteStore, doc_id: str, i: int) -> None:
    chunk = ChunkIn(
        ordinal=0, text=doc_id, start=0, end=len(doc_id), terms={doc_id: 1}, vector=vec(i)
    )
    store.upsert_document("v", DocumentIn(document_id=doc_id, content_hash=doc_id), [chunk])


def _same_hits(got: list[Hit], want: list[Hit]) -> bool:
    """The same chunks in the same order, scores equal to float32 rounding: a matrix of
    another shape may take another BLAS kernel (numpy 2.4 differs in the last ulp)."""
    return [h.chunk_id for h in got] == [h.chunk_id for h in want] and [
        h.score for h in got
    ] == pytest.approx([h.score for h in want], abs=1e-6)


def test_the_vector_matrix_sidecar_is_loaded_and_caught_up(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    a = SQLiteStore(path)
    a.create_collection("v", embedder="test", dim=8)
    for i in range(30):
        put_vec(a, f"d{i}", i)
    a.vector_search("v", vec(0), limit=5)
    sidecar = _lexsave.sidecar_path(path, "v", "vectors")
    assert sidecar.exists()
    put_vec(a, "late", 99)
    a.delete_document("v", "d0")
    expected = a.vector_search("v", vec(99), limit=40)
    assert expected[0].score == pytest.approx(1.0) and len(expected) == 30
    assert SQLiteStore(path).vector_search("v", vec(99), limit=40) == expected
    # A sidecar at the current head that lacks 'late': a new store trusts it.
    conn = a._conn()
    head = read_head(conn, "v")
    ids = [int(h.chunk_id) for h in expected if h.score < 0.999]
    rows = [r for r in load_vectors(conn, head.id, None) if r[0] in ids]
    assert _lexsave.save_vectors(sidecar, VectorIndex(8, rows), head.id, head.seq)
    assert _same_hits(SQLiteStore(path).vector_search("v", vec(99), limit=40), expected[1:])
    whole = sidecar.read_bytes()
    for torn in (b"torn", whole[:-4], whole.replace(b'"dim": 8', b'"dim": 9')):
        sidecar.write_bytes(torn)
        assert _same_hits(SQLiteStore(path).vector_search("v", vec(99), limit=40), expected)
    a.delete_collection("v")
    assert not sidecar.exists()
    a.close()


def test_lexical_scores_match_the_search_for_any_chunks(tmp_path: Path) -> None:
    store = filled(tmp_path / "kb.sqlite")
    hits(store, "apple")  # the index is built; now a delta and a tombstone on top
    put(store, "late", "apple pear pear w99")
    store.delete_document("c", "d5")
    full = {h.chunk_id: h.score for h in hits(store, "apple pear w7")}
    some = [*list(full)[::3], "999999", "not-a-rowid"]
    got = store.lexical_scores("c", ["apple", "pear", "w7"], some)
    assert got == pytest.approx({c: full[c] for c in some if c in full})
    # The contract's default (one search over the collection) agrees.
    base = KBStore.lexical_scores(store, "c", ["apple", "pear", "w7"], some)
    assert base == pytest.approx(got)
    assert store.lexical_scores("c", ["nothing"], some) == {}
    store.close()
