"""OnnxDirEmbedder over the bge files laid out as a sentence-transformers export."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from unifind.embed import _onnx
from unifind.embed.base import Embedder, resolve_embedder
from unifind.embed.bge import MODEL_SHA256, QUERY_PREFIX, BgeSmallEmbedder
from unifind.embed.onnx_dir import OnnxDirEmbedder
from unifind.errors import ConfigError, EmbedderMismatch
from unifind.testing.embedder import EmbedderConformance

pytestmark = pytest.mark.slow

TEXTS = ["A man is eating food.", "Vector search with SQLite.", "x"]


def _layout(root: Path, *, nested: bool = False, pooling: dict[str, bool] | None = None) -> Path:
    """Link the bge files into ``root`` as an export directory."""
    src = _onnx.vectrix_model_dir("bge_small_en")
    model_dir = root / "onnx" if nested else root
    model_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(src / "model.onnx", model_dir / "model.onnx")
    os.symlink(src / "tokenizer.json", root / "tokenizer.json")
    if pooling is not None:
        (root / "1_Pooling").mkdir()
        (root / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return root


@pytest.fixture(scope="module")
def bge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _layout(tmp_path_factory.mktemp("bge"))


class TestOnnxDirConformance(EmbedderConformance):
    @pytest.fixture
    def embedder(self, bge_dir: Path) -> Embedder:
        return OnnxDirEmbedder(bge_dir)


def test_cls_pooling_matches_bge_exactly(bge_dir: Path) -> None:
    ours = OnnxDirEmbedder(bge_dir, pooling="cls", query_prefix=QUERY_PREFIX)
    bge = BgeSmallEmbedder()
    np.testing.assert_allclose(ours.embed_documents(TEXTS), bge.embed_documents(TEXTS), atol=1e-6)
    np.testing.assert_allclose(ours.embed_query("food"), bge.embed_query("food"), atol=1e-6)
    assert ours.dim == 384


def test_mean_is_the_default_and_differs_from_cls(bge_dir: Path) -> None:
    mean = OnnxDirEmbedder(bge_dir)
    cls = OnnxDirEmbedder(bge_dir, pooling="cls")
    assert mean.pooling == "mean"
    sims = np.sum(mean.embed_documents(TEXTS) * cls.embed_documents(TEXTS), axis=1)
    assert np.all(sims < 0.999)


def test_pooling_read_from_sentence_transformers_config(tmp_path: Path) -> None:
    root = _layout(tmp_path, nested=True, pooling={"pooling_mode_cls_token": True})
    emb = OnnxDirEmbedder(root)
    assert emb.pooling == "cls"
    assert OnnxDirEmbedder(root, pooling="max").pooling == "max"  # explicit wins


def test_ambiguous_pooling_config_is_refused(tmp_path: Path) -> None:
    cfg = {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}
    root = _layout(tmp_path, pooling=cfg)
    with pytest.raises(ConfigError, match="pass pooling= explicitly"):
        OnnxDirEmbedder(root)


def test_spec_pins_path_and_hash(bge_dir: Path) -> None:
    emb = OnnxDirEmbedder(bge_dir)
    assert emb.spec == f"onnx:{bge_dir.resolve()}@{MODEL_SHA256[:16]}"
    again = resolve_embedder(emb.spec)
    assert isinstance(again, OnnxDirEmbedder) and again.spec == emb.spec
    assert resolve_embedder(f"onnx:{bge_dir}").spec == emb.spec


def test_spec_with_another_hash_is_refused(bge_dir: Path) -> None:
    with pytest.raises(EmbedderMismatch, match="changed"):
        OnnxDirEmbedder(f"{bge_dir}@0123456789abcdef")


def test_missing_directory_and_model_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="directory not found"):
        OnnxDirEmbedder(tmp_path / "nope")
    with pytest.raises(ConfigError, match=r"model\.onnx or onnx/model\.onnx"):
        OnnxDirEmbedder(tmp_path)


def test_unknown_pooling_is_refused(bge_dir: Path) -> None:
    with pytest.raises(ConfigError, match="unknown pooling"):
        OnnxDirEmbedder(bge_dir, pooling="last")  # type: ignore[arg-type]


def test_config_max_positions_caps_truncation(tmp_path: Path) -> None:
    root = _layout(tmp_path)
    (root / "config.json").write_text(json.dumps({"max_position_embeddings": 128}))
    emb = OnnxDirEmbedder(root)
    assert emb.runner.tokenizer.truncation["max_length"] == 128


def test_query_prompt_read_from_sentence_transformers_config(tmp_path: Path) -> None:
    root = _layout(tmp_path, pooling={"pooling_mode_cls_token": True})
    cfg = {"prompts": {"query": QUERY_PREFIX, "document": ""}}
    (root / "config_sentence_transformers.json").write_text(json.dumps(cfg))
    emb = OnnxDirEmbedder(root)
    assert emb.query_prefix == QUERY_PREFIX
    np.testing.assert_allclose(emb.embed_query("x"), BgeSmallEmbedder().embed_query("x"), atol=1e-6)
    assert OnnxDirEmbedder(root, query_prefix="").query_prefix == ""


def test_pooling_arithmetic() -> None:
    hidden = np.arange(12, dtype=np.float32).reshape(1, 4, 3)  # rows [0,1,2] [3,4,5] ...
    mask = np.array([[1, 1, 0, 0]], dtype=np.int64)  # the last two tokens are padding
    np.testing.assert_array_equal(_onnx.pool(hidden, mask, "cls"), [[0, 1, 2]])
    np.testing.assert_array_equal(_onnx.pool(hidden, mask, "mean"), [[1.5, 2.5, 3.5]])
    np.testing.assert_array_equal(_onnx.pool(hidden, mask, "max"), [[3, 4, 5]])


def test_model_outputs_are_picked_by_shape(bge_dir: Path) -> None:
    emb = OnnxDirEmbedder(bge_dir)  # mean pooling
    mask = np.array([[1, 1]], dtype=np.int64)
    tokens = np.array([[[1.0, 0.0], [3.0, 2.0]]], dtype=np.float32)
    pooled = np.array([[7.0, 8.0]], dtype=np.float32)
    np.testing.assert_array_equal(emb._post({"last_hidden_state": tokens}, mask), [[2, 1]])
    np.testing.assert_array_equal(emb._post({"embeddings": pooled}, mask), pooled)
    both = {"token_embeddings": tokens, "sentence_embedding": pooled}
    np.testing.assert_array_equal(emb._post(both, mask), pooled)
    with pytest.raises(ConfigError, match="no embedding among"):
        emb._post({"logits": np.zeros(1, np.float32)}, mask)
