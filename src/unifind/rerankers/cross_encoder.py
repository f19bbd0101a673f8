"""``cross-encoder``: the offline ms-marco MiniLM cross-encoder reads query and item together.

``cross-encoder`` is the model bundled with the default install
(:class:`unifind.embed.cross_encoder.CrossEncoderReranker`); ``cross-encoder:/dir`` is any
local directory with a cross-encoder's ``model.onnx`` and ``tokenizer.json``. The passage is
the item's title and content, so web snippets, KB chunks and DB rows compete on one scale.
A model is loaded once per spec and shared; it runs in a worker thread (DESIGN §2: the async
core never blocks on a model).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

from unifind.config import Settings
from unifind.embed.base import Reranker, resolve_reranker
from unifind.rerankers.base import Ranking, RerankMode, by_score
from unifind.types import Item

_models: dict[str, Reranker] = {}
_lock = threading.Lock()


def model(spec: str) -> Reranker:
    """The reranker for ``spec``, loaded on first use (a load costs about a second)."""
    with _lock:
        if spec not in _models:
            _models[spec] = resolve_reranker(spec)
        return _models[spec]


def passage(item: Item) -> str:
    """Title and content, the text a cross-encoder judges."""
    return "\n".join(part for part in (item.title.strip(), item.content.strip()) if part)


class CrossEncoderMode(RerankMode):
    """Scores every item with the cross-encoder's logit; higher first."""

    name = "cross-encoder"
    form = "cross-encoder or cross-encoder:/path/to/model-dir"

    def check(self, arg: str, settings: Settings) -> None:
        pass  # a directory is verified when the model loads; a bad one degrades the rerank

    async def rank(
        self, items: Sequence[Item], query: str, arg: str, settings: Settings
    ) -> Ranking:
        spec = f"{self.name}:{arg}" if arg else self.name
        passages = [passage(it) for it in items]
        scores = await asyncio.to_thread(lambda: model(spec).score(query, passages))
        return by_score(scores)
