"""BgeSmallEmbedder: genuine weights, verified files, the contract."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from unifind.embed import _onnx
from unifind.embed.base import Embedder, resolve_embedder
from unifind.embed.bge import MODEL_SHA256, QUERY_PREFIX, BgeSmallEmbedder
from unifind.errors import ConfigError
from unifind.testing.embedder import EmbedderConformance

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bge() -> BgeSmallEmbedder:
    return BgeSmallEmbedder()


class TestBgeConformance(EmbedderConformance):
    @pytest.fixture
    def embedder(self, bge: BgeSmallEmbedder) -> Embedder:
        return bge


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_similar_sentences_are_closer(bge: BgeSmallEmbedder) -> None:
    # The sentence-transformers documentation's example triple.
    food, bread, drums = bge.embed_documents(
        ["A man is eating food.", "A man is eating a piece of bread.", "A monkey is playing drums."]
    )
    assert cos(food, bread) > 0.8
    assert cos(food, bread) > cos(food, drums) + 0.2


def test_relevant_passage_beats_irrelevant(bge: BgeSmallEmbedder) -> None:
    q = bge.embed_query("how do I bake bread at home")
    good, bad = bge.embed_documents(
        [
            "Mix flour, water, yeast and salt, knead the dough, let it rise, then bake at 230C.",
            "The central bank raised interest rates by a quarter point on Tuesday.",
        ]
    )
    assert cos(q, good) > cos(q, bad) + 0.2


def test_query_gets_the_bge_prefix(bge: BgeSmallEmbedder) -> None:
    q = bge.embed_query("capital of France")
    with_prefix = bge.embed_documents([QUERY_PREFIX + "capital of France"])[0]
    without = bge.embed_documents(["capital of France"])[0]
    np.testing.assert_allclose(q, with_prefix, atol=1e-6)
    assert cos(q, without) < 0.999


def test_long_text_is_truncated_not_refused(bge: BgeSmallEmbedder) -> None:
    long = "word " * 3000
    row = bge.embed_documents([long])[0]
    assert abs(float(np.linalg.norm(row)) - 1.0) < 1e-5


def test_spec_dim_and_registry(bge: BgeSmallEmbedder) -> None:
    assert (bge.spec, bge.dim) == ("bge-small-en-v1.5", 384)
    assert isinstance(resolve_embedder("bge-small-en-v1.5"), BgeSmallEmbedder)


def test_batched_mode_is_close_to_exact(bge: BgeSmallEmbedder) -> None:
    texts = ["A man is eating food.", "SQLite stores everything in one file. " * 5, "hi"]
    batched = BgeSmallEmbedder(batch_size=8).embed_documents(texts)
    exact = bge.embed_documents(texts)
    assert float(np.min(np.sum(batched * exact, axis=1))) > 0.98


def test_bad_batch_size_is_refused() -> None:
    with pytest.raises(ConfigError, match="batch_size"):
        BgeSmallEmbedder(batch_size=0)


def test_hash_mismatch_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not the model")
    with pytest.raises(ConfigError, match="sha256.*expected " + MODEL_SHA256):
        _onnx.verify_sha256(bad, MODEL_SHA256)


def test_hash_is_cached_per_path_mtime_and_size(tmp_path: Path) -> None:
    f = tmp_path / "m.bin"
    f.write_bytes(b"one")
    first = _onnx.file_sha256(f)
    f.write_bytes(b"two!")  # new size (and mtime): must be re-hashed, not served stale
    assert _onnx.file_sha256(f) != first


def test_missing_model_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="model file not found"):
        _onnx.OnnxRunner(tmp_path / "model.onnx", tmp_path / "tokenizer.json")


def test_corrupt_model_is_a_clear_error(tmp_path: Path) -> None:
    src = _onnx.vectrix_model_dir("bge_small_en")
    shutil.copy(src / "tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "model.onnx").write_bytes(b"garbage")
    with pytest.raises(ConfigError, match="cannot load ONNX model"):
        _onnx.OnnxRunner(tmp_path / "model.onnx", tmp_path / "tokenizer.json")


def test_the_model_s_error_comes_first_and_a_bad_tokenizer_still_fails(tmp_path: Path) -> None:
    # The session loads in a thread beside the tokenizer (#18): errors are as before.
    (tmp_path / "model.onnx").write_bytes(b"garbage")
    (tmp_path / "tokenizer.json").write_text("{not a tokenizer")
    with pytest.raises(ConfigError, match="cannot load ONNX model"):
        _onnx.OnnxRunner(tmp_path / "model.onnx", tmp_path / "tokenizer.json")
    shutil.copy(_onnx.vectrix_model_dir("bge_small_en") / "model.onnx", tmp_path / "model.onnx")
    with pytest.raises(Exception) as caught:  # tokenizers raises a plain Exception
        _onnx.OnnxRunner(tmp_path / "model.onnx", tmp_path / "tokenizer.json")
    assert not isinstance(caught.value, ConfigError)  # tokenizers' own error, as before


def test_tokenisation_windows_keep_input_order(
    bge: BgeSmallEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"sentence number {i} about topic {i % 3}" for i in range(9)]
    whole = bge.embed_documents(texts)
    monkeypatch.setattr(_onnx, "_WINDOW", 4)
    np.testing.assert_array_equal(bge.embed_documents(texts), whole)


def test_documents_embedded_on_several_threads_are_the_same_rows(
    bge: BgeSmallEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches run at once (issue #23) give exactly the rows, in order, of one thread."""
    texts = [f"Passage {i} " + "about rivers and cities " * (i % 7) for i in range(23)]
    monkeypatch.setenv(_onnx.WORKERS_ENV, "1")
    one = bge.embed_documents(texts)
    monkeypatch.setenv(_onnx.WORKERS_ENV, "4")
    assert np.array_equal(bge.embed_documents(texts), one)


def test_workers_default_to_the_usable_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_onnx.WORKERS_ENV, raising=False)
    assert _onnx.embed_workers() == len(os.sched_getaffinity(0))
    monkeypatch.setenv(_onnx.WORKERS_ENV, "3")
    assert _onnx.embed_workers() == 3
    for bad in ("0", "two", "-1", "65", "9" * 5000):
        monkeypatch.setenv(_onnx.WORKERS_ENV, bad)
        with pytest.raises(ConfigError, match="UNIFIND_EMBED_WORKERS must be a positive"):
            _onnx.embed_workers()
