"""Embedders and cross-encoders (L1). See ``base.py`` for the contract."""

from unifind.embed.base import Embedder, Reranker, resolve_embedder, resolve_reranker

__all__ = ["Embedder", "Reranker", "resolve_embedder", "resolve_reranker"]
