"""Batched writes in the KB store contract: a store that offers ``upsert_documents`` (many
documents in one transaction) must leave exactly what one-by-one ``upsert_document`` calls
leave, all of a batch or none of it. Mixed into ``KBStoreConformance``; stores without the
method skip these tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from unifind.errors import InputError, UnknownName
from unifind.kb.base import ChunkIn, DocumentIn, KBStore, UpsertOutcome
from unifind.testing._kb_stubs import chunk, doc, vec

Many = Callable[[str, Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]], list[UpsertOutcome]]

#: Three rounds of writes: new documents, then unchanged, replaced and added ones mixed,
#: documents losing or gaining chunks, a chunk without a vector, one without terms.
ROUNDS: list[list[tuple[DocumentIn, list[ChunkIn]]]] = [
    [
        (
            doc("a", "h1", team="x"),
            [
                chunk(0, "alpha beta", vector=vec(1, 0, 0, 0)),
                chunk(1, "beta gamma", vector=vec(1, 1, 0, 0)),
            ],
        ),
        (doc("b", "h1", team="y"), [chunk(0, "gamma delta", vector=vec(0, 1, 0, 0))]),
        (doc("c", "h1"), []),
        (
            doc("d", "h1", team="x"),
            [chunk(0, "delta delta epsilon"), chunk(1, "", {}, vector=vec(0, 0, 1, 0))],
        ),
    ],
    [
        (
            doc("a", "h1", team="x"),
            [
                chunk(0, "alpha beta", vector=vec(1, 0, 0, 0)),
                chunk(1, "beta gamma", vector=vec(1, 1, 0, 0)),
            ],
        ),
        (
            doc("b", "h2", team="x"),
            [
                chunk(0, "zeta beta", vector=vec(0, 1, 1, 0)),
                chunk(1, "eta", vector=vec(0, 0, 0, 1)),
                chunk(2, "theta alpha", vector=vec(1, 0, 0, 1)),
            ],
        ),
        (doc("e", "h1", team="y"), [chunk(0, "alpha alpha iota", vector=vec(1, 0, 1, 0))]),
    ],
    [
        (doc("c", "h2", team="y"), [chunk(0, "kappa beta", vector=vec(0, 1, 0, 1))]),
        (doc("d", "h2"), []),
        (doc("f", "h1", team="x"), [chunk(0, "beta lambda", vector=vec(1, 1, 1, 1))]),
    ],
]
EXPECTED: list[list[UpsertOutcome]] = [
    ["added"] * 4,
    ["unchanged", "replaced", "added"],
    ["replaced", "replaced", "added"],
]
TERMS = ["alpha", "beta", "gamma", "delta", "zeta", "kappa", "lambda", "iota", "epsilon"]
QUERIES = [vec(1, 0, 0, 0), vec(0, 1, 0, 0), vec(0, 0, 1, 0), vec(0, 0, 0, 1), vec(1, 1, 1, 1)]


def _many(store: KBStore) -> Many:
    many: Many | None = getattr(store, "upsert_documents", None)
    if many is None:
        pytest.skip(f"{type(store).__name__} has no upsert_documents")
    return many


def _seen(store: KBStore, collection: str, hits: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Hits as what they point at (chunk ids differ between collections), with scores."""
    records = store.get_chunks(collection, [h.chunk_id for h in hits])
    out = []
    for h in hits:
        r = records[h.chunk_id]
        out.append((r.document_id, r.ordinal, r.text, r.start, r.end, round(h.score, 5)))
    return out


def _state(store: KBStore, collection: str) -> dict[str, Any]:
    info = store.get_collection(collection)
    docs = [(d.document_id, d.content_hash, d.title, d.chunks, d.metadata)
            for d in store.list_documents(collection, limit=100)]  # fmt: skip
    lexical = [_seen(store, collection, store.lexical_search(collection, [t], limit=20))
               for t in TERMS]  # fmt: skip
    vector = [_seen(store, collection, store.vector_search(collection, q, limit=20))
              for q in QUERIES]  # fmt: skip
    team = [_seen(store, collection, store.vector_search(collection, q, limit=20,
                                                         filters={"team": "x"}))
            for q in QUERIES]  # fmt: skip
    return {"counts": (info.documents, info.chunks), "docs": docs, "lexical": lexical,
            "vector": vector, "filtered": team}  # fmt: skip


class BulkTests:
    """Tests every store with ``upsert_documents`` passes; see ``KBStoreConformance``."""

    def test_a_batch_leaves_what_one_by_one_upserts_leave(self, store: KBStore) -> None:
        many = _many(store)
        for name in ("batch", "single"):
            store.create_collection(name, embedder="test-4d", dim=4)
        for docs, expected in zip(ROUNDS, EXPECTED, strict=True):
            assert many("batch", docs) == expected
            assert [store.upsert_document("single", d, c) for d, c in docs] == expected
            assert _state(store, "batch") == _state(store, "single")
        info = store.get_collection("batch")
        assert (info.documents, info.chunks) == (6, 8)

    def test_replaced_chunks_get_new_ids_and_old_ones_are_gone(self, kb: KBStore) -> None:
        many = _many(kb)
        many("docs", ROUNDS[0])
        before = {h.chunk_id for t in TERMS for h in kb.lexical_search("docs", [t], limit=20)}
        assert many("docs", ROUNDS[1]) == EXPECTED[1]
        after = {h.chunk_id for t in TERMS for h in kb.lexical_search("docs", [t], limit=20)}
        gone = before - after
        assert gone and not kb.get_chunks("docs", sorted(gone))  # b's old chunk
        new = after - before
        assert min(int(i) for i in new) > max(int(i) for i in before)
        for q in QUERIES:
            assert not {h.chunk_id for h in kb.vector_search("docs", q, limit=20)} & gone

    def test_a_refused_batch_writes_nothing(self, kb: KBStore) -> None:
        many = _many(kb)
        many("docs", ROUNDS[0])
        state = _state(kb, "docs")
        bad_dim = [ROUNDS[1][1], (doc("z"), [chunk(0, "omega", vector=vec(1, 0, 0))])]
        with pytest.raises(InputError, match="dimensions"):
            many("docs", bad_dim)
        with pytest.raises(InputError, match="twice"):
            many("docs", [ROUNDS[1][1], ROUNDS[1][2], ROUNDS[1][1]])
        with pytest.raises(InputError, match="document_id"):
            many("docs", [ROUNDS[1][2], (doc(""), [])])
        with pytest.raises(InputError, match="JSON"):
            many("docs", [ROUNDS[1][2], (doc("y", when=object()), [])])
        assert _state(kb, "docs") == state
        assert kb.document_hash("docs", "b") == "h1"
        assert kb.document_hash("docs", "e") is None

    def test_an_empty_batch_and_an_unknown_collection(self, kb: KBStore) -> None:
        many = _many(kb)
        assert many("docs", []) == []
        with pytest.raises(UnknownName):
            many("nope", ROUNDS[0])
        assert kb.get_collection("docs").documents == 0
