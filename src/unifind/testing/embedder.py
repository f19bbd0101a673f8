"""Conformance suites for embedders and rerankers: every implementation passes them.

Subclass one and override its fixture (``embedder`` / ``reranker``)::

    class TestMine(EmbedderConformance):
        @pytest.fixture
        def embedder(self) -> Embedder:
            return MyEmbedder()

They check the contracts in ``unifind/embed/base.py``. ``batch_atol`` is the largest
difference allowed between a row embedded in a batch and the same text embedded alone.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import numpy as np
import pytest

from unifind.embed.base import Embedder, Reranker

TEXTS = (
    "The cat sat on the mat.",
    "Reciprocal rank fusion combines ranked lists from several retrievers.",
    "SQLite is a small, fast, self-contained SQL database engine.",
    "a",
    "Ein kurzer deutscher Satz über Suchmaschinen.",
    "The quick brown fox jumps over the lazy dog. " * 12,
)


class EmbedderConformance:
    """Contract tests for :class:`unifind.embed.base.Embedder` implementations."""

    batch_atol: ClassVar[float] = 1e-4

    @pytest.fixture
    def embedder(self) -> Embedder:
        raise NotImplementedError("override the `embedder` fixture")

    @pytest.fixture
    def texts(self) -> list[str]:
        return list(TEXTS)

    def test_spec_is_a_non_empty_string(self, embedder: Embedder) -> None:
        assert isinstance(embedder.spec, str) and embedder.spec.strip()

    def test_dim_is_a_positive_int(self, embedder: Embedder) -> None:
        assert isinstance(embedder.dim, int) and embedder.dim > 0

    def test_shape_and_dtype(self, embedder: Embedder, texts: list[str]) -> None:
        rows = embedder.embed_documents(texts)
        assert rows.shape == (len(texts), embedder.dim)
        assert rows.dtype == np.float32

    def test_rows_are_l2_normalised(self, embedder: Embedder, texts: list[str]) -> None:
        rows = embedder.embed_documents(texts)
        assert np.all(np.isfinite(rows))
        np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)

    def test_deterministic(self, embedder: Embedder, texts: list[str]) -> None:
        np.testing.assert_array_equal(
            embedder.embed_documents(texts), embedder.embed_documents(texts)
        )

    def test_empty_list_gives_zero_rows(self, embedder: Embedder) -> None:
        rows = embedder.embed_documents([])
        assert rows.shape == (0, embedder.dim)
        assert rows.dtype == np.float32

    def test_batch_equals_one_by_one(self, embedder: Embedder, texts: list[str]) -> None:
        batch = embedder.embed_documents(texts)
        single = np.stack([embedder.embed_documents([t])[0] for t in texts])
        np.testing.assert_allclose(batch, single, atol=self.batch_atol)

    def test_rows_do_not_depend_on_order(self, embedder: Embedder, texts: list[str]) -> None:
        forward = embedder.embed_documents(texts)
        backward = embedder.embed_documents(texts[::-1])[::-1]
        np.testing.assert_allclose(forward, backward, atol=self.batch_atol)

    def test_embed_query_is_one_normalised_row(self, embedder: Embedder) -> None:
        row = embedder.embed_query("what is reciprocal rank fusion?")
        assert row.shape == (embedder.dim,)
        assert row.dtype == np.float32
        assert abs(float(np.linalg.norm(row)) - 1.0) < 1e-5

    def test_different_texts_differ(self, embedder: Embedder, texts: list[str]) -> None:
        rows = embedder.embed_documents(texts[:3])
        assert float(rows[0] @ rows[1]) < 0.999
        assert float(rows[1] @ rows[2]) < 0.999

    def test_thread_safe(self, embedder: Embedder, texts: list[str]) -> None:
        expected = embedder.embed_documents(texts)
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda _: embedder.embed_documents(texts), range(4)))
        for got in results:
            np.testing.assert_allclose(got, expected, atol=self.batch_atol)


class RerankerConformance:
    """Contract tests for :class:`unifind.embed.base.Reranker` implementations.

    Override ``reranker``. ``score_atol`` bounds how much a passage's score may move
    when the other passages of the call change.
    """

    score_atol: ClassVar[float] = 1e-4

    @pytest.fixture
    def reranker(self) -> Reranker:
        raise NotImplementedError("override the `reranker` fixture")

    QUERY = "how do I bake sourdough bread at home"
    PASSAGES = (
        "Feed the sourdough starter, mix flour, water and salt, proof overnight, bake hot.",
        "The central bank left interest rates unchanged on Tuesday.",
        "Bread baking at home needs flour, water, salt and yeast or a starter.",
    )

    def test_spec_is_a_non_empty_string(self, reranker: Reranker) -> None:
        assert isinstance(reranker.spec, str) and reranker.spec.strip()

    def test_one_float_per_passage(self, reranker: Reranker) -> None:
        scores = reranker.score(self.QUERY, list(self.PASSAGES))
        assert len(scores) == len(self.PASSAGES)
        assert all(isinstance(s, float) for s in scores)

    def test_no_passages_no_scores(self, reranker: Reranker) -> None:
        assert reranker.score(self.QUERY, []) == []

    def test_deterministic(self, reranker: Reranker) -> None:
        passages = list(self.PASSAGES)
        assert reranker.score(self.QUERY, passages) == reranker.score(self.QUERY, passages)

    def test_score_does_not_depend_on_the_other_passages(self, reranker: Reranker) -> None:
        together = reranker.score(self.QUERY, list(self.PASSAGES))
        alone = [reranker.score(self.QUERY, [p])[0] for p in self.PASSAGES]
        np.testing.assert_allclose(together, alone, atol=self.score_atol)

    def test_relevant_beats_irrelevant(self, reranker: Reranker) -> None:
        relevant, irrelevant, _ = reranker.score(self.QUERY, list(self.PASSAGES))
        assert relevant > irrelevant
