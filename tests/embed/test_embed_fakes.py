"""HashEmbedder, the other fakes, and the conformance suite run against HashEmbedder."""

from __future__ import annotations

import numpy as np
import pytest

from unifind.embed.base import Embedder, resolve_embedder
from unifind.errors import InputError
from unifind.testing.embedder import EmbedderConformance
from unifind.testing.fakes import CountingEmbedder, FailingEmbedder, HashEmbedder, OverlapReranker


class TestHashConformance(EmbedderConformance):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return HashEmbedder()


def test_spec_and_dim() -> None:
    assert (HashEmbedder().spec, HashEmbedder().dim) == ("hash:64", 64)
    assert (HashEmbedder("32").spec, HashEmbedder("32").dim) == ("hash:32", 32)


def test_resolves_through_the_registry() -> None:
    assert resolve_embedder("hash").spec == "hash:64"
    emb = resolve_embedder("hash:128")
    assert isinstance(emb, HashEmbedder) and emb.dim == 128


@pytest.mark.parametrize("bad", [0, -3, "x", ""])
def test_bad_dim_is_refused(bad: int | str) -> None:
    with pytest.raises(InputError, match="positive integer"):
        HashEmbedder(bad)


def test_stable_across_instances_and_processes() -> None:
    # blake2b, not the salted hash(): these bytes are the same in every process.
    row = HashEmbedder(8).embed_query("hello world")
    again = HashEmbedder(8).embed_query("hello world")
    np.testing.assert_array_equal(row, again)
    assert np.count_nonzero(row) >= 2


def test_shared_words_are_closer() -> None:
    emb = HashEmbedder(256)
    q = emb.embed_query("sqlite vector search")
    near, far = emb.embed_documents(
        ["vector search inside sqlite files", "the weather in Paris is mild today"]
    )
    assert float(q @ near) > 0.5
    assert float(q @ near) > float(q @ far) + 0.3


def test_morphology_via_trigrams() -> None:
    emb = HashEmbedder(256)
    a, b, c = emb.embed_documents(["embeddings", "embedding", "tractor"])
    assert float(a @ b) > float(a @ c) + 0.15


def test_text_without_words_still_gets_a_unit_vector() -> None:
    rows = HashEmbedder().embed_documents(["", "!!!", "中文检索"])
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    assert float(rows[0] @ rows[1]) < 0.999


def test_counting_embedder_records_calls() -> None:
    emb = CountingEmbedder(HashEmbedder())
    emb.embed_documents(["a", "b"])
    emb.embed_query("c")
    assert (emb.documents, emb.queries, emb.spec) == (["a", "b"], ["c"], "hash:64")


def test_failing_embedder_raises_its_error() -> None:
    emb = FailingEmbedder(RuntimeError("boom"))
    with pytest.raises(RuntimeError, match="boom"):
        emb.embed_documents(["x"])
    with pytest.raises(RuntimeError, match="boom"):
        emb.embed_query("x")


def test_overlap_reranker() -> None:
    scores = OverlapReranker().score("red apple pie", ["an apple pie", "red apple pie", "car"])
    assert scores == [2 / 3, 1.0, 0.0]
    assert OverlapReranker().score("!!", ["x"]) == [0.0]
