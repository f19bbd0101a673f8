"""The embedder and reranker contracts.

Embedder contract
-----------------
* ``spec`` is a stable string that identifies the model *and its vector space*
  (``bge-small-en-v1.5``, ``onnx:/models/e5@sha256:ab12…``, ``openai:text-embedding-3-small``).
  A collection records the spec it was built with; querying it with another spec is refused.
* ``dim`` is the vector size, known without embedding anything when possible.
* ``embed_documents(texts)`` and ``embed_query(text)`` return float32, L2-normalised rows
  (so a dot product is the cosine). Queries may get a model-specific prefix.
* Calls are synchronous and thread-safe; the async core runs them in a worker thread.
  Batching is the embedder's business; one intra-op thread by default (models.md).
* Failure to load (missing file, bad hash, missing extra) raises at construction, with a
  message naming the fix.

Reranker contract
-----------------
``score(query, passages)`` returns one float per passage, higher = more relevant, in the
reranker's own scale. ``spec`` names the model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind.registry import registry

Vectors = npt.NDArray[np.float32]


class Embedder(ABC):
    """Turns text into normalised float32 vectors."""

    spec: str
    dim: int

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """One row per text."""

    def embed_query(self, text: str) -> Vectors:
        """One row (1-D). Override to add a query prefix."""
        row: Vectors = self.embed_documents([text])[0]
        return row


class Reranker(ABC):
    """Scores (query, passage) pairs."""

    spec: str

    @abstractmethod
    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, higher is more relevant."""


def resolve_embedder(spec: str, **options: Any) -> Embedder:
    """Build an embedder from a spec: a registered name, or ``kind:argument``.

    ``bge-small-en-v1.5`` → the offline default; ``onnx:/path/to/dir`` → a local
    ONNX / sentence-transformers directory; ``openai:model-name`` → an OpenAI-compatible
    ``/embeddings`` endpoint (base URL and key from options or the environment).
    """
    name, _, arg = spec.partition(":")
    # A recorded spec carries a fingerprint after "@" (model hash, endpoint host); the
    # factory takes the part before it, and the caller compares the rebuilt spec in full.
    arg = arg.rpartition("@")[0] if "@" in arg else arg
    factory = registry("embedders").get(name)
    emb: Embedder = factory(arg, **options) if arg else factory(**options)
    return emb


def resolve_reranker(spec: str, **options: Any) -> Reranker:
    """Build a reranker from a registered name (``cross-encoder``)."""
    name, _, arg = spec.partition(":")
    factory = registry("rerankers").get(name)
    rr: Reranker = factory(arg, **options) if arg else factory(**options)
    return rr


def normalize(rows: npt.NDArray[Any]) -> Vectors:
    """L2-normalise rows (zero rows stay zero)."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return (rows / np.where(norms == 0, 1, norms)).astype(np.float32)
