"""CachedEmbedder: vectors survive across instances, keyed by spec and text."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from unifind.embed.base import Embedder
from unifind.embed.cached import CachedEmbedder
from unifind.errors import StoreError
from unifind.testing.embedder import EmbedderConformance
from unifind.testing.fakes import CountingEmbedder, HashEmbedder


class TestCachedConformance(EmbedderConformance):
    @pytest.fixture
    def embedder(self, tmp_path: Path) -> Embedder:
        return CachedEmbedder(HashEmbedder(), tmp_path / "cache.sqlite")


def test_same_spec_and_dim_as_inner(tmp_path: Path) -> None:
    with CachedEmbedder(HashEmbedder(32), tmp_path / "c.sqlite") as emb:
        assert (emb.spec, emb.dim) == ("hash:32", 32)


def test_second_run_is_served_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    first = CountingEmbedder(HashEmbedder())
    with CachedEmbedder(first, path) as emb:
        a = emb.embed_documents(["alpha", "beta", "alpha"])
        assert first.documents == ["alpha", "beta"]  # duplicates embedded once
        assert (emb.hits, emb.misses) == (0, 2)
    second = CountingEmbedder(HashEmbedder())
    with CachedEmbedder(second, path) as emb:
        b = emb.embed_documents(["beta", "gamma", "alpha"])
        assert second.documents == ["gamma"]
        assert (emb.hits, emb.misses) == (2, 1)
    np.testing.assert_array_equal(a[0], b[2])
    np.testing.assert_array_equal(a[1], b[0])
    np.testing.assert_array_equal(b, HashEmbedder().embed_documents(["beta", "gamma", "alpha"]))


def test_queries_are_cached_apart_from_documents(tmp_path: Path) -> None:
    inner = CountingEmbedder(HashEmbedder())
    with CachedEmbedder(inner, tmp_path / "c.sqlite") as emb:
        emb.embed_documents(["x"])
        q1 = emb.embed_query("x")
        q2 = emb.embed_query("x")
    assert inner.queries == ["x"]
    np.testing.assert_array_equal(q1, q2)
    assert q1.shape == (64,)


def test_specs_do_not_mix(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CachedEmbedder(HashEmbedder(16), path) as small:
        small.embed_documents(["shared text"])
    inner = CountingEmbedder(HashEmbedder(32))
    with CachedEmbedder(inner, path) as big:
        row = big.embed_documents(["shared text"])[0]
    assert inner.documents == ["shared text"] and row.shape == (32,)


def test_wrong_size_rows_are_misses_not_garbage(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CachedEmbedder(HashEmbedder(16), path) as emb:
        emb.embed_documents(["t"])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE vectors SET vector = x'00000000'")
    inner = CountingEmbedder(HashEmbedder(16))
    with CachedEmbedder(inner, path) as emb:
        row = emb.embed_documents(["t"])[0]
    assert inner.documents == ["t"]
    np.testing.assert_array_equal(row, HashEmbedder(16).embed_documents(["t"])[0])


def test_many_texts_cross_the_lookup_chunk(tmp_path: Path) -> None:
    texts = [f"text number {i}" for i in range(1234)]
    with CachedEmbedder(HashEmbedder(), tmp_path / "c.sqlite") as emb:
        emb.embed_documents(texts)
        again = emb.embed_documents(texts)
        assert emb.hits == 1234
    np.testing.assert_array_equal(again, HashEmbedder().embed_documents(texts))


def test_concurrent_threads(tmp_path: Path) -> None:
    emb = CachedEmbedder(HashEmbedder(), tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(20):
                emb.embed_documents([f"t{(i * k) % 15}", f"u{i}"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    emb.close()


def test_unwritable_path_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="embedding cache"):
        CachedEmbedder(HashEmbedder(), blocker / "sub" / "c.sqlite")
