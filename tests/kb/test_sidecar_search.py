"""Qdrant and Milvus stores: what ``SidecarVectorStore.vector_search`` adds to the engine's
search (liveness on a shared server, ties at the cut) and the sidecar's feedback reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from unifind.kb._follow import read_head
from unifind.kb._sidecar import SidecarVectorStore
from unifind.testing.kb_store import chunk, doc, ids, vec


def _qdrant(tmp_path: Path) -> SidecarVectorStore:
    pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")
    from unifind.kb.qdrant import QdrantStore

    return QdrantStore(f"qdrant://{tmp_path}/q")


def _milvus(tmp_path: Path) -> SidecarVectorStore:
    pytest.importorskip("pymilvus", reason="needs pip install 'unifind[milvus]'")
    from unifind.kb.milvus import MilvusStore

    return MilvusStore(f"milvus://{tmp_path}/m")


def _put_back(store: SidecarVectorStore, chunk_id: int, vector: list[float]) -> None:
    """Write a vector into the engine behind the follower's back (a racing follower)."""
    name = store._ename(1)
    if store.name == "qdrant":
        from qdrant_client import models

        store.client.upsert(name, points=[models.PointStruct(id=chunk_id, vector=vector)])
    else:
        store.client.upsert(name, data=[{"id": chunk_id, "vector": vector, "seq": 0}])
        store.client.flush(name)


@pytest.fixture(params=["qdrant", "milvus"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SidecarVectorStore:
    s = _qdrant(tmp_path) if request.param == "qdrant" else _milvus(tmp_path)
    request.addfinalizer(s.close)
    s.create_collection("docs", embedder="e", dim=4)
    return s


def test_a_shared_engine_never_returns_a_deleted_chunk_and_still_fills_the_limit(
    store: SidecarVectorStore,
) -> None:
    for i, v in enumerate([(1, 0, 0, 0), (1, 0.2, 0, 0), (1, 0.4, 0, 0), (1, 0.6, 0, 0)]):
        store.upsert_document("docs", doc(f"d{i}"), [chunk(0, f"t{i}", vector=vec(*v))])
    first = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=2))
    store.delete_document("docs", "d0")
    assert ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=4))[0] != first[0]
    _put_back(store, int(first[0]), [1.0, 0.0, 0.0, 0.0])  # the best match, and gone
    store.embedded = False  # a server: another process may have put it back
    hits = ids(store.vector_search("docs", vec(1, 0, 0, 0), limit=3))
    assert first[0] not in hits
    assert len(hits) == 3  # the fetch widened past the dead hit
    assert hits[0] == first[1]


def test_ties_straddling_the_cut_keep_the_smallest_ids(store: SidecarVectorStore) -> None:
    for i in range(7):
        store.upsert_document("docs", doc(f"d{i}"), [chunk(0, "same", vector=vec(0, 1, 0, 0))])
    every = ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=10))
    assert every == sorted(every, key=int) and len(every) == 7
    for limit in (1, 3, 5):  # the engine is asked for limit + 2: 5 of 7 ties must widen
        assert ids(store.vector_search("docs", vec(0, 1, 0, 0), limit=limit)) == every[:limit]


def test_chunk_vectors_read_the_sidecar_without_loading_the_matrix(
    store: SidecarVectorStore,
) -> None:
    store.upsert_document("docs", doc("a"), [chunk(0, "a", vector=vec(0, 0, 3, 4))])
    [cid] = ids(store.lexical_search("docs", ["a"], limit=1))
    got = store.chunk_vectors("docs", [cid])
    assert list(got) == [cid] and got[cid].tolist() == pytest.approx([0, 0, 0.6, 0.8])
    assert store._vectors == {}  # no in-memory copy of the collection's vectors


def _expected(store: SidecarVectorStore, query: tuple[float, ...]) -> list[str]:
    """Every live chunk by exact cosine from the sidecar's own vectors, ties by id."""
    every = ids(store.lexical_search("docs", ["t"], limit=100))
    vectors = store.chunk_vectors("docs", every)
    scored = sorted(every, key=lambda c: (-round(float(vectors[c] @ vec(*query)), 5), int(c)))
    return scored


def test_a_catch_up_runs_in_pages_and_records_its_position_with_the_last(
    store: SidecarVectorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from unifind.kb import _sidecar

    monkeypatch.setattr(_sidecar, "_PAGE", 3)
    batch = [(doc(f"d{i}"), [chunk(0, "t", vector=vec(1, i, i % 3, 0))]) for i in range(10)]
    store.upsert_documents("docs", batch)
    query = (1.0, 2.0, 1.0, 0.0)
    assert ids(store.vector_search("docs", vec(*query), limit=20)) == _expected(store, query)
    store.upsert_documents("docs", [(doc("d1", "h2"), [chunk(0, "t", vector=vec(0, 0, 0, 1))])])
    store.delete_document("docs", "d2")
    for i in range(10, 17):
        store.upsert_document("docs", doc(f"d{i}"), [chunk(0, "t", vector=vec(i, 1, 0, 1))])
    calls: list[tuple[int, int, int | None]] = []
    apply, fail = store._apply, [True]

    def flaky(coll_id: int, dim: int, rows: list[Any], deleted: list[int], seq: int | None) -> None:
        calls.append((len(rows), len(deleted), seq))
        if len(calls) == 2 and fail[0]:
            raise RuntimeError("the engine went away mid-catch-up")
        apply(coll_id, dim, rows, deleted, seq)

    monkeypatch.setattr(store, "_apply", flaky)
    with pytest.raises(RuntimeError, match="mid-catch-up"):
        store.vector_search("docs", vec(*query), limit=20)
    fail[0] = False
    calls.clear()
    hits = ids(store.vector_search("docs", vec(*query), limit=20))
    assert hits == _expected(store, query) and len(hits) == 16  # each chunk once
    head = read_head(store._conn(), "docs")
    # 8 added (d1's new chunk, d10-d16) in pages of 3; both deletions with the first page.
    assert calls == [(3, 2, None), (3, 0, None), (2, 0, head.seq)]
    assert store._stored_seq(head.id) == head.seq
    calls.clear()
    monkeypatch.setattr(store, "_stored_seq", lambda coll_id: head.seq + 5)  # a recreated file
    store._seqs.clear()
    assert ids(store.vector_search("docs", vec(*query), limit=20)) == hits  # rebuilt, in pages
    assert [c[0] for c in calls] == [3, 3, 3, 3, 3, 1] and calls[-1][2] == head.seq
